//! The looks' levels on the t scale. `stats::boundaries` computes exact critical values
//! for normal statistics; a look tests a t statistic on a few blocks, whose tails are
//! heavier and whose values at successive looks share their variance estimate. Testing
//! each t at the normal boundary's nominal level (Jennison & Turnbull's "significance
//! level approach") spends a little more than α: 5.4–5.6 % at 14–20 rounds per side.
//!
//! Under no change (and, for a verdict, at exactly the tolerance) the looks' t
//! statistics are pivotal: their joint law depends on neither the mean nor the variance
//! of the units, only on how many units each look has. So their boundaries are found on
//! a seeded simulation of that law — `PATHS` nested samples of independent normal units
//! — with the same O'Brien–Fleming-type spending as the normal boundaries: c_k is the
//! value that the paths not stopped before cross at look k in exactly the share of α
//! released there. Each c_k is turned back into a nominal level of the look's own t
//! distribution, so the analysis tests as before, at the right level. The seed is
//! fixed, so a design's levels are the same every time they are computed.

use rand::{Rng, SeedableRng, rngs::SmallRng};

use super::boundaries::obrien_fleming_spent;
use super::student;

use statrs::distribution::ContinuousCDF;

/// The smallest nominal level a look tests at: a look that spends less (an early look
/// of a long design) is as good as unable to reject, and its t quantile stays finite.
pub(crate) const SMALLEST_LEVEL: f64 = 1e-12;

/// Simulated paths: the Monte Carlo error of a level of 0.05 is about 0.0005.
const PATHS: usize = 200_000;
/// The simulation's seed.
const SEED: u64 = 0x7_100c_5eed;
/// Units beyond which the t statistic is normal for every purpose here (and the
/// simulation would only cost time): the normal boundaries are used when the first look
/// has more, or the last more than four times as many (early looks spend next to
/// nothing, so the normal levels are then as good).
const NORMAL_ENOUGH: u32 = 400;

/// Per look, the two-sided level of significance and the one-sided level of verdicts for
/// t statistics over `units[k]` units (degrees of freedom `units[k] − 1`), at
/// information `fractions`; `None` when a look has fewer than two units or the first
/// has so many units that the normal boundaries are as good.
pub(crate) fn t_levels(units: &[u32], fractions: &[f64], alpha: f64) -> Option<Vec<[f64; 2]>> {
    let (first, last) = (*units.first()?, *units.last()?);
    if !(2..=NORMAL_ENOUGH).contains(&first)
        || last > 4 * NORMAL_ENOUGH
        || units.windows(2).any(|w| w[0] > w[1])
    {
        return None;
    }
    let mut rng = SmallRng::seed_from_u64(SEED);
    let (mut sum, mut squares) = (vec![0.0f64; PATHS], vec![0.0f64; PATHS]);
    let (mut two_alive, mut one_alive) = (vec![true; PATHS], vec![true; PATHS]);
    let mut drawn = 0;
    let mut spent = [0.0f64; 2];
    let mut levels = Vec::with_capacity(units.len());
    for (&n, &t) in units.iter().zip(fractions) {
        let statistics: Vec<f64> = (0..PATHS)
            .map(|path| {
                for _ in drawn..n {
                    let x = normal(&mut rng);
                    sum[path] += x;
                    squares[path] += x * x;
                }
                t_statistic(sum[path], squares[path], n)
            })
            .collect();
        drawn = n;
        let df = f64::from(n - 1);
        let dist = student(df);
        // Two-sided significance: α/2 on each tail.
        let now = [
            2.0 * obrien_fleming_spent(alpha / 2.0, t),
            obrien_fleming_spent(alpha, t),
        ];
        let two = critical(&statistics, &mut two_alive, now[0] - spent[0], f64::abs);
        let one = critical(&statistics, &mut one_alive, now[1] - spent[1], |s| s);
        spent = now;
        let level = |c: f64, tails: f64| (tails * dist.sf(c)).clamp(SMALLEST_LEVEL, 0.5);
        levels.push([level(two, 2.0), level(one, 1.0)]);
    }
    Some(levels)
}

/// The critical value that the `alive` paths' `score`s exceed in a share `release` of
/// all paths; those paths stop there.
fn critical(
    statistics: &[f64],
    alive: &mut [bool],
    release: f64,
    score: impl Fn(f64) -> f64,
) -> f64 {
    let mut scores: Vec<f64> = statistics
        .iter()
        .zip(alive.iter())
        .filter(|(_, a)| **a)
        .map(|(s, _)| score(*s))
        .collect();
    let crossing = (release * PATHS as f64).round() as usize;
    if crossing == 0 || scores.is_empty() {
        return f64::INFINITY;
    }
    let index = (crossing - 1).min(scores.len() - 1);
    scores.select_nth_unstable_by(index, |a, b| b.total_cmp(a));
    let c = scores[index];
    for (s, a) in statistics.iter().zip(alive.iter_mut()) {
        if *a && score(*s) >= c {
            *a = false;
        }
    }
    c
}

/// The one-sample t statistic of `n` units with this sum and sum of squares.
fn t_statistic(sum: f64, squares: f64, n: u32) -> f64 {
    let n = f64::from(n);
    let mean = sum / n;
    let variance = ((squares - n * mean * mean) / (n - 1.0)).max(f64::MIN_POSITIVE);
    mean / (variance / n).sqrt()
}

/// A standard normal draw (Box–Muller).
fn normal(rng: &mut SmallRng) -> f64 {
    let (u1, u2): (f64, f64) = (rng.random_range(f64::EPSILON..1.0), rng.random());
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_look_is_the_fixed_t_test() {
        // A single look spends all of α: its levels are α itself, up to the simulation.
        let levels = t_levels(&[7], &[1.0], 0.05).unwrap();
        assert!((levels[0][0] - 0.05).abs() < 0.002, "{levels:?}");
        assert!((levels[0][1] - 0.05).abs() < 0.002, "{levels:?}");
    }

    #[test]
    fn few_degrees_of_freedom_test_below_the_normal_levels() {
        // 5 looks over 10 ABBA blocks: 2, 4, 6, 8, 10 blocks.
        let fractions = [0.2, 0.4, 0.6, 0.8, 1.0];
        let t = t_levels(&[2, 4, 6, 8, 10], &fractions, 0.05).unwrap();
        let normal = crate::stats::sequential::Design::new(20, 5, 0.05, None);
        for (k, level) in t.iter().enumerate() {
            println!(
                "look {}: t {:?}, normal {} {}",
                k + 1,
                level,
                normal.alpha_at(k),
                normal.verdict_alpha_at(k)
            );
        }
        assert!(t[4][0] < normal.alpha_at(4) && t[4][1] < normal.verdict_alpha_at(4));
        // Many units: as good as normal.
        assert!(t_levels(&[500, 1000], &[0.5, 1.0], 0.05).is_none());
    }
}
