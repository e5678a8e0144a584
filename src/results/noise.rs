//! The noise budget of a run: where the round-to-round variance that sets the width of
//! every interval may come from. Each round records what it can see — TPS second by
//! second, CPU steal and the run queue, the idle side's server CPU, the client's own
//! CPU, reconnects — and this module sums it up, so a reader can tell a noisy host from
//! a noisy configuration.

use crate::stats::summary::median;
use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::round::{RoundRecord, RoundStatus};
use crate::side::Side;
use crate::stats::components::{Components, InstancePairs};
use crate::stats::summary::Summary;

/// A run's noise, from its completed rounds.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct NoiseBudget {
    /// CV of round TPS per side (mean over thread levels), in %: the noise the tests see.
    pub(crate) between_rounds_cv_pct: BTreeMap<Side, f64>,
    /// Mean CV of per-second TPS inside a round, in %.
    pub(crate) within_round_cv_pct: Option<f64>,
    /// Mean CPU steal during the measured periods, in %.
    pub(crate) steal_pct: Option<f64>,
    /// Mean runnable threads on the machine during the measured periods.
    pub(crate) runnable: Option<f64>,
    /// Mean CPU of the machine's other processes during the measured periods, in % of
    /// all CPU time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) other_processes_cpu_pct: Option<f64>,
    /// Mean CPU of the idle side's managed server while the other side ran, in % of a core.
    pub(crate) idle_server_cpu_pct: Option<f64>,
    /// Mean client CPU per transaction, µs.
    pub(crate) client_cpu_us_per_tx: Option<f64>,
    /// Reconnects over all rounds.
    pub(crate) reconnects: u64,
    /// How much higher TPS is in a round that follows the other side's round than in one
    /// that follows the same side's, in % (mean over sides and levels that have both).
    /// ABBA gives each side as many of one as of the other; a large value says the
    /// re-warm after a switch is too short, or the side that just ran leaves work behind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) after_switch_pct: Option<f64>,
    /// Median round switch (threads started, connections opened or handed over), ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) round_switch_ms: Option<f64>,
    /// TPS variance between server instances and between rounds within one, per side
    /// and level (`--instances`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) instances: Vec<InstanceVariance>,
    /// Per level, how much of the instances' variance both sides share (it cancels in
    /// the comparison) and how much each instance has of its own (`--instances`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) instance_pairs: Vec<InstancePairVariance>,
    /// With `--swap`: how much faster the baseline's server ran than the variant's with
    /// the same settings, in % (each side's rounds on its own server against its rounds
    /// on the other, averaged over the two settings and the levels).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) server_effect_pct: Option<f64>,
}

/// The `--swap` estimate of the difference between the two servers themselves.
fn server_effect(completed: &[&RoundRecord]) -> Option<f64> {
    if !completed.iter().any(|r| r.swapped) {
        return None;
    }
    let mean = |side: Side, threads: u32, swapped: bool| {
        let values: Vec<f64> = completed
            .iter()
            .filter(|r| r.side == side && r.threads == threads && r.swapped == swapped)
            .map(|r| r.tps)
            .collect();
        (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
    };
    let levels: BTreeSet<u32> = completed.iter().map(|r| r.threads).collect();
    let mut ratios = Vec::new();
    for threads in levels {
        // The baseline's server (A) against the variant's (B), with each side's settings.
        let baseline =
            mean(Side::Baseline, threads, false).zip(mean(Side::Baseline, threads, true));
        let variant = mean(Side::Variant, threads, true).zip(mean(Side::Variant, threads, false));
        ratios.extend(baseline.into_iter().chain(variant).map(|(a, b)| a / b));
    }
    (!ratios.is_empty()).then(|| 100.0 * (ratios.iter().sum::<f64>() / ratios.len() as f64 - 1.0))
}

/// The two variance components of one side's TPS at one level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct InstanceVariance {
    /// The side.
    pub(crate) side: Side,
    /// The thread level.
    pub(crate) threads: u32,
    /// The estimate.
    pub(crate) tps: Components,
    /// Between-instance SD in % of the mean TPS.
    pub(crate) between_cv_pct: f64,
    /// Within-instance (round-to-round) SD in % of the mean TPS.
    pub(crate) within_cv_pct: f64,
}

/// The split of one level's instance variance into what both sides share and what each
/// instance has of its own.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct InstancePairVariance {
    /// The thread level.
    pub(crate) threads: u32,
    /// The estimate.
    pub(crate) tps: InstancePairs,
    /// An instance's own SD in % of the mean TPS: what does not cancel.
    pub(crate) own_cv_pct: f64,
    /// The SD both sides' instances share in % of the mean TPS: what cancels.
    pub(crate) shared_cv_pct: f64,
}

/// Rounds' TPS grouped by (side, level) and then by instance, in instance order.
fn tps_by_instance(completed: &[&RoundRecord]) -> BTreeMap<(Side, u32), BTreeMap<u32, Vec<f64>>> {
    let mut by_side: BTreeMap<(Side, u32), BTreeMap<u32, Vec<f64>>> = BTreeMap::new();
    for round in completed {
        if let Some(instance) = round.instance {
            by_side
                .entry((round.side, round.threads))
                .or_default()
                .entry(instance)
                .or_default()
                .push(round.tps);
        }
    }
    by_side
}

/// Per level that ran on several instances, the split of their variance.
fn instance_pairs(completed: &[&RoundRecord]) -> Vec<InstancePairVariance> {
    let by_side = tps_by_instance(completed);
    let levels: BTreeSet<u32> = by_side.keys().map(|(_, threads)| *threads).collect();
    levels
        .into_iter()
        .filter_map(|threads| {
            let baseline = by_side.get(&(Side::Baseline, threads))?;
            let variant = by_side.get(&(Side::Variant, threads))?;
            // Instance i of each side, where both ran one.
            let (baseline, variant): (Vec<Vec<f64>>, Vec<Vec<f64>>) = baseline
                .iter()
                .filter_map(|(i, rounds)| Some((rounds.clone(), variant.get(i)?.clone())))
                .unzip();
            let tps = InstancePairs::of(&baseline, &variant)?;
            Some(InstancePairVariance {
                threads,
                own_cv_pct: tps.own_cv_pct(),
                shared_cv_pct: tps.shared_cv_pct(),
                tps,
            })
        })
        .collect()
}

/// The TPS variance components of every side and level that ran on several instances.
fn instance_variance(completed: &[&RoundRecord]) -> Vec<InstanceVariance> {
    tps_by_instance(completed)
        .into_iter()
        .filter_map(|((side, threads), groups)| {
            let groups: Vec<Vec<f64>> = groups.into_values().collect();
            let tps = Components::of(&groups)?;
            Some(InstanceVariance {
                side,
                threads,
                between_cv_pct: tps.between_cv_pct(),
                within_cv_pct: tps.within_cv_pct(),
                tps,
            })
        })
        .collect()
}

impl NoiseBudget {
    /// The budget of `rounds` (completed ones only).
    pub(crate) fn of(rounds: &[RoundRecord]) -> NoiseBudget {
        let completed: Vec<&RoundRecord> = rounds
            .iter()
            .filter(|r| r.status == RoundStatus::Completed)
            .collect();
        let mean_of = |values: Vec<f64>| {
            (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
        };
        let within = completed
            .iter()
            .filter(|r| r.per_second_tps.len() >= 2)
            .map(|r| 100.0 * Summary::of(&r.per_second_tps).cv)
            .collect();
        NoiseBudget {
            between_rounds_cv_pct: between_rounds(&completed),
            within_round_cv_pct: mean_of(within),
            steal_pct: mean_of(
                completed
                    .iter()
                    .filter_map(|r| r.host_load?.steal_pct)
                    .collect(),
            ),
            runnable: mean_of(
                completed
                    .iter()
                    .filter_map(|r| r.host_load?.runnable)
                    .collect(),
            ),
            other_processes_cpu_pct: mean_of(
                completed
                    .iter()
                    .filter_map(|r| r.host_load?.other_cpu_pct)
                    .collect(),
            ),
            idle_server_cpu_pct: mean_of(
                completed
                    .iter()
                    .filter_map(|r| r.other_server_cpu_pct)
                    .collect(),
            ),
            client_cpu_us_per_tx: mean_of(
                completed
                    .iter()
                    .filter_map(|r| r.client_cpu_us_per_tx)
                    .collect(),
            ),
            reconnects: completed.iter().map(|r| r.reconnects).sum(),
            after_switch_pct: after_switch(&completed),
            round_switch_ms: median(completed.iter().filter_map(|r| r.switch_ms).collect()),
            instances: instance_variance(&completed),
            instance_pairs: instance_pairs(&completed),
            server_effect_pct: server_effect(&completed),
        }
    }

    /// One line per figure, for reports.
    pub(crate) fn lines(&self) -> Vec<String> {
        let mut lines: Vec<String> = self
            .between_rounds_cv_pct
            .iter()
            .map(|(side, cv)| format!("{side}: TPS varies {cv:.1} % (CV) from round to round"))
            .collect();
        let mut add = |value: Option<f64>, text: &dyn Fn(f64) -> String| {
            if let Some(value) = value {
                lines.push(text(value));
            }
        };
        add(self.within_round_cv_pct, &|v| {
            format!("inside a round, TPS varies {v:.1} % (CV) from second to second")
        });
        add(self.steal_pct, &|v| {
            format!("CPU steal by the hypervisor: {v:.2} % of CPU time")
        });
        add(self.runnable, &|v| {
            format!("runnable threads on the machine: {v:.1} on average")
        });
        add(self.other_processes_cpu_pct, &|v| {
            format!("other processes on the machine used {v:.1} % of its CPU time")
        });
        add(self.idle_server_cpu_pct, &|v| {
            format!("the idle side's server used {v:.1} % of a core while the other side ran")
        });
        add(self.client_cpu_us_per_tx, &|v| {
            format!("client CPU: {v:.1} µs per transaction")
        });
        add(self.after_switch_pct, &|v| {
            format!(
                "a round right after the other side's ran {v:+.1} % TPS against one after the same side's"
            )
        });
        add(self.round_switch_ms, &|v| {
            format!("a round switch took {v:.1} ms (median)")
        });
        lines.push(format!("reconnects: {}", self.reconnects));
        lines
    }
}

/// [`NoiseBudget::after_switch_pct`]: each round is put with the rounds of its side and
/// level that followed a switch of side, or that followed the same side.
fn after_switch(completed: &[&RoundRecord]) -> Option<f64> {
    let mut by_position: Vec<&&RoundRecord> = completed.iter().collect();
    by_position.sort_by_key(|r| r.position);
    // (side, threads) -> (TPS after a switch, TPS after the same side)
    let mut groups: BTreeMap<(Side, u32), (Vec<f64>, Vec<f64>)> = BTreeMap::new();
    for pair in by_position.windows(2) {
        let (previous, round) = (pair[0], pair[1]);
        if previous.threads != round.threads || previous.position + 1 != round.position {
            continue;
        }
        let group = groups.entry((round.side, round.threads)).or_default();
        if previous.side == round.side {
            group.1.push(round.tps);
        } else {
            group.0.push(round.tps);
        }
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let effects: Vec<f64> = groups
        .values()
        .filter(|(switched, repeated)| !switched.is_empty() && !repeated.is_empty())
        .map(|(switched, repeated)| 100.0 * (mean(switched) / mean(repeated) - 1.0))
        .filter(|effect| effect.is_finite())
        .collect();
    (!effects.is_empty()).then(|| mean(&effects))
}

/// Round-to-round CV of TPS per side, the mean over the thread levels with 2 or more
/// rounds.
fn between_rounds(completed: &[&RoundRecord]) -> BTreeMap<Side, f64> {
    let mut groups: BTreeMap<(Side, u32), Vec<f64>> = BTreeMap::new();
    for r in completed {
        groups.entry((r.side, r.threads)).or_default().push(r.tps);
    }
    let mut per_side: BTreeMap<Side, Vec<f64>> = BTreeMap::new();
    for ((side, _), values) in groups.into_iter().filter(|(_, v)| v.len() >= 2) {
        per_side
            .entry(side)
            .or_default()
            .push(100.0 * Summary::of(&values).cv);
    }
    per_side
        .into_iter()
        .map(|(side, cvs)| (side, cvs.iter().sum::<f64>() / cvs.len() as f64))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::HostLoad;

    fn round(side: Side, tps: f64, per_second: &[f64], idle: Option<f64>) -> RoundRecord {
        RoundRecord {
            reconnects: 1,
            tps,
            qps: tps,
            client_cpu_us_per_tx: Some(10.0),
            per_second_tps: per_second.to_vec(),
            host_load: Some(HostLoad {
                steal_pct: Some(2.0),
                runnable: Some(3.0),
                other_cpu_pct: Some(7.0),
            }),
            other_server_cpu_pct: idle,
            ..RoundRecord::example(side, 8, 0)
        }
    }

    #[test]
    fn the_budget_sums_up_what_the_rounds_saw() {
        let rounds = [
            round(Side::Baseline, 90.0, &[90.0, 110.0], Some(4.0)),
            round(Side::Baseline, 110.0, &[100.0, 100.0], Some(6.0)),
            round(Side::Variant, 100.0, &[100.0, 100.0], None),
            round(Side::Variant, 100.0, &[100.0, 100.0], None),
        ];
        let budget = NoiseBudget::of(&rounds);
        let baseline_cv = 100.0 * (200.0f64).sqrt() / 100.0;
        assert!((budget.between_rounds_cv_pct[&Side::Baseline] - baseline_cv).abs() < 1e-9);
        assert_eq!(budget.between_rounds_cv_pct[&Side::Variant], 0.0);
        // One round of four has a per-second CV of 14.1 %.
        assert!((budget.within_round_cv_pct.unwrap() - baseline_cv / 4.0).abs() < 1e-9);
        assert_eq!(budget.steal_pct, Some(2.0));
        assert_eq!(budget.other_processes_cpu_pct, Some(7.0));
        assert_eq!(budget.idle_server_cpu_pct, Some(5.0));
        assert_eq!(budget.reconnects, 4);
        assert_eq!(budget.lines().len(), 9);
    }

    #[test]
    fn rounds_after_a_switch_are_told_from_rounds_after_the_same_side() {
        // A B B A A B B A: B after A at 110, B after B at 100; A after B at 99, A after A
        // at 90 (the first A follows nothing).
        let sides = "ABBAABBA";
        let tps = [95.0, 110.0, 100.0, 99.0, 90.0, 110.0, 100.0, 99.0];
        let rounds: Vec<RoundRecord> = sides
            .chars()
            .zip(tps)
            .enumerate()
            .map(|(i, (side, tps))| {
                let side = if side == 'A' {
                    Side::Baseline
                } else {
                    Side::Variant
                };
                let mut r = round(side, tps, &[], None);
                r.position = i as u32;
                r.switch_ms = Some(i as f64);
                r
            })
            .collect();
        let budget = NoiseBudget::of(&rounds);
        let expected = (10.0 + 10.0) / 2.0;
        assert!(
            (budget.after_switch_pct.unwrap() - expected).abs() < 1e-9,
            "{budget:?}"
        );
        assert_eq!(budget.round_switch_ms, Some(3.5));
    }
}
