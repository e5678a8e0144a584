//! Stopping a run when the answer is known, without giving up the error rates. A run
//! with a time budget gets K looks at fixed numbers of rounds per side. Look k tests
//! at its own level α_k = α(t_k) − α(t_{k−1}), where α(t) = α·t³ is spent by the
//! fraction t of the rounds done (an O'Brien–Fleming-like shape: early looks need
//! strong evidence, most of α is kept for the end). By the union bound the chance of
//! a false GO, NO-GO or significance at any look is at most Σ α_k = α, whatever the
//! correlation between looks and whenever the run stops: valid under optional
//! stopping, and conservative (a boundary from the joint distribution of the looks
//! would be less so). A run that reaches its last look undecided is INCONCLUSIVE.

use serde::{Deserialize, Serialize};

/// When a run with a budget stops early.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Until {
    /// When every tolerance is GO or NO-GO.
    Decided,
    /// When the TPS interval's half-width, in %, is at most this.
    Precision(f64),
}

/// The looks of a sequential run: rounds per side at each, and the α spent there.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Design {
    /// Rounds per side at each look, increasing; the last is the budget's.
    pub(crate) rounds: Vec<u32>,
    /// The overall α.
    pub(crate) alpha: f64,
}

/// The share of α spent when a fraction `t` of the rounds is done.
fn spent(alpha: f64, t: f64) -> f64 {
    alpha * t.clamp(0.0, 1.0).powi(3)
}

impl Design {
    /// Up to `looks` looks over `max_rounds` rounds per side, each at a whole number of
    /// round pairs (so that every side has as many rounds as the other), the first at 2
    /// or more rounds per side.
    pub(crate) fn new(max_rounds: u32, looks: u32, alpha: f64) -> Design {
        let pairs = (max_rounds / 2).max(1);
        let looks = looks.clamp(1, pairs);
        let mut rounds: Vec<u32> = (1..=looks)
            .map(|k| 2 * (k * pairs).div_ceil(looks))
            .collect();
        rounds.dedup();
        Design { rounds, alpha }
    }

    /// The level of look `k` (from 0).
    pub(crate) fn alpha_at(&self, k: usize) -> f64 {
        let total = f64::from(*self.rounds.last().unwrap_or(&1));
        let t = |i: usize| f64::from(self.rounds[i]) / total;
        let before = if k == 0 {
            0.0
        } else {
            spent(self.alpha, t(k - 1))
        };
        spent(self.alpha, t(k)) - before
    }

    /// The look that `rounds_per_side` completed rounds reach, if one.
    pub(crate) fn look_at(&self, rounds_per_side: u32) -> Option<usize> {
        self.rounds.iter().position(|&n| n == rounds_per_side)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn looks_fall_on_pairs_and_spend_exactly_alpha() {
        let design = Design::new(20, 5, 0.05);
        assert_eq!(design.rounds, [4, 8, 12, 16, 20]);
        let total: f64 = (0..5).map(|k| design.alpha_at(k)).sum();
        assert!((total - 0.05).abs() < 1e-15, "{total}");
        // Early looks get a small share: 0.05·0.2³ = 0.0004 at the first.
        assert!((design.alpha_at(0) - 0.0004).abs() < 1e-15);
        assert!((design.alpha_at(4) - 0.05 * (1.0 - 0.8f64.powi(3))).abs() < 1e-15);
        assert_eq!(design.look_at(12), Some(2));
        assert_eq!(design.look_at(13), None);
    }

    #[test]
    fn a_short_budget_has_fewer_looks() {
        assert_eq!(Design::new(6, 5, 0.05).rounds, [2, 4, 6]);
        assert_eq!(Design::new(7, 2, 0.05).rounds, [4, 6]);
        assert_eq!(Design::new(2, 5, 0.05).rounds, [2]);
        assert!((Design::new(2, 5, 0.05).alpha_at(0) - 0.05).abs() < 1e-15);
    }
}
