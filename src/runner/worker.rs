//! One client thread: one connection, its own prepared statements, random generator,
//! histogram and counters. Nothing is shared on the hot path except the phase flag (a
//! relaxed load) and the worker's own live counters; statistics are merged once, when
//! the round ends.

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use mysql::prelude::Queryable;

use super::arrivals::Arrivals;
use super::control::{LiveCounters, RoundControl};
use crate::db::errors::{IgnoreErrors, Recovery, recovery};
use crate::db::{ConnectSpec, error_code};
use crate::histogram;
use crate::workload::WorkloadSpec;
use crate::workload::event_log::{EventLog, QueryCounts};
use crate::workload::oltp::SessionContext;
use crate::workload::session::WorkloadSession;

/// Pause between reconnect attempts to a server that does not answer.
const RECONNECT_PAUSE: Duration = Duration::from_millis(100);

/// An open-loop event that starts this much after its intended time counts as late.
const LATE_AFTER: Duration = Duration::from_millis(1);

/// What a worker measured.
#[derive(Debug)]
pub(crate) struct WorkerStats {
    /// Latency of measured events, µs.
    pub(crate) histogram: Histogram<u32>,
    /// Measured events.
    pub(crate) events: u64,
    /// Statements of measured events.
    pub(crate) queries: QueryCounts,
    /// Latency of the measured events' statements (µs), one histogram per query class.
    pub(crate) classes: Vec<Histogram<u32>>,
    /// Errors by code during the measured period.
    pub(crate) errors: BTreeMap<u16, u64>,
    /// Reconnects during the measured period.
    pub(crate) reconnects: u64,
    /// Events longer than the histogram's range.
    pub(crate) saturated: u64,
    /// Open loop: measured events that started late.
    pub(crate) late_events: u64,
    /// Open loop: the largest delay between intended and actual start.
    pub(crate) max_lag: Duration,
    /// The error that ended this worker, if any.
    pub(crate) failure: Option<String>,
}

impl WorkerStats {
    fn new() -> WorkerStats {
        WorkerStats {
            histogram: histogram::worker(3),
            events: 0,
            queries: QueryCounts::default(),
            classes: Vec::new(),
            errors: BTreeMap::new(),
            reconnects: 0,
            saturated: 0,
            late_events: 0,
            max_lag: Duration::ZERO,
            failure: None,
        }
    }

    /// The statistics of a worker that could not run, with the reason.
    pub(crate) fn failed(reason: String) -> WorkerStats {
        WorkerStats {
            failure: Some(reason),
            ..WorkerStats::new()
        }
    }

    fn record_event(&mut self, latency: Duration, lag: Duration, log: &EventLog) {
        self.record_latency(latency.as_micros() as u64);
        self.events += 1;
        self.queries.add(&log.counts);
        for &(class, micros) in log.times() {
            if let Some(histogram) = self.classes.get_mut(usize::from(class)) {
                histogram::record(histogram, micros);
            }
        }
        self.max_lag = self.max_lag.max(lag);
        self.late_events += u64::from(lag > LATE_AFTER);
    }

    fn record_latency(&mut self, micros: u64) {
        if !histogram::record(&mut self.histogram, micros) {
            self.saturated += 1;
        }
    }
}

/// Everything a worker needs to run.
#[derive(Debug, Clone)]
pub(crate) struct WorkerSetup<'a> {
    /// How to connect.
    pub(crate) connect: &'a ConnectSpec,
    /// What to run.
    pub(crate) workload: &'a WorkloadSpec,
    /// This worker's index among this process's workers of the round.
    pub(crate) id: usize,
    /// This connection's place in the round (level-wide when the run is split).
    pub(crate) context: SessionContext,
    /// Seed of this worker's random generator.
    pub(crate) seed: u64,
    /// Which errors are counted and retried.
    pub(crate) ignore: &'a IgnoreErrors,
    /// Open-loop arrivals, when `--rate` is set.
    pub(crate) arrivals: Option<&'a Arrivals>,
}

/// A connection with its prepared workload. Kept between rounds of the same side and
/// thread level, so a round switch neither reconnects nor prepares again.
pub(crate) struct Session {
    conn: mysql::Conn,
    workload: WorkloadSession,
}

fn open(setup: &WorkerSetup<'_>, seed: u64) -> Result<Session, mysql::Error> {
    let mut conn = setup.connect.connect()?;
    let workload =
        WorkloadSession::prepare(&mut conn, setup.workload, setup.context.clone(), seed)?;
    Ok(Session { conn, workload })
}

/// Connects and prepares (unless a session from an earlier round is `kept`), waits for
/// the start, then runs events until the phase is STOP. The session is handed back for
/// the next round unless the round ended in a failure.
pub(crate) fn run(
    setup: WorkerSetup<'_>,
    control: &RoundControl,
    kept: Option<Session>,
) -> (WorkerStats, Option<Session>) {
    let mut stats = WorkerStats::new();
    stats.classes = (0..crate::workload::session::query_classes(setup.workload).len())
        .map(|_| histogram::worker(3))
        .collect();
    let live = &control.live[setup.id];
    let opened = match kept {
        Some(session) => Ok(session),
        None => {
            let _slot = control.connect_slot();
            open(&setup, setup.seed)
        }
    };
    let mut session = match opened {
        Ok(session) => {
            control.arrive_and_wait(true);
            Some(session)
        }
        Err(e) => {
            stats.failure = Some(format!("connect failed: {}", crate::db::errors::coded(&e)));
            control.arrive_and_wait(false);
            return (stats, None);
        }
    };
    // Why the connection is gone, while it is gone.
    let mut lost: Option<String> = None;
    let mut log = EventLog::default();
    while control.running() {
        let Some(active) = session.as_mut() else {
            session = reconnect(&setup, &mut stats, control, live, &mut lost);
            continue;
        };
        // Closed loop: the event is intended to start when it starts.
        let (intended, started) = match setup.arrivals {
            Some(arrivals) => match wait_for(arrivals.take(), control) {
                Some(intended) => (intended, Instant::now()),
                None => break,
            },
            None => {
                let now = Instant::now();
                (now, now)
            }
        };
        log.clear();
        let outcome = active.workload.event(&mut active.conn, &mut log);
        let latency = intended.elapsed();
        let measuring = control.measuring();
        match outcome {
            Ok(()) => {
                publish(live, &log.counts, latency);
                if measuring {
                    stats.record_event(latency, started - intended, &log);
                }
            }
            Err(e) => {
                LiveCounters::bump(&live.errors, 1);
                let code = error_code(&e);
                if measuring {
                    *stats.errors.entry(code).or_default() += 1;
                }
                match recovery(code, setup.ignore) {
                    Recovery::Retry => {
                        if let Err(message) = roll_back(active, code) {
                            lost = Some(message);
                            session = None;
                        }
                    }
                    Recovery::Reconnect => {
                        lost = Some(crate::db::errors::coded(&e));
                        session = None;
                    }
                    Recovery::Fail => {
                        stats.failure = Some(crate::db::errors::coded(&e));
                        control.fatal.store(true, Ordering::SeqCst);
                        break;
                    }
                }
            }
        }
    }
    if let Some(active) = session.as_mut()
        && active.workload.finish(&mut active.conn).is_err()
    {
        session = None;
    }
    if let Some(reason) = lost.filter(|_| stats.failure.is_none()) {
        stats.failure = Some(format!(
            "the connection to the server was lost and could not be re-established: {reason}"
        ));
    }
    if stats.failure.is_some() {
        session = None;
    }
    (stats, session)
}

/// One attempt to re-open a lost connection; on failure, counts the error and waits a
/// little, so a dead or stalled server turns into counted errors, not a hang.
fn reconnect(
    setup: &WorkerSetup<'_>,
    stats: &mut WorkerStats,
    control: &RoundControl,
    live: &LiveCounters,
    lost: &mut Option<String>,
) -> Option<Session> {
    let seed = setup.seed ^ (stats.reconnects + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    match open(setup, seed) {
        Ok(session) => {
            LiveCounters::bump(&live.reconnects, 1);
            if control.measuring() {
                stats.reconnects += 1;
            }
            *lost = None;
            Some(session)
        }
        Err(e) => {
            let code = error_code(&e);
            LiveCounters::bump(&live.errors, 1);
            if control.measuring() {
                *stats.errors.entry(code).or_default() += 1;
            }
            *lost = Some(format!(
                "reconnect failed: {}",
                crate::db::errors::coded(&e)
            ));
            let resume = Instant::now() + RECONNECT_PAUSE;
            while control.running() && Instant::now() < resume {
                std::thread::sleep(Duration::from_millis(10));
            }
            None
        }
    }
}

/// Rolls back after an ignored error, so the next event starts clean.
fn roll_back(session: &mut Session, code: u16) -> Result<(), String> {
    if session.workload.uses_transactions() {
        session.conn.query_drop("ROLLBACK").map_err(|e| {
            format!(
                "ROLLBACK after error {code} failed: {}",
                crate::db::errors::coded(&e)
            )
        })?;
    }
    Ok(())
}

/// Sleeps until the intended start, waking up for a stop. `None` when stopped.
fn wait_for(intended: Instant, control: &RoundControl) -> Option<Instant> {
    loop {
        if !control.running() {
            return None;
        }
        let now = Instant::now();
        if now >= intended {
            return Some(intended);
        }
        std::thread::sleep((intended - now).min(Duration::from_millis(10)));
    }
}

fn publish(live: &LiveCounters, counts: &QueryCounts, elapsed: Duration) {
    LiveCounters::bump(&live.events, 1);
    LiveCounters::bump(&live.reads, counts.read);
    LiveCounters::bump(&live.writes, counts.write);
    LiveCounters::bump(&live.other, counts.other);
    if let Some(interval) = &live.interval {
        let mut histogram = interval.lock().unwrap_or_else(|e| e.into_inner());
        histogram::record(&mut histogram, elapsed.as_micros() as u64);
    }
}
