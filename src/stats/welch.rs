//! Welch's unequal-variance t-test on the difference of means, y − x. Identical to
//! `scipy.stats.ttest_ind(y, x, equal_var=False)` and its `confidence_interval()`.

use serde::{Deserialize, Serialize};

use super::summary::{Summary, common_scale};
use super::{t_critical, two_sided_p};

/// The result of a Welch test.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub(crate) struct Welch {
    /// ȳ − x̄.
    pub(crate) diff: f64,
    /// Standard error of the difference.
    pub(crate) se: f64,
    /// t statistic; absent when both sides have zero variance.
    pub(crate) t: Option<f64>,
    /// Welch–Satterthwaite degrees of freedom; absent when both variances are zero.
    pub(crate) df: Option<f64>,
    /// Two-sided p-value.
    pub(crate) p: f64,
    /// Confidence interval of the difference.
    pub(crate) ci: [f64; 2],
}

/// Welch–Satterthwaite degrees of freedom for variances of the mean `v1`, `v2`.
pub(crate) fn satterthwaite(v1: f64, n1: usize, v2: f64, n2: usize) -> Option<f64> {
    let denominator = v1 * v1 / (n1 as f64 - 1.0) + v2 * v2 / (n2 as f64 - 1.0);
    let df = (v1 + v2).powi(2) / denominator;
    (denominator > 0.0 && df.is_finite()).then_some(df)
}

/// Welch's test of baseline `x` against variant `y` at level `alpha`, computed in units
/// of the data's own scale so that no square overflows or underflows.
pub(crate) fn welch(x: &Summary, y: &Summary, alpha: f64) -> Welch {
    let scale = common_scale(x, y);
    let unit = welch_unit(&x.in_units_of(scale), &y.in_units_of(scale), alpha);
    let diff = y.mean - x.mean;
    let half = (unit.ci[1] - unit.diff) * scale;
    Welch {
        diff,
        se: unit.se * scale,
        ci: [diff - half, diff + half],
        ..unit
    }
}

fn welch_unit(x: &Summary, y: &Summary, alpha: f64) -> Welch {
    let (v1, v2) = (x.var_of_mean(), y.var_of_mean());
    let diff = y.mean - x.mean;
    let se = (v1 + v2).sqrt();
    match satterthwaite(v1, x.n, v2, y.n) {
        Some(df) => {
            let t = diff / se;
            let half = t_critical(alpha, df) * se;
            Welch {
                diff,
                se,
                t: Some(t),
                df: Some(df),
                p: two_sided_p(t, df),
                ci: [diff - half, diff + half],
            }
        }
        // No variance at all: the difference is exact.
        None => Welch {
            diff,
            se,
            t: None,
            df: None,
            p: if diff == 0.0 { 1.0 } else { 0.0 },
            ci: [diff, diff],
        },
    }
}
