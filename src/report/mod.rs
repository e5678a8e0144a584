//! Reports rendered from an analysis. Each format owns one file; all of them read the
//! same [`ReportView`], so `abtest analyze` can render any of them from a saved run or
//! from a CSV of per-round values.

pub(crate) mod charts;
pub(crate) mod csv;
pub(crate) mod document;
pub(crate) mod files;
pub(crate) mod format;
pub(crate) mod html;
pub(crate) mod jira;
pub(crate) mod json;
pub(crate) mod markdown;
pub(crate) mod sections;
pub(crate) mod table;

use crate::profile::Side;
use crate::results::ResultsFile;
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
    /// The full results, when the report is about an abtest run.
    pub(crate) results: Option<&'a ResultsFile>,
}

impl<'a> ReportView<'a> {
    /// A view of a results file.
    pub(crate) fn of_results(results: &'a ResultsFile) -> ReportView<'a> {
        let name = |side| {
            results
                .sides
                .get(&side)
                .map(|s| s.name.clone())
                .unwrap_or_else(|| side.to_string())
        };
        let mut warnings = results.warnings.clone();
        warnings.extend(results.analysis_warnings.iter().cloned());
        ReportView {
            names: [name(Side::Baseline), name(Side::Variant)],
            comparisons: &results.comparisons,
            verdict: results.verdict,
            unchecked: &results.unchecked_tolerances,
            warnings,
            alpha: results.analysis.as_ref().map_or(0.05, |a| a.alpha),
            results: Some(results),
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

    /// The summary a change board reads: the verdict first, then one sentence per thread
    /// level saying what the variant costs in TPS with its interval, and the tolerance it
    /// was judged against, with the rounds that would decide an INCONCLUSIVE.
    pub(crate) fn headline(&self) -> String {
        let sentences: Vec<String> = self
            .comparisons
            .iter()
            .filter(|c| c.metric == Metric::Tps)
            .map(|c| tps_sentence(c, &self.names[1], self.alpha))
            .collect();
        let summary = if sentences.is_empty() {
            "no comparison (too few completed rounds)".to_string()
        } else {
            sentences.join(" ")
        };
        match self.verdict {
            Some(Verdict::Inconclusive) if !self.unchecked.is_empty() => format!(
                "INCONCLUSIVE (a tolerance could not be checked: {}): {summary}",
                self.unchecked.join("; ")
            ),
            Some(verdict) => format!("{}: {summary}", verdict.as_str()),
            None => summary,
        }
    }

    /// Power notes for comparisons that are INCONCLUSIVE or have too few values a side
    /// for a usable interval.
    pub(crate) fn power_notes(&self) -> Vec<String> {
        self.comparisons
            .iter()
            .filter(|c| {
                c.verdict == Some(Verdict::Inconclusive)
                    || c.baseline.n.min(c.variant.n) < c.unit.enough()
            })
            .filter_map(|c| {
                let power = c.power?;
                let unit = c.unit.noun();
                let needed = match (power.rounds_needed, c.tolerance_pct) {
                    (Some(n), Some(t)) => format!("; about {n} {unit}s per side would decide at the {t:.1} % tolerance"),
                    (Some(n), None) => format!("; about {n} {unit}s per side would detect the observed change"),
                    _ => String::new(),
                };
                Some(format!(
                    "{} at {} threads: CV {:.1} %, smallest detectable change with {} ≈ {:.1} %{needed}",
                    c.metric.label(),
                    c.threads,
                    100.0 * power.cv,
                    c.unit.count(c.baseline.n.min(c.variant.n)),
                    100.0 * power.mde
                ))
            })
            .collect()
    }
}

/// One level's TPS result as a sentence: "X costs 13.0–44.3 % of TPS at 8 threads (…).
/// Against the 5 % tolerance the verdict is NO-GO."
fn tps_sentence(c: &Comparison, variant: &str, alpha: f64) -> String {
    let level = format!("at {} threads", c.threads);
    let figures = format!(
        "TPS {}, {} % CI, Holm p = {}",
        format::change(c.change_pct, c.ci_pct),
        format::confidence(alpha),
        format::p_value(c.p_holm)
    );
    let mut sentence = match c.ci_pct {
        Some([lo, hi]) if hi < 0.0 => {
            format!(
                "{variant} costs {:.1}–{:.1} % of TPS {level} ({figures}).",
                -hi, -lo
            )
        }
        Some([lo, hi]) if lo > 0.0 => {
            format!("{variant} adds {lo:.1}–{hi:.1} % to TPS {level} ({figures}).")
        }
        _ => format!("{variant} shows no clear TPS change {level} ({figures})."),
    };
    if let (Some(tolerance), Some(verdict)) = (c.tolerance_pct, c.verdict) {
        sentence.push_str(&format!(
            " Against the {} % tolerance the verdict is {}",
            format::percent_figure(tolerance),
            verdict.as_str()
        ));
        match c.power.and_then(|p| p.rounds_needed) {
            Some(needed) if verdict == Verdict::Inconclusive => sentence.push_str(&format!(
                "; about {needed} {}s per side would decide.",
                c.unit.noun()
            )),
            _ => sentence.push('.'),
        }
    }
    sentence
}

/// The cell shown in a report's last column: the verdict, or "significant".
pub(crate) fn judgement(c: &Comparison) -> String {
    match c.verdict {
        Some(v) => v.as_str().to_string(),
        None if c.significant => "significant".into(),
        None => String::new(),
    }
}
