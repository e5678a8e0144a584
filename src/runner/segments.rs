//! What a segment of a split run does differently from a whole run before its rounds.
//! Segment 1 leads: it prepares the data, runs the setup and teardown hooks and compares
//! the answers, once for the run. The others wait until the leader's data is in place,
//! and every segment refuses to start after its first window has passed, since it could
//! no longer keep to the schedule the others keep.

use std::time::{Duration, SystemTime};

use crate::exit::UsageError;
use crate::plan::Plan;
use crate::segment::{Segment, Window};
use crate::target::Target;
use crate::workload::schema;

/// How often a follower looks for the leader's data.
const POLL: Duration = Duration::from_secs(1);

/// Whether this process does the run's one-off work: a whole run, or segment 1.
pub(crate) fn leads(plan: &Plan) -> bool {
    plan.segment.as_ref().is_none_or(|s| s.index == 1)
}

/// A segment's wall-clock window of every slot of the plan, by position; a segment
/// without a start time starts now.
pub(crate) fn windows(plan: &Plan, segment: &Segment) -> anyhow::Result<Vec<Window>> {
    let slots = plan.schedule.slots(plan.seed);
    let persistent = plan.client.connections == crate::schedule::Connections::Persistent;
    segment
        .windows(&plan.schedule, &slots, persistent, SystemTime::now())
        .map_err(UsageError::err)
}

/// The wall-clock start of the first round of a segment.
fn first_window(plan: &Plan, segment: &Segment) -> anyhow::Result<SystemTime> {
    let windows = windows(plan, segment)?;
    Ok(windows.first().map_or(SystemTime::now(), |w| w.start))
}

/// Refuses to start a segment whose first round should have begun more than a guard gap
/// ago.
pub(crate) fn check_not_late(plan: &Plan) -> anyhow::Result<()> {
    let Some(segment) = &plan.segment else {
        return Ok(());
    };
    let start = first_window(plan, segment)?;
    match SystemTime::now().duration_since(start) {
        Ok(late) if late > segment.guard => Err(UsageError::err(format!(
            "segment {}/{}: the first round was due at {} ({:.1} s ago, more than the {} guard \
             gap); the other segments keep to the schedule without it. Start every segment \
             again with a later --start-at",
            segment.index,
            segment.count,
            segment.start_at.as_deref().unwrap_or_default(),
            late.as_secs_f64(),
            humantime::format_duration(segment.guard)
        ))),
        _ => Ok(()),
    }
}

/// A follower waits until both sides hold the data the leader prepares, at most until
/// the first round is due.
pub(crate) fn wait_for_data(plan: &Plan, targets: &[Target; 2]) -> anyhow::Result<()> {
    let Some(segment) = &plan.segment else {
        return Ok(());
    };
    let due = first_window(plan, segment)?;
    crate::terminal::note(format_args!(
        "segment {}/{}: waiting for segment 1 to prepare the data",
        segment.index, segment.count
    ));
    loop {
        let mut missing = None;
        for target in targets {
            if let Some(table) =
                schema::first_unprepared(&target.client, &plan.workload, plan.max_threads())?
            {
                missing = Some(format!("{}: {table}", target.side));
                break;
            }
        }
        let Some(missing) = missing else {
            return Ok(());
        };
        if SystemTime::now() >= due || crate::stop::requested() {
            return Err(UsageError::err(format!(
                "segment {}/{}: the data was not ready when the first round was due ({missing}); \
                 segment 1 prepares it. Start segment 1 earlier, or every segment with a later --start-at",
                segment.index, segment.count
            )));
        }
        std::thread::sleep(POLL);
    }
}
