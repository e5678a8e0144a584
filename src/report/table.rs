//! The terminal summary on stdout: one row per thread level and metric.

use comfy_table::{Cell, ContentArrangement, Table, presets};

use super::format;
use crate::results::ResultsFile;

/// Renders the comparison table of a results file.
pub fn render(results: &ResultsFile) -> String {
    let mut table = Table::new();
    table
        .load_style(presets::UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(vec![
            "threads",
            "metric",
            "baseline",
            "variant",
            "change [95 % CI]",
            "p",
            "Holm p",
            "",
        ]);
    for c in &results.comparisons {
        table.add_row(vec![
            Cell::new(c.threads),
            Cell::new(&c.metric),
            Cell::new(format::value(&c.metric, c.baseline.mean)),
            Cell::new(format::value(&c.metric, c.variant.mean)),
            Cell::new(format::change(c.change_pct, c.ci_pct)),
            Cell::new(format::p_value(c.p)),
            Cell::new(format::p_value(c.p_holm)),
            Cell::new(if c.significant { "significant" } else { "" }),
        ]);
    }
    let names = |side| {
        results
            .sides
            .get(&side)
            .map(|s| s.name.clone())
            .unwrap_or_default()
    };
    format!(
        "baseline: {}\nvariant:  {}\n{table}\n",
        names(crate::profile::Side::Baseline),
        names(crate::profile::Side::Variant)
    )
}
