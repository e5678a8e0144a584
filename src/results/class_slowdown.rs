//! Which timed query classes are too slow (`--max-class-slowdown`): the judgement of
//! `--class-timing`'s facts. Each class's latency ratio comes from its blocks
//! (`stats::block_ratio`); a class is
//!
//! - NO-GO when it is at least twice as slow and its ratio is beyond the tolerance at
//!   level α, Holm-adjusted among the classes (a workload has dozens, and one alarm per
//!   twenty unchanged classes would be a false NO-GO on every captured log);
//! - GO when its ratio is within the tolerance at level α (one-sided, as every verdict
//!   of a run: a class is cleared only by its own evidence, so no adjustment is needed);
//! - INCONCLUSIVE otherwise, and when it has too few blocks to tell.
//!
//! A class left out of the timing (it failed on a side) has no verdict here: it is
//! already a difference of the answers check, and its error is shown.

use serde::{Deserialize, Serialize};

use super::class_timing::{ClassTiming, TimedClass};
use crate::stats::block_ratio::{BlockRatio, block_ratio};
use crate::stats::holm::holm;
use crate::stats::verdict::{Verdict, class_verdict};

/// The least ratio a NO-GO needs, whatever the tolerance: a class twice as slow.
const LEAST_NO_GO: f64 = 2.0;

/// The tolerance a class's ratio is tested against when none is given: the table then
/// shows the ratios and intervals, and no class decides anything.
const SHOWN_AGAINST: f64 = 2.0;

/// One timed class, judged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ClassSlowdown {
    /// The query class.
    pub(crate) class: String,
    /// Its first timed statement.
    pub(crate) statement: String,
    /// Blocks timed, and executions per side in each.
    pub(crate) blocks: u32,
    pub(crate) pairs: u32,
    /// The median latency (ms) per side: the median of the blocks' medians.
    pub(crate) median_ms: [f64; 2],
    /// Variant / baseline latency, from the blocks' mean log latencies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) ratio: Option<f64>,
    /// Its 1 - 2α interval: within the tolerance at α one-sided, as a GO needs, is its
    /// upper bound below the tolerance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) ci: Option<[f64; 2]>,
    /// Holm-adjusted p of "the class is at most the tolerance slower".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) p_holm: Option<f64>,
    /// The verdict, when a tolerance was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) verdict: Option<Verdict>,
    /// Why the class was not timed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) left_out: Option<String>,
}

/// Judges every class of `timing` against `tolerance` (a ratio, such as 2.0); the
/// slowest first, the classes left out last. Each interval is at 1 - 2α, the level of
/// the verdicts, so the bound a GO rests on is the one shown.
pub(crate) fn judge_classes(
    timing: &ClassTiming,
    tolerance: Option<f64>,
    alpha: f64,
) -> Vec<ClassSlowdown> {
    let against = tolerance.unwrap_or(SHOWN_AGAINST);
    let ratios: Vec<Option<BlockRatio>> = timing
        .classes
        .iter()
        .map(|c| timed(c).and_then(|c| block_ratio(&c.diffs(), against, 2.0 * alpha)))
        .collect();
    let tested: Vec<f64> = ratios.iter().flatten().map(|r| r.p_beyond).collect();
    let mut adjusted = holm(&tested).into_iter();
    let mut judged: Vec<ClassSlowdown> = timing
        .classes
        .iter()
        .zip(&ratios)
        .map(|(class, ratio)| {
            let p_holm = ratio.map(|_| adjusted.next().unwrap_or(1.0));
            let verdict = tolerance.and_then(|_| {
                class.left_out.is_none().then(|| {
                    class_verdict(
                        ratio.map(|r| r.ratio),
                        ratio.map_or(1.0, |r| r.p_beyond),
                        p_holm.unwrap_or(1.0),
                        alpha,
                        LEAST_NO_GO,
                    )
                })
            });
            ClassSlowdown {
                class: class.class.clone(),
                statement: class.statement.clone(),
                blocks: class.blocks.len() as u32,
                pairs: class.pairs,
                median_ms: class.median_ms(),
                ratio: ratio.map(|r| r.ratio),
                ci: ratio.map(|r| r.ci),
                p_holm,
                verdict,
                left_out: class.left_out.clone(),
            }
        })
        .collect();
    let key = |c: &ClassSlowdown| c.ratio.unwrap_or(f64::NEG_INFINITY);
    judged.sort_by(|a, b| {
        (a.left_out.is_some().cmp(&b.left_out.is_some())).then(key(b).total_cmp(&key(a)))
    });
    judged
}

/// A class that was timed, not left out.
fn timed(class: &TimedClass) -> Option<&TimedClass> {
    class.left_out.is_none().then_some(class)
}

/// The sentence of a class that makes the run NO-GO.
pub(crate) fn no_go_sentence(class: &ClassSlowdown, tolerance: f64) -> String {
    let [low, high] = class.ci.unwrap_or([f64::NAN; 2]);
    format!(
        "NO-GO: query class {} is {} slower on the variant [{}, {}] on idle servers, beyond \
         --max-class-slowdown {} (Holm p {:.2e})",
        class.class,
        times(class.ratio.unwrap_or(f64::NAN)),
        times(low),
        times(high),
        times(tolerance),
        class.p_holm.unwrap_or(1.0)
    )
}

/// A ratio as a DBA reads it: `9.8×`, `0.52×`.
pub(crate) fn times(ratio: f64) -> String {
    if ratio >= 10.0 {
        format!("{ratio:.0}×")
    } else if ratio >= 1.0 {
        format!("{ratio:.1}×")
    } else {
        format!("{ratio:.2}×")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::class_timing::TimedBlock;

    fn class(name: &str, log_ratios: &[f64]) -> TimedClass {
        TimedClass {
            class: name.into(),
            statement: format!("{name} 1"),
            pairs: 5,
            blocks: log_ratios
                .iter()
                .map(|d| TimedBlock {
                    mean_log_ms: [0.0, *d],
                    median_ms: [1.0, d.exp()],
                })
                .collect(),
            left_out: None,
        }
    }

    fn timing(classes: Vec<TimedClass>) -> ClassTiming {
        ClassTiming {
            blocks: 6,
            classes,
            ..ClassTiming::default()
        }
    }

    #[test]
    fn a_tenfold_class_is_no_go_an_unchanged_one_go_and_a_noisy_one_undecided() {
        let ten = 10f64.ln();
        let found = judge_classes(
            &timing(vec![
                class("same", &[0.02, -0.01, 0.0, 0.01, -0.02, 0.0]),
                class(
                    "slower",
                    &[ten, ten + 0.2, ten - 0.1, ten + 0.1, ten, ten - 0.2],
                ),
                class("noisy", &[1.0, -0.5, 0.9, -0.4, 1.2, 0.1]),
            ]),
            Some(2.0),
            0.05,
        );
        let names: Vec<&str> = found.iter().map(|c| c.class.as_str()).collect();
        assert_eq!(names, ["slower", "noisy", "same"], "slowest first");
        let verdicts: Vec<Option<Verdict>> = found.iter().map(|c| c.verdict).collect();
        assert_eq!(
            verdicts,
            [
                Some(Verdict::NoGo),
                Some(Verdict::Inconclusive),
                Some(Verdict::Go)
            ]
        );
        assert!((found[0].ratio.unwrap() - 10.0).abs() < 0.01);
        // The interval shown is the one a GO rests on: its upper bound within 2×.
        for class in &found {
            let high = class.ci.unwrap()[1];
            assert_eq!(class.verdict == Some(Verdict::Go), high < 2.0, "{class:?}");
        }
        assert!(
            no_go_sentence(&found[0], 2.0).starts_with("NO-GO: query class slower is 10× slower")
        );
    }

    #[test]
    fn without_a_tolerance_nothing_is_decided_and_a_left_out_class_comes_last() {
        let mut failed = class("failed", &[]);
        failed.left_out = Some("variant: error 1055".into());
        let found = judge_classes(
            &timing(vec![failed, class("fast", &[-1.0, -1.1, -0.9])]),
            None,
            0.05,
        );
        assert_eq!(found[0].class, "fast");
        assert!(found.iter().all(|c| c.verdict.is_none()));
        assert_eq!(found[1].left_out.as_deref(), Some("variant: error 1055"));
        assert_eq!((found[1].ratio, found[1].p_holm), (None, None));
    }

    #[test]
    fn a_twice_as_slow_class_needs_holm_among_many_unchanged_ones() {
        // Twenty classes barely beyond 2× on their own: Holm keeps them undecided.
        let classes = (0..20)
            .map(|i| class(&format!("c{i}"), &[0.9, 0.6, 0.8, 0.7]))
            .collect();
        let found = judge_classes(&timing(classes), Some(2.0), 0.05);
        assert!(
            found
                .iter()
                .all(|c| c.verdict == Some(Verdict::Inconclusive)),
            "{found:#?}"
        );
    }

    #[test]
    fn ratios_read_as_a_dba_reads_them() {
        assert_eq!(times(9.84), "9.8×");
        assert_eq!(times(87.8), "88×");
        assert_eq!(times(0.523), "0.52×");
    }
}
