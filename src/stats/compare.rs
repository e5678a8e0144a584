//! Turns per-round samples of both sides into comparisons: one per thread level and
//! metric, each with Welch, Fieller and paired intervals, and Holm-adjusted p-values.
//!
//! Holm adjusts within a family, and the family is fixed by what a metric is, never by
//! what else happens to be in the data: TPS and latency at every level are the
//! confirmatory family (what a tolerance can address); everything else — qps, server
//! CPU per transaction, threads_running, error rate, extra CSV columns — is explanatory,
//! adjusted within its own family. Adding a column to a CSV never moves TPS's Holm p.

use serde::{Deserialize, Serialize};

use super::blocked::{Adjust, BlockEstimate, Blocking};
use super::fieller::fieller;
use super::holm::holm;
use super::metric::Metric;
use super::paired::paired_ratio_ci;
use super::power::Power;
use super::summary::Summary;
use super::verdict::Verdict;
use super::welch::{Welch, welch};
use crate::side::Side;

/// One per-round value of one metric.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// Side the round belongs to.
    pub(crate) side: Side,
    /// Thread level.
    pub(crate) threads: u32,
    /// Round index within the side and level; pairs rounds across sides.
    pub(crate) index: u32,
    /// What the value measures.
    pub(crate) metric: Metric,
    /// The value.
    pub(crate) value: f64,
    /// The CPU the machine's other processes used during the round, in % of all CPU
    /// time, when recorded: what a block estimate is adjusted for.
    pub(crate) load: Option<f64>,
}

/// What one value of a side stands for: a round, or the mean of the rounds a server
/// instance served (`--instances`). Every count in a warning or power note is of these.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Unit {
    /// One value per round.
    #[default]
    Round,
    /// One value per server instance.
    Instance,
}

impl Unit {
    /// The noun for `n` of them: "1 round", "3 instances".
    pub(crate) fn count(self, n: usize) -> String {
        let noun = self.noun();
        if n == 1 {
            format!("{n} {noun}")
        } else {
            format!("{n} {noun}s")
        }
    }

    /// "round" or "instance".
    pub(crate) fn noun(self) -> &'static str {
        match self {
            Unit::Round => "round",
            Unit::Instance => "instance",
        }
    }

    /// Values per side from which an interval is usable: 5 rounds, or 4 instance means
    /// (fewer values, each the mean of several rounds).
    pub(crate) fn enough(self) -> usize {
        match self {
            Unit::Round => 5,
            Unit::Instance => 4,
        }
    }

    fn is_round(&self) -> bool {
        *self == Unit::Round
    }
}

/// The comparison of one metric at one thread level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Comparison {
    /// Thread level.
    pub(crate) threads: u32,
    /// What is compared.
    pub(crate) metric: Metric,
    /// Baseline sample summary.
    pub(crate) baseline: Summary,
    /// Variant sample summary.
    pub(crate) variant: Summary,
    /// The baseline and variant figures the change is computed from, the ones every
    /// table shows: the side means on rounds, the geometric means of the block means
    /// with blocks (their ratio is the change exactly).
    #[serde(default)]
    pub(crate) estimate_means: [f64; 2],
    /// 100(ȳ/x̄ − 1) on rounds, 100(exp(d̄) − 1) with blocks; for a rate (the error
    /// rate), ȳ − x̄ in percentage points.
    pub(crate) change_pct: f64,
    /// The confirmatory CI of the change in %: from the blocks when `blocks` is set,
    /// else Fieller's on rounds (a rate: Welch's CI in points); `None` when unbounded.
    pub(crate) ci_pct: Option<[f64; 2]>,
    /// The estimate block by block, when the analysis follows an ABBA or ABAB design;
    /// then the change, `ci_pct`, `p` and the verdict come from it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) blocks: Option<BlockEstimate>,
    /// Fieller's interval on rounds as if they were independent, kept beside a block
    /// interval as the cross-check.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) rounds_ci_pct: Option<[f64; 2]>,
    /// Paired-by-round CI of the change in %, when at least two pairs exist.
    pub(crate) paired_ci_pct: Option<[f64; 2]>,
    /// Welch test of the difference ȳ − x̄.
    pub(crate) welch: Welch,
    /// Fieller's g.
    pub(crate) fieller_g: f64,
    /// Raw two-sided p-value.
    pub(crate) p: f64,
    /// Holm-adjusted p-value within the comparison's family.
    pub(crate) p_holm: f64,
    /// The Holm family the comparison belongs to.
    #[serde(default)]
    pub(crate) family: Family,
    /// Whether the Holm-adjusted p-value is below alpha.
    pub(crate) significant: bool,
    /// Geometric-mean change of the paired rounds in %, the paired point estimate.
    pub(crate) paired_change_pct: Option<f64>,
    /// Tolerance applied to this metric, in %, when one was given.
    pub(crate) tolerance_pct: Option<f64>,
    /// The (1 − 2α) interval of the change in % that the verdict reads.
    pub(crate) verdict_ci_pct: Option<[f64; 2]>,
    /// GO / NO-GO / INCONCLUSIVE, when a tolerance was given.
    pub(crate) verdict: Option<Verdict>,
    /// Observed CV, minimum detectable effect and rounds (or instances) needed.
    pub(crate) power: Option<Power>,
    /// What each value of a side is; `n`, power and warnings count these.
    #[serde(default, skip_serializing_if = "Unit::is_round")]
    pub(crate) unit: Unit,
}

/// The multiple-comparison family of a metric.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Family {
    /// TPS and latency: what the verdict and tolerances address.
    #[default]
    Confirmatory,
    /// Everything shown to explain the confirmatory results.
    Explanatory,
}

impl Family {
    /// The family of `metric`: TPS and latency metrics are confirmatory.
    pub(crate) fn of(metric: &Metric) -> Family {
        if *metric == Metric::Tps || metric.is_latency() {
            Family::Confirmatory
        } else {
            Family::Explanatory
        }
    }
}

/// Compares the sides for every (thread level, metric) with at least two rounds per side
/// and a baseline mean other than zero (a rate is compared in points, whatever its
/// baseline), confirmatory metrics first, each in the order levels and metrics first appear in
/// `samples`. qps is left out at a level where it is the same multiple of tps in every
/// round: it would only repeat tps.
///
/// With a `blocking` other than rounds, every ratio metric with at least two blocks is
/// estimated block by block (`stats::blocked`), adjusted for the host's load as `adjust`
/// says; a rate is always compared on rounds.
pub(crate) fn compare(
    samples: &[Sample],
    alpha: f64,
    blocking: Blocking,
    adjust: Adjust,
) -> Vec<Comparison> {
    let mut keys: Vec<(u32, &Metric)> = Vec::new();
    for sample in samples {
        let key = (sample.threads, &sample.metric);
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    keys.retain(|&(threads, metric)| *metric != Metric::Qps || !qps_repeats_tps(samples, threads));
    keys.sort_by_key(|(_, metric)| Family::of(metric) == Family::Explanatory);
    let mut comparisons: Vec<Comparison> = keys
        .into_iter()
        .filter_map(|(threads, metric)| {
            compare_one(samples, threads, metric, alpha, (blocking, adjust))
        })
        .collect();
    for family in [Family::Confirmatory, Family::Explanatory] {
        let members: Vec<&mut Comparison> = comparisons
            .iter_mut()
            .filter(|c| c.family == family)
            .collect();
        let adjusted = holm(&members.iter().map(|c| c.p).collect::<Vec<_>>());
        for (comparison, p_holm) in members.into_iter().zip(adjusted) {
            comparison.p_holm = p_holm;
            comparison.significant = p_holm < alpha;
        }
    }
    comparisons
}

/// Whether qps / tps is one constant (to 1e-9) in every round of both sides at `threads`.
fn qps_repeats_tps(samples: &[Sample], threads: u32) -> bool {
    let mut ratios = Side::BOTH.into_iter().flat_map(|side| {
        let tps = side_values(samples, side, threads, &Metric::Tps);
        let qps = side_values(samples, side, threads, &Metric::Qps);
        let paired = qps.len() == tps.len();
        tps.into_iter()
            .zip(qps)
            .map(move |((i, t), (j, q))| (paired && i == j).then(|| q / t))
    });
    let Some(Some(first)) = ratios.next() else {
        return false;
    };
    ratios.all(|ratio| ratio.is_some_and(|r| (r - first).abs() <= 1e-9 * first.abs()))
}

/// The (round index, value) pairs of one side's finite values, ordered by round index.
pub(crate) fn side_values(
    samples: &[Sample],
    side: Side,
    threads: u32,
    metric: &Metric,
) -> Vec<(u32, f64)> {
    indexed(samples, side, threads, metric, |s| Some(s.value))
}

/// The (round index, other processes' CPU) pairs of the same rounds as [`side_values`],
/// for those that recorded it.
fn side_loads(samples: &[Sample], side: Side, threads: u32, metric: &Metric) -> Vec<(u32, f64)> {
    indexed(samples, side, threads, metric, |s| s.load)
}

/// What `of` gives of one side's samples of `metric` with a finite value, by round index.
fn indexed(
    samples: &[Sample],
    side: Side,
    threads: u32,
    metric: &Metric,
    of: impl Fn(&Sample) -> Option<f64>,
) -> Vec<(u32, f64)> {
    let mut values: Vec<(u32, f64)> = samples
        .iter()
        .filter(|s| {
            s.side == side && s.threads == threads && s.metric == *metric && s.value.is_finite()
        })
        .filter_map(|s| Some((s.index, of(s)?)))
        .collect();
    values.sort_by_key(|(index, _)| *index);
    values
}

fn compare_one(
    samples: &[Sample],
    threads: u32,
    metric: &Metric,
    alpha: f64,
    (blocking, adjust): (Blocking, Adjust),
) -> Option<Comparison> {
    let x = side_values(samples, Side::Baseline, threads, metric);
    let y = side_values(samples, Side::Variant, threads, metric);
    if x.len() < 2 || y.len() < 2 {
        return None;
    }
    let xs: Vec<f64> = x.iter().map(|(_, v)| *v).collect();
    let ys: Vec<f64> = y.iter().map(|(_, v)| *v).collect();
    let (bx, by) = (Summary::of(&xs), Summary::of(&ys));
    if metric.is_rate() {
        return Some(rate_comparison(threads, metric, bx, by, alpha));
    }
    if bx.mean == 0.0 {
        // A change in % of a baseline of zero (threads_running on an idle-looking
        // server) does not exist; the metric is left out rather than shown as NaN.
        return None;
    }
    let test = welch(&bx, &by, alpha);
    let ratio = fieller(&bx, &by, alpha);
    let (px, py) = pair_by_round(&x, &y);
    let on_rounds = Comparison {
        change_pct: 100.0 * (ratio.ratio - 1.0),
        ci_pct: ratio.percent_bounds(),
        paired_ci_pct: paired_ratio_ci(&px, &py, alpha)
            .map(|[lo, hi]| [100.0 * (lo - 1.0), 100.0 * (hi - 1.0)]),
        paired_change_pct: paired_change(&px, &py),
        fieller_g: ratio.g,
        ..unjudged(threads, metric, bx, by, test)
    };
    let loads = (adjust == Adjust::HostLoad)
        .then(|| Side::BOTH.map(|side| side_loads(samples, side, threads, metric)));
    let loads = loads
        .as_ref()
        .map(|[lx, ly]| [lx.as_slice(), ly.as_slice()]);
    Some(match BlockEstimate::of(&x, &y, blocking, loads) {
        Some(blocks) => Comparison {
            estimate_means: blocks.side_figures(),
            change_pct: blocks.change_pct(),
            ci_pct: Some(blocks.percent_bounds(alpha)),
            rounds_ci_pct: on_rounds.ci_pct,
            p: blocks.p(),
            p_holm: blocks.p(),
            blocks: Some(blocks),
            ..on_rounds
        },
        None => on_rounds,
    })
}

/// A rate in % (the error rate) compared in percentage points: the change is ȳ − x̄ with
/// Welch's interval of the difference, so a baseline of 0 % is compared like any other.
fn rate_comparison(
    threads: u32,
    metric: &Metric,
    bx: Summary,
    by: Summary,
    alpha: f64,
) -> Comparison {
    let test = welch(&bx, &by, alpha);
    Comparison {
        change_pct: test.diff,
        ci_pct: Some(test.ci),
        ..unjudged(threads, metric, bx, by, test)
    }
}

/// A comparison with its Welch test and no interval, verdict or power yet.
fn unjudged(threads: u32, metric: &Metric, bx: Summary, by: Summary, test: Welch) -> Comparison {
    Comparison {
        threads,
        metric: metric.clone(),
        estimate_means: [bx.mean, by.mean],
        baseline: bx,
        variant: by,
        change_pct: test.diff,
        ci_pct: None,
        blocks: None,
        rounds_ci_pct: None,
        paired_ci_pct: None,
        paired_change_pct: None,
        welch: test,
        fieller_g: 0.0,
        p: test.p,
        p_holm: test.p,
        family: Family::of(metric),
        significant: false,
        tolerance_pct: None,
        verdict_ci_pct: None,
        verdict: None,
        power: None,
        unit: Unit::Round,
    }
}

/// The values of the rounds both sides have, matched by round index in one merge pass
/// over the two index-sorted lists (linear, not quadratic, in the number of rounds).
fn pair_by_round(x: &[(u32, f64)], y: &[(u32, f64)]) -> (Vec<f64>, Vec<f64>) {
    let (mut px, mut py) = (Vec::new(), Vec::new());
    let (mut a, mut b) = (x.iter().peekable(), y.iter().peekable());
    while let (Some(&&(i, u)), Some(&&(j, v))) = (a.peek(), b.peek()) {
        match i.cmp(&j) {
            std::cmp::Ordering::Less => {
                a.next();
            }
            std::cmp::Ordering::Greater => {
                b.next();
            }
            std::cmp::Ordering::Equal => {
                px.push(u);
                py.push(v);
                a.next();
                b.next();
            }
        }
    }
    (px, py)
}

/// 100(exp(mean ln(y/x)) − 1) over the pairs, when there are any.
fn paired_change(x: &[f64], y: &[f64]) -> Option<f64> {
    let logs: Vec<f64> = x.iter().zip(y).map(|(a, b)| (b / a).ln()).collect();
    let mean = super::summary::mean(&logs);
    (!logs.is_empty() && mean.is_finite()).then(|| 100.0 * (mean.exp() - 1.0))
}
