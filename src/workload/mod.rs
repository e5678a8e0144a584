//! Workloads: what one event (transaction) does, and the data it runs on.
//!
//! The statement mix mirrors sysbench 1.0.20's `oltp_*.lua` scripts statement for
//! statement (docs/sysbench-parity.md), so that a DBA's sysbench intuition carries over unchanged.

pub(crate) mod check_sample;
pub mod custom;
pub(crate) mod event_log;
pub(crate) mod oltp;
pub(crate) mod placeholder;
pub(crate) mod random;
pub(crate) mod schema;
pub(crate) mod statement;

use serde::{Deserialize, Serialize};

use crate::exit::UsageError;
use crate::workload::custom::CustomWorkload;
use crate::workload::random::RandSpec;

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
    /// The transactions of a `--workload-file`.
    Custom,
}

impl WorkloadName {
    /// The sysbench script name of this workload.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            WorkloadName::OltpReadWrite => "oltp_read_write",
            WorkloadName::OltpReadOnly => "oltp_read_only",
            WorkloadName::OltpWriteOnly => "oltp_write_only",
            WorkloadName::OltpPointSelect => "oltp_point_select",
            WorkloadName::OltpUpdateIndex => "oltp_update_index",
            WorkloadName::OltpUpdateNonIndex => "oltp_update_non_index",
            WorkloadName::OltpDelete => "oltp_delete",
            WorkloadName::OltpInsert => "oltp_insert",
            WorkloadName::SelectRandomPoints => "select_random_points",
            WorkloadName::SelectRandomRanges => "select_random_ranges",
            WorkloadName::BulkInsert => "bulk_insert",
            WorkloadName::Custom => "custom",
        }
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
}

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

/// Whether statements are prepared on the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum PsMode {
    /// Server-side prepared statements.
    Auto,
    /// Plain text queries.
    Disable,
}

/// The fully resolved workload, identical for both sides.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct WorkloadSpec {
    /// sysbench script name.
    pub(crate) name: WorkloadName,
    /// Number of sbtest tables.
    pub(crate) tables: u32,
    /// Rows per table.
    pub(crate) table_size: u32,
    /// How tables are made ready.
    pub(crate) prepare: PrepareMode,
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
    /// AUTO_INCREMENT ids (on) or client-generated ids (off).
    pub(crate) auto_inc: bool,
    /// `KEY xid` in place of the PRIMARY KEY.
    pub(crate) secondary: bool,
    /// Create the index `k_N` on k after loading.
    pub(crate) create_secondary: bool,
    /// Storage engine of the tables.
    pub(crate) storage_engine: String,
    /// Points in select_random_points' IN() list.
    pub(crate) random_points: u32,
    /// Ranges in select_random_ranges.
    pub(crate) number_of_ranges: u32,
    /// Width of select_random_ranges' ranges.
    pub(crate) delta: u32,
    /// Prepared statements or text queries.
    pub(crate) ps_mode: PsMode,
    /// Distribution of row ids (sysbench 1.0 defaults to `special`; abtest to uniform).
    pub(crate) rand: RandSpec,
    /// The custom workload of `--workload-file`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) custom: Option<CustomWorkload>,
}

/// The most tables a prepare makes: beyond it a typo, not a study.
const MAX_TABLES: u32 = 100_000;

/// sbtest's `id` is a signed INTEGER.
const MAX_TABLE_SIZE: u32 = i32::MAX as u32;

/// The most placeholders one prepared statement may have (the protocol counts them in
/// 16 bits): `--random-points` puts one per point, `--number-of-ranges` two per range.
const MAX_PLACEHOLDERS: u32 = 65_535;

/// The most statements of one kind in a transaction: each is logged per event, and
/// sysbench's own defaults are 1 to 10.
const MAX_PER_EVENT: u32 = 100_000;

impl WorkloadSpec {
    /// The workload `name` with sysbench 1.0.20's defaults for every setting, as its
    /// script runs it without options (abtest's one departure: uniform ids).
    #[cfg(test)]
    pub(crate) fn sysbench(name: WorkloadName) -> WorkloadSpec {
        WorkloadSpec {
            name,
            tables: 1,
            table_size: 10_000,
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
            auto_inc: true,
            secondary: false,
            create_secondary: true,
            storage_engine: "innodb".into(),
            random_points: 10,
            number_of_ranges: 10,
            delta: 5,
            ps_mode: PsMode::Auto,
            rand: RandSpec::default(),
            custom: None,
        }
        .with_script_overrides()
    }

    /// The settings a script forces whatever the options say, as sysbench's scripts do:
    /// oltp_point_select.lua runs one point select per event.
    pub(crate) fn with_script_overrides(mut self) -> WorkloadSpec {
        if self.name == WorkloadName::OltpPointSelect {
            self.point_selects = 1;
        }
        self
    }

    /// Checks the settings that sysbench itself would reject.
    pub(crate) fn validate(&self) -> anyhow::Result<()> {
        self.rand.validate().map_err(UsageError::err)?;
        if self.tables == 0 {
            return Err(UsageError::err("--tables must be above zero"));
        }
        if self.tables > MAX_TABLES {
            return Err(UsageError::err(format!(
                "--tables {} is more than abtest prepares ({MAX_TABLES}); sysbench studies use \
                 1 to a few hundred",
                self.tables
            )));
        }
        if self.table_size == 0 && !self.empty_tables() {
            return Err(UsageError::err("--table-size must be above zero"));
        }
        if self.table_size > MAX_TABLE_SIZE {
            return Err(UsageError::err(format!(
                "--table-size {} does not fit sbtest's INTEGER id (at most {MAX_TABLE_SIZE} rows)",
                self.table_size
            )));
        }
        if self.range_size == 0 || self.range_size > self.table_size.max(1) {
            return Err(UsageError::err(format!(
                "--range-size {} must be between 1 and --table-size {}",
                self.range_size, self.table_size
            )));
        }
        if self.single_table() && self.tables != 1 {
            return Err(UsageError::err(format!(
                "{} works on sbtest1 only, as in sysbench; use --tables 1",
                self.name.as_str()
            )));
        }
        if !self
            .storage_engine
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            return Err(UsageError::err(format!(
                "--mysql-storage-engine `{}` is not an engine name",
                self.storage_engine
            )));
        }
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

    /// select_random_points and select_random_ranges use sbtest1 only.
    pub(crate) fn single_table(&self) -> bool {
        matches!(
            self.name,
            WorkloadName::SelectRandomPoints | WorkloadName::SelectRandomRanges
        )
    }

    /// oltp_insert with client ids starts from empty tables, as sysbench does, so the
    /// generated ids cannot collide with loaded ones.
    pub(crate) fn empty_tables(&self) -> bool {
        self.name == WorkloadName::OltpInsert && !self.auto_inc
    }

    /// Rows each sbtest table holds after preparation.
    pub(crate) fn prepared_rows(&self) -> u32 {
        if self.empty_tables() {
            0
        } else {
            self.table_size
        }
    }

    /// Whether the workload may change data: a built-in one that writes, or a workload
    /// file with any statement (its `setup` included) that is not provably a read,
    /// transaction control or a session setting, read as the server executes it.
    pub(crate) fn writes(&self) -> bool {
        match &self.custom {
            Some(custom) => custom
                .transactions
                .iter()
                .flat_map(|t| &t.statements)
                .chain(&custom.setup)
                .any(|sql| custom::CustomWorkload::is_write(sql)),
            None => self.name.writes(),
        }
    }

    /// Whether the sbtest tables are needed.
    pub(crate) fn uses_sbtest(&self) -> bool {
        self.custom.as_ref().is_none_or(|c| c.sbtest)
    }

    /// Whether an event is wrapped in BEGIN/COMMIT.
    pub(crate) fn uses_transactions(&self) -> bool {
        !self.skip_trx
            && matches!(
                self.name,
                WorkloadName::OltpReadWrite
                    | WorkloadName::OltpReadOnly
                    | WorkloadName::OltpWriteOnly
            )
    }

    /// One-line description for plans and reports.
    pub(crate) fn describe(&self) -> String {
        let switch = |on: bool| if on { "on" } else { "off" };
        format!(
            "{} on {} table(s) x {} rows, rand-type {}, {} statements\n          \
             range-selects {}, skip-trx {}, auto-inc {}, secondary {}, create-secondary {}",
            self.name.as_str(),
            self.tables,
            self.table_size,
            serde_json::to_value(self.rand.kind)
                .ok()
                .and_then(|v| v.as_str().map(String::from))
                .unwrap_or_default(),
            if self.ps_mode == PsMode::Auto {
                "prepared"
            } else {
                "text"
            },
            switch(self.range_selects),
            switch(self.skip_trx),
            switch(self.auto_inc),
            switch(self.secondary),
            switch(self.create_secondary),
        )
    }
}
