//! One round: hand each of the side's client threads its job, wait until every
//! connection is ready, run the warm-up, measure, stop, and merge the workers'
//! statistics.
//!
//! Connection set-up happens before the warm-up starts, so no round measures a
//! connection storm, and a worker that fails to connect reports through the same gate
//! as the others, so the coordinator can never deadlock waiting for it.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime};

use super::arrivals::Arrivals;
use super::control::{MEASURE, RoundControl, STOP, WARMUP};
use super::pool::{Answer, RoundJob, WorkerPool};
use super::progress::{self, IntervalReporter, Progress};
use super::worker::WorkerStats;
use crate::cpu;
use crate::db::ConnectSpec;
use crate::histogram;
use crate::host_load::{self, OthersCpu};
use crate::plan::ClientOptions;
use crate::results::{
    ClassRound, HostLoad, LatencyMs, OpenLoop, RoundRecord, RoundStatus, ThreadSetup,
};
use crate::schedule::Slot;
use crate::segment::{ThreadShare, Window};
use crate::server::probe::ServerProbe;
use crate::workload::WorkloadSpec;
use crate::workload::event_log::QueryCounts;
use crate::workload::oltp::SessionContext;
use crate::workload::random::UniqueSequence;

/// How often `Threads_running` is sampled during the measured period.
const PROBE_INTERVAL: Duration = Duration::from_millis(250);

/// What one round runs.
#[derive(Debug, Clone)]
pub(crate) struct RoundSpec<'a> {
    /// Where the round belongs in the schedule.
    pub(crate) slot: Slot,
    /// The threads of the level this process runs (all of them unless the run is split
    /// into segments).
    pub(crate) share: ThreadShare,
    /// This process's arrival rate (events per second), if open-loop.
    pub(crate) rate: Option<f64>,
    /// When the measured period starts and ends on the wall clock (a segment's
    /// schedule); without it, it starts `warmup` after every connection is ready and
    /// lasts `duration`. A segment that starts late measures less rather than run into
    /// the guard gap, where the other segments may already load the other side.
    pub(crate) window: Option<Window>,
    /// How workers connect.
    pub(crate) connect: &'a ConnectSpec,
    /// The workload.
    pub(crate) workload: &'a WorkloadSpec,
    /// Client behaviour.
    pub(crate) client: &'a ClientOptions,
    /// Distinct ids shared by all rounds of the run.
    pub(crate) unique: Arc<UniqueSequence>,
    /// The INSERT values the round's server assigns.
    pub(crate) assigned: Arc<[crate::workload::assigned_ids::Assigned]>,
    /// Warm-up, not counted.
    pub(crate) warmup: Duration,
    /// Measured period.
    pub(crate) duration: Duration,
    /// Seed of this round's workers.
    pub(crate) seed: u64,
    /// Label of progress lines, such as `baseline round 3/10`.
    pub(crate) label: String,
    /// The live progress bar.
    pub(crate) progress: &'a Progress,
    /// abtest's process and its managed servers', left out of the other processes' CPU.
    pub(crate) ours: &'a [u32],
    /// The other side's managed server, whose CPU during the round is recorded.
    pub(crate) other_server: Option<u32>,
    /// The server instance block the round runs in (`--instances` above 1).
    pub(crate) instance: Option<u32>,
    /// Whether the round runs on the other side's server (`--swap`).
    pub(crate) swapped: bool,
}

/// Runs one round on `pool`'s threads. `interrupt` stops it early (the round is then
/// marked interrupted). With `keep_sessions`, each thread runs on the session it kept
/// from the side's previous round at this level (or connects), and keeps it.
pub(crate) fn run_round(
    spec: &RoundSpec<'_>,
    interrupt: &AtomicBool,
    probe: &mut ServerProbe,
    pool: &mut WorkerPool,
    keep_sessions: bool,
) -> RoundRecord {
    let threads = pool.len();
    let other_cpu = || spec.other_server.and_then(cpu::process_cpu);
    let (other_before, switch_started) = (other_cpu(), Instant::now());
    let opened = if keep_sessions {
        pool.without_session()
    } else {
        threads
    } as u32;
    let control = Arc::new(RoundControl::new(
        threads,
        spec.client.report_interval.is_some(),
    ));
    let round = Arc::new(RoundJob {
        connect: Arc::new(spec.connect.clone()),
        workload: Arc::new(spec.workload.clone()),
        ignore: Arc::new(spec.client.ignore_errors.clone()),
        arrivals: spec
            .rate
            .map(|rate| Arc::new(Arrivals::new(rate, spec.seed ^ 0xa5a5))),
        control: Arc::clone(&control),
        keep_sessions,
    });
    let (answers, sent) = pool.dispatch(&round, |id| {
        // Level-wide: segments of a split run hold disjoint ids of the same level.
        let thread = spec.share.first + id as u32;
        let context = SessionContext {
            thread,
            threads: spec.slot.threads,
            unique: Arc::clone(&spec.unique),
            assigned: Arc::clone(&spec.assigned),
        };
        let seed = spec
            .seed
            .wrapping_add(u64::from(thread).wrapping_mul(0x9E37_79B9));
        (context, seed)
    });
    let gone = (sent < threads)
        .then(|| format!("{} of {threads} worker threads are gone", threads - sent));
    let timing = coordinate(spec, &control, sent, interrupt, gone, probe, switch_started);
    // Every job answers, also when its worker panics; a thread that died drops its job,
    // which ends the wait.
    let mut finished: Vec<Answer> = answers.iter().take(sent).collect();
    finished.sort_by_key(|answer| answer.0);
    pool.record(&finished);
    let stats: Vec<WorkerStats> = finished.into_iter().map(|(_, stats, _)| stats).collect();
    let known = Known {
        connections_opened: opened,
        client_threads: pool.setup().cloned(),
        other_server_cpu_pct: cpu::spent(other_before, other_cpu()).map(|spent| {
            100.0 * spent.as_secs_f64() / switch_started.elapsed().as_secs_f64().max(1e-9)
        }),
    };
    build_record(spec, &stats, &timing, interrupt, known, probe)
}

/// What the round knows of itself besides its workers' statistics and timing.
struct Known {
    /// Connections the round opened.
    connections_opened: u32,
    /// Whether the client threads ran as planned.
    client_threads: Option<ThreadSetup>,
    /// CPU the other side's managed server used while the round ran, in % of one core.
    other_server_cpu_pct: Option<f64>,
}

#[derive(Debug, Default)]
struct Timing {
    /// From then until every connection was ready to run.
    switch: Option<Duration>,
    started_at: Option<SystemTime>,
    measured: Duration,
    /// abtest's own CPU time over the measured period.
    client_cpu: Option<Duration>,
    /// Completed events at each whole second of the measured period, from its start.
    events_by_second: Vec<u64>,
    /// What else the machine did during the measured period.
    host_load: Option<HostLoad>,
    spawn_error: Option<String>,
    connect_failed: bool,
    interrupted: bool,
}

fn coordinate(
    spec: &RoundSpec<'_>,
    control: &RoundControl,
    workers: usize,
    interrupt: &AtomicBool,
    spawn_error: Option<String>,
    probe: &mut ServerProbe,
    switch_started: Instant,
) -> Timing {
    let mut timing = Timing {
        spawn_error,
        ..Timing::default()
    };
    let stop_requested = || interrupt.load(Ordering::SeqCst);
    let failed = control.wait_arrivals(workers, stop_requested);
    timing.switch = Some(switch_started.elapsed());
    if failed > 0 || timing.spawn_error.is_some() || stop_requested() {
        timing.connect_failed = failed > 0;
        timing.interrupted = stop_requested();
        control.set_phase(STOP);
        return timing;
    }
    let mut reporter = spec
        .client
        .report_interval
        .map(|interval| IntervalReporter::new(spec.label.clone(), workers, interval));
    spec.progress.start_round();
    control.set_phase(WARMUP);
    let mut live = |_: Instant| spec.progress.tick(&spec.label, control);
    let warmed_up = match spec.window {
        Some(window) => instant_of(window.measure),
        None => Instant::now() + spec.warmup,
    };
    if !wait_until(warmed_up, interrupt, control, &mut reporter, &mut live) {
        probe.start();
        timing.started_at = Some(SystemTime::now());
        let own_cpu = || cpu::process_cpu(std::process::id());
        let cpu_at_start = own_cpu();
        let load_at_start = OthersCpu::read(spec.ours);
        let start = Instant::now();
        control.set_phase(MEASURE);
        let mut next_sample = start;
        let mut next_second = start;
        let mut runnable = Vec::new();
        let mut sample = |now: Instant| {
            spec.progress.tick(&spec.label, control);
            if now >= next_sample {
                probe.sample();
                runnable.extend(host_load::runnable());
                next_sample = now + PROBE_INTERVAL;
            }
            if now >= next_second {
                timing.events_by_second.push(progress::totals(control)[0]);
                next_second += Duration::from_secs(1);
            }
        };
        wait_until(
            spec.window
                .map_or(start + spec.duration, |w| instant_of(w.end)),
            interrupt,
            control,
            &mut reporter,
            &mut sample,
        );
        control.set_phase(STOP);
        timing.events_by_second.push(progress::totals(control)[0]);
        timing.measured = start.elapsed();
        timing.client_cpu = cpu::spent(cpu_at_start, own_cpu());
        timing.host_load = HostLoad::over(load_at_start, spec.ours, &runnable);
    }
    control.set_phase(STOP);
    timing.interrupted = stop_requested();
    timing
}

/// Waits until `deadline`, printing progress lines; returns true when woken early by
/// an interrupt or a fatal error.
fn wait_until(
    deadline: Instant,
    interrupt: &AtomicBool,
    control: &RoundControl,
    reporter: &mut Option<IntervalReporter>,
    on_tick: &mut dyn FnMut(Instant),
) -> bool {
    loop {
        if interrupt.load(Ordering::SeqCst) || control.fatal.load(Ordering::SeqCst) {
            return true;
        }
        let now = Instant::now();
        if now >= deadline {
            return false;
        }
        on_tick(now);
        let mut wake = deadline.min(now + Duration::from_millis(20));
        if let Some(reporter) = reporter.as_mut() {
            reporter.tick(control);
            wake = wake.min(reporter.due());
        }
        std::thread::sleep(wake.saturating_duration_since(Instant::now()));
    }
}

/// Merges the workers' statistics into the round's record.
fn build_record(
    spec: &RoundSpec<'_>,
    stats: &[WorkerStats],
    timing: &Timing,
    interrupt: &AtomicBool,
    known: Known,
    probe: &mut ServerProbe,
) -> RoundRecord {
    let mut histogram = histogram::merged(3);
    let mut queries = QueryCounts::default();
    let mut errors: BTreeMap<String, u64> = BTreeMap::new();
    let (mut events, mut reconnects, mut saturated, mut late) = (0, 0, 0, 0);
    let mut max_lag = Duration::ZERO;
    for worker in stats {
        histogram::merge_into(&mut histogram, &worker.histogram);
        queries.add(&worker.queries);
        for (code, count) in &worker.errors {
            *errors.entry(code.to_string()).or_default() += count;
        }
        events += worker.events;
        reconnects += worker.reconnects;
        saturated += worker.saturated;
        late += worker.late_events;
        max_lag = max_lag.max(worker.max_lag);
    }
    let (status, reason) = round_status(stats, timing, interrupt);
    let seconds = timing.measured.as_secs_f64();
    let per_second = |count: u64| {
        if seconds > 0.0 {
            count as f64 / seconds
        } else {
            0.0
        }
    };
    RoundRecord {
        side: spec.slot.side,
        threads: spec.slot.threads,
        index: spec.slot.index,
        position: spec.slot.position,
        status,
        reason,
        started_at: humantime::format_rfc3339_millis(
            timing.started_at.unwrap_or_else(SystemTime::now),
        )
        .to_string(),
        duration_s: seconds,
        transactions: events,
        queries,
        errors,
        reconnects,
        tps: per_second(events),
        qps: per_second(queries.total()),
        latency_ms: LatencyMs::of(&histogram),
        latency_saturated: saturated,
        open_loop: spec.rate.map(|rate| OpenLoop {
            rate,
            late_events: late,
            max_lag_ms: max_lag.as_secs_f64() * 1000.0,
            max_queue_depth: (max_lag.as_secs_f64() * rate).round() as u64,
        }),
        client_threads: known.client_threads,
        classes: class_rounds(spec.workload, stats),
        histogram: histogram::encode(&histogram),
        client_cpu_us_per_tx: cpu::us_per_transaction(timing.client_cpu, events),
        per_second_tps: per_second_tps(&timing.events_by_second),
        host_load: timing.host_load,
        other_server_cpu_pct: known.other_server_cpu_pct,
        switch_ms: timing.switch.map(|d| d.as_secs_f64() * 1000.0),
        connections_opened: Some(known.connections_opened),
        instance: spec.instance,
        server_settings: None,
        swapped: spec.swapped,
        start_offset_ms: spec
            .window
            .zip(timing.started_at)
            .map(|(planned, actual)| offset_ms(planned.measure, actual)),
        server: (status == RoundStatus::Completed)
            .then(|| probe.finish(events))
            .flatten(),
    }
}

/// Each query class's statements of the round, the workers' histograms added; classes
/// that did not run are left out.
fn class_rounds(workload: &WorkloadSpec, stats: &[WorkerStats]) -> Vec<ClassRound> {
    crate::workload::session::query_classes(workload)
        .iter()
        .enumerate()
        .filter_map(|(id, class)| {
            let mut merged = histogram::merged(3);
            for worker in stats {
                if let Some(part) = worker.classes.get(id) {
                    histogram::merge_into(&mut merged, part);
                }
            }
            (!merged.is_empty()).then(|| ClassRound::of(class, &merged))
        })
        .collect()
}

/// The monotonic instant of a wall-clock time (now, if it has passed).
fn instant_of(at: SystemTime) -> Instant {
    Instant::now() + at.duration_since(SystemTime::now()).unwrap_or_default()
}

/// How much later than `planned` `actual` came, in ms (negative when earlier).
fn offset_ms(planned: SystemTime, actual: SystemTime) -> f64 {
    match actual.duration_since(planned) {
        Ok(late) => late.as_secs_f64() * 1000.0,
        Err(early) => -early.duration().as_secs_f64() * 1000.0,
    }
}

/// TPS in each whole second of the measured period, from cumulative event counts taken
/// at every second (the last, partial second is left out).
fn per_second_tps(events_by_second: &[u64]) -> Vec<f64> {
    let whole = events_by_second.len().saturating_sub(1);
    events_by_second[..whole]
        .windows(2)
        .map(|w| w[1].saturating_sub(w[0]) as f64)
        .collect()
}

fn round_status(
    stats: &[WorkerStats],
    timing: &Timing,
    interrupt: &AtomicBool,
) -> (RoundStatus, Option<String>) {
    let failure = stats
        .iter()
        .find_map(|w| w.failure.clone())
        .or_else(|| timing.spawn_error.clone());
    if timing.interrupted || interrupt.load(Ordering::SeqCst) {
        (
            RoundStatus::Interrupted,
            Some("interrupted by a signal".to_string()),
        )
    } else if let Some(failure) = failure {
        let what = if timing.connect_failed {
            "a connection could not be opened"
        } else {
            "a worker stopped"
        };
        (RoundStatus::Failed, Some(format!("{what}: {failure}")))
    } else {
        (RoundStatus::Completed, None)
    }
}

#[cfg(test)]
mod tests {
    use super::per_second_tps;

    #[test]
    fn per_second_tps_uses_whole_seconds_only() {
        // Counts at 0, 1, 2 s and at the end (2.4 s): two whole seconds.
        assert_eq!(per_second_tps(&[0, 100, 250, 290]), [100.0, 150.0]);
        assert!(per_second_tps(&[0, 40]).is_empty());
        assert!(per_second_tps(&[]).is_empty());
    }
}
