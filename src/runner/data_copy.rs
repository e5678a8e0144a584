//! Writes replayed on kept data. A captured log that writes changes the tables it runs
//! on, and each side's rounds change them differently (the values are drawn, the
//! interleaving is the threads'): left alone, every round would run on other data than
//! the last, the two servers would drift apart, and the run would leave them changed.
//! So before the first round each table the workload writes is copied next to it (a
//! table carrying abtest's mark, which `abtest cleanup` drops if a run is killed), and
//! put back from that copy — emptied, reloaded, its AUTO_INCREMENT counter reset —
//! before every round of each side and once more at the end, outside the measured
//! time. Every round of both sides then starts from the same data, and each server's
//! tables end as they began, which `CHECKSUM TABLE` before and after shows.

use anyhow::Context;
use mysql::prelude::Queryable;

use crate::db::ConnectSpec;
use crate::plan::Plan;
use crate::results::data_restore::{DataRestore, KeptTable};
use crate::workload::schema::OWNER_MARK;

/// The tables of one server copied before the first round.
pub(crate) struct Kept {
    connect: ConnectSpec,
    tables: Vec<Copied>,
}

/// One table and its copy.
struct Copied {
    /// As the statements name it.
    name: String,
    /// Quoted for SQL.
    quoted: String,
    /// The copy, quoted.
    copy: String,
    /// The columns put back (generated ones are computed again), quoted and joined.
    columns: String,
    /// The AUTO_INCREMENT counter before the first round.
    auto_increment: Option<u64>,
    /// `CHECKSUM TABLE` before the first round.
    checksum: Option<u64>,
    rows: u64,
}

/// The tables a workload file that writes (`writes = true`) writes, every table number
/// of each statement read; none when the plan does not put data back.
pub(crate) fn written_tables(plan: &Plan) -> Vec<String> {
    let Some(file) = plan.workload.file() else {
        return Vec::new();
    };
    if !plan.restore_data || !file.writes || plan.client.check_only {
        return Vec::new();
    }
    let texts = file.distinct_texts(plan.workload.tables.count, |sql| {
        crate::workload::custom::CustomWorkload::is_write(sql)
    });
    let mut tables: Vec<String> = texts
        .iter()
        .filter_map(|sql| crate::db::written_table::written_table(sql))
        .collect();
    tables.sort();
    tables.dedup();
    tables
}

/// Why data cannot be put back in this plan, when it cannot.
pub(crate) fn why_not(plan: &Plan) -> Option<&'static str> {
    if plan.schedule.instances > 1 {
        return Some("--instances starts every instance from the prepared data instead");
    }
    plan.segment
        .as_ref()
        .filter(|s| s.is_split())
        .map(|_| "a run split into segments shares its servers between processes")
}

impl Kept {
    /// Copies `tables` on the server of `connect` (tables that do not exist, or are
    /// views, are left out).
    pub(crate) fn take(connect: &ConnectSpec, tables: &[String]) -> anyhow::Result<Kept> {
        let mut conn = connect
            .connect()
            .context("connecting to copy the tables the workload writes")?;
        let mut kept = Kept {
            connect: connect.clone(),
            tables: Vec::new(),
        };
        for (n, name) in tables.iter().enumerate() {
            let copy = quote(&format!("abtest_kept_{}_{n}", std::process::id()));
            match copy_table(&mut conn, name, copy) {
                Ok(copied) => kept.tables.extend(copied),
                Err(e) => {
                    // The copies made so far go: a run that cannot start leaves nothing.
                    let _ = kept.drop_copies();
                    return Err(e.context(format!("copying table {name} before the first round")));
                }
            }
        }
        Ok(kept)
    }

    /// The tables copied, with their rows.
    pub(crate) fn tables(&self) -> Vec<KeptTable> {
        self.tables
            .iter()
            .map(|t| KeptTable {
                name: t.name.clone(),
                rows: t.rows,
            })
            .collect()
    }

    /// Puts every table back from its copy; returns the seconds it took.
    pub(crate) fn put_back(&self) -> anyhow::Result<f64> {
        let started = std::time::Instant::now();
        let mut conn = self
            .connect
            .connect()
            .context("connecting to put the written tables back")?;
        conn.query_drop("SET SESSION foreign_key_checks = 0")?;
        for t in &self.tables {
            conn.query_drop(format!("TRUNCATE TABLE {}", t.quoted))
                .and_then(|()| {
                    conn.query_drop(format!(
                        "INSERT INTO {} ({cols}) SELECT {cols} FROM {}",
                        t.quoted,
                        t.copy,
                        cols = t.columns
                    ))
                })
                .and_then(|()| match t.auto_increment {
                    Some(n) => {
                        conn.query_drop(format!("ALTER TABLE {} AUTO_INCREMENT = {n}", t.quoted))
                    }
                    None => Ok(()),
                })
                .with_context(|| format!("putting table {} back from its copy", t.name))?;
        }
        Ok(started.elapsed().as_secs_f64())
    }

    /// The tables whose checksum is not the one they had before the first round.
    pub(crate) fn changed(&self) -> anyhow::Result<Vec<String>> {
        let mut conn = self.connect.connect()?;
        let mut changed = Vec::new();
        for t in &self.tables {
            if checksum(&mut conn, &t.quoted)? != t.checksum {
                changed.push(t.name.clone());
            }
        }
        Ok(changed)
    }

    /// Drops the copies.
    pub(crate) fn drop_copies(&self) -> anyhow::Result<()> {
        let mut conn = self.connect.connect()?;
        for t in &self.tables {
            conn.query_drop(format!("DROP TABLE IF EXISTS {}", t.copy))?;
        }
        Ok(())
    }
}

/// Copies `name` to `copy` (marked as abtest's); `None` when it is not a base table.
fn copy_table(conn: &mut mysql::Conn, name: &str, copy: String) -> anyhow::Result<Option<Copied>> {
    let (schema, table) = match name.split_once('.') {
        Some((schema, table)) => (Some(schema), table),
        None => (None, name),
    };
    let found: Option<(String, Option<u64>)> = conn.exec_first(
        "SELECT TABLE_TYPE, AUTO_INCREMENT FROM information_schema.TABLES \
         WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ?",
        (schema, table),
    )?;
    let Some((_, auto_increment)) = found.filter(|(kind, _)| kind == "BASE TABLE") else {
        return Ok(None);
    };
    let names: Vec<String> = conn.exec(
        "SELECT COLUMN_NAME FROM information_schema.COLUMNS \
         WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ? \
         AND EXTRA NOT LIKE '%GENERATED%' AND EXTRA NOT LIKE '%PERSISTENT%' \
         ORDER BY ORDINAL_POSITION",
        (schema, table),
    )?;
    let columns = names
        .iter()
        .map(|c| quote_one(c))
        .collect::<Vec<_>>()
        .join(", ");
    let quoted = quote(name);
    conn.query_drop(format!("DROP TABLE IF EXISTS {copy}"))?;
    conn.query_drop(format!(
        "CREATE TABLE {copy} COMMENT = '{OWNER_MARK}' AS SELECT {columns} FROM {quoted}"
    ))?;
    let rows: Option<u64> = conn.query_first(format!("SELECT COUNT(*) FROM {copy}"))?;
    let checksum = checksum(conn, &quoted)?;
    Ok(Some(Copied {
        name: name.to_string(),
        quoted,
        copy,
        columns,
        auto_increment,
        checksum,
        rows: rows.unwrap_or(0),
    }))
}

/// `CHECKSUM TABLE` of one table.
fn checksum(conn: &mut mysql::Conn, quoted: &str) -> anyhow::Result<Option<u64>> {
    let row: Option<(String, Option<u64>)> =
        conn.query_first(format!("CHECKSUM TABLE {quoted}"))?;
    Ok(row.and_then(|(_, sum)| sum))
}

/// `db.t` quoted as `` `db`.`t` ``.
fn quote(name: &str) -> String {
    name.split('.').map(quote_one).collect::<Vec<_>>().join(".")
}

fn quote_one(part: &str) -> String {
    format!("`{}`", part.replace('`', "``"))
}

/// The record of what was kept, before any round.
pub(crate) fn record(kept: &[Option<Kept>; 2]) -> Option<DataRestore> {
    let first = kept.iter().flatten().next()?;
    Some(DataRestore {
        tables: first.tables(),
        ..DataRestore::default()
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_are_quoted_part_by_part() {
        assert_eq!(super::quote("shop.orders"), "`shop`.`orders`");
        assert_eq!(super::quote("a`b"), "`a``b`");
    }
}
