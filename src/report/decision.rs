//! The bound a verdict rests on, in words. A verdict reads the (1 − 2α) interval — each
//! of its bounds a one-sided (1 − α) bound — while the table's estimate column shows the
//! 95 % two-sided interval. A reviewer who sees GO beside a 95 % interval crossing the
//! tolerance concludes the tool is wrong, so every report shows the deciding bound too,
//! labelled as such: "TPS loss at most 31.0 % (95 % one-sided bound)".

use super::format;
use crate::stats::compare::Comparison;
use crate::stats::metric::Metric;
use crate::stats::verdict::Verdict;

/// What the deciding bound says of a judged comparison, with the metric's name:
/// "TPS loss at most 3.1 %", "p99 latency up at least 12.0 %", "error rate at most
/// 0.40 %". `None` for a comparison without a tolerance.
pub(crate) fn phrase(c: &Comparison) -> Option<String> {
    let text = bound_text(c)?;
    Some(format!("{} {text}", c.metric.spoken()))
}

/// The deciding bound and the tolerance, for a table cell: "loss at most 3.1 %
/// (5 % tolerance)".
pub(crate) fn cell(c: &Comparison) -> String {
    match (bound_text(c), c.tolerance_pct) {
        (Some(text), Some(tolerance)) => format!("{text} ({})", tolerance_name(c, tolerance)),
        _ => String::new(),
    }
}

/// The deciding bound in the fewest words, for the one-line answer: "loss ≥ 16.3 %",
/// "up ≤ 4.2 %", "-7.9 to +1.2 %" (an undecided interval, both of its bounds).
/// Empty for a comparison without a tolerance.
pub(crate) fn short(c: &Comparison) -> String {
    let (Some(tolerance), Some([lo, hi])) = (c.tolerance_pct, c.verdict_ci_pct) else {
        return bound_text(c).unwrap_or_default();
    };
    let (at_least, at_most) = ("\u{2265}", "\u{2264}");
    match (c.verdict, c.metric.is_rate()) {
        (Some(Verdict::Go), true) => format!("{at_most} {:.2} %", hi.max(0.0)),
        (Some(Verdict::NoGo), true) => format!("{at_least} {lo:.2} %"),
        (Some(Verdict::Go), false) if c.metric == Metric::Tps && lo >= 0.0 => {
            format!("gain {at_least} {lo:.1} %")
        }
        (Some(Verdict::Go), false) if c.metric == Metric::Tps => {
            format!("loss {at_most} {} %", magnitude(-lo, tolerance))
        }
        (Some(Verdict::NoGo), false) if c.metric == Metric::Tps => {
            format!("loss {at_least} {} %", magnitude(-hi, tolerance))
        }
        (Some(Verdict::Go), false) if hi <= 0.0 => format!("down {at_least} {:.1} %", -hi),
        (Some(Verdict::Go), false) => format!("up {at_most} {} %", magnitude(hi, tolerance)),
        (Some(Verdict::NoGo), false) => format!("up {at_least} {} %", magnitude(lo, tolerance)),
        (_, true) => format!("{:.2} to {hi:.2} %", lo.max(0.0)),
        (_, false) => format!(
            "{} to {} %",
            format::lower_bound(lo),
            format::upper_bound(hi)
        ),
    }
}

/// "5 % tolerance", or for a rate "1 % limit".
pub(crate) fn tolerance_name(c: &Comparison, tolerance: f64) -> String {
    let figure = format::percent_figure(tolerance);
    if c.metric.is_rate() {
        format!("{figure} % limit")
    } else {
        format!("{figure} % tolerance")
    }
}

/// The bound without the metric's name; `None` without a tolerance.
fn bound_text(c: &Comparison) -> Option<String> {
    let tolerance = c.tolerance_pct?;
    let Some([lo, hi]) = c.verdict_ci_pct else {
        if c.blocks.is_some_and(|b| b.imbalance.is_some()) {
            return Some("not judged: the load adjustment was refused".into());
        }
        return Some("has no interval".into());
    };
    let verdict = c.verdict;
    Some(if c.metric.is_rate() {
        rate_bound(verdict, lo, hi)
    } else if c.metric == Metric::Tps {
        throughput_bound(verdict, lo, hi, tolerance)
    } else {
        rise_bound(verdict, lo, hi, tolerance)
    })
}

/// A bound's magnitude to one decimal, or to as many as it takes (up to three) not to
/// read as the tolerance itself: a NO-GO "at least 5.0 %" beside a 5 % tolerance would
/// look like a wrong verdict.
fn magnitude(value: f64, tolerance: f64) -> String {
    for decimals in 1..3 {
        let text = format!("{value:.decimals$}");
        if text.parse::<f64>() != Ok(tolerance) {
            return text;
        }
    }
    format!("{value:.3}")
}

/// A throughput bound as a loss, the way a change ticket states it. Without a verdict
/// (withheld from an unfinished run) the bound reads as the interval it is.
fn throughput_bound(verdict: Option<Verdict>, lo: f64, hi: f64, tolerance: f64) -> String {
    match verdict {
        Some(Verdict::Go) if lo >= 0.0 => format!("not lower (at least {lo:+.1} %)"),
        Some(Verdict::Go) => format!("loss at most {} %", magnitude(-lo, tolerance)),
        Some(Verdict::NoGo) => format!("loss at least {} %", magnitude(-hi, tolerance)),
        Some(Verdict::Inconclusive) | None => format!("change between {lo:+.1} % and {hi:+.1} %"),
    }
}

/// A latency (or other lower-is-better) bound as a rise.
fn rise_bound(verdict: Option<Verdict>, lo: f64, hi: f64, tolerance: f64) -> String {
    match verdict {
        Some(Verdict::Go) if hi <= 0.0 => format!("not higher (at most {hi:+.1} %)"),
        Some(Verdict::Go) => format!("up at most {} %", magnitude(hi, tolerance)),
        Some(Verdict::NoGo) => format!("up at least {} %", magnitude(lo, tolerance)),
        Some(Verdict::Inconclusive) | None if lo < -99.0 => {
            format!("change between <-99 % and {hi:+.1} %")
        }
        Some(Verdict::Inconclusive) | None => format!("change between {lo:+.1} % and {hi:+.1} %"),
    }
}

/// The variant's error rate, in %.
fn rate_bound(verdict: Option<Verdict>, lo: f64, hi: f64) -> String {
    match verdict {
        Some(Verdict::Go) => format!("at most {:.2} %", hi.max(0.0)),
        Some(Verdict::NoGo) => format!("at least {lo:.2} %"),
        Some(Verdict::Inconclusive) | None => format!("between {:.2} % and {hi:.2} %", lo.max(0.0)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_read_as_losses_rises_and_rates() {
        assert_eq!(
            throughput_bound(Some(Verdict::Go), -31.04, 12.2, 40.0),
            "loss at most 31.0 %"
        );
        assert_eq!(
            throughput_bound(Some(Verdict::NoGo), -40.0, -12.34, 5.0),
            "loss at least 12.3 %"
        );
        assert_eq!(
            throughput_bound(Some(Verdict::Inconclusive), -7.9, 1.2, 5.0),
            "change between -7.9 % and +1.2 %"
        );
        assert_eq!(
            rise_bound(Some(Verdict::Go), -3.0, 4.25, 10.0),
            "up at most 4.2 %"
        );
        assert_eq!(
            rise_bound(Some(Verdict::NoGo), 12.0, 30.0, 10.0),
            "up at least 12.0 %"
        );
        assert_eq!(
            rate_bound(Some(Verdict::NoGo), 44.2, 45.8),
            "at least 44.20 %"
        );
        assert_eq!(rate_bound(Some(Verdict::Go), -0.1, 0.3), "at most 0.30 %");
    }

    #[test]
    fn the_short_bound_keeps_the_figure_and_the_direction() {
        let results: crate::results::ResultsFile =
            serde_json::from_str(include_str!("../../tests/fixtures/audit-point-select.json"))
                .unwrap();
        let mut c = results.judgement.comparisons[0].clone();
        assert_eq!(c.metric, Metric::Tps);
        assert_eq!(cell(&c), "loss at least 17.4 % (5 % tolerance)");
        assert_eq!(short(&c), "loss \u{2265} 17.4 %");
        c.verdict = Some(Verdict::Inconclusive);
        c.verdict_ci_pct = Some([-7.94, 1.2]);
        assert_eq!(short(&c), "-7.94 to +1.20 %");
    }

    #[test]
    fn a_bound_next_to_its_tolerance_never_reads_as_the_tolerance() {
        assert_eq!(
            throughput_bound(Some(Verdict::NoGo), -33.6, -5.02, 5.0),
            "loss at least 5.02 %"
        );
        assert_eq!(
            throughput_bound(Some(Verdict::Go), -4.996, 3.0, 5.0),
            "loss at most 4.996 %"
        );
        assert_eq!(
            rise_bound(Some(Verdict::Go), -1.0, 9.96, 10.0),
            "up at most 9.96 %"
        );
    }
}
