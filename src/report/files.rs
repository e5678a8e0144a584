//! Writing the report files of a run. The results JSON and the rounds CSV are rewritten
//! after every round, so a crash loses nothing; Markdown and HTML are written at the end,
//! also when the run was interrupted or failed, and so is the JUnit XML of the verdicts. Every file is replaced atomically.

use super::{ReportView, csv, html, junit, markdown};
use crate::plan::Outputs;
use crate::results::{self, ResultsFile, write_atomic};

/// After a round: the JSON and the CSV.
pub(crate) fn write_progress(outputs: &Outputs, results: &ResultsFile) -> anyhow::Result<()> {
    if let Some(path) = &outputs.json {
        results::save(path, results)?;
    }
    if let Some(path) = &outputs.csv {
        write_atomic(path, csv::render(&results.record.rounds)?.as_bytes())?;
    }
    Ok(())
}

/// At the end: every file.
pub(crate) fn write_final(outputs: &Outputs, results: &ResultsFile) -> anyhow::Result<()> {
    write_progress(outputs, results)?;
    let view = ReportView::of_results(results);
    if let Some(path) = &outputs.markdown {
        write_atomic(path, markdown::render(&view)?.as_bytes())?;
    }
    if let Some(path) = &outputs.html {
        write_atomic(path, html::render(&view)?.as_bytes())?;
    }
    if let Some(path) = &outputs.junit {
        write_atomic(path, junit::render(&view).as_bytes())?;
    }
    Ok(())
}
