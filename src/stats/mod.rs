//! The statistics behind every number (docs/statistics.md). Everything here is a pure function of
//! per-round samples: no I/O, no clock, so it can be checked exactly against scipy.
//!
//! The unit of analysis is one value per round per side. Per-second samples inside a
//! round are autocorrelated and would make every interval look far too certain.

pub(crate) mod block_ratio;
pub(crate) mod blocked;
pub(crate) mod boundaries;
pub(crate) mod compare;
pub(crate) mod components;
pub(crate) mod diagnostics;
pub(crate) mod fieller;
pub(crate) mod holm;
pub(crate) mod metric;
pub(crate) mod paired;
pub(crate) mod power;
pub(crate) mod sequential;
pub(crate) mod summary;
pub(crate) mod t_looks;
pub(crate) mod verdict;
pub(crate) mod welch;

use statrs::distribution::{ContinuousCDF, StudentsT};

/// The two-sided critical value t(1 - alpha/2, df).
pub(crate) fn t_critical(alpha: f64, df: f64) -> f64 {
    student(df).inverse_cdf(1.0 - alpha / 2.0)
}

/// Two-sided p-value of a t statistic.
pub(crate) fn two_sided_p(t: f64, df: f64) -> f64 {
    2.0 * student(df).sf(t.abs())
}

fn student(df: f64) -> StudentsT {
    StudentsT::new(0.0, 1.0, df).expect("degrees of freedom are positive and finite")
}

#[cfg(test)]
mod tests;
