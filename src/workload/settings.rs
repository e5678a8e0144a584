//! The settings a workload is built from, grouped by what reads them: the name of a
//! built-in sysbench workload, the sbtest tables both kinds of workload run on, and
//! sysbench's statement-mix options, which only the built-in workloads' events read.
//!
//! They sit below the workload spec (`workload::WorkloadSpec`) and its saved form
//! (`saved`) so that both can name them without naming each other.

use serde::{Deserialize, Serialize};

use crate::exit::UsageError;
use crate::named::{Named, from_names};

/// The sysbench workloads abtest can run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum WorkloadName {
    /// BEGIN, 10 point selects, 4 range selects, 2 updates, delete+insert, COMMIT.
    OltpReadWrite,
    /// BEGIN, 10 point selects, 4 range selects, COMMIT.
    OltpReadOnly,
    /// BEGIN, 2 updates, delete+insert, COMMIT.
    OltpWriteOnly,
    /// One primary-key SELECT per event, no transaction.
    OltpPointSelect,
    /// One UPDATE of the indexed column k per event.
    OltpUpdateIndex,
    /// One UPDATE of the non-indexed column c per event.
    OltpUpdateNonIndex,
    /// One DELETE by primary key per event.
    OltpDelete,
    /// One INSERT per event.
    OltpInsert,
    /// One SELECT with 10 random points in an IN() list on k.
    SelectRandomPoints,
    /// One SELECT COUNT(k) over 10 random BETWEEN ranges on k.
    SelectRandomRanges,
    /// Multi-row INSERTs of (id, k) into one table per thread; one row per event.
    BulkInsert,
}

impl WorkloadName {
    /// The sysbench script name of this workload.
    pub(crate) fn as_str(self) -> &'static str {
        self.name()
    }

    /// Whether the workload modifies rows (matters for data safety checks).
    pub(crate) fn writes(self) -> bool {
        !matches!(
            self,
            WorkloadName::OltpReadOnly
                | WorkloadName::OltpPointSelect
                | WorkloadName::SelectRandomPoints
                | WorkloadName::SelectRandomRanges
        )
    }

    /// select_random_points and select_random_ranges use sbtest1 only.
    pub(crate) fn single_table(self) -> bool {
        matches!(
            self,
            WorkloadName::SelectRandomPoints | WorkloadName::SelectRandomRanges
        )
    }

    /// Whether an event is wrapped in BEGIN/COMMIT.
    pub(crate) fn uses_transactions(self, options: &SysbenchOptions) -> bool {
        !options.skip_trx
            && matches!(
                self,
                WorkloadName::OltpReadWrite
                    | WorkloadName::OltpReadOnly
                    | WorkloadName::OltpWriteOnly
            )
    }
}

impl Named for WorkloadName {
    const NAMES: &'static [(WorkloadName, &'static str, &'static str)] = &[
        (
            WorkloadName::OltpReadWrite,
            "oltp_read_write",
            "BEGIN, 10 point selects, 4 range selects, 2 updates, delete+insert, COMMIT",
        ),
        (
            WorkloadName::OltpReadOnly,
            "oltp_read_only",
            "BEGIN, 10 point selects, 4 range selects, COMMIT",
        ),
        (
            WorkloadName::OltpWriteOnly,
            "oltp_write_only",
            "BEGIN, 2 updates, delete+insert, COMMIT",
        ),
        (
            WorkloadName::OltpPointSelect,
            "oltp_point_select",
            "One primary-key SELECT per event, no transaction",
        ),
        (
            WorkloadName::OltpUpdateIndex,
            "oltp_update_index",
            "One UPDATE of the indexed column k per event",
        ),
        (
            WorkloadName::OltpUpdateNonIndex,
            "oltp_update_non_index",
            "One UPDATE of the non-indexed column c per event",
        ),
        (
            WorkloadName::OltpDelete,
            "oltp_delete",
            "One DELETE by primary key per event",
        ),
        (
            WorkloadName::OltpInsert,
            "oltp_insert",
            "One INSERT per event",
        ),
        (
            WorkloadName::SelectRandomPoints,
            "select_random_points",
            "One SELECT with 10 random points in an IN() list on k",
        ),
        (
            WorkloadName::SelectRandomRanges,
            "select_random_ranges",
            "One SELECT COUNT(k) over 10 random BETWEEN ranges on k",
        ),
        (
            WorkloadName::BulkInsert,
            "bulk_insert",
            "Multi-row INSERTs of (id, k) into one table per thread; one row per event",
        ),
    ];
}
from_names!(WorkloadName);

/// How the sbtest tables are made ready before the first round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum PrepareMode {
    /// Reuse tables whose shape and row count match; create them otherwise.
    Auto,
    /// Drop abtest's own tables and create them again.
    Always,
    /// Use the tables as they are; fail when they are missing.
    Never,
}

impl Named for PrepareMode {
    const NAMES: &'static [(PrepareMode, &'static str, &'static str)] = &[
        (
            PrepareMode::Auto,
            "auto",
            "Reuse tables whose shape and row count match; create them otherwise",
        ),
        (
            PrepareMode::Always,
            "always",
            "Drop abtest's own tables and create them again",
        ),
        (
            PrepareMode::Never,
            "never",
            "Use the tables as they are; fail when they are missing",
        ),
    ];
}
from_names!(PrepareMode);

/// Whether statements are prepared on the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum PsMode {
    /// Server-side prepared statements.
    Auto,
    /// Plain text queries.
    Disable,
}

impl Named for PsMode {
    const NAMES: &'static [(PsMode, &'static str, &'static str)] = &[
        (PsMode::Auto, "auto", "Server-side prepared statements"),
        (PsMode::Disable, "disable", "Plain text queries"),
    ];
}
from_names!(PsMode);

/// The sbtest tables: what a built-in workload runs on, and what a workload file's
/// `{t}` and `{id}` parameters draw from (and what it prepares when `sbtest = true`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TablesSpec {
    /// Number of sbtest tables.
    pub(crate) count: u32,
    /// Rows per table.
    pub(crate) rows: u32,
    /// How tables are made ready.
    pub(crate) prepare: PrepareMode,
    /// AUTO_INCREMENT ids (on) or client-generated ids (off).
    pub(crate) auto_inc: bool,
    /// `KEY xid` in place of the PRIMARY KEY.
    pub(crate) secondary: bool,
    /// Create the index `k_N` on k after loading.
    pub(crate) create_secondary: bool,
    /// Storage engine of the tables.
    pub(crate) storage_engine: String,
}

/// sysbench's statement-mix options. Only a built-in workload's events read them; with
/// a workload file they are still checked as sysbench checks them and kept as given, as
/// results files have always recorded them.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SysbenchOptions {
    /// Rows covered by a range query.
    pub(crate) range_size: u32,
    /// Point selects per event.
    pub(crate) point_selects: u32,
    /// Simple range selects per event.
    pub(crate) simple_ranges: u32,
    /// SUM range selects per event.
    pub(crate) sum_ranges: u32,
    /// ORDER BY range selects per event.
    pub(crate) order_ranges: u32,
    /// DISTINCT range selects per event.
    pub(crate) distinct_ranges: u32,
    /// Index updates per event.
    pub(crate) index_updates: u32,
    /// Non-index updates per event.
    pub(crate) non_index_updates: u32,
    /// DELETE+INSERT pairs per event.
    pub(crate) delete_inserts: u32,
    /// Whether range selects run at all.
    pub(crate) range_selects: bool,
    /// Autocommit mode instead of BEGIN/COMMIT.
    pub(crate) skip_trx: bool,
    /// Points in select_random_points' IN() list.
    pub(crate) random_points: u32,
    /// Ranges in select_random_ranges.
    pub(crate) number_of_ranges: u32,
    /// Width of select_random_ranges' ranges.
    pub(crate) delta: u32,
}

/// The most placeholders one prepared statement may have (the protocol counts them in
/// 16 bits): `--random-points` puts one per point, `--number-of-ranges` two per range,
/// a workload file's list one per element.
pub(crate) const MAX_PLACEHOLDERS: u32 = 65_535;

/// The most statements of one kind in a transaction: each is logged per event, and
/// sysbench's own defaults are 1 to 10.
const MAX_PER_EVENT: u32 = 100_000;

impl SysbenchOptions {
    /// sysbench 1.0.20's defaults, as its scripts run without options.
    #[cfg(test)]
    pub(crate) fn sysbench() -> SysbenchOptions {
        SysbenchOptions {
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
            random_points: 10,
            number_of_ranges: 10,
            delta: 5,
        }
    }

    /// The settings script `name` forces whatever the options say, as sysbench's scripts
    /// do: oltp_point_select.lua runs one point select per event.
    pub(crate) fn with_script_overrides(mut self, name: WorkloadName) -> SysbenchOptions {
        if name == WorkloadName::OltpPointSelect {
            self.point_selects = 1;
        }
        self
    }

    /// Refuses a range wider than a table of `rows` rows, or empty.
    pub(crate) fn check_range_size(&self, rows: u32) -> anyhow::Result<()> {
        if self.range_size == 0 || self.range_size > rows.max(1) {
            return Err(UsageError::err(format!(
                "--range-size {} must be between 1 and --table-size {rows}",
                self.range_size
            )));
        }
        Ok(())
    }

    /// Checks the statement counts that sysbench itself would reject.
    pub(crate) fn validate(&self) -> anyhow::Result<()> {
        if self.random_points == 0 || self.number_of_ranges == 0 {
            return Err(UsageError::err(
                "--random-points and --number-of-ranges must be above zero",
            ));
        }
        for (flag, placeholders) in [
            ("--random-points", u64::from(self.random_points)),
            ("--number-of-ranges", 2 * u64::from(self.number_of_ranges)),
        ] {
            if placeholders > u64::from(MAX_PLACEHOLDERS) {
                return Err(UsageError::err(format!(
                    "{flag} makes a statement of {placeholders} placeholders, more than a \
                     prepared statement may have ({MAX_PLACEHOLDERS}); sysbench's default is 10"
                )));
            }
        }
        self.check_per_event()
    }

    /// Refuses more statements of one kind per transaction than [`MAX_PER_EVENT`].
    fn check_per_event(&self) -> anyhow::Result<()> {
        let counts = [
            ("--point-selects", self.point_selects),
            ("--simple-ranges", self.simple_ranges),
            ("--sum-ranges", self.sum_ranges),
            ("--order-ranges", self.order_ranges),
            ("--distinct-ranges", self.distinct_ranges),
            ("--index-updates", self.index_updates),
            ("--non-index-updates", self.non_index_updates),
            ("--delete-inserts", self.delete_inserts),
        ];
        if let Some((flag, count)) = counts.into_iter().find(|(_, n)| *n > MAX_PER_EVENT) {
            return Err(UsageError::err(format!(
                "{flag} {count} is more statements per transaction than abtest runs \
                 ({MAX_PER_EVENT}); sysbench's defaults are 1 to 10"
            )));
        }
        Ok(())
    }
}
