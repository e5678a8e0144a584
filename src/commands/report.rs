//! `abtest report RESULTS.json --format ...`: re-render any report from a saved run.

use crate::cli::{ReportArgs, ReportFormat};
use crate::exit::{self, UsageError};
use crate::report::{self, ReportView};
use crate::results;

/// Renders the report to stdout or `--output`.
pub fn execute(args: &ReportArgs) -> anyhow::Result<i32> {
    let results = results::load(&args.file).map_err(|e| UsageError::err(format!("{e:#}")))?;
    let view = ReportView::of_results(&results);
    let text = match args.format {
        ReportFormat::Table => report::table::render(&view),
        ReportFormat::Markdown => report::markdown::render(&view),
        ReportFormat::Html => report::html::render(&view)?,
        ReportFormat::Csv => report::csv::render(&results)?,
        ReportFormat::Json => report::json::render(&view),
    };
    match &args.output {
        Some(path) => results::write_atomic(path, text.as_bytes())?,
        None => print!("{text}"),
    }
    Ok(exit::SUCCESS)
}
