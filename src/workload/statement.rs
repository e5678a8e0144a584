//! A statement that is either prepared on the server or sent as text with its
//! parameters inlined, as sysbench's `--db-ps-mode=auto|disable`.

use mysql::prelude::Queryable;
use mysql::{Conn, Statement, Value};

/// A workload statement.
#[derive(Debug, Clone)]
pub(crate) enum Stmt {
    /// Server-side prepared.
    Prepared(Statement),
    /// Text, split at its `?` placeholders.
    Text(Vec<String>),
}

impl Stmt {
    /// Prepares `sql` on `conn`, or keeps it as text when `prepared` is false.
    pub(crate) fn new(conn: &mut Conn, sql: &str, prepared: bool) -> Result<Stmt, mysql::Error> {
        if prepared {
            Ok(Stmt::Prepared(conn.prep(sql)?))
        } else {
            Ok(Stmt::Text(sql.split('?').map(str::to_string).collect()))
        }
    }

    /// Executes with `params` and discards the result rows.
    pub(crate) fn exec(&self, conn: &mut Conn, params: Vec<Value>) -> Result<(), mysql::Error> {
        match self {
            Stmt::Prepared(statement) => conn.exec_drop(statement, params),
            Stmt::Text(parts) => conn.query_drop(inline(parts, &params)),
        }
    }
}

/// Joins the text parts with the parameters as SQL literals.
fn inline(parts: &[String], params: &[Value]) -> String {
    let mut sql =
        String::with_capacity(parts.iter().map(String::len).sum::<usize>() + params.len() * 16);
    for (index, part) in parts.iter().enumerate() {
        sql.push_str(part);
        if let Some(value) = params.get(index) {
            sql.push_str(&value.as_sql(false));
        }
    }
    sql
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inlines_literals() {
        let parts: Vec<String> = "UPDATE t SET c=? WHERE id=?"
            .split('?')
            .map(str::to_string)
            .collect();
        let sql = inline(&parts, &[Value::from("a'b"), Value::from(7)]);
        assert_eq!(sql, "UPDATE t SET c='a\\'b' WHERE id=7");
    }
}
