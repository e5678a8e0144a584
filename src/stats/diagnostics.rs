//! Warnings about the data, never deletions: drift within a side, outlier rounds, noisy
//! sides and too few rounds. A reviewer sees every round and every warning, and decides.

use super::compare::Unit;
use super::summary::Summary;

/// Mann–Kendall trend test: the two-sided p-value of a monotonic trend in `values`
/// (normal approximation without tie correction). `None` for fewer than 4 values.
pub(crate) fn trend_p(values: &[f64]) -> Option<f64> {
    use statrs::distribution::{ContinuousCDF, Normal};
    let n = values.len();
    if n < 4 {
        return None;
    }
    let mut s = 0.0;
    for i in 0..n {
        for j in i + 1..n {
            s += (values[j] - values[i]).signum();
        }
    }
    let n = n as f64;
    let variance = n * (n - 1.0) * (2.0 * n + 5.0) / 18.0;
    let z = if s > 0.0 {
        (s - 1.0) / variance.sqrt()
    } else if s < 0.0 {
        (s + 1.0) / variance.sqrt()
    } else {
        0.0
    };
    Some(2.0 * Normal::standard().sf(z.abs()))
}

/// Indices of values further than 3.5 robust standard deviations (1.4826·MAD) from the
/// median.
pub(crate) fn mad_outliers(values: &[f64]) -> Vec<usize> {
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        let m = v.len() / 2;
        if v.len().is_multiple_of(2) {
            (v[m - 1] + v[m]) / 2.0
        } else {
            v[m]
        }
    };
    if values.len() < 3 {
        return Vec::new();
    }
    let center = median(&mut values.to_vec());
    let mad = median(&mut values.iter().map(|v| (v - center).abs()).collect());
    if mad == 0.0 {
        return Vec::new();
    }
    values
        .iter()
        .enumerate()
        .filter(|(_, v)| ((*v - center).abs() / (1.4826 * mad)) > 3.5)
        .map(|(i, _)| i)
        .collect()
}

/// Warnings about one side's sample of one metric: `values` holds (number, value) in
/// order, each value one `unit` (a round, or an instance's mean), and every warning names
/// them by their numbers, never by position.
pub(crate) fn side_warnings(label: &str, values: &[(u32, f64)], unit: Unit) -> Vec<String> {
    let numbers: Vec<f64> = values.iter().map(|(_, v)| *v).collect();
    let mut warnings = Vec::new();
    let summary = Summary::of(&numbers);
    let enough = unit.enough();
    if summary.n < enough {
        warnings.push(format!(
            "{label}: only {}; {enough} or more give usable intervals",
            unit.count(summary.n)
        ));
    }
    if summary.cv > 0.10 {
        warnings.push(format!(
            "{label}: CV {:.1} % is above 10 %; the machine is noisy, consider more {}s",
            100.0 * summary.cv,
            unit.noun()
        ));
    }
    if let Some(p) = trend_p(&numbers)
        && p < 0.05
    {
        warnings.push(format!(
            "{label}: values drift across {}s (Mann-Kendall p = {p:.3})",
            unit.noun()
        ));
    }
    for position in mad_outliers(&numbers) {
        let (number, value) = values[position];
        warnings.push(format!(
            "{label}: {} {number} ({value:.1}) is an outlier (MAD); it is kept",
            unit.noun()
        ));
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trend_detects_monotonic_series() {
        let rising: Vec<f64> = (0..10).map(|i| 100.0 + i as f64).collect();
        assert!(trend_p(&rising).unwrap() < 0.001);
        let flat = [100.0, 102.0, 99.0, 101.0, 100.5, 99.5, 101.5, 100.2];
        assert!(trend_p(&flat).unwrap() > 0.2);
        assert_eq!(trend_p(&[1.0, 2.0, 3.0]), None);
    }

    #[test]
    fn mad_flags_only_the_outlier() {
        assert_eq!(
            mad_outliers(&[100.0, 101.0, 99.0, 100.5, 99.5, 160.0]),
            vec![5]
        );
        assert!(mad_outliers(&[100.0, 100.0, 100.0]).is_empty());
    }

    #[test]
    fn side_warnings_cover_noise_and_size() {
        let warnings = side_warnings(
            "baseline tps",
            &[(1, 100.0), (2, 150.0), (3, 80.0)],
            Unit::Round,
        );
        assert!(warnings.iter().any(|w| w.contains("only 3 rounds")));
        assert!(warnings.iter().any(|w| w.contains("CV")));
    }

    /// Instance means are counted and named as instances, never as rounds.
    #[test]
    fn instance_means_are_counted_as_instances() {
        let means = [(1, 100.0), (2, 101.0), (3, 99.0)];
        let warnings = side_warnings("baseline tps", &means, Unit::Instance);
        assert_eq!(
            warnings,
            ["baseline tps: only 3 instances; 4 or more give usable intervals"]
        );
        let means = [(1, 100.0), (2, 101.0), (3, 99.0), (4, 100.5), (5, 160.0)];
        let warnings = side_warnings("variant tps", &means, Unit::Instance);
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("instance 5 (160.0) is an outlier"))
        );
        assert!(
            warnings.iter().all(|w| !w.contains("round")),
            "{warnings:?}"
        );
    }

    /// Rounds 1, 2, 4, 5 (round 3 failed): the outlier in round 5 is called round 5,
    /// not "round 4" after its position.
    #[test]
    fn outliers_are_named_by_their_round_numbers() {
        let rounds = [
            (1, 100.0),
            (2, 101.0),
            (4, 99.0),
            (5, 160.0),
            (6, 100.5),
            (7, 99.5),
        ];
        let warnings = side_warnings("variant tps", &rounds, Unit::Round);
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("round 5 (160.0) is an outlier")),
            "{warnings:?}"
        );
    }
}
