//! `abtest analyze FILE`: re-analyse a saved run, or a CSV of per-round values from any
//! tool, with other α, tolerances or percentiles, and no database.

use std::path::Path;

use crate::analysis::{self, AnalysisOptions};
use crate::cli::{AnalyzeArgs, ReportFormat};
use crate::exit::{self, UsageError};
use crate::report::ReportView;
use crate::results::{self, ResultsFile};
use crate::roundcsv;
use crate::stats::compare::{Sample, Unit};
use crate::stats::metric::Metric;

/// Analyses the file and prints the report; the exit code follows the verdict.
pub(crate) fn execute(args: &AnalyzeArgs) -> anyhow::Result<i32> {
    let options = crate::plan::args::analysis_options(&args.analysis, &AnalysisOptions::default())?;
    let output = if is_json(&args.file)? {
        let mut results = load_results(&args.file)?;
        results.analyze(&options);
        render(&ReportView::of_results(&results), args.format)?
    } else {
        let samples = roundcsv::read(&args.file)?;
        refuse_absent_tolerance_metrics(&samples, &options, &args.file)?;
        let analysis = analysis::analyze(&samples, Unit::Round, &options);
        let view = ReportView {
            names: ["baseline".into(), "variant".into()],
            comparisons: &analysis.comparisons,
            verdict: analysis.verdict,
            unchecked: &analysis.unchecked,
            warnings: analysis.warnings.clone(),
            alpha: options.alpha,
            results: None,
        };
        render(&view, args.format)?
    };
    print!("{}", output.0);
    Ok(output.1.map_or(exit::SUCCESS, |v| v.exit_code()))
}

/// A tolerance on a metric the CSV does not have is a mistake in the command, not a
/// finding about the data: exit 2, naming the metrics there are. (In a run's results
/// file no `error_rate` means no errors; in a CSV it means nobody recorded them.)
fn refuse_absent_tolerance_metrics(
    samples: &[Sample],
    options: &AnalysisOptions,
    file: &Path,
) -> anyhow::Result<()> {
    let mut absent = analysis::absent_tolerance_metrics(samples, options);
    if options.max_error_rate.is_some() && !samples.iter().any(|s| s.metric == Metric::ErrorRate) {
        absent.push("error_rate".into());
    }
    if absent.is_empty() {
        return Ok(());
    }
    let mut columns: Vec<String> = samples.iter().map(|s| s.metric.to_string()).collect();
    columns.sort_unstable();
    columns.dedup();
    Err(UsageError::err(format!(
        "{}: the tolerances need {}, which the file does not have (its metrics: {}); \
         drop the tolerance or add the column",
        file.display(),
        absent.join(", "),
        columns.join(", ")
    )))
}

fn render(
    view: &ReportView<'_>,
    format: ReportFormat,
) -> anyhow::Result<(String, Option<crate::stats::verdict::Verdict>)> {
    if format == ReportFormat::Table {
        for warning in &view.warnings {
            eprintln!("abtest: warning: {warning}");
        }
    }
    Ok((super::report::render(view, format)?, view.verdict))
}

/// A file is read as results JSON when its first non-blank character is `{`.
fn is_json(path: &Path) -> anyhow::Result<bool> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| UsageError::err(format!("{}: cannot read it ({e})", path.display())))?;
    Ok(text.trim_start().starts_with('{'))
}

fn load_results(path: &Path) -> anyhow::Result<ResultsFile> {
    results::load(path).map_err(|e| UsageError::err(format!("{e:#}")))
}
