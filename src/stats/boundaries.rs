//! Group-sequential boundaries computed on the joint distribution of the looks. The
//! statistic at look k is Z_k = S_k/√I_k, a standardised Brownian motion seen at the
//! information fractions t_k, so its increments are independent normals. The critical
//! value c_k is the one at which the chance of crossing first at look k is exactly the
//! α that the spending function releases there, α(t_k) − α(t_{k−1}) (Lan & DeMets
//! 1983; Jennison & Turnbull 2000, ch. 7), found by recursive numerical integration of
//! the density of the paths that have not crossed yet (Armitage, McPherson & Rowe 1969;
//! ch. 19): Simpson's rule on the continuation region at each look.
//!
//! The spending function is the O'Brien–Fleming type, α(t) = 2(1 − Φ(z₁₋ₐ/₂/√t)) for a
//! one-sided level a: almost nothing is spent early, and the last look of a run that
//! reaches it tests at nearly the fixed design's level (the union bound gave up half of
//! it). A two-sided test at level α spends α/2 on each tail, symmetrically.

use statrs::distribution::{Continuous, ContinuousCDF, Normal};

/// Whether a boundary bounds one tail or both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tails {
    /// Upper only: a one-sided test (a verdict against a tolerance).
    One,
    /// Symmetric upper and lower: a two-sided test (significance).
    Two,
}

/// Simpson intervals over a look's continuation region.
const INTERVALS: usize = 800;
/// Where the continuation region is cut when it is unbounded: Φ(−10) is 8e-24.
const FAR: f64 = 10.0;
/// The largest critical value searched; its tail is below any spending a run makes.
const LARGEST: f64 = 30.0;

/// α(t) of the O'Brien–Fleming-type spending function at one-sided level `a`.
pub(crate) fn obrien_fleming_spent(a: f64, t: f64) -> f64 {
    if t <= 0.0 {
        return 0.0;
    }
    let normal = Normal::standard();
    let z = normal.inverse_cdf(1.0 - a / 2.0);
    2.0 * normal.cdf(-z / t.min(1.0).sqrt())
}

/// Critical values of Z at looks with information `fractions` (increasing, the last 1),
/// such that the first crossing happens at look k with probability α(t_k) − α(t_{k−1})
/// under no change; `alpha` is the total over the tails, so a two-sided test spends
/// `alpha / 2` on each.
pub(crate) fn obrien_fleming_boundaries(fractions: &[f64], alpha: f64, tails: Tails) -> Vec<f64> {
    let per_tail = match tails {
        Tails::One => alpha,
        Tails::Two => alpha / 2.0,
    };
    let tail_count = match tails {
        Tails::One => 1.0,
        Tails::Two => 2.0,
    };
    let mut critical = Vec::with_capacity(fractions.len());
    let mut paths: Option<Paths> = None;
    let mut spent_before = 0.0;
    for &t in fractions {
        let spent = obrien_fleming_spent(per_tail, t);
        let target = tail_count * (spent - spent_before);
        spent_before = spent;
        let crossing = |c: f64| match &paths {
            None => tail_count * Normal::standard().cdf(-c),
            Some(paths) => paths.crossing(c, t, tails),
        };
        let c = solve_decreasing(crossing, target);
        paths = Some(match paths {
            None => Paths::first(t, c, tails),
            Some(paths) => paths.next(t, c, tails),
        });
        critical.push(c);
    }
    critical
}

/// The c in [0, LARGEST] at which the decreasing `f` equals `target`, by bisection.
fn solve_decreasing(f: impl Fn(f64) -> f64, target: f64) -> f64 {
    let (mut lo, mut hi) = (0.0, LARGEST);
    if f(hi) >= target {
        return hi;
    }
    for _ in 0..64 {
        let mid = 0.5 * (lo + hi);
        if f(mid) > target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// The paths that have not crossed by a look: Simpson-weighted density on a grid of Z.
struct Paths {
    /// Information fraction of the look.
    t: f64,
    /// Grid points of Z in the continuation region.
    z: Vec<f64>,
    /// Simpson weight times density at each point.
    mass: Vec<f64>,
}

impl Paths {
    /// The first look: Z is standard normal, cut to the continuation region.
    fn first(t: f64, c: f64, tails: Tails) -> Paths {
        let z = grid(c, tails);
        let weights = simpson_weights(&z);
        let normal = Normal::standard();
        let mass = z
            .iter()
            .zip(&weights)
            .map(|(z, w)| w * normal.pdf(*z))
            .collect();
        Paths { t, z, mass }
    }

    /// Probability of crossing at a look with fraction `t` and critical value `c`.
    fn crossing(&self, c: f64, t: f64, tails: Tails) -> f64 {
        let normal = Normal::standard();
        let (root_t, root_prev, root_step) = (t.sqrt(), self.t.sqrt(), (t - self.t).sqrt());
        self.z
            .iter()
            .zip(&self.mass)
            .map(|(z, mass)| {
                let upper = normal.cdf(-(c * root_t - z * root_prev) / root_step);
                let lower = match tails {
                    Tails::One => 0.0,
                    Tails::Two => normal.cdf((-c * root_t - z * root_prev) / root_step),
                };
                mass * (upper + lower)
            })
            .sum()
    }

    /// The paths that continue past a look with fraction `t` and critical value `c`.
    fn next(&self, t: f64, c: f64, tails: Tails) -> Paths {
        let normal = Normal::standard();
        let (root_t, root_prev, root_step) = (t.sqrt(), self.t.sqrt(), (t - self.t).sqrt());
        let z = grid(c, tails);
        let weights = simpson_weights(&z);
        let mass = z
            .iter()
            .zip(&weights)
            .map(|(zk, w)| {
                let density: f64 = self
                    .z
                    .iter()
                    .zip(&self.mass)
                    .map(|(zj, mass)| mass * normal.pdf((zk * root_t - zj * root_prev) / root_step))
                    .sum();
                w * density * root_t / root_step
            })
            .collect();
        Paths { t, z, mass }
    }
}

/// Evenly spaced points over the continuation region (−c, c) or (−FAR, c).
fn grid(c: f64, tails: Tails) -> Vec<f64> {
    let hi = c.min(FAR);
    let lo = match tails {
        Tails::One => -FAR,
        Tails::Two => -hi,
    };
    let step = (hi - lo) / INTERVALS as f64;
    (0..=INTERVALS).map(|i| lo + step * i as f64).collect()
}

/// Simpson's weights for evenly spaced points (an even number of intervals).
fn simpson_weights(z: &[f64]) -> Vec<f64> {
    let step = z[1] - z[0];
    let last = z.len() - 1;
    (0..z.len())
        .map(|i| {
            let factor = if i == 0 || i == last {
                1.0
            } else if i % 2 == 1 {
                4.0
            } else {
                2.0
            };
            factor * step / 3.0
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_look_is_the_fixed_design() {
        let [c] = obrien_fleming_boundaries(&[1.0], 0.05, Tails::Two)[..] else {
            panic!()
        };
        assert!((c - 1.959_964).abs() < 1e-5, "{c}");
        let [c] = obrien_fleming_boundaries(&[1.0], 0.05, Tails::One)[..] else {
            panic!()
        };
        assert!((c - 1.644_854).abs() < 1e-5, "{c}");
    }

    /// gsDesign (R) `gsDesign(k = 5, test.type = 2, alpha = 0.025, sfu = sfLDOF)$upper$bound`,
    /// as published in its documentation and Jennison & Turnbull's table 2.3 family.
    #[test]
    fn five_equal_looks_match_the_published_boundaries() {
        let fractions = [0.2, 0.4, 0.6, 0.8, 1.0];
        let bounds = obrien_fleming_boundaries(&fractions, 0.05, Tails::Two);
        let published = [4.8769, 3.3569, 2.6803, 2.2898, 2.0310];
        for (got, want) in bounds.iter().zip(published) {
            assert!((got - want).abs() < 2e-4, "{bounds:?}");
        }
    }

    #[derive(serde::Deserialize)]
    struct Case {
        fractions: Vec<f64>,
        alpha: f64,
        two_sided: bool,
        bounds: Vec<f64>,
    }

    /// Against the `gsdesign` package's numerical integration
    /// (tests/reference/make_boundaries.py): equal and unequal looks, one and two tails,
    /// α from 0.01 to 0.10, up to ten looks.
    #[test]
    fn boundaries_match_an_independent_implementation() {
        let cases: Vec<Case> =
            serde_json::from_str(include_str!("../../tests/reference/boundaries_cases.json"))
                .expect("reference file parses");
        assert_eq!(cases.len(), 6);
        for case in cases {
            let tails = if case.two_sided {
                Tails::Two
            } else {
                Tails::One
            };
            let bounds = obrien_fleming_boundaries(&case.fractions, case.alpha, tails);
            for (got, want) in bounds.iter().zip(&case.bounds) {
                assert!(
                    (got - want).abs() < 1e-5,
                    "α {} {:?}: {bounds:?} against {:?}",
                    case.alpha,
                    tails,
                    case.bounds
                );
            }
        }
    }
}
