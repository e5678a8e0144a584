//! The record of a run: what happened, and nothing made of it. The plan, the host, both
//! sides' facts, every round raw, the looks taken and why the run stopped. The runner,
//! `abtest merge` and `--resume` only ever add to it; the comparisons and the verdict
//! are the judgement's, made from it again by `judge` whenever it is read.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::round::RoundRecord;
use crate::answers::ResultCheck;
use crate::host::HostFacts;
use crate::plan::Plan;
use crate::server::facts::{ServerFacts, VariableDiff};
use crate::server::globals::GlobalSnapshot;
use crate::side::Side;
use crate::stats::verdict::Verdict;

/// How far the run got.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum RunStatus {
    /// Still running.
    Running,
    /// All rounds ran.
    Completed,
    /// Stopped by a signal.
    Interrupted,
    /// Stopped by an error.
    Failed,
}

/// What is known about one side.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct SideInfo {
    /// Label.
    pub(crate) name: String,
    /// Facts read from the server, once connected.
    pub(crate) facts: Option<ServerFacts>,
    /// Every global variable and plugin of an external server before the first hook,
    /// saved before any hook runs: what the run puts back, and `abtest restore` after it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) globals: Option<GlobalSnapshot>,
    /// What could not be put back as `globals` says when the run ended: the server was
    /// left changed (the run exits 6).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) not_restored: Vec<String>,
}

/// What happened in a run: the facts the judgement is made from.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct RunRecord {
    /// Layout version.
    pub(crate) schema_version: u32,
    /// abtest version that wrote it.
    pub(crate) abtest_version: String,
    /// How far the run got.
    pub(crate) status: RunStatus,
    /// The resolved plan, secrets left out by type (a password is never serialised).
    pub(crate) plan: Plan,
    /// The machine abtest ran on.
    pub(crate) host: HostFacts,
    /// Both sides' facts.
    pub(crate) sides: BTreeMap<Side, SideInfo>,
    /// Variables that differ between the sides.
    pub(crate) differences: Vec<VariableDiff>,
    /// Every round, in run order.
    pub(crate) rounds: Vec<RoundRecord>,
    /// Warnings about the run (profiles, teardown).
    pub(crate) warnings: Vec<String>,
    /// Why the run stopped early, if it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) error: Option<String>,
    /// The looks of a run with `--until`, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) looks: Vec<Look>,
    /// Why a run with `--until` stopped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) stopped: Option<String>,
    /// The answers compared before the rounds (`--check-results`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) result_check: Option<ResultCheck>,
    /// Every statement of a workload file prepared on both sides before the rounds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) prepare_check: Option<super::prepare_check::PrepareCheck>,
    /// Each read query class timed on both sides on idle servers (`--class-timing`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) class_timing: Option<super::class_timing::ClassTiming>,
    /// Which side's managed server was started first (both managed; the order follows
    /// the seed, so a first-started server's advantage cannot favour one side).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) started_first: Option<Side>,
    /// Seconds each move to fresh server instances took (`--instances`): both sides
    /// stopped, their prepared datadirs copied, started, and their buffer pools loaded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) instance_switches_s: Vec<f64>,
    /// What a replay that writes did to keep both sides' data equal (a workload file
    /// with `writes = true`, unless `--no-restore-data`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) data_restore: Option<super::data_restore::DataRestore>,
    /// The AUTO_INCREMENT columns (`table.column`) whose captured INSERT values the
    /// replay sent as NULL, for the baseline's server to assign.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) assigned_ids: Vec<String>,
    /// One managed server for both sides, or a server each and why (two managed sides).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) servers: Option<super::servers::ServerArrangement>,
    /// The segments a merged run was joined from (`abtest merge`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) segments: Vec<SegmentSource>,
}

/// One segment of a merged run: where its results came from and how it kept time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct SegmentSource {
    /// 1-based segment index.
    pub(crate) index: u32,
    /// Its results file, as given to `abtest merge`.
    pub(crate) file: String,
    /// The client host that ran it.
    pub(crate) host: String,
    /// Transactions it completed in the merged rounds.
    pub(crate) transactions: u64,
    /// The largest start-time offset of its measured periods, in ms.
    pub(crate) max_start_offset_ms: f64,
}

/// One look of a run with `--until`: where it was taken and what it saw.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Look {
    /// 1 for the first look.
    pub(crate) look: u32,
    /// Completed rounds per side at the look.
    pub(crate) rounds_per_side: u32,
    /// The two-sided level this look tests significance at; its interval is the
    /// (1 − alpha) repeated confidence interval.
    pub(crate) alpha: f64,
    /// The one-sided level of its verdicts; files without it used `alpha`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) verdict_alpha: Option<f64>,
    /// TPS change in %, if compared.
    pub(crate) tps_change_pct: Option<f64>,
    /// Its interval at the look's level, if bounded.
    pub(crate) tps_ci_pct: Option<[f64; 2]>,
    /// The overall verdict at the look, when tolerances were given.
    pub(crate) verdict: Option<Verdict>,
    /// Seconds since the first round started.
    pub(crate) elapsed_s: f64,
}
