//! The analysis that follows the design. Rounds run in an order that is chosen to cancel
//! the machine's drift: in ABBA order every block of four rounds (A B B A A B B A …)
//! has the same centre of time on both sides, so a linear trend inside the block drops
//! out of the ratio of the block's side means. Welch on rounds treats the rounds as
//! independent and pays for the drift in its variance; comparing the sides block by block
//! does not. The unit of the confirmatory analysis is therefore the block for `abba`, the
//! adjacent pair for `abab`, and the round (Welch/Fieller) for `random`. Which one is
//! fixed by the order before any data are seen, never by which interval is narrower.
//!
//! Each block b gives d_b = ln(ȳ_b / x̄_b), the log of the ratio of the side means within
//! it. The change is exp(d̄) − 1 and its interval exp(d̄ ± t(1 − α/2, B − 1)·s_d/√B): a
//! paired t interval over B blocks, on the log scale so that it is a ratio like
//! Fieller's. A run with fewer than two blocks with both sides has no block interval and
//! is analysed by rounds, a rule fixed by the count alone.

use serde::{Deserialize, Serialize};

use super::summary::{mean, variance};
use super::{t_critical, two_sided_p};

/// The unit of the confirmatory analysis.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Blocking {
    /// Rounds as independent values: Welch's test and Fieller's interval. Files saved
    /// before the analysis followed the design are read this way, as they were analysed.
    #[default]
    Rounds,
    /// Adjacent pairs of rounds (`abab`): round k of each side.
    Pairs,
    /// ABBA blocks: rounds 2j and 2j + 1 of each side.
    Blocks,
}

impl Blocking {
    /// Rounds per side in one unit of the analysis, `None` for independent rounds.
    pub(crate) fn rounds_per_block(self) -> Option<u32> {
        match self {
            Blocking::Rounds => None,
            Blocking::Pairs => Some(1),
            Blocking::Blocks => Some(2),
        }
    }

    /// The unit in words, plural: "ABBA blocks", "adjacent pairs".
    pub(crate) fn plural(self) -> &'static str {
        match self {
            Blocking::Rounds => "rounds",
            Blocking::Pairs => "adjacent pairs of rounds",
            Blocking::Blocks => "ABBA blocks",
        }
    }
}

/// The change estimated block by block: the mean and standard error of the blocks' log
/// ratios.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub(crate) struct BlockEstimate {
    /// The unit the blocks are.
    pub(crate) blocking: Blocking,
    /// Blocks with rounds of both sides.
    pub(crate) blocks: usize,
    /// Mean of ln(ȳ_b / x̄_b).
    pub(crate) mean_log: f64,
    /// Its standard error, s_d / √B.
    pub(crate) se_log: f64,
}

impl BlockEstimate {
    /// The estimate from each side's (round index, value) pairs, or `None` when fewer
    /// than two blocks have rounds of both sides, a block's mean is not positive, or the
    /// block ratios do not vary at all (no interval is honest then).
    pub(crate) fn of(
        x: &[(u32, f64)],
        y: &[(u32, f64)],
        blocking: Blocking,
    ) -> Option<BlockEstimate> {
        let size = blocking.rounds_per_block()?;
        let last = x.iter().chain(y).map(|(index, _)| index / size).max()?;
        let block_mean = |side: &[(u32, f64)], block: u32| {
            let values: Vec<f64> = side
                .iter()
                .filter(|(index, _)| index / size == block)
                .map(|(_, v)| *v)
                .collect();
            (!values.is_empty()).then(|| mean(&values))
        };
        let logs: Vec<f64> = (0..=last)
            .filter_map(|block| Some((block_mean(x, block)?, block_mean(y, block)?)))
            .map(|(a, b)| (b / a).ln())
            .collect();
        if logs.len() < 2 || logs.iter().any(|d| !d.is_finite()) {
            return None;
        }
        let se_log = (variance(&logs) / logs.len() as f64).sqrt();
        (se_log > 0.0).then(|| BlockEstimate {
            blocking,
            blocks: logs.len(),
            mean_log: mean(&logs),
            se_log,
        })
    }

    /// Degrees of freedom, B − 1.
    pub(crate) fn df(&self) -> f64 {
        self.blocks as f64 - 1.0
    }

    /// The change in %, 100(exp(d̄) − 1).
    pub(crate) fn change_pct(&self) -> f64 {
        100.0 * (self.mean_log.exp() - 1.0)
    }

    /// The (1 − alpha) interval of the ratio.
    pub(crate) fn bounds(&self, alpha: f64) -> [f64; 2] {
        let half = t_critical(alpha, self.df()) * self.se_log;
        [(self.mean_log - half).exp(), (self.mean_log + half).exp()]
    }

    /// The (1 − alpha) interval of the change in %.
    pub(crate) fn percent_bounds(&self, alpha: f64) -> [f64; 2] {
        self.bounds(alpha).map(|r| 100.0 * (r - 1.0))
    }

    /// The two-sided p-value of no change.
    pub(crate) fn p(&self) -> f64 {
        two_sided_p(self.mean_log / self.se_log, self.df())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn indexed(values: &[f64]) -> Vec<(u32, f64)> {
        values
            .iter()
            .enumerate()
            .map(|(i, v)| (i as u32, *v))
            .collect()
    }

    #[test]
    fn abba_blocks_pair_rounds_two_by_two() {
        // Blocks: x (100, 102) (104, 106), y (110, 112) (114, 118).
        let x = indexed(&[100.0, 102.0, 104.0, 106.0]);
        let y = indexed(&[110.0, 112.0, 114.0, 118.0]);
        let e = BlockEstimate::of(&x, &y, Blocking::Blocks).unwrap();
        assert_eq!(e.blocks, 2);
        let d = [(111.0f64 / 101.0).ln(), (116.0f64 / 105.0).ln()];
        assert!((e.mean_log - (d[0] + d[1]) / 2.0).abs() < 1e-15);
        assert!((e.se_log - (d[0] - d[1]).abs() / 2.0).abs() < 1e-15);
        // scipy.stats.ttest_1samp(d, 0): t = 37.1712, df 1, p = 0.0171226.
        assert!((e.p() - 0.017_122_56).abs() < 1e-8, "{}", e.p());
        assert!((e.mean_log / e.se_log - 37.171_208_6).abs() < 1e-6);
    }

    #[test]
    fn pairs_are_rounds_and_a_missing_round_leaves_its_block_out() {
        let x = vec![(0, 100.0), (1, 100.0), (2, 100.0)];
        let y = vec![(0, 105.0), (2, 110.0)];
        let e = BlockEstimate::of(&x, &y, Blocking::Pairs).unwrap();
        assert_eq!(e.blocks, 2);
        assert!(BlockEstimate::of(&x, &y, Blocking::Rounds).is_none());
        // One ABBA block only: no interval.
        assert!(BlockEstimate::of(&x[..2], &y[..1], Blocking::Blocks).is_none());
    }

    #[test]
    fn a_linear_drift_cancels_within_abba_blocks() {
        // Time runs A B B A A B B A; both sides drift by 10 per slot, the variant is 5 %
        // faster (with a little jitter). Welch on rounds sees the drift as noise; the blocks do not see it.
        let slots = ["A", "B", "B", "A", "A", "B", "B", "A", "A", "B", "B", "A"];
        let (mut x, mut y) = (Vec::new(), Vec::new());
        for (t, side) in slots.iter().enumerate() {
            let jitter = if t % 3 == 0 { 1.0 } else { -0.5 };
            let level = 1000.0 + 10.0 * t as f64 + jitter;
            if *side == "A" {
                x.push((x.len() as u32, level));
            } else {
                y.push((y.len() as u32, 1.05 * level));
            }
        }
        let e = BlockEstimate::of(&x, &y, Blocking::Blocks).unwrap();
        let [lo, hi] = e.percent_bounds(0.05);
        assert!(lo > 4.5 && hi < 5.5, "[{lo}, {hi}]");
        let rounds = |side: &[(u32, f64)]| {
            super::super::summary::Summary::of(&side.iter().map(|(_, v)| *v).collect::<Vec<_>>())
        };
        let welch = super::super::fieller::fieller(&rounds(&x), &rounds(&y), 0.05);
        let [wlo, whi] = welch.percent_bounds().unwrap();
        assert!(
            whi - wlo > 4.0 * (hi - lo),
            "[{wlo}, {whi}] against [{lo}, {hi}]"
        );
    }
}
