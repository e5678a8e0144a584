//! The Markdown report, the attachment of a change ticket: a one-line verdict, the
//! results table, the method in one paragraph, what differs between the sides, the
//! environment, and the command that reproduces the run. Plain pipe tables and fenced
//! code only, so it renders on GitHub and in Jira alike.

use std::fmt::Write as _;

use super::{ReportView, sections};
use crate::stats::compare::Family;

/// Renders the Markdown report.
pub(crate) fn render(view: &ReportView<'_>) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# abtest: {} vs {}\n",
        escape(&view.names[0]),
        escape(&view.names[1])
    );
    let _ = writeln!(out, "**Result:** {}\n", view.headline());
    results_table(view, Family::Confirmatory, &mut out);
    if view.has(Family::Explanatory) {
        let _ = writeln!(out, "\n**{}**\n", sections::EXPLANATORY_TITLE);
        results_table(view, Family::Explanatory, &mut out);
    }
    if view.levels().len() > 1 {
        let _ = writeln!(
            out,
            "\n**Sweep summary**\n\n{}",
            table_row(&sections::sweep_header(view.alpha))
        );
        let _ = writeln!(out, "|---:|---:|---:|---|---|");
        for row in sections::sweep_rows(view) {
            let _ = writeln!(out, "{}", table_row(&row));
        }
    }
    let notes = view.power_notes();
    if !notes.is_empty() {
        let _ = writeln!(out, "\n**Power:**\n");
        for note in notes {
            let _ = writeln!(out, "- {note}");
        }
    }
    if let Some(results) = view.results {
        let _ = writeln!(
            out,
            "\n## Method\n\n{}",
            sections::method(results, view.alpha)
        );
        let _ = writeln!(out, "\n## What differs between the sides\n");
        let differences = sections::differences(results);
        if differences.is_empty() {
            let _ = writeln!(out, "{}", sections::NO_DIFFERENCE);
        } else {
            let _ = writeln!(out, "| variable | baseline | variant |\n|---|---|---|");
            for row in differences {
                let _ = writeln!(out, "{}", table_row(&row));
            }
        }
        let _ = writeln!(out, "\n## Environment\n");
        for line in sections::environment(results) {
            let _ = writeln!(out, "- {}", escape(&line));
        }
    }
    if !view.warnings.is_empty() {
        let _ = writeln!(out, "\n## Warnings\n");
        for warning in &view.warnings {
            let _ = writeln!(out, "- {}", escape(warning));
        }
    }
    if let Some(command) = view.results.and_then(sections::reproduce) {
        let _ = writeln!(out, "\n## Reproduce\n\n```\n{command}\n```");
    }
    out
}

fn results_table(view: &ReportView<'_>, family: Family, out: &mut String) {
    let _ = writeln!(out, "{}", table_row(&sections::header(view.alpha)));
    let _ = writeln!(out, "|---:|---|---:|---:|---|---:|---:|---|");
    for row in sections::rows(view, family) {
        let _ = writeln!(out, "{}", table_row(&row.cells));
    }
}

fn table_row(cells: &[String]) -> String {
    let cells: Vec<String> = cells.iter().map(|c| escape(c)).collect();
    format!("| {} |", cells.join(" | "))
}

/// Escapes the characters that would break a pipe table.
fn escape(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}
