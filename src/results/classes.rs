//! Which query classes got slower: every statement class's latency per side and round,
//! compared like any metric — the per-round mean latency of the class on each side,
//! Fieller's interval of the ratio, Holm among the classes of the run.
//!
//! The classes form their own explanatory family: they explain the transaction's change
//! and never decide a verdict, and adding classes (a captured workload has dozens) never
//! moves the Holm p of TPS or of the other explanatory metrics.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::round::{ClassRound, LatencyMs, RoundRecord, RoundStatus};
use crate::histogram;
use crate::side::Side;
use crate::stats::blocked::{Adjust, Blocking};
use crate::stats::compare::compare;
use crate::stats::metric::Metric;

/// One query class compared between the sides at one thread level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ClassComparison {
    /// Thread level.
    pub(crate) threads: u32,
    /// The class.
    pub(crate) class: String,
    /// Statements of the class per transaction, baseline and variant.
    pub(crate) calls_per_tx: [f64; 2],
    /// Mean latency (ms) over the side's rounds, baseline and variant.
    pub(crate) mean_ms: [f64; 2],
    /// 95th percentile (ms) of all the side's statements of the class.
    pub(crate) p95_ms: [f64; 2],
    /// Change of the mean latency in %.
    pub(crate) change_pct: f64,
    /// Its interval (Fieller, across rounds), or `None` when unbounded.
    pub(crate) ci_pct: Option<[f64; 2]>,
    /// Raw p-value (Welch).
    pub(crate) p: f64,
    /// Holm-adjusted among the classes.
    pub(crate) p_holm: f64,
    /// Whether `p_holm` is below α.
    pub(crate) significant: bool,
}

/// Compares every query class that ran on both sides in at least two rounds each, at
/// each thread level; the slowest change first within a level. With `--instances`, a
/// class's value per instance is the mean of its rounds there, as for every other metric.
pub(crate) fn compare_classes(rounds: &[RoundRecord], alpha: f64) -> Vec<ClassComparison> {
    let completed: Vec<&RoundRecord> = rounds
        .iter()
        .filter(|r| r.status == RoundStatus::Completed)
        .collect();
    let metrics: Vec<Metric> = class_names(&completed)
        .into_iter()
        .map(Metric::Other)
        .collect();
    if metrics.len() < 2 {
        // One class is the transaction itself: its table would only repeat latency.
        return Vec::new();
    }
    let samples = super::sampling::samples_by(rounds, &metrics, |round, metric| {
        let Metric::Other(class) = metric else {
            return None;
        };
        let found = round.classes.iter().find(|c| c.class == *class)?;
        (found.calls > 0).then_some(found.latency_ms.mean)
    });
    // Explanatory, and compared on rounds whatever the order: a class table ranks.
    let mut out: Vec<ClassComparison> = compare(&samples, alpha, Blocking::Rounds, Adjust::None)
        .into_iter()
        .filter_map(|c| {
            let Metric::Other(class) = &c.metric else {
                return None;
            };
            let side = |side| SideFigures::of(&completed, side, c.threads, class);
            let (baseline, variant) = (side(Side::Baseline), side(Side::Variant));
            Some(ClassComparison {
                threads: c.threads,
                class: class.clone(),
                calls_per_tx: [baseline.calls_per_tx, variant.calls_per_tx],
                mean_ms: [c.baseline.mean, c.variant.mean],
                p95_ms: [baseline.p95_ms, variant.p95_ms],
                change_pct: c.change_pct,
                ci_pct: c.ci_pct,
                p: c.p,
                p_holm: c.p_holm,
                significant: c.significant,
            })
        })
        .collect();
    out.sort_by(|a, b| {
        a.threads
            .cmp(&b.threads)
            .then(b.change_pct.total_cmp(&a.change_pct))
    });
    out
}

/// The classes of the rounds, in order of first appearance.
fn class_names(rounds: &[&RoundRecord]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for class in rounds.iter().flat_map(|r| &r.classes) {
        if !names.contains(&class.class) {
            names.push(class.class.clone());
        }
    }
    names
}

/// What one side's rounds at a level say about a class, all its statements together.
struct SideFigures {
    calls_per_tx: f64,
    p95_ms: f64,
}

impl SideFigures {
    fn of(rounds: &[&RoundRecord], side: Side, threads: u32, class: &str) -> SideFigures {
        let mut merged = histogram::merged(3);
        let (mut calls, mut transactions) = (0_u64, 0_u64);
        for round in rounds
            .iter()
            .filter(|r| r.side == side && r.threads == threads)
        {
            transactions += round.transactions;
            if let Some(found) = round.classes.iter().find(|c| c.class == class) {
                calls += found.calls;
                if let Some(part) = histogram::decode(&found.histogram) {
                    let _ = merged.add(&part);
                }
            }
        }
        SideFigures {
            calls_per_tx: if transactions == 0 {
                0.0
            } else {
                calls as f64 / transactions as f64
            },
            p95_ms: LatencyMs::of(&merged).p95,
        }
    }
}

/// Adds up the classes of rounds that ran at the same time (segments of a split run):
/// calls summed, histograms added.
pub(crate) fn merge(parts: &[&[ClassRound]]) -> Result<Vec<ClassRound>, String> {
    let mut merged: BTreeMap<&str, hdrhistogram::Histogram<u64>> = BTreeMap::new();
    let mut order: Vec<&str> = Vec::new();
    for class in parts.iter().flat_map(|p| p.iter()) {
        let part = histogram::decode(&class.histogram).ok_or_else(|| {
            format!(
                "the latency histogram of query class `{}` cannot be read",
                class.class
            )
        })?;
        let target = merged.entry(&class.class).or_insert_with(|| {
            order.push(&class.class);
            histogram::merged(3)
        });
        target
            .add(&part)
            .map_err(|e| format!("adding latency histograms of `{}`: {e:?}", class.class))?;
    }
    Ok(order
        .into_iter()
        .map(|name| ClassRound::of(name, &merged[name]))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A round in which each class of `classes` ran 100 statements of `mean_ms` each.
    fn round(side: Side, index: u32, classes: &[(&str, f64)]) -> RoundRecord {
        let classes = classes
            .iter()
            .map(|&(class, mean_ms)| {
                let mut histogram = histogram::merged(3);
                histogram.record_n((mean_ms * 1000.0) as u64, 100).unwrap();
                ClassRound::of(class, &histogram)
            })
            .collect();
        RoundRecord {
            classes,
            ..RoundRecord::example(side, 4, index)
        }
    }

    /// Five rounds a side: `slow` takes 3 ms on the baseline and 6 ms on the variant,
    /// `steady` 1 ms on both, each with a little round-to-round noise.
    fn rounds() -> Vec<RoundRecord> {
        let noise = [0.0, 0.01, -0.01, 0.02, -0.02];
        (0..5)
            .flat_map(|i| {
                let n = noise[i as usize];
                [
                    round(Side::Baseline, i, &[("steady", 1.0 + n), ("slow", 3.0 + n)]),
                    round(Side::Variant, i, &[("steady", 1.0 - n), ("slow", 6.0 + n)]),
                ]
            })
            .collect()
    }

    #[test]
    fn the_class_that_slowed_comes_first_and_the_others_are_not_significant() {
        let compared = compare_classes(&rounds(), 0.05);
        let names: Vec<&str> = compared.iter().map(|c| c.class.as_str()).collect();
        assert_eq!(names, ["slow", "steady"]);
        let slow = &compared[0];
        assert!(
            slow.significant && (slow.change_pct - 100.0).abs() < 1.0,
            "{slow:?}"
        );
        assert_eq!(slow.calls_per_tx, [1.0, 1.0]);
        // The p95 of all the side's statements: the slowest rounds' 3.02 and 6.02 ms.
        assert!((slow.p95_ms[0] - 3.02).abs() < 0.01 && (slow.p95_ms[1] - 6.02).abs() < 0.01);
        assert!(!compared[1].significant, "{:?}", compared[1]);
        // Holm among the two classes: the smaller p doubled.
        assert!((slow.p_holm - (2.0 * slow.p).min(1.0)).abs() < 1e-12);
    }

    #[test]
    fn one_class_is_the_transaction_and_gets_no_table() {
        let rounds: Vec<RoundRecord> = (0..3)
            .flat_map(|i| {
                [
                    round(Side::Baseline, i, &[("point select", 1.0)]),
                    round(Side::Variant, i, &[("point select", 2.0)]),
                ]
            })
            .collect();
        assert!(compare_classes(&rounds, 0.05).is_empty());
    }

    #[test]
    fn segments_add_up_class_by_class() {
        let a = round(Side::Baseline, 0, &[("x", 1.0), ("y", 2.0)]);
        let b = round(Side::Baseline, 0, &[("y", 4.0)]);
        let merged = merge(&[&a.classes, &b.classes]).unwrap();
        assert_eq!(merged.len(), 2);
        assert_eq!(merged[0].calls, 100);
        assert_eq!(merged[1].calls, 200);
        assert!((merged[1].latency_ms.mean - 3.0).abs() < 0.01);
    }
}
