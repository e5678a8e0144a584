//! Power: how small a change the run could have seen, and how many rounds a decision
//! needs. Normal approximation with power 1 − β:
//! MDE ≈ (z + z₁₋β)·c·√(2/n) and n ≈ 2((z + z₁₋β)·c/δ)², where z is z₁₋α/₂ for a
//! significance test (two-sided) and z₁₋α for a verdict, which is one-sided at α: it
//! asks whether the interval clears one tolerance boundary, δ away.

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, Normal};

/// Power figures of one comparison.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub(crate) struct Power {
    /// Observed coefficient of variation (root mean square of both sides' CVs).
    pub(crate) cv: f64,
    /// Minimum detectable effect at the run's n, as a fraction.
    pub(crate) mde: f64,
    /// Rounds per side needed to decide, when a target effect is known.
    pub(crate) rounds_needed: Option<u32>,
}

/// What a run is planned for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Test {
    /// Finding a change significant: two-sided at α.
    Significance,
    /// Deciding a tolerance (GO or NO-GO): one-sided at α, as the verdict reads it.
    Verdict,
}

fn z_sum(alpha: f64, power: f64, test: Test) -> f64 {
    let normal = Normal::standard();
    let level = match test {
        Test::Significance => 1.0 - alpha / 2.0,
        Test::Verdict => 1.0 - alpha,
    };
    normal.inverse_cdf(level) + normal.inverse_cdf(power)
}

/// Minimum detectable effect (fraction) for CV `cv` and `n` rounds per side.
pub(crate) fn minimum_detectable_effect(
    cv: f64,
    n: usize,
    alpha: f64,
    power: f64,
    test: Test,
) -> f64 {
    z_sum(alpha, power, test) * cv * (2.0 / n as f64).sqrt()
}

/// Rounds per side needed to detect `effect` (fraction) at CV `cv`; at least 2.
pub(crate) fn rounds_needed(
    cv: f64,
    effect: f64,
    alpha: f64,
    power: f64,
    test: Test,
) -> Option<u32> {
    if effect <= 0.0 || !effect.is_finite() {
        return None;
    }
    let n = 2.0 * (z_sum(alpha, power, test) * cv / effect).powi(2);
    n.is_finite().then(|| (n.ceil() as u32).max(2))
}

/// Power figures for CVs of both sides, n rounds per side, and an optional target
/// effect with the test that will judge it.
pub(crate) fn power(
    cv_baseline: f64,
    cv_variant: f64,
    n: usize,
    target: Option<(f64, Test)>,
    alpha: f64,
) -> Power {
    let cv = ((cv_baseline.powi(2) + cv_variant.powi(2)) / 2.0).sqrt();
    Power {
        cv,
        mde: minimum_detectable_effect(cv, n, alpha, 0.8, Test::Significance),
        rounds_needed: target.and_then(|(e, test)| rounds_needed(cv, e, alpha, 0.8, test)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn textbook_values() {
        // 2·((1.959964 + 0.841621)·0.03/0.02)² = 35.3 → 36 rounds.
        let two_sided = Test::Significance;
        assert_eq!(rounds_needed(0.03, 0.02, 0.05, 0.8, two_sided), Some(36));
        let mde = minimum_detectable_effect(0.03, 10, 0.05, 0.8, two_sided);
        assert!(
            (mde - 2.801585 * 0.03 * (0.2f64).sqrt()).abs() < 1e-5,
            "{mde}"
        );
        assert_eq!(rounds_needed(0.03, 0.0, 0.05, 0.8, two_sided), None);
        // One-sided, as the verdict: 2·((1.644854 + 0.841621)·0.03/0.02)² = 27.8 → 28.
        assert_eq!(
            rounds_needed(0.03, 0.02, 0.05, 0.8, Test::Verdict),
            Some(28)
        );
    }
}
