//! Reports rendered from an analysis. Each format owns one file; all of them read the
//! same [`ReportView`], so `abtest analyze` can render any of them from a saved run or
//! from a CSV of per-round values. A view of a run holds its judgement and its record
//! apart ([`Run`]): a report shows what the judge decided and the facts beside it, and
//! never decides anything itself.

pub(crate) mod answer;
pub(crate) mod budget;
pub(crate) mod charts;
pub(crate) mod class_timing;
pub(crate) mod classes;
pub(crate) mod csv;
pub(crate) mod decision;
pub(crate) mod document;
pub(crate) mod files;
pub(crate) mod format;
pub(crate) mod formats;
pub(crate) mod html;
pub(crate) mod jira;
pub(crate) mod json;
pub(crate) mod junit;
pub(crate) mod markdown;
pub(crate) mod next_steps;
pub(crate) mod sections;
pub(crate) mod stdout;
pub(crate) mod table;

use crate::analysis::AnalysisOptions;
use crate::results::{Judgement, ResultsFile, RunRecord};
use crate::side::Side;
use crate::stats::compare::{Comparison, Family};
use crate::stats::metric::Metric;
use crate::stats::verdict::Verdict;

/// What every report shows.
#[derive(Debug, Clone)]
pub(crate) struct ReportView<'a> {
    /// Labels of baseline and variant.
    pub(crate) names: [String; 2],
    /// The comparisons.
    pub(crate) comparisons: &'a [Comparison],
    /// Overall verdict, when tolerances were given.
    pub(crate) verdict: Option<Verdict>,
    /// Tolerances that could not be checked, with the reasons.
    pub(crate) unchecked: &'a [String],
    /// Warnings about the run and the data.
    pub(crate) warnings: Vec<String>,
    /// Significance level.
    pub(crate) alpha: f64,
    /// The one-sided level of the verdicts' bounds: α, or a look's own level.
    pub(crate) verdict_alpha: f64,
    /// The run, when the report is about an abtest run.
    pub(crate) run: Option<Run<'a>>,
    /// Why the run gives no verdict, when it did not finish its plan.
    pub(crate) partial: Option<String>,
}

/// The run behind a report: what happened, and the judgement made of it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Run<'a> {
    /// The facts.
    pub(crate) record: &'a RunRecord,
    /// What the analysis made of them.
    pub(crate) judgement: &'a Judgement,
}

impl<'a> Run<'a> {
    /// The run as its results file holds it.
    pub(crate) fn results(self) -> crate::results::ResultsOf<'a> {
        crate::results::ResultsOf {
            record: self.record,
            judgement: self.judgement,
        }
    }
}

impl<'a> ReportView<'a> {
    /// The level of the deciding bounds: "95 % one-sided bound", or for a run with
    /// sequential looks "98.52 % one-sided bound, adjusted for 3 looks".
    pub(crate) fn bound_label(&self) -> String {
        self.bounds_label(1)
    }

    /// [`Self::bound_label`] for `count` bounds: "95 % one-sided bounds, adjusted for 3
    /// looks" (the plural is the bound's, never the looks').
    fn bounds_label(&self, count: usize) -> String {
        format!(
            "{} % one-sided bound{}{}",
            format::confidence(self.verdict_alpha),
            if count == 1 { "" } else { "s" },
            self.looks_adjustment()
        )
    }

    /// "95 % confidence", or "98.52 % confidence (adjusted for 3 looks)".
    pub(crate) fn confidence_phrase(&self) -> String {
        let adjustment = self.looks_adjustment();
        let adjustment = adjustment.trim_start_matches(", ");
        if adjustment.is_empty() {
            format!("{} % confidence", format::confidence(self.alpha))
        } else {
            format!(
                "{} % confidence ({adjustment})",
                format::confidence(self.alpha)
            )
        }
    }

    /// ", adjusted for N looks" for a run that looked at its data along the way.
    pub(crate) fn looks_adjustment(&self) -> String {
        match self.run.map_or(0, |r| r.record.looks.len()) {
            0 => String::new(),
            1 => ", adjusted for 1 look".into(),
            n => format!(", adjusted for {n} looks"),
        }
    }

    /// A view of a results file: its record as judged.
    pub(crate) fn of_results(results: &'a ResultsFile) -> ReportView<'a> {
        ReportView::of_run(&results.record, &results.judgement)
    }

    /// A view of a run's `record` as `judgement` judged it.
    pub(crate) fn of_run(record: &'a RunRecord, judgement: &'a Judgement) -> ReportView<'a> {
        let name = |side| {
            record
                .sides
                .get(&side)
                // A file saved before names were escaped, or edited, may hold raw ones.
                .map(|s| crate::terminal::escape_controls(&s.name))
                .unwrap_or_else(|| side.to_string())
        };
        let mut warnings = record.warnings.clone();
        warnings.extend(judgement.analysis_warnings.iter().cloned());
        ReportView {
            names: [name(Side::Baseline), name(Side::Variant)],
            comparisons: &judgement.comparisons,
            verdict: judgement.verdict,
            unchecked: &judgement.unchecked_tolerances,
            warnings,
            alpha: judgement.analysis.as_ref().map_or(0.05, |a| a.alpha),
            verdict_alpha: judgement
                .analysis
                .as_ref()
                .map_or(0.05, AnalysisOptions::verdict_level),
            run: Some(Run { record, judgement }),
            partial: judgement.partial.clone(),
        }
    }

    /// The word the report leads with: PARTIAL for an unfinished run, else the verdict's.
    pub(crate) fn status_label(&self) -> Option<&'static str> {
        match (&self.partial, self.verdict) {
            (Some(_), _) => Some("PARTIAL"),
            (None, verdict) => verdict.map(Verdict::as_str),
        }
    }

    /// The exit code of what the report says: PARTIAL for an unfinished run, else the
    /// verdict's (0 without one).
    pub(crate) fn exit_code(&self) -> i32 {
        match (&self.partial, self.verdict) {
            (Some(_), _) => crate::exit::PARTIAL,
            (None, Some(verdict)) => verdict.exit_code(),
            (None, None) => crate::exit::SUCCESS,
        }
    }

    /// The thread levels of the comparisons, in the order they appear.
    pub(crate) fn levels(&self) -> Vec<u32> {
        let mut levels: Vec<u32> = Vec::new();
        for c in self.comparisons {
            if !levels.contains(&c.threads) {
                levels.push(c.threads);
            }
        }
        levels
    }

    /// Whether any comparison belongs to `family`.
    pub(crate) fn has(&self, family: Family) -> bool {
        self.comparisons.iter().any(|c| c.family == family)
    }

    /// The summary a change board reads: the verdict and the bounds it rests on, then what
    /// the variant does to TPS with the 95 % interval. The verdict sentence names only the
    /// tolerances that decided it, so it never contradicts the verdict.
    pub(crate) fn headline(&self) -> String {
        let mut estimate = self.tps_estimate();
        if let Some(rate) = self.run.and_then(|r| r.judgement.rate_not_kept.as_ref()) {
            // Said with the verdict it qualifies: latencies of a queue are not a server's.
            estimate = format!("{estimate} {rate}.");
        }
        if let Some(why) = &self.partial {
            return format!(
                "PARTIAL: no verdict from a run that did not finish: {why}. What the finished \
                 rounds say so far: {estimate}"
            );
        }
        match self.verdict {
            Some(verdict) => format!(
                "{}: {} {estimate}",
                verdict.as_str(),
                self.verdict_sentence(verdict)
            ),
            None => estimate,
        }
    }

    /// Why the verdict is what it is: the deciding bounds of the metrics that made it,
    /// the tolerances that could not be judged, and different answers.
    fn verdict_sentence(&self, verdict: Verdict) -> String {
        let deciding: Vec<&Comparison> = self
            .comparisons
            .iter()
            .filter(|c| c.verdict == Some(verdict) && c.verdict_ci_pct.is_some())
            .collect();
        let mut parts = Vec::new();
        if !deciding.is_empty() {
            // An INCONCLUSIVE interval has two bounds, both of which count.
            let count = if verdict == Verdict::Inconclusive {
                2
            } else {
                deciding.len()
            };
            parts.push(format!(
                "{} ({})",
                bounds_by_metric(&deciding, verdict),
                self.bounds_label(count)
            ));
        }
        if verdict == Verdict::Inconclusive {
            if let Some(budget) = budget::headline(self.comparisons) {
                parts.push(budget);
            }
            if !self.unchecked.is_empty() {
                parts.push(format!("not judged: {}", self.unchecked.join("; ")));
            }
        }
        if verdict == Verdict::NoGo
            && let Some(check) = self.run.and_then(|r| r.record.result_check.as_ref())
            && check.answers_differ()
        {
            // Different answers decide before any speed does: they come first.
            parts.insert(0, check.headline());
        }
        if verdict == Verdict::NoGo
            && let Some(run) = self.run
            && !(run.judgement.analysis.as_ref()).is_some_and(|a| a.allow_result_diff)
            && let Some(refused) =
                crate::results::prepare_check::headline(&run.record.refused_unanswered())
        {
            // A statement one side cannot run decides before any speed does.
            parts.insert(0, refused);
        }
        if let Some(classes) = self
            .run
            .and_then(|r| class_timing::headline(&r.judgement.timed_classes, verdict))
        {
            parts.push(classes);
        }
        if parts.is_empty() {
            parts.push("see the warnings".into());
        }
        format!("{}.", parts.join("; "))
    }

    /// What the variant does to TPS at every level, with the 95 % interval: "With 95 %
    /// confidence, X costs 17.0–56.0 % of TPS at 16 threads and 21.0–38.0 % at 64 threads."
    fn tps_estimate(&self) -> String {
        let tps: Vec<&Comparison> = self
            .comparisons
            .iter()
            .filter(|c| c.metric == Metric::Tps)
            .collect();
        if tps.is_empty() {
            return "No TPS comparison (too few completed rounds).".into();
        }
        let at = |c: &Comparison| format!("at {} threads", c.threads);
        let (mut costs, mut adds, mut unclear) = (Vec::new(), Vec::new(), Vec::new());
        for c in tps {
            match c.ci_pct {
                Some([lo, hi]) if hi < 0.0 => {
                    costs.push((format!("{:.1}–{:.1} %", -hi, -lo), at(c)))
                }
                Some([lo, hi]) if lo > 0.0 => adds.push((format!("{lo:.1}–{hi:.1} %"), at(c))),
                _ => unclear.push(format!("{} ({})", at(c), format::comparison_change(c))),
            }
        }
        let mut clauses = Vec::new();
        if !costs.is_empty() {
            clauses.push(format!("costs {}", join_figures(&costs, "of TPS")));
        }
        if !adds.is_empty() {
            clauses.push(format!("adds {}", join_figures(&adds, "to TPS")));
        }
        if !unclear.is_empty() {
            clauses.push(format!("shows no clear TPS change {}", and_list(&unclear)));
        }
        format!(
            "With {}, {} {}.",
            self.confidence_phrase(),
            self.names[1],
            clauses.join("; ")
        )
    }

    /// Power notes for the comparisons a tolerance addresses (TPS when none was given)
    /// that are INCONCLUSIVE or have too few values a side for a usable interval.
    pub(crate) fn power_notes(&self) -> Vec<String> {
        let any_tolerance = self.comparisons.iter().any(|c| c.tolerance_pct.is_some());
        self.comparisons
            .iter()
            .filter(|c| {
                if any_tolerance {
                    c.tolerance_pct.is_some()
                } else {
                    c.metric == Metric::Tps
                }
            })
            .filter(|c| {
                c.verdict == Some(Verdict::Inconclusive)
                    || c.baseline.n.min(c.variant.n) < c.unit.enough()
            })
            .filter_map(|c| {
                let power = c.power.filter(|p| p.cv > 0.0)?;
                let unit = c.unit.noun();
                // With a tolerance, the rounds that would decide are the next steps'
                // figure, from the interval the verdict read: one figure, not two.
                let needed = match (power.rounds_needed, c.tolerance_pct) {
                    (_, Some(_)) => String::new(),
                    (Some(n), None) => {
                        format!("; about {n} {unit}s per side would detect the observed change")
                    }
                    _ => String::new(),
                };
                let noise = match (power.block_sd, c.blocks) {
                    (Some(sd), Some(b)) => format!(
                        "the {} vary by {:.1} % (SD of their ratios; rounds {:.1} % CV)",
                        b.blocking.plural(),
                        100.0 * sd,
                        100.0 * power.cv
                    ),
                    _ => format!("rounds vary by {:.1} % (CV)", 100.0 * power.cv),
                };
                Some(format!(
                    "{} at {} threads: {noise}, so {} can detect a change of about {:.1} %{needed}",
                    c.metric.spoken(),
                    c.threads,
                    c.unit.count(c.baseline.n.min(c.variant.n)),
                    100.0 * power.mde
                ))
            })
            .collect()
    }
}

/// The deciding bounds grouped by metric: "TPS loss at least 12.3 % at 16 threads and
/// loss at least 15.1 % at 64 threads (5 % tolerance); p99 latency …".
fn bounds_by_metric(deciding: &[&Comparison], verdict: Verdict) -> String {
    let relation = match verdict {
        Verdict::Go => "within",
        Verdict::NoGo => "beyond",
        Verdict::Inconclusive => "on both sides of",
    };
    let mut metrics: Vec<&Metric> = Vec::new();
    for c in deciding {
        if !metrics.contains(&&c.metric) {
            metrics.push(&c.metric);
        }
    }
    metrics
        .into_iter()
        .map(|metric| {
            let of_metric: Vec<&&Comparison> =
                deciding.iter().filter(|c| c.metric == *metric).collect();
            let phrases: Vec<String> = of_metric
                .iter()
                .map(|c| {
                    let text = decision::phrase(c).unwrap_or_default();
                    text.trim_start_matches(&metric.spoken())
                        .trim_start()
                        .to_string()
                })
                .collect();
            let levels: Vec<u32> = of_metric.iter().map(|c| c.threads).collect();
            let bounds = bounds_at_levels(&phrases, &levels);
            let tolerance = of_metric[0]
                .tolerance_pct
                .map(|t| {
                    format!(
                        ", {relation} the {}",
                        decision::tolerance_name(of_metric[0], t)
                    )
                })
                .unwrap_or_default();
            format!("{} {bounds}{tolerance}", metric.spoken())
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// One metric's bounds at its levels: "loss at least 14.0 %, 18.9 % and 20.9 % at 16, 64
/// and 256 threads" when they share their words, else "loss at least 14.0 % at 16
/// threads and change between -2.0 % and +7.9 % at 64 threads".
fn bounds_at_levels(phrases: &[String], levels: &[u32]) -> String {
    let split = |phrase: &str| {
        let at = phrase
            .find(|c: char| c.is_ascii_digit() || "+-<".contains(c))
            .unwrap_or(phrase.len());
        (phrase[..at].to_string(), phrase[at..].to_string())
    };
    let parts: Vec<(String, String)> = phrases.iter().map(|p| split(p)).collect();
    let shared = parts.len() > 1
        && parts.iter().all(|(words, figure)| {
            // "not lower (at least +31.4 %)" has words after its figure: not shared.
            *words == parts[0].0 && !figure.contains(" and ") && !figure.contains(')')
        });
    if shared {
        let figures: Vec<String> = parts.iter().map(|(_, f)| f.clone()).collect();
        let levels: Vec<String> = levels.iter().map(u32::to_string).collect();
        return format!(
            "{}{} at {} threads",
            parts[0].0,
            and_list(&figures),
            and_list(&levels)
        );
    }
    let each: Vec<String> = phrases
        .iter()
        .zip(levels)
        .map(|(phrase, threads)| format!("{phrase} at {threads} threads"))
        .collect();
    and_list(&each)
}

/// "a", "a and b", "a, b and c".
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// "17.0–56.0 % of TPS at 16 threads and 21.0–38.0 % at 64 threads".
fn join_figures(figures: &[(String, String)], what: &str) -> String {
    let items: Vec<String> = figures
        .iter()
        .enumerate()
        .map(|(i, (figure, at))| {
            if i == 0 {
                format!("{figure} {what} {at}")
            } else {
                format!("{figure} {at}")
            }
        })
        .collect();
    and_list(&items)
}

/// The cell shown in a report's last column: the verdict, or "significant".
pub(crate) fn judgement(c: &Comparison) -> String {
    match c.verdict {
        Some(v) => v.as_str().to_string(),
        None if c.significant => "significant".into(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::bounds_at_levels;

    #[test]
    fn a_sweeps_bounds_share_their_words() {
        let phrases = ["loss at least 14.0 %", "loss at least 18.9 %"].map(String::from);
        assert_eq!(
            bounds_at_levels(&phrases, &[16, 64]),
            "loss at least 14.0 % and 18.9 % at 16 and 64 threads"
        );
        let mixed = ["loss at least 14.0 %", "change between -2.0 % and +7.9 %"].map(String::from);
        assert_eq!(
            bounds_at_levels(&mixed, &[16, 64]),
            "loss at least 14.0 % at 16 threads and change between -2.0 % and +7.9 % at 64 threads"
        );
    }
}
