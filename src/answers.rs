//! Do both sides give the same answers? (`--check-results N`, pt-upgrade's core check.)
//! Before the timed rounds, the same sampled read statements run on both sides with the
//! same parameters, and their answers are compared the way a DBA means "the same":
//!
//! - an answer is the multiset of its rows (their count and a checksum of the sorted
//!   row hashes) plus its warnings' codes; the same rows in another order are the same
//!   answer, reported apart as "same rows, other order" (an application that relies on
//!   an implicit order should add ORDER BY), and a difference only with `--check-order`,
//!   as pt-upgrade counts it;
//! - the same error on both sides is no agreement: the statement could not be compared,
//!   and is counted and shown apart; a statement the server cannot prepare is run in the
//!   text protocol instead, as an application would send it;
//! - each sampled statement runs on both sides back to back and then again on the side
//!   that went first (which side goes first alternates), so both see it at nearly the
//!   same moment and a statement that answers differently on its own (the time, a random
//!   value, the session, a `LIMIT` that picks any rows) is told from one the change made
//!   different: its comparable part is compared, the rest reported as not comparable
//!   with the reason, never as a difference ([`outcome`]);
//! - differences are grouped by query class, each with its count, the first differing
//!   statement, the first differing row of each side, where a long value differs, and
//!   the warnings' texts; every differing class is listed.
//!
//! A change that is faster but answers differently is not a change a board can approve:
//! different answers make the verdict NO-GO unless `--allow-result-diff`.

mod answer;
mod outcome;
mod rows;
mod ties;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub(crate) use answer::{Answer, answer};
pub(crate) use outcome::Triple;
use outcome::{Kind, Outcome};

use crate::workload::check_sample::ReadSample;

/// One query class the sides answered differently (or could not be compared on).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct AnswerDifference {
    /// The query class: the statement's template.
    #[serde(default)]
    pub(crate) class: String,
    /// How many sampled statements of the class were concerned.
    #[serde(default = "one")]
    pub(crate) count: u32,
    /// The first such statement.
    pub(crate) statement: String,
    /// Its parameters, as SQL literals.
    pub(crate) params: Vec<String>,
    /// The baseline's answer, short.
    pub(crate) baseline: String,
    /// The variant's answer, short.
    pub(crate) variant: String,
    /// The first row (in sorted order) the baseline has and the variant lacks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) baseline_row: Option<String>,
    /// The first row the variant has and the baseline lacks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) variant_row: Option<String>,
    /// What differs, in words, when the rows do not say it all: row counts, columns,
    /// where a long value differs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) detail: Option<String>,
    /// The baseline's warnings (`Warning 1260: Row 3 was cut by GROUP_CONCAT()`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) baseline_warnings: Vec<String>,
    /// The variant's warnings.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) variant_warnings: Vec<String>,
    /// Why part of the answers was not compared, and what was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) reason: Option<String>,
    /// What to do about it (rows in another order).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) advice: Option<String>,
    /// The one side the class failed on (an error there, an answer on the other): the
    /// timed rounds leave it out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) failed_on: Option<crate::side::Side>,
}

fn one() -> u32 {
    1
}

/// The most warnings kept per side of a difference.
const WARNINGS_KEPT: usize = 5;

impl AnswerDifference {
    fn new(sample: &ReadSample, triple: &Triple, outcome: Outcome) -> AnswerDifference {
        let texts = |a: &Answer| -> Vec<String> {
            let mut texts: Vec<String> = a.warnings.iter().map(|w| w.text()).collect();
            texts.dedup();
            texts.truncate(WARNINGS_KEPT);
            texts
        };
        let different = outcome.kind == Kind::Different;
        let [baseline_row, variant_row] = outcome.rows.unwrap_or_default();
        AnswerDifference {
            class: sample.class.clone(),
            count: 1,
            statement: sample.sql.clone(),
            params: sample.params.iter().map(|v| v.as_sql(false)).collect(),
            baseline: triple.baseline.describe(),
            variant: triple.variant.describe(),
            baseline_row,
            variant_row,
            detail: outcome.detail,
            baseline_warnings: if different {
                texts(&triple.baseline)
            } else {
                Vec::new()
            },
            variant_warnings: if different {
                texts(&triple.variant)
            } else {
                Vec::new()
            },
            reason: outcome.reason,
            advice: (outcome.kind == Kind::OrderOnly).then(|| order_advice(&sample.sql)),
            failed_on: match (&triple.baseline.error, &triple.variant.error) {
                (Some(_), None) => Some(crate::side::Side::Baseline),
                (None, Some(_)) => Some(crate::side::Side::Variant),
                _ => None,
            },
        }
    }

    /// The lines that show this class: its statement, both answers, the first differing
    /// row of each side one under the other, where they differ, the warnings, the reason
    /// or the advice.
    pub(crate) fn lines(&self) -> Vec<String> {
        let mut lines = vec![format!(
            "{} ({} statement(s)); first {} [{}]",
            self.class,
            self.count,
            self.statement,
            self.params.join(", ")
        )];
        if let Some(reason) = &self.reason {
            lines.push(format!("  {reason}"));
            return lines;
        }
        lines.push(format!("  baseline: {}", self.baseline));
        lines.push(format!("  variant:  {}", self.variant));
        if self.baseline_row.is_some() || self.variant_row.is_some() {
            let row = |r: &Option<String>| {
                r.as_ref()
                    .map_or("(none: every row it has, the other has too)".into(), |r| {
                        format!("({r})")
                    })
            };
            lines.push("  first differing row:".into());
            lines.push(format!("    baseline {}", row(&self.baseline_row)));
            lines.push(format!("    variant  {}", row(&self.variant_row)));
        }
        if let Some(detail) = &self.detail {
            lines.push(format!("  {detail}"));
        }
        for (side, warnings) in [
            ("baseline", &self.baseline_warnings),
            ("variant", &self.variant_warnings),
        ] {
            lines.extend(warnings.iter().map(|w| format!("  {side} {w}")));
        }
        if let Some(advice) = &self.advice {
            lines.push(format!("  {advice}"));
        }
        lines
    }
}

/// The advice for rows that come in another order, fitting the query: with an
/// `ORDER BY`, its keys tie; without, there is no order to rely on.
fn order_advice(sql: &str) -> String {
    if crate::db::nondeterministic::orders(sql) {
        "rows with equal ORDER BY keys come in another order; add a unique column to the \
         ORDER BY"
            .into()
    } else {
        "the rows come in no defined order; add ORDER BY if the application relies on one".into()
    }
}

/// The outcome of `--check-results`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct ResultCheck {
    /// Statements run on both sides.
    pub(crate) statements: u32,
    /// Query classes they came from.
    #[serde(default)]
    pub(crate) classes: u32,
    /// The classes answered differently, one entry each.
    pub(crate) differences: Vec<AnswerDifference>,
    /// The classes answered with the same rows in another order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) order_only: Vec<AnswerDifference>,
    /// The classes where both sides failed alike: not compared.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) not_compared: Vec<AnswerDifference>,
    /// The classes whose answers depend on more than the data (the time, chance, the
    /// session, the server): compared in part, each with its reason.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) not_comparable: Vec<AnswerDifference>,
    /// Whether another order counts as a difference (`--check-order`).
    #[serde(default)]
    pub(crate) order_matters: bool,
    /// Set when the two sides' tables held different data before the check.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) data_differs: Option<String>,
}

/// How many classes of each kind the terminal lists before it says how many more.
pub(crate) const LISTED: usize = 20;

impl ResultCheck {
    /// Whether the answers make the run NO-GO.
    pub(crate) fn answers_differ(&self) -> bool {
        !self.differences.is_empty() || (self.order_matters && !self.order_only.is_empty())
    }

    /// How many sampled statements were compared: all but those both sides failed alike.
    pub(crate) fn compared(&self) -> u32 {
        let failed: u32 = self.not_compared.iter().map(|d| d.count).sum();
        self.statements.saturating_sub(failed)
    }

    /// Why the check proves nothing, when both sides failed alike on every statement:
    /// then no answer was compared, and "no difference" must not pass for agreement.
    pub(crate) fn nothing_compared(&self) -> Option<String> {
        (self.statements > 0 && self.compared() == 0).then(|| {
            format!(
                "answers not judged: none of the {} sampled read statements could be compared \
                 (both sides failed alike on every one)",
                self.statements
            )
        })
    }

    /// The classes that count as different.
    pub(crate) fn differing_classes(&self) -> usize {
        self.differences.len()
            + if self.order_matters {
                self.order_only.len()
            } else {
                0
            }
    }

    /// The headline's words: how many classes answer differently.
    pub(crate) fn headline(&self) -> String {
        format!(
            "{} of {} query classes answer differently",
            self.differing_classes(),
            self.classes.max(1)
        )
    }

    /// One line for reports.
    pub(crate) fn summary(&self) -> String {
        let classes = self.classes.max(1);
        let mut text = if self.answers_differ() {
            format!(
                "{} of {classes} query classes answer differently ({} sampled read statements)",
                self.differing_classes(),
                self.statements
            )
        } else {
            format!(
                "both sides gave the same answers to {} of {} sampled read statements in \
                 {classes} query classes",
                self.compared(),
                self.statements
            )
        };
        if !self.order_only.is_empty() && !self.order_matters {
            text.push_str(&format!(
                "; same rows, other order: {} class(es) — {} (--check-order counts it as a \
                 difference)",
                self.order_only.len(),
                self.order_advice()
            ));
        }
        if !self.not_comparable.is_empty() {
            text.push_str(&format!(
                "; not comparable in part: {} class(es) whose answers depend on more than the \
                 data (the time, chance, the session or the server), compared where they can \
                 be and not counted as differences",
                self.not_comparable.len()
            ));
        }
        if !self.not_compared.is_empty() {
            text.push_str(&format!(
                "; could not be compared: {} class(es) where both sides answered with the same \
                 error",
                self.not_compared.len()
            ));
        }
        if let Some(data) = &self.data_differs {
            text.push_str(&format!("; {data}"));
        }
        text
    }

    /// The advice for the classes in another order, as their queries call for it.
    fn order_advice(&self) -> String {
        let ordered = self
            .order_only
            .iter()
            .filter(|d| crate::db::nondeterministic::orders(&d.statement))
            .count();
        match (ordered, self.order_only.len() - ordered) {
            (0, _) => "an application that relies on implicit order should add ORDER BY".into(),
            (_, 0) => "rows with equal ORDER BY keys come in another order: add a unique column \
                       to the ORDER BY"
                .into(),
            (with, without) => format!(
                "{with} with ties under their ORDER BY (add a unique column to it), {without} \
                 without ORDER BY (add one)"
            ),
        }
    }

    /// Every class the check found something in, for the terminal: each differing class
    /// up to `listed`, then the classes in another order and those not comparable up to
    /// `listed` each; a kind with more says how many more and where they are.
    pub(crate) fn listing(&self, listed: usize, elsewhere: &str) -> Vec<String> {
        let order_kind = if self.order_matters {
            "other order (--check-order)"
        } else {
            "same rows, other order"
        };
        let mut lines = Vec::new();
        for (kind, list) in [
            ("differ", &self.differences),
            (order_kind, &self.order_only),
            ("not comparable", &self.not_comparable),
        ] {
            for difference in list.iter().take(listed) {
                let mut shown = difference.lines();
                shown[0] = format!("{kind}: {}", shown[0]);
                lines.extend(shown.into_iter().map(|l| format!("  {l}")));
            }
            if list.len() > listed {
                lines.push(format!(
                    "  {} more ({kind}), listed in {elsewhere}",
                    list.len() - listed
                ));
            }
        }
        lines
    }
}

/// The check being made: each sample's outcome added to its class's entry.
#[derive(Debug, Default)]
pub(crate) struct Comparing {
    check: ResultCheck,
    /// Each class's entry in each list, by list.
    entries: BTreeMap<(String, usize), usize>,
    /// Reasons the workload file gives for its classes' answers to change on their own.
    marked: BTreeMap<String, String>,
    classes: std::collections::BTreeSet<String>,
}

impl Comparing {
    /// A check; `marked` holds the workload file's reasons by class.
    pub(crate) fn new(order_matters: bool, marked: BTreeMap<String, String>) -> Comparing {
        Comparing {
            check: ResultCheck {
                order_matters,
                ..ResultCheck::default()
            },
            marked,
            ..Comparing::default()
        }
    }

    /// Adds one sample's three answers.
    pub(crate) fn add(&mut self, sample: &ReadSample, triple: &Triple) {
        self.check.statements += 1;
        self.classes.insert(sample.class.clone());
        let marked = self.marked.get(&sample.class).map(String::as_str);
        let outcome = outcome::judge(sample, marked, triple);
        let slot = match &outcome.kind {
            Kind::Same => return,
            Kind::Different => 0,
            Kind::OrderOnly => 1,
            Kind::BothFailed(_) => 2,
            Kind::Partial => 3,
        };
        let list = match slot {
            0 => &mut self.check.differences,
            1 => &mut self.check.order_only,
            2 => &mut self.check.not_compared,
            _ => &mut self.check.not_comparable,
        };
        match self.entries.get(&(sample.class.clone(), slot)) {
            Some(&at) => list[at].count += 1,
            None => {
                self.entries
                    .insert((sample.class.clone(), slot), list.len());
                list.push(AnswerDifference::new(sample, triple, outcome));
            }
        }
    }

    /// The check made.
    pub(crate) fn finish(mut self) -> ResultCheck {
        self.check.classes = self.classes.len() as u32;
        self.check
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use answer::tests::rows;
    use mysql::Value;

    fn sample(class: &str) -> ReadSample {
        ReadSample {
            class: class.into(),
            sql: format!("{class} ?"),
            params: vec![Value::from(1)],
        }
    }

    fn check(
        samples: &[ReadSample],
        baseline: &[Answer],
        variant: &[Answer],
        order_matters: bool,
    ) -> ResultCheck {
        let mut comparing = Comparing::new(order_matters, BTreeMap::new());
        for ((sample, b), v) in samples.iter().zip(baseline).zip(variant) {
            let triple = Triple {
                baseline: b.clone(),
                variant: v.clone(),
                again: b.clone(),
                baseline_first: true,
            };
            comparing.add(sample, &triple);
        }
        comparing.finish()
    }

    #[test]
    fn differences_are_grouped_by_class_and_order_counts_only_when_asked() {
        let samples = [
            sample("A"),
            sample("A"),
            sample("B"),
            sample("C"),
            sample("D"),
        ];
        let failed = || Answer::failed("1064".into());
        let baseline = [
            rows(&["1"]),
            rows(&["2"]),
            rows(&["x", "y"]),
            failed(),
            rows(&["d"]),
        ];
        let variant = [
            rows(&["9"]),
            rows(&["8"]),
            rows(&["y", "x"]),
            failed(),
            rows(&["d"]),
        ];
        let found = check(&samples, &baseline, &variant, false);
        assert_eq!((found.statements, found.classes), (5, 4));
        assert_eq!(found.differences.len(), 1);
        let first = &found.differences[0];
        assert_eq!((first.class.as_str(), first.count), ("A", 2));
        assert_eq!(
            (first.baseline_row.as_deref(), first.variant_row.as_deref()),
            (Some("1"), Some("9"))
        );
        assert_eq!(found.order_only[0].class, "B");
        assert_eq!(
            found.order_only[0].advice.as_deref(),
            Some(
                "the rows come in no defined order; add ORDER BY if the application relies on one"
            )
        );
        assert_eq!(found.not_compared[0].class, "C");
        assert!(found.answers_differ());
        let summary = found.summary();
        assert!(
            summary.starts_with("1 of 4 query classes answer differently")
                && summary.contains("same rows, other order: 1 class")
                && summary.contains("could not be compared: 1 class"),
            "{summary}"
        );
        let only_order = check(&samples[2..3], &baseline[2..3], &variant[2..3], false);
        assert!(!only_order.answers_differ());
        let strict = check(&samples[2..3], &baseline[2..3], &variant[2..3], true);
        assert!(strict.answers_differ());
        assert_eq!(strict.differing_classes(), 1);
    }

    #[test]
    fn ties_under_an_order_by_get_advice_that_fits_the_query() {
        let ordered = ReadSample {
            class: "ordered".into(),
            sql: "SELECT id, k FROM t ORDER BY k".into(),
            params: Vec::new(),
        };
        let found = check(
            &[ordered],
            &[rows(&["x", "y"])],
            &[rows(&["y", "x"])],
            false,
        );
        assert_eq!(
            found.order_only[0].advice.as_deref(),
            Some(
                "rows with equal ORDER BY keys come in another order; add a unique column to the ORDER BY"
            )
        );
        assert!(
            found
                .summary()
                .contains("add a unique column to the ORDER BY"),
            "{}",
            found.summary()
        );
    }

    #[test]
    fn every_differing_class_is_listed_or_counted_with_where_to_find_it() {
        let samples: Vec<ReadSample> = (0..7).map(|i| sample(&format!("C{i}"))).collect();
        let baseline: Vec<Answer> = (0..7).map(|_| rows(&["a"])).collect();
        let variant: Vec<Answer> = (0..7).map(|_| rows(&["b"])).collect();
        let found = check(&samples, &baseline, &variant, false);
        let all = found.listing(LISTED, "report.md");
        assert_eq!(
            all.iter().filter(|l| l.starts_with("  differ: ")).count(),
            7
        );
        let some = found.listing(5, "report.md");
        assert_eq!(
            some.iter().filter(|l| l.starts_with("  differ: ")).count(),
            5
        );
        assert_eq!(
            some.last().unwrap(),
            "  2 more (differ), listed in report.md"
        );
        let at = all
            .iter()
            .position(|l| l == "    first differing row:")
            .unwrap();
        assert_eq!(
            all[at + 1..at + 3],
            ["      baseline (a)", "      variant  (b)"]
        );
    }
}
