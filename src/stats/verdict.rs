//! GO / NO-GO / INCONCLUSIVE: a non-inferiority test per metric at level α, read off the
//! (1 − 2α) Fieller interval of the ratio. The overall verdict is GO only when every
//! metric with a tolerance is GO (an intersection–union test, so no correction is
//! needed). "Not significant" is never GO: the interval must lie inside the tolerance.

use serde::{Deserialize, Serialize};

/// The decision for one metric or the whole run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING-KEBAB-CASE")]
pub(crate) enum Verdict {
    /// The change is within the tolerance.
    Go,
    /// The change is worse than the tolerance.
    NoGo,
    /// The data cannot tell.
    Inconclusive,
}

impl Verdict {
    /// The label printed in reports.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Verdict::Go => "GO",
            Verdict::NoGo => "NO-GO",
            Verdict::Inconclusive => "INCONCLUSIVE",
        }
    }

    /// The exit code of a run with this overall verdict.
    pub(crate) fn exit_code(self) -> i32 {
        match self {
            Verdict::Go => crate::exit::SUCCESS,
            Verdict::NoGo => crate::exit::NO_GO,
            Verdict::Inconclusive => crate::exit::INCONCLUSIVE,
        }
    }
}

/// Whether larger values of a metric are better (throughput) or worse (latency, cost).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Direction {
    /// Throughput: a loss is bad.
    HigherIsBetter,
    /// Latency, errors, cost: an increase is bad.
    LowerIsBetter,
}

/// The verdict for a ratio interval `bounds` (of variant/baseline, at 1 − 2α) against a
/// tolerance `delta` (a fraction: 0.05 = 5 %). An unbounded interval is INCONCLUSIVE.
pub(crate) fn ratio_verdict(bounds: Option<[f64; 2]>, direction: Direction, delta: f64) -> Verdict {
    let Some([low, high]) = bounds else {
        return Verdict::Inconclusive;
    };
    match direction {
        Direction::HigherIsBetter => {
            let limit = 1.0 - delta;
            if low > limit {
                Verdict::Go
            } else if high < limit {
                Verdict::NoGo
            } else {
                Verdict::Inconclusive
            }
        }
        Direction::LowerIsBetter => {
            let limit = 1.0 + delta;
            if high < limit {
                Verdict::Go
            } else if low > limit {
                Verdict::NoGo
            } else {
                Verdict::Inconclusive
            }
        }
    }
}

/// The verdict for an absolute interval `bounds` of a lower-is-better quantity against
/// an absolute limit (used for the error rate, whose baseline is often zero).
pub(crate) fn absolute_verdict(bounds: [f64; 2], limit: f64) -> Verdict {
    if bounds[1] < limit {
        Verdict::Go
    } else if bounds[0] > limit {
        Verdict::NoGo
    } else {
        Verdict::Inconclusive
    }
}

/// The verdict of a query class timed on idle servers (`--class-timing`) against its
/// tolerance: NO-GO when its `ratio` is at least `least` and beyond the tolerance at α
/// Holm-adjusted among the classes (`p_holm`); GO when within it at α on its own
/// evidence (`p_beyond`, the one-sided p of "at most the tolerance": within is its
/// complement); INCONCLUSIVE otherwise, and without a ratio.
pub(crate) fn class_verdict(
    ratio: Option<f64>,
    p_beyond: f64,
    p_holm: f64,
    alpha: f64,
    least: f64,
) -> Verdict {
    match ratio {
        Some(r) if r >= least && p_holm < alpha => Verdict::NoGo,
        Some(_) if 1.0 - p_beyond < alpha => Verdict::Go,
        _ => Verdict::Inconclusive,
    }
}

/// The overall verdict of the metrics that had a tolerance; `None` when none had one.
pub(crate) fn overall(verdicts: impl IntoIterator<Item = Verdict>) -> Option<Verdict> {
    let mut result = None;
    for verdict in verdicts {
        result = Some(match (result, verdict) {
            (_, Verdict::NoGo) | (Some(Verdict::NoGo), _) => Verdict::NoGo,
            (_, Verdict::Inconclusive) | (Some(Verdict::Inconclusive), _) => Verdict::Inconclusive,
            _ => Verdict::Go,
        });
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn throughput_verdicts() {
        let d = Direction::HigherIsBetter;
        assert_eq!(ratio_verdict(Some([0.97, 0.98]), d, 0.05), Verdict::Go);
        assert_eq!(ratio_verdict(Some([0.80, 0.90]), d, 0.05), Verdict::NoGo);
        assert_eq!(
            ratio_verdict(Some([0.93, 1.01]), d, 0.05),
            Verdict::Inconclusive
        );
        assert_eq!(ratio_verdict(None, d, 0.05), Verdict::Inconclusive);
    }

    #[test]
    fn latency_verdicts() {
        let d = Direction::LowerIsBetter;
        assert_eq!(ratio_verdict(Some([0.99, 1.05]), d, 0.10), Verdict::Go);
        assert_eq!(ratio_verdict(Some([1.2, 1.5]), d, 0.10), Verdict::NoGo);
        assert_eq!(
            ratio_verdict(Some([1.05, 1.15]), d, 0.10),
            Verdict::Inconclusive
        );
    }

    #[test]
    fn overall_needs_every_metric_go() {
        use Verdict::*;
        assert_eq!(overall([Go, Go]), Some(Go));
        assert_eq!(overall([Go, Inconclusive]), Some(Inconclusive));
        assert_eq!(overall([Inconclusive, NoGo, Go]), Some(NoGo));
        assert_eq!(overall([]), None);
    }
}
