//! Stopping a run when the answer is known, without giving up the error rates. A run
//! with a time budget gets K looks at fixed numbers of rounds per side, and look k tests
//! at a nominal level computed from the joint distribution of the looks
//! (`stats::boundaries`): Lan–DeMets O'Brien–Fleming-type spending, so that the chance
//! of a false significance at any look is exactly α (two-sided) and that of a false GO
//! or NO-GO exactly α (one-sided), however the run stops. The interval at a look is the
//! repeated confidence interval: the estimate ± the look's critical value in standard
//! errors, which holds its coverage at whichever look the run stops.
//!
//! The boundaries are computed for normal statistics, and a look tests a t statistic on
//! a few blocks. A design that knows its unit of analysis (every run planned since) gets
//! its levels on the t scale (`stats::t_looks`): critical values of the looks' joint t
//! law, turned into nominal levels of each look's own t distribution. Designs saved
//! without a unit test each t at the normal boundary's nominal level (the "significance
//! level" approach, Jennison & Turnbull 2000, §3.8), which spends slightly more than α;
//! they are re-analysed as they ran. The simulations in the runner's tests check the
//! error rates.
//!
//! Runs saved before these boundaries spent α·t³ at each look by the union bound;
//! resuming one keeps that rule.

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, Normal};

use super::blocked::Blocking;
use super::boundaries::{Tails, obrien_fleming_boundaries};
use super::t_looks::SMALLEST_LEVEL;

/// When a run with a budget stops early.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Until {
    /// When every tolerance is GO or NO-GO.
    Decided,
    /// When the TPS interval's half-width, in %, is at most this.
    Precision(f64),
}

/// The looks of a sequential run: rounds per side at each, the overall α and how it is
/// spent, with the nominal levels each look tests at (computed once, when the design is
/// made or read: a saved file's figures are never trusted).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "SavedDesign", into = "SavedDesign")]
pub(crate) struct Design {
    /// Rounds per side at each look, increasing; the last is the budget's.
    pub(crate) rounds: Vec<u32>,
    /// The overall α.
    pub(crate) alpha: f64,
    /// How α is spent over the looks.
    pub(crate) spending: Spending,
    /// The unit of the analysis, whose count at a look gives its t statistic's degrees of
    /// freedom; `None` (designs saved before) tests at the normal-theory levels.
    pub(crate) unit: Option<Blocking>,
    /// Per look: the two-sided level of significance and the one-sided level of verdicts.
    levels: Vec<[f64; 2]>,
}

/// A design as files hold it; files without `spending` spent α by the union bound.
#[derive(Serialize, Deserialize)]
struct SavedDesign {
    rounds: Vec<u32>,
    alpha: f64,
    #[serde(default)]
    spending: Spending,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    unit: Option<Blocking>,
}

impl From<SavedDesign> for Design {
    fn from(saved: SavedDesign) -> Design {
        Design::with(saved.rounds, saved.alpha, saved.spending, saved.unit)
    }
}

impl From<Design> for SavedDesign {
    fn from(design: Design) -> SavedDesign {
        SavedDesign {
            rounds: design.rounds,
            alpha: design.alpha,
            spending: design.spending,
            unit: design.unit,
        }
    }
}

/// How a design spends α over its looks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Spending {
    /// α·t³ at each look, each tested at its own share (union bound; conservative).
    #[default]
    CubicUnionBound,
    /// Lan–DeMets O'Brien–Fleming type, on the joint distribution of the looks.
    ObrienFleming,
}

/// The share of α spent when a fraction `t` of the rounds is done, union-bound rule.
fn cubic_spent(alpha: f64, t: f64) -> f64 {
    alpha * t.clamp(0.0, 1.0).powi(3)
}

impl Design {
    /// Up to `looks` looks over `max_rounds` rounds per side, each at a whole number of
    /// round pairs (so that every side has as many rounds as the other), the first at 2
    /// or more rounds per side; with the `unit` of the analysis, on the t scale.
    pub(crate) fn new(max_rounds: u32, looks: u32, alpha: f64, unit: Option<Blocking>) -> Design {
        let pairs = (max_rounds / 2).max(1);
        let looks = looks.clamp(1, pairs);
        let mut rounds: Vec<u32> = (1..=looks)
            .map(|k| 2 * (k * pairs).div_ceil(looks))
            .collect();
        rounds.dedup();
        Design::with(rounds, alpha, Spending::ObrienFleming, unit)
    }

    /// The design of these looks, with its levels. Looks that are not increasing or an
    /// α outside (0, 0.5) get no levels: plan validation refuses them.
    pub(crate) fn with(
        rounds: Vec<u32>,
        alpha: f64,
        spending: Spending,
        unit: Option<Blocking>,
    ) -> Design {
        let mut design = Design {
            rounds,
            alpha,
            spending,
            unit,
            levels: Vec::new(),
        };
        let valid = !design.rounds.is_empty()
            && design.rounds.windows(2).all(|w| w[0] < w[1])
            && design.rounds[0] > 0
            && alpha > 0.0
            && alpha < 0.5;
        if valid {
            design.levels = design.compute_levels();
        }
        design
    }

    /// The information fraction of every look: its rounds over the last look's.
    fn fractions(&self) -> Vec<f64> {
        let total = f64::from(*self.rounds.last().unwrap_or(&1));
        self.rounds.iter().map(|&n| f64::from(n) / total).collect()
    }

    /// The nominal two-sided level of look `k` (from 0): significance at the look is a
    /// p-value below it, and its (1 − level) interval is the repeated confidence interval.
    pub(crate) fn alpha_at(&self, k: usize) -> f64 {
        self.levels.get(k).map_or(self.alpha, |l| l[0])
    }

    /// The nominal one-sided level of look `k` for a verdict against a tolerance: the
    /// verdict reads the (1 − 2·level) interval.
    pub(crate) fn verdict_alpha_at(&self, k: usize) -> f64 {
        self.levels.get(k).map_or(self.alpha, |l| l[1])
    }

    fn compute_levels(&self) -> Vec<[f64; 2]> {
        let fractions = self.fractions();
        match self.spending {
            Spending::CubicUnionBound => {
                let mut before = 0.0;
                fractions
                    .iter()
                    .map(|&t| {
                        let level = cubic_spent(self.alpha, t) - before;
                        before = cubic_spent(self.alpha, t);
                        [level, level]
                    })
                    .collect()
            }
            Spending::ObrienFleming => {
                let units: Option<Vec<u32>> = self
                    .unit
                    .map(|unit| self.rounds.iter().map(|&r| units_at(r, unit)).collect());
                if let Some(levels) =
                    units.and_then(|units| super::t_looks::t_levels(&units, &fractions, self.alpha))
                {
                    return levels;
                }
                let tail = |c: f64| Normal::standard().cdf(-c);
                let two = obrien_fleming_boundaries(&fractions, self.alpha, Tails::Two);
                let one = obrien_fleming_boundaries(&fractions, self.alpha, Tails::One);
                two.iter()
                    .zip(&one)
                    .map(|(c2, c1)| {
                        [
                            (2.0 * tail(*c2)).max(SMALLEST_LEVEL),
                            tail(*c1).max(SMALLEST_LEVEL),
                        ]
                    })
                    .collect()
            }
        }
    }

    /// The look that `rounds_per_side` completed rounds reach, if one.
    pub(crate) fn look_at(&self, rounds_per_side: u32) -> Option<usize> {
        self.rounds.iter().position(|&n| n == rounds_per_side)
    }
}

/// The units a look's t statistic is computed over, `rounds` per side: ABBA blocks (at
/// least two: a look with one is compared on rounds, and spends next to nothing), adjacent
/// pairs, or for independent rounds the 2n − 1 units of a t on 2n − 2 degrees of freedom.
fn units_at(rounds: u32, unit: Blocking) -> u32 {
    match unit {
        Blocking::Blocks => (rounds / 2).max(2),
        Blocking::Pairs => rounds.max(2),
        Blocking::Rounds => (2 * rounds).saturating_sub(1).max(2),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn looks_fall_on_pairs_and_spend_exactly_alpha_under_the_old_rule() {
        let design = Design::with(
            vec![4, 8, 12, 16, 20],
            0.05,
            Spending::CubicUnionBound,
            None,
        );
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
        assert_eq!(Design::new(6, 5, 0.05, None).rounds, [2, 4, 6]);
        assert_eq!(Design::new(7, 2, 0.05, None).rounds, [4, 6]);
        assert_eq!(Design::new(2, 5, 0.05, None).rounds, [2]);
        assert!((Design::new(2, 5, 0.05, None).alpha_at(0) - 0.05).abs() < 1e-9);
        assert!((Design::new(2, 5, 0.05, None).verdict_alpha_at(0) - 0.05).abs() < 1e-9);
    }

    #[test]
    fn exact_boundaries_keep_most_of_alpha_for_the_last_look() {
        let design = Design::new(20, 5, 0.05, None);
        // z = 4.877, 3.357, 2.680, 2.290, 2.031: the last look tests at 0.042, where
        // the union bound tested at 0.024.
        let levels: Vec<f64> = (0..5).map(|k| design.alpha_at(k)).collect();
        assert!((levels[0] - 1.08e-6).abs() < 0.02e-6, "{levels:?}");
        assert!((levels[4] - 0.04226).abs() < 1e-4, "{levels:?}");
        let verdict = design.verdict_alpha_at(4);
        assert!((verdict - 0.04095).abs() < 1e-4, "{verdict}");
        // An old file's design keeps the rule it ran with.
        let old: Design = serde_json::from_str(r#"{"rounds":[4,8],"alpha":0.05}"#).unwrap();
        assert_eq!(old.spending, Spending::CubicUnionBound);
        assert!((old.alpha_at(1) - 0.05 * (1.0 - 0.125)).abs() < 1e-15);
    }
}
