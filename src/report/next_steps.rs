//! What to do after an INCONCLUSIVE, computed from the run as it was designed: how many
//! rounds (or instances) per side would likely decide, and what they would cost in time
//! at the run's own round length and levels; and the biggest noise source the noise
//! budget saw, with the option that reduces it. An undecided answer that says only
//! "undecided" leaves a DBA guessing whether to run twice as long or a hundred times.
//!
//! The budget is `budget`'s; with a tolerance, the power notes give only the noise and
//! the change the run could detect, so the report carries one figure for "how long".

use std::time::Duration;

use super::budget::{self, MOST_TIMES, Undecided};
use super::{ReportView, decision};
use crate::results::noise::NoiseBudget;
use crate::stats::verdict::Verdict;

/// The next steps of an INCONCLUSIVE view; empty for any other answer.
pub(crate) fn lines(view: &ReportView<'_>) -> Vec<String> {
    if view.partial.is_some() || view.verdict != Some(Verdict::Inconclusive) {
        return Vec::new();
    }
    let mut lines: Vec<String> = budget::binding(view.comparisons)
        .map(|b| budget_line(view, &b))
        .into_iter()
        .collect();
    if let Some(noise) = view.run.and_then(|r| r.judgement.noise.as_ref()) {
        lines.push(noise_line(noise));
    }
    lines
}

/// "Run longer: …" with the budget, or why no budget decides.
fn budget_line(view: &ReportView<'_>, u: &Undecided<'_>) -> String {
    let c = u.comparison;
    let tolerance = decision::tolerance_name(c, c.tolerance_pct.unwrap_or_default());
    let unit = if c.metric.is_rate() { "points" } else { "%" };
    let observed = format!(
        "at {} per side the {} change is {:+.1} {unit} and the interval the verdict read \
         reaches {:.1} {unit} from it towards the tolerance",
        c.unit.count(u.n),
        c.metric.spoken(),
        u.middle,
        u.half
    );
    let Some(needed) = u.needed else {
        return format!(
            "No affordable run decides: {observed}, so close to the {tolerance} that it \
             would take more than {MOST_TIMES:.0} times as many {}s. The change is about the \
             tolerance itself: decide whether a change this size matters, and set the \
             tolerance to the change that does.",
            c.unit.noun()
        );
    };
    let flag = match c.unit {
        crate::stats::compare::Unit::Round => "--rounds",
        crate::stats::compare::Unit::Instance => "--instances",
    };
    let time = view
        .run
        .map(|r| run_time(&r.record.plan.schedule, needed))
        .map(|t| format!(", about {} of rounds at this run's round length", t))
        .unwrap_or_default();
    format!(
        "Run longer: {observed}; the interval narrows as 1/\u{221a}n, so about {} per side \
         would likely decide the {tolerance} if the change stays where it is ({flag} \
         {needed}{time}).",
        c.unit.count(needed),
    )
}

/// How long `rounds` rounds per side take at every level of `schedule`, each with its
/// warm-up (or re-warm) and its measured period, rounded to the minute.
fn run_time(schedule: &crate::schedule::Schedule, rounds: usize) -> String {
    let warm = schedule.rewarm.unwrap_or(schedule.warmup);
    let per_round = schedule.round_time + warm + schedule.pause;
    let count = 2 * rounds as u32 * schedule.levels.len().max(1) as u32;
    let total = per_round.saturating_mul(count).as_secs();
    let rounded = if total >= 600 {
        Duration::from_secs(total.div_ceil(60) * 60)
    } else {
        Duration::from_secs(total)
    };
    humantime::format_duration(rounded).to_string()
}

/// A source of noise the budget measured, how far past its threshold it is, and the
/// sentence that names it and what reduces it.
type Source = (f64, String);

/// The biggest noise source the budget saw, or that none stands out.
fn noise_line(noise: &NoiseBudget) -> String {
    let cv = noise
        .between_rounds_cv_pct
        .values()
        .copied()
        .fold(0.0_f64, f64::max);
    let biggest = sources(noise)
        .into_iter()
        .filter(|(score, _)| *score > 1.0)
        .max_by(|a, b| a.0.total_cmp(&b.0));
    match biggest {
        Some((_, text)) => {
            format!("Biggest noise source: {text} (TPS varies {cv:.1} % from round to round).")
        }
        None => format!(
            "No outside noise source stands out in the noise budget: TPS varies {cv:.1} % \
             from round to round on its own, which only more rounds (or longer ones) average out."
        ),
    }
}

/// Every source the noise budget measured, scored against the level from which it
/// matters (1 = at that level).
fn sources(noise: &NoiseBudget) -> Vec<Source> {
    let mut out: Vec<Source> = Vec::new();
    if let Some(v) = noise.other_processes_cpu_pct {
        out.push((
            v / 5.0,
            format!(
                "other processes used {v:.1} % of the machine's CPU; stop them, pin the sides \
                 apart from them (--cpus), or read the blocks at equal load (--adjust host-load)"
            ),
        ));
    }
    if let Some(v) = noise.steal_pct {
        out.push((
            v / 1.0,
            format!(
                "the hypervisor stole {v:.2} % of the CPU time; a dedicated host or a quieter \
                 hour takes it away"
            ),
        ));
    }
    if let Some(v) = noise.idle_server_cpu_pct {
        out.push((
            v / 20.0,
            format!(
                "the idle side's server used {v:.1} % of a core while the other side ran; \
                 --freeze-idle on stops it between its rounds"
            ),
        ));
    }
    if let Some(v) = noise.after_switch_pct {
        out.push((
            v.abs() / 2.0,
            format!(
                "a round right after a switch of side ran {v:+.1} % against one after the same \
                 side; a longer --warmup (or --rewarm) lets each side settle"
            ),
        ));
    }
    if let Some(v) = noise.within_round_cv_pct {
        out.push((
            v / 10.0,
            format!(
                "inside a round TPS varies {v:.1} % from second to second; a longer --round-time \
                 averages it out"
            ),
        ));
    }
    if noise.reconnects > 0 {
        out.push((
            1.5,
            format!(
                "the client reconnected {} times; see the warnings",
                noise.reconnects
            ),
        ));
    }
    for v in &noise.instances {
        out.push((
            v.between_cv_pct / v.within_cv_pct.max(1.0),
            format!(
                "the {} side's server instances differ by {:.1} % at {} threads; more \
                 --instances average them",
                v.side, v.between_cv_pct, v.threads
            ),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::metric::Metric;

    fn fixture() -> crate::results::ResultsFile {
        serde_json::from_str(include_str!("../../tests/fixtures/audit-point-select.json")).unwrap()
    }

    #[test]
    fn an_undecided_interval_gives_the_rounds_that_would_decide() {
        let mut results = fixture();
        let c = &mut results.judgement.comparisons[0];
        assert_eq!(c.metric, Metric::Tps);
        // ±6 around −2 against −5: the half-width must shrink to 3, a quarter of the
        // variance, so four times the rounds.
        c.verdict = Some(Verdict::Inconclusive);
        c.change_pct = -2.0;
        c.verdict_ci_pct = Some([-8.0, 4.0]);
        let n = c.baseline.n.min(c.variant.n);
        results.judgement.verdict = Some(Verdict::Inconclusive);
        results.judgement.noise = Some(NoiseBudget::default());
        let view = ReportView::of_results(&results);
        let lines = lines(&view);
        assert!(
            lines[0].contains(&format!("about {} rounds per side", 4 * n)),
            "{lines:?}"
        );
        assert!(
            lines[0].contains(&format!("--rounds {}", 4 * n)),
            "{lines:?}"
        );
        assert!(lines[0].contains("of rounds at this run's round length"));
        assert!(lines[1].starts_with("No outside noise source"), "{lines:?}");
    }

    #[test]
    fn a_change_on_the_tolerance_has_no_budget() {
        let mut results = fixture();
        let c = &mut results.judgement.comparisons[0];
        c.verdict = Some(Verdict::Inconclusive);
        c.change_pct = -5.0;
        c.verdict_ci_pct = Some([-9.0, -1.0]);
        results.judgement.verdict = Some(Verdict::Inconclusive);
        let view = ReportView::of_results(&results);
        assert!(lines(&view)[0].starts_with("No affordable run decides"));
    }

    #[test]
    fn a_lopsided_interval_is_read_from_the_estimate_towards_the_tolerance() {
        let mut results = fixture();
        let c = &mut results.judgement.comparisons[0];
        // The estimate −2 against −5, an interval long on the far side.
        c.verdict = Some(Verdict::Inconclusive);
        c.change_pct = -2.0;
        c.verdict_ci_pct = Some([-8.0, 16.0]);
        let n = c.baseline.n.min(c.variant.n);
        results.judgement.verdict = Some(Verdict::Inconclusive);
        let view = ReportView::of_results(&results);
        let first = &lines(&view)[0];
        // From the estimate: reach 6 towards −5, distance 3: four times the rounds. From
        // the midpoint (+4 ± 12, distance 9) it would have been (12/9)² ≈ 1.8 times.
        assert!(first.contains(&format!("--rounds {}", 4 * n)), "{first}");
        assert!(first.contains("change is -2.0 %"), "{first}");
    }

    #[test]
    fn the_biggest_source_is_named_with_its_remedy() {
        let noise = NoiseBudget {
            other_processes_cpu_pct: Some(30.0),
            steal_pct: Some(0.1),
            ..NoiseBudget::default()
        };
        assert!(noise_line(&noise).contains("other processes used 30.0 %"));
        assert!(noise_line(&noise).contains("--adjust host-load"));
    }

    #[test]
    fn only_an_inconclusive_answer_has_next_steps() {
        let results = fixture();
        assert!(lines(&ReportView::of_results(&results)).is_empty());
    }
}
