//! One side's answer to one sampled statement: its columns, its rows as a multiset (all
//! counted and checksummed, the first [`KEPT`] in sorted order kept as text, so the
//! first differing row can be shown and memory stays bounded whatever a statement
//! returns), its warnings with their texts (`SHOW WARNINGS`), or its error.

use std::hash::{Hash, Hasher};

use mysql::prelude::{Protocol, Queryable};
use mysql::{Conn, QueryResult, Value};

use crate::workload::check_sample::ReadSample;
use crate::workload::statement::{inline, split_at_placeholders};

/// How many rows of an answer are kept as text, the smallest in sorted order.
pub(crate) const KEPT: usize = 1000;

/// One warning of `SHOW WARNINGS`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Warning {
    pub(crate) level: String,
    pub(crate) code: u16,
    pub(crate) message: String,
}

impl Warning {
    /// `Warning 1260: Row 3 was cut by GROUP_CONCAT()`.
    pub(crate) fn text(&self) -> String {
        format!("{} {}: {}", self.level, self.code, self.message)
    }
}

/// What one side answered.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Answer {
    /// The columns' names and types.
    pub(crate) columns: Vec<(String, String)>,
    /// How many rows came back.
    pub(crate) rows: u64,
    /// Checksum of the rows as a multiset.
    pub(crate) checksum: u64,
    /// Checksum of the rows in the order they came.
    pub(crate) ordered: u64,
    /// The first [`KEPT`] rows in sorted order, each value as text.
    pub(crate) kept: Vec<Vec<String>>,
    /// The warnings, sorted by code.
    pub(crate) warnings: Vec<Warning>,
    pub(crate) error: Option<String>,
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
    /// The answer of these rows (each value as text), as they came.
    pub(crate) fn of_rows(columns: Vec<(String, String)>, rows: Vec<Vec<String>>) -> Answer {
        let hashes: Vec<u64> = rows.iter().map(stable_hash).collect();
        let mut sorted_hashes = hashes.clone();
        sorted_hashes.sort_unstable();
        let mut kept = rows;
        kept.sort_unstable();
        let count = kept.len() as u64;
        kept.truncate(KEPT);
        Answer {
            columns,
            rows: count,
            checksum: stable_hash(&sorted_hashes),
            ordered: stable_hash(&hashes),
            kept,
            warnings: Vec::new(),
            error: None,
        }
    }

    /// A failed answer.
    pub(crate) fn failed(error: String) -> Answer {
        Answer {
            error: Some(error),
            ..Answer::default()
        }
    }

    /// Whether every row is kept.
    pub(crate) fn whole(&self) -> bool {
        self.kept.len() as u64 == self.rows
    }

    /// The warnings' codes, in order.
    pub(crate) fn codes(&self) -> Vec<u16> {
        self.warnings.iter().map(|w| w.code).collect()
    }

    /// A short form: `3 rows, checksum 1a2b3c4d, first (…)`, or the error.
    pub(crate) fn describe(&self) -> String {
        if let Some(error) = &self.error {
            return format!("error {error}");
        }
        let mut text = format!(
            "{} row(s), checksum {:08x}",
            self.rows, self.checksum as u32
        );
        if !self.warnings.is_empty() {
            let codes: Vec<String> = self.codes().iter().map(u16::to_string).collect();
            text.push_str(&format!(", warnings {}", codes.join(" ")));
        }
        if let Some(first) = self.kept.first() {
            let short: String = row_text(first).chars().take(80).collect();
            text.push_str(&format!(", first row ({short})"));
        }
        text
    }

    /// How this answer and `other` compare.
    pub(crate) fn agreement(&self, other: &Answer) -> Agreement {
        match (&self.error, &other.error) {
            (Some(a), Some(b)) if a == b => Agreement::BothFailed(a.clone()),
            (None, None)
                if (self.rows, self.checksum, self.codes())
                    == (other.rows, other.checksum, other.codes()) =>
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

/// A row as the reports show it: its values joined by `, `.
pub(crate) fn row_text(row: &[String]) -> String {
    row.join(", ")
}

/// The answer to one statement; an error is an answer too. A statement the server
/// cannot prepare runs in the text protocol, its parameters written in.
pub(crate) fn answer(conn: &mut Conn, sample: &ReadSample) -> Answer {
    let read = match conn.prep(sample.sql.as_str()) {
        Ok(statement) => {
            let read = conn
                .exec_iter(&statement, sample.params.clone())
                .and_then(read_all);
            // Closed at once: thousands of samples must not pile up against the
            // server's max_prepared_stmt_count.
            let _ = conn.close(statement);
            read
        }
        Err(_) => conn
            .query_iter(inline(&split_at_placeholders(&sample.sql), &sample.params))
            .and_then(read_all),
    };
    let (columns, rows) = match read {
        Ok(read) => read,
        Err(e) => return Answer::failed(crate::db::errors::coded(&e)),
    };
    let mut answer = Answer::of_rows(columns, rows);
    if conn.warnings() > 0 {
        answer.warnings = warnings(conn);
    }
    answer
}

type Read = (Vec<(String, String)>, Vec<Vec<String>>);

/// The first result set's columns and rows, each value as text.
fn read_all<P: Protocol>(mut result: QueryResult<'_, '_, '_, P>) -> Result<Read, mysql::Error> {
    let columns = result
        .columns()
        .as_ref()
        .iter()
        .map(|c| (c.name_str().into_owned(), type_name(c.column_type())))
        .collect();
    let mut rows = Vec::new();
    for row in result.by_ref() {
        rows.push(render_row(&row?));
    }
    Ok((columns, rows))
}

/// A column type in the server's words: `MYSQL_TYPE_LONGLONG` is `longlong`.
fn type_name(kind: mysql::consts::ColumnType) -> String {
    let name = format!("{kind:?}");
    name.trim_start_matches("MYSQL_TYPE_").to_lowercase()
}

/// The last statement's warnings, sorted by code.
fn warnings(conn: &mut Conn) -> Vec<Warning> {
    let rows: Vec<(String, u16, String)> = conn.query("SHOW WARNINGS").unwrap_or_default();
    let mut warnings: Vec<Warning> = rows
        .into_iter()
        .map(|(level, code, message)| Warning {
            level,
            code,
            message,
        })
        .collect();
    warnings.sort_by_key(|w| w.code);
    warnings
}

/// A row's values as text, the same whatever protocol carried them.
fn render_row(row: &mysql::Row) -> Vec<String> {
    (0..row.len())
        .map(|i| row.as_ref(i).map_or_else(|| "NULL".to_string(), value_text))
        .collect()
}

/// A value's text: numbers and strings alike as their characters, so a DECIMAL sent as
/// text and the same DECIMAL sent in binary compare equal.
pub(crate) fn value_text(value: &Value) -> String {
    match value {
        Value::Bytes(bytes) => String::from_utf8_lossy(bytes).into_owned(),
        other => other.as_sql(false).trim_matches('\'').to_string(),
    }
}

/// A hash with fixed keys, so both sides' rows hash alike within a run.
pub(crate) fn stable_hash<T: Hash + ?Sized>(value: &T) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// An answer of one-column rows, as they came.
    pub(crate) fn rows(rows: &[&str]) -> Answer {
        Answer::of_rows(
            vec![("c".into(), "var_string".into())],
            rows.iter().map(|r| vec![r.to_string()]).collect(),
        )
    }

    #[test]
    fn an_answer_is_its_rows_as_a_multiset_its_warnings_and_never_a_shared_error() {
        let (ab, ba) = (rows(&["a", "b"]), rows(&["b", "a"]));
        assert_eq!(ab.agreement(&ab), Agreement::Same);
        assert_eq!(ab.agreement(&ba), Agreement::OrderOnly, "first rows differ");
        assert_eq!(ab.agreement(&rows(&["a", "c"])), Agreement::Different);
        assert_eq!(ab.agreement(&rows(&["a"])), Agreement::Different);
        let warned = Answer {
            warnings: vec![Warning {
                level: "Warning".into(),
                code: 1292,
                message: "Truncated".into(),
            }],
            ..ab.clone()
        };
        assert_eq!(ab.agreement(&warned), Agreement::Different);
        let failed = |e: &str| Answer::failed(e.into());
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
    fn the_smallest_rows_are_kept_and_all_are_counted() {
        let many: Vec<String> = (0..KEPT + 5).rev().map(|i| format!("{i:05}")).collect();
        let names: Vec<&str> = many.iter().map(String::as_str).collect();
        let answer = rows(&names);
        assert_eq!(answer.rows, (KEPT + 5) as u64);
        assert_eq!(answer.kept.len(), KEPT);
        assert_eq!(answer.kept[0], ["00000"]);
        assert!(!answer.whole());
    }

    #[test]
    fn values_read_the_same_whatever_their_protocol() {
        assert_eq!(value_text(&Value::Bytes(b"1.50".to_vec())), "1.50");
        assert_eq!(value_text(&Value::Int(-3)), "-3");
        assert_eq!(stable_hash("x"), stable_hash("x"));
    }
}
