//! The HTML report: one self-contained file — inline CSS and inline SVG charts, no
//! external assets — with the same content as the Markdown report plus the charts.

use std::fmt::Write as _;

use super::{ReportView, charts, sections};
use crate::stats::compare::Family;
use crate::stats::verdict::Verdict;

const STYLE: &str = "body{font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:2em auto;max-width:980px;color:#222}\
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}\
td:nth-child(2),th:nth-child(2),table.diff td,table.diff th{text-align:left}.verdict{font-size:1.3em;padding:.6em 1em;border-radius:6px}\
.GO{background:#d8f5d0}.NO-GO{background:#f9d0d0}.INCONCLUSIVE{background:#fdf0c8}.none{background:#eef}\
td.GO{color:#176b00;font-weight:bold}td.NO-GO{color:#a00;font-weight:bold}td.INCONCLUSIVE{color:#8a6d00}\
td.significant{font-weight:bold}figure{margin:1em 0}code,pre{background:#f4f4f4;padding:2px 4px}pre{padding:8px;white-space:pre-wrap}";

/// Renders the HTML report.
pub(crate) fn render(view: &ReportView<'_>) -> anyhow::Result<String> {
    let mut out = String::new();
    let title = format!("abtest: {} vs {}", view.names[0], view.names[1]);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>{STYLE}</style></head><body>\n",
        escape(&title)
    );
    let _ = writeln!(out, "<h1>{}</h1>", escape(&title));
    let class = view.verdict.map_or("none", Verdict::as_str);
    let _ = writeln!(
        out,
        "<p id=\"verdict\" class=\"verdict {class}\">{}</p>",
        escape(&view.headline())
    );
    if view.has(Family::Confirmatory) {
        figure(
            &mut out,
            &charts::change_chart(view.comparisons, view.alpha)?,
        );
    }
    results_table(view, Family::Confirmatory, "results", &mut out);
    if view.has(Family::Explanatory) {
        let _ = writeln!(out, "<h2>{}</h2>", escape(sections::EXPLANATORY_TITLE));
        results_table(view, Family::Explanatory, "explanatory", &mut out);
    }
    if view.levels().len() > 1 {
        let _ = write!(out, "<h2>Sweep summary</h2><table id=\"sweep\"><tr>");
        for cell in sections::sweep_header(view.alpha) {
            let _ = write!(out, "<th>{}</th>", escape(&cell));
        }
        let _ = writeln!(out, "</tr>");
        for row in sections::sweep_rows(view) {
            let cells: String = row
                .iter()
                .map(|c| format!("<td>{}</td>", escape(c)))
                .collect();
            let _ = writeln!(out, "<tr>{cells}</tr>");
        }
        let _ = writeln!(out, "</table>");
    }
    for note in view.power_notes() {
        let _ = writeln!(out, "<p class=\"power\">Power: {}</p>", escape(&note));
    }
    if let Some(results) = view.results {
        let _ = writeln!(out, "<h2>Charts</h2>");
        let mut levels: Vec<u32> = results.rounds.iter().map(|r| r.threads).collect();
        levels.dedup();
        levels.sort_unstable();
        levels.dedup();
        for threads in &levels {
            let tps = view
                .comparisons
                .iter()
                .find(|c| c.threads == *threads && c.metric == "tps");
            figure(
                &mut out,
                &charts::rounds_chart(results, &view.names, *threads, tps)?,
            );
            figure(
                &mut out,
                &charts::latency_chart(results, &view.names, *threads)?,
            );
        }
        if levels.len() > 1 {
            figure(
                &mut out,
                &charts::sweep_chart(view.comparisons, &view.names)?,
            );
        }
        let _ = writeln!(
            out,
            "<h2>Method</h2><p>{}</p>",
            escape(&sections::method(results, view.alpha))
        );
        let _ = writeln!(out, "<h2>What differs between the sides</h2>");
        let differences = sections::differences(results);
        if differences.is_empty() {
            let _ = writeln!(out, "<p>{}</p>", sections::NO_DIFFERENCE);
        } else {
            let _ = writeln!(
                out,
                "<table class=\"diff\"><tr><th>variable</th><th>baseline</th><th>variant</th></tr>"
            );
            for [name, a, b] in differences {
                let _ = writeln!(
                    out,
                    "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
                    escape(&name),
                    escape(&a),
                    escape(&b)
                );
            }
            let _ = writeln!(out, "</table>");
        }
        let _ = writeln!(out, "<h2>Environment</h2><ul>");
        for line in sections::environment(results) {
            let _ = writeln!(out, "<li>{}</li>", escape(&line));
        }
        let _ = writeln!(out, "</ul>");
    }
    if !view.warnings.is_empty() {
        let _ = writeln!(out, "<h2>Warnings</h2><ul>");
        for warning in &view.warnings {
            let _ = writeln!(out, "<li>{}</li>", escape(warning));
        }
        let _ = writeln!(out, "</ul>");
    }
    if let Some(command) = view.results.and_then(sections::reproduce) {
        let _ = writeln!(out, "<h2>Reproduce</h2><pre>{}</pre>", escape(&command));
    }
    out.push_str("</body></html>\n");
    Ok(out)
}

fn results_table(view: &ReportView<'_>, family: Family, id: &str, out: &mut String) {
    let _ = write!(out, "<table id=\"{id}\"><tr>");
    for cell in sections::header(view.alpha) {
        let _ = write!(out, "<th>{}</th>", escape(&cell));
    }
    let _ = writeln!(out, "</tr>");
    for row in sections::rows(view, family) {
        let _ = write!(out, "<tr>");
        for (index, cell) in row.cells.iter().enumerate() {
            let class = if index == 7 {
                format!(" class=\"{}\"", row.judgement)
            } else {
                String::new()
            };
            let _ = write!(out, "<td{class}>{}</td>", escape(cell));
        }
        let _ = writeln!(out, "</tr>");
    }
    let _ = writeln!(out, "</table>");
}

fn figure(out: &mut String, svg: &str) {
    let _ = writeln!(out, "<figure>{svg}</figure>");
}

/// Escapes text for HTML.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
