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
            Ok(Stmt::Text(split_at_placeholders(sql)))
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

/// `sql` cut at each `?` placeholder: a `?` inside a quoted string or a back-quoted
/// name is text, not a placeholder.
pub(crate) fn split_at_placeholders(sql: &str) -> Vec<String> {
    let mut parts = vec![String::new()];
    let mut quote: Option<char> = None;
    let mut chars = sql.chars();
    while let Some(c) = chars.next() {
        let part = parts.last_mut().expect("parts is never empty");
        match quote {
            Some(q) => {
                part.push(c);
                if c == '\\' && q != '`' {
                    part.extend(chars.next());
                } else if c == q {
                    quote = None;
                }
            }
            None if matches!(c, '\'' | '"' | '`') => {
                quote = Some(c);
                part.push(c);
            }
            None if c == '?' => parts.push(String::new()),
            None => part.push(c),
        }
    }
    parts
}

/// Joins the text parts with the parameters as SQL literals.
pub(crate) fn inline(parts: &[String], params: &[Value]) -> String {
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
    fn a_question_mark_in_quotes_is_not_a_placeholder() {
        let sql = "SELECT '?', `a?`, \"it\\\"s ?\" FROM t WHERE id = ? AND c = ?";
        let parts = split_at_placeholders(sql);
        assert_eq!(parts.len(), 3, "{parts:?}");
        assert_eq!(
            inline(&parts, &[Value::from(5), Value::from("o'k")]),
            "SELECT '?', `a?`, \"it\\\"s ?\" FROM t WHERE id = 5 AND c = 'o\\'k'"
        );
    }

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
