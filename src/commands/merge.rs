//! `abtest merge SEG.json...`: the segments of a split run joined into one results file,
//! analysed and reported like a single run; the exit code follows the verdict.

use crate::cli::MergeArgs;
use crate::exit::UsageError;
use crate::report::formats::Moment;
use crate::report::{self, ReportView};
use crate::resolve::outputs::{Existing, Input, claim, named, stdout_once};
use crate::results::{self, ResultsFile, Stage, merge::SegmentFile};

/// Merges, analyses, writes the outputs and prints the table.
pub(crate) fn execute(args: &MergeArgs) -> anyhow::Result<i32> {
    let outputs = &args.outputs.outputs;
    // The segments are the inputs: no output may replace one, nor another output.
    let segments: Vec<Input> = args
        .files
        .iter()
        .map(|path| Input::new(path, "a segment being merged"))
        .collect();
    stdout_once(outputs, true)?;
    let _claimed = claim(&named(outputs), &segments, Existing::typed(args.overwrite))?;
    let files = args
        .files
        .iter()
        .map(|path| {
            let results =
                results::load(path).map_err(|e| UsageError::err(format!("merge: {e:#}")))?;
            Ok(SegmentFile {
                file: path.display().to_string(),
                record: results.record,
            })
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut record =
        results::merge::merge(files).map_err(|why| UsageError::err(format!("merge: {why}")))?;
    record.plan.outputs = outputs.saved();
    record
        .plan
        .validate()
        .map_err(|e| UsageError::err(format!("merge: {e:#}")))?;
    let judgement = results::judge(&record, &record.plan.analysis, Stage::AsItStands);
    let merged = ResultsFile { record, judgement };
    let view = ReportView::of_results(&merged);
    outputs.write(Moment::End, &view)?;
    crate::terminal::note(format_args!(
        "merged {} segment(s), {} round(s), {} transactions",
        merged.record.segments.len(),
        merged.record.rounds.len(),
        merged
            .record
            .segments
            .iter()
            .map(|s| s.transactions)
            .sum::<u64>()
    ));
    crate::terminal::stdout(&report::table::render(&view));
    for warning in &merged.judgement.analysis_warnings {
        crate::terminal::warning(warning);
    }
    Ok(view.exit_code())
}
