//! A results file is trusted only after it is checked like the run that wrote it: every
//! round where the plan's schedule puts it (side, level, index at its position), no
//! round twice, and counts that agree with the TPS they claim. A hand-edited or damaged
//! file — a duplicated round, a round at a level the plan never had, TPS that does not
//! follow from transactions and duration — would otherwise be analysed, resumed or
//! merged as if it were a run. Each round's figures are checked in `figures`.

use std::collections::{BTreeMap, BTreeSet};

use super::record::RunRecord;
use super::round::{RoundRecord, RoundStatus};

/// How far a round's TPS may be from transactions / duration: rounding in a merge of
/// segments stays far below it; an edited count or duration is far above.
const TPS_AGREEMENT: f64 = 0.01;

/// The first thing in `results` that no run writes, as a message naming the round and
/// the field.
pub(crate) fn check(results: &RunRecord) -> Result<(), String> {
    results
        .plan
        .check_saved()
        .map_err(|why| format!("its plan: {why:#}"))?;
    super::figures::check_run(results)?;
    if let Some(timing) = &results.class_timing {
        timing.check()?;
    }
    let round_time = results.plan.schedule.round_time;
    let slots: BTreeMap<u32, crate::schedule::Slot> = results
        .plan
        .schedule
        .slots(results.plan.seed)
        .into_iter()
        .map(|slot| (slot.position, slot))
        .collect();
    let mut completed = BTreeSet::new();
    for round in &results.rounds {
        let label = label(round);
        match slots.get(&round.position) {
            Some(slot)
                if slot.side == round.side
                    && slot.threads == round.threads
                    && slot.index == round.index => {}
            Some(slot) => {
                return Err(format!(
                    "{label} is at position {}, where the plan puts the {} round {} at {} \
                     threads: the file was changed",
                    round.position + 1,
                    slot.side,
                    slot.index + 1,
                    slot.threads
                ));
            }
            None => {
                return Err(format!(
                    "{label} is at position {}, which the plan's schedule does not have",
                    round.position + 1
                ));
            }
        }
        super::figures::check_round(round, round_time)
            .map_err(|why| format!("{label}: {why}: the file was changed"))?;
        if round.status != RoundStatus::Completed {
            continue;
        }
        if !completed.insert((round.side, round.threads, round.index)) {
            return Err(format!("{label} is in the file twice"));
        }
        check_counts(round).map_err(|why| format!("{label}: {why}"))?;
        check_load(round).map_err(|why| format!("{label}: {why}"))?;
        super::figures::check_latencies(round)
            .map_err(|why| format!("{label}: {why}: the file was changed"))?;
    }
    Ok(())
}

fn label(round: &RoundRecord) -> String {
    format!(
        "the {} round {} at {} threads",
        round.side,
        round.index + 1,
        round.threads
    )
}

/// The other processes' CPU, which a load-adjusted estimate regresses on, is a share of
/// the machine: no reading gives a value outside 0–100 %.
fn check_load(round: &RoundRecord) -> Result<(), String> {
    match round.host_load.and_then(|h| h.other_cpu_pct) {
        Some(pct) if !(pct.is_finite() && (0.0..=100.0).contains(&pct)) => Err(format!(
            "other processes used {pct} % of the machine's CPU, which no reading gives: the \
             file was changed"
        )),
        _ => Ok(()),
    }
}

/// A completed round's duration, TPS and transactions agree.
fn check_counts(round: &RoundRecord) -> Result<(), String> {
    if !(round.duration_s.is_finite() && round.duration_s > 0.0) {
        return Err(format!("a measured period of {} s", round.duration_s));
    }
    if !(round.tps.is_finite() && round.tps >= 0.0) {
        return Err(format!("TPS {}", round.tps));
    }
    let implied = round.transactions as f64 / round.duration_s;
    if (implied - round.tps).abs() > TPS_AGREEMENT * round.tps.max(implied).max(1.0) {
        return Err(format!(
            "TPS {:.2}, but {} transactions in {:.3} s are {implied:.2} per second: the file \
             was changed",
            round.tps, round.transactions, round.duration_s
        ));
    }
    Ok(())
}
