//! The sbtest schema and data, as sysbench 1.0.20's `oltp_common.lua` creates them.
//!
//! abtest marks the tables it creates with a table comment. It reuses any matching
//! table (sysbench's own included), but it only ever drops a table carrying its mark:
//! a benchmark must never destroy data it does not own.

use std::fmt::Write as _;

use anyhow::{Context, bail};
use mysql::prelude::Queryable;

use crate::db::ConnectSpec;
use crate::workload::random::{C_TEMPLATE, PAD_TEMPLATE, WorkloadRng};
use crate::workload::{PrepareMode, Workload, WorkloadName, WorkloadSpec};

/// The table comment that marks a table as created by abtest.
pub(crate) const OWNER_MARK: &str = "created by abtest";
const ROWS_PER_INSERT: u32 = 1000;

/// What is found where an sbtest table should be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TableState {
    /// No such table.
    Missing,
    /// The table has sysbench's shape and the expected row count.
    Matches,
    /// The table exists but differs; the reason says how.
    Differs {
        /// What differs.
        reason: String,
        /// Whether abtest created it (and so may drop it).
        owned: bool,
    },
}

/// Every table name the workload owns: its sbtest tables and the tables named in its
/// workload file.
pub(crate) fn own_tables(spec: &WorkloadSpec, max_threads: u32) -> Vec<String> {
    let sbtest = if spec.uses_sbtest() {
        table_count(spec, max_threads)
    } else {
        0
    };
    let mut names: Vec<String> = (1..=sbtest).map(|t| format!("sbtest{t}")).collect();
    if let Some(custom) = spec.file() {
        names.extend(custom.tables.iter().map(|t| t.to_lowercase()));
    }
    names
}

/// Refuses to write into a database that holds tables abtest does not own, unless the
/// user allowed it: a benchmark must never touch a production table by accident.
pub(crate) fn check_foreign_tables(
    connect: &ConnectSpec,
    spec: &WorkloadSpec,
    max_threads: u32,
) -> anyhow::Result<()> {
    let mut conn = connect
        .connect()
        .context("connecting to check the database's tables")?;
    let tables: Vec<String> = conn.query(
        "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()",
    )?;
    let own = own_tables(spec, max_threads);
    let own_or_sbtest = |name: &String| own.contains(&name.to_lowercase()) || is_sbtest_name(name);
    let foreign: Vec<&String> = tables.iter().filter(|t| !own_or_sbtest(t)).collect();
    if foreign.is_empty() {
        return Ok(());
    }
    Err(crate::exit::UsageError::err(format!(
        "the database holds tables abtest does not own ({}); a write workload could change them. \
         Point the profile at a database of its own, or pass --allow-foreign-tables",
        foreign
            .iter()
            .take(5)
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    )))
}

fn is_sbtest_name(name: &str) -> bool {
    name.strip_prefix("sbtest")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// What `abtest cleanup` did in one database.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Cleanup {
    /// Tables carrying [`OWNER_MARK`], dropped.
    pub(crate) dropped: Vec<String>,
    /// Tables without the mark, kept.
    pub(crate) kept: Vec<String>,
    /// Those of `kept` that a workload file names: abtest did not create them (a setup
    /// statement did, or they were there before), so they are the user's to drop.
    pub(crate) named: Vec<String>,
}

/// Drops the tables abtest created — those carrying [`OWNER_MARK`] — and nothing else:
/// a table a workload file names (`named`) without the mark is kept and reported, since
/// nothing shows whether it holds someone's data. Never drops a database.
pub(crate) fn cleanup(conn: &mut mysql::Conn, named: &[String]) -> anyhow::Result<Cleanup> {
    let tables: Vec<(String, String)> = conn.query(
        "SELECT TABLE_NAME, TABLE_COMMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() \
         ORDER BY TABLE_NAME",
    )?;
    let mut done = Cleanup::default();
    for (name, comment) in tables {
        if comment == OWNER_MARK {
            conn.query_drop(format!(
                "DROP TABLE {}",
                crate::db::quoted_identifier(&name)
            ))?;
            done.dropped.push(name);
        } else {
            if named.iter().any(|n| n.eq_ignore_ascii_case(&name)) {
                done.named.push(name.clone());
            }
            done.kept.push(name);
        }
    }
    Ok(done)
}

/// The tables a workload uses: sbtest1..N, or one bulk table per connection.
pub(crate) fn table_count(spec: &WorkloadSpec, max_threads: u32) -> u32 {
    if spec.kind == Workload::Sysbench(WorkloadName::BulkInsert) {
        max_threads
    } else {
        spec.tables.count
    }
}

/// Makes the sbtest tables ready on one server, loading tables in parallel.
/// Returns how many tables were created.
pub(crate) fn prepare(
    connect: &ConnectSpec,
    spec: &WorkloadSpec,
    seed: u64,
    max_threads: u32,
) -> anyhow::Result<u32> {
    let mut conn = connect
        .connect()
        .context("connecting to prepare the sbtest tables")?;
    let mut to_load = Vec::new();
    let tables = if spec.uses_sbtest() {
        table_count(spec, max_threads)
    } else {
        0
    };
    for table in 1..=tables {
        let mut state = inspect(&mut conn, table, spec)?;
        if spec.kind == Workload::Sysbench(WorkloadName::BulkInsert)
            && state == TableState::Matches
            && !is_owned(&mut conn, table)?
        {
            // bulk_insert truncates its tables every round: only abtest's own will do.
            state = TableState::Differs {
                reason: "a bulk_insert table abtest would truncate".into(),
                owned: false,
            };
        }
        if needs_load(table, &state, spec.tables.prepare)? {
            if state != TableState::Missing {
                conn.query_drop(format!("DROP TABLE sbtest{table}"))?;
            }
            to_load.push(table);
        }
    }
    let parallel = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .clamp(1, 4);
    let chunks: Vec<&[u32]> = to_load
        .chunks(to_load.len().div_ceil(parallel).max(1))
        .collect();
    std::thread::scope(|scope| {
        let handles: Vec<_> = chunks
            .iter()
            .map(|tables| scope.spawn(move || load_tables(connect, spec, seed, tables)))
            .collect();
        handles.into_iter().try_for_each(|h| {
            h.join()
                .unwrap_or_else(|_| bail!("a loader thread panicked"))
        })
    })?;
    if let Some(custom) = spec.file() {
        for sql in &custom.setup {
            conn.query_drop(sql)
                .with_context(|| format!("workload file setup statement `{sql}` failed"))?;
        }
    }
    Ok(to_load.len() as u32)
}

/// The first sbtest table that is not prepared as the workload expects (missing, or not
/// yet filled), or none when all are: what a segment waits for while segment 1 prepares.
pub(crate) fn first_unprepared(
    connect: &ConnectSpec,
    spec: &WorkloadSpec,
    max_threads: u32,
) -> anyhow::Result<Option<String>> {
    if !spec.uses_sbtest() {
        return Ok(None);
    }
    let mut conn = connect
        .connect()
        .context("connecting to look for the prepared sbtest tables")?;
    for table in 1..=table_count(spec, max_threads) {
        match inspect(&mut conn, table, spec)? {
            TableState::Matches => {}
            TableState::Missing => return Ok(Some(format!("sbtest{table} does not exist yet"))),
            TableState::Differs { reason, .. } => {
                return Ok(Some(format!("sbtest{table} is not ready ({reason})")));
            }
        }
    }
    Ok(None)
}

fn needs_load(table: u32, state: &TableState, mode: PrepareMode) -> anyhow::Result<bool> {
    match (state, mode) {
        (TableState::Missing, PrepareMode::Never) => {
            bail!(
                "table sbtest{table} does not exist and --prepare never was given; use --prepare auto"
            )
        }
        (TableState::Missing, _) => Ok(true),
        (TableState::Matches, PrepareMode::Always) => ensure_owned(table, state).map(|_| true),
        (TableState::Matches, _) => Ok(false),
        (TableState::Differs { reason, .. }, PrepareMode::Never) => {
            bail!(
                "table sbtest{table} does not match the workload ({reason}) and --prepare never was given"
            )
        }
        (TableState::Differs { .. }, _) => ensure_owned(table, state).map(|_| true),
    }
}

fn ensure_owned(table: u32, state: &TableState) -> anyhow::Result<()> {
    match state {
        TableState::Differs {
            owned: false,
            reason,
        } => bail!(
            "table sbtest{table} exists, was not created by abtest and does not match the workload \
             ({reason}); abtest will not drop it. Drop it yourself or point the profile at another database"
        ),
        _ => Ok(()),
    }
}

/// Compares table `table` with what the workload expects.
pub(crate) fn inspect(
    conn: &mut mysql::Conn,
    table: u32,
    spec: &WorkloadSpec,
) -> anyhow::Result<TableState> {
    let name = format!("sbtest{table}");
    let comment: Option<String> = conn.exec_first(
        "SELECT TABLE_COMMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?",
        (&name,),
    )?;
    let Some(comment) = comment else {
        return Ok(TableState::Missing);
    };
    let owned = comment == OWNER_MARK;
    if spec.kind == Workload::Sysbench(WorkloadName::BulkInsert) {
        return bulk_state(conn, &name, owned);
    }
    let shape = columns(conn, &name)?;
    let expected = [
        ("id", "int"),
        ("k", "int"),
        ("c", "char(120)"),
        ("pad", "char(60)"),
    ];
    if shape.len() != 4
        || shape
            .iter()
            .zip(expected)
            .any(|((c, t), (ec, et))| c != ec || t != et)
    {
        return Ok(TableState::Differs {
            reason: format!("columns {shape:?}"),
            owned,
        });
    }
    let rows: Option<u64> = conn.query_first(format!("SELECT COUNT(*) FROM {name}"))?;
    let rows = rows.unwrap_or(0);
    if rows != u64::from(spec.prepared_rows()) {
        return Ok(TableState::Differs {
            reason: format!("{rows} rows, expected {}", spec.prepared_rows()),
            owned,
        });
    }
    Ok(TableState::Matches)
}

fn columns(conn: &mut mysql::Conn, name: &str) -> anyhow::Result<Vec<(String, String)>> {
    let columns: Vec<(String, String)> = conn.exec(
        "SELECT COLUMN_NAME, COLUMN_TYPE FROM information_schema.COLUMNS \
         WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION",
        (name,),
    )?;
    Ok(columns
        .into_iter()
        .map(|(column, kind)| {
            (
                column.to_lowercase(),
                kind.to_lowercase().replace("int(11)", "int"),
            )
        })
        .collect())
}

fn bulk_state(conn: &mut mysql::Conn, name: &str, owned: bool) -> anyhow::Result<TableState> {
    let shape = columns(conn, name)?;
    if shape
        != [
            ("id".to_string(), "int".to_string()),
            ("k".to_string(), "int".to_string()),
        ]
    {
        return Ok(TableState::Differs {
            reason: format!("columns {shape:?}"),
            owned,
        });
    }
    Ok(TableState::Matches)
}

fn is_owned(conn: &mut mysql::Conn, table: u32) -> anyhow::Result<bool> {
    let comment: Option<String> = conn.exec_first(
        "SELECT TABLE_COMMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?",
        (format!("sbtest{table}"),),
    )?;
    Ok(comment.as_deref() == Some(OWNER_MARK))
}

fn load_tables(
    connect: &ConnectSpec,
    spec: &WorkloadSpec,
    seed: u64,
    tables: &[u32],
) -> anyhow::Result<()> {
    if tables.is_empty() {
        return Ok(());
    }
    let mut conn = connect
        .connect()
        .context("connecting to load sbtest tables")?;
    for &table in tables {
        load_table(&mut conn, spec, seed, table)
            .with_context(|| format!("loading sbtest{table}"))?;
    }
    Ok(())
}

fn load_table(
    conn: &mut mysql::Conn,
    spec: &WorkloadSpec,
    seed: u64,
    table: u32,
) -> anyhow::Result<()> {
    conn.query_drop(create_table_sql(spec, table))?;
    if spec.kind == Workload::Sysbench(WorkloadName::BulkInsert) {
        return Ok(());
    }
    let mut rng = WorkloadRng::with_spec(seed ^ (u64::from(table) << 32) ^ 0x5eed, spec.rand);
    let mut sql = String::with_capacity(ROWS_PER_INSERT as usize * 200);
    let rows = spec.prepared_rows();
    let mut written = 0;
    while written < rows {
        // A signal during a long load stops it here, not after the last row.
        if crate::stop::requested() {
            return Err(crate::exit::Interrupted::by(crate::stop::cause()).into());
        }
        let batch = ROWS_PER_INSERT.min(rows - written);
        sql.clear();
        let columns = if spec.tables.auto_inc {
            "k, c, pad"
        } else {
            "id, k, c, pad"
        };
        let _ = write!(sql, "INSERT INTO sbtest{table} ({columns}) VALUES ");
        for row in 0..batch {
            if row > 0 {
                sql.push(',');
            }
            sql.push('(');
            if !spec.tables.auto_inc {
                let _ = write!(sql, "{},", written + row + 1);
            }
            let _ = write!(sql, "{},'", rng.row_id(spec.tables.rows));
            rng.fill_template(C_TEMPLATE, &mut sql);
            sql.push_str("','");
            rng.fill_template(PAD_TEMPLATE, &mut sql);
            sql.push_str("')");
        }
        conn.query_drop(&sql)?;
        written += batch;
    }
    if spec.tables.create_secondary {
        conn.query_drop(format!("CREATE INDEX k_{table} ON sbtest{table}(k)"))?;
    }
    Ok(())
}

/// The CREATE TABLE statement, as sysbench's `create_table` (and `bulk_insert.lua`).
fn create_table_sql(spec: &WorkloadSpec, table: u32) -> String {
    let options = format!(
        "ENGINE = {} COMMENT = '{OWNER_MARK}'",
        spec.tables.storage_engine
    );
    if spec.kind == Workload::Sysbench(WorkloadName::BulkInsert) {
        return format!(
            "CREATE TABLE sbtest{table} (\n  id INTEGER NOT NULL,\n  k INTEGER DEFAULT '0' NOT NULL,\n  PRIMARY KEY (id)\n) {options}"
        );
    }
    let id = if spec.tables.auto_inc {
        "INTEGER NOT NULL AUTO_INCREMENT"
    } else {
        "INTEGER NOT NULL"
    };
    let key = if spec.tables.secondary {
        "KEY xid"
    } else {
        "PRIMARY KEY"
    };
    format!(
        "CREATE TABLE sbtest{table} (\n  id {id},\n  k INTEGER DEFAULT '0' NOT NULL,\n  \
         c CHAR(120) DEFAULT '' NOT NULL,\n  pad CHAR(60) DEFAULT '' NOT NULL,\n  {key} (id)\n) {options}"
    )
}
