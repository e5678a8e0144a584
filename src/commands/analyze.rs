//! `abtest analyze FILE`: re-analyse a saved run, or a CSV of per-round values from any
//! tool, with other α, tolerances or percentiles, and no database. A saved run keeps its
//! own settings (tolerances included) unless a flag replaces one, and the exit code is
//! the verdict's, as the run's was.

use std::path::{Path, PathBuf};

use crate::analysis::{self, AnalysisOptions};
use crate::cli::AnalyzeArgs;
use crate::exit::UsageError;
use crate::report::ReportView;
use crate::report::files::Outputs;
use crate::report::formats::{Format, Moment};
use crate::resolve::outputs::{Existing, Input, claim, named, stdout_once};
use crate::results::{self, ResultsFile, Stage};
use crate::roundcsv;
use crate::stats::compare::{Sample, Unit};
use crate::stats::metric::Metric;

/// Analyses the file and prints the report; the exit code follows the verdict.
pub(crate) fn execute(args: &AnalyzeArgs) -> anyhow::Result<i32> {
    let files = &args.outputs.outputs;
    stdout_once(files, true)?;
    let _claimed = claim(
        &named(files),
        &[Input::new(&args.file, "the file being analysed")],
        Existing::Kept { overwrite: false },
    )?;
    if is_json(&args.file)? {
        let saved = load_results(&args.file)?;
        let settings = saved.judgement.analysis.clone().unwrap_or_default();
        let options = crate::resolve::args::analysis_options(&args.analysis, &settings)?;
        let judgement = results::judge(&saved.record, &options, Stage::AsItStands);
        return write(&ReportView::of_run(&saved.record, &judgement), args);
    }
    refuse_run_outputs(files, args.format)?;
    let options =
        crate::resolve::args::analysis_options(&args.analysis, &AnalysisOptions::default())?;
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
        verdict_alpha: options.verdict_level(),
        run: None,
        partial: None,
    };
    write(&view, args)
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

/// Prints `view` in `--format` (the table after the warnings), writes the outputs, and
/// returns the verdict's exit code.
fn write(view: &ReportView<'_>, args: &AnalyzeArgs) -> anyhow::Result<i32> {
    if args.format == Format::Table {
        for warning in &view.warnings {
            crate::terminal::warning(warning);
        }
    }
    let mut outputs = args.outputs.outputs.clone();
    outputs.add(args.format, PathBuf::from("-"));
    outputs.write(Moment::End, view)?;
    Ok(super::gate::exit_code(view, &args.gate))
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

/// Refuses, before anything is written, an output that needs a saved run (the results
/// file, the rounds CSV) from a CSV of rounds, which has none.
fn refuse_run_outputs(files: &Outputs, format: Format) -> anyhow::Result<()> {
    let mut outputs = files.iter().map(|(f, _)| f).chain([format]);
    match outputs.find(|f| f.needs_run()) {
        None => Ok(()),
        Some(f) => {
            let flag = f.file().filter(|_| f != format).map_or_else(
                || format!("--format {}", f.choice().map_or("", |c| c.name)),
                |file| file.flag.to_string(),
            );
            Err(UsageError::err(format!(
                "{flag} writes a saved run's results or rounds; a CSV of rounds has none: \
                 give a results file (RESULTS.json), or leave {flag} out"
            )))
        }
    }
}
