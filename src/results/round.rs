//! One round as measured: how it ended, its counts, latencies and every figure taken
//! beside them. A round is a fact of the run; what the rounds mean together is the
//! judgement's (`judge`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::histogram;
use crate::host_load::OthersCpu;
use crate::server::probe::ServerRound;
use crate::side::Side;
use crate::stats::metric::Metric;
use crate::workload::event_log::QueryCounts;

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
    /// The side's settings put in place and read back on the shared server before the
    /// round (`--servers shared`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) server_settings: Option<super::servers::RoundSettings>,
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
    pub(crate) classes: Vec<ClassRound>,
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
            server_settings: None,
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
        let histogram = histogram::decode(&self.histogram)?;
        Some(histogram.value_at_percentile(percentile) as f64 / 1000.0)
    }
}

/// One query class in one round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ClassRound {
    /// The class: a sysbench statement kind, or a workload file's statement as written.
    pub(crate) class: String,
    /// Statements of the class in the round's measured events.
    pub(crate) calls: u64,
    /// Their latency.
    pub(crate) latency_ms: LatencyMs,
    /// Their latency histogram (µs), HdrHistogram V2 deflate, base64.
    pub(crate) histogram: String,
}

impl ClassRound {
    /// The class's round from its merged histogram (µs).
    pub(crate) fn of(class: &str, histogram: &hdrhistogram::Histogram<u64>) -> ClassRound {
        ClassRound {
            class: class.to_string(),
            calls: histogram.len(),
            latency_ms: LatencyMs::of(histogram),
            histogram: histogram::encode(histogram),
        }
    }
}
