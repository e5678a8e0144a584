//! From per-round samples to what a reviewer reads: comparisons with their intervals,
//! tolerances turned into verdicts, power figures, and warnings about the data. A pure
//! function of its inputs: the judge of a run (`results::judge`) applies it to the run's
//! rounds, and `abtest analyze` to a CSV of per-round values.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::exit::UsageError;
use crate::side::Side;
use crate::stats::blocked::{Adjust, Blocking, LoadImbalance};
use crate::stats::compare::{self, Comparison, Sample, Unit, compare};
use crate::stats::diagnostics::side_warnings;
use crate::stats::fieller::fieller;
use crate::stats::metric::Metric;
use crate::stats::power::{Test, block_power, power};
use crate::stats::summary::Summary;
use crate::stats::t_critical;
use crate::stats::verdict::{self, Direction, Verdict};

/// How to analyse, resolved from the flags.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct AnalysisOptions {
    /// Significance level.
    pub(crate) alpha: f64,
    /// Largest acceptable TPS loss (fraction).
    pub(crate) max_tps_loss: Option<f64>,
    /// Largest acceptable inflation (fraction) per latency metric.
    pub(crate) max_latency_inflation: BTreeMap<Metric, f64>,
    /// Inflation applied to every compared latency metric without its own.
    pub(crate) max_latency_inflation_all: Option<f64>,
    /// Largest acceptable error rate of the variant (in %).
    pub(crate) max_error_rate: Option<f64>,
    /// Latency percentiles compared besides the mean.
    pub(crate) percentiles: Vec<f64>,
    /// Whether answers that differ (`--check-results`) still allow a GO.
    #[serde(default)]
    pub(crate) allow_result_diff: bool,
    /// The largest acceptable latency ratio of a query class timed on idle servers
    /// (`--max-class-slowdown`, such as 2.0 for twice as slow).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) max_class_slowdown: Option<f64>,
    /// The unit of the confirmatory analysis, fixed by the round order; files saved
    /// without it were analysed by rounds and still are.
    #[serde(default)]
    pub(crate) blocking: Blocking,
    /// Whether blocks are adjusted for the host's load, fixed with the plan; files saved
    /// without it were not.
    #[serde(default)]
    pub(crate) adjust: Adjust,
    /// The one-sided level of the verdicts when it is not α: a look of a sequential run
    /// (`stats::sequential`) tests significance and verdicts at their own nominal levels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) verdict_alpha: Option<f64>,
}

impl Default for AnalysisOptions {
    /// α 0.05, no tolerances, latency p95 and p99 besides the mean.
    fn default() -> AnalysisOptions {
        AnalysisOptions {
            alpha: 0.05,
            max_tps_loss: None,
            max_latency_inflation: BTreeMap::new(),
            max_latency_inflation_all: None,
            max_error_rate: None,
            percentiles: vec![95.0, 99.0],
            allow_result_diff: false,
            max_class_slowdown: None,
            blocking: Blocking::Rounds,
            adjust: Adjust::None,
            verdict_alpha: None,
        }
    }
}

/// The outcome of an analysis.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct Analysis {
    /// One per thread level and metric.
    pub(crate) comparisons: Vec<Comparison>,
    /// Overall verdict, when tolerances were given.
    pub(crate) verdict: Option<Verdict>,
    /// The tolerances that could not be checked, each with the reason; any of them
    /// makes the verdict INCONCLUSIVE (unless another is NO-GO).
    pub(crate) unchecked: Vec<String>,
    /// Warnings about the data.
    pub(crate) warnings: Vec<String>,
}

impl AnalysisOptions {
    /// The one-sided level each verdict is tested at: its (1 − 2·level) interval decides.
    pub(crate) fn verdict_level(&self) -> f64 {
        self.verdict_alpha.unwrap_or(self.alpha)
    }

    /// Whether any tolerance was given, so that a verdict can be reached.
    pub(crate) fn has_tolerance(&self) -> bool {
        self.max_tps_loss.is_some()
            || self.max_error_rate.is_some()
            || self.max_latency_inflation_all.is_some()
            || !self.max_latency_inflation.is_empty()
    }

    /// Adds one `--max-latency-inflation` entry: `10%` for every latency metric, or
    /// `p99=15%` for one.
    pub(crate) fn add_latency_tolerance(&mut self, entry: &str) -> anyhow::Result<()> {
        let bad = |why: &str| {
            UsageError::err(format!(
                "--max-latency-inflation `{entry}`: {why}; write 10% or p99=15%,mean=5%"
            ))
        };
        match entry.split_once('=') {
            None => {
                if self.max_latency_inflation_all.is_some() {
                    return Err(bad("a bare value is given twice"));
                }
                self.max_latency_inflation_all =
                    Some(crate::percent::parse_percent(entry).map_err(|e| bad(&e))?)
            }
            Some((name, value)) => {
                let metric = latency_metric_name(name.trim())
                    .ok_or_else(|| bad("unknown latency metric"))?;
                let value = crate::percent::parse_percent(value).map_err(|e| bad(&e))?;
                if self.max_latency_inflation.insert(metric, value).is_some() {
                    return Err(bad(
                        "this metric has a tolerance already; give each one once",
                    ));
                }
            }
        }
        Ok(())
    }

    /// The settings as read, for `--dry-run`: α, every tolerance and the percentiles.
    pub(crate) fn describe(&self) -> String {
        let pct = |fraction: f64| format!("{} %", trim_float(100.0 * fraction));
        let mut parts = vec![format!("alpha {}", trim_float(self.alpha))];
        match self.max_tps_loss {
            Some(loss) => parts.push(format!("TPS loss at most {}", pct(loss))),
            None => parts.push("no TPS tolerance (no verdict on TPS)".into()),
        }
        for (metric, inflation) in &self.max_latency_inflation {
            parts.push(format!("{metric} inflation at most {}", pct(*inflation)));
        }
        if let Some(inflation) = self.max_latency_inflation_all {
            parts.push(format!(
                "other latency inflation at most {}",
                pct(inflation)
            ));
        }
        if let Some(rate) = self.max_error_rate {
            parts.push(format!("error rate at most {} %", trim_float(rate)));
        }
        if let Some(ratio) = self.max_class_slowdown {
            parts.push(format!(
                "a timed query class at most {}× slower",
                trim_float(ratio)
            ));
        }
        let percentiles: Vec<String> = self.percentiles.iter().map(|p| trim_float(*p)).collect();
        parts.push(format!("percentiles {}", percentiles.join(", ")));
        parts.push(match (self.blocking, self.adjust) {
            (Blocking::Rounds, _) => "compared on rounds (Welch, Fieller)".into(),
            (blocking, Adjust::HostLoad) => format!(
                "compared over {}, adjusted for the host's load when it varies and the \
                 sides met the same load",
                blocking.plural()
            ),
            (blocking, Adjust::None) => format!("compared over {}", blocking.plural()),
        });
        parts.join("; ")
    }

    /// The metrics compared for a run's rounds, in report order.
    pub(crate) fn run_metrics(&self, with_errors: bool) -> Vec<Metric> {
        let mut metrics = vec![Metric::Tps, Metric::Qps, Metric::LatencyMean];
        metrics.extend(
            self.percentiles
                .iter()
                .filter_map(|p| Metric::percentile(*p)),
        );
        if with_errors {
            metrics.push(Metric::ErrorRate);
        }
        metrics
    }

    /// The direction and tolerance (fraction) of a ratio-judged metric, if it has one.
    fn ratio_tolerance(&self, metric: &Metric) -> Option<(Direction, f64)> {
        if *metric == Metric::Tps {
            return self.max_tps_loss.map(|d| (Direction::HigherIsBetter, d));
        }
        if metric.is_latency() {
            let delta = self
                .max_latency_inflation
                .get(metric)
                .copied()
                .or(self.max_latency_inflation_all);
            return delta.map(|d| (Direction::LowerIsBetter, d));
        }
        None
    }
}

/// A number with at most 3 decimals and no trailing zeros: `5`, `99.9`, `0.05`.
fn trim_float(value: f64) -> String {
    let text = format!("{value:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The latency metric of `mean`, `p99`, `p99.9` or a full key such as `latency_p99_ms`.
fn latency_metric_name(name: &str) -> Option<Metric> {
    let metric = match name {
        "mean" => Metric::LatencyMean,
        _ => match name.strip_prefix('p').and_then(|p| p.parse::<f64>().ok()) {
            Some(percentile) => Metric::percentile(percentile)?,
            None => Metric::from_key(name),
        },
    };
    metric.is_latency().then_some(metric)
}

/// Analyses `samples`, each value one `unit`: comparisons, verdicts, power and warnings.
pub(crate) fn analyze(samples: &[Sample], unit: Unit, options: &AnalysisOptions) -> Analysis {
    // Instance means are the unit when servers were restarted: blocks nest inside them.
    let blocking = match unit {
        Unit::Round => options.blocking,
        Unit::Instance => Blocking::Rounds,
    };
    let mut comparisons = compare(samples, options.alpha, blocking, options.adjust);
    let mut unjudged = Vec::new();
    for comparison in &mut comparisons {
        comparison.unit = unit;
        unjudged.extend(judge(comparison, samples, options));
    }
    let mut verdict = verdict::overall(comparisons.iter().filter_map(|c| c.verdict));
    let mut unchecked = unchecked_tolerances(samples, &comparisons, options);
    unchecked.extend(unjudged);
    if !unchecked.is_empty() && verdict != Some(Verdict::NoGo) {
        // A tolerance that could not be checked can never be passed.
        verdict = Some(Verdict::Inconclusive);
    }
    let mut warnings: Vec<String> = unchecked
        .iter()
        .map(|reason| format!("tolerance not checked: {reason}"))
        .collect();
    for comparison in &comparisons {
        warnings.extend(comparison_warnings(comparison));
        if comparison.metric == Metric::Tps {
            for side in Side::BOTH {
                let rounds = side_rounds(samples, side, comparison.threads, &Metric::Tps);
                warnings.extend(side_warnings(
                    &format!("{side} TPS at {} threads", comparison.threads),
                    &rounds,
                    unit,
                ));
            }
        }
    }
    Analysis {
        comparisons,
        verdict,
        unchecked,
        warnings,
    }
}

/// The metrics that tolerances name but the data does not have at all: `tps`, each
/// named latency metric, and `latency_*` for a bare `--max-latency-inflation` when there
/// is no latency metric.
pub(crate) fn absent_tolerance_metrics(
    samples: &[Sample],
    options: &AnalysisOptions,
) -> Vec<String> {
    let present = |metric: &Metric| samples.iter().any(|s| s.metric == *metric);
    let mut absent: Vec<String> = options
        .max_tps_loss
        .map(|_| Metric::Tps)
        .into_iter()
        .chain(options.max_latency_inflation.keys().cloned())
        .filter(|metric| !present(metric))
        .map(|metric| metric.to_string())
        .collect();
    if options.max_latency_inflation_all.is_some() && !samples.iter().any(|s| s.metric.is_latency())
    {
        absent.push("latency_*".into());
    }
    absent
}

/// The tolerances that got no verdict, each with the reason: the metric is not in the
/// data, or has fewer than 2 rounds on a side at some thread level.
fn unchecked_tolerances(
    samples: &[Sample],
    comparisons: &[Comparison],
    options: &AnalysisOptions,
) -> Vec<String> {
    let mut reasons: Vec<String> = absent_tolerance_metrics(samples, options)
        .into_iter()
        .map(|key| {
            let name = match key.as_str() {
                "latency_*" => "latency".to_string(),
                key => Metric::from_key(key).label(),
            };
            format!("{name}: not in the data")
        })
        .collect();
    let mut levels: Vec<u32> = samples.iter().map(|s| s.threads).collect();
    levels.sort_unstable();
    levels.dedup();
    let mut judged_metrics: Vec<&Metric> = samples
        .iter()
        .map(|s| &s.metric)
        .filter(|metric| {
            options.ratio_tolerance(metric).is_some()
                || (metric.is_rate() && options.max_error_rate.is_some())
        })
        .collect();
    judged_metrics.sort_unstable();
    judged_metrics.dedup();
    for metric in judged_metrics {
        for &threads in &levels {
            let judged = comparisons
                .iter()
                .any(|c| c.threads == threads && c.metric == *metric);
            if !judged {
                let counts =
                    Side::BOTH.map(|side| side_values(samples, side, threads, metric).len());
                let why = if counts.iter().all(|&n| n >= 2) {
                    "the baseline's mean is 0, so a change in % does not exist".to_string()
                } else {
                    format!(
                        "{} baseline and {} variant round(s), at least 2 per side are needed",
                        counts[0], counts[1]
                    )
                };
                reasons.push(format!("{} at {threads} threads: {why}", metric.label()));
            }
        }
    }
    reasons
}

/// One side's (round number, value) pairs of a metric, in round order. Round numbers
/// count from 1; a sample's index counts from 0.
fn side_rounds(samples: &[Sample], side: Side, threads: u32, metric: &Metric) -> Vec<(u32, f64)> {
    compare::side_values(samples, side, threads, metric)
        .into_iter()
        .map(|(index, value)| (index + 1, value))
        .collect()
}

fn side_values(samples: &[Sample], side: Side, threads: u32, metric: &Metric) -> Vec<f64> {
    compare::side_values(samples, side, threads, metric)
        .into_iter()
        .map(|(_, v)| v)
        .collect()
}

/// Adds tolerance, verdict and power to a comparison. Returns why its tolerance could
/// not be judged, when it could not: then its verdict is INCONCLUSIVE.
fn judge(
    comparison: &mut Comparison,
    samples: &[Sample],
    options: &AnalysisOptions,
) -> Option<String> {
    let mut unjudged = None;
    let mut target_effect = None;
    if let Some((direction, delta)) = options.ratio_tolerance(&comparison.metric) {
        comparison.tolerance_pct = Some(100.0 * delta);
        unjudged = judge_ratio(comparison, direction, delta, options.verdict_level());
        let boundary = match direction {
            Direction::HigherIsBetter => -delta,
            Direction::LowerIsBetter => delta,
        };
        target_effect = Some((
            (boundary - comparison.change_pct / 100.0).abs(),
            Test::Verdict,
        ));
    } else if comparison.metric.is_rate()
        && let Some(limit) = options.max_error_rate
    {
        comparison.tolerance_pct = Some(limit);
        unjudged = judge_rate(comparison, samples, limit, options.verdict_level());
    }
    if !comparison.metric.is_rate() {
        let (x, y) = (&comparison.baseline, &comparison.variant);
        let target = target_effect.or(Some((
            (comparison.change_pct / 100.0).abs(),
            Test::Significance,
        )));
        let rounds = power(x.cv, y.cv, x.n.min(y.n), target, options.alpha);
        comparison.power = Some(match comparison.blocks {
            Some(b) => {
                let size = b.blocking.rounds_per_block().unwrap_or(1);
                let sd_log = b.se_log * (b.blocks as f64).sqrt();
                block_power(rounds.cv, sd_log, (b.blocks, size), target, options.alpha)
            }
            None => rounds,
        });
    }
    unjudged
}

/// The verdict of a ratio-judged metric from its (1 − 2α) Fieller interval. A side
/// without any variation between its values gives no interval worth the name (rounded
/// or logged data): INCONCLUSIVE, with the reason.
fn judge_ratio(
    comparison: &mut Comparison,
    direction: Direction,
    delta: f64,
    alpha: f64,
) -> Option<String> {
    if let Some(reason) = no_variation(comparison) {
        comparison.verdict = Some(Verdict::Inconclusive);
        return Some(reason);
    }
    if let Some(imbalance) = comparison.blocks.and_then(|b| b.imbalance) {
        // A refused adjustment decides nothing: falling back to the plain estimate only
        // when the load happened to differ would pick the blocks where it is most off.
        comparison.verdict = Some(Verdict::Inconclusive);
        return Some(format!(
            "{} at {} threads: --adjust host-load was refused: {}; re-analyse with \
             --adjust none to judge the plain block estimate",
            comparison.metric.label(),
            comparison.threads,
            imbalance_reason(&imbalance)
        ));
    }
    let bounds = match &comparison.blocks {
        Some(blocks) => Some(blocks.bounds(2.0 * alpha)),
        None => fieller(&comparison.baseline, &comparison.variant, 2.0 * alpha).bounds,
    };
    comparison.verdict_ci_pct = bounds.map(|b| b.map(|r| 100.0 * (r - 1.0)));
    comparison.verdict = Some(verdict::ratio_verdict(bounds, direction, delta));
    bounds.is_none().then(|| {
        format!(
            "{} at {} threads: the interval is unbounded (the baseline is too noisy to \
             divide by)",
            comparison.metric.label(),
            comparison.threads
        )
    })
}

/// The verdict of the error rate: the variant's (1 − 2α) interval of its mean rate, in
/// %, against the limit, whatever the baseline's rate (0 % included). A variant without
/// a single error in any round is within any limit; a variant whose rate is the same
/// non-zero figure in every round has no interval.
fn judge_rate(
    comparison: &mut Comparison,
    samples: &[Sample],
    limit: f64,
    alpha: f64,
) -> Option<String> {
    let values = side_values(
        samples,
        Side::Variant,
        comparison.threads,
        &comparison.metric,
    );
    let summary = Summary::of(&values);
    if summary.sd == 0.0 && summary.mean != 0.0 {
        comparison.verdict = Some(Verdict::Inconclusive);
        return Some(format!(
            "{} at {} threads: the variant's rate is {} % in every round, no variation between \
             rounds: the interval cannot be estimated",
            comparison.metric.label(),
            comparison.threads,
            summary.mean
        ));
    }
    let bounds = one_sided_mean_interval(&summary, alpha);
    comparison.verdict_ci_pct = Some(bounds);
    comparison.verdict = Some(verdict::absolute_verdict(bounds, limit));
    None
}

/// Why a comparison has no usable interval: a side whose values are all the same.
fn no_variation(comparison: &Comparison) -> Option<String> {
    let sides = [
        (Side::Baseline, &comparison.baseline),
        (Side::Variant, &comparison.variant),
    ];
    let flat: Vec<String> = sides
        .iter()
        .filter(|(_, summary)| summary.sd == 0.0)
        .map(|(side, _)| side.to_string())
        .collect();
    (!flat.is_empty()).then(|| {
        format!(
            "{} at {} threads: no variation between {}s on the {}: the interval cannot be \
             estimated",
            comparison.metric.label(),
            comparison.threads,
            comparison.unit.noun(),
            flat.join(" and the ")
        )
    })
}

/// The (1 − 2α) two-sided interval of a mean, i.e. each bound one-sided at level α.
fn one_sided_mean_interval(summary: &Summary, alpha: f64) -> [f64; 2] {
    if summary.n < 2 || summary.sd == 0.0 {
        return [summary.mean, summary.mean];
    }
    let half =
        t_critical(2.0 * alpha, summary.n as f64 - 1.0) * summary.sd / (summary.n as f64).sqrt();
    [summary.mean - half, summary.mean + half]
}

/// Why an adjustment for the host's load that was asked for was not made, in words.
pub(crate) fn imbalance_sentence(threads: u32, imbalance: &LoadImbalance) -> String {
    format!(
        "not adjusted for the host's load at {threads} threads: {}; the plain block \
         estimate is shown and decides nothing",
        imbalance_reason(imbalance)
    )
}

/// What the balance check found: the variant's rounds met more (or less) of the other
/// processes' CPU than the baseline's.
fn imbalance_reason(imbalance: &LoadImbalance) -> String {
    format!(
        "the variant's rounds met {:+.1} ± {:.1} points more of the other processes' CPU \
         than the baseline's (balance check p {}), so the change itself moves the load and \
         adjusting for it would subtract part of the change",
        imbalance.mean_load_difference,
        imbalance.se,
        p_text(imbalance.p),
    )
}

/// A p-value after its sign: "= 0.012", or "< 0.001".
fn p_text(p: f64) -> String {
    if p < 0.001 {
        "< 0.001".into()
    } else {
        format!("= {p:.3}")
    }
}

fn comparison_warnings(c: &Comparison) -> Vec<String> {
    let mut warnings = Vec::new();
    let label = format!("{} at {} threads", c.metric.spoken(), c.threads);
    let unit = c.unit.noun();
    if let (Some([plo, phi]), Some(paired), Some([lo, hi])) =
        (c.paired_ci_pct, c.paired_change_pct, c.ci_pct)
    {
        let paired_holds_welch = plo <= c.change_pct && c.change_pct <= phi;
        let welch_holds_paired = lo <= paired && paired <= hi;
        if !paired_holds_welch && !welch_holds_paired {
            warnings.push(format!(
                "{label}: comparing {unit}s pairwise gives [{plo:+.2}, {phi:+.2}] %, which does not hold the overall estimate {:+.2} %; the sides may have drifted differently",
                c.change_pct
            ));
        }
    }
    if let Some(imbalance) = c.blocks.and_then(|b| b.imbalance)
        && c.metric == Metric::Tps
        && c.verdict.is_none()
    {
        warnings.push(imbalance_sentence(c.threads, &imbalance));
    }
    if c.fieller_g > 0.05 && c.ci_pct.is_some() {
        warnings.push(format!(
            "{label}: the baseline is too noisy for a symmetric interval; the interval is wider \
             on one side (Fieller's g = {:.2})",
            c.fieller_g
        ));
    }
    if c.ci_pct.is_none() {
        warnings.push(format!(
            "{label}: the interval of the change is unbounded; the baseline is too noisy to divide by"
        ));
    }
    warnings
}

#[cfg(test)]
#[path = "analysis_tests.rs"]
mod tests;
