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
//! - differences are grouped by query class, one line per class with its count and the
//!   first differing statement.
//!
//! A change that is faster but answers differently is not a change a board can approve:
//! different answers make the verdict NO-GO unless `--allow-result-diff`.

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};

use mysql::prelude::Queryable;
use mysql::{Conn, Value};
use serde::{Deserialize, Serialize};

use crate::workload::check_sample::ReadSample;
use crate::workload::statement::{inline, split_at_placeholders};

/// What one side answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Answer {
    rows: u64,
    /// Checksum of the rows as a multiset.
    checksum: u64,
    /// Checksum of the rows in the order they came.
    ordered: u64,
    /// The warnings' codes, sorted.
    warnings: Vec<u16>,
    error: Option<String>,
    /// The first row, for people.
    first_row: Option<String>,
}

/// How two answers to one statement compare.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Agreement {
    /// The same rows, in the same order, with the same warnings.
    Same,
    /// The same rows and warnings, in another order.
    OrderOnly,
    /// Both sides failed with this error: nothing to compare.
    BothFailed(String),
    /// Different answers.
    Different,
}

impl Answer {
    /// A short form: `3 rows, checksum 1a2b3c4d, first (…)`, or the error.
    fn describe(&self) -> String {
        if let Some(error) = &self.error {
            return format!("error {error}");
        }
        let mut text = format!(
            "{} row(s), checksum {:08x}",
            self.rows, self.checksum as u32
        );
        if !self.warnings.is_empty() {
            let codes: Vec<String> = self.warnings.iter().map(u16::to_string).collect();
            text.push_str(&format!(", warnings {}", codes.join(" ")));
        }
        if let Some(first) = &self.first_row {
            let short: String = first.chars().take(80).collect();
            text.push_str(&format!(", first row ({short})"));
        }
        text
    }

    /// How this answer and `other` compare.
    pub(crate) fn agreement(&self, other: &Answer) -> Agreement {
        match (&self.error, &other.error) {
            (Some(a), Some(b)) if a == b => Agreement::BothFailed(a.clone()),
            (None, None)
                if (self.rows, self.checksum, &self.warnings)
                    == (other.rows, other.checksum, &other.warnings) =>
            {
                if self.ordered == other.ordered {
                    Agreement::Same
                } else {
                    Agreement::OrderOnly
                }
            }
            _ => Agreement::Different,
        }
    }
}

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
}

fn one() -> u32 {
    1
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
    /// Whether another order counts as a difference (`--check-order`).
    #[serde(default)]
    pub(crate) order_matters: bool,
    /// Set when the two sides' tables held different data before the check.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) data_differs: Option<String>,
}

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
                "; same rows, other order: {} class(es) — an application that relies on \
                 implicit order should add ORDER BY (--check-order counts it as a difference)",
                self.order_only.len()
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
}

/// Every sample's answer on `conn`, in order.
pub(crate) fn answer_all(conn: &mut Conn, samples: &[ReadSample]) -> Vec<Answer> {
    samples.iter().map(|sample| answer(conn, sample)).collect()
}

/// Compares the two sides' answers to `samples` (in the same order), class by class.
pub(crate) fn compare(
    samples: &[ReadSample],
    baseline: &[Answer],
    variant: &[Answer],
    order_matters: bool,
) -> ResultCheck {
    let mut check = ResultCheck {
        statements: samples.len() as u32,
        order_matters,
        ..ResultCheck::default()
    };
    let mut classes: BTreeMap<&str, [Option<usize>; 3]> = BTreeMap::new();
    for ((sample, a), b) in samples.iter().zip(baseline).zip(variant) {
        let found = classes.entry(sample.class.as_str()).or_default();
        let (list, slot) = match a.agreement(b) {
            Agreement::Same => continue,
            Agreement::Different => (&mut check.differences, 0),
            Agreement::OrderOnly => (&mut check.order_only, 1),
            Agreement::BothFailed(_) => (&mut check.not_compared, 2),
        };
        match found[slot] {
            Some(at) => list[at].count += 1,
            None => {
                found[slot] = Some(list.len());
                list.push(AnswerDifference {
                    class: sample.class.clone(),
                    count: 1,
                    statement: sample.sql.clone(),
                    params: sample.params.iter().map(|v| v.as_sql(false)).collect(),
                    baseline: a.describe(),
                    variant: b.describe(),
                });
            }
        }
    }
    let distinct: std::collections::BTreeSet<&str> =
        samples.iter().map(|s| s.class.as_str()).collect();
    check.classes = distinct.len() as u32;
    check
}

/// The answer to one statement; an error is an answer too. A statement the server
/// cannot prepare runs in the text protocol, its parameters written in.
fn answer(conn: &mut Conn, sample: &ReadSample) -> Answer {
    let rows: Result<Vec<mysql::Row>, mysql::Error> = match conn.prep(sample.sql.as_str()) {
        Ok(statement) => {
            let rows = conn.exec(&statement, sample.params.clone());
            // Closed at once: thousands of samples must not pile up against the
            // server's max_prepared_stmt_count.
            let _ = conn.close(statement);
            rows
        }
        Err(_) => conn.query(inline(&split_at_placeholders(&sample.sql), &sample.params)),
    };
    let rows = match rows {
        Ok(rows) => rows,
        Err(e) => {
            return Answer {
                rows: 0,
                checksum: 0,
                ordered: 0,
                warnings: Vec::new(),
                error: Some(crate::db::errors::coded(&e)),
                first_row: None,
            };
        }
    };
    let warnings = if conn.warnings() > 0 {
        warning_codes(conn)
    } else {
        Vec::new()
    };
    let rendered: Vec<String> = rows.iter().map(render_row).collect();
    let hashes: Vec<u64> = rendered.iter().map(stable_hash).collect();
    let mut sorted = hashes.clone();
    sorted.sort_unstable();
    Answer {
        rows: rows.len() as u64,
        checksum: stable_hash(&sorted),
        ordered: stable_hash(&hashes),
        warnings,
        error: None,
        first_row: rendered.first().cloned(),
    }
}

/// The codes of the last statement's warnings, sorted.
fn warning_codes(conn: &mut Conn) -> Vec<u16> {
    let rows: Vec<(String, u16, String)> = conn.query("SHOW WARNINGS").unwrap_or_default();
    let mut codes: Vec<u16> = rows.into_iter().map(|(_, code, _)| code).collect();
    codes.sort_unstable();
    codes
}

/// A row as SQL literals, the same text whatever protocol carried it.
fn render_row(row: &mysql::Row) -> String {
    let values: Vec<String> = (0..row.len())
        .map(|i| row.as_ref(i).map_or_else(|| "NULL".to_string(), value_text))
        .collect();
    values.join(", ")
}

/// A value's text: numbers and strings alike as their characters, so a DECIMAL sent as
/// text and the same DECIMAL sent in binary compare equal.
fn value_text(value: &Value) -> String {
    match value {
        Value::Bytes(bytes) => String::from_utf8_lossy(bytes).into_owned(),
        other => other.as_sql(false).trim_matches('\'').to_string(),
    }
}

/// A hash with fixed keys, so both sides' rows hash alike within a run.
fn stable_hash<T: Hash + ?Sized>(value: &T) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(rows: &[&str]) -> Answer {
        let hashes: Vec<u64> = rows.iter().map(|r| stable_hash(*r)).collect();
        let mut sorted = hashes.clone();
        sorted.sort_unstable();
        Answer {
            rows: rows.len() as u64,
            checksum: stable_hash(&sorted),
            ordered: stable_hash(&hashes),
            warnings: Vec::new(),
            error: None,
            first_row: rows.first().map(|r| r.to_string()),
        }
    }

    fn failed(error: &str) -> Answer {
        Answer {
            error: Some(error.into()),
            ..rows(&[])
        }
    }

    fn sample(class: &str) -> ReadSample {
        ReadSample {
            class: class.into(),
            sql: format!("{class} ?"),
            params: vec![Value::from(1)],
        }
    }

    #[test]
    fn an_answer_is_its_rows_as_a_multiset_its_warnings_and_never_a_shared_error() {
        let (ab, ba) = (rows(&["a", "b"]), rows(&["b", "a"]));
        assert_eq!(ab.agreement(&ab), Agreement::Same);
        assert_eq!(ab.agreement(&ba), Agreement::OrderOnly, "first rows differ");
        assert_eq!(ab.agreement(&rows(&["a", "c"])), Agreement::Different);
        assert_eq!(ab.agreement(&rows(&["a"])), Agreement::Different);
        let warned = Answer {
            warnings: vec![1292],
            ..ab.clone()
        };
        assert_eq!(ab.agreement(&warned), Agreement::Different);
        assert_eq!(
            failed("1064").agreement(&failed("1064")),
            Agreement::BothFailed("1064".into())
        );
        assert_eq!(
            failed("1064").agreement(&failed("1146")),
            Agreement::Different
        );
        assert_eq!(failed("1064").agreement(&ab), Agreement::Different);
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
        let baseline = [
            rows(&["1"]),
            rows(&["2"]),
            rows(&["x", "y"]),
            failed("1064"),
            rows(&["d"]),
        ];
        let variant = [
            rows(&["9"]),
            rows(&["8"]),
            rows(&["y", "x"]),
            failed("1064"),
            rows(&["d"]),
        ];
        let check = compare(&samples, &baseline, &variant, false);
        assert_eq!((check.statements, check.classes), (5, 4));
        assert_eq!(check.differences.len(), 1);
        assert_eq!(
            (
                check.differences[0].class.as_str(),
                check.differences[0].count
            ),
            ("A", 2)
        );
        assert_eq!(check.order_only[0].class, "B");
        assert_eq!(check.not_compared[0].class, "C");
        assert!(check.answers_differ());
        let summary = check.summary();
        assert!(
            summary.starts_with("1 of 4 query classes answer differently")
                && summary.contains("same rows, other order: 1 class")
                && summary.contains("could not be compared: 1 class"),
            "{summary}"
        );
        let only_order = compare(&samples[2..3], &baseline[2..3], &variant[2..3], false);
        assert!(!only_order.answers_differ());
        let strict = compare(&samples[2..3], &baseline[2..3], &variant[2..3], true);
        assert!(strict.answers_differ());
        assert_eq!(strict.differing_classes(), 1);
    }

    #[test]
    fn values_read_the_same_whatever_their_protocol() {
        assert_eq!(value_text(&Value::Bytes(b"1.50".to_vec())), "1.50");
        assert_eq!(value_text(&Value::Int(-3)), "-3");
        assert_eq!(stable_hash("x"), stable_hash("x"));
    }
}
