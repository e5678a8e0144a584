//! What a comparison measures, as a type: the metrics a run records, latency
//! percentiles as data (p99.9 is `LatencyPercentile(99.9)`, not a name parsed back), and
//! any other column a CSV brings. In files and JSON a metric is its key
//! (`latency_p99_ms`), so results files stay as they were.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A compared metric.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Metric {
    /// Transactions per second.
    Tps,
    /// Statements per second.
    Qps,
    /// Mean transaction latency, ms.
    LatencyMean,
    /// A latency percentile, ms; the percentile in thousandths (99.9 → 99 900).
    LatencyPercentile(Percentile),
    /// The variant's failed share of attempted transactions, %.
    ErrorRate,
    /// The managed server's CPU time per transaction, µs.
    ServerCpuPerTx,
    /// Mean of the server's `Threads_running` samples.
    ThreadsRunning,
    /// Any other column of a rounds CSV, by its name.
    Other(String),
}

/// A percentile between 0 and 100, kept to a thousandth so it can be compared exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct Percentile(u32);

impl Percentile {
    /// `p` (such as 99.9), if it lies strictly between 0 and 100.
    pub(crate) fn new(p: f64) -> Option<Percentile> {
        // Kept to a thousandth, so 99.9999 would be 100: the bounds apply after rounding,
        // and every percentile's key reads back as the same percentile.
        let thousandths = (p * 1000.0).round();
        (1.0..100_000.0)
            .contains(&thousandths)
            .then_some(Percentile(thousandths as u32))
    }

    /// The percentile as a number, such as 99.9.
    pub(crate) fn value(self) -> f64 {
        f64::from(self.0) / 1000.0
    }
}

impl fmt::Display for Percentile {
    /// `99.9`, `95`: no trailing zeros.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = format!("{:.3}", self.value());
        f.write_str(text.trim_end_matches('0').trim_end_matches('.'))
    }
}

impl Metric {
    /// The latency percentile `p`, such as 95 or 99.9.
    pub(crate) fn percentile(p: f64) -> Option<Metric> {
        Percentile::new(p).map(Metric::LatencyPercentile)
    }

    /// The metric of a key: `tps`, `latency_p99_ms`, or any other name as `Other`.
    pub(crate) fn from_key(key: &str) -> Metric {
        match key {
            "tps" => Metric::Tps,
            "qps" => Metric::Qps,
            "latency_mean_ms" => Metric::LatencyMean,
            "error_rate" => Metric::ErrorRate,
            "server_cpu_us_per_tx" => Metric::ServerCpuPerTx,
            "threads_running" => Metric::ThreadsRunning,
            _ => key
                .strip_prefix("latency_p")
                .and_then(|rest| rest.strip_suffix("_ms"))
                .and_then(|p| p.parse::<f64>().ok())
                .and_then(Metric::percentile)
                .unwrap_or_else(|| Metric::Other(key.to_string())),
        }
    }

    /// Whether this is a latency metric (mean or percentile).
    pub(crate) fn is_latency(&self) -> bool {
        matches!(self, Metric::LatencyMean | Metric::LatencyPercentile(_))
    }

    /// Whether the metric is a rate in % whose change is told in percentage points
    /// (variant − baseline), not in % of a baseline that is often zero: the error rate.
    pub(crate) fn is_rate(&self) -> bool {
        *self == Metric::ErrorRate
    }

    /// The name as a DBA says it, without the unit: "TPS", "p99 latency", "error rate".
    pub(crate) fn spoken(&self) -> String {
        match self {
            Metric::LatencyMean => "mean latency".into(),
            Metric::LatencyPercentile(p) => format!("p{p} latency"),
            Metric::ErrorRate => "error rate".into(),
            Metric::ServerCpuPerTx => "server CPU per transaction".into(),
            other => other.label(),
        }
    }

    /// The name for people: "TPS", "latency p99 (ms)", "server CPU per transaction (µs)".
    pub(crate) fn label(&self) -> String {
        match self {
            Metric::Tps => "TPS".into(),
            Metric::Qps => "QPS".into(),
            Metric::LatencyMean => "latency mean (ms)".into(),
            Metric::LatencyPercentile(p) => format!("latency p{p} (ms)"),
            Metric::ErrorRate => "error rate (%)".into(),
            Metric::ServerCpuPerTx => "server CPU per transaction (µs)".into(),
            Metric::ThreadsRunning => "threads running".into(),
            Metric::Other(name) => name.clone(),
        }
    }
}

impl fmt::Display for Metric {
    /// The key, as files and JSON spell it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Metric::Tps => f.write_str("tps"),
            Metric::Qps => f.write_str("qps"),
            Metric::LatencyMean => f.write_str("latency_mean_ms"),
            Metric::LatencyPercentile(p) => write!(f, "latency_p{p}_ms"),
            Metric::ErrorRate => f.write_str("error_rate"),
            Metric::ServerCpuPerTx => f.write_str("server_cpu_us_per_tx"),
            Metric::ThreadsRunning => f.write_str("threads_running"),
            Metric::Other(name) => f.write_str(name),
        }
    }
}

impl Serialize for Metric {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Metric {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Metric, D::Error> {
        String::deserialize(deserializer).map(|key| Metric::from_key(&key))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_round_trip_and_percentiles_are_data() {
        for key in [
            "tps",
            "qps",
            "latency_mean_ms",
            "latency_p95_ms",
            "latency_p99.9_ms",
            "error_rate",
            "server_cpu_us_per_tx",
            "threads_running",
            "com_select",
        ] {
            assert_eq!(Metric::from_key(key).to_string(), key);
        }
        assert_eq!(
            Metric::from_key("latency_p99.9_ms"),
            Metric::percentile(99.9).unwrap()
        );
        assert_eq!(
            Metric::from_key("latency_p100_ms"),
            Metric::Other("latency_p100_ms".into())
        );
        assert_eq!(
            Metric::percentile(99.9).unwrap().label(),
            "latency p99.9 (ms)"
        );
        assert!(Metric::LatencyMean.is_latency() && !Metric::Tps.is_latency());
        let json = serde_json::to_string(&Metric::percentile(95.0)).unwrap();
        assert_eq!(json, "\"latency_p95_ms\"");
    }
}
