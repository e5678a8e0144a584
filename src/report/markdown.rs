//! The Markdown report, the attachment of a change ticket. Plain pipe tables and fenced
//! code only, so it renders on GitHub and in Jira alike; the blocks and their order are
//! the shared [`document`](super::document) sequence.

use std::fmt::Write as _;

use super::ReportView;
use super::document::{self, Markup, Table};

/// Renders the Markdown report.
pub(crate) fn render(view: &ReportView<'_>) -> anyhow::Result<String> {
    document::render(view, &mut Markdown::default())
}

#[derive(Default)]
struct Markdown {
    out: String,
}

impl Markup for Markdown {
    fn title(&mut self, text: &str) {
        let _ = writeln!(self.out, "# {}\n", escape(text));
    }

    fn headline(&mut self, text: &str, _status: Option<&str>) {
        let _ = writeln!(self.out, "**Result:** {text}\n");
    }

    fn table(&mut self, table: &Table) {
        let _ = writeln!(self.out, "{}", row(&table.header));
        let align: Vec<&str> = table
            .numeric
            .iter()
            .map(|&n| if n { "---:" } else { "---" })
            .collect();
        let _ = writeln!(self.out, "|{}|", align.join("|"));
        for cells in &table.rows {
            let _ = writeln!(self.out, "{}", row(cells));
        }
    }

    fn label(&mut self, text: &str) {
        let _ = writeln!(self.out, "\n**{text}**\n");
    }

    fn notes(&mut self, notes: &[String]) {
        let _ = writeln!(self.out, "\n**Power:**\n");
        for note in notes {
            let _ = writeln!(self.out, "- {note}");
        }
    }

    fn section(&mut self, text: &str) {
        let _ = writeln!(self.out, "\n## {text}\n");
    }

    fn paragraph(&mut self, text: &str) {
        // A blank line before and after: a paragraph line right below a table, or a
        // table right below a paragraph line, would be read as part of it.
        if !self.out.is_empty() && !self.out.ends_with("\n\n") {
            self.out.push('\n');
        }
        let _ = writeln!(self.out, "{text}\n");
    }

    fn list(&mut self, items: &[String]) {
        for item in items {
            let _ = writeln!(self.out, "- {}", escape(item));
        }
    }

    fn code(&mut self, text: &str) {
        let _ = writeln!(self.out, "```\n{text}\n```");
    }

    fn finish(&mut self) -> String {
        std::mem::take(&mut self.out)
    }
}

fn row(cells: &[String]) -> String {
    let cells: Vec<String> = cells.iter().map(|c| escape(c)).collect();
    format!("| {} |", cells.join(" | "))
}

/// Escapes the characters that would break a pipe table.
fn escape(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}
