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

/// A results file's two halves, borrowed, written as the file is: what a report writes
/// of a run it holds as a record and a judgement.
#[derive(Debug, Clone, Copy, Serialize)]
pub(crate) struct ResultsOf<'a> {
    /// What happened.
    #[serde(flatten)]
    pub(crate) record: &'a RunRecord,
    /// What the latest analysis made of it.
    #[serde(flatten)]
    pub(crate) judgement: &'a Judgement,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Split in two, the file still has every top-level key it had, and what it writes
    /// reads back as the same file.
    #[test]
    fn a_kept_file_keeps_its_keys_and_reads_back_as_written() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/audit-point-select.json");
        let text = std::fs::read_to_string(path).unwrap();
        let before: serde_json::Value = serde_json::from_str(&text).unwrap();
        let file: ResultsFile = serde_json::from_value(before.clone()).unwrap();
        let written = serde_json::to_value(&file).unwrap();
        for (key, value) in before.as_object().unwrap() {
            let kept = &written[key];
            assert!(!kept.is_null() || value.is_null(), "{key} is lost");
        }
        let again: ResultsFile = serde_json::from_value(written.clone()).unwrap();
        assert_eq!(serde_json::to_value(&again).unwrap(), written);
    }
}
