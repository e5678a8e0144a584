//! The answer the terminal leads with: the verdict sentence, then one row per thread
//! level — both sides' TPS, the change with its interval, the bound the verdict read,
//! the verdict — narrow enough for a 100-column terminal. Nothing that decided is left
//! out: a latency or error-rate tolerance adds its own rows, and every figure is the one
//! the full tables below show, from the same formatting functions.

use super::{ReportView, decision, format, judgement};
use crate::stats::compare::{Comparison, Family};
use crate::stats::metric::Metric;

/// The rows of the answer: TPS at every level, and every comparison a tolerance judged.
pub(crate) fn comparisons<'a>(view: &ReportView<'a>) -> Vec<&'a Comparison> {
    // Every comparison a tolerance judged, whatever its family (the error rate is
    // explanatory, yet its limit decides), and TPS; level by level.
    let mut rows: Vec<&Comparison> = view
        .comparisons
        .iter()
        .filter(|c| {
            (c.family == Family::Confirmatory && c.metric == Metric::Tps)
                || c.tolerance_pct.is_some()
        })
        .collect();
    rows.sort_by_key(|c| c.threads);
    rows
}

/// The columns the rows need: the metric only when a row is not TPS, the deciding
/// bound only when a tolerance was given.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Columns {
    metric: bool,
    bound: bool,
}

impl Columns {
    /// The columns of `rows`.
    pub(crate) fn of(rows: &[&Comparison]) -> Columns {
        Columns {
            metric: rows.iter().any(|c| c.metric != Metric::Tps),
            bound: rows.iter().any(|c| c.tolerance_pct.is_some()),
        }
    }

    /// The header: "threads, baseline TPS, variant TPS, change [95 % CI], verdict
    /// reads, verdict".
    pub(crate) fn header(self, view: &ReportView<'_>) -> Vec<String> {
        let mut header = vec!["threads".to_string()];
        if self.metric {
            header.extend(["metric", "baseline", "variant"].map(String::from));
        } else {
            header.extend(["baseline TPS", "variant TPS"].map(String::from));
        }
        header.push(format!("change [{} % CI]", format::confidence(view.alpha)));
        if self.bound {
            header.push("verdict reads".into());
        }
        header.push("verdict".into());
        header
    }

    /// One row's cells, in the order of [`Columns::header`].
    pub(crate) fn cells(self, c: &Comparison) -> Vec<String> {
        let mut row = vec![c.threads.to_string()];
        if self.metric {
            row.push(c.metric.label());
        }
        row.push(format::value(&c.metric, c.estimate_means[0]));
        row.push(format::value(&c.metric, c.estimate_means[1]));
        row.push(format::comparison_change(c));
        if self.bound {
            row.push(decision::short(c));
        }
        row.push(judgement(c));
        row
    }

    /// Which columns hold numbers, for right alignment.
    pub(crate) fn numeric(self) -> Vec<bool> {
        let mut numeric = vec![true];
        if self.metric {
            numeric.push(false);
        }
        numeric.extend([true, true, false]);
        if self.bound {
            numeric.push(false);
        }
        numeric.push(false);
        numeric
    }
}

/// What the levels of the intervals are, said once under the tables instead of in
/// every header: "verdict reads the 98.05 % one-sided bound of the change (5 % TPS
/// tolerance); the 98.44 % CI and the bound are adjusted for 3 looks". `None` when the
/// header says it all (no tolerance, no looks).
pub(crate) fn levels_note(view: &ReportView<'_>) -> Option<String> {
    let judged: Vec<&Comparison> = view
        .comparisons
        .iter()
        .filter(|c| c.tolerance_pct.is_some())
        .collect();
    let mut parts = Vec::new();
    if !judged.is_empty() {
        let mut tolerances: Vec<String> = Vec::new();
        for c in &judged {
            let text = format!(
                "{} on {}",
                decision::tolerance_name(c, c.tolerance_pct.unwrap_or_default()),
                c.metric.spoken()
            );
            if !tolerances.contains(&text) {
                tolerances.push(text);
            }
        }
        parts.push(format!(
            "verdict reads the {} % one-sided bound of the change against the tolerance ({})",
            format::confidence(view.verdict_alpha),
            tolerances.join(", ")
        ));
    }
    let adjustment = view.looks_adjustment();
    if !adjustment.is_empty() {
        let what = if judged.is_empty() {
            format!("the {} % CI is", format::confidence(view.alpha))
        } else {
            format!(
                "the {} % CI and the bound are",
                format::confidence(view.alpha)
            )
        };
        parts.push(format!("{what}{}", adjustment.replacen(',', "", 1)));
    }
    (!parts.is_empty()).then(|| format!("{}.", parts.join("; ")))
}
