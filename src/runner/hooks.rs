//! SQL hooks of a side. Setup, before-round and after-round failures stop the run;
//! teardown always runs every statement and reports failures without stopping, because
//! its whole point is to put the server back. What the hooks change is found by
//! comparing the server with its snapshot (`server::globals`), not by reading them.

use anyhow::Context;
use mysql::prelude::Queryable;

use crate::db::ConnectSpec;
use crate::secret::{redact_sql, redact_sql_values};
use crate::side::Side;

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
