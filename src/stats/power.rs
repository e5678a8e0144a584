//! Power: how small a change the run could have seen, and how many rounds a decision
//! needs. The normal approximation with power 1 − β,
//! MDE ≈ (z + z₁₋β)·c·√(2/n) and n ≈ 2((z + z₁₋β)·c/δ)², where z is z₁₋α/₂ for a
//! significance test (two-sided) and z₁₋α for a verdict (one-sided at α: it asks whether
//! the interval clears one tolerance boundary, δ away), is only the starting point: at
//! the small n a run has, the test is a t-test, and the normal formula over-promises
//! (2 rounds for a true power of 0.33). So n is raised until the power of the t-test —
//! the noncentral t with n − 1 degrees of freedom (Welch's smallest) and noncentrality
//! δ/(c·√(2/n)) —
//! reaches the target, and the MDE is the effect at which it does.

use serde::{Deserialize, Serialize};
use statrs::distribution::{ChiSquared, Continuous, ContinuousCDF, Normal};

/// Power figures of one comparison.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub(crate) struct Power {
    /// Observed coefficient of variation (root mean square of both sides' CVs).
    pub(crate) cv: f64,
    /// Minimum detectable effect at the run's n, as a fraction.
    pub(crate) mde: f64,
    /// Rounds per side needed to decide, when a target effect is known.
    pub(crate) rounds_needed: Option<u32>,
    /// When the change is estimated block by block: the SD of the blocks' log ratios,
    /// which the MDE and the rounds needed come from (the design's own noise, with the
    /// drift the blocks cancel left out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) block_sd: Option<f64>,
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
    normal.inverse_cdf(1.0 - one_tail(alpha, test)) + normal.inverse_cdf(power)
}

/// The level of the tail a test rejects in: α/2 two-sided, α one-sided.
fn one_tail(alpha: f64, test: Test) -> f64 {
    match test {
        Test::Significance => alpha / 2.0,
        Test::Verdict => alpha,
    }
}

/// P(T > t) for T noncentral-t distributed with `df` (≥ 1) degrees of freedom and
/// noncentrality `nc`: T = (Z + nc)/(W/√df) with W = √V, V ~ χ²(df), so
/// P(T > t) = E[Φ(nc − t·W/√df)], integrated over W's density 2w·f_χ²(w²) (finite at 0
/// also for df = 1) by Simpson's rule; checked against scipy.stats.nct.
pub(crate) fn noncentral_t_sf(t: f64, df: f64, nc: f64) -> f64 {
    let chi = ChiSquared::new(df).expect("degrees of freedom are positive");
    let normal = Normal::standard();
    // W's mass lies within a few units of √df whatever df is (its SD is below 0.71).
    let centre = df.sqrt();
    let (from, to) = ((centre - 9.0).max(0.0), centre + 9.0);
    // Φ's argument moves by one for every √df/|t| of w: keep 40 steps within each.
    let resolution = (to - from) * t.abs().max(1.0) / df.sqrt();
    let steps = ((40.0 * resolution).ceil() as u32).clamp(480, 20_000) & !1;
    let h = (to - from) / f64::from(steps);
    let f = |w: f64| {
        let w = w.max(1e-12);
        let density = (std::f64::consts::LN_2 + w.ln() + chi.ln_pdf(w * w)).exp();
        density * normal.cdf(nc - t * w / df.sqrt())
    };
    let mut sum = f(from) + f(to);
    for i in 1..steps {
        let weight = if i % 2 == 1 { 4.0 } else { 2.0 };
        sum += weight * f(from + h * f64::from(i));
    }
    (sum * h / 3.0).clamp(0.0, 1.0)
}

/// The power of the t-test with `n` rounds per side at CV `cv` against a true `effect`
/// (fraction): one-sided at α for a verdict, two-sided for significance. The verdict's
/// interval takes Welch's degrees of freedom, which lie between n − 1 and 2(n − 1) and
/// at small n are nearer the first (the sides' variance estimates differ by chance):
/// the plan takes n − 1, so that it keeps its power in the verdict's own test.
pub(crate) fn t_power(cv: f64, n: u32, effect: f64, alpha: f64, test: Test) -> f64 {
    let df = (f64::from(n) - 1.0).max(1.0);
    let nc = effect / (cv * (2.0 / f64::from(n)).sqrt());
    let critical = super::t_critical(2.0 * one_tail(alpha, test), df);
    match test {
        Test::Verdict => noncentral_t_sf(critical, df, nc),
        Test::Significance => {
            noncentral_t_sf(critical, df, nc) + noncentral_t_sf(critical, df, -nc)
        }
    }
}

/// (t₁₋α,ν + t₁₋β,ν) for `n` rounds per side, ν = n − 1: the t-test's counterpart of
/// the normal z sum.
fn t_sum(n: u32, alpha: f64, power: f64, test: Test) -> f64 {
    let df = (f64::from(n) - 1.0).max(1.0);
    // t_critical(2p, ν) is the one-sided 1 − p quantile.
    super::t_critical(2.0 * one_tail(alpha, test), df) + super::t_critical(2.0 * (1.0 - power), df)
}

/// Minimum detectable effect (fraction) for CV `cv` and `n` rounds per side with the
/// t-test: (t₁₋α,ν + t₁₋β,ν)·c·√(2/n).
pub(crate) fn minimum_detectable_effect(
    cv: f64,
    n: usize,
    alpha: f64,
    power: f64,
    test: Test,
) -> f64 {
    let n = n.clamp(2, u32::MAX as usize) as u32;
    t_sum(n, alpha, power, test) * cv * (2.0 / f64::from(n)).sqrt()
}

/// Rounds per side at which the t-test detects `effect` (fraction) at CV `cv` with
/// `power`; at least 2. Starts from the normal formula, a lower bound, and counts up
/// until n ≥ 2(t-sum·c/δ)².
pub(crate) fn rounds_needed(
    cv: f64,
    effect: f64,
    alpha: f64,
    power: f64,
    test: Test,
) -> Option<u32> {
    if effect <= 0.0 || !effect.is_finite() || !cv.is_finite() {
        return None;
    }
    let normal = 2.0 * (z_sum(alpha, power, test) * cv / effect).powi(2);
    if !normal.is_finite() || normal > 1e7 {
        return None;
    }
    let mut n = (normal.ceil() as u32).max(2);
    let needs = |n: u32| 2.0 * (t_sum(n, alpha, power, test) * cv / effect).powi(2);
    while f64::from(n) < needs(n) {
        n += 1;
    }
    Some(n)
}

/// The one-sided `confidence` upper bound of a CV estimated with `df` degrees of
/// freedom: c·√(df/χ²₁₋confidence(df)), as for a standard deviation.
pub(crate) fn cv_upper_bound(cv: f64, df: f64, confidence: f64) -> f64 {
    let chi = ChiSquared::new(df).expect("degrees of freedom are positive");
    cv * (df / chi.inverse_cdf(1.0 - confidence)).sqrt()
}

/// The power a plan made from an estimated CV has on average, when the CV the pilot
/// saw (with `df` degrees of freedom) is the truth: the estimate varies as
/// c·√(χ²(df)/df), each draw plans its own rounds, and each plan's power is taken at the
/// true CV. Averaged over 200 quantiles of χ²(df).
pub(crate) fn expected_power(
    cv: f64,
    df: f64,
    effect: f64,
    alpha: f64,
    power: f64,
    test: Test,
) -> Option<f64> {
    let chi = ChiSquared::new(df).ok()?;
    let draws = 200;
    let mut sum = 0.0;
    for i in 0..draws {
        let u = (f64::from(i) + 0.5) / f64::from(draws);
        let estimate = cv * (chi.inverse_cdf(u) / df).sqrt();
        let n = rounds_needed(estimate, effect, alpha, power, test)?;
        sum += t_power(cv, n, effect, alpha, test);
    }
    Some(sum / f64::from(draws))
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
        block_sd: None,
    }
}

/// Power figures of an estimate made over `blocks` blocks of `size` rounds per side
/// whose log ratios vary by `sd_log`: the t-test over blocks (B − 1 degrees of freedom)
/// with the standard error s_d/√B, i.e. the rounds' formula with c = s_d/√2 and n = B.
/// `cv` is the rounds' CV, kept for the record.
pub(crate) fn block_power(
    cv: f64,
    sd_log: f64,
    (blocks, size): (usize, u32),
    target: Option<(f64, Test)>,
    alpha: f64,
) -> Power {
    let per_block = sd_log / std::f64::consts::SQRT_2;
    Power {
        cv,
        mde: minimum_detectable_effect(per_block, blocks, alpha, 0.8, Test::Significance),
        rounds_needed: target
            .and_then(|(e, test)| rounds_needed(per_block, e, alpha, 0.8, test))
            .map(|b| b * size),
        block_sd: Some(sd_log),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn textbook_values() {
        // Normal: 2·((1.959964 + 0.841621)·0.03/0.02)² = 35.3; the t-test needs 38.
        // (The exact power, from the noncentral t, agrees: tests/reference.)
        let two_sided = Test::Significance;
        assert_eq!(rounds_needed(0.03, 0.02, 0.05, 0.8, two_sided), Some(38));
        assert_eq!(rounds_needed(0.03, 0.0, 0.05, 0.8, two_sided), None);
        // One-sided, as the verdict: normal 27.8, t-test 30.
        assert_eq!(
            rounds_needed(0.03, 0.02, 0.05, 0.8, Test::Verdict),
            Some(30)
        );
        // The normal formula's 2 rounds for CV 2 %, effect 5 % have a power of 0.30.
        let power = t_power(0.02, 2, 0.05, 0.05, Test::Verdict);
        assert!((0.28..0.33).contains(&power), "{power}");
        assert!(rounds_needed(0.02, 0.05, 0.05, 0.8, Test::Verdict).unwrap() >= 4);
    }

    /// The planned rounds reach the power in a simulation of the verdict's own test
    /// (Welch, one-sided at α), and one round fewer falls short of the planned power.
    #[test]
    fn planned_rounds_reach_the_power_in_simulation() {
        use rand::{Rng, SeedableRng, rngs::SmallRng};
        let mut rng = SmallRng::seed_from_u64(7);
        let mut normal = |mean: f64, sd: f64| {
            let (u1, u2): (f64, f64) = (rng.random_range(f64::EPSILON..1.0), rng.random());
            mean + sd * (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
        };
        let mut simulate = |n: u32, cv: f64, effect: f64| {
            let runs = 20_000;
            let mut rejected = 0;
            for _ in 0..runs {
                let x: Vec<f64> = (0..n).map(|_| normal(1.0, cv)).collect();
                let y: Vec<f64> = (0..n).map(|_| normal(1.0 + effect, cv)).collect();
                let (sx, sy) = (
                    crate::stats::summary::Summary::of(&x),
                    crate::stats::summary::Summary::of(&y),
                );
                let test = crate::stats::welch::welch(&sx, &sy, 0.10);
                if test.ci[0] > 0.0 {
                    rejected += 1;
                }
            }
            f64::from(rejected) / f64::from(runs)
        };
        for (cv, effect) in [(0.02, 0.05), (0.05, 0.10), (0.10, 0.05)] {
            let n = rounds_needed(cv, effect, 0.05, 0.8, Test::Verdict).unwrap();
            let planned = simulate(n, cv, effect);
            assert!(
                planned >= 0.78,
                "cv {cv} effect {effect}: {n} rounds give {planned}"
            );
            let fewer = simulate(n - 1, cv, effect);
            assert!(
                fewer < 0.81,
                "cv {cv} effect {effect}: {} rounds already give {fewer}",
                n - 1
            );
        }
    }
}
