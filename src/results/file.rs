//! The results file: a run's record and its latest judgement, saved side by side as one
//! JSON object, the judgement's keys beside the record's as they always were. The record
//! is what the run found; the judgement is what `judge` made of it with the settings
//! saved in its `analysis`, and is made again whenever the file is read with others.

use serde::{Deserialize, Serialize};

use super::judgement::Judgement;
use super::record::RunRecord;

/// The whole results file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct ResultsFile {
    /// What happened.
    #[serde(flatten)]
    pub(crate) record: RunRecord,
    /// What the latest analysis made of it.
    #[serde(flatten)]
    pub(crate) judgement: Judgement,
}
