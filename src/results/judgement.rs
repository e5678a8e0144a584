//! The judgement of a run: everything made from its record — the comparisons, the query
//! classes, the verdict, the tolerances that could not be checked, the warnings about the
//! data, why an unfinished run gives no verdict, and the noise budget. Only `judge` makes
//! one, and it makes it again from the record whenever the run is read with other
//! settings, so nothing here is ever edited by hand.

use serde::{Deserialize, Serialize};

use super::class_slowdown::ClassSlowdown;
use super::classes::ClassComparison;
use super::noise::NoiseBudget;
use crate::analysis::AnalysisOptions;
use crate::stats::compare::Comparison;
use crate::stats::verdict::Verdict;

/// What the analysis made of a run's record.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct Judgement {
    /// Comparisons of the completed rounds.
    pub(crate) comparisons: Vec<Comparison>,
    /// Each query class's latency compared, the slowest change first (explanatory).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) query_classes: Vec<ClassComparison>,
    /// Each class timed on idle servers (`--class-timing`), judged against
    /// `--max-class-slowdown`, the slowest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) timed_classes: Vec<ClassSlowdown>,
    /// How the comparisons were analysed.
    pub(crate) analysis: Option<AnalysisOptions>,
    /// Overall verdict, when tolerances were given.
    pub(crate) verdict: Option<Verdict>,
    /// Tolerances the latest analysis could not check, with the reasons.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) unchecked_tolerances: Vec<String>,
    /// Warnings about the data, from the latest analysis.
    #[serde(default)]
    pub(crate) analysis_warnings: Vec<String>,
    /// Why the run gives no verdict, when it did not finish its plan (`partial`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) partial: Option<String>,
    /// Why an open-loop run's figures measure a queue: a side that did not keep the
    /// rate asked, with what each side achieved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) rate_not_kept: Option<String>,
    /// Where the run's noise may come from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) noise: Option<NoiseBudget>,
}
