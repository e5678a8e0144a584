//! Capturing from a running server's `performance_schema`: the statement digest table
//! gives each class of statement and how often it ran; the statement texts that give the
//! literals come from where the server keeps samples.
//!
//! What each server exposes:
//! - MySQL 8: `events_statements_summary_by_digest` with `QUERY_SAMPLE_TEXT`, one sample
//!   per digest.
//! - MariaDB 10.11: the same table without `QUERY_SAMPLE_TEXT`; samples exist only in
//!   `events_statements_history_long`, when its consumer and `events_statements_current`
//!   (which feeds it) are on.
//!
//! Both also use `events_statements_history_long` when it has rows. A digest with no
//! sample text cannot be replayed (its literals are unknown) and is left out, counted
//! in the file's header. The digest table keeps no transactions: every statement
//! replays on its own.

use std::collections::BTreeMap;

use mysql::prelude::Queryable;

use super::mix::{self, Class, Keep, Mix, Shape};
use super::template;
use crate::db::fingerprint::fingerprint;
use crate::exit::UsageError;

/// One digest: its text, its executions and the sample statements found for it.
#[derive(Debug, Default)]
struct Digest {
    text: String,
    count: u64,
    samples: Vec<String>,
}

/// Reads the digest table of `schema` (or of every schema) into a mix.
pub(crate) fn read(
    conn: &mut mysql::Conn,
    schema: Option<&str>,
    keep: Keep,
) -> anyhow::Result<Mix> {
    check_enabled(conn)?;
    let has_sample = conn
        .query_first::<String, _>(
            "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'performance_schema' \
             AND TABLE_NAME = 'events_statements_summary_by_digest' AND COLUMN_NAME = 'QUERY_SAMPLE_TEXT'",
        )
        .map_err(privilege_error)?
        .is_some();
    let sample = if has_sample {
        "QUERY_SAMPLE_TEXT"
    } else {
        "NULL"
    };
    let rows: Vec<(String, Option<String>, u64, Option<String>)> = conn
        .exec(
            format!(
                "SELECT DIGEST, DIGEST_TEXT, COUNT_STAR, {sample} FROM performance_schema.events_statements_summary_by_digest \
                 WHERE DIGEST IS NOT NULL AND (? IS NULL OR SCHEMA_NAME = ?)"
            ),
            (schema, schema),
        )
        .map_err(privilege_error)?;
    let mut digests: BTreeMap<String, Digest> = BTreeMap::new();
    for (digest, text, count, sample) in rows {
        let entry = digests.entry(digest).or_default();
        entry.text = text.unwrap_or_default();
        entry.count += count;
        entry.samples.extend(sample.filter(|s| !s.is_empty()));
    }
    let history: Vec<(String, String)> = conn
        .query(
            "SELECT DIGEST, SQL_TEXT FROM performance_schema.events_statements_history_long \
             WHERE DIGEST IS NOT NULL AND SQL_TEXT IS NOT NULL",
        )
        .unwrap_or_default();
    for (digest, text) in history {
        if let Some(entry) = digests.get_mut(&digest) {
            entry.samples.push(text);
        }
    }
    Ok(into_mix(digests.into_values().collect(), keep))
}

/// performance_schema must be on, or the table is empty whatever ran.
fn check_enabled(conn: &mut mysql::Conn) -> anyhow::Result<()> {
    let on: Option<String> = conn
        .query_first("SELECT @@GLOBAL.performance_schema")
        .map_err(privilege_error)?;
    if matches!(on.as_deref(), Some("1" | "ON")) {
        Ok(())
    } else {
        Err(UsageError::err(
            "performance_schema is OFF on this server: start it with performance_schema = ON \
             (and, on MariaDB, the events_statements_current and events_statements_history_long consumers for sample texts), \
             or capture a slow log instead",
        ))
    }
}

/// A missing privilege, said with the grant that fixes it.
fn privilege_error(e: mysql::Error) -> anyhow::Error {
    match crate::db::error_code(&e) {
        1142 | 1044 | 1227 => UsageError::err(format!(
            "cannot read performance_schema ({e}); grant it: GRANT SELECT ON performance_schema.* TO <the profile's user>"
        )),
        _ => anyhow::Error::new(e).context("reading the statement digest table"),
    }
}

/// Each digest with samples becomes one autocommit class per template its samples have,
/// its executions shared among them by how many samples each has.
fn into_mix(digests: Vec<Digest>, keep: Keep) -> Mix {
    let mut mix = Mix::default();
    // A digest's class is named by pt-query-digest's fingerprint of its sample, as in a
    // capture from a log; the server's digest text when there is no sample.
    let key = |digest: &Digest| {
        digest
            .samples
            .first()
            .map_or_else(|| digest.text.clone(), |sample| fingerprint(sample))
    };
    for digest in &digests {
        mix.statements += digest.count;
        *mix.fingerprints.entry(key(digest)).or_default() += digest.count;
    }
    let kept = mix::kept_fingerprints(&mix.fingerprints, keep);
    let mut no_sample = 0;
    let mut outside = 0;
    let mut not_replayed = 0;
    for digest in digests {
        if !kept.contains(&key(&digest)) {
            outside += digest.count;
            continue;
        }
        let mut by_template: BTreeMap<String, Vec<Vec<template::Literal>>> = BTreeMap::new();
        if digest
            .samples
            .first()
            .is_some_and(|sample| !mix::replayed(sample))
        {
            mix.skipped
                .entry(mix::NOT_REPLAYED.into())
                .and_modify(|n| *n += digest.count)
                .or_insert(digest.count);
            not_replayed += digest.count;
            continue;
        }
        for sample in &digest.samples {
            if let Ok((template, literals)) = template::split(sample) {
                by_template.entry(template).or_default().push(literals);
            }
        }
        if by_template.is_empty() {
            no_sample += digest.count;
            continue;
        }
        let samples: usize = by_template.values().map(Vec::len).sum();
        for (template, instances) in by_template {
            let shape = Shape {
                explicit: false,
                templates: vec![template],
            };
            let share = digest.count as f64 * instances.len() as f64 / samples as f64;
            mix.classes.push(Class {
                count: share.round().max(1.0) as u64,
                slots: mix::slot_sources(&instances, &shape),
                shape,
            });
        }
    }
    if outside > 0 {
        mix.skipped
            .insert("outside --top/--coverage".into(), outside);
    }
    if no_sample > 0 {
        mix.skipped.insert(
            "digests without a sample text (enable the events_statements_current and events_statements_history_long consumers)"
                .into(),
            no_sample,
        );
    }
    let total: u64 = mix.fingerprints.values().sum();
    mix.coverage = if total == 0 {
        0.0
    } else {
        total.saturating_sub(no_sample + outside + not_replayed) as f64 / total as f64
    };
    mix.classes.sort_by_key(|c| std::cmp::Reverse(c.count));
    mix
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_with_samples_become_classes_and_the_rest_is_counted() {
        let digests = vec![
            Digest {
                text: "SELECT `c` FROM `t` WHERE `id` = ?".into(),
                count: 900,
                samples: vec![
                    "SELECT c FROM t WHERE id = 5".into(),
                    "SELECT c FROM t WHERE id = 9".into(),
                ],
            },
            Digest {
                text: "UPDATE `t` SET `k` = ?".into(),
                count: 100,
                samples: vec![],
            },
        ];
        let mix = into_mix(digests, Keep::All);
        assert_eq!(mix.classes.len(), 1);
        assert_eq!(mix.classes[0].count, 900);
        assert!((mix.coverage - 0.9).abs() < 1e-12);
        assert_eq!(mix.skipped.values().sum::<u64>(), 100);
    }
}
