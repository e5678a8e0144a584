//! The Jira report: the shared [`document`](super::document) sequence in Jira wiki
//! markup (`h1.`, `||` header cells, `{code}`), for change tickets in a Jira that does
//! not render Markdown.

use std::fmt::Write as _;

use super::ReportView;
use super::document::{self, Markup, Table};

/// Renders the report as Jira wiki markup.
pub(crate) fn render(view: &ReportView<'_>) -> anyhow::Result<String> {
    document::render(view, &mut Jira::default())
}

#[derive(Default)]
struct Jira {
    out: String,
}

impl Markup for Jira {
    fn title(&mut self, text: &str) {
        let _ = writeln!(self.out, "h1. {}\n", escape(text));
    }

    fn headline(&mut self, text: &str, _status: Option<&str>) {
        let _ = writeln!(self.out, "*Result:* {}\n", escape(text));
    }

    fn table(&mut self, table: &Table) {
        let header: Vec<String> = table.header.iter().map(|c| escape(c)).collect();
        let _ = writeln!(self.out, "||{}||", header.join("||"));
        for cells in &table.rows {
            let cells: Vec<String> = cells
                .iter()
                .map(|c| if c.is_empty() { " ".into() } else { escape(c) })
                .collect();
            let _ = writeln!(self.out, "|{}|", cells.join("|"));
        }
    }

    fn label(&mut self, text: &str) {
        let _ = writeln!(self.out, "\n*{}*\n", escape(text));
    }

    fn notes(&mut self, notes: &[String]) {
        for note in notes {
            let _ = writeln!(self.out, "* Power: {}", escape(note));
        }
    }

    fn section(&mut self, text: &str) {
        let _ = writeln!(self.out, "\nh2. {}\n", escape(text));
    }

    fn paragraph(&mut self, text: &str) {
        let _ = writeln!(self.out, "{}", escape(text));
    }

    fn list(&mut self, items: &[String]) {
        for item in items {
            let _ = writeln!(self.out, "* {}", escape(item));
        }
    }

    fn code(&mut self, text: &str) {
        let _ = writeln!(self.out, "{{code}}\n{text}\n{{code}}");
    }

    fn finish(&mut self) -> String {
        std::mem::take(&mut self.out)
    }
}

/// Escapes what Jira reads as markup: table and link brackets, macros, bold and
/// italics anywhere; `-`, `+`, `^`, `~` and `?` only where they can open an effect, at
/// the start of a word, so `NO-GO` and `p95` stay readable.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut word_start = true;
    for ch in text.chars() {
        let always = matches!(ch, '|' | '[' | ']' | '{' | '}' | '*' | '_');
        let opening = matches!(ch, '-' | '+' | '^' | '~' | '?') && word_start;
        if always || opening {
            out.push('\\');
        }
        out.push(if ch == '\n' { ' ' } else { ch });
        word_start = ch.is_whitespace() || matches!(ch, '(' | '[');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn markup_characters_are_escaped() {
        assert_eq!(escape("-1.5 % [a|b]"), "\\-1.5 % \\[a\\|b\\]");
        assert_eq!(escape("NO-GO [-4, +2]"), "NO-GO \\[\\-4, \\+2\\]");
        assert_eq!(escape("server_cpu"), "server\\_cpu");
    }
}
