//! Random values for the workload, generated like sysbench 1.0.20's `sb_rand_*` and
//! `sysbench.rand.string`. Each worker owns its generator, seeded from the run's seed,
//! so a run is reproducible and no generator is shared on the hot path.

use rand::{Rng, SeedableRng, rngs::SmallRng};

/// sysbench's template for the `c` column: 10 groups of 11 digits, 119 characters.
pub const C_TEMPLATE: &str = "###########-###########-###########-###########-###########-###########-###########-###########-###########-###########";
/// sysbench's template for the `pad` column: 5 groups of 11 digits, 59 characters.
pub const PAD_TEMPLATE: &str = "###########-###########-###########-###########-###########";

/// A worker's random source.
#[derive(Debug, Clone)]
pub struct WorkloadRng {
    rng: SmallRng,
}

impl WorkloadRng {
    /// A generator whose sequence depends only on `seed`.
    pub fn seeded(seed: u64) -> Self {
        WorkloadRng {
            rng: SmallRng::seed_from_u64(seed),
        }
    }

    /// Uniform integer in `[low, high]`, as `sb_rand_uniform`.
    pub fn uniform(&mut self, low: u32, high: u32) -> u32 {
        self.rng.random_range(low..=high)
    }

    /// A row id in `[1, table_size]` from the workload's distribution.
    pub fn row_id(&mut self, table_size: u32) -> u32 {
        self.uniform(1, table_size)
    }

    /// Appends `template` to `out` with every `#` replaced by a random digit, as
    /// `sysbench.rand.string`.
    pub fn fill_template(&mut self, template: &str, out: &mut String) {
        out.extend(template.chars().map(|ch| match ch {
            '#' => char::from(b'0' + self.rng.random_range(0..10u8)),
            other => other,
        }));
    }

    /// A fresh string of `template` with random digits.
    pub fn template_string(&mut self, template: &str) -> String {
        let mut out = String::with_capacity(template.len());
        self.fill_template(template, &mut out);
        out
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
}
