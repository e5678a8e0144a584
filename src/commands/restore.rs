//! `abtest restore RESULTS.json`: put an external server back as it was before a run's
//! first hook, from the snapshot the run saved before that hook ran — the way back after
//! a `kill -9`, a lost connection or a power cut left a server changed. Credentials come
//! from the saved plan's profiles, read again as `--resume` reads them (a password is
//! never saved). Managed servers were thrown away with their run and are skipped.

use anyhow::Context;

use crate::cli::RestoreArgs;
use crate::db::ConnectSpec;
use crate::exit::{self, NotRestored, UsageError};
use crate::plan::{SidePlan, TargetSpec};
use crate::server::globals::GlobalSnapshot;
use crate::server::restore::{self, Step};
use crate::terminal::stdout_line;

/// Variables that name the server itself: a snapshot whose values differ was taken of
/// another server, and nothing of it is applied.
const IDENTITY: &[&str] = &["hostname", "datadir", "port", "version"];

/// Shows and applies (or with `--dry-run` only shows) every difference on each external
/// side; exit 6 when something could not be put back.
pub(crate) fn execute(args: &RestoreArgs) -> anyhow::Result<i32> {
    let saved = crate::results::load(&args.results)
        .map_err(|e| UsageError::err(format!("restore: {e:#}")))?
        .record;
    let mut left = Vec::new();
    let mut done: Vec<String> = Vec::new();
    for side_plan in &saved.plan.sides {
        let side = side_plan.side;
        let TargetSpec::External { endpoint, user, .. } = &side_plan.target else {
            stdout_line(&format!(
                "{side}: a managed server, thrown away when its run ended: nothing to put back"
            ));
            continue;
        };
        let server = format!("{user}@{endpoint}");
        let snapshot = saved.sides.get(&side).and_then(|s| s.globals.as_ref());
        let Some(snapshot) = snapshot else {
            stdout_line(&format!(
                "{side}: the file holds no snapshot of {server} (the run stopped before its \
                 first hook, or an older abtest wrote it): nothing to put back"
            ));
            continue;
        };
        if done.contains(&server) {
            stdout_line(&format!("{side}: {server} serves both sides: done above"));
            continue;
        }
        done.push(server.clone());
        let mut conn = connect_spec(side_plan)?
            .connect()
            .with_context(|| format!("{side}: cannot connect to {server}"))?;
        let now = GlobalSnapshot::read(&mut conn)
            .with_context(|| format!("{side}: reading the global variables of {server}"))?;
        check_same_server(side_plan, &server, snapshot, &now)?;
        let steps = restore::steps(snapshot, &now);
        // Events, triggers and accounts made since are named, never dropped.
        let acting = restore::left_acting(snapshot, &now);
        if steps.is_empty() && acting.is_empty() {
            stdout_line(&format!(
                "{side}: {server} is as it was before the hooks (snapshot of {})",
                snapshot.taken_at
            ));
            continue;
        }
        stdout_line(&format!(
            "{side}: {server} differs from its snapshot of {}:",
            snapshot.taken_at
        ));
        for step in &steps {
            show(step);
        }
        if args.dry_run {
            for what in &acting {
                stdout_line(&format!("  -- not put back: {what}"));
            }
            continue;
        }
        let outcome = restore::restore(&mut conn, snapshot)
            .with_context(|| format!("{side}: putting {server} back"))?;
        for restored in &outcome.restored {
            stdout_line(&format!("{side}: {restored}"));
        }
        for what in outcome.left {
            stdout_line(&format!("{side}: {what}"));
            left.push(format!("{side}: {what}"));
        }
    }
    if args.dry_run {
        stdout_line("dry run: nothing was changed");
    }
    if left.is_empty() {
        return Ok(exit::SUCCESS);
    }
    Err(anyhow::Error::new(NotRestored(format!(
        "restore: {} difference(s) could not be put back ({}); put them back by hand",
        left.len(),
        left.join("; ")
    ))))
}

/// One difference and the statement that puts it back.
fn show(step: &Step) {
    match step.sql() {
        Some(sql) => stdout_line(&format!("  {sql};  -- {}", step.difference())),
        None => stdout_line(&format!(
            "  -- no statement: {} (needs a restart)",
            step.difference()
        )),
    }
}

/// How to reach the side's server: its profile read again for the credentials, which
/// must still point to the server the run used.
fn connect_spec(saved: &SidePlan) -> anyhow::Result<ConnectSpec> {
    let side = saved.side;
    let mut warnings = Vec::new();
    let now =
        crate::resolve::resolve_side(&saved.profile, side, &mut warnings).with_context(|| {
            format!(
                "restore: reading the {side} profile {} for the server's credentials",
                saved.profile.display()
            )
        })?;
    for warning in warnings {
        crate::terminal::warning(&warning);
    }
    match (&saved.target, now.target) {
        (
            TargetSpec::External {
                endpoint: was,
                user: user_was,
                ..
            },
            TargetSpec::External {
                endpoint,
                user,
                password,
                ..
            },
        ) if *was == endpoint && *user_was == user => Ok(ConnectSpec::new(
            endpoint,
            &user,
            password,
            None,
            &now.client,
        )),
        _ => Err(UsageError::err(format!(
            "restore: the {side} profile {} no longer points to the server the run used \
             ({}); put the profile back as it was, so the snapshot goes to its own server",
            saved.profile.display(),
            describe_target(&saved.target)
        ))),
    }
}

fn describe_target(target: &TargetSpec) -> String {
    match target {
        TargetSpec::External { endpoint, user, .. } => format!("{user}@{endpoint}"),
        _ => "a managed server".into(),
    }
}

/// Refuses a server that is not the one the snapshot was taken of: its own name,
/// datadir, port or version differ. Nothing is changed on it.
fn check_same_server(
    side: &SidePlan,
    server: &str,
    snapshot: &GlobalSnapshot,
    now: &GlobalSnapshot,
) -> anyhow::Result<()> {
    for name in IDENTITY {
        let (Some(was), Some(is)) = (snapshot.variables.get(*name), now.variables.get(*name))
        else {
            continue;
        };
        if was != is {
            return Err(UsageError::err(format!(
                "restore: {}: {server} is not the server the snapshot was taken of ({name} \
                 was {}, is {}); nothing was changed on it",
                side.side,
                was.as_deref().unwrap_or("NULL"),
                is.as_deref().unwrap_or("NULL")
            )));
        }
    }
    Ok(())
}
