//! `abtest capture … --check-on PROFILE`: every statement of the captured file prepared
//! on a server, so a template that cannot run is found while the capture is reviewed,
//! not in the first round of the replay.

use mysql::prelude::Queryable;

use crate::workload::custom::CustomWorkload;

/// A statement of the file the server would not prepare.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Unpreparable {
    /// The file's line that holds the statement.
    pub(crate) line: usize,
    /// Its transaction.
    pub(crate) transaction: String,
    /// The statement as written in the file.
    pub(crate) statement: String,
    /// The server's answer.
    pub(crate) error: String,
}

/// Prepares every statement of `text` (a captured workload file, `path` for messages)
/// on `conn`, and lists those that fail.
pub(crate) fn check(
    text: &str,
    path: &std::path::Path,
    conn: &mut mysql::Conn,
) -> anyhow::Result<Vec<Unpreparable>> {
    let workload = CustomWorkload::parse(text, path)?;
    let mut failed = Vec::new();
    for (transaction, statement, sql) in workload.prepared_texts(1) {
        match conn.prep(&sql) {
            Ok(prepared) => {
                let _ = conn.close(prepared);
            }
            Err(e) => failed.push(Unpreparable {
                line: line_of(text, transaction),
                transaction: transaction.to_string(),
                statement: statement.to_string(),
                error: crate::db::errors::coded(&e),
            }),
        }
    }
    Ok(failed)
}

/// The line of the `statements = […]` of `transaction` in the file.
fn line_of(text: &str, transaction: &str) -> usize {
    let name = format!("name = \"{transaction}\"");
    let mut lines = text.lines().enumerate();
    lines
        .find(|(_, l)| l.trim() == name)
        .and_then(|_| lines.find(|(_, l)| l.trim_start().starts_with("statements")))
        .map_or(0, |(index, _)| index + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_statement_is_found_on_its_transactions_line() {
        let text = "[[transaction]]\nname = \"t1\"\nweight = 2\nstatements = [\"SELECT 1\"]\n\n\
                    [[transaction]]\nname = \"t2\"\nstatements = [\"SELECT 2\"]\n";
        assert_eq!(line_of(text, "t1"), 4);
        assert_eq!(line_of(text, "t2"), 8);
    }
}
