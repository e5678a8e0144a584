//! Captured INSERT ids re-based. A captured INSERT carries the id the server gave its
//! row (`INSERT INTO orders (id, …) VALUES (1001, …)`), and a replay draws that value
//! from the captured ones, with replacement: the second time an id is drawn its INSERT
//! fails on a duplicate key, round after round, even on data put back before each one.
//! In a file marked `writes = true` (as `abtest capture` marks one that writes), where
//! the value is the table's AUTO_INCREMENT column — the server's own metadata
//! says which column that is — and no other statement of its transaction uses it, the
//! replay binds NULL there, and the server assigns the next id, as it did for the
//! application. A value another statement of the transaction also uses (sysbench's
//! DELETE then INSERT of one id, an INSERT whose id a later UPDATE names) is kept: it
//! ties the rows the transaction touches, and replacing it would cut that tie.

use std::collections::BTreeMap;

use mysql::Conn;
use mysql::prelude::Queryable;

use super::custom::{CustomWorkload, Variants, bound, render};
use super::placeholder::{Part, placeholders};
use crate::db::written_table::plain_insert;

/// An INSERT's value that the server assigns in the replay.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Assigned {
    /// The transaction, by index in the file.
    pub(crate) transaction: usize,
    /// The statement, by index in its transaction.
    pub(crate) statement: usize,
    /// Which bound value (in `?` order) is sent as NULL.
    pub(crate) slot: usize,
    /// `table.column`, as the statement names them.
    pub(crate) column: String,
}

/// Every INSERT value of `workload` (a file that writes, `writes = true`) that the
/// server of `conn` assigns: a plain INSERT's
/// value that is one placeholder, alone in its transaction, bound to its table's
/// AUTO_INCREMENT column for every table number it can take.
pub(crate) fn server_assigned(
    conn: &mut Conn,
    workload: &CustomWorkload,
    tables: u32,
) -> Result<Vec<Assigned>, mysql::Error> {
    if !workload.writes {
        // A file written by hand says what it sends; only a captured one (marked
        // `writes = true`, as `abtest capture` writes it) carries the server's ids.
        return Ok(Vec::new());
    }
    let mut counters = BTreeMap::new();
    let mut found = Vec::new();
    for (t, transaction) in workload.transactions.iter().enumerate() {
        for (s, sql) in transaction.statements.iter().enumerate() {
            for (slot, column) in candidates(workload, &transaction.statements, sql, tables) {
                if assigned_everywhere(conn, &mut counters, workload, sql, tables, slot)? {
                    found.push(Assigned {
                        transaction: t,
                        statement: s,
                        slot,
                        column,
                    });
                }
            }
        }
    }
    Ok(found)
}

/// The values of `sql` that may be left to the server: a plain INSERT's value that is
/// a placeholder of its own (no offset, no list), used by no other statement of the
/// transaction, with its `table.column` as the first table number renders it.
fn candidates(
    workload: &CustomWorkload,
    statements: &[String],
    sql: &str,
    tables: u32,
) -> Vec<(usize, String)> {
    let bound = bound(workload, sql);
    let variants = Variants::of(workload, sql, tables);
    if variants.has_lists() {
        return Vec::new();
    }
    let (table, lengths) = variants.nth(0);
    let Some(insert) = plain_insert(&render(sql, workload, tables, table, &lengths)) else {
        return Vec::new();
    };
    let uses = |name: &str| {
        statements
            .iter()
            .flat_map(|s| placeholders(s).unwrap_or_default())
            .filter(|p| p.name == name)
            .count()
    };
    insert
        .columns
        .iter()
        .filter_map(|(column, slot)| {
            let (name, part, offset) = bound.get((*slot)?)?;
            let alone = *part == Part::Whole && *offset == 0 && uses(name) == 1;
            alone.then(|| {
                (
                    slot.unwrap_or_default(),
                    format!("{}.{column}", insert.table),
                )
            })
        })
        .collect()
}

/// Whether the value at `slot` is the AUTO_INCREMENT column of the table of every text
/// `sql` takes (each table number).
fn assigned_everywhere(
    conn: &mut Conn,
    counters: &mut BTreeMap<String, Option<String>>,
    workload: &CustomWorkload,
    sql: &str,
    tables: u32,
    slot: usize,
) -> Result<bool, mysql::Error> {
    let variants = Variants::of(workload, sql, tables);
    for n in 0..variants.count() {
        let (table, lengths) = variants.nth(n);
        let Some(insert) = plain_insert(&render(sql, workload, tables, table, &lengths)) else {
            return Ok(false);
        };
        let Some((column, _)) = insert.columns.iter().find(|(_, s)| *s == Some(slot)) else {
            return Ok(false);
        };
        let counter = match counters.get(&insert.table) {
            Some(known) => known.clone(),
            None => {
                let read = auto_increment_column(conn, &insert.table)?;
                counters.insert(insert.table.clone(), read.clone());
                read
            }
        };
        if !counter.is_some_and(|c| c.eq_ignore_ascii_case(column.trim_matches('`'))) {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The AUTO_INCREMENT column of `table` (`db.t` or a table of the connection's
/// database), as the server's metadata gives it; none for a table without one.
fn auto_increment_column(conn: &mut Conn, table: &str) -> Result<Option<String>, mysql::Error> {
    let (schema, name) = match table.split_once('.') {
        Some((schema, name)) => (Some(schema), name),
        None => (None, table),
    };
    conn.exec_first(
        "SELECT COLUMN_NAME FROM information_schema.COLUMNS \
         WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ? \
         AND EXTRA LIKE '%auto_increment%'",
        (schema, name),
    )
}

#[cfg(test)]
mod tests {
    use super::candidates;
    use crate::workload::custom::CustomWorkload;

    #[test]
    fn only_a_value_of_its_own_in_a_plain_insert_is_a_candidate() {
        let workload = CustomWorkload::parse(
            r#"
[params]
id = { type = "choice", values = [7, 8] }
tied = { type = "choice", values = [2] }
t = { type = "table", values = ["1", "2"] }
ks = { type = "list", lengths = [2], values = [1, 2, 3] }
[[transaction]]
name = "new"
statements = ["INSERT INTO orders{t} (id, k) VALUES ({id}, {id + 1})",
              "INSERT INTO items (order_id) VALUES ({tied})",
              "UPDATE items SET n = 1 WHERE order_id = {tied}",
              "INSERT INTO lists (id) VALUES ({ks})",
              "INSERT INTO kept (n, id) VALUES (5, {id})"]
"#,
            std::path::Path::new("w.toml"),
        )
        .unwrap();
        let statements = &workload.transactions[0].statements;
        let of = |n: usize| candidates(&workload, statements, &statements[n], 2);
        // {id} is used twice in the transaction (here and in `kept`): tied, kept.
        assert_eq!(of(0), []);
        assert_eq!(of(1), [], "{{tied}} is also the UPDATE's");
        assert_eq!(of(3), [], "a list is never left to the server");
        let alone = CustomWorkload::parse(
            "[params]\nid = { type = \"int\", min = 1, max = 9 }\nt = { type = \"table\" }\n\
             [[transaction]]\nname = \"n\"\nstatements = [\"INSERT INTO orders{t} (k, id) VALUES (3, {id})\"]\n",
            std::path::Path::new("w.toml"),
        )
        .unwrap();
        let statements = &alone.transactions[0].statements;
        assert_eq!(
            candidates(&alone, statements, &statements[0], 2),
            [(0, "orders1.id".to_string())]
        );
    }
}
