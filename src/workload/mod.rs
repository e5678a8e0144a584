//! Workloads: what one event (transaction) does, and the data it runs on.
//!
//! The statement mix mirrors sysbench 1.0.20's `oltp_*.lua` scripts statement for
//! statement (DESIGN §7), so that a DBA's sysbench intuition carries over unchanged.

pub mod oltp;
pub mod random;
pub mod schema;

use serde::{Deserialize, Serialize};

use crate::cli::{PrepareMode, WorkloadArgs, WorkloadName};

/// The fully resolved workload, identical for both sides.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkloadSpec {
    /// sysbench script name.
    pub name: WorkloadName,
    /// Number of sbtest tables.
    pub tables: u32,
    /// Rows per table.
    pub table_size: u32,
    /// How tables are made ready.
    pub prepare: PrepareMode,
    /// Rows covered by a range query.
    pub range_size: u32,
    /// Point selects per event.
    pub point_selects: u32,
    /// Simple range selects per event.
    pub simple_ranges: u32,
    /// SUM range selects per event.
    pub sum_ranges: u32,
    /// ORDER BY range selects per event.
    pub order_ranges: u32,
    /// DISTINCT range selects per event.
    pub distinct_ranges: u32,
    /// Index updates per event.
    pub index_updates: u32,
    /// Non-index updates per event.
    pub non_index_updates: u32,
    /// DELETE+INSERT pairs per event.
    pub delete_inserts: u32,
    /// Whether range selects run at all.
    pub range_selects: bool,
    /// Autocommit mode instead of BEGIN/COMMIT.
    pub skip_trx: bool,
    /// Random distribution of row ids (sysbench 1.0 defaults to `special`; abtest to uniform).
    pub rand_type: String,
}

impl WorkloadSpec {
    /// Resolves the workload flags, applying per-script overrides as sysbench does.
    pub fn from_args(args: &WorkloadArgs) -> Self {
        let point_selects = match args.workload {
            // oltp_point_select.lua forces one query per event.
            WorkloadName::OltpPointSelect => 1,
            _ => args.point_selects,
        };
        WorkloadSpec {
            name: args.workload,
            tables: args.tables,
            table_size: args.table_size,
            prepare: args.prepare,
            range_size: args.range_size,
            point_selects,
            simple_ranges: args.simple_ranges,
            sum_ranges: args.sum_ranges,
            order_ranges: args.order_ranges,
            distinct_ranges: args.distinct_ranges,
            index_updates: args.index_updates,
            non_index_updates: args.non_index_updates,
            delete_inserts: args.delete_inserts,
            range_selects: args.range_selects,
            skip_trx: args.skip_trx,
            rand_type: "uniform".to_string(),
        }
    }

    /// Whether an event is wrapped in BEGIN/COMMIT.
    pub fn uses_transactions(&self) -> bool {
        !self.skip_trx && self.name != WorkloadName::OltpPointSelect
    }

    /// One-line description for plans and reports.
    pub fn describe(&self) -> String {
        format!(
            "{} on {} table(s) x {} rows, rand-type {}",
            self.name.as_str(),
            self.tables,
            self.table_size,
            self.rand_type
        )
    }
}
