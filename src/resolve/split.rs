//! `--segment I/N`: what a segment of a split run needs before it may start. Segments never
//! talk to each other, so everything they must agree on has to be fixed by the command
//! line itself: the seed, the start time, the rounds (no early stop at a look, whose
//! decision each segment would take on its own part of the data) and no per-round hooks
//! (N processes cannot run them once). Managed servers are refused: each segment would
//! start its own.

use crate::cli::SegmentArgs;
use crate::exit::UsageError;
use crate::segment::{DEFAULT_GUARD, Segment};

use crate::plan::{Plan, TargetSpec};

/// The segment of `args`, its start time normalised, or none.
pub(super) fn segment(args: &SegmentArgs) -> anyhow::Result<Option<Segment>> {
    let Some((index, count)) = args.segment else {
        return Ok(None);
    };
    let start_at = match &args.start_at {
        Some(text) => {
            let start = humantime::parse_rfc3339_weak(text).map_err(|e| {
                UsageError::err(format!(
                    "--start-at {text}: {e}; write it as 2026-12-01T10:00:00Z"
                ))
            })?;
            Some(humantime::format_rfc3339_millis(start).to_string())
        }
        None if count > 1 => {
            return Err(UsageError::err(format!(
                "--segment {index}/{count}: every segment needs the same --start-at TIME (RFC 3339, \
                 such as 2026-12-01T10:00:00Z), a little after the last one can start"
            )));
        }
        None => None,
    };
    Ok(Some(Segment {
        index,
        count,
        start_at,
        guard: args.guard_gap.unwrap_or(DEFAULT_GUARD),
    }))
}

/// Refuses a split plan whose segments could not agree, or that they could not run.
pub(super) fn check(plan: &Plan, seed_given: bool) -> anyhow::Result<()> {
    let Some(segment) = &plan.segment else {
        return Ok(());
    };
    let flag = format!("--segment {}/{}", segment.index, segment.count);
    let refuse = |why: String| Err(UsageError::err(format!("{flag}: {why}")));
    if let Some(side) = plan
        .sides
        .iter()
        .find(|s| matches!(s.target, TargetSpec::Managed { .. }))
    {
        return refuse(format!(
            "the {} side ({}) is a managed [server]; segments run only against external \
             [connection] targets, since each segment would start a server of its own",
            side.side,
            side.profile.display()
        ));
    }
    if plan.sequential.is_some() {
        return refuse(
            "--until stops at a look, which each segment would decide on its own share; \
             give a fixed --rounds or --max-time"
                .to_string(),
        );
    }
    if let Some(side) = plan
        .sides
        .iter()
        .find(|s| !s.hooks.before_round.is_empty() || !s.hooks.after_round.is_empty())
    {
        return refuse(format!(
            "the {} profile has before_round/after_round hooks, which the segments cannot run \
             once between rounds; use setup/teardown hooks (segment 1 runs them)",
            side.side
        ));
    }
    if let Some(level) = plan
        .schedule
        .levels
        .iter()
        .find(|&&level| level < segment.count)
    {
        return refuse(format!(
            "--threads {level} cannot be split into {} segments of at least one thread",
            segment.count
        ));
    }
    if segment.is_split() && !seed_given {
        return refuse(
            "every segment needs the same --seed (it fixes the round order and the data)"
                .to_string(),
        );
    }
    if segment.is_split() && plan.outputs.json.is_none() {
        return refuse(
            "give --json FILE: the segments' results files are what `abtest merge` joins"
                .to_string(),
        );
    }
    Ok(())
}
