//! One row per round with every per-round metric. The first columns are those
//! `abtest analyze` reads (`side,threads,round,tps,...`), so the file can be analysed
//! again on its own.

use crate::results::RoundRecord;

/// The columns that identify a round: `abtest analyze` pairs rounds by them.
pub(crate) const KEY_COLUMNS: [&str; 3] = ["side", "threads", "round"];

/// Columns of the rounds CSV that are labels, raw counts or recorded-only figures, not
/// metrics to compare; `abtest analyze` skips them when it reads the file back, as the
/// analysis of the results JSON does.
pub(crate) const NOT_METRICS: [&str; 11] = [
    "position",
    "status",
    "started_at",
    "duration_s",
    "transactions",
    "reads",
    "writes",
    "other",
    "errors",
    "reconnects",
    "client_cpu_us_per_tx",
];

/// The compared metrics, last.
const METRIC_COLUMNS: [&str; 10] = [
    "tps",
    "qps",
    "latency_mean_ms",
    "latency_p50_ms",
    "latency_p95_ms",
    "latency_p99_ms",
    "latency_max_ms",
    "error_rate",
    "server_cpu_us_per_tx",
    "threads_running",
];

/// Renders the rounds as CSV.
pub(crate) fn render(rounds: &[RoundRecord]) -> anyhow::Result<String> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(
        KEY_COLUMNS
            .iter()
            .chain(&NOT_METRICS)
            .chain(&METRIC_COLUMNS),
    )?;
    for round in rounds {
        writer.write_record(row(round))?;
    }
    Ok(String::from_utf8(
        writer.into_inner().map_err(|e| anyhow::anyhow!("{e}"))?,
    )?)
}

fn row(r: &RoundRecord) -> Vec<String> {
    let optional = |v: Option<f64>| v.map(|v| v.to_string()).unwrap_or_default();
    let status = serde_json::to_value(r.status)
        .ok()
        .and_then(|v| v.as_str().map(String::from))
        .unwrap_or_default();
    let server = r.server.clone().unwrap_or_default();
    vec![
        r.side.to_string(),
        r.threads.to_string(),
        (r.index + 1).to_string(),
        r.position.to_string(),
        status,
        r.started_at.clone(),
        r.duration_s.to_string(),
        r.transactions.to_string(),
        r.queries.read.to_string(),
        r.queries.write.to_string(),
        r.queries.other.to_string(),
        r.errors.values().sum::<u64>().to_string(),
        r.reconnects.to_string(),
        optional(r.client_cpu_us_per_tx),
        r.tps.to_string(),
        r.qps.to_string(),
        r.latency_ms.mean.to_string(),
        r.latency_ms.p50.to_string(),
        r.latency_ms.p95.to_string(),
        r.latency_ms.p99.to_string(),
        r.latency_ms.max.to_string(),
        r.error_rate().to_string(),
        optional(server.cpu_us_per_tx),
        optional(server.threads_running),
    ]
}
