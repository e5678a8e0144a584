//! The terminal summary on stdout. The answer comes first — the verdict sentence and one
//! row per thread level, fitting a 100-column terminal — because that is what the
//! person who started the run is waiting for; the full tables follow (one row per
//! thread level and metric, the sweep, the looks, the power notes), as the record of
//! how the answer was reached. They follow rather than wait for a flag: stdout's
//! contract is those tables, and scripts and tickets read them. On a terminal every
//! line fits its width (cells and sentences wrap); a pipe or a file gets whole lines.

use comfy_table::{
    Attribute, Cell, CellAlignment, Color, ColumnConstraint, ContentArrangement, LineStyle, Table,
    TableStyle, Width, presets,
};

use super::{
    ReportView, answer, class_timing, classes, decision, format, judgement, next_steps, sections,
};
use crate::results::classes::ClassComparison;
use crate::stats::compare::{Comparison, Family};
use crate::stats::verdict::Verdict;

/// The most query classes the terminal shows per thread level.
const CLASSES_SHOWN: usize = 12;

/// Renders the answer and the tables, in colour when stdout may have it, fitted to the
/// terminal's width (a pipe or a file gets whole lines).
pub(crate) fn render(view: &ReportView<'_>) -> String {
    render_styled(
        view,
        crate::terminal::colour_on_stdout(),
        crate::terminal::stdout_columns(),
    )
}

/// Renders the answer first — the verdict sentence, one row per thread level, the next
/// steps of an INCONCLUSIVE — then the full tables: one block per thread level, a sweep
/// summary when there are several, the looks and the power notes. `color` highlights
/// verdicts and significant changes; `columns`, when known, is the width every line
/// fits (tables wrap their cells, sentences their words).
pub(crate) fn render_styled(view: &ReportView<'_>, color: bool, columns: Option<u16>) -> String {
    format!(
        "{}\n{}",
        answer(view, color, columns),
        details(view, color, columns)
    )
}

/// The answer: the headline, the sides, one row per level and judged metric, the note
/// on the bounds' level, and the next steps.
fn answer(view: &ReportView<'_>, color: bool, columns: Option<u16>) -> String {
    let fit = |text: &str| format!("{}\n", crate::terminal::wrap(text, columns));
    let mut out = fit(&view.headline());
    out.push_str(&fit(&format!("baseline: {}", view.names[0])));
    out.push_str(&fit(&format!("variant:  {}", view.names[1])));
    let rows = answer::comparisons(view);
    if !rows.is_empty() {
        let shape = answer::Columns::of(&rows);
        let mut table = new_table(shape.header(view), color);
        table.load_style(ANSWER_STYLE);
        for c in &rows {
            let mut cells: Vec<Cell> = shape.cells(c).into_iter().map(Cell::new).collect();
            if let Some(last) = cells.pop() {
                cells.push(styled(last, c, color));
            }
            table.add_row(cells);
        }
        align_numbers(&mut table, &shape.numeric());
        // Two spaces between columns (one after the right-aligned threads) and none
        // after the last: the rows read as text and keep every column a narrow
        // terminal can spare.
        let last = shape.numeric().len().saturating_sub(1);
        for (i, column) in table.column_iter_mut().enumerate() {
            column.set_padding(match i {
                0 => (0, 1),
                i if i == last => (0, 0),
                _ => (0, 2),
            });
        }
        for line in fitted(&mut table, columns).lines() {
            out.push_str(&format!("{}\n", line.trim_end()));
        }
    }
    if let Some(note) = answer::levels_note(view) {
        out.push_str(&fit(&note));
    }
    let steps = next_steps::lines(view);
    if !steps.is_empty() {
        out.push_str("next steps:\n");
        for step in steps {
            out.push_str(&fit(&format!("- {step}")));
        }
    }
    out
}

/// The answer's rows: no borders, a rule under the header (the answer reads as text,
/// and every column it saves is one a 100-column terminal keeps).
const ANSWER_STYLE: TableStyle =
    TableStyle::new().header_separator(LineStyle::none().fill('\u{2500}').junction('\u{2500}'));

/// Right-aligns the columns that hold numbers.
fn align_numbers(table: &mut Table, numeric: &[bool]) {
    for (column, numeric) in table.column_iter_mut().zip(numeric) {
        if *numeric {
            column.set_cell_alignment(CellAlignment::Right);
        }
    }
}

/// The full tables, the way the answer was reached.
fn details(view: &ReportView<'_>, color: bool, columns: Option<u16>) -> String {
    let levels = view.levels();
    let mut out = String::new();
    for threads in &levels {
        let block = |family| -> Vec<&Comparison> {
            view.comparisons
                .iter()
                .filter(|c| c.threads == *threads && c.family == family)
                .collect()
        };
        out.push_str(&format!(
            "{}\n",
            fitted_full(
                &mut level_table(view, &block(Family::Confirmatory), color),
                columns
            )
        ));
        let explanatory = block(Family::Explanatory);
        if !explanatory.is_empty() {
            out.push_str(&format!(
                "{}\n{}\n",
                crate::terminal::wrap(sections::EXPLANATORY_TITLE, columns),
                fitted_full(&mut level_table(view, &explanatory, color), columns)
            ));
        }
        if let Some(run) = view.run {
            out.push_str(&classes_table(
                view,
                &run.judgement.query_classes,
                *threads,
                (color, columns),
            ));
        }
    }
    if let Some(run) = view.run {
        out.push_str(&class_timing_table(view, &run, (color, columns)));
    }
    if levels.len() > 1 {
        out.push_str(&format!(
            "sweep summary\n{}\n",
            fitted_full(&mut sweep_table(view, color), columns)
        ));
    }
    let fit = |text: &str| format!("{}\n", crate::terminal::wrap(text, columns));
    if let Some(note) = view
        .run
        .and_then(|r| sections::adjustment_note(&r.judgement.comparisons, view.alpha))
    {
        out.push_str(&fit(&note));
    }
    if let Some(record) = view.run.map(|r| r.record).filter(|r| !r.looks.is_empty()) {
        let mut looks = new_table(sections::looks_header().to_vec(), color);
        for row in sections::looks_rows(record) {
            looks.add_row(row.to_vec());
        }
        out.push_str(&format!("looks\n{}\n", fitted_full(&mut looks, columns)));
        if let Some(reason) = &record.stopped {
            out.push_str(&fit(&format!("stopped: {reason}")));
        }
    }
    let notes = view.power_notes();
    if !notes.is_empty() {
        out.push_str("power:\n");
        for note in notes {
            out.push_str(&fit(&format!("  {note}")));
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

/// `table` as text within `columns`: whole when it fits (or there is no width), else
/// with its cells wrapped to the width. Asked first whole, because comfy-table's own
/// fitting counts borders the answer's style does not draw, and would wrap a table
/// that fits.
fn fitted(table: &mut Table, columns: Option<u16>) -> String {
    let whole = table.to_string();
    let Some(width) = columns else {
        return whole;
    };
    if whole
        .lines()
        .all(|l| l.chars().count() <= usize::from(width))
    {
        return whole;
    }
    table
        .set_width(width)
        .set_content_arrangement(ContentArrangement::Dynamic);
    table.to_string()
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

/// A full table within `columns`: whole when it fits; else drawn with horizontal lines
/// only (the vertical borders cost a tenth of a 100-column line) and wrapped at spaces,
/// every column at least as wide as its longest word, so a wrapped table reads
/// "INCONCLUSIVE" and "tolerance)", never "INCONCLUS" above "IVE".
fn fitted_full(table: &mut Table, columns: Option<u16>) -> String {
    let whole = fitted(table, None);
    let fits = |text: &str, width: u16| {
        text.lines()
            .all(|l| l.chars().count() <= usize::from(width))
    };
    match columns {
        Some(width) if !fits(&whole, width) => {
            table.load_style(presets::UTF8_HORIZONTAL_ONLY);
            // One space between columns before any word is split: at 100 columns a
            // nine-column table keeps "INCONCLUSIVE" whole that way.
            for padding in [(1, 1), (0, 1)] {
                keep_words_whole(table, padding);
                let wrapped = fitted(table, columns);
                if fits(&wrapped, width) {
                    return wrapped;
                }
            }
            // Narrower than the longest words: words split too, but every line fits.
            for column in table.column_iter_mut() {
                column.remove_constraint();
            }
            fitted(table, columns)
        }
        _ => whole,
    }
}

/// Each column at least as wide as its longest word, header included, with `padding`
/// (left, right) around it.
fn keep_words_whole(table: &mut Table, padding: (u16, u16)) {
    let longest = |cells: Vec<String>| {
        cells
            .iter()
            .flat_map(|cell| cell.split_whitespace().map(|w| w.chars().count()))
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..table.column_count())
        .map(|i| {
            let header = table
                .header()
                .and_then(|h| h.cell_iter().nth(i))
                .map(|c| c.content());
            let cells = table
                .row_iter()
                .filter_map(|row| row.cell_iter().nth(i).map(|c| c.content()))
                .chain(header)
                .collect();
            longest(cells)
        })
        .collect();
    for (column, width) in table.column_iter_mut().zip(widths) {
        let width = u16::try_from(width)
            .unwrap_or(u16::MAX)
            .saturating_add(padding.0 + padding.1);
        column.set_padding(padding);
        column.set_constraint(ColumnConstraint::LowerBoundary(Width::Fixed(width)));
    }
}

/// The query classes of one level, the slowest change first, at most
/// [`CLASSES_SHOWN`] of them; empty when the run has no class table.
fn classes_table(
    view: &ReportView<'_>,
    query_classes: &[ClassComparison],
    threads: u32,
    (color, columns): (bool, Option<u16>),
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
    let mut out = format!("{}\n{}\n", classes::TITLE, fitted_full(&mut table, columns));
    if rows.len() > CLASSES_SHOWN {
        out.push_str(&format!(
            "… and {} more query classes: see the Markdown or HTML report, or the results file\n",
            rows.len() - CLASSES_SHOWN
        ));
    }
    out
}

/// The classes timed on idle servers, every one of them (the slowest first): a class
/// that decides a NO-GO is never the one left off.
fn class_timing_table(
    view: &ReportView<'_>,
    run: &super::Run<'_>,
    (color, columns): (bool, Option<u16>),
) -> String {
    let judged = &run.judgement.timed_classes;
    let Some(timing) = run
        .record
        .class_timing
        .as_ref()
        .filter(|_| !judged.is_empty())
    else {
        return String::new();
    };
    let tolerance = run
        .judgement
        .analysis
        .as_ref()
        .and_then(|a| a.max_class_slowdown);
    let mut table = new_table(class_timing::header(view.alpha, tolerance), color);
    align_numbers(&mut table, &class_timing::numeric());
    for row in class_timing::rows(judged) {
        table.add_row(row);
    }
    format!(
        "{}\n{}\n{}\n",
        crate::terminal::wrap(class_timing::TITLE, columns),
        fitted_full(&mut table, columns),
        crate::terminal::wrap(&class_timing::footnote(timing), columns)
    )
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
