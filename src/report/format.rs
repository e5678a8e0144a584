//! Number formatting shared by every report, so the table, Markdown and HTML agree.

use crate::stats::compare::Comparison;
use crate::stats::metric::Metric;

/// A metric value with precision suited to its unit.
pub(crate) fn value(metric: &Metric, value: f64) -> String {
    if metric.is_latency() {
        if value < 10.0 {
            format!("{value:.3}")
        } else {
            format!("{value:.2}")
        }
    } else {
        format!("{value:.1}")
    }
}

/// A server variable's value for people: sizes in bytes (`*_size`, `*_buffer*`,
/// `max_allowed_packet`) as `512 MiB` when they are whole KiB, MiB or GiB; the rest
/// as it is.
pub(crate) fn variable_value(name: &str, value: &str) -> String {
    let sized = name.ends_with("_size") || name.contains("_buffer") || name == "max_allowed_packet";
    match value.parse::<u64>() {
        Ok(bytes) if sized && bytes >= 1024 => {
            let units = [("GiB", 1u64 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
            units
                .iter()
                .find(|(_, size)| bytes % size == 0)
                .map_or_else(
                    || value.to_string(),
                    |(unit, size)| format!("{} {unit}", bytes / size),
                )
        }
        _ => value.to_string(),
    }
}

/// A percentage change with its interval: `-21.3 % [-24.0, -18.5]`.
pub(crate) fn change(change_pct: f64, ci: Option<[f64; 2]>) -> String {
    match ci {
        Some([lo, hi]) => format!("{change_pct:+.2} % [{lo:+.2}, {hi:+.2}]"),
        None => format!("{change_pct:+.2} % [unbounded]"),
    }
}

/// A comparison's change with its 95 % (1 − α) interval: a ratio metric in %, with a
/// lower bound beyond −99 % (impossible for a ratio of positive values; the Fieller
/// interval reaches there when the baseline is noisy) shown as `<-99`; a rate in
/// percentage points.
pub(crate) fn comparison_change(c: &Comparison) -> String {
    if c.metric.is_rate() {
        return match c.ci_pct {
            Some([lo, hi]) => format!("{:+.2} pp [{lo:+.2}, {hi:+.2}]", c.change_pct),
            None => format!("{:+.2} pp [unbounded]", c.change_pct),
        };
    }
    ratio_change(c.change_pct, c.ci_pct)
}

/// The change of a ratio in % with its interval, the lower bound as [`lower_bound`].
pub(crate) fn ratio_change(change_pct: f64, ci: Option<[f64; 2]>) -> String {
    match ci {
        Some([lo, hi]) => format!(
            "{change_pct:+.2} % [{}, {}]",
            lower_bound(lo),
            upper_bound(hi)
        ),
        None => change(change_pct, None),
    }
}

/// A lower bound of a ratio's change in %: `<-99` below −99 %.
pub(crate) fn lower_bound(lo: f64) -> String {
    if lo < -99.0 {
        "<-99".into()
    } else {
        format!("{lo:+.2}")
    }
}

/// An upper bound of a ratio's change in %: `>+999` above +999 % (a look with one or two
/// blocks has an interval of astronomical width; its figures mean nothing).
pub(crate) fn upper_bound(hi: f64) -> String {
    if hi > 999.0 {
        ">+999".into()
    } else {
        format!("{hi:+.2}")
    }
}

/// The half-width of an interval of a change in %: `±4.73 %`, or `> ±500 %`.
pub(crate) fn half_width([lo, hi]: [f64; 2]) -> String {
    let half = (hi - lo) / 2.0;
    if half > 500.0 {
        "> ±500 %".into()
    } else {
        format!("±{half:.2} %")
    }
}

/// A significance level with at most four decimals and no trailing zeros: `0.05`,
/// `0.0156`; below 0.0001 in scientific notation.
pub(crate) fn level(alpha: f64) -> String {
    if alpha < 1e-4 {
        return format!("{alpha:.1e}");
    }
    let text = format!("{alpha:.4}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A percentage figure without trailing zeros: `5`, `2.5`.
pub(crate) fn percent_figure(value: f64) -> String {
    let text = format!("{value:.2}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A p-value: scientific below 0.001.
pub(crate) fn p_value(p: f64) -> String {
    if p < 0.001 {
        format!("{p:.1e}")
    } else {
        format!("{p:.3}")
    }
}

/// The confidence level of 1 − alpha in %, such as `95`: two decimals, or as many more
/// as it takes not to round up to 100 (an early look's level, 1 − 1.25e-5, is
/// `99.999`, never a certainty it is not).
pub(crate) fn confidence(alpha: f64) -> String {
    let percent = 100.0 * (1.0 - alpha);
    let level = (2..=12)
        .map(|decimals| format!("{percent:.decimals$}"))
        .find(|text| alpha <= 0.0 || !text.starts_with("100"))
        .unwrap_or_else(|| format!("{percent:.12}"));
    level
        .trim_end_matches('0')
        .trim_end_matches('.')
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(value(&Metric::Tps, 1234.56), "1234.6");
        assert_eq!(value(&Metric::percentile(95.0).unwrap(), 1.23456), "1.235");
        assert_eq!(
            change(-21.3, Some([-24.0, -18.5])),
            "-21.30 % [-24.00, -18.50]"
        );
        assert_eq!(change(5.0, None), "+5.00 % [unbounded]");
        // A ratio of positive values cannot fall by more than 100 %.
        assert_eq!(lower_bound(-154.2), "<-99");
        assert_eq!(lower_bound(-12.5), "-12.50");
        assert_eq!(upper_bound(3.6e152), ">+999");
        assert_eq!(confidence(0.05), "95");
        assert_eq!(confidence(0.0148), "98.52");
        assert_eq!(confidence(1.251e-5), "99.999");
        assert_eq!(confidence(1e-12), "99.9999999999");
        assert_eq!(level(0.05), "0.05");
        assert_eq!(level(0.015587457051827411), "0.0156");
        assert_eq!(level(1.08e-6), "1.1e-6");
        assert_eq!(upper_bound(62.944), "+62.94");
        assert_eq!(half_width([-55.31, 62.94]), "±59.12 %");
        assert_eq!(half_width([-100.0, 3.6e152]), "> ±500 %");
        assert_eq!(
            ratio_change(-13.4, Some([-100.0, 3.6e152])),
            "-13.40 % [<-99, >+999]"
        );
        assert_eq!(p_value(0.0123), "0.012");
        assert_eq!(p_value(1.09e-9), "1.1e-9");
        assert_eq!(confidence(0.05), "95");
        assert_eq!(confidence(0.005), "99.5");
        assert_eq!(
            variable_value("innodb_buffer_pool_size", "536870912"),
            "512 MiB"
        );
        assert_eq!(
            variable_value("innodb_log_file_size", "100663296"),
            "96 MiB"
        );
        assert_eq!(variable_value("sort_buffer_size", "2097152"), "2 MiB");
        assert_eq!(variable_value("innodb_buffer_pool_size", "1000"), "1000");
        assert_eq!(
            variable_value("thread_handling", "pool-of-threads"),
            "pool-of-threads"
        );
    }
}
