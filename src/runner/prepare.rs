//! The data both sides run on: the sysbench tables prepared on each target (in
//! parallel unless both are one database), and with `--instances` a copy of each managed
//! server's prepared datadir for its later instances. Used at the start and again when a
//! lost server is restarted.

use anyhow::Context;

use crate::plan::Plan;
use crate::target::Target;
use crate::workload::schema;

/// Prepares both sides' data, in parallel unless both sides are the same database
/// (then one after the other, so the second finds the first's tables).
pub(super) fn prepare_data(plan: &Plan, targets: &[Target; 2]) -> anyhow::Result<()> {
    let prepare = |t: &Target| {
        let replays_writes = plan.workload.writes() && !plan.client.check_only;
        if !t.is_managed() && replays_writes && !plan.allow_foreign_tables {
            schema::check_foreign_tables(&t.client, &plan.workload, plan.max_threads())
                .with_context(|| {
                    format!("{}: checking the database before a write workload", t.side)
                })?;
        }
        let created = schema::prepare(&t.client, &plan.workload, plan.seed, plan.max_threads())
            .with_context(|| format!("{}: preparing data", t.side))?;
        let tables = schema::table_count(&plan.workload, plan.max_threads());
        crate::terminal::note(format_args!(
            "{}: {created} table(s) created, {} reused",
            t.side,
            tables.saturating_sub(created)
        ));
        anyhow::Ok(())
    };
    if targets[0].client.same_database(&targets[1].client) {
        return targets.iter().try_for_each(prepare);
    }
    std::thread::scope(|scope| {
        let handles: Vec<_> = targets
            .iter()
            .map(|t| scope.spawn(move || prepare(t)))
            .collect();
        handles.into_iter().try_for_each(join)
    })
}

/// With `--instances`, each managed side keeps a copy of its prepared datadir, from
/// which every later instance starts.
pub(super) fn keep_prepared(plan: &Plan, targets: &mut [Target; 2]) -> anyhow::Result<()> {
    if plan.schedule.instances < 2 {
        return Ok(());
    }
    for (target, side) in targets.iter_mut().zip(&plan.sides) {
        target.keep_prepared(side, plan.max_threads())?;
    }
    Ok(())
}

/// The result of a start-up thread; a panic in it is an error, not a crash.
fn join<T>(handle: std::thread::ScopedJoinHandle<'_, anyhow::Result<T>>) -> anyhow::Result<T> {
    handle
        .join()
        .unwrap_or_else(|_| anyhow::bail!("a start-up thread panicked"))
}
