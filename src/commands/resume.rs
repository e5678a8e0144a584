//! `abtest --resume results.json`: continue an interrupted or failed run from the next
//! round. The saved plan is the plan: it is read back typed, not rebuilt from a command
//! line. Only the sides are read again from their profiles — their passwords were never
//! saved — and they must be what the run started with; the servers' facts must match
//! the saved facts too. Otherwise abtest refuses and says what changed, because rounds
//! measured against a different configuration cannot be compared.

use crate::exit::UsageError;
use crate::plan::{Plan, SidePlan};
use crate::report::files::Outputs;
use crate::report::formats::Format;
use crate::resolve::resolve_side;
use crate::results::{self, ResultsFile, RunStatus};
use crate::side::Side;

/// The plan to resume and the results so far.
pub(crate) fn load(path: &std::path::Path) -> anyhow::Result<(Plan, ResultsFile)> {
    let previous = results::load(path).map_err(|e| UsageError::err(format!("--resume: {e:#}")))?;
    if previous.record.status == RunStatus::Completed {
        return Err(UsageError::err(format!(
            "--resume: {} is a completed run; there is nothing to resume",
            path.display()
        )));
    }
    if let Some(segment) = &previous.record.plan.segment {
        return Err(UsageError::err(format!(
            "--resume: {} is segment {}/{} of a split run, whose rounds keep to a wall-clock \
             schedule that has passed; merge the segments' completed rounds with `abtest merge`, \
             or start every segment again",
            path.display(),
            segment.index,
            segment.count
        )));
    }
    let mut plan = previous.record.plan.clone();
    let mut warnings = Vec::new();
    let sides = [Side::Baseline, Side::Variant]
        .map(|side| resolve_side(&plan.side(side).profile, side, &mut warnings));
    let [baseline, variant] = sides;
    let sides = [baseline?, variant?];
    check_same_sides(&plan.sides, &sides)?;
    plan.sides = sides;
    plan.validate()
        .map_err(|e| UsageError::err(format!("--resume: {}: {e:#}", path.display())))?;
    plan.warnings = warnings;
    let mut outputs = Outputs::of_plan(&plan.outputs);
    outputs.set(Format::Results, path.to_path_buf());
    plan.outputs = outputs.saved();
    Ok((plan, previous))
}

/// Refuses sides whose profiles changed since the run started: the same target,
/// client settings and hooks, compared as they are saved (passwords are not).
fn check_same_sides(saved: &[SidePlan; 2], now: &[SidePlan; 2]) -> anyhow::Result<()> {
    let changed: Vec<String> = saved
        .iter()
        .zip(now)
        .filter(|(before, after)| before != after)
        .map(|(before, _)| format!("{} profile {}", before.side, before.profile.display()))
        .collect();
    if changed.is_empty() {
        return Ok(());
    }
    Err(UsageError::err(format!(
        "--resume: the plan changed since the run started (sides: {}); start a new run instead",
        changed.join(", ")
    )))
}
