//! The paired-by-round estimate: rounds alternate, so round k of the baseline and round
//! k of the variant ran close together and share the machine's state. The mean log
//! ratio of the pairs is robust to slow drift, which makes it a good cross-check on the
//! Welch/Fieller interval.

use super::summary::{mean, variance};
use super::t_critical;

/// CI of the ratio from paired rounds: exp(d̄ ± t·s_d/√n) with d_k = ln(y_k/x_k).
/// `None` with fewer than two pairs or a non-positive value.
pub(crate) fn paired_ratio_ci(x: &[f64], y: &[f64], alpha: f64) -> Option<[f64; 2]> {
    let logs: Vec<f64> = x.iter().zip(y).map(|(a, b)| (b / a).ln()).collect();
    if logs.len() < 2 || logs.iter().any(|d| !d.is_finite()) {
        return None;
    }
    let n = logs.len() as f64;
    let center = mean(&logs);
    let half = t_critical(alpha, n - 1.0) * (variance(&logs) / n).sqrt();
    Some([(center - half).exp(), (center + half).exp()])
}
