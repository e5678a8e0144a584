//! From a run's rounds to the samples the analysis compares: one per round — or per
//! instance, when `--instances` restarted the servers, so that the difference between
//! instances is part of every interval.

use std::collections::BTreeMap;

use super::round::{RoundRecord, RoundStatus};
use crate::side::Side;
use crate::stats::compare::{Sample, Unit};
use crate::stats::metric::Metric;

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
