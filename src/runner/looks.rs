//! The looks of a run with `--until`: after a round that completes a look's number of
//! rounds on both sides, the run is analysed at that look's nominal levels
//! (`stats::sequential`) — the judge gives a look the verdicts that the file saved
//! meanwhile withholds — the look is recorded, and the stopping rule says whether the
//! answer is known. The final analysis of such a run uses the α of its last look, so the
//! verdict it reports is the one the stopping rule saw.

use std::time::Duration;

use crate::analysis::AnalysisOptions;
use crate::plan::Plan;
use crate::results::{self, Look, ResultsFile, RoundStatus, RunRecord, Stage};
use crate::side::Side;
use crate::stats::metric::Metric;
use crate::stats::sequential::Until;
use crate::stats::verdict::Verdict;

/// Takes a look if the completed rounds reach one; returns why the run stops, if it does.
pub(crate) fn after_round(
    plan: &Plan,
    results: &mut ResultsFile,
    elapsed: Duration,
) -> Option<String> {
    let sequential = plan.sequential.as_ref()?;
    let completed = |side: Side| {
        results
            .record
            .rounds
            .iter()
            .filter(|r| r.status == RoundStatus::Completed && r.side == side)
            .count() as u32
    };
    let rounds = completed(Side::Baseline);
    if rounds != completed(Side::Variant)
        || results
            .record
            .looks
            .iter()
            .any(|l| l.rounds_per_side == rounds)
    {
        return None;
    }
    let k = sequential.design.look_at(rounds)?;
    let options = AnalysisOptions {
        alpha: sequential.design.alpha_at(k),
        verdict_alpha: Some(sequential.design.verdict_alpha_at(k)),
        ..plan.analysis.clone()
    };
    let seen = results::judge(&results.record, &options, Stage::Look);
    let tps = seen.comparisons.iter().find(|c| c.metric == Metric::Tps);
    let look = Look {
        look: k as u32 + 1,
        rounds_per_side: rounds,
        alpha: options.alpha,
        verdict_alpha: options.verdict_alpha,
        tps_change_pct: tps.map(|c| c.change_pct),
        tps_ci_pct: tps.and_then(|c| c.ci_pct),
        verdict: seen.verdict,
        elapsed_s: elapsed.as_secs_f64(),
    };
    let last = k + 1 == sequential.design.rounds.len();
    let reason = stop_reason(sequential.until, &look, last);
    results.record.looks.push(look);
    results.record.stopped.clone_from(&reason);
    // The look decides; the file saved while the run goes on shows no verdict.
    results.judgement = results::as_it_stands(&results.record, seen);
    reason
}

/// Why the run stops at `look`, if it does. At the budget's last look without the
/// answer asked, the reason says how far it got: for a precision rule, the half-width
/// reached and the rounds per side a fixed design would need for the one asked.
fn stop_reason(until: Until, look: &Look, last: bool) -> Option<String> {
    let half_width = look.tps_ci_pct.map(|[lo, hi]| (hi - lo) / 2.0);
    match until {
        Until::Decided if matches!(look.verdict, Some(Verdict::Go | Verdict::NoGo)) => {
            Some(format!(
                "decided at look {}: {}",
                look.look,
                look.verdict.map_or("", Verdict::as_str)
            ))
        }
        Until::Precision(target) if half_width.is_some_and(|h| h <= target) => Some(format!(
            "TPS interval ±{:.2} % at look {}, within the ±{target} % asked",
            half_width.unwrap_or_default(),
            look.look
        )),
        Until::Precision(target) if last => Some(match half_width {
            Some(reached) => format!(
                "the budget's last look ({}) was reached at ±{reached:.2} %, not the ±{target} % \
                 asked; a fixed design would need about {} rounds per side for it",
                look.look,
                fixed_rounds_for(look, reached, target)
            ),
            None => format!(
                "the budget's last look ({}) was reached with an unbounded TPS interval, not \
                 the ±{target} % asked",
                look.look
            ),
        }),
        _ if last => Some(format!(
            "the budget's last look ({}) was reached without the answer the stopping rule asks for",
            look.look
        )),
        _ => None,
    }
}

/// Rounds per side at which a fixed design (one look at α 0.05) would reach a TPS
/// half-width of `target` %, from the `reached` half-width at `look` (at its own α): the
/// half-width shrinks as 1/√n.
fn fixed_rounds_for(look: &Look, reached: f64, target: f64) -> u32 {
    use statrs::distribution::{ContinuousCDF, Normal};
    let normal = Normal::standard();
    let at_fixed_alpha =
        reached * normal.inverse_cdf(0.975) / normal.inverse_cdf(1.0 - look.alpha / 2.0);
    let n = f64::from(look.rounds_per_side) * (at_fixed_alpha / target).powi(2);
    n.ceil().clamp(2.0, 1e9) as u32
}

/// The settings of a run's final analysis: a run with `--until` is analysed at the
/// levels of its last look (or of its first, if it ended before one), any other at the
/// plan's.
pub(crate) fn final_analysis(plan: &Plan, record: &RunRecord) -> AnalysisOptions {
    let Some(sequential) = &plan.sequential else {
        return plan.analysis.clone();
    };
    let (alpha, verdict_alpha) = match record.looks.last() {
        Some(look) => (look.alpha, look.verdict_alpha),
        None => (
            sequential.design.alpha_at(0),
            Some(sequential.design.verdict_alpha_at(0)),
        ),
    };
    AnalysisOptions {
        alpha,
        verdict_alpha,
        ..plan.analysis.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn look(rounds: u32, ci: Option<[f64; 2]>) -> Look {
        Look {
            look: 4,
            rounds_per_side: rounds,
            alpha: 0.05,
            verdict_alpha: None,
            tps_change_pct: Some(0.0),
            tps_ci_pct: ci,
            verdict: None,
            elapsed_s: 60.0,
        }
    }

    #[test]
    fn a_precision_not_reached_says_how_far_it_got() {
        let reason = stop_reason(Until::Precision(3.0), &look(8, Some([-19.0, 19.0])), true);
        let reason = reason.unwrap();
        assert!(
            reason.contains("reached at ±19.00 %, not the ±3 % asked"),
            "{reason}"
        );
        // 8 rounds × (19/3)² = 320.9 → 321 rounds per side.
        assert!(reason.contains("about 321 rounds per side"), "{reason}");
        assert_eq!(
            stop_reason(Until::Precision(3.0), &look(8, Some([-2.0, 2.0])), false).unwrap(),
            "TPS interval ±2.00 % at look 4, within the ±3 % asked"
        );
        assert!(stop_reason(Until::Precision(3.0), &look(8, Some([-5.0, 5.0])), false).is_none());
    }
}
