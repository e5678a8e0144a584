//! A workload as results files record it: one flat object of every setting, the
//! workload's `name` (`custom` for a workload file) and, for a workload file, its
//! `custom` contents. The spec in memory keeps the kind once (`workload::Workload`);
//! this shape stays as it was written, so that old results files read and save the same.

use serde::{Deserialize, Serialize};

use crate::workload::custom::CustomWorkload;
use crate::workload::random::RandSpec;
use crate::workload::settings::{PrepareMode, PsMode, WorkloadName};

/// The `name` of a saved workload: a sysbench script's, or `custom`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum SavedName {
    /// The transactions of a `--workload-file`.
    #[serde(rename = "custom")]
    Custom,
    /// A built-in sysbench workload.
    #[serde(untagged)]
    Sysbench(WorkloadName),
}

/// The saved workload, field for field as results files hold it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct SavedWorkload {
    pub(crate) name: SavedName,
    pub(crate) tables: u32,
    pub(crate) table_size: u32,
    pub(crate) prepare: PrepareMode,
    pub(crate) range_size: u32,
    pub(crate) point_selects: u32,
    pub(crate) simple_ranges: u32,
    pub(crate) sum_ranges: u32,
    pub(crate) order_ranges: u32,
    pub(crate) distinct_ranges: u32,
    pub(crate) index_updates: u32,
    pub(crate) non_index_updates: u32,
    pub(crate) delete_inserts: u32,
    pub(crate) range_selects: bool,
    pub(crate) skip_trx: bool,
    pub(crate) auto_inc: bool,
    pub(crate) secondary: bool,
    pub(crate) create_secondary: bool,
    pub(crate) storage_engine: String,
    pub(crate) random_points: u32,
    pub(crate) number_of_ranges: u32,
    pub(crate) delta: u32,
    pub(crate) ps_mode: PsMode,
    pub(crate) rand: RandSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) custom: Option<CustomWorkload>,
}
