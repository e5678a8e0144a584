//! The judge: the one place a run's verdict is made. From a run's record and the
//! analysis settings it makes the whole [`Judgement`]: which metrics are compared (the
//! error rate and the server's figures only where there is something to compare), the
//! comparisons and their verdicts (the rules are `analysis` and `stats::verdict`), the
//! overall verdict, then what the answers check says of it (answers that differ are
//! NO-GO unless `--allow-result-diff`; a check that compared nothing cannot be GO) and
//! the prepare check (a class one side refuses to prepare is NO-GO the same way), and
//! last, for a run that did not finish its plan, no verdict at all (`partial`). Nothing
//! else sets a verdict, so the exit code, every report and the saved file always agree.

use super::class_slowdown::{judge_classes, no_go_sentence};
use super::classes::compare_classes;
use super::judgement::Judgement;
use super::noise::NoiseBudget;
use super::prepare_check::OneSided;
use super::record::RunRecord;
use super::round::{RoundRecord, RoundStatus};
use super::sampling::{sample_unit, samples};
use crate::analysis::{self, AnalysisOptions};
use crate::stats::metric::Metric;
use crate::stats::verdict::Verdict;

/// When a run is judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stage {
    /// As it stands: at its end, or read back from its file. A run that did not finish
    /// its plan gets no verdict.
    AsItStands,
    /// At a look of a run still going (`--until`): its stopping rule needs the verdicts
    /// that the file saved meanwhile does not show.
    Look,
}

/// Judges the completed rounds of `record` with `options`.
pub(crate) fn judge(record: &RunRecord, options: &AnalysisOptions, stage: Stage) -> Judgement {
    let rounds = &record.rounds;
    let metrics = compared_metrics(rounds, options);
    let samples = samples(rounds, &metrics);
    let analysis = analysis::analyze(&samples, sample_unit(rounds), options);
    let mut warnings = round_warnings(rounds);
    warnings.extend(analysis.warnings);
    let mut judgement = Judgement {
        comparisons: analysis.comparisons,
        query_classes: compare_classes(rounds, options.alpha),
        timed_classes: record
            .class_timing
            .as_ref()
            .map(|t| judge_classes(t, options.max_class_slowdown, options.alpha))
            .unwrap_or_default(),
        analysis: Some(options.clone()),
        verdict: analysis.verdict,
        unchecked_tolerances: analysis.unchecked,
        analysis_warnings: Vec::new(),
        partial: None,
        rate_not_kept: super::rate::not_kept(rounds),
        noise: Some(NoiseBudget::of(rounds)),
    };
    if record.plan.client.check_only && record.result_check.is_some() {
        // A check without rounds is judged on its answers (and class timing) alone.
        judgement.verdict = Some(Verdict::Go);
    }
    weigh_answers(record, options, &mut judgement, &mut warnings);
    weigh_prepared(record, options, &mut judgement, &mut warnings);
    weigh_class_timing(record, options, &mut judgement, &mut warnings);
    judgement.analysis_warnings = warnings;
    match stage {
        Stage::AsItStands => as_it_stands(record, judgement),
        Stage::Look => judgement,
    }
}

/// A look's judgement as the run stands after the look was recorded: the same
/// comparisons, its verdicts withheld while the run has not finished its plan. What the
/// file saves between looks, without analysing the rounds a second time.
pub(crate) fn as_it_stands(record: &RunRecord, mut judgement: Judgement) -> Judgement {
    withhold_if_unfinished(record, &mut judgement);
    judgement
}

/// The judgement of a run whose resume was refused before it began: nothing compared
/// and no verdict, the saved analysis's warnings kept.
pub(crate) fn nothing_judged(saved: Judgement) -> Judgement {
    Judgement {
        comparisons: Vec::new(),
        verdict: None,
        ..saved
    }
}

/// The metrics compared for `rounds`: the run's, with the error rate when a tolerance
/// names it (0 % is a finding) or a round had errors, and the server's figures when a
/// round has them.
fn compared_metrics(rounds: &[RoundRecord], options: &AnalysisOptions) -> Vec<Metric> {
    let completed = || rounds.iter().filter(|r| r.status == RoundStatus::Completed);
    let with_errors = options.max_error_rate.is_some() || completed().any(|r| !r.errors.is_empty());
    let mut metrics = options.run_metrics(with_errors);
    for server_metric in [Metric::ServerCpuPerTx, Metric::ThreadsRunning] {
        if completed().any(|r| r.metric(&server_metric).is_some()) {
            metrics.push(server_metric);
        }
    }
    metrics
}

/// What the answers check (`--check-results`) does to the verdict: answers that differ
/// make it NO-GO unless `--allow-result-diff`; a check that compared nothing leaves a
/// tolerance unchecked, so the verdict cannot be GO.
fn weigh_answers(
    record: &RunRecord,
    options: &AnalysisOptions,
    judgement: &mut Judgement,
    warnings: &mut Vec<String>,
) {
    let Some(check) = &record.result_check else {
        return;
    };
    if check.answers_differ() {
        if options.allow_result_diff {
            warnings.push(format!(
                "{} (allowed by --allow-result-diff)",
                check.summary()
            ));
        } else {
            judgement.verdict = Some(Verdict::NoGo);
            warnings.push(format!(
                "NO-GO: {}; the variant is not judged on speed alone (see the answers; \
                 --allow-result-diff judges speed anyway)",
                check.summary()
            ));
        }
    }
    if let Some(reason) = check.nothing_compared() {
        leave_unchecked(judgement, warnings, reason);
    }
}

/// What the prepare check does to the verdict: a class one side refused to prepare is a
/// difference between what the sides run, NO-GO unless `--allow-result-diff`, as a
/// class that failed in the answers check is (one the answers check already reported
/// is not counted twice).
fn weigh_prepared(
    record: &RunRecord,
    options: &AnalysisOptions,
    judgement: &mut Judgement,
    warnings: &mut Vec<String>,
) {
    for one_sided in record.refused_unanswered() {
        if options.allow_result_diff {
            warnings.push(format!(
                "{} (allowed by --allow-result-diff)",
                one_sided.sentence()
            ));
        } else {
            judgement.verdict = Some(Verdict::NoGo);
            warnings.push(format!(
                "NO-GO: {}; the sides do not run the same statements (--allow-result-diff \
                 judges speed anyway)",
                one_sided.sentence()
            ));
        }
    }
}

/// A tolerance that could not be checked: said, and a GO becomes INCONCLUSIVE, since
/// no GO may stand on a tolerance nothing checked.
fn leave_unchecked(judgement: &mut Judgement, warnings: &mut Vec<String>, reason: String) {
    if judgement.verdict == Some(Verdict::Go) {
        judgement.verdict = Some(Verdict::Inconclusive);
    }
    warnings.push(reason.clone());
    judgement.unchecked_tolerances.push(reason);
}

/// What the class timing (`--class-timing`) does to the verdict, with
/// `--max-class-slowdown`: a class too slow is NO-GO of its own, whatever the
/// throughput says; a class that could not be told is INCONCLUSIVE at best; every class
/// within the tolerance leaves the verdict to the rest. A tolerance no timed class could
/// be judged against (no timing, or every class left out) is unchecked.
fn weigh_class_timing(
    record: &RunRecord,
    options: &AnalysisOptions,
    judgement: &mut Judgement,
    warnings: &mut Vec<String>,
) {
    let Some(tolerance) = options.max_class_slowdown else {
        return;
    };
    let timed = &judgement.timed_classes;
    if timed.iter().all(|c| c.verdict.is_none()) {
        let reason = match record.class_timing {
            None => {
                "--max-class-slowdown: no query class was timed (the run has no class \
                     timing)"
            }
            Some(_) => {
                "--max-class-slowdown: every timed query class was left out (each \
                        failed on a side; see the answers and the class timing table)"
            }
        };
        leave_unchecked(judgement, warnings, reason.to_string());
        return;
    }
    for class in timed.iter().filter(|c| c.verdict == Some(Verdict::NoGo)) {
        warnings.push(no_go_sentence(class, tolerance));
    }
    let undecided = timed
        .iter()
        .filter(|c| c.verdict == Some(Verdict::Inconclusive))
        .count();
    if undecided > 0 {
        warnings.push(format!(
            "{undecided} timed query class(es) could not be told within or beyond \
             --max-class-slowdown {}",
            super::class_slowdown::times(tolerance)
        ));
    }
    let verdicts = timed.iter().filter_map(|c| c.verdict);
    judgement.verdict =
        crate::stats::verdict::overall(judgement.verdict.into_iter().chain(verdicts));
}

/// Withholds every verdict of a run that did not finish its plan, saying why.
fn withhold_if_unfinished(record: &RunRecord, judgement: &mut Judgement) {
    judgement.partial = record.unfinished();
    if judgement.partial.is_some() {
        judgement.verdict = None;
        for comparison in &mut judgement.comparisons {
            comparison.verdict = None;
        }
    }
}

/// Warnings about individual rounds: errors, saturated histograms, unfinished rounds.
fn round_warnings(rounds: &[RoundRecord]) -> Vec<String> {
    let mut warnings = Vec::new();
    for r in rounds {
        let label = format!("{} round {} at {} threads", r.side, r.index + 1, r.threads);
        if !r.errors.is_empty() {
            warnings.push(format!("{label}: errors {:?}", r.errors));
        }
        if r.latency_saturated > 0 {
            warnings.push(format!(
                "{label}: {} events took longer than the histogram's 100 s range",
                r.latency_saturated
            ));
        }
        if r.status != RoundStatus::Completed {
            let status = serde_json::to_value(r.status).unwrap_or_default();
            warnings.push(format!(
                "{label}: {} ({}), not analysed",
                status.as_str().unwrap_or("?"),
                r.reason.as_deref().unwrap_or("")
            ));
        }
    }
    warnings
}

impl RunRecord {
    /// The classes one side refused to prepare that the answers check did not already
    /// report as failing there: each difference is counted once.
    pub(crate) fn refused_unanswered(&self) -> Vec<&OneSided> {
        let answered: Vec<&str> = (self.result_check.iter())
            .flat_map(|c| &c.differences)
            .filter(|d| d.failed_on.is_some())
            .map(|d| d.class.as_str())
            .collect();
        (self.prepare_check.iter())
            .flat_map(|c| &c.one_sided)
            .filter(|o| !answered.contains(&o.class.as_str()))
            .collect()
    }
}
