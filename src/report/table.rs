//! The terminal summary on stdout: one row per thread level and metric, the verdict,
//! and power notes when the data could not decide.

use comfy_table::{Attribute, Cell, Color, ContentArrangement, Table, presets};

use super::{ReportView, classes, decision, format, judgement, sections};
use crate::results::classes::ClassComparison;
use crate::stats::compare::{Comparison, Family};
use crate::stats::verdict::Verdict;

/// The most query classes the terminal shows per thread level.
const CLASSES_SHOWN: usize = 12;

/// Renders the comparison table, in colour when stdout may have it.
pub(crate) fn render(view: &ReportView<'_>) -> String {
    render_styled(view, crate::terminal::colour_on_stdout())
}

/// Renders the comparison table — one block per thread level, then a sweep summary when
/// there are several — with `color` highlighting verdicts and significant changes.
pub(crate) fn render_styled(view: &ReportView<'_>, color: bool) -> String {
    let levels = view.levels();
    let mut out = format!("baseline: {}\nvariant:  {}\n", view.names[0], view.names[1]);
    for threads in &levels {
        let block = |family| -> Vec<&Comparison> {
            view.comparisons
                .iter()
                .filter(|c| c.threads == *threads && c.family == family)
                .collect()
        };
        out.push_str(&format!(
            "{}\n",
            level_table(view, &block(Family::Confirmatory), color)
        ));
        let explanatory = block(Family::Explanatory);
        if !explanatory.is_empty() {
            out.push_str(&format!(
                "{}\n{}\n",
                sections::EXPLANATORY_TITLE,
                level_table(view, &explanatory, color)
            ));
        }
        if let Some(run) = view.run {
            out.push_str(&classes_table(
                view,
                &run.judgement.query_classes,
                *threads,
                color,
            ));
        }
    }
    if levels.len() > 1 {
        out.push_str(&format!("sweep summary\n{}\n", sweep_table(view, color)));
    }
    out.push_str(&format!("{}\n", view.headline()));
    if let Some(note) = view
        .run
        .and_then(|r| sections::adjustment_note(&r.judgement.comparisons, view.alpha))
    {
        out.push_str(&format!("{note}\n"));
    }
    if let Some(record) = view.run.map(|r| r.record).filter(|r| !r.looks.is_empty()) {
        let mut looks = new_table(sections::looks_header().to_vec(), color);
        for row in sections::looks_rows(record) {
            looks.add_row(row.to_vec());
        }
        out.push_str(&format!("looks\n{looks}\n"));
        if let Some(reason) = &record.stopped {
            out.push_str(&format!("stopped: {reason}\n"));
        }
    }
    let notes = view.power_notes();
    if !notes.is_empty() {
        out.push_str("power:\n");
        for note in notes {
            out.push_str(&format!("  {note}\n"));
        }
    }
    out
}

fn new_table(header: Vec<String>, color: bool) -> Table {
    let mut table = Table::new();
    if color {
        table.enforce_styling();
    } else {
        table.force_no_tty();
    }
    table
        .load_style(presets::UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(header);
    table
}

fn level_table(view: &ReportView<'_>, comparisons: &[&Comparison], color: bool) -> Table {
    let family = comparisons
        .first()
        .map_or(Family::Confirmatory, |c| c.family);
    let decisions = sections::has_decisions(view, family);
    let mut table = new_table(sections::header(view, family), color);
    for c in comparisons {
        let mut row = vec![
            Cell::new(c.threads),
            Cell::new(c.metric.label()),
            Cell::new(format::value(&c.metric, c.estimate_means[0])),
            Cell::new(format::value(&c.metric, c.estimate_means[1])),
            Cell::new(format::comparison_change(c)),
            Cell::new(format::p_value(c.p)),
            Cell::new(format::p_value(c.p_holm)),
        ];
        if decisions {
            row.push(styled(Cell::new(decision::cell(c)), c, color));
        }
        row.push(styled(Cell::new(judgement(c)), c, color));
        table.add_row(row);
    }
    table
}

/// The query classes of one level, the slowest change first, at most
/// [`CLASSES_SHOWN`] of them; empty when the run has no class table.
fn classes_table(
    view: &ReportView<'_>,
    query_classes: &[ClassComparison],
    threads: u32,
    color: bool,
) -> String {
    let rows: Vec<Vec<String>> = classes::rows(query_classes)
        .into_iter()
        .filter(|row| row[0] == threads.to_string())
        .collect();
    if rows.is_empty() {
        return String::new();
    }
    let mut table = new_table(classes::header(view.alpha), color);
    for row in rows.iter().take(CLASSES_SHOWN) {
        table.add_row(row.clone());
    }
    let mut out = format!("{}\n{table}\n", classes::TITLE);
    if rows.len() > CLASSES_SHOWN {
        out.push_str(&format!(
            "… and {} more query classes: see the Markdown or HTML report, or the results file\n",
            rows.len() - CLASSES_SHOWN
        ));
    }
    out
}

fn sweep_table(view: &ReportView<'_>, color: bool) -> Table {
    let mut table = new_table(sections::sweep_header(view.alpha).to_vec(), color);
    for row in sections::sweep_rows(view) {
        table.add_row(row.to_vec());
    }
    table
}

/// Colours a cell by the comparison's verdict; bold when significant.
fn styled(cell: Cell, c: &Comparison, color: bool) -> Cell {
    if !color {
        return cell;
    }
    let cell = match c.verdict {
        Some(Verdict::Go) => cell.fg(Color::Green),
        Some(Verdict::NoGo) => cell.fg(Color::Red),
        Some(Verdict::Inconclusive) => cell.fg(Color::Yellow),
        None => cell,
    };
    if c.significant {
        cell.add_attribute(Attribute::Bold)
    } else {
        cell
    }
}
