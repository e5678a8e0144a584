//! Per-side sample summaries.

use serde::{Deserialize, Serialize};

/// n, mean, standard deviation (ddof = 1) and coefficient of variation of a sample.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub(crate) struct Summary {
    /// Number of rounds.
    pub(crate) n: usize,
    /// Arithmetic mean.
    pub(crate) mean: f64,
    /// Sample standard deviation (ddof = 1); 0 for n < 2.
    pub(crate) sd: f64,
    /// sd / mean; 0 when the mean is 0.
    pub(crate) cv: f64,
}

impl Summary {
    /// Summarises a sample. The values are scaled to at most 1 in magnitude before they
    /// are squared, so 1e200 and 1e-90 give the same relative answers as values near 1.
    pub(crate) fn of(values: &[f64]) -> Summary {
        let n = values.len();
        let scale = scale_of(values.iter().map(|v| v.abs()));
        let unit: Vec<f64> = values.iter().map(|v| v / scale).collect();
        let mean = mean(&unit) * scale;
        let sd = variance(&unit).sqrt() * scale;
        let cv = if mean == 0.0 { 0.0 } else { sd / mean.abs() };
        Summary { n, mean, sd, cv }
    }

    /// The same summary in units of `scale` (mean and sd divided by it).
    pub(crate) fn in_units_of(&self, scale: f64) -> Summary {
        Summary {
            mean: self.mean / scale,
            sd: self.sd / scale,
            ..*self
        }
    }

    /// Variance of the mean, s²/n.
    pub(crate) fn var_of_mean(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.sd * self.sd / self.n as f64
        }
    }
}

/// The largest of `magnitudes`: a unit that brings them to at most 1 before squaring.
/// 1 when there is nothing finite and non-zero to scale by.
fn scale_of(magnitudes: impl Iterator<Item = f64>) -> f64 {
    let largest = magnitudes.filter(|m| m.is_finite()).fold(0.0, f64::max);
    if largest > 0.0 { largest } else { 1.0 }
}

/// A common unit for two summaries (their largest mean or sd), so that the test
/// statistics built from them square numbers near 1, never near 1e200 or 1e-90.
pub(crate) fn common_scale(x: &Summary, y: &Summary) -> f64 {
    scale_of([x.mean.abs(), x.sd, y.mean.abs(), y.sd].into_iter())
}

/// Arithmetic mean; 0 for an empty slice.
pub(crate) fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        0.0
    } else {
        values.iter().sum::<f64>() / values.len() as f64
    }
}

/// The median; `None` for an empty list.
pub(crate) fn median(mut values: Vec<f64>) -> Option<f64> {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    (n > 0).then(|| (values[(n - 1) / 2] + values[n / 2]) / 2.0)
}

/// Sample variance with ddof = 1; 0 for fewer than 2 values.
pub(crate) fn variance(values: &[f64]) -> f64 {
    if values.len() < 2 {
        return 0.0;
    }
    let m = mean(values);
    values.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (values.len() - 1) as f64
}
