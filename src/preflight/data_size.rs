//! How big the sbtest data will be, against the disk it goes to and the buffer pool
//! that should hold it. A data set that does not fit the disk fails after minutes of
//! loading, so it is refused before anything runs (exit 2); one larger than the buffer
//! pool is allowed with a warning, since the run then measures the disk as much as the
//! server's CPU, which is rarely what a configuration A/B test means to compare.
//!
//! The size of a row is measured, not computed from the column types: on MariaDB 10.11
//! (16 KiB pages, the default row format) 1 000 000 sbtest rows, loaded in primary-key
//! order with the `k` index created afterwards as abtest does, made a 247 463 936-byte
//! `sbtest1.ibd` (225 MB of data, 16 MB of index): about 248 bytes per row.

use std::path::Path;

use crate::plan::{Plan, SidePlan, TargetSpec};
use crate::server::option_values;
use crate::workload::WorkloadSpec;

/// Bytes one sbtest row takes on disk, index included (measured, see above).
pub(crate) const BYTES_PER_ROW: u64 = 248;

/// What a freshly installed datadir takes besides the redo log: system tables,
/// ibdata1, undo tablespaces, with room for the undo the load writes.
const DATADIR_BASE: u64 = 64 << 20;

/// The redo log of a server whose variables were not listed (MariaDB 10.11's default).
const DEFAULT_REDO_LOG: u64 = 96 << 20;

/// The bytes of the sbtest tables the workload loads; `None` for a workload file,
/// whose tables abtest does not size.
pub(crate) fn estimate(spec: &WorkloadSpec, max_threads: u32) -> Option<u64> {
    if !spec.uses_sbtest() || spec.file().is_some() {
        return None;
    }
    let tables = u64::from(crate::workload::schema::table_count(spec, max_threads));
    Some(tables * u64::from(spec.tables.rows) * BYTES_PER_ROW)
}

/// Refuses managed servers whose data will not fit the disk their private directories
/// are on (exit 2); returns a warning for each side whose buffer pool is smaller than
/// the data.
pub(crate) fn check_managed(plan: &Plan) -> anyhow::Result<Vec<String>> {
    let Some(data) = estimate(&plan.workload, plan.max_threads()) else {
        return Ok(Vec::new());
    };
    let copies: u64 = if plan.schedule.instances >= 2 { 2 } else { 1 };
    let mut warnings = Vec::new();
    let mut needed = 0;
    for side in &plan.sides {
        let Some(variables) = managed_variables(side) else {
            continue;
        };
        let redo = variables
            .number("innodb_log_file_size")
            .unwrap_or(DEFAULT_REDO_LOG);
        needed += copies * (data + redo + DATADIR_BASE);
        if let Some(pool) = variables.number("innodb_buffer_pool_size") {
            warnings.extend(larger_than_pool(side, data, pool));
        }
    }
    let dir = std::env::temp_dir();
    match free_bytes_at(&dir) {
        Some(free) if needed > free => Err(crate::exit::UsageError::err(format!(
            "the managed servers need about {} of disk in {} ({} of sbtest data per side{}, \
             plus redo log and system tables), but {} is free there; lower --table-size or \
             --tables, or point TMPDIR at a filesystem with room",
            super::bytes(needed),
            dir.display(),
            super::bytes(data),
            if copies == 2 {
                ", twice with --instances"
            } else {
                ""
            },
            super::bytes(free)
        ))),
        _ => Ok(warnings),
    }
}

/// The warning for a data set larger than the buffer pool of `side`.
pub(crate) fn larger_than_pool(side: &SidePlan, data: u64, pool: u64) -> Option<String> {
    (data > pool).then(|| {
        format!(
            "{} ({}): the sbtest data (about {}) is larger than innodb_buffer_pool_size ({}): \
             the run measures disk reads as much as the server; raise innodb_buffer_pool_size \
             or lower --table-size if that is not what you mean to compare",
            side.side,
            side.profile.display(),
            super::bytes(data),
            super::bytes(pool)
        )
    })
}

/// The variables a managed side's server would run with; `None` for an external side
/// or a server that does not list them.
fn managed_variables(side: &SidePlan) -> Option<option_values::ValueCheck> {
    let TargetSpec::Managed {
        binary,
        options,
        defaults_file,
        ..
    } = &side.target
    else {
        return None;
    };
    let args = option_values::probe_args(options, defaults_file.as_ref());
    option_values::check(binary, &args).filter(|check| !check.variables.is_empty())
}

/// The free bytes of the nearest existing directory at or above `dir`.
fn free_bytes_at(dir: &Path) -> Option<u64> {
    dir.ancestors().find_map(super::free_bytes)
}
