//! `abtest report RESULTS.json --format ...`: re-render a saved run, re-judged with any
//! analysis flags given (each replaces the saved setting it names), without re-running.
//! The exit code is the verdict's, as the run's was, so CI can gate on a saved run.

use std::path::PathBuf;

use crate::analysis::AnalysisOptions;
use crate::cli::ReportArgs;
use crate::exit::UsageError;
use crate::report::ReportView;
use crate::report::formats::Moment;
use crate::resolve::outputs::{Existing, Input, Output, claim, named, stdout_once};
use crate::results::{self, Stage};

/// Renders the report to stdout or `--output`, and writes the other outputs.
pub(crate) fn execute(args: &ReportArgs) -> anyhow::Result<i32> {
    let files = &args.outputs.outputs;
    let report_on_stdout = args.output.as_deref().is_none_or(|p| p.as_os_str() == "-");
    stdout_once(files, report_on_stdout)?;
    let _claimed = claim(
        &Output::report("--output", args.output.as_deref())
            .into_iter()
            .chain(named(files))
            .collect::<Vec<_>>(),
        &[Input::new(&args.file, "the saved run being reported")],
        Existing::typed(args.overwrite),
    )?;
    let saved = results::load(&args.file).map_err(|e| UsageError::err(format!("{e:#}")))?;
    let options = match &saved.judgement.analysis {
        Some(saved) => crate::resolve::args::analysis_options(&args.analysis, saved)?,
        None => {
            crate::resolve::args::analysis_options(&args.analysis, &AnalysisOptions::default())?
        }
    };
    let judgement = results::judge(&saved.record, &options, Stage::AsItStands);
    let view = ReportView::of_run(&saved.record, &judgement);
    let mut outputs = files.clone();
    let report = args.output.clone().unwrap_or_else(|| PathBuf::from("-"));
    outputs.add(args.format, report);
    outputs.write(Moment::End, &view)?;
    Ok(super::gate::exit_code(&view, &args.gate))
}
