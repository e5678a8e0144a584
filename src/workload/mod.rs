//! Workloads: what one event (transaction) does, and the data it runs on.
//!
//! A workload is of one of two kinds, held once in [`Workload`]: a built-in sysbench
//! script, whose statement mix mirrors sysbench 1.0.20's `oltp_*.lua` scripts statement
//! for statement (docs/sysbench-parity.md) so that a DBA's sysbench intuition carries
//! over unchanged, or the transactions of a workload file. Both run on the sbtest
//! tables' settings ([`TablesSpec`]).
//!
//! Inside this folder the files depend on each other in one direction only, so each
//! can be read (and changed) knowing only those below it: `settings`, `random`,
//! `placeholder`, `statement` and `event_log` name no sibling; `custom` builds on them;
//! `check_sample` and `saved` on `custom`; this file on `saved`; `oltp` and `schema` on
//! this file; `session`, which picks the code a connection runs, on `oltp` and
//! `custom`.

pub(crate) mod assigned_ids;
pub(crate) mod check_sample;
pub(crate) mod class_filter;
pub mod custom;
pub(crate) mod event_log;
pub(crate) mod oltp;
pub(crate) mod placeholder;
pub(crate) mod random;
pub(crate) mod saved;
pub(crate) mod schema;
pub(crate) mod session;
pub(crate) mod settings;
pub(crate) mod statement;

use serde::{Deserialize, Serialize};

use crate::exit::UsageError;
use crate::workload::custom::CustomWorkload;
use crate::workload::random::RandSpec;
use crate::workload::saved::{SavedName, SavedWorkload};
pub(crate) use crate::workload::settings::{
    PrepareMode, PsMode, SysbenchOptions, TablesSpec, WorkloadName,
};

/// What an event runs: the kind of workload, stored once.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Workload {
    /// A built-in sysbench workload.
    Sysbench(WorkloadName),
    /// The transactions of a `--workload-file` (or of a captured log).
    File(CustomWorkload),
}

/// The fully resolved workload, identical for both sides. Saved in the flat shape of
/// [`SavedWorkload`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(into = "SavedWorkload", try_from = "SavedWorkload")]
pub(crate) struct WorkloadSpec {
    /// What an event runs.
    pub(crate) kind: Workload,
    /// The sbtest tables.
    pub(crate) tables: TablesSpec,
    /// sysbench's statement-mix options.
    pub(crate) sysbench: SysbenchOptions,
    /// Prepared statements or text queries.
    pub(crate) ps_mode: PsMode,
    /// Distribution of row ids (sysbench 1.0 defaults to `special`; abtest to uniform).
    pub(crate) rand: RandSpec,
}

/// The most tables a prepare makes: beyond it a typo, not a study.
const MAX_TABLES: u32 = 100_000;

/// sbtest's `id` is a signed INTEGER.
const MAX_TABLE_SIZE: u32 = i32::MAX as u32;

impl WorkloadSpec {
    /// The workload `name` with sysbench 1.0.20's defaults for every setting, as its
    /// script runs it without options (abtest's one departure: uniform ids).
    #[cfg(test)]
    pub(crate) fn sysbench(name: WorkloadName) -> WorkloadSpec {
        WorkloadSpec {
            kind: Workload::Sysbench(name),
            tables: TablesSpec {
                count: 1,
                rows: 10_000,
                prepare: PrepareMode::Auto,
                auto_inc: true,
                secondary: false,
                create_secondary: true,
                storage_engine: "innodb".into(),
            },
            sysbench: SysbenchOptions::sysbench().with_script_overrides(name),
            ps_mode: PsMode::Auto,
            rand: RandSpec::default(),
        }
    }

    /// The workload's name in plans and reports: the sysbench script's, or `custom`.
    pub(crate) fn name(&self) -> &'static str {
        match &self.kind {
            Workload::Sysbench(name) => name.as_str(),
            Workload::File(_) => "custom",
        }
    }

    /// The workload file, when the workload is one.
    pub(crate) fn file(&self) -> Option<&CustomWorkload> {
        match &self.kind {
            Workload::File(file) => Some(file),
            Workload::Sysbench(_) => None,
        }
    }

    /// The built-in workload, when the workload is one.
    fn sysbench_name(&self) -> Option<WorkloadName> {
        match &self.kind {
            Workload::Sysbench(name) => Some(*name),
            Workload::File(_) => None,
        }
    }

    /// Checks the settings that sysbench itself would reject.
    pub(crate) fn validate(&self) -> anyhow::Result<()> {
        self.rand.validate().map_err(UsageError::err)?;
        let tables = &self.tables;
        if tables.count == 0 {
            return Err(UsageError::err("--tables must be above zero"));
        }
        if tables.count > MAX_TABLES {
            return Err(UsageError::err(format!(
                "--tables {} is more than abtest prepares ({MAX_TABLES}); sysbench studies use \
                 1 to a few hundred",
                tables.count
            )));
        }
        if tables.rows == 0 && !self.empty_tables() {
            return Err(UsageError::err("--table-size must be above zero"));
        }
        if tables.rows > MAX_TABLE_SIZE {
            return Err(UsageError::err(format!(
                "--table-size {} does not fit sbtest's INTEGER id (at most {MAX_TABLE_SIZE} rows)",
                tables.rows
            )));
        }
        self.sysbench.check_range_size(tables.rows)?;
        if let Some(name) = self.sysbench_name().filter(|name| name.single_table())
            && tables.count != 1
        {
            return Err(UsageError::err(format!(
                "{} works on sbtest1 only, as in sysbench; use --tables 1",
                name.as_str()
            )));
        }
        if !tables
            .storage_engine
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            return Err(UsageError::err(format!(
                "--mysql-storage-engine `{}` is not an engine name",
                tables.storage_engine
            )));
        }
        self.sysbench.validate()
    }

    /// oltp_insert with client ids starts from empty tables, as sysbench does, so the
    /// generated ids cannot collide with loaded ones.
    pub(crate) fn empty_tables(&self) -> bool {
        self.sysbench_name() == Some(WorkloadName::OltpInsert) && !self.tables.auto_inc
    }

    /// Rows each sbtest table holds after preparation.
    pub(crate) fn prepared_rows(&self) -> u32 {
        if self.empty_tables() {
            0
        } else {
            self.tables.rows
        }
    }

    /// Whether the workload may change data: a built-in one that writes, or a workload
    /// file with any statement (its `setup` included) that is not provably a read,
    /// transaction control or a session setting, read as the server executes it.
    pub(crate) fn writes(&self) -> bool {
        match &self.kind {
            Workload::File(file) => file
                .transactions
                .iter()
                .flat_map(|t| &t.statements)
                .chain(&file.setup)
                .any(|sql| CustomWorkload::is_write(sql)),
            Workload::Sysbench(name) => name.writes(),
        }
    }

    /// Whether the sbtest tables are needed.
    pub(crate) fn uses_sbtest(&self) -> bool {
        self.file().is_none_or(|file| file.sbtest)
    }

    /// One-line description for plans and reports.
    pub(crate) fn describe(&self) -> String {
        let switch = |on: bool| if on { "on" } else { "off" };
        format!(
            "{} on {} table(s) x {} rows, rand-type {}, {} statements\n          \
             range-selects {}, skip-trx {}, auto-inc {}, secondary {}, create-secondary {}",
            self.name(),
            self.tables.count,
            self.tables.rows,
            serde_json::to_value(self.rand.kind)
                .ok()
                .and_then(|v| v.as_str().map(String::from))
                .unwrap_or_default(),
            if self.ps_mode == PsMode::Auto {
                "prepared"
            } else {
                "text"
            },
            switch(self.sysbench.range_selects),
            switch(self.sysbench.skip_trx),
            switch(self.tables.auto_inc),
            switch(self.tables.secondary),
            switch(self.tables.create_secondary),
        )
    }
}

impl From<WorkloadSpec> for SavedWorkload {
    fn from(spec: WorkloadSpec) -> SavedWorkload {
        let WorkloadSpec {
            kind,
            tables,
            sysbench: options,
            ps_mode,
            rand,
        } = spec;
        let (name, custom) = match kind {
            Workload::Sysbench(name) => (SavedName::Sysbench(name), None),
            Workload::File(file) => (SavedName::Custom, Some(file)),
        };
        SavedWorkload {
            name,
            tables: tables.count,
            table_size: tables.rows,
            prepare: tables.prepare,
            range_size: options.range_size,
            point_selects: options.point_selects,
            simple_ranges: options.simple_ranges,
            sum_ranges: options.sum_ranges,
            order_ranges: options.order_ranges,
            distinct_ranges: options.distinct_ranges,
            index_updates: options.index_updates,
            non_index_updates: options.non_index_updates,
            delete_inserts: options.delete_inserts,
            range_selects: options.range_selects,
            skip_trx: options.skip_trx,
            auto_inc: tables.auto_inc,
            secondary: tables.secondary,
            create_secondary: tables.create_secondary,
            storage_engine: tables.storage_engine,
            random_points: options.random_points,
            number_of_ranges: options.number_of_ranges,
            delta: options.delta,
            ps_mode,
            rand,
            custom,
        }
    }
}

impl TryFrom<SavedWorkload> for WorkloadSpec {
    type Error = String;

    /// A saved workload whose name and file disagree is refused: `custom` names a
    /// workload file, every other name none.
    fn try_from(saved: SavedWorkload) -> Result<WorkloadSpec, String> {
        let kind = match (saved.name, saved.custom) {
            (SavedName::Sysbench(name), None) => Workload::Sysbench(name),
            (SavedName::Custom, Some(file)) => Workload::File(file),
            _ => {
                return Err(
                    "the workload is custom but has no workload file, or the reverse".into(),
                );
            }
        };
        Ok(WorkloadSpec {
            kind,
            tables: TablesSpec {
                count: saved.tables,
                rows: saved.table_size,
                prepare: saved.prepare,
                auto_inc: saved.auto_inc,
                secondary: saved.secondary,
                create_secondary: saved.create_secondary,
                storage_engine: saved.storage_engine,
            },
            sysbench: SysbenchOptions {
                range_size: saved.range_size,
                point_selects: saved.point_selects,
                simple_ranges: saved.simple_ranges,
                sum_ranges: saved.sum_ranges,
                order_ranges: saved.order_ranges,
                distinct_ranges: saved.distinct_ranges,
                index_updates: saved.index_updates,
                non_index_updates: saved.non_index_updates,
                delete_inserts: saved.delete_inserts,
                range_selects: saved.range_selects,
                skip_trx: saved.skip_trx,
                random_points: saved.random_points,
                number_of_ranges: saved.number_of_ranges,
                delta: saved.delta,
            },
            ps_mode: saved.ps_mode,
            rand: saved.rand,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A saved workload reads into the spec and saves back the same, whatever its kind;
    /// one whose name and file disagree is refused.
    #[test]
    fn a_saved_workload_reads_and_saves_the_same() {
        let builtin =
            serde_json::to_value(WorkloadSpec::sysbench(WorkloadName::OltpInsert)).unwrap();
        assert_eq!(builtin["name"], "oltp_insert");
        assert!(builtin.get("custom").is_none());
        let file = custom::tests::load(custom::tests::SAMPLE).unwrap();
        let mut spec = WorkloadSpec::sysbench(WorkloadName::OltpReadWrite);
        spec.kind = Workload::File(file);
        let saved = serde_json::to_value(&spec).unwrap();
        assert_eq!(saved["name"], "custom");
        for value in [builtin, saved.clone()] {
            let read: WorkloadSpec = serde_json::from_value(value.clone()).unwrap();
            assert_eq!(serde_json::to_value(read).unwrap(), value);
        }
        let kept = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/audit-point-select.json");
        let kept: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(kept).unwrap()).unwrap();
        let kept = kept["plan"]["workload"].clone();
        let read: WorkloadSpec = serde_json::from_value(kept.clone()).unwrap();
        assert_eq!(serde_json::to_value(read).unwrap(), kept);
        let mut orphan = saved;
        orphan.as_object_mut().unwrap().remove("custom");
        let refused = serde_json::from_value::<WorkloadSpec>(orphan).unwrap_err();
        assert!(
            refused.to_string().contains("no workload file"),
            "{refused}"
        );
    }
}
