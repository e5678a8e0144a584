//! SQL hooks of a side. Setup, before-round and after-round failures stop the run;
//! teardown always runs every statement and reports failures without stopping, because
//! its whole point is to put the server back.

use anyhow::Context;
use mysql::prelude::Queryable;

use crate::db::ConnectSpec;
use crate::db::set_statement::{SetEffect, global_effect};
use crate::profile::Side;
use crate::secret::{redact_sql, redact_sql_values};

/// Runs `statements` on a fresh connection; the first failure is returned.
pub(crate) fn run(
    connect: &ConnectSpec,
    side: Side,
    point: &str,
    statements: &[String],
) -> anyhow::Result<()> {
    if statements.is_empty() {
        return Ok(());
    }
    let mut conn = connect
        .connect()
        .with_context(|| format!("{side}: connecting to run the {point} hooks"))?;
    for sql in statements {
        if let Err(error) = conn.query_drop(sql) {
            anyhow::bail!(hook_failure(side, point, sql, &error));
        }
    }
    Ok(())
}

/// Runs every teardown statement; returns the failures as messages.
pub(crate) fn teardown(connect: &ConnectSpec, side: Side, statements: &[String]) -> Vec<String> {
    if statements.is_empty() {
        return Vec::new();
    }
    let mut conn = match connect.connect() {
        Ok(conn) => conn,
        Err(e) => {
            return vec![format!(
                "{side}: cannot connect to run the teardown hooks: {}",
                crate::db::errors::describe(&e)
            )];
        }
    };
    statements
        .iter()
        .filter_map(|sql| {
            conn.query_drop(sql)
                .err()
                .map(|e| hook_failure(side, "teardown", sql, &e))
        })
        .collect()
}

/// The message of a failed hook statement, with any credential it carries masked in
/// the statement and in the server's error.
fn hook_failure(side: Side, point: &str, sql: &str, error: &mysql::Error) -> String {
    format!(
        "{side}: {point} hook `{}` failed: {}",
        redact_sql(sql),
        redact_sql_values(&crate::db::errors::describe(error), sql)
    )
}

/// Global variables a side's hooks set, with their values before the first hook ran.
#[derive(Debug, Clone, Default)]
pub(crate) struct GlobalSnapshot {
    values: Vec<(String, Option<String>)>,
}

/// The global variables the `SET` statements in `statements` assign, each once, in
/// order (`db::set_statement` reads every spelling; the plan refused what it cannot).
pub(crate) fn global_variables(statements: &[String]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for sql in statements {
        if let Ok(SetEffect::Globals(globals)) = global_effect(sql) {
            for name in globals {
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
    }
    names
}

/// Records the current values of every global variable the hooks set.
pub(crate) fn snapshot(connect: &ConnectSpec, statements: &[String]) -> GlobalSnapshot {
    let names = global_variables(statements);
    if names.is_empty() {
        return GlobalSnapshot::default();
    }
    let Ok(mut conn) = connect.connect() else {
        return GlobalSnapshot::default();
    };
    GlobalSnapshot {
        values: names
            .into_iter()
            .map(|name| {
                let value: Option<String> = conn
                    .query_first(format!("SELECT @@GLOBAL.{name}"))
                    .ok()
                    .flatten();
                (name, value)
            })
            .collect(),
    }
}

/// Puts back every recorded variable that still differs; returns what was restored (or
/// could not be).
pub(crate) fn restore(connect: &ConnectSpec, side: Side, snapshot: &GlobalSnapshot) -> Vec<String> {
    if snapshot.values.is_empty() {
        return Vec::new();
    }
    let mut conn = match connect.connect() {
        Ok(conn) => conn,
        Err(e) => {
            return vec![format!(
                "{side}: cannot connect to restore global variables: {}",
                crate::db::errors::describe(&e)
            )];
        }
    };
    let mut messages = Vec::new();
    for (name, original) in &snapshot.values {
        let Some(original) = original else { continue };
        let now: Option<String> = conn
            .query_first(format!("SELECT @@GLOBAL.{name}"))
            .ok()
            .flatten();
        if now.as_ref() == Some(original) {
            continue;
        }
        let literal = if original.parse::<f64>().is_ok() {
            original.clone()
        } else {
            format!("'{}'", original.replace('\'', "''"))
        };
        let now = now.unwrap_or_default();
        match conn.query_drop(format!("SET GLOBAL {name} = {literal}")) {
            Ok(()) => messages.push(format!(
                "{side}: restored {name} from {now} to {original}, as it was before the hooks ran"
            )),
            Err(e) => messages.push(format!(
                "{side}: could not restore {name} to {original}: {}",
                crate::db::errors::describe(&e)
            )),
        }
    }
    messages
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_global_assignments() {
        let statements = vec![
            "SET GLOBAL server_audit_logging = ON".to_string(),
            "set @@global.sync_binlog=1, GLOBAL innodb_flush_log_at_trx_commit = 2".to_string(),
            "SET SESSION sql_mode = ''".to_string(),
            "SELECT 1".to_string(),
        ];
        assert_eq!(
            global_variables(&statements),
            vec![
                "server_audit_logging",
                "sync_binlog",
                "innodb_flush_log_at_trx_commit"
            ]
        );
    }
}
