//! The run that would likely decide an undecided comparison. The interval the verdict
//! read has a half-width that shrinks about as 1/√n, so the run that would decide — if
//! the change stays where it is — is the one whose reach from the estimate towards the
//! tolerance has shrunk to the distance between the two. The estimate is the table's, and
//! the reach is the interval's side that faces the tolerance (a ratio's interval is
//! lopsided, so its midpoint is not the estimate). Read by the headline and the next steps.

use crate::stats::compare::Comparison;
use crate::stats::metric::Metric;
use crate::stats::verdict::Verdict;

/// More than this many times the run's values per side is no budget anyone runs: the
/// change is the tolerance, to the precision a run can reach.
pub(crate) const MOST_TIMES: f64 = 100.0;

/// The budget in a clause for the headline: "about 40 rounds per side would decide if
/// the change stays where it is", or that no affordable run decides.
pub(crate) fn headline(comparisons: &[Comparison]) -> Option<String> {
    let u = binding(comparisons)?;
    Some(match u.needed {
        Some(needed) => format!(
            "about {} per side would decide if the change stays where it is",
            u.comparison.unit.count(needed)
        ),
        None => "no affordable run decides: the change is about the tolerance".into(),
    })
}

/// One undecided comparison's interval against its tolerance.
pub(crate) struct Undecided<'a> {
    pub(crate) comparison: &'a Comparison,
    /// Values per side the interval came from.
    pub(crate) n: usize,
    /// The estimate the table shows, and how far the interval reaches from it towards the
    /// tolerance, in % (points for a rate).
    pub(crate) middle: f64,
    pub(crate) half: f64,
    /// Values per side at which the half-width reaches the tolerance; `None` beyond
    /// [`MOST_TIMES`] the run's.
    pub(crate) needed: Option<usize>,
}

/// The undecided comparison that needs the most: it is the one the run waits for.
pub(crate) fn binding(comparisons: &[Comparison]) -> Option<Undecided<'_>> {
    comparisons
        .iter()
        .filter(|c| c.verdict == Some(Verdict::Inconclusive))
        .filter_map(undecided)
        .max_by_key(|u| u.needed.unwrap_or(usize::MAX))
}

fn undecided(c: &Comparison) -> Option<Undecided<'_>> {
    let tolerance = c.tolerance_pct?;
    let [lo, hi] = c
        .verdict_ci_pct
        .filter(|i| i.iter().all(|v| v.is_finite()))?;
    let boundary = if c.metric == Metric::Tps {
        -tolerance
    } else {
        tolerance
    };
    let n = c.baseline.n.min(c.variant.n);
    // The estimate the table shows, and the reach of the interval from it towards the
    // tolerance: the side that must clear it (a ratio's interval is lopsided).
    let middle = if c.change_pct.is_finite() && (lo..=hi).contains(&c.change_pct) {
        c.change_pct
    } else {
        (lo + hi) / 2.0
    };
    let half = if boundary < middle {
        middle - lo
    } else {
        hi - middle
    };
    let times = (half / (middle - boundary).abs()).powi(2);
    let needed = (times.is_finite() && times <= MOST_TIMES)
        .then(|| ((n as f64 * times).ceil() as usize).max(n + 1));
    Some(Undecided {
        comparison: c,
        n,
        middle,
        half,
        needed,
    })
}
