//! `abtest report RESULTS.json --format ...`: re-render a saved run, re-judged with any
//! analysis flags given (each replaces the saved setting it names), without re-running.
//! The exit code is the verdict's, as the run's was, so CI can gate on a saved run.

use crate::analysis::AnalysisOptions;
use crate::cli::{ReportArgs, ReportFormat};
use crate::exit::UsageError;
use crate::report::{self, ReportView};
use crate::resolve::outputs::{Existing, Input, Output, claim};
use crate::results::{self, Moment, RoundRecord};

/// Renders the report to stdout or `--output`.
pub(crate) fn execute(args: &ReportArgs) -> anyhow::Result<i32> {
    super::gate::check_outputs(&args.gate, &args.file, args.output.as_deref())?;
    let _claimed = claim(
        &[
            ("--output", args.output.as_deref()),
            ("--junit", args.gate.junit.as_deref()),
        ]
        .into_iter()
        .filter_map(|(flag, path)| Output::report(flag, path))
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
    let judgement = results::judge(&saved.record, &options, Moment::AsItStands);
    let view = ReportView::of_run(&saved.record, &judgement);
    let text = render(&view, args.format)?;
    crate::report::stdout::write_to(args.output.as_deref(), &text, Some(&args.file))?;
    super::gate::finish(&view, &args.gate, &args.file)
}

/// Renders `view` in `format`. The per-round CSV needs a saved run's rounds.
pub(crate) fn render(view: &ReportView<'_>, format: ReportFormat) -> anyhow::Result<String> {
    Ok(match format {
        ReportFormat::Table => report::table::render(view),
        ReportFormat::Markdown => report::markdown::render(view)?,
        ReportFormat::Html => report::html::render(view)?,
        ReportFormat::Jira => report::jira::render(view)?,
        ReportFormat::Json => report::json::render(view)?,
        ReportFormat::Csv => report::csv::render(rounds_of(view)?)?,
    })
}

fn rounds_of<'a>(view: &ReportView<'a>) -> anyhow::Result<&'a [RoundRecord]> {
    view.run.map(|r| &r.record.rounds[..]).ok_or_else(|| {
        UsageError::err("--format csv writes a saved run's rounds; a CSV input already is one")
    })
}
