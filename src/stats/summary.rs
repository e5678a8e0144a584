//! Per-side sample summaries.

use serde::{Deserialize, Serialize};

/// n, mean, standard deviation (ddof = 1) and coefficient of variation of a sample.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Number of rounds.
    pub n: usize,
    /// Arithmetic mean.
    pub mean: f64,
    /// Sample standard deviation (ddof = 1); 0 for n < 2.
    pub sd: f64,
    /// sd / mean; 0 when the mean is 0.
    pub cv: f64,
}

impl Summary {
    /// Summarises a sample.
    pub fn of(values: &[f64]) -> Summary {
        let n = values.len();
        let mean = mean(values);
        let sd = variance(values).sqrt();
        let cv = if mean == 0.0 { 0.0 } else { sd / mean.abs() };
        Summary { n, mean, sd, cv }
    }

    /// Variance of the mean, s²/n.
    pub fn var_of_mean(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.sd * self.sd / self.n as f64
        }
    }
}

/// Arithmetic mean; 0 for an empty slice.
pub fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        0.0
    } else {
        values.iter().sum::<f64>() / values.len() as f64
    }
}

/// Sample variance with ddof = 1; 0 for fewer than 2 values.
pub fn variance(values: &[f64]) -> f64 {
    if values.len() < 2 {
        return 0.0;
    }
    let m = mean(values);
    values.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (values.len() - 1) as f64
}
