//! Holm's step-down adjustment. A run compares several metrics at several thread levels;
//! the "anything regressed?" alarm must not fire just because many tests were made.

/// Holm-adjusted p-values, in the order of `p`. Same as statsmodels
/// `multipletests(p, method="holm")`.
pub(crate) fn holm(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    let mut adjusted = vec![0.0; m];
    let mut running_max: f64 = 0.0;
    for (rank, &index) in order.iter().enumerate() {
        let value = ((m - rank) as f64 * p[index]).min(1.0);
        running_max = running_max.max(value);
        adjusted[index] = running_max;
    }
    adjusted
}
