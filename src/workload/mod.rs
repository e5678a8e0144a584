//! Workloads: what one event (transaction) does, and the data it runs on.
//!
//! The statement mix mirrors sysbench 1.0.20's `oltp_*.lua` scripts statement for
//! statement (DESIGN §7), so that a DBA's sysbench intuition carries over unchanged.

pub mod custom;
pub mod oltp;
pub mod random;
pub mod schema;
pub mod statement;

use serde::{Deserialize, Serialize};

use crate::cli::{PrepareMode, PsMode, WorkloadArgs, WorkloadName};
use crate::exit::UsageError;
use crate::workload::custom::CustomWorkload;
use crate::workload::random::RandSpec;

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
    /// AUTO_INCREMENT ids (on) or client-generated ids (off).
    pub auto_inc: bool,
    /// `KEY xid` in place of the PRIMARY KEY.
    pub secondary: bool,
    /// Create the index `k_N` on k after loading.
    pub create_secondary: bool,
    /// Storage engine of the tables.
    pub storage_engine: String,
    /// Points in select_random_points' IN() list.
    pub random_points: u32,
    /// Ranges in select_random_ranges.
    pub number_of_ranges: u32,
    /// Width of select_random_ranges' ranges.
    pub delta: u32,
    /// Prepared statements or text queries.
    pub ps_mode: PsMode,
    /// Distribution of row ids (sysbench 1.0 defaults to `special`; abtest to uniform).
    pub rand: RandSpec,
    /// The custom workload of `--workload-file`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom: Option<CustomWorkload>,
}

impl WorkloadSpec {
    /// Resolves the workload flags and reads the workload file, if any.
    pub fn resolve(args: &WorkloadArgs) -> anyhow::Result<Self> {
        let mut spec = Self::from_args(args);
        if let Some(path) = &args.workload_file {
            spec.custom = Some(CustomWorkload::load(path)?);
            spec.name = WorkloadName::Custom;
        }
        spec.validate()?;
        Ok(spec)
    }

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
            auto_inc: args.auto_inc,
            secondary: args.secondary,
            create_secondary: args.create_secondary,
            storage_engine: args.mysql_storage_engine.clone(),
            random_points: args.random_points,
            number_of_ranges: args.number_of_ranges,
            delta: args.delta,
            ps_mode: args.ps_mode,
            rand: RandSpec {
                kind: args.rand_type,
                spec_iter: args.rand_spec_iter,
                spec_pct: args.rand_spec_pct,
                spec_res: args.rand_spec_res,
                pareto_h: args.rand_pareto_h,
                zipfian_exp: args.rand_zipfian_exp,
            },
            custom: None,
        }
    }

    /// Checks the settings that sysbench itself would reject.
    pub fn validate(&self) -> anyhow::Result<()> {
        self.rand.validate().map_err(UsageError::err)?;
        if self.tables == 0 {
            return Err(UsageError::err("--tables must be above zero"));
        }
        if self.table_size == 0 && !self.empty_tables() {
            return Err(UsageError::err("--table-size must be above zero"));
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
        Ok(())
    }

    /// select_random_points and select_random_ranges use sbtest1 only.
    pub fn single_table(&self) -> bool {
        matches!(
            self.name,
            WorkloadName::SelectRandomPoints | WorkloadName::SelectRandomRanges
        )
    }

    /// oltp_insert with client ids starts from empty tables, as sysbench does, so the
    /// generated ids cannot collide with loaded ones.
    pub fn empty_tables(&self) -> bool {
        self.name == WorkloadName::OltpInsert && !self.auto_inc
    }

    /// Rows each sbtest table holds after preparation.
    pub fn prepared_rows(&self) -> u32 {
        if self.empty_tables() {
            0
        } else {
            self.table_size
        }
    }

    /// Whether events change data (custom workloads are assumed to).
    pub fn writes(&self) -> bool {
        self.name.writes()
    }

    /// Whether the sbtest tables are needed.
    pub fn uses_sbtest(&self) -> bool {
        self.custom.as_ref().is_none_or(|c| c.sbtest)
    }

    /// Whether an event is wrapped in BEGIN/COMMIT.
    pub fn uses_transactions(&self) -> bool {
        !self.skip_trx
            && matches!(
                self.name,
                WorkloadName::OltpReadWrite
                    | WorkloadName::OltpReadOnly
                    | WorkloadName::OltpWriteOnly
            )
    }

    /// One-line description for plans and reports.
    pub fn describe(&self) -> String {
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
