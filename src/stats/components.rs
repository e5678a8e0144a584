//! Variance components of rounds nested in server instances (`--instances`): the one-way
//! random-effects model y_ij = μ + a_i + e_ij, a_i ~ N(0, σ²_between) for instance i,
//! e_ij ~ N(0, σ²_within) for round j of it, estimated by the ANOVA method of moments
//! (σ²_between truncated at 0). On balanced data with a positive estimate this is what
//! REML gives (statsmodels `mixedlm`, checked in the reference tests). The comparison
//! itself is made on instance means (Welch and Fieller on K means per side), whose
//! variance σ²_between + σ²_within / n holds both components with K − 1 degrees of
//! freedom per side, so an instance effect widens the interval as it should.

use serde::{Deserialize, Serialize};

/// The two components of a side's variance, from its rounds grouped by instance.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub(crate) struct Components {
    /// Instances with at least one round.
    pub(crate) instances: u32,
    /// Rounds in all.
    pub(crate) rounds: u32,
    /// Grand mean of the rounds.
    pub(crate) mean: f64,
    /// σ² between instances (method of moments, at least 0).
    pub(crate) between_var: f64,
    /// σ² between rounds within an instance (the within-group mean square).
    pub(crate) within_var: f64,
}

impl Components {
    /// The components of `groups` (one group of values per instance), or none with fewer
    /// than two instances or no instance holding two rounds.
    pub(crate) fn of(groups: &[Vec<f64>]) -> Option<Components> {
        let groups: Vec<&Vec<f64>> = groups.iter().filter(|g| !g.is_empty()).collect();
        let k = groups.len();
        let n: usize = groups.iter().map(|g| g.len()).sum();
        if k < 2 || n <= k {
            return None;
        }
        let mean_of = |g: &[f64]| g.iter().sum::<f64>() / g.len() as f64;
        let grand = groups.iter().flat_map(|g| g.iter()).sum::<f64>() / n as f64;
        let ss_between: f64 = groups
            .iter()
            .map(|g| g.len() as f64 * (mean_of(g) - grand).powi(2))
            .sum();
        let ss_within: f64 = groups
            .iter()
            .map(|g| {
                let m = mean_of(g);
                g.iter().map(|x| (x - m).powi(2)).sum::<f64>()
            })
            .sum();
        let ms_between = ss_between / (k - 1) as f64;
        let ms_within = ss_within / (n - k) as f64;
        // The effective group size of an unbalanced design (n for balanced groups).
        let sizes_sq: f64 = groups.iter().map(|g| (g.len() * g.len()) as f64).sum();
        let n0 = (n as f64 - sizes_sq / n as f64) / (k - 1) as f64;
        Some(Components {
            instances: k as u32,
            rounds: n as u32,
            mean: grand,
            between_var: ((ms_between - ms_within) / n0).max(0.0),
            within_var: ms_within,
        })
    }

    /// The between-instance standard deviation as % of the mean: how far apart two
    /// instances of the same configuration typically are, one by one.
    pub(crate) fn between_cv_pct(&self) -> f64 {
        100.0 * self.between_var.sqrt() / self.mean.abs().max(f64::MIN_POSITIVE)
    }

    /// The within-instance (round-to-round) standard deviation as % of the mean.
    pub(crate) fn within_cv_pct(&self) -> f64 {
        100.0 * self.within_var.sqrt() / self.mean.abs().max(f64::MIN_POSITIVE)
    }
}
