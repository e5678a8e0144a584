//! Every figure of a saved round is checked like a live measurement before anything is
//! judged from it: a latency, a rate, a share or a duration is a finite number no lower
//! than zero, a measured period is no longer than the plan's round time allows, and the
//! latency histogram reads, holds one latency per transaction and gives the summary the
//! file shows. An edited figure is otherwise analysed as if measured: a negative latency
//! turns into "−200 %, not higher … GO", an unreadable histogram drops a percentile from
//! the verdict without a word, a round of 10³⁰⁰ s weighs nothing.

use std::time::Duration;

use super::record::RunRecord;
use super::round::{ClassRound, LatencyMs, RoundRecord};
use crate::histogram;

/// How much longer than the plan's round time a measured period may run: the round's
/// clock ticks every 20 ms and a server probe at the end may be slow on a loaded
/// machine, so a minute plus a tenth of the round time; an edited duration is far above.
pub(crate) fn longest_round(round_time: Duration) -> f64 {
    round_time.as_secs_f64() * 1.1 + 60.0
}

/// How far a latency summary may be from the one its histogram gives (rounding only).
const SUMMARY_AGREEMENT: f64 = 1e-6;

/// The first figure of `round` that no run writes, as `field: why`.
pub(crate) fn check_round(round: &RoundRecord, round_time: Duration) -> Result<(), String> {
    let longest = longest_round(round_time);
    if !(round.duration_s.is_finite() && (0.0..=longest).contains(&round.duration_s)) {
        return Err(format!(
            "duration_s is {} s, but the plan's rounds measure {} s (a round may run up to \
             {longest:.1} s, never less than 0)",
            number(round.duration_s),
            round_time.as_secs_f64()
        ));
    }
    for (field, value) in plain_figures(round) {
        non_negative(field, value)?;
    }
    if let Some(rate) = round.open_loop.map(|o| o.rate)
        && !(rate.is_finite() && rate > 0.0)
    {
        return Err(format!("open_loop.rate is {}, not a rate", number(rate)));
    }
    if let Some(offset) = round.start_offset_ms.filter(|o| !o.is_finite()) {
        return Err(format!("start_offset_ms is {offset}, not a time"));
    }
    Ok(())
}

/// The latency figures of a completed round: its histogram, and each query class's.
pub(crate) fn check_latencies(round: &RoundRecord) -> Result<(), String> {
    check_histogram(
        "histogram",
        "latency_ms",
        &round.histogram,
        round.transactions,
        &round.latency_ms,
    )?;
    for (i, class) in round.classes.iter().enumerate() {
        check_class(i, class)?;
    }
    Ok(())
}

fn check_class(i: usize, class: &ClassRound) -> Result<(), String> {
    check_histogram(
        &format!("classes[{i}].histogram (query class `{}`)", class.class),
        &format!("classes[{i}].latency_ms"),
        &class.histogram,
        class.calls,
        &class.latency_ms,
    )
}

/// A histogram that reads, with `count` latencies, whose summary is `summary`.
fn check_histogram(
    field: &str,
    summary_field: &str,
    encoded: &str,
    count: u64,
    summary: &LatencyMs,
) -> Result<(), String> {
    let summary_figures = [
        ("mean", summary.mean),
        ("p50", summary.p50),
        ("p95", summary.p95),
        ("p99", summary.p99),
        ("max", summary.max),
    ];
    for (name, value) in summary_figures {
        non_negative(&format!("{summary_field}.{name}"), value)?;
    }
    let Some(latencies) = histogram::decode(encoded) else {
        return Err(format!(
            "{field} is not a latency histogram abtest wrote (it does not decode), so its \
             percentiles cannot be judged"
        ));
    };
    if latencies.len() != count {
        return Err(format!(
            "{field} holds {} latencies for {count} measured events: it is not this round's",
            latencies.len()
        ));
    }
    let from_histogram = LatencyMs::of(&latencies);
    let expected = [
        from_histogram.mean,
        from_histogram.p50,
        from_histogram.p95,
        from_histogram.p99,
        from_histogram.max,
    ];
    for ((name, shown), computed) in summary_figures.into_iter().zip(expected) {
        if (shown - computed).abs() > SUMMARY_AGREEMENT * computed.abs().max(1.0) {
            return Err(format!(
                "{summary_field}.{name} is {} ms, but the round's histogram gives \
                 {computed} ms",
                number(shown)
            ));
        }
    }
    Ok(())
}

/// The figures that are a finite number no lower than zero whenever they are there.
fn plain_figures(round: &RoundRecord) -> Vec<(&'static str, f64)> {
    let mut figures = vec![("tps", round.tps), ("qps", round.qps)];
    let optional = [
        ("client_cpu_us_per_tx", round.client_cpu_us_per_tx),
        ("other_server_cpu_pct", round.other_server_cpu_pct),
        ("switch_ms", round.switch_ms),
        (
            "server_settings.put_in_place_ms",
            round.server_settings.as_ref().map(|s| s.put_in_place_ms),
        ),
        (
            "server.cpu_us_per_tx",
            round.server.as_ref().and_then(|s| s.cpu_us_per_tx),
        ),
        (
            "server.cpu_seconds",
            round.server.as_ref().and_then(|s| s.cpu_seconds),
        ),
        (
            "server.threads_running",
            round.server.as_ref().and_then(|s| s.threads_running),
        ),
        (
            "host_load.steal_pct",
            round.host_load.and_then(|h| h.steal_pct),
        ),
        (
            "host_load.runnable",
            round.host_load.and_then(|h| h.runnable),
        ),
        (
            "open_loop.max_lag_ms",
            round.open_loop.map(|o| o.max_lag_ms),
        ),
    ];
    figures.extend(
        optional
            .into_iter()
            .filter_map(|(field, value)| Some((field, value?))),
    );
    figures.extend(round.per_second_tps.iter().map(|&v| ("per_second_tps", v)));
    figures
}

fn non_negative(field: &str, value: f64) -> Result<(), String> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(format!(
            "{field} is {}, which no measurement gives (it is a finite number, 0 or more)",
            number(value)
        ))
    }
}

/// A figure as a message shows it: as written, or in exponent form when huge (`1e300`).
fn number(value: f64) -> String {
    if value.abs() < 1e15 {
        value.to_string()
    } else {
        format!("{value:e}")
    }
}

/// The run-wide figures outside the rounds: each move to fresh instances, each putting
/// back of a replay's tables and each look.
pub(crate) fn check_run(results: &RunRecord) -> Result<(), String> {
    let restores = results.data_restore.iter().flat_map(|r| &r.restores_s);
    for &seconds in &results.instance_switches_s {
        non_negative("instance_switches_s", seconds)?;
    }
    for &seconds in restores {
        non_negative("data_restore.restores_s", seconds)?;
    }
    for look in &results.looks {
        non_negative(&format!("looks[{}].elapsed_s", look.look), look.elapsed_s)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::side::Side;

    fn measured() -> RoundRecord {
        let mut latencies = histogram::merged(3);
        for micros in 1..=100u64 {
            latencies.record(micros * 100).unwrap();
        }
        let mut round = RoundRecord::example(Side::Baseline, 8, 0);
        round.latency_ms = LatencyMs::of(&latencies);
        round.histogram = histogram::encode(&latencies);
        round
    }

    const PLAN: Duration = Duration::from_secs(1);

    #[test]
    fn a_measured_round_passes() {
        check_round(&measured(), PLAN).unwrap();
        check_latencies(&measured()).unwrap();
    }

    #[test]
    fn a_latency_below_zero_or_not_finite_is_refused() {
        for value in [-0.2, f64::NAN, f64::INFINITY] {
            let mut round = measured();
            round.latency_ms.p95 = value;
            let why = check_latencies(&round).unwrap_err();
            assert!(why.starts_with("latency_ms.p95 is"), "{why}");
        }
    }

    #[test]
    fn a_switch_time_below_zero_is_refused() {
        let mut round = measured();
        round.server_settings = Some(crate::results::servers::RoundSettings {
            put_in_place_ms: -1.0,
            read_back: Default::default(),
        });
        let why = check_round(&round, PLAN).unwrap_err();
        assert!(why.contains("server_settings.put_in_place_ms"), "{why}");
    }

    #[test]
    fn a_duration_beyond_the_plan_is_refused() {
        let mut round = measured();
        round.duration_s = 1e300;
        let why = check_round(&round, PLAN).unwrap_err();
        assert!(why.contains("duration_s is 1e300 s"), "{why}");
        round.duration_s = longest_round(PLAN);
        check_round(&round, PLAN).unwrap();
        round.duration_s = -1.0;
        assert!(check_round(&round, PLAN).is_err());
    }

    #[test]
    fn a_histogram_that_does_not_read_or_belongs_elsewhere_is_refused() {
        let mut round = measured();
        round.histogram = "Z2FyYmFnZQ==".into();
        assert!(
            check_latencies(&round)
                .unwrap_err()
                .contains("does not decode")
        );
        let mut round = measured();
        round.transactions = 99;
        let why = check_latencies(&round).unwrap_err();
        assert!(why.contains("holds 100 latencies for 99"), "{why}");
        let mut round = measured();
        round.latency_ms.p99 *= 2.0;
        let why = check_latencies(&round).unwrap_err();
        assert!(why.contains("latency_ms.p99"), "{why}");
    }
}
