//! The results file: every round raw, the facts of both sides and the host, and the
//! comparisons. It is rewritten (temp file, then rename) after every round, so a crash
//! or Ctrl-C never loses a finished round and never leaves a half-written file.

mod checks;
pub(crate) mod classes;
mod figures;
pub(crate) mod merge;
pub(crate) mod noise;
mod partial;
mod sampling;
mod schema;
mod storage;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::analysis::AnalysisOptions;
use crate::answers::ResultCheck;
use crate::host::HostFacts;
use crate::host_load::OthersCpu;
use crate::plan::Plan;
use crate::profile::Side;
use crate::server::facts::{ServerFacts, VariableDiff};
use crate::server::globals::GlobalSnapshot;
use crate::server::probe::ServerRound;
use crate::stats::compare::Comparison;
use crate::stats::metric::Metric;
use crate::stats::verdict::Verdict;
use crate::workload::event_log::QueryCounts;
use noise::NoiseBudget;

pub(crate) use sampling::{sample_unit, samples};
pub(crate) use schema::SCHEMA_VERSION;
pub(crate) use storage::{check_writable, load, save, write_atomic};

/// How a round ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum RoundStatus {
    /// Ran its full measured period.
    Completed,
    /// Stopped by Ctrl-C or SIGTERM; not analysed.
    Interrupted,
    /// Ended by an error; not analysed.
    Failed,
}

/// Latency summary of a round, in milliseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct LatencyMs {
    /// Mean.
    pub(crate) mean: f64,
    /// Median.
    pub(crate) p50: f64,
    /// 95th percentile.
    pub(crate) p95: f64,
    /// 99th percentile.
    pub(crate) p99: f64,
    /// Maximum.
    pub(crate) max: f64,
}

impl LatencyMs {
    /// The summary of a latency histogram in µs.
    pub(crate) fn of(histogram: &hdrhistogram::Histogram<u64>) -> LatencyMs {
        if histogram.is_empty() {
            return LatencyMs::default();
        }
        let ms = |micros: u64| micros as f64 / 1000.0;
        LatencyMs {
            mean: histogram.mean() / 1000.0,
            p50: ms(histogram.value_at_quantile(0.50)),
            p95: ms(histogram.value_at_quantile(0.95)),
            p99: ms(histogram.value_at_quantile(0.99)),
            max: ms(histogram.max()),
        }
    }
}

/// How an open-loop round kept up with its arrival rate.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub(crate) struct OpenLoop {
    /// Target events per second.
    pub(crate) rate: f64,
    /// Measured events that started more than 1 ms after their intended time.
    pub(crate) late_events: u64,
    /// The largest delay between an event's intended and actual start.
    pub(crate) max_lag_ms: f64,
    /// Events waiting at that moment (delay × rate).
    pub(crate) max_queue_depth: u64,
}

/// What else the machine did during a round's measured period.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub(crate) struct HostLoad {
    /// CPU time the hypervisor took away, in % of all CPU time.
    pub(crate) steal_pct: Option<f64>,
    /// Mean number of runnable threads on the machine (its run queue), when sampled.
    pub(crate) runnable: Option<f64>,
    /// CPU used by processes other than abtest, its managed servers and the kernel's
    /// threads, in % of all CPU time (every CPU).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) other_cpu_pct: Option<f64>,
}

impl HostLoad {
    /// The load since `start` (the machine's and the other processes' ticks, `ours` left
    /// out), with the run-queue samples taken meanwhile.
    pub(crate) fn over(
        start: Option<OthersCpu>,
        ours: &[u32],
        runnable: &[u32],
    ) -> Option<HostLoad> {
        let ends = start.zip(OthersCpu::read(ours));
        let steal_pct = ends
            .as_ref()
            .and_then(|(start, end)| start.machine().steal_pct_until(end.machine()));
        let other_cpu_pct = ends.as_ref().and_then(|(start, end)| start.pct_until(end));
        let runnable = (!runnable.is_empty())
            .then(|| runnable.iter().map(|&r| f64::from(r)).sum::<f64>() / runnable.len() as f64);
        (steal_pct.is_some() || runnable.is_some()).then_some(HostLoad {
            steal_pct,
            runnable,
            other_cpu_pct,
        })
    }
}

/// One round, raw.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct RoundRecord {
    /// Side that ran.
    pub(crate) side: Side,
    /// Thread level.
    pub(crate) threads: u32,
    /// Index among this side's rounds at this level.
    pub(crate) index: u32,
    /// Position in the whole run.
    pub(crate) position: u32,
    /// How it ended.
    pub(crate) status: RoundStatus,
    /// Why it failed or was interrupted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) reason: Option<String>,
    /// Start of the measured period, RFC 3339.
    pub(crate) started_at: String,
    /// Length of the measured period in seconds.
    pub(crate) duration_s: f64,
    /// Completed transactions (events).
    pub(crate) transactions: u64,
    /// Statements by kind.
    pub(crate) queries: QueryCounts,
    /// Errors by MySQL error code.
    pub(crate) errors: BTreeMap<String, u64>,
    /// Reconnects after a lost connection.
    pub(crate) reconnects: u64,
    /// Transactions per second.
    pub(crate) tps: f64,
    /// Statements per second.
    pub(crate) qps: f64,
    /// Transaction latency.
    pub(crate) latency_ms: LatencyMs,
    /// Events whose latency exceeded the histogram's range (recorded at its maximum).
    pub(crate) latency_saturated: u64,
    /// abtest's own CPU time (user + system, all threads) over the measured period, µs
    /// per transaction: the client's footprint on a shared host.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) client_cpu_us_per_tx: Option<f64>,
    /// What the server did during the measured period.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) server: Option<ServerRound>,
    /// TPS in each whole second of the measured period: the noise inside the round.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) per_second_tps: Vec<f64>,
    /// What else the machine did during the measured period.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) host_load: Option<HostLoad>,
    /// CPU the other side's managed server used while this round ran, in % of one core.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) other_server_cpu_pct: Option<f64>,
    /// The round switch: from the round's start until every connection was ready to run
    /// (threads started, and connections opened or handed over), in ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) switch_ms: Option<f64>,
    /// Connections this round opened; 0 when every one was kept from the side's previous
    /// round at this level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) connections_opened: Option<u32>,
    /// Open-loop figures, when `--rate` was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) open_loop: Option<OpenLoop>,
    /// Whether the round ran on the other side's server (`--swap`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) swapped: bool,
    /// The server instance block the round ran in (`--instances` above 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) instance: Option<u32>,
    /// A segment's measured start-time offset: how much later than its wall-clock
    /// window the measured period began, in ms (`--segment`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) start_offset_ms: Option<f64>,
    /// Whether the client threads ran under the planned scheduling policy and CPUs;
    /// absent when the plan asked for neither.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) client_threads: Option<ThreadSetup>,
    /// Each query class's statements in the measured events: calls and latency.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) classes: Vec<classes::ClassRound>,
    /// The merged latency histogram (µs), HdrHistogram V2 deflate, base64.
    pub(crate) histogram: String,
}

/// Whether the OS applied what the plan asked of the client threads (`--client-sched`,
/// `--cpus client=`): a refusal costs only the optimisation, but the results must not
/// claim a placement the rounds did not have.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ThreadSetup {
    /// Whether every thread runs as planned.
    pub(crate) applied: bool,
    /// The first OS error, when one did not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) error: Option<String>,
}

impl RoundRecord {
    /// A completed round of 100 transactions in one second, nothing else measured: the
    /// start of every test's round.
    #[cfg(test)]
    pub(crate) fn example(side: Side, threads: u32, index: u32) -> RoundRecord {
        RoundRecord {
            side,
            threads,
            index,
            position: 0,
            status: RoundStatus::Completed,
            reason: None,
            started_at: String::new(),
            duration_s: 1.0,
            transactions: 100,
            queries: Default::default(),
            errors: BTreeMap::new(),
            reconnects: 0,
            tps: 100.0,
            qps: 100.0,
            latency_ms: LatencyMs::default(),
            latency_saturated: 0,
            client_cpu_us_per_tx: None,
            server: None,
            per_second_tps: Vec::new(),
            host_load: None,
            other_server_cpu_pct: None,
            switch_ms: None,
            connections_opened: None,
            start_offset_ms: None,
            instance: None,
            swapped: false,
            open_loop: None,
            client_threads: None,
            classes: Vec::new(),
            histogram: String::new(),
        }
    }

    /// The value of a compared metric. Latency percentiles other than p50/p95/p99 are
    /// read from the round's histogram.
    pub(crate) fn metric(&self, metric: &Metric) -> Option<f64> {
        match metric {
            Metric::Tps => Some(self.tps),
            Metric::Qps => Some(self.qps),
            Metric::LatencyMean => Some(self.latency_ms.mean),
            Metric::LatencyPercentile(p) => match p.value() {
                50.0 => Some(self.latency_ms.p50),
                95.0 => Some(self.latency_ms.p95),
                99.0 => Some(self.latency_ms.p99),
                other => self.histogram_percentile(other),
            },
            Metric::ErrorRate => Some(self.error_rate()),
            Metric::ServerCpuPerTx => self.server.as_ref().and_then(|s| s.cpu_us_per_tx),
            Metric::ThreadsRunning => self.server.as_ref().and_then(|s| s.threads_running),
            Metric::Other(_) => None,
        }
    }

    /// Errors in % of attempted transactions (completed plus failed).
    pub(crate) fn error_rate(&self) -> f64 {
        let errors: u64 = self.errors.values().sum();
        let attempted = self.transactions + errors;
        if attempted == 0 {
            0.0
        } else {
            100.0 * errors as f64 / attempted as f64
        }
    }

    fn histogram_percentile(&self, percentile: f64) -> Option<f64> {
        let histogram = crate::histogram::decode(&self.histogram)?;
        Some(histogram.value_at_percentile(percentile) as f64 / 1000.0)
    }
}

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

/// The whole results file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct ResultsFile {
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
    /// Comparisons of the completed rounds.
    pub(crate) comparisons: Vec<Comparison>,
    /// Each query class's latency compared, the slowest change first (explanatory).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) query_classes: Vec<classes::ClassComparison>,
    /// How the comparisons were analysed.
    pub(crate) analysis: Option<AnalysisOptions>,
    /// Overall verdict, when tolerances were given.
    pub(crate) verdict: Option<Verdict>,
    /// Tolerances the latest analysis could not check, with the reasons.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) unchecked_tolerances: Vec<String>,
    /// Warnings about the run (profiles, teardown).
    pub(crate) warnings: Vec<String>,
    /// Warnings about the data, from the latest analysis.
    #[serde(default)]
    pub(crate) analysis_warnings: Vec<String>,
    /// Why the run stopped early, if it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) error: Option<String>,
    /// The looks of a run with `--until`, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) looks: Vec<Look>,
    /// Why the run gives no verdict, when it did not finish its plan (`partial`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) partial: Option<String>,
    /// Why a run with `--until` stopped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) stopped: Option<String>,
    /// Where the run's noise may come from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) noise: Option<NoiseBudget>,
    /// The answers compared before the rounds (`--check-results`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) result_check: Option<ResultCheck>,
    /// Which side's managed server was started first (both managed; the order follows
    /// the seed, so a first-started server's advantage cannot favour one side).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) started_first: Option<Side>,
    /// Seconds each move to fresh server instances took (`--instances`): both sides
    /// stopped, their prepared datadirs copied, started, and their buffer pools loaded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) instance_switches_s: Vec<f64>,
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
