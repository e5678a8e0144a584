//! Do both sides give the same answers? (`--check-results N`, pt-upgrade's core check.)
//! Before the timed rounds, the same sampled read statements run on both sides with the
//! same parameters, and their answers are compared: the number of rows, a checksum of
//! the rows (in order when the statement has ORDER BY, in any order otherwise), the
//! warnings, and the error if there is one. A change that is faster but answers
//! differently is not a change a board can approve: different answers make the verdict
//! NO-GO unless `--allow-result-diff`.

use std::hash::{Hash, Hasher};

use mysql::prelude::Queryable;
use mysql::{Conn, Value};
use serde::{Deserialize, Serialize};

use crate::workload::oltp::ReadSample;

/// What one side answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Answer {
    rows: u64,
    checksum: u64,
    warnings: u64,
    error: Option<String>,
    /// The first row, for people.
    first_row: Option<String>,
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
        if self.warnings > 0 {
            text.push_str(&format!(", {} warning(s)", self.warnings));
        }
        if let Some(first) = &self.first_row {
            let short: String = first.chars().take(80).collect();
            text.push_str(&format!(", first row ({short})"));
        }
        text
    }
}

/// One statement the sides answered differently.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct AnswerDifference {
    /// The statement.
    pub(crate) statement: String,
    /// Its parameters, as SQL literals.
    pub(crate) params: Vec<String>,
    /// The baseline's answer, short.
    pub(crate) baseline: String,
    /// The variant's answer, short.
    pub(crate) variant: String,
}

/// The outcome of `--check-results`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ResultCheck {
    /// Statements run on both sides.
    pub(crate) statements: u32,
    /// The ones answered differently.
    pub(crate) differences: Vec<AnswerDifference>,
}

impl ResultCheck {
    /// One line for reports.
    pub(crate) fn summary(&self) -> String {
        if self.differences.is_empty() {
            format!(
                "both sides gave the same answers to {} sampled read statements",
                self.statements
            )
        } else {
            format!(
                "answers differ: {} of {} sampled read statements",
                self.differences.len(),
                self.statements
            )
        }
    }
}

/// Runs every sample on both connections and lists the differences.
pub(crate) fn compare(
    samples: &[ReadSample],
    baseline: &mut Conn,
    variant: &mut Conn,
) -> ResultCheck {
    let differences = samples
        .iter()
        .filter_map(|sample| {
            let a = answer(baseline, sample);
            let b = answer(variant, sample);
            (a != b).then(|| AnswerDifference {
                statement: sample.sql.clone(),
                params: sample.params.iter().map(|v| v.as_sql(false)).collect(),
                baseline: a.describe(),
                variant: b.describe(),
            })
        })
        .collect();
    ResultCheck {
        statements: samples.len() as u32,
        differences,
    }
}

/// The answer to one statement; an error is an answer too.
fn answer(conn: &mut Conn, sample: &ReadSample) -> Answer {
    let ordered = sample.sql.to_ascii_uppercase().contains("ORDER BY");
    let rows: Result<Vec<mysql::Row>, mysql::Error> =
        conn.exec(sample.sql.as_str(), sample.params.clone());
    let rows = match rows {
        Ok(rows) => rows,
        Err(e) => {
            return Answer {
                rows: 0,
                checksum: 0,
                warnings: 0,
                error: Some(crate::db::errors::coded(&e)),
                first_row: None,
            };
        }
    };
    let warnings = conn.warnings() as u64;
    let rendered: Vec<String> = rows.iter().map(render_row).collect();
    let mut hashes: Vec<u64> = rendered.iter().map(stable_hash).collect();
    if !ordered {
        hashes.sort_unstable();
    }
    Answer {
        rows: rows.len() as u64,
        checksum: stable_hash(&hashes),
        warnings,
        error: None,
        first_row: rendered.first().cloned(),
    }
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

    #[test]
    fn values_read_the_same_whatever_their_protocol() {
        assert_eq!(value_text(&Value::Bytes(b"1.50".to_vec())), "1.50");
        assert_eq!(value_text(&Value::Int(-3)), "-3");
        assert_eq!(stable_hash("x"), stable_hash("x"));
        let check = ResultCheck {
            statements: 10,
            differences: vec![],
        };
        assert!(check.summary().contains("same answers to 10"));
    }
}
