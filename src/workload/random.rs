//! Random values for the workload, generated like sysbench's `sb_rand_*` functions and
//! `sysbench.rand.string`. Each worker owns its generator, seeded from the run's seed, so
//! a run is reproducible and no generator is shared on the hot path.
//!
//! The distributions follow sysbench 1.0.20 (`uniform`, `gaussian`, `special`,
//! `pareto`) and sysbench 1.1 (`zipfian`, by rejection-inversion). abtest defaults to
//! uniform: sysbench 1.0's default, `special`, concentrates most accesses on a few rows
//! in a way its own maintainer calls unscientific.

use std::sync::atomic::{AtomicU32, Ordering};

use crate::named::{Named, from_names};
use rand::{Rng, SeedableRng, rngs::SmallRng};
use serde::{Deserialize, Serialize};

/// sysbench's template for the `c` column: 10 groups of 11 digits, 119 characters.
pub(crate) const C_TEMPLATE: &str = "###########-###########-###########-###########-###########-###########-###########-###########-###########-###########";
/// sysbench's template for the `pad` column: 5 groups of 11 digits, 59 characters.
pub(crate) const PAD_TEMPLATE: &str = "###########-###########-###########-###########-###########";

/// The distribution of row ids (`--rand-type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum RandType {
    /// Every row equally likely (abtest's default).
    Uniform,
    /// Sum of `rand_spec_iter` uniforms: bell-shaped around the middle.
    Gaussian,
    /// sysbench 1.0's default: mostly gaussian, `rand_spec_res` % of draws uniform over
    /// the middle `rand_spec_pct` % of the range.
    Special,
    /// Pareto with parameter `rand_pareto_h`.
    Pareto,
    /// Zipf with exponent `rand_zipfian_exp`.
    Zipfian,
}

impl Named for RandType {
    const NAMES: &'static [(RandType, &'static str, &'static str)] = &[
        (
            RandType::Uniform,
            "uniform",
            "Every row equally likely (abtest's default)",
        ),
        (
            RandType::Gaussian,
            "gaussian",
            "Sum of `rand_spec_iter` uniforms: bell-shaped around the middle",
        ),
        (
            RandType::Special,
            "special",
            "sysbench 1.0's default: mostly gaussian, `rand_spec_res` % of draws uniform over the middle `rand_spec_pct` % of the range",
        ),
        (
            RandType::Pareto,
            "pareto",
            "Pareto with parameter `rand_pareto_h`",
        ),
        (
            RandType::Zipfian,
            "zipfian",
            "Zipf with exponent `rand_zipfian_exp`",
        ),
    ];
}
from_names!(RandType);

/// A distribution with its parameters, as sysbench's `--rand-*` options.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub(crate) struct RandSpec {
    /// Which distribution.
    pub(crate) kind: RandType,
    /// `--rand-spec-iter` (gaussian and special).
    pub(crate) spec_iter: u32,
    /// `--rand-spec-pct` (special).
    pub(crate) spec_pct: u32,
    /// `--rand-spec-res` (special).
    pub(crate) spec_res: u32,
    /// `--rand-pareto-h`.
    pub(crate) pareto_h: f64,
    /// `--rand-zipfian-exp`.
    pub(crate) zipfian_exp: f64,
}

impl Default for RandSpec {
    fn default() -> Self {
        RandSpec {
            kind: RandType::Uniform,
            spec_iter: 12,
            spec_pct: 1,
            spec_res: 75,
            pareto_h: 0.2,
            zipfian_exp: 0.8,
        }
    }
}

impl RandSpec {
    /// Checks the parameters; the message names the flag.
    pub(crate) fn validate(&self) -> Result<(), String> {
        if self.spec_iter == 0 {
            return Err("--rand-spec-iter must be at least 1".into());
        }
        if self.spec_pct > 100 || self.spec_res >= 100 {
            return Err("--rand-spec-pct must be 0..=100 and --rand-spec-res 0..=99".into());
        }
        if !(self.pareto_h > 0.0 && self.pareto_h < 1.0) {
            return Err("--rand-pareto-h must lie strictly between 0 and 1".into());
        }
        if !(self.zipfian_exp >= 0.0 && self.zipfian_exp.is_finite()) {
            return Err("--rand-zipfian-exp must be >= 0".into());
        }
        Ok(())
    }
}

/// Constants of the Zipf rejection-inversion sampler for one exponent.
#[derive(Debug, Clone, Copy)]
struct Zipf {
    exponent: f64,
    s: f64,
    h_integral_x1: f64,
}

impl Zipf {
    fn new(exponent: f64) -> Zipf {
        let h2 = h(2.0, exponent);
        Zipf {
            exponent,
            s: 2.0 - h_integral_inverse(h_integral(2.5, exponent) - h2, exponent),
            h_integral_x1: h_integral(1.5, exponent) - 1.0,
        }
    }

    /// A value in [1, n].
    fn sample(&self, n: u32, rng: &mut SmallRng) -> u32 {
        let e = self.exponent;
        let h_n = h_integral(f64::from(n) + 0.5, e);
        loop {
            let u = h_n + rng.random::<f64>() * (self.h_integral_x1 - h_n);
            let x = h_integral_inverse(u, e);
            let k = ((x + 0.5) as u32).clamp(1, n);
            let kf = f64::from(k);
            if kf - x <= self.s || u >= h_integral(kf + 0.5, e) - h(kf, e) {
                return k;
            }
        }
    }
}

/// H(x) = ((x)^(1−e) − 1)/(1 − e), with the limit ln(x) at e = 1.
fn h_integral(x: f64, e: f64) -> f64 {
    let log_x = x.ln();
    expm1_over_x((1.0 - e) * log_x) * log_x
}

/// h(x) = x^(−e).
fn h(x: f64, e: f64) -> f64 {
    (-e * x.ln()).exp()
}

fn h_integral_inverse(x: f64, e: f64) -> f64 {
    let t = (x * (1.0 - e)).max(-1.0);
    (log1p_over_x(t) * x).exp()
}

/// ln(1 + x)/x, accurate near 0.
fn log1p_over_x(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.ln_1p() / x
    } else {
        1.0 - x * (0.5 - x / 3.0)
    }
}

/// (eˣ − 1)/x, accurate near 0.
fn expm1_over_x(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.exp_m1() / x
    } else {
        1.0 + x * 0.5 * (1.0 + x / 3.0)
    }
}

/// A worker's random source.
#[derive(Debug, Clone)]
pub(crate) struct WorkloadRng {
    rng: SmallRng,
    spec: RandSpec,
    zipf: Option<Zipf>,
}

impl WorkloadRng {
    /// A uniform generator whose sequence depends only on `seed`.
    #[cfg(test)]
    pub(crate) fn seeded(seed: u64) -> Self {
        Self::with_spec(seed, RandSpec::default())
    }

    /// A generator drawing row ids from `spec`.
    pub(crate) fn with_spec(seed: u64, spec: RandSpec) -> Self {
        WorkloadRng {
            rng: SmallRng::seed_from_u64(seed),
            zipf: (spec.kind == RandType::Zipfian).then(|| Zipf::new(spec.zipfian_exp)),
            spec,
        }
    }

    /// Uniform integer in `[low, high]`, as `sb_rand_uniform`.
    pub(crate) fn uniform(&mut self, low: u32, high: u32) -> u32 {
        self.rng.random_range(low..=high)
    }

    /// A uniform signed integer in `[low, high]`.
    pub(crate) fn int_in(&mut self, low: i64, high: i64) -> i64 {
        self.rng.random_range(low..=high)
    }

    /// An integer in `[low, high]` from the configured distribution (`sb_rand_default`).
    pub(crate) fn default_in(&mut self, low: u32, high: u32) -> u32 {
        let spec = self.spec;
        let value = match spec.kind {
            RandType::Uniform => return self.uniform(low, high),
            RandType::Gaussian => {
                let t = f64::from(high - low) + 1.0;
                let sum: f64 = (0..spec.spec_iter)
                    .map(|_| self.rng.random::<f64>() * t)
                    .sum();
                f64::from(low) + (sum / f64::from(spec.spec_iter)).trunc()
            }
            RandType::Special => self.special(low, high),
            RandType::Pareto => {
                let power = spec.pareto_h.ln() / (1.0 - spec.pareto_h).ln();
                let t = f64::from(high - low) + 1.0;
                f64::from(low) + (t * self.rng.random::<f64>().powf(power)).trunc()
            }
            RandType::Zipfian => {
                let zipf = self.zipf.expect("zipf constants exist for zipfian");
                return low + zipf.sample(high - low + 1, &mut self.rng) - 1;
            }
        };
        (value as u32).clamp(low, high)
    }

    fn special(&mut self, low: u32, high: u32) -> f64 {
        let spec = self.spec;
        let t = f64::from(high - low);
        let range_size = t * 100.0 / (100.0 - f64::from(spec.spec_res));
        let rnd: f64 = self.rng.random();
        if rnd * range_size < t {
            let sum: f64 = (0..spec.spec_iter).map(|_| self.rng.random::<f64>()).sum();
            return f64::from(low) + sum * t / f64::from(spec.spec_iter);
        }
        let d = t * f64::from(spec.spec_pct) / 100.0;
        let res = rnd * (d + 1.0) + t / 2.0 - t * f64::from(spec.spec_pct) / 200.0;
        f64::from(low) + res.trunc()
    }

    /// A row id in `[1, table_size]` from the configured distribution.
    pub(crate) fn row_id(&mut self, table_size: u32) -> u32 {
        self.default_in(1, table_size)
    }

    /// Appends `template` to `out` with every `#` replaced by a random digit and every
    /// `@` by a random lower-case letter, as `sysbench.rand.string`.
    pub(crate) fn fill_template(&mut self, template: &str, out: &mut String) {
        out.extend(template.chars().map(|ch| match ch {
            '#' => char::from(b'0' + self.rng.random_range(0..10u8)),
            '@' => char::from(b'a' + self.rng.random_range(0..26u8)),
            other => other,
        }));
    }

    /// A fresh string of `template` with random digits and letters.
    pub(crate) fn template_string(&mut self, template: &str) -> String {
        let mut out = String::with_capacity(template.len());
        self.fill_template(template, &mut out);
        out
    }
}

/// A sequence of distinct 32-bit values shared by all workers of a run, as
/// `sysbench.rand.unique()` (a quadratic-residue permutation of a counter).
#[derive(Debug)]
pub(crate) struct UniqueSequence {
    index: AtomicU32,
    offset: u32,
}

impl UniqueSequence {
    /// A sequence seeded from `seed`.
    pub(crate) fn new(seed: u64) -> UniqueSequence {
        UniqueSequence {
            index: AtomicU32::new(permute(permute(seed as u32).wrapping_add(0x682f_0161))),
            offset: permute(permute((seed >> 32) as u32).wrapping_add(0x4679_0905)),
        }
    }

    /// The sequence of `seed` from its `skip`-th value on: processes that share a seed
    /// and skip to disjoint ranges never draw the same value.
    pub(crate) fn skipping(seed: u64, skip: u32) -> UniqueSequence {
        let sequence = UniqueSequence::new(seed);
        sequence.index.fetch_add(skip, Ordering::Relaxed);
        sequence
    }

    /// The next value; never repeats within 2³² draws.
    pub(crate) fn next(&self) -> u32 {
        let index = self.index.fetch_add(1, Ordering::Relaxed);
        permute(permute(index).wrapping_add(self.offset) ^ 0x5bf0_3635)
    }
}

fn permute(x: u32) -> u32 {
    const PRIME: u32 = 4_294_967_291;
    if x >= PRIME {
        return x;
    }
    let residue = ((u64::from(x) * u64::from(x)) % u64::from(PRIME)) as u32;
    if x <= PRIME / 2 {
        residue
    } else {
        PRIME - residue
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_have_sysbench_lengths_and_shape() {
        let mut rng = WorkloadRng::seeded(7);
        let c = rng.template_string(C_TEMPLATE);
        assert_eq!(c.len(), 119);
        assert_eq!(c.split('-').count(), 10);
        assert!(
            c.split('-')
                .all(|g| g.len() == 11 && g.bytes().all(|b| b.is_ascii_digit()))
        );
        assert_eq!(rng.template_string(PAD_TEMPLATE).len(), 59);
        assert!(
            rng.template_string("@@@")
                .bytes()
                .all(|b| b.is_ascii_lowercase())
        );
    }

    #[test]
    fn same_seed_same_sequence() {
        let mut a = WorkloadRng::seeded(1);
        let mut b = WorkloadRng::seeded(1);
        let xs: Vec<u32> = (0..100).map(|_| a.row_id(1000)).collect();
        let ys: Vec<u32> = (0..100).map(|_| b.row_id(1000)).collect();
        assert_eq!(xs, ys);
        assert!(xs.iter().all(|&x| (1..=1000).contains(&x)));
    }

    fn histogram(kind: RandType, draws: usize) -> Vec<usize> {
        let spec = RandSpec {
            kind,
            ..RandSpec::default()
        };
        let mut rng = WorkloadRng::with_spec(11, spec);
        let mut counts = vec![0; 100];
        for _ in 0..draws {
            let v = rng.row_id(100);
            assert!((1..=100).contains(&v), "{kind:?} gave {v}");
            counts[v as usize - 1] += 1;
        }
        counts
    }

    /// Mean and standard deviation of the ids 1..=100 counted in `counts`.
    fn moments(counts: &[usize]) -> (f64, f64) {
        let n = counts.iter().sum::<usize>() as f64;
        let values = || {
            counts
                .iter()
                .enumerate()
                .map(|(i, &c)| ((i + 1) as f64, c as f64))
        };
        let mean = values().map(|(v, c)| v * c).sum::<f64>() / n;
        let variance = values().map(|(v, c)| c * (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
        (mean, variance.sqrt())
    }

    #[test]
    fn distributions_have_their_shapes() {
        let n = 200_000;
        let uniform = histogram(RandType::Uniform, n);
        assert!(uniform.iter().all(|&c| c > n / 100 * 8 / 10));
        // Gaussian: 1 + ⌊mean of 12 uniforms on [0, 100)⌋ has mean 50.5 (the floor takes
        // 0.5) and sd √(100²/144 + 1/12) ≈ 8.34; both within 5 standard errors.
        let gaussian = histogram(RandType::Gaussian, n);
        let (mean, sd) = moments(&gaussian);
        let expected_sd = (100f64.powi(2) / 144.0 + 1.0 / 12.0).sqrt();
        let draws = n as f64;
        assert!(
            (mean - 50.5).abs() < 5.0 * expected_sd / draws.sqrt(),
            "{mean}"
        );
        assert!(
            (sd - expected_sd).abs() < 5.0 * expected_sd / (2.0 * draws).sqrt(),
            "{sd}"
        );
        let special = histogram(RandType::Special, n);
        // 75 % of draws land on the middle 1 % of the range (ids 50 and 51).
        assert!(
            (special[49] + special[50]) as f64 > 0.70 * n as f64,
            "{:?}",
            &special[45..55]
        );
        // Pareto with h = 0.2: 1 + ⌊100·U^p⌋, p = ln 0.2 / ln 0.8. P(1) = 0.01^(1/p) and
        // E = 1 + Σₖ (1 − (k/100)^(1/p)), each checked within 5 standard errors.
        let pareto = histogram(RandType::Pareto, n);
        let power = 0.2f64.ln() / 0.8f64.ln();
        let p_first = 0.01f64.powf(1.0 / power);
        let share_first = pareto[0] as f64 / draws;
        assert!(
            (share_first - p_first).abs() < 5.0 * (p_first * (1.0 - p_first) / draws).sqrt(),
            "{share_first} vs {p_first}"
        );
        let expected_mean = 1.0
            + (1..100)
                .map(|k| 1.0 - (f64::from(k) / 100.0).powf(1.0 / power))
                .sum::<f64>();
        let (mean, sd) = moments(&pareto);
        assert!(
            (mean - expected_mean).abs() < 5.0 * sd / draws.sqrt(),
            "{mean} vs {expected_mean}"
        );
        let zipf = histogram(RandType::Zipfian, n);
        // P(1)/P(2) = 2^0.8 ≈ 1.74 for a Zipf exponent of 0.8.
        let ratio = zipf[0] as f64 / zipf[1] as f64;
        assert!((ratio - 2f64.powf(0.8)).abs() < 0.1, "{ratio}");
    }

    #[test]
    fn unique_sequence_does_not_repeat() {
        let seq = UniqueSequence::new(5);
        let mut seen: Vec<u32> = (0..10_000).map(|_| seq.next()).collect();
        let later = UniqueSequence::skipping(5, 1 << 31);
        seen.extend((0..10_000).map(|_| later.next()));
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), 20_000);
    }
}
