//! What `--class-timing` measured, as facts: each read query class timed on both sides
//! on idle servers, block by block (`runner::class_timing` says how). Only the facts are
//! saved; whether a class is too slow is the judge's (`class_slowdown`), so a saved run
//! can be judged again against another `--max-class-slowdown`.

use serde::{Deserialize, Serialize};

use crate::stats::summary::median;

/// The class timing of a run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct ClassTiming {
    /// Blocks planned; a class has fewer when the run was stopped or over its budget.
    pub(crate) blocks: u32,
    /// The time the timing was given, in seconds.
    pub(crate) budget_s: f64,
    /// The time it took, in seconds.
    pub(crate) elapsed_s: f64,
    /// Why it stopped before its last block, if it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) cut_short: Option<String>,
    /// Every read class of the sample, in the workload's order.
    pub(crate) classes: Vec<TimedClass>,
}

/// One query class's timing.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct TimedClass {
    /// The query class: the statement's template.
    pub(crate) class: String,
    /// Its first timed statement.
    pub(crate) statement: String,
    /// Executions per side in each block.
    pub(crate) pairs: u32,
    /// Each block, in the order run.
    pub(crate) blocks: Vec<TimedBlock>,
    /// Why the class was left out: it failed on a side (the error, with the side).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) left_out: Option<String>,
}

/// One block of one class: its executions on each side, baseline then variant.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct TimedBlock {
    /// Mean of the executions' natural log latency in ms.
    pub(crate) mean_log_ms: [f64; 2],
    /// Median latency in ms.
    pub(crate) median_ms: [f64; 2],
}

/// What `cut_short` says of a timing that was stopped (Ctrl-C, a signal).
pub(crate) const INTERRUPTED: &str = "interrupted";

impl ClassTiming {
    /// Whether the timing was stopped before its end: a resumed run times again.
    pub(crate) fn interrupted(&self) -> bool {
        self.cut_short.as_deref() == Some(INTERRUPTED)
    }

    /// The first thing in a saved timing that no run writes: more blocks than planned,
    /// a timed class without executions, a latency that is not a finite number (or a
    /// median below zero), a class left out that still has blocks.
    pub(crate) fn check(&self) -> Result<(), String> {
        for class in &self.classes {
            let fault = if class.blocks.len() > self.blocks as usize {
                Some(format!(
                    "{} blocks of {} planned",
                    class.blocks.len(),
                    self.blocks
                ))
            } else if class.left_out.is_some() && !class.blocks.is_empty() {
                Some("blocks of a class left out".to_string())
            } else if class.left_out.is_none() && class.pairs == 0 && !class.blocks.is_empty() {
                Some("blocks of no executions".to_string())
            } else if class.blocks.iter().any(|b| {
                b.mean_log_ms.iter().any(|v| !v.is_finite())
                    || b.median_ms.iter().any(|v| !v.is_finite() || *v < 0.0)
            }) {
                Some("a latency that is not a finite number of ms".to_string())
            } else {
                None
            };
            if let Some(fault) = fault {
                return Err(format!("class_timing of {}: {fault}", class.class));
            }
        }
        Ok(())
    }
}

impl TimedClass {
    /// Each block's mean log latency of the variant minus the baseline's.
    pub(crate) fn diffs(&self) -> Vec<f64> {
        self.blocks
            .iter()
            .map(|b| b.mean_log_ms[1] - b.mean_log_ms[0])
            .collect()
    }

    /// The median of the blocks' medians, per side (0 without blocks).
    pub(crate) fn median_ms(&self) -> [f64; 2] {
        [0, 1].map(|side| {
            median(self.blocks.iter().map(|b| b.median_ms[side]).collect()).unwrap_or(0.0)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_class_gives_one_difference_per_block_and_the_median_of_its_medians() {
        let class = TimedClass {
            blocks: vec![
                TimedBlock {
                    mean_log_ms: [0.0, 2.0],
                    median_ms: [1.0, 7.0],
                },
                TimedBlock {
                    mean_log_ms: [1.0, 2.5],
                    median_ms: [3.0, 9.0],
                },
            ],
            ..TimedClass::default()
        };
        assert_eq!(class.diffs(), [2.0, 1.5]);
        assert_eq!(class.median_ms(), [2.0, 8.0]);
        assert_eq!(TimedClass::default().median_ms(), [0.0, 0.0]);
    }

    #[test]
    fn a_saved_timing_is_checked_as_strictly_as_a_run_writes_it() {
        let block = TimedBlock {
            mean_log_ms: [0.0, 0.1],
            median_ms: [1.0, 1.1],
        };
        let timed = |blocks: usize| TimedClass {
            class: "c".into(),
            pairs: 3,
            blocks: vec![block; blocks],
            ..TimedClass::default()
        };
        let timing = |class: TimedClass| ClassTiming {
            blocks: 6,
            classes: vec![class],
            ..ClassTiming::default()
        };
        assert_eq!(timing(timed(6)).check(), Ok(()));
        let mut stopped = timing(timed(2));
        assert!(!stopped.interrupted());
        stopped.cut_short = Some(INTERRUPTED.into());
        assert!(stopped.interrupted(), "a resumed run times again");
        assert!(
            timing(timed(7))
                .check()
                .unwrap_err()
                .contains("7 blocks of 6 planned")
        );
        let mut out = timed(1);
        out.left_out = Some("variant: [1176]".into());
        assert!(timing(out).check().unwrap_err().contains("left out"));
        let mut none = timed(2);
        none.pairs = 0;
        assert!(timing(none).check().unwrap_err().contains("no executions"));
        let mut negative = timed(2);
        negative.blocks[1].median_ms[0] = -1.0;
        assert!(
            timing(negative)
                .check()
                .unwrap_err()
                .contains("finite number")
        );
    }
}
