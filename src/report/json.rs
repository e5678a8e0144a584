//! The analysis as JSON, for `abtest analyze --format json` (the results file itself is
//! written by [`crate::results`]).

use serde_json::json;

use super::ReportView;

/// Renders the comparisons, verdict (PARTIAL and why, for a run that did not finish),
/// the headline, unchecked tolerances and warnings as pretty JSON.
pub(crate) fn render(view: &ReportView<'_>) -> anyhow::Result<String> {
    let value = json!({
        "baseline": view.names[0],
        "variant": view.names[1],
        "alpha": view.alpha,
        "comparisons": view.comparisons,
        "query_classes": view.run.map_or(&[][..], |r| &r.judgement.query_classes),
        "timed_classes": view.run.map_or(&[][..], |r| &r.judgement.timed_classes),
        "verdict": view.verdict,
        "status": view.status_label(),
        "partial": view.partial,
        "headline": view.headline(),
        "unchecked_tolerances": view.unchecked,
        "warnings": view.warnings,
    });
    Ok(serde_json::to_string_pretty(&value)? + "\n")
}
