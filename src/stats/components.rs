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

/// What the two sides' instances share. Instance i of the baseline and instance i of the
/// variant start together and serve their rounds in the same stretch of time, so what
/// the host or the moment does to them moves both, and cancels in their difference.
/// From the paired instance means, each relative to its side's mean:
/// Var(b_i − v_i) = 2σ²_own + σ²_w,b·mean(1/n_b,i) + σ²_w,v·mean(1/n_v,i) gives the
/// variance each instance has of its own, and Cov(b_i, v_i) the shared part. Both are
/// relative variances (fractions squared), cut at 0.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub(crate) struct InstancePairs {
    /// Instance pairs (instances run by both sides).
    pub(crate) pairs: u32,
    /// Relative σ² of an instance's own effect.
    pub(crate) own_var: f64,
    /// Relative covariance of paired instance means: the part both sides share.
    pub(crate) shared_var: f64,
}

impl InstancePairs {
    /// The split of `baseline` and `variant` (rounds grouped by instance, instance i at
    /// index i on both sides), or none with fewer than two pairs, an instance without
    /// rounds, or a side whose mean is 0.
    pub(crate) fn of(baseline: &[Vec<f64>], variant: &[Vec<f64>]) -> Option<InstancePairs> {
        let k = baseline.len();
        let sides = [baseline, variant];
        if k < 2 || variant.len() != k || sides.iter().any(|s| s.iter().any(Vec::is_empty)) {
            return None;
        }
        let components = [Components::of(baseline)?, Components::of(variant)?];
        if components.iter().any(|c| c.mean == 0.0) {
            return None;
        }
        // Each side's instance means relative to its mean, centred, and the share of the
        // round-to-round variance in them.
        let [(b, b_rounds), (v, v_rounds)] = [0, 1].map(|i| {
            let (groups, c) = (sides[i], &components[i]);
            let means: Vec<f64> = groups
                .iter()
                .map(|g| g.iter().sum::<f64>() / g.len() as f64 / c.mean)
                .collect();
            let centre = means.iter().sum::<f64>() / k as f64;
            let inverse_sizes = groups.iter().map(|g| 1.0 / g.len() as f64).sum::<f64>();
            let rounds = c.within_var / c.mean.powi(2) * inverse_sizes / k as f64;
            (
                means.into_iter().map(|m| m - centre).collect::<Vec<f64>>(),
                rounds,
            )
        });
        let df = (k - 1) as f64;
        let var_diff = b.iter().zip(&v).map(|(x, y)| (x - y).powi(2)).sum::<f64>() / df;
        let covariance = b.iter().zip(&v).map(|(x, y)| x * y).sum::<f64>() / df;
        Some(InstancePairs {
            pairs: k as u32,
            own_var: ((var_diff - b_rounds - v_rounds) / 2.0).max(0.0),
            shared_var: covariance.max(0.0),
        })
    }

    /// An instance's own SD, in % of the mean.
    pub(crate) fn own_cv_pct(&self) -> f64 {
        100.0 * self.own_var.sqrt()
    }

    /// The SD both sides' instances share, in % of the mean.
    pub(crate) fn shared_cv_pct(&self) -> f64 {
        100.0 * self.shared_var.sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rounds of `k` instances per side: instance i moves both sides by `shared[i]` and
    /// each side by its own `own[side][i]`; the rounds wobble by ±`noise`.
    fn runs(shared: &[f64], own: [&[f64]; 2], noise: f64) -> [Vec<Vec<f64>>; 2] {
        [0, 1].map(|side| {
            shared
                .iter()
                .zip(own[side])
                .map(|(s, o)| {
                    let level = 1000.0 * (1.0 + s + o);
                    vec![level - noise, level + noise, level]
                })
                .collect()
        })
    }

    #[test]
    fn what_both_sides_share_is_told_from_what_each_instance_has_of_its_own() {
        // Only a shared effect: the paired means differ by nothing.
        let shared = [0.05, -0.03, 0.0, -0.02];
        let [b, v] = runs(&shared, [&[0.0; 4], &[0.0; 4]], 0.0);
        let split = InstancePairs::of(&b, &v).unwrap();
        assert_eq!((split.pairs, split.own_var), (4, 0.0));
        assert!((split.shared_cv_pct() - 3.56).abs() < 0.01, "{split:?}");
        // Only own effects, independent of each other: nothing shared.
        let [b, v] = runs(
            &[0.0; 4],
            [&[0.04, -0.04, 0.0, 0.0], &[0.0, 0.0, 0.04, -0.04]],
            0.0,
        );
        let split = InstancePairs::of(&b, &v).unwrap();
        assert_eq!(split.shared_var, 0.0, "{split:?}");
        // Var(b − v) = 4·0.04²/3 = 2·σ²_own: σ_own = 0.04·√(2/3).
        assert!(
            (split.own_cv_pct() - 4.0 * (2.0f64 / 3.0).sqrt()).abs() < 0.01,
            "{split:?}"
        );
        // Round noise alone is taken out of the difference: rounds ±20 (2 %) with
        // no instance effect at all leave no own variance.
        let [b, v] = runs(&[0.0; 4], [&[0.0; 4], &[0.0; 4]], 20.0);
        assert_eq!(InstancePairs::of(&b, &v).unwrap().own_var, 0.0);
        // One instance per side is no pair.
        assert!(InstancePairs::of(&b[..1], &v[..1]).is_none());
    }
}
