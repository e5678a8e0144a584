//! One event of a sysbench workload, statement for statement as sysbench 1.0.20's lua
//! scripts: the OLTP transaction (BEGIN, point selects, the four range selects, index and
//! non-index updates, a DELETE+INSERT of the same id, COMMIT) and its single-statement
//! relatives, select_random_points/ranges and bulk_insert. Each group of statements picks
//! one random table, as `oltp_common.lua` does. Statements are server-side prepared once
//! per connection and table, unless `--ps-mode disable` asks for text queries.
//!
//! Only the built-in workloads live here: each function takes the script's
//! [`WorkloadName`] with the spec, and `session` picks this file or a workload file's
//! code for a connection.

use std::fmt::Write as _;
use std::sync::Arc;

use mysql::prelude::Queryable;
use mysql::{Conn, Value};

use crate::workload::assigned_ids::Assigned;
use crate::workload::check_sample::{Coverage, MIN_PER_CLASS, ReadSample};
use crate::workload::event_log::{ClassId, ClassNames, EventLog, StatementKind};
use crate::workload::random::{C_TEMPLATE, PAD_TEMPLATE, UniqueSequence, WorkloadRng};
use crate::workload::statement::Stmt;
use crate::workload::{PsMode, SysbenchOptions, WorkloadName, WorkloadSpec};

/// sysbench's bulk insert buffer size.
const BULK_PACKET_SIZE: usize = 512 * 1024;

/// The statement groups of the OLTP scripts, in sysbench's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Group {
    PointSelects,
    SimpleRanges,
    SumRanges,
    OrderRanges,
    DistinctRanges,
    IndexUpdates,
    NonIndexUpdates,
    DeleteInserts,
    Deletes,
}

impl Group {
    fn statements(self) -> &'static [&'static str] {
        match self {
            Group::PointSelects => &["SELECT c FROM sbtest{} WHERE id=?"],
            Group::SimpleRanges => &["SELECT c FROM sbtest{} WHERE id BETWEEN ? AND ?"],
            Group::SumRanges => &["SELECT SUM(k) FROM sbtest{} WHERE id BETWEEN ? AND ?"],
            Group::OrderRanges => &["SELECT c FROM sbtest{} WHERE id BETWEEN ? AND ? ORDER BY c"],
            Group::DistinctRanges => {
                &["SELECT DISTINCT c FROM sbtest{} WHERE id BETWEEN ? AND ? ORDER BY c"]
            }
            Group::IndexUpdates => &["UPDATE sbtest{} SET k=k+1 WHERE id=?"],
            Group::NonIndexUpdates => &["UPDATE sbtest{} SET c=? WHERE id=?"],
            Group::DeleteInserts => &[
                "DELETE FROM sbtest{} WHERE id=?",
                "INSERT INTO sbtest{} (id, k, c, pad) VALUES (?, ?, ?, ?)",
            ],
            Group::Deletes => &["DELETE FROM sbtest{} WHERE id=?"],
        }
    }

    /// The query class of each of [`Group::statements`], as the report names it.
    fn class_names(self) -> &'static [&'static str] {
        match self {
            Group::PointSelects => &["point select"],
            Group::SimpleRanges => &["simple range"],
            Group::SumRanges => &["sum range"],
            Group::OrderRanges => &["order range"],
            Group::DistinctRanges => &["distinct range"],
            Group::IndexUpdates => &["index update"],
            Group::NonIndexUpdates => &["non-index update"],
            Group::DeleteInserts => &["delete", "insert"],
            Group::Deletes => &["delete"],
        }
    }

    fn kind(self) -> StatementKind {
        if self.is_read() {
            StatementKind::Read
        } else {
            StatementKind::Write
        }
    }

    fn is_read(self) -> bool {
        matches!(
            self,
            Group::PointSelects
                | Group::SimpleRanges
                | Group::SumRanges
                | Group::OrderRanges
                | Group::DistinctRanges
        )
    }
}

/// The groups of an OLTP event with their repetition counts.
fn event_groups(name: WorkloadName, options: &SysbenchOptions) -> Vec<(Group, u32)> {
    let ranges = [
        (Group::SimpleRanges, options.simple_ranges),
        (Group::SumRanges, options.sum_ranges),
        (Group::OrderRanges, options.order_ranges),
        (Group::DistinctRanges, options.distinct_ranges),
    ];
    let writes = [
        (Group::IndexUpdates, options.index_updates),
        (Group::NonIndexUpdates, options.non_index_updates),
        (Group::DeleteInserts, options.delete_inserts),
    ];
    let mut groups: Vec<(Group, u32)> = Vec::new();
    match name {
        WorkloadName::OltpReadWrite | WorkloadName::OltpReadOnly => {
            groups.push((Group::PointSelects, options.point_selects));
            if options.range_selects {
                groups.extend(ranges);
            }
            if name == WorkloadName::OltpReadWrite {
                groups.extend(writes);
            }
        }
        WorkloadName::OltpWriteOnly => groups.extend(writes),
        WorkloadName::OltpPointSelect => groups.push((Group::PointSelects, 1)),
        WorkloadName::OltpUpdateIndex => groups.push((Group::IndexUpdates, options.index_updates)),
        WorkloadName::OltpUpdateNonIndex => {
            groups.push((Group::NonIndexUpdates, options.non_index_updates))
        }
        WorkloadName::OltpDelete => groups.push((Group::Deletes, 1)),
        _ => {}
    }
    groups.retain(|(_, count)| *count > 0);
    groups
}

/// `n` read statements of script `name`'s events (sysbench's groups in turn), each with
/// parameters drawn from `rng` as an event would draw them. Empty when the script reads
/// nothing that can be sampled.
pub(crate) fn sample_reads(
    name: WorkloadName,
    spec: &WorkloadSpec,
    rng: &mut WorkloadRng,
    coverage: Coverage,
) -> Vec<ReadSample> {
    // A built-in workload has no captured values: every value is drawn.
    let n = match coverage {
        Coverage::Spread(n) => n,
        Coverage::EveryValue => 0,
    };
    let groups: Vec<Group> = event_groups(name, &spec.sysbench)
        .into_iter()
        .map(|(group, _)| group)
        .filter(|group| group.is_read())
        .collect();
    if groups.is_empty() {
        return Vec::new();
    }
    let count = n.max(MIN_PER_CLASS * groups.len() as u32);
    (0..count as usize)
        .map(|i| {
            let group = groups[i % groups.len()];
            let table = rng.uniform(1, spec.tables.count.max(1));
            let template = group.statements()[0];
            let sql = template.replace("{}", &table.to_string());
            let id = rng.row_id(spec.tables.rows);
            let params = if group == Group::PointSelects {
                vec![Value::from(id)]
            } else {
                vec![
                    Value::from(id),
                    Value::from(id + spec.sysbench.range_size - 1),
                ]
            };
            ReadSample {
                class: template.replace("{}", "N"),
                sql,
                params,
            }
        })
        .collect()
}

/// The query classes of a sysbench workload's statements.
#[derive(Debug)]
struct SysbenchClasses {
    begin: ClassId,
    commit: ClassId,
    /// The class of each statement of each of the event's groups.
    groups: Vec<Vec<ClassId>>,
    /// The class of a one-statement script (insert, key lookup, bulk insert).
    single: ClassId,
}

impl SysbenchClasses {
    fn of(name: WorkloadName, options: &SysbenchOptions) -> (SysbenchClasses, ClassNames) {
        let transactions = name.uses_transactions(options);
        let mut names = ClassNames::default();
        let begin = if transactions { names.id("BEGIN") } else { 0 };
        let groups = event_groups(name, options)
            .iter()
            .map(|(group, _)| group.class_names().iter().map(|n| names.id(n)).collect())
            .collect();
        let single = match name {
            WorkloadName::OltpInsert => names.id("insert"),
            WorkloadName::SelectRandomPoints => names.id("random points"),
            WorkloadName::SelectRandomRanges => names.id("random ranges"),
            WorkloadName::BulkInsert => names.id("bulk insert"),
            _ => 0,
        };
        let commit = if transactions { names.id("COMMIT") } else { 0 };
        let classes = SysbenchClasses {
            begin,
            commit,
            groups,
            single,
        };
        (classes, names)
    }
}

/// Script `name`'s query classes, by [`ClassId`]: its sysbench statement kinds, with
/// BEGIN and COMMIT where its events use them.
pub(crate) fn query_classes(name: WorkloadName, options: &SysbenchOptions) -> Vec<String> {
    SysbenchClasses::of(name, options).1.into_names()
}

/// Where this connection sits among the round's connections.
#[derive(Debug, Clone)]
pub(crate) struct SessionContext {
    /// 0-based index of the connection.
    pub(crate) thread: u32,
    /// Connections in the round.
    pub(crate) threads: u32,
    /// Distinct ids for oltp_insert with client-generated ids.
    pub(crate) unique: Arc<UniqueSequence>,
    /// A workload file's INSERT values this side's server assigns, read once before
    /// the first round ([`crate::workload::assigned_ids`]).
    pub(crate) assigned: Arc<[Assigned]>,
}

/// The prepared statements of a sysbench workload.
#[derive(Debug)]
enum SysbenchScript {
    /// OLTP groups; `statements[table][group][statement]`.
    Groups {
        groups: Vec<(Group, u32)>,
        statements: Vec<Vec<Vec<Stmt>>>,
    },
    /// oltp_insert: one text INSERT into a random table.
    Insert,
    /// select_random_points / select_random_ranges on sbtest1, within this thread's slice.
    KeyLookup { statement: Stmt, ranges: bool },
    /// bulk_insert into this thread's own table.
    Bulk { buffer: String, next_id: u64 },
}

/// A connection's prepared sysbench workload.
#[derive(Debug)]
pub(crate) struct SysbenchSession {
    script: SysbenchScript,
    classes: SysbenchClasses,
    spec: WorkloadSpec,
    context: SessionContext,
    transactions: bool,
}

impl SysbenchSession {
    /// Prepares every statement of script `name` on `conn`.
    pub(crate) fn prepare(
        conn: &mut Conn,
        name: WorkloadName,
        spec: &WorkloadSpec,
        context: SessionContext,
    ) -> Result<SysbenchSession, mysql::Error> {
        let prepared = spec.ps_mode == PsMode::Auto;
        Ok(SysbenchSession {
            script: prepare_sysbench(conn, name, spec, &context, prepared)?,
            classes: SysbenchClasses::of(name, &spec.sysbench).0,
            transactions: name.uses_transactions(&spec.sysbench),
            spec: spec.clone(),
            context,
        })
    }

    /// Whether events run inside BEGIN/COMMIT.
    pub(crate) fn uses_transactions(&self) -> bool {
        self.transactions
    }

    /// Runs one event, its values drawn from `rng`; `log` receives every statement
    /// that completed.
    pub(crate) fn event(
        &mut self,
        conn: &mut Conn,
        rng: &mut WorkloadRng,
        log: &mut EventLog,
    ) -> Result<(), mysql::Error> {
        let classes = &self.classes;
        if self.transactions {
            log.statement(classes.begin, StatementKind::Other, || {
                conn.query_drop("BEGIN")
            })?;
        }
        match &mut self.script {
            SysbenchScript::Groups { groups, statements } => {
                for (index, &(group, repeat)) in groups.iter().enumerate() {
                    let table = rng.uniform(1, statements.len() as u32) as usize - 1;
                    let stmts = Classed {
                        stmts: &statements[table][index],
                        classes: &classes.groups[index],
                    };
                    run_group(conn, (group, repeat), stmts, &self.spec, rng, log)?;
                }
            }
            SysbenchScript::Insert => {
                let sql = insert_text(&self.spec, &self.context, rng);
                log.statement(classes.single, StatementKind::Write, || {
                    conn.query_drop(sql)
                })?;
            }
            SysbenchScript::KeyLookup { statement, ranges } => {
                let params = key_lookup_params(&self.spec, &self.context, *ranges, rng);
                log.statement(classes.single, StatementKind::Read, || {
                    statement.exec(conn, params)
                })?;
            }
            SysbenchScript::Bulk { buffer, next_id } => {
                *next_id += 1;
                let row = BulkRow {
                    id: *next_id,
                    table: self.context.thread + 1,
                    class: classes.single,
                };
                bulk_append(conn, buffer, row, log)?;
            }
        }
        if self.transactions {
            log.statement(classes.commit, StatementKind::Other, || {
                conn.query_drop("COMMIT")
            })?;
        }
        Ok(())
    }

    /// Ends the session: flushes a pending bulk insert, as sysbench does at thread exit.
    pub(crate) fn finish(&mut self, conn: &mut Conn) -> Result<(), mysql::Error> {
        if let SysbenchScript::Bulk { buffer, .. } = &mut self.script
            && !buffer.is_empty()
        {
            conn.query_drop(buffer.as_str())?;
            buffer.clear();
        }
        Ok(())
    }
}

/// oltp_insert's statement: one text INSERT into a random table.
fn insert_text(spec: &WorkloadSpec, context: &SessionContext, rng: &mut WorkloadRng) -> String {
    let table = rng.uniform(1, spec.tables.count);
    let k = rng.row_id(spec.tables.rows.max(1));
    let id = if spec.tables.auto_inc {
        0
    } else {
        i64::from(context.unique.next()) - 2_147_483_648
    };
    let mut sql = format!("INSERT INTO sbtest{table} (id, k, c, pad) VALUES ({id}, {k}, '");
    rng.fill_template(C_TEMPLATE, &mut sql);
    sql.push_str("', '");
    rng.fill_template(PAD_TEMPLATE, &mut sql);
    sql.push_str("')");
    sql
}

/// How many server-side prepared statements one connection of script `name` holds in
/// the binary protocol.
pub(crate) fn prepared_per_connection(name: WorkloadName, spec: &WorkloadSpec) -> u64 {
    match name {
        WorkloadName::OltpInsert | WorkloadName::BulkInsert => 0,
        WorkloadName::SelectRandomPoints | WorkloadName::SelectRandomRanges => 1,
        _ => {
            let per_table: usize = event_groups(name, &spec.sysbench)
                .iter()
                .map(|(group, _)| group.statements().len())
                .sum();
            u64::from(spec.tables.count) * per_table as u64
        }
    }
}

/// Prepares the statements of a sysbench workload on `conn`.
fn prepare_sysbench(
    conn: &mut Conn,
    name: WorkloadName,
    spec: &WorkloadSpec,
    context: &SessionContext,
    prepared: bool,
) -> Result<SysbenchScript, mysql::Error> {
    Ok(match name {
        WorkloadName::OltpInsert => SysbenchScript::Insert,
        WorkloadName::SelectRandomPoints => {
            let points = vec!["?"; spec.sysbench.random_points as usize].join(", ");
            let sql = format!("SELECT id, k, c, pad FROM sbtest1 WHERE k IN ({points})");
            SysbenchScript::KeyLookup {
                statement: Stmt::new(conn, &sql, prepared)?,
                ranges: false,
            }
        }
        WorkloadName::SelectRandomRanges => {
            let ranges =
                vec!["k BETWEEN ? AND ?"; spec.sysbench.number_of_ranges as usize].join(" OR ");
            let sql = format!("SELECT count(k) FROM sbtest1 WHERE {ranges}");
            SysbenchScript::KeyLookup {
                statement: Stmt::new(conn, &sql, prepared)?,
                ranges: true,
            }
        }
        WorkloadName::BulkInsert => {
            conn.query_drop(format!("TRUNCATE TABLE sbtest{}", context.thread + 1))?;
            SysbenchScript::Bulk {
                buffer: String::new(),
                next_id: 0,
            }
        }
        _ => prepare_groups(conn, name, spec, prepared)?,
    })
}

fn prepare_groups(
    conn: &mut Conn,
    name: WorkloadName,
    spec: &WorkloadSpec,
    prepared: bool,
) -> Result<SysbenchScript, mysql::Error> {
    let groups = event_groups(name, &spec.sysbench);
    let mut statements = Vec::with_capacity(spec.tables.count as usize);
    for table in 1..=spec.tables.count {
        let mut per_group = Vec::with_capacity(groups.len());
        for (group, _) in &groups {
            let prepared_group = group
                .statements()
                .iter()
                .map(|sql| Stmt::new(conn, &sql.replace("{}", &table.to_string()), prepared))
                .collect::<Result<Vec<_>, _>>()?;
            per_group.push(prepared_group);
        }
        statements.push(per_group);
    }
    Ok(SysbenchScript::Groups { groups, statements })
}

/// A group's statements for one table, with their query classes.
#[derive(Clone, Copy)]
struct Classed<'a> {
    stmts: &'a [Stmt],
    classes: &'a [ClassId],
}

impl Classed<'_> {
    fn exec(
        &self,
        conn: &mut Conn,
        index: usize,
        kind: StatementKind,
        params: Vec<Value>,
        log: &mut EventLog,
    ) -> Result<(), mysql::Error> {
        log.statement(self.classes[index], kind, || {
            self.stmts[index].exec(conn, params)
        })
    }
}

fn run_group(
    conn: &mut Conn,
    (group, repeat): (Group, u32),
    stmts: Classed<'_>,
    spec: &WorkloadSpec,
    rng: &mut WorkloadRng,
    log: &mut EventLog,
) -> Result<(), mysql::Error> {
    let kind = group.kind();
    for _ in 0..repeat {
        let id = rng.row_id(spec.tables.rows);
        match group {
            Group::PointSelects | Group::IndexUpdates | Group::Deletes => {
                stmts.exec(conn, 0, kind, vec![Value::from(id)], log)?
            }
            Group::SimpleRanges | Group::SumRanges | Group::OrderRanges | Group::DistinctRanges => {
                let end = id + spec.sysbench.range_size - 1;
                stmts.exec(conn, 0, kind, vec![Value::from(id), Value::from(end)], log)?;
            }
            Group::NonIndexUpdates => {
                let c = rng.template_string(C_TEMPLATE);
                stmts.exec(conn, 0, kind, vec![Value::from(c), Value::from(id)], log)?;
            }
            Group::DeleteInserts => {
                let k = rng.row_id(spec.tables.rows);
                let c = rng.template_string(C_TEMPLATE);
                let pad = rng.template_string(PAD_TEMPLATE);
                stmts.exec(conn, 0, kind, vec![Value::from(id)], log)?;
                let row = vec![
                    Value::from(id),
                    Value::from(k),
                    Value::from(c),
                    Value::from(pad),
                ];
                stmts.exec(conn, 1, kind, row, log)?;
            }
        }
    }
    Ok(())
}

/// Parameters of select_random_points/ranges: values of k from this thread's slice of
/// the table, so threads do not overlap (as the sysbench scripts partition it).
fn key_lookup_params(
    spec: &WorkloadSpec,
    context: &SessionContext,
    ranges: bool,
    rng: &mut WorkloadRng,
) -> Vec<Value> {
    let slice = u64::from(spec.tables.rows) / u64::from(context.threads.max(1));
    let low = (slice * u64::from(context.thread)) as u32;
    let high = low + slice as u32;
    if ranges {
        (0..spec.sysbench.number_of_ranges)
            .flat_map(|_| {
                let start = rng.default_in(low, high);
                [Value::from(start), Value::from(start + spec.sysbench.delta)]
            })
            .collect()
    } else {
        (0..spec.sysbench.random_points)
            .map(|_| Value::from(rng.default_in(low, high)))
            .collect()
    }
}

/// One row of bulk_insert: its id, the thread's own table, and the class of the
/// INSERT that carries it.
struct BulkRow {
    id: u64,
    table: u32,
    class: ClassId,
}

/// Appends one row to the bulk buffer, sending the buffer first when it would overflow.
fn bulk_append(
    conn: &mut Conn,
    buffer: &mut String,
    row: BulkRow,
    log: &mut EventLog,
) -> Result<(), mysql::Error> {
    let row_len = 2 * 20 + 4;
    if !buffer.is_empty() && buffer.len() + row_len > BULK_PACKET_SIZE {
        log.statement(row.class, StatementKind::Write, || {
            conn.query_drop(buffer.as_str())
        })?;
        buffer.clear();
    }
    let BulkRow { id, table, .. } = row;
    if buffer.is_empty() {
        let _ = write!(buffer, "INSERT INTO sbtest{table} VALUES ({id},{id})");
    } else {
        let _ = write!(buffer, ",({id},{id})");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(name: &str) -> WorkloadName {
        serde_json::from_value(serde_json::json!(name)).unwrap()
    }

    fn mix(script: &str) -> (u32, u32) {
        let name = name(script);
        let groups = event_groups(name, &WorkloadSpec::sysbench(name).sysbench);
        let reads = groups
            .iter()
            .filter(|(g, _)| g.is_read())
            .map(|(_, n)| n)
            .sum();
        let writes = groups
            .iter()
            .filter(|(g, _)| !g.is_read())
            .map(|(g, n)| n * g.statements().len() as u32)
            .sum();
        (reads, writes)
    }

    fn transactions(script: &str) -> bool {
        let name = name(script);
        name.uses_transactions(&WorkloadSpec::sysbench(name).sysbench)
    }

    #[test]
    fn statement_mix_matches_sysbench() {
        assert_eq!(mix("oltp_read_write"), (14, 4));
        assert_eq!(mix("oltp_read_only"), (14, 0));
        assert_eq!(mix("oltp_write_only"), (0, 4));
        assert_eq!(mix("oltp_point_select"), (1, 0));
        assert_eq!(mix("oltp_update_index"), (0, 1));
        assert_eq!(mix("oltp_update_non_index"), (0, 1));
        assert_eq!(mix("oltp_delete"), (0, 1));
        assert!(!transactions("oltp_point_select"));
        assert!(transactions("oltp_read_write"));
        assert!(transactions("oltp_write_only"));
        assert!(!transactions("oltp_delete"));
    }
}
