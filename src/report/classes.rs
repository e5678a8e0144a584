//! The query classes table — which classes got slower — as plain text for every format:
//! one row per class and thread level, the slowest change first, with calls per
//! transaction, mean and p95 latency on each side and the change of the mean with its
//! interval across rounds.

use super::format;
use crate::results::classes::ClassComparison;

/// The table's title, which says what is compared and how it is adjusted.
pub(crate) const TITLE: &str = "Query classes, slowest change first (explanatory: each class's \
     mean latency per round; Holm-adjusted among the classes)";

/// The longest class text shown; a longer statement is cut with `…` (the results file
/// keeps it whole).
const SHOWN_CHARS: usize = 80;

/// The column titles.
pub(crate) fn header(alpha: f64) -> Vec<String> {
    [
        "threads".to_string(),
        "query class".into(),
        "calls/tx".into(),
        "mean ms, baseline → variant".into(),
        "p95 ms, baseline → variant".into(),
        format!("change of mean [{} % CI]", format::confidence(alpha)),
        "Holm p".into(),
        String::new(),
    ]
    .to_vec()
}

/// Which columns hold numbers.
pub(crate) fn numeric() -> Vec<bool> {
    vec![true, false, true, true, true, false, true, false]
}

/// One row per compared class, in the results file's order (slowest change first).
pub(crate) fn rows(query_classes: &[ClassComparison]) -> Vec<Vec<String>> {
    query_classes.iter().map(row).collect()
}

fn row(c: &ClassComparison) -> Vec<String> {
    let ms = |[baseline, variant]: [f64; 2]| format!("{baseline:.3} → {variant:.3}");
    let calls = if (c.calls_per_tx[0] - c.calls_per_tx[1]).abs() < 0.005 {
        format!("{:.2}", c.calls_per_tx[0])
    } else {
        format!("{:.2} → {:.2}", c.calls_per_tx[0], c.calls_per_tx[1])
    };
    vec![
        c.threads.to_string(),
        shown(&c.class),
        calls,
        ms(c.mean_ms),
        ms(c.p95_ms),
        format::ratio_change(c.change_pct, c.ci_pct),
        format::p_value(c.p_holm),
        if c.significant {
            if c.change_pct > 0.0 {
                "slower".into()
            } else {
                "faster".into()
            }
        } else {
            String::new()
        },
    ]
}

/// A class as shown: whitespace runs made one space, cut at [`SHOWN_CHARS`].
pub(crate) fn shown(class: &str) -> String {
    shown_in(class, SHOWN_CHARS)
}

/// A class in at most `width` characters: whitespace runs made one space, cut with `…`.
pub(crate) fn shown_in(class: &str, width: usize) -> String {
    let flat = class.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= width {
        return flat;
    }
    let cut: String = flat.chars().take(width - 1).collect();
    format!("{cut}…")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_statement_is_cut_and_a_short_one_kept() {
        assert_eq!(shown("SELECT  c\n FROM t"), "SELECT c FROM t");
        let long = format!("SELECT {} FROM t", "a, ".repeat(60));
        let cut = shown(&long);
        assert_eq!(cut.chars().count(), SHOWN_CHARS);
        assert!(cut.ends_with('…'));
    }
}
