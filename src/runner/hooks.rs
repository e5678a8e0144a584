//! SQL hooks of a side. Setup, before-round and after-round failures stop the run;
//! teardown always runs every statement and reports failures without stopping, because
//! its whole point is to put the server back.

use anyhow::Context;
use mysql::prelude::Queryable;

use crate::db::ConnectSpec;
use crate::profile::Side;

/// Runs `statements` on a fresh connection; the first failure is returned.
pub fn run(
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
        conn.query_drop(sql)
            .with_context(|| format!("{side}: {point} hook `{sql}` failed"))?;
    }
    Ok(())
}

/// Runs every teardown statement; returns the failures as messages.
pub fn teardown(connect: &ConnectSpec, side: Side, statements: &[String]) -> Vec<String> {
    if statements.is_empty() {
        return Vec::new();
    }
    let mut conn = match connect.connect() {
        Ok(conn) => conn,
        Err(e) => {
            return vec![format!(
                "{side}: cannot connect to run the teardown hooks: {e}"
            )];
        }
    };
    statements
        .iter()
        .filter_map(|sql| {
            conn.query_drop(sql)
                .err()
                .map(|e| format!("{side}: teardown hook `{sql}` failed: {e}"))
        })
        .collect()
}
