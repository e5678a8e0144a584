//! Fieller's confidence interval for the ratio of means R = ȳ/x̄, with Welch–Satterthwaite
//! degrees of freedom evaluated at the observed ratio (R `mratios::ttestratio`,
//! `var.equal = FALSE`). A percentage change is a ratio, and Fieller's interval is the
//! honest one: it becomes unbounded when the baseline mean is not clearly non-zero,
//! instead of printing a misleading number.

use serde::{Deserialize, Serialize};

use super::summary::{Summary, common_scale};
use super::t_critical;
use super::welch::satterthwaite;

/// A confidence interval for the ratio ȳ/x̄.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub(crate) struct RatioInterval {
    /// Observed ratio ȳ/x̄.
    pub(crate) ratio: f64,
    /// Bounds, or `None` when the interval is unbounded (A ≤ 0).
    pub(crate) bounds: Option<[f64; 2]>,
    /// Fieller's g = q²v₁/x̄²; above 0.05 the interval is noticeably asymmetric.
    pub(crate) g: f64,
}

impl RatioInterval {
    /// Bounds as percentage changes, 100(R − 1).
    pub(crate) fn percent_bounds(&self) -> Option<[f64; 2]> {
        self.bounds
            .map(|[lo, hi]| [100.0 * (lo - 1.0), 100.0 * (hi - 1.0)])
    }
}

/// Fieller interval for ȳ/x̄ at confidence 1 − alpha. The ratio does not depend on the
/// unit, so both summaries are first brought to their common scale: no square of a mean
/// near 1e200 (overflow) or 1e-90 (underflow, a false zero-width interval).
pub(crate) fn fieller(x: &Summary, y: &Summary, alpha: f64) -> RatioInterval {
    let scale = common_scale(x, y);
    let (x, y) = (&x.in_units_of(scale), &y.in_units_of(scale));
    let (v1, v2) = (x.var_of_mean(), y.var_of_mean());
    let ratio = y.mean / x.mean;
    if !ratio.is_finite() {
        return RatioInterval {
            ratio,
            bounds: None,
            g: f64::INFINITY,
        };
    }
    // Welch–Satterthwaite df of y − r·x, whose variance is v2 + r²v1.
    let Some(df) = satterthwaite(ratio * ratio * v1, x.n, v2, y.n) else {
        return RatioInterval {
            ratio,
            bounds: (x.mean != 0.0).then_some([ratio, ratio]),
            g: 0.0,
        };
    };
    let q = t_critical(alpha, df);
    let a = x.mean * x.mean - q * q * v1;
    let b = x.mean * y.mean;
    let c = y.mean * y.mean - q * q * v2;
    let g = q * q * v1 / (x.mean * x.mean);
    let discriminant = b * b - a * c;
    if a <= 0.0 || discriminant < 0.0 {
        return RatioInterval {
            ratio,
            bounds: None,
            g,
        };
    }
    let root = discriminant.sqrt();
    RatioInterval {
        ratio,
        bounds: Some([(b - root) / a, (b + root) / a]),
        g,
    }
}
