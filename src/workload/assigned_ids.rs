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
    /// The `table.column` it is bound to, for each table the statement can name.
    pub(crate) columns: Vec<String>,
}

/// Every INSERT value of `workload` (a file that writes, `writes = true`) that the
/// server of `conn` assigns: a plain INSERT's value that is one placeholder, alone in
/// its transaction, bound to its table's AUTO_INCREMENT column for every table number
/// it can take.
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
            for slot in alone_slots(workload, &transaction.statements, sql) {
                let read = assigned_columns(conn, &mut counters, workload, sql, tables, slot)?;
                if let Some(columns) = read {
                    found.push(Assigned {
                        transaction: t,
                        statement: s,
                        slot,
                        columns,
                    });
                }
            }
        }
    }
    Ok(found)
}

/// The bound values of `sql` (by `?` number) that are a placeholder of their own: no
/// offset, not a pair's end, used by no other statement of the transaction, in a
/// statement that binds no list (whose `?` numbers depend on the draw).
fn alone_slots(workload: &CustomWorkload, statements: &[String], sql: &str) -> Vec<usize> {
    if Variants::of(workload, sql, 1).has_lists() {
        return Vec::new();
    }
    let uses = |name: &str| {
        statements
            .iter()
            .flat_map(|s| placeholders(s).unwrap_or_default())
            .filter(|p| p.name == name)
            .count()
    };
    bound(workload, sql)
        .iter()
        .enumerate()
        .filter(|(_, (name, part, offset))| *part == Part::Whole && *offset == 0 && uses(name) == 1)
        .map(|(slot, _)| slot)
        .collect()
}

/// The `table.column` the value at `slot` binds in each text `sql` takes (each table
/// number), when every one is a plain INSERT's and its table's AUTO_INCREMENT column;
/// none otherwise. `counters` keeps each table's column as read.
fn assigned_columns(
    conn: &mut Conn,
    counters: &mut BTreeMap<String, Option<String>>,
    workload: &CustomWorkload,
    sql: &str,
    tables: u32,
    slot: usize,
) -> Result<Option<Vec<String>>, mysql::Error> {
    let variants = Variants::of(workload, sql, tables);
    let mut columns = Vec::new();
    for n in 0..variants.count() {
        let (table, lengths) = variants.nth(n);
        let Some(insert) = plain_insert(&render(sql, workload, tables, table, &lengths)) else {
            return Ok(None);
        };
        let Some((column, _)) = insert.columns.iter().find(|(_, s)| *s == Some(slot)) else {
            return Ok(None);
        };
        let counter = match counters.get(&insert.table) {
            Some(known) => known.clone(),
            None => {
                let read = auto_increment_column(conn, &insert.table)?;
                counters.insert(insert.table.clone(), read.clone());
                read
            }
        };
        if !counter.is_some_and(|c| c.eq_ignore_ascii_case(column)) {
            return Ok(None);
        }
        columns.push(format!("{}.{column}", insert.table));
    }
    columns.dedup();
    Ok(Some(columns))
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
    use super::alone_slots;
    use crate::workload::custom::CustomWorkload;

    #[test]
    fn only_a_value_of_its_own_in_its_transaction_may_be_left_to_the_server() {
        let workload = CustomWorkload::parse(
            r#"
[params]
id = { type = "choice", values = [7, 8] }
tied = { type = "choice", values = [2] }
own = { type = "int", min = 1, max = 9 }
t = { type = "table", values = ["1", "2"] }
ks = { type = "list", lengths = [2], values = [1, 2, 3] }
[[transaction]]
name = "new"
statements = ["INSERT INTO orders{t} (id, k, n) VALUES ({id}, {id + 1}, {own})",
              "INSERT INTO items (order_id) VALUES ({tied})",
              "UPDATE items SET n = 1 WHERE order_id = {tied}",
              "INSERT INTO lists (id, n) VALUES ({ks}, {own})",
              "INSERT INTO kept (n, id) VALUES (5, {id})"]
"#,
            std::path::Path::new("w.toml"),
        )
        .unwrap();
        let statements = &workload.transactions[0].statements;
        let of = |n: usize| alone_slots(&workload, statements, &statements[n]);
        // {id} is used twice (here and in `kept`), {id + 1} has an offset; {own} is
        // used in the list statement too, but that one never leaves a value.
        assert_eq!(of(0), [] as [usize; 0]);
        assert_eq!(of(1), [] as [usize; 0], "{{tied}} is also the UPDATE's");
        assert_eq!(
            of(3),
            [] as [usize; 0],
            "a statement with a list leaves nothing"
        );
        let alone = CustomWorkload::parse(
            "[params]\nid = { type = \"int\", min = 1, max = 9 }\nt = { type = \"table\" }\n\
             [[transaction]]\nname = \"n\"\nstatements = [\"INSERT INTO orders{t} (k, id) VALUES ({id}, 3)\", \"SELECT 1\"]\n",
            std::path::Path::new("w.toml"),
        )
        .unwrap();
        let statements = &alone.transactions[0].statements;
        assert_eq!(alone_slots(&alone, statements, &statements[0]), [0]);
    }
}
