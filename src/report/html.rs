//! The HTML report: one self-contained file — inline CSS and inline SVG charts, no
//! external assets — drawing the shared [`document`](super::document) sequence, with the
//! change chart first and the run's charts before the method.

use std::fmt::Write as _;

use super::document::{self, Markup, Table};
use super::{ReportView, charts};
use crate::stats::compare::Family;
use crate::stats::metric::Metric;

const STYLE: &str = "body{font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:2em auto;max-width:980px;color:#222}\
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}\
td.num,th.num{text-align:right}.verdict{font-size:1.3em;padding:.6em 1em;border-radius:6px}\
.GO{background:#d8f5d0}.NO-GO{background:#f9d0d0}.INCONCLUSIVE{background:#fdf0c8}.PARTIAL{background:#f3d9fa;border:2px dashed #7a2a8c}.none{background:#eef}\
td.GO{color:#176b00;font-weight:bold}td.NO-GO{color:#a00;font-weight:bold}td.INCONCLUSIVE{color:#8a6d00}\
td.significant{font-weight:bold}figure{margin:1em 0}code,pre{background:#f4f4f4;padding:2px 4px}pre{padding:8px;white-space:pre-wrap}";

/// Renders the HTML report.
pub(crate) fn render(view: &ReportView<'_>) -> anyhow::Result<String> {
    document::render(view, &mut Html::default())
}

#[derive(Default)]
struct Html {
    out: String,
}

impl Markup for Html {
    fn title(&mut self, text: &str) {
        let _ = write!(
            self.out,
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>{STYLE}</style></head><body>\n",
            escape(text)
        );
        let _ = writeln!(self.out, "<h1>{}</h1>", escape(text));
    }

    fn headline(&mut self, text: &str, status: Option<&str>) {
        let class = status.unwrap_or("none");
        let _ = writeln!(
            self.out,
            "<p id=\"verdict\" class=\"verdict {class}\">{}</p>",
            escape(text)
        );
    }

    /// The change of every confirmatory metric against its tolerance, first.
    fn lead(&mut self, view: &ReportView<'_>) -> anyhow::Result<()> {
        if view.has(Family::Confirmatory) {
            figure(
                &mut self.out,
                &charts::change_chart(view.comparisons, view.alpha, view.verdict_alpha)?,
            );
        }
        Ok(())
    }

    fn classes(&mut self, view: &ReportView<'_>) -> anyhow::Result<()> {
        let Some(run) = view.run else {
            return Ok(());
        };
        let mut levels: Vec<u32> = run
            .judgement
            .query_classes
            .iter()
            .map(|c| c.threads)
            .collect();
        levels.dedup();
        for threads in levels {
            figure(
                &mut self.out,
                &charts::classes_chart(&run.judgement.query_classes, threads, view.alpha)?,
            );
        }
        Ok(())
    }

    fn table(&mut self, table: &Table) {
        let _ = write!(self.out, "<table id=\"{0}\" class=\"{0}\"><tr>", table.id);
        // Numbers right-aligned, words left: from the table's own column kinds.
        let numeric = |index: usize| table.numeric.get(index).copied().unwrap_or(false);
        for (index, cell) in table.header.iter().enumerate() {
            let class = if numeric(index) { " class=\"num\"" } else { "" };
            let _ = write!(self.out, "<th{class}>{}</th>", escape(cell));
        }
        let _ = writeln!(self.out, "</tr>");
        for cells in &table.rows {
            let _ = write!(self.out, "<tr>");
            for (index, cell) in cells.iter().enumerate() {
                let mut classes = Vec::new();
                if numeric(index) {
                    classes.push("num");
                }
                if Some(index) == table.verdict_column {
                    classes.push(cell.as_str());
                }
                let class = if classes.is_empty() {
                    String::new()
                } else {
                    format!(" class=\"{}\"", classes.join(" "))
                };
                let _ = write!(self.out, "<td{class}>{}</td>", escape(cell));
            }
            let _ = writeln!(self.out, "</tr>");
        }
        let _ = writeln!(self.out, "</table>");
    }

    fn label(&mut self, text: &str) {
        let _ = writeln!(self.out, "<h2>{}</h2>", escape(text));
    }

    fn notes(&mut self, notes: &[String]) {
        for note in notes {
            let _ = writeln!(self.out, "<p class=\"power\">Power: {}</p>", escape(note));
        }
    }

    /// Each level's rounds in run order and its latency curves, then the sweep.
    fn charts(&mut self, view: &ReportView<'_>) -> anyhow::Result<()> {
        let Some(run) = view.run else {
            return Ok(());
        };
        let rounds = &run.record.rounds;
        let _ = writeln!(self.out, "<h2>Charts</h2>");
        let mut levels: Vec<u32> = rounds.iter().map(|r| r.threads).collect();
        levels.sort_unstable();
        levels.dedup();
        for threads in &levels {
            let tps = view
                .comparisons
                .iter()
                .find(|c| c.threads == *threads && c.metric == Metric::Tps);
            figure(
                &mut self.out,
                &charts::rounds_chart(rounds, &view.names, *threads, tps)?,
            );
            figure(
                &mut self.out,
                &charts::latency_chart(rounds, &view.names, *threads)?,
            );
        }
        if levels.len() > 1 {
            figure(
                &mut self.out,
                &charts::sweep_chart(view.comparisons, &view.names)?,
            );
        }
        Ok(())
    }

    fn section(&mut self, text: &str) {
        let _ = writeln!(self.out, "<h2>{}</h2>", escape(text));
    }

    fn paragraph(&mut self, text: &str) {
        let _ = writeln!(self.out, "<p>{}</p>", escape(text));
    }

    fn list(&mut self, items: &[String]) {
        let _ = writeln!(self.out, "<ul>");
        for item in items {
            let _ = writeln!(self.out, "<li>{}</li>", escape(item));
        }
        let _ = writeln!(self.out, "</ul>");
    }

    fn code(&mut self, text: &str) {
        let _ = writeln!(self.out, "<pre>{}</pre>", escape(text));
    }

    fn finish(&mut self) -> String {
        self.out.push_str("</body></html>\n");
        std::mem::take(&mut self.out)
    }
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
