//! The noise budget of a run: where the round-to-round variance that sets the width of
//! every interval may come from. Each round records what it can see — TPS second by
//! second, CPU steal and the run queue, the idle side's server CPU, the client's own
//! CPU, reconnects — and this module sums it up, so a reader can tell a noisy host from
//! a noisy configuration.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{RoundRecord, RoundStatus};
use crate::profile::Side;
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
    /// Mean CPU of the idle side's managed server while the other side ran, in % of a core.
    pub(crate) idle_server_cpu_pct: Option<f64>,
    /// Mean client CPU per transaction, µs.
    pub(crate) client_cpu_us_per_tx: Option<f64>,
    /// Reconnects over all rounds.
    pub(crate) reconnects: u64,
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
        add(self.idle_server_cpu_pct, &|v| {
            format!("the idle side's server used {v:.1} % of a core while the other side ran")
        });
        add(self.client_cpu_us_per_tx, &|v| {
            format!("client CPU: {v:.1} µs per transaction")
        });
        lines.push(format!("reconnects: {}", self.reconnects));
        lines
    }
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
    use crate::results::{HostLoad, LatencyMs};

    fn round(side: Side, tps: f64, per_second: &[f64], idle: Option<f64>) -> RoundRecord {
        RoundRecord {
            side,
            threads: 8,
            index: 0,
            position: 0,
            status: RoundStatus::Completed,
            reason: None,
            started_at: String::new(),
            duration_s: 1.0,
            transactions: 100,
            queries: Default::default(),
            errors: BTreeMap::new(),
            reconnects: 1,
            tps,
            qps: tps,
            latency_ms: LatencyMs::default(),
            latency_saturated: 0,
            client_cpu_us_per_tx: Some(10.0),
            server: None,
            per_second_tps: per_second.to_vec(),
            host_load: Some(HostLoad {
                steal_pct: Some(2.0),
                runnable: Some(3.0),
            }),
            other_server_cpu_pct: idle,
            switch_ms: None,
            connections_opened: None,
            open_loop: None,
            histogram: String::new(),
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
        assert_eq!(budget.idle_server_cpu_pct, Some(5.0));
        assert_eq!(budget.reconnects, 4);
        assert_eq!(budget.lines().len(), 8);
    }
}
