//! The ticket report as one sequence of blocks — title, headline, results, explanatory
//! metrics, sweep, power, charts, method, differences, environment, warnings, the
//! command to reproduce — written once here and drawn by a [`Markup`] per format
//! (Markdown, HTML, Jira), so the formats cannot drift apart (the shape of hyperfine's
//! `export/markup.rs`).

use super::{ReportView, Run, class_timing, classes, sections};
use crate::stats::compare::Family;

/// A table of a report.
pub(crate) struct Table {
    /// A name for the table (HTML `id`).
    pub(crate) id: &'static str,
    /// Column titles.
    pub(crate) header: Vec<String>,
    /// Cells, row by row.
    pub(crate) rows: Vec<Vec<String>>,
    /// Whether each column holds numbers (right-aligned).
    pub(crate) numeric: Vec<bool>,
    /// The column holding a verdict, styled by it.
    pub(crate) verdict_column: Option<usize>,
}

/// How one format draws the blocks of a report.
pub(crate) trait Markup {
    /// The document's start and its title.
    fn title(&mut self, text: &str);
    /// The one-sentence result, marked by the overall verdict.
    fn headline(&mut self, text: &str, status: Option<&str>);
    /// Before the results table: HTML draws the change chart there.
    fn lead(&mut self, _view: &ReportView<'_>) -> anyhow::Result<()> {
        Ok(())
    }
    /// Before the query classes table: HTML draws the classes' changes there.
    fn classes(&mut self, _view: &ReportView<'_>) -> anyhow::Result<()> {
        Ok(())
    }
    /// A table.
    fn table(&mut self, table: &Table);
    /// A label above a block inside the results part (not a section).
    fn label(&mut self, text: &str);
    /// The power notes.
    fn notes(&mut self, notes: &[String]);
    /// After the results part, for a saved run: HTML draws its charts there.
    fn charts(&mut self, _view: &ReportView<'_>) -> anyhow::Result<()> {
        Ok(())
    }
    /// A section heading.
    fn section(&mut self, text: &str);
    /// A paragraph.
    fn paragraph(&mut self, text: &str);
    /// A bullet list.
    fn list(&mut self, items: &[String]);
    /// A command, verbatim.
    fn code(&mut self, text: &str);
    /// The finished document.
    fn finish(&mut self) -> String;
}

/// Draws the report of `view` with `markup`.
pub(crate) fn render(view: &ReportView<'_>, markup: &mut dyn Markup) -> anyhow::Result<String> {
    markup.title(&format!("abtest: {} vs {}", view.names[0], view.names[1]));
    markup.headline(&view.headline(), view.status_label());
    markup.lead(view)?;
    markup.table(&results_table(view, Family::Confirmatory, "results"));
    if let Some(note) = super::answer::levels_note(view) {
        markup.paragraph(&note);
    }
    let steps = super::next_steps::lines(view);
    if !steps.is_empty() {
        markup.label("Next steps");
        markup.list(&steps);
    }
    if view.has(Family::Explanatory) {
        markup.label(sections::EXPLANATORY_TITLE);
        markup.table(&results_table(view, Family::Explanatory, "explanatory"));
    }
    if view.levels().len() > 1 {
        markup.label("Sweep summary");
        markup.table(&Table {
            id: "sweep",
            header: sections::sweep_header(view.alpha).to_vec(),
            rows: sections::sweep_rows(view)
                .into_iter()
                .map(Vec::from)
                .collect(),
            numeric: vec![true, true, true, false, false],
            verdict_column: None,
        });
    }
    if let Some(run) = view.run.filter(|r| !r.judgement.query_classes.is_empty()) {
        markup.label(classes::TITLE);
        markup.classes(view)?;
        markup.table(&Table {
            id: "classes",
            header: classes::header(view.alpha),
            rows: classes::rows(&run.judgement.query_classes),
            numeric: classes::numeric(),
            verdict_column: None,
        });
    }
    if let Some(run) = view.run.filter(|r| !r.judgement.timed_classes.is_empty()) {
        let tolerance = run
            .judgement
            .analysis
            .as_ref()
            .and_then(|a| a.max_class_slowdown);
        markup.label(class_timing::TITLE);
        markup.table(&Table {
            id: "class-timing",
            header: class_timing::header(view.alpha, tolerance),
            rows: class_timing::rows(&run.judgement.timed_classes),
            numeric: class_timing::numeric(),
            verdict_column: Some(5),
        });
        if let Some(timing) = &run.record.class_timing {
            markup.paragraph(&class_timing::footnote(timing));
        }
    }
    let notes = view.power_notes();
    if !notes.is_empty() {
        markup.notes(&notes);
    }
    if let Some(record) = view.run.map(|r| r.record).filter(|r| !r.looks.is_empty()) {
        markup.label("Sequential looks");
        markup.table(&Table {
            id: "looks",
            header: sections::looks_header().to_vec(),
            rows: sections::looks_rows(record)
                .into_iter()
                .map(Vec::from)
                .collect(),
            numeric: vec![true, true, true, false, true, false, true],
            verdict_column: Some(5),
        });
        if let Some(reason) = &record.stopped {
            markup.paragraph(&format!("Stopped: {reason}."));
        }
    }
    if let Some(Run { record, judgement }) = view.run {
        markup.charts(view)?;
        markup.section("Method");
        markup.paragraph(&sections::method(
            record,
            view.comparisons,
            view.alpha,
            view.verdict_alpha,
        ));
        markup.section("What differs between the sides");
        let differences = sections::differences(record);
        if differences.is_empty() {
            markup.paragraph(sections::NO_DIFFERENCE);
        } else {
            markup.table(&Table {
                id: "diff",
                header: ["variable", "baseline", "variant"]
                    .map(String::from)
                    .to_vec(),
                rows: differences.into_iter().map(Vec::from).collect(),
                numeric: vec![false; 3],
                verdict_column: None,
            });
        }
        if let Some(servers) = &record.servers {
            let mut text = servers.sentence();
            if let Some(ms) = median_put_in_place_ms(&record.rounds) {
                text.push_str(&format!(
                    ". Putting a side's settings in place took a median {ms:.1} ms a round"
                ));
            }
            markup.paragraph(&format!("{text}."));
            markup.list(&servers.switched);
        }
        for (title, rows) in sections::defaults_files(record) {
            markup.section(&title);
            markup.table(&Table {
                id: "defaults-file",
                header: ["option", "value", "what abtest did"]
                    .map(String::from)
                    .to_vec(),
                rows,
                numeric: vec![false; 3],
                verdict_column: None,
            });
        }
        if let Some(check) = &record.result_check {
            markup.section("Answers");
            markup.paragraph(&format!("{}.", check.summary()));
            let rows = sections::answer_rows(check);
            if !rows.is_empty() {
                markup.table(&Table {
                    id: "answers",
                    header: [
                        "answers",
                        "query class",
                        "statements",
                        "first statement [parameters]",
                        "baseline",
                        "variant",
                        "where they differ, why not compared, advice",
                    ]
                    .map(String::from)
                    .to_vec(),
                    rows,
                    numeric: vec![false, false, true, false, false, false, false],
                    verdict_column: None,
                });
            }
        }
        if record.data_restore.is_some() || !record.assigned_ids.is_empty() {
            markup.section("Data");
        }
        if let Some(restore) = &record.data_restore {
            markup.paragraph(&format!("{}.", restore.sentence()));
        }
        if !record.assigned_ids.is_empty() {
            let sentence = crate::results::data_restore::rebased_sentence(&record.assigned_ids);
            markup.paragraph(&format!("{sentence}."));
        }
        markup.section("Environment");
        markup.list(&sections::environment(record, judgement.noise.as_ref()));
        if let Some(noise) = &judgement.noise {
            markup.section("Noise budget");
            markup.list(&noise.lines());
        }
    }
    if !view.warnings.is_empty() {
        markup.section("Warnings");
        markup.list(&view.warnings);
    }
    if let Some(command) = view.run.and_then(|r| sections::reproduce(r.record)) {
        markup.section("Reproduce");
        markup.code(&command);
    }
    Ok(markup.finish())
}

/// The median time putting a side's settings in place on a shared server took a round.
fn median_put_in_place_ms(rounds: &[crate::results::RoundRecord]) -> Option<f64> {
    let mut ms: Vec<f64> = rounds
        .iter()
        .filter_map(|r| r.server_settings.as_ref().map(|s| s.put_in_place_ms))
        .collect();
    ms.sort_by(f64::total_cmp);
    ms.get(ms.len() / 2).copied()
}

fn results_table(view: &ReportView<'_>, family: Family, id: &'static str) -> Table {
    let header = sections::header(view, family);
    Table {
        id,
        verdict_column: Some(header.len() - 1),
        header,
        rows: sections::rows(view, family),
        numeric: sections::numeric_columns(view, family),
    }
}
