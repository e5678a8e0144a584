//! The Jira report: the Markdown report's content in Jira wiki markup (`h1.`, `||`
//! header cells, `{code}`), for change tickets in a Jira that does not render Markdown.

use std::fmt::Write as _;

use super::{ReportView, sections};
use crate::stats::compare::Family;

/// Renders the report as Jira wiki markup.
pub(crate) fn render(view: &ReportView<'_>) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "h1. abtest: {} vs {}\n",
        escape(&view.names[0]),
        escape(&view.names[1])
    );
    let _ = writeln!(out, "*Result:* {}\n", escape(&view.headline()));
    results_table(view, Family::Confirmatory, &mut out);
    if view.has(Family::Explanatory) {
        let _ = writeln!(out, "\n*{}*\n", sections::EXPLANATORY_TITLE);
        results_table(view, Family::Explanatory, &mut out);
    }
    if view.levels().len() > 1 {
        let _ = writeln!(out, "\n*Sweep summary*\n");
        let _ = writeln!(out, "{}", header_row(&sections::sweep_header(view.alpha)));
        for row in sections::sweep_rows(view) {
            let _ = writeln!(out, "{}", row_of(&row));
        }
    }
    for note in view.power_notes() {
        let _ = writeln!(out, "* Power: {}", escape(&note));
    }
    if let Some(results) = view.results {
        let _ = writeln!(
            out,
            "\nh2. Method\n\n{}",
            escape(&sections::method(results, view.alpha))
        );
        let _ = writeln!(out, "\nh2. What differs between the sides\n");
        let differences = sections::differences(results);
        if differences.is_empty() {
            let _ = writeln!(out, "{}", sections::NO_DIFFERENCE);
        } else {
            let _ = writeln!(out, "||variable||baseline||variant||");
            for row in differences {
                let _ = writeln!(out, "{}", row_of(&row));
            }
        }
        let _ = writeln!(out, "\nh2. Environment\n");
        for line in sections::environment(results) {
            let _ = writeln!(out, "* {}", escape(&line));
        }
    }
    if !view.warnings.is_empty() {
        let _ = writeln!(out, "\nh2. Warnings\n");
        for warning in &view.warnings {
            let _ = writeln!(out, "* {}", escape(warning));
        }
    }
    if let Some(command) = view.results.and_then(sections::reproduce) {
        let _ = writeln!(out, "\nh2. Reproduce\n\n{{code}}\n{command}\n{{code}}");
    }
    out
}

fn results_table(view: &ReportView<'_>, family: Family, out: &mut String) {
    let _ = writeln!(out, "{}", header_row(&sections::header(view.alpha)));
    for row in sections::rows(view, family) {
        let _ = writeln!(out, "{}", row_of(&row.cells));
    }
}

fn header_row(cells: &[String]) -> String {
    let cells: Vec<String> = cells.iter().map(|c| escape(c)).collect();
    format!("||{}||", cells.join("||"))
}

fn row_of(cells: &[String]) -> String {
    let cells: Vec<String> = cells
        .iter()
        .map(|c| if c.is_empty() { " ".into() } else { escape(c) })
        .collect();
    format!("|{}|", cells.join("|"))
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
