//! From a run's rounds to the analysis: which metrics are compared (the error rate and
//! the server's figures only where there is something to compare), one sample per
//! round — or per instance, when `--instances` restarted the servers — and the warnings
//! about single rounds.

use std::collections::BTreeMap;

use super::{NoiseBudget, ResultsFile, RoundRecord, RoundStatus};
use crate::analysis::{self, AnalysisOptions};
use crate::profile::Side;
use crate::stats::compare::{Sample, Unit};
use crate::stats::metric::Metric;
use crate::stats::verdict::Verdict;

impl ResultsFile {
    /// Re-analyses the completed rounds with `options` and stores the outcome; a run
    /// that did not finish its plan gets no verdict (`partial`).
    pub(crate) fn analyze(&mut self, options: &AnalysisOptions) {
        self.judge_rounds(options);
        self.withhold_if_unfinished();
    }

    /// Re-analyses the completed rounds with `options` and stores the outcome, verdicts
    /// included whether or not the run finished: what a look of a running run reads.
    pub(crate) fn judge_rounds(&mut self, options: &AnalysisOptions) {
        let completed = || {
            self.rounds
                .iter()
                .filter(|r| r.status == RoundStatus::Completed)
        };
        // With an error-rate tolerance the rate is always compared: 0 % is a finding.
        let with_errors =
            options.max_error_rate.is_some() || completed().any(|r| !r.errors.is_empty());
        let mut metrics = options.run_metrics(with_errors);
        for server_metric in [Metric::ServerCpuPerTx, Metric::ThreadsRunning] {
            if completed().any(|r| r.metric(&server_metric).is_some()) {
                metrics.push(server_metric);
            }
        }
        let samples = samples(&self.rounds, &metrics);
        let analysis = analysis::analyze(&samples, sample_unit(&self.rounds), options);
        let mut warnings = round_warnings(&self.rounds);
        warnings.extend(analysis.warnings);
        self.comparisons = analysis.comparisons;
        self.query_classes = super::classes::compare_classes(&self.rounds, options.alpha);
        self.verdict = analysis.verdict;
        if let Some(check) = &self.result_check
            && check.answers_differ()
        {
            if options.allow_result_diff {
                warnings.push(format!(
                    "{} (allowed by --allow-result-diff)",
                    check.summary()
                ));
            } else {
                self.verdict = Some(Verdict::NoGo);
                warnings.push(format!(
                    "NO-GO: {}; the variant is not judged on speed alone (see the answers; \
                     --allow-result-diff judges speed anyway)",
                    check.summary()
                ));
            }
        }
        let mut unchecked = analysis.unchecked;
        if let Some(reason) = self
            .result_check
            .as_ref()
            .and_then(|c| c.nothing_compared())
        {
            if self.verdict == Some(Verdict::Go) {
                self.verdict = Some(Verdict::Inconclusive);
            }
            warnings.push(reason.clone());
            unchecked.push(reason);
        }
        self.unchecked_tolerances = unchecked;
        self.analysis = Some(options.clone());
        self.analysis_warnings = warnings;
        self.noise = Some(NoiseBudget::of(&self.rounds));
    }
}

/// Warnings about individual rounds: errors, saturated histograms, unfinished rounds.
fn round_warnings(rounds: &[RoundRecord]) -> Vec<String> {
    let mut warnings = Vec::new();
    for r in rounds {
        let label = format!("{} round {} at {} threads", r.side, r.index + 1, r.threads);
        if !r.errors.is_empty() {
            warnings.push(format!("{label}: errors {:?}", r.errors));
        }
        if r.latency_saturated > 0 {
            warnings.push(format!(
                "{label}: {} events took longer than the histogram's 100 s range",
                r.latency_saturated
            ));
        }
        if r.status != RoundStatus::Completed {
            let status = serde_json::to_value(r.status).unwrap_or_default();
            warnings.push(format!(
                "{label}: {} ({}), not analysed",
                status.as_str().unwrap_or("?"),
                r.reason.as_deref().unwrap_or("")
            ));
        }
    }
    warnings
}

/// Samples of `metrics` from the completed rounds: one per round, or, when the rounds
/// ran on several server instances (`--instances`), one per instance, the mean of its
/// rounds, so that the difference between instances is part of every interval.
pub(crate) fn samples(rounds: &[RoundRecord], metrics: &[Metric]) -> Vec<Sample> {
    samples_by(rounds, metrics, RoundRecord::metric)
}

/// [`samples`] with each round's value of a metric read by `value`.
pub(crate) fn samples_by(
    rounds: &[RoundRecord],
    metrics: &[Metric],
    value: impl Fn(&RoundRecord, &Metric) -> Option<f64>,
) -> Vec<Sample> {
    let per_round = round_samples(rounds, metrics, value);
    if sample_unit(rounds) == Unit::Round {
        return per_round;
    }
    let instance_of: BTreeMap<(Side, u32, u32), u32> = rounds
        .iter()
        .map(|r| ((r.side, r.threads, r.index), r.instance.unwrap_or(0)))
        .collect();
    let mut groups: BTreeMap<(Side, u32, u32, Metric), Vec<f64>> = BTreeMap::new();
    for sample in per_round {
        let instance = instance_of[&(sample.side, sample.threads, sample.index)];
        groups
            .entry((sample.side, sample.threads, instance, sample.metric))
            .or_default()
            .push(sample.value);
    }
    groups
        .into_iter()
        .map(|((side, threads, instance, metric), values)| Sample {
            side,
            threads,
            index: instance,
            metric,
            value: values.iter().sum::<f64>() / values.len() as f64,
            load: None,
        })
        .collect()
}

/// What one of [`samples`]' values stands for: an instance when the rounds ran on several
/// server instances, else a round.
pub(crate) fn sample_unit(rounds: &[RoundRecord]) -> Unit {
    if rounds.iter().any(|r| r.instance.is_some()) {
        Unit::Instance
    } else {
        Unit::Round
    }
}

/// One sample of each metric per completed round.
fn round_samples(
    rounds: &[RoundRecord],
    metrics: &[Metric],
    value_of: impl Fn(&RoundRecord, &Metric) -> Option<f64>,
) -> Vec<Sample> {
    let mut out = Vec::new();
    for round in rounds.iter().filter(|r| r.status == RoundStatus::Completed) {
        for metric in metrics {
            if let Some(value) = value_of(round, metric) {
                out.push(Sample {
                    side: round.side,
                    threads: round.threads,
                    index: round.index,
                    metric: metric.clone(),
                    value,
                    load: round.host_load.and_then(|h| h.other_cpu_pct),
                });
            }
        }
    }
    out
}
