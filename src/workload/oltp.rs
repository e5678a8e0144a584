//! One OLTP event, statement for statement as sysbench 1.0.20's oltp scripts:
//! BEGIN, point selects, the four range selects, index and non-index updates, a
//! DELETE+INSERT of the same id, COMMIT. Each group of statements picks one random
//! table, as `oltp_common.lua` does. Statements are server-side prepared once per
//! connection and table.

use mysql::prelude::Queryable;
use mysql::{Conn, Statement, Value};

use crate::cli::WorkloadName;
use crate::workload::WorkloadSpec;
use crate::workload::random::{C_TEMPLATE, PAD_TEMPLATE, WorkloadRng};

/// Statements executed by kind, as sysbench reports reads/writes/other.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct QueryCounts {
    /// SELECT statements.
    pub read: u64,
    /// UPDATE, DELETE and INSERT statements.
    pub write: u64,
    /// BEGIN and COMMIT.
    pub other: u64,
}

impl QueryCounts {
    /// Adds another set of counts.
    pub fn add(&mut self, other: &QueryCounts) {
        self.read += other.read;
        self.write += other.write;
        self.other += other.other;
    }

    /// All statements.
    pub fn total(&self) -> u64 {
        self.read + self.write + self.other
    }
}

/// The groups of an event, in sysbench's order.
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
        }
    }
}

/// The groups of `spec`'s event with their repetition counts.
fn event_groups(spec: &WorkloadSpec) -> Vec<(Group, u32)> {
    let reads = [(Group::PointSelects, spec.point_selects)];
    let ranges = [
        (Group::SimpleRanges, spec.simple_ranges),
        (Group::SumRanges, spec.sum_ranges),
        (Group::OrderRanges, spec.order_ranges),
        (Group::DistinctRanges, spec.distinct_ranges),
    ];
    let writes = [
        (Group::IndexUpdates, spec.index_updates),
        (Group::NonIndexUpdates, spec.non_index_updates),
        (Group::DeleteInserts, spec.delete_inserts),
    ];
    let mut groups: Vec<(Group, u32)> = Vec::new();
    match spec.name {
        WorkloadName::OltpPointSelect => groups.extend(reads),
        WorkloadName::OltpReadOnly | WorkloadName::OltpReadWrite => {
            groups.extend(reads);
            if spec.range_selects {
                groups.extend(ranges);
            }
            if spec.name == WorkloadName::OltpReadWrite {
                groups.extend(writes);
            }
        }
    }
    groups.retain(|(_, count)| *count > 0);
    groups
}

/// A connection's prepared workload: statements per table and the event plan.
#[derive(Debug)]
pub struct OltpSession {
    groups: Vec<(Group, u32)>,
    /// `statements[table][group index][statement]`.
    statements: Vec<Vec<Vec<Statement>>>,
    transactions: bool,
    table_size: u32,
    range_size: u32,
    rng: WorkloadRng,
}

impl OltpSession {
    /// Prepares every statement of the workload on `conn`.
    pub fn prepare(
        conn: &mut Conn,
        spec: &WorkloadSpec,
        rng: WorkloadRng,
    ) -> Result<OltpSession, mysql::Error> {
        let groups = event_groups(spec);
        let mut statements = Vec::with_capacity(spec.tables as usize);
        for table in 1..=spec.tables {
            let mut per_group = Vec::with_capacity(groups.len());
            for (group, _) in &groups {
                let prepared = group
                    .statements()
                    .iter()
                    .map(|sql| conn.prep(sql.replace("{}", &table.to_string())))
                    .collect::<Result<Vec<_>, _>>()?;
                per_group.push(prepared);
            }
            statements.push(per_group);
        }
        Ok(OltpSession {
            groups,
            statements,
            transactions: spec.uses_transactions(),
            table_size: spec.table_size,
            range_size: spec.range_size,
            rng,
        })
    }

    /// Whether events run inside BEGIN/COMMIT.
    pub fn uses_transactions(&self) -> bool {
        self.transactions
    }

    /// Runs one event; `counts` receives every statement that completed.
    pub fn event(&mut self, conn: &mut Conn, counts: &mut QueryCounts) -> Result<(), mysql::Error> {
        if self.transactions {
            conn.query_drop("BEGIN")?;
            counts.other += 1;
        }
        for group_index in 0..self.groups.len() {
            self.run_group(conn, group_index, counts)?;
        }
        if self.transactions {
            conn.query_drop("COMMIT")?;
            counts.other += 1;
        }
        Ok(())
    }

    fn run_group(
        &mut self,
        conn: &mut Conn,
        group_index: usize,
        counts: &mut QueryCounts,
    ) -> Result<(), mysql::Error> {
        let (group, repeat) = self.groups[group_index];
        let table = self.rng.uniform(1, self.statements.len() as u32) as usize - 1;
        let stmts = &self.statements[table][group_index];
        for _ in 0..repeat {
            let id = self.rng.row_id(self.table_size);
            match group {
                Group::PointSelects => {
                    conn.exec_drop(&stmts[0], (id,))?;
                    counts.read += 1;
                }
                Group::SimpleRanges
                | Group::SumRanges
                | Group::OrderRanges
                | Group::DistinctRanges => {
                    conn.exec_drop(&stmts[0], (id, id + self.range_size - 1))?;
                    counts.read += 1;
                }
                Group::IndexUpdates => {
                    conn.exec_drop(&stmts[0], (id,))?;
                    counts.write += 1;
                }
                Group::NonIndexUpdates => {
                    let c = self.rng.template_string(C_TEMPLATE);
                    conn.exec_drop(&stmts[0], (c, id))?;
                    counts.write += 1;
                }
                Group::DeleteInserts => {
                    let k = self.rng.row_id(self.table_size);
                    let c = self.rng.template_string(C_TEMPLATE);
                    let pad = self.rng.template_string(PAD_TEMPLATE);
                    conn.exec_drop(&stmts[0], (id,))?;
                    counts.write += 1;
                    conn.exec_drop(
                        &stmts[1],
                        vec![
                            Value::from(id),
                            Value::from(k),
                            Value::from(c),
                            Value::from(pad),
                        ],
                    )?;
                    counts.write += 1;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{PrepareMode, WorkloadArgs};

    fn spec(name: WorkloadName) -> WorkloadSpec {
        let args = WorkloadArgs {
            workload: name,
            tables: 1,
            table_size: 100,
            threads: vec![1],
            prepare: PrepareMode::Auto,
            range_size: 100,
            point_selects: 10,
            simple_ranges: 1,
            sum_ranges: 1,
            order_ranges: 1,
            distinct_ranges: 1,
            index_updates: 1,
            non_index_updates: 1,
            delete_inserts: 1,
            range_selects: true,
            skip_trx: false,
        };
        WorkloadSpec::from_args(&args)
    }

    fn mix(spec: &WorkloadSpec) -> (u32, u32) {
        let groups = event_groups(spec);
        let reads = groups
            .iter()
            .filter(|(g, _)| g.statements()[0].starts_with("SELECT"))
            .map(|(_, n)| n)
            .sum();
        let writes = groups
            .iter()
            .filter(|(g, _)| !g.statements()[0].starts_with("SELECT"))
            .map(|(g, n)| n * g.statements().len() as u32)
            .sum();
        (reads, writes)
    }

    #[test]
    fn statement_mix_matches_sysbench() {
        assert_eq!(mix(&spec(WorkloadName::OltpReadWrite)), (14, 4));
        assert_eq!(mix(&spec(WorkloadName::OltpReadOnly)), (14, 0));
        assert_eq!(mix(&spec(WorkloadName::OltpPointSelect)), (1, 0));
        assert!(!spec(WorkloadName::OltpPointSelect).uses_transactions());
        assert!(spec(WorkloadName::OltpReadWrite).uses_transactions());
    }
}
