//! The terminal summary on stdout: one row per thread level and metric, the verdict,
//! and power notes when the data could not decide.

use comfy_table::{Cell, ContentArrangement, Table, presets};

use super::{ReportView, format, judgement};

/// Renders the comparison table.
pub fn render(view: &ReportView<'_>) -> String {
    let mut table = Table::new();
    let confidence = format!("change [{} % CI]", format::confidence(view.alpha));
    table
        .load_style(presets::UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(vec![
            "threads",
            "metric",
            "baseline",
            "variant",
            &confidence,
            "p",
            "Holm p",
            "verdict",
        ]);
    for c in view.comparisons {
        table.add_row(vec![
            Cell::new(c.threads),
            Cell::new(&c.metric),
            Cell::new(format::value(&c.metric, c.baseline.mean)),
            Cell::new(format::value(&c.metric, c.variant.mean)),
            Cell::new(format::change(c.change_pct, c.ci_pct)),
            Cell::new(format::p_value(c.p)),
            Cell::new(format::p_value(c.p_holm)),
            Cell::new(judgement(c)),
        ]);
    }
    let mut out = format!(
        "baseline: {}\nvariant:  {}\n{table}\n",
        view.names[0], view.names[1]
    );
    out.push_str(&format!("{}\n", view.headline()));
    let notes = view.power_notes();
    if !notes.is_empty() {
        out.push_str("power:\n");
        for note in notes {
            out.push_str(&format!("  {note}\n"));
        }
    }
    out
}
