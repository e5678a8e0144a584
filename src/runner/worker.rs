//! One client thread: one connection, its own prepared statements, random generator,
//! histogram and counters. Nothing is shared on the hot path except a phase flag that
//! is read with a relaxed load; statistics are merged once, when the round ends.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Instant;

use hdrhistogram::Histogram;
use mysql::prelude::Queryable;

use crate::db::{ConnectSpec, error_code};
use crate::workload::WorkloadSpec;
use crate::workload::oltp::{OltpSession, QueryCounts};
use crate::workload::random::WorkloadRng;

/// Workers are connecting; nothing runs yet.
pub const CONNECTING: u8 = 0;
/// Warm-up: events run but are not counted.
pub const WARMUP: u8 = 1;
/// Measured period: completed events are counted.
pub const MEASURE: u8 = 2;
/// Stop after the current event.
pub const STOP: u8 = 3;

/// Highest latency the histogram holds, in µs (100 s); longer events are clamped and counted.
pub const MAX_LATENCY_US: u64 = 100_000_000;

/// Errors retried after a ROLLBACK, as sysbench does: deadlock, lock wait timeout,
/// and "record changed since last read".
pub const RETRYABLE: [u16; 3] = [1213, 1205, 1020];

/// Lost-connection errors that trigger a reconnect.
pub const CONNECTION_LOST: [u16; 2] = [2006, 2013];

/// State shared by the coordinator and the workers of one round.
#[derive(Debug)]
pub struct RoundControl {
    /// Current phase.
    pub phase: AtomicU8,
    /// Set when a worker hit an error that ends the round.
    pub fatal: AtomicBool,
    arrivals: Mutex<Arrivals>,
    changed: Condvar,
}

#[derive(Debug, Default)]
struct Arrivals {
    connected: usize,
    failed: usize,
}

impl Default for RoundControl {
    fn default() -> Self {
        RoundControl {
            phase: AtomicU8::new(CONNECTING),
            fatal: AtomicBool::new(false),
            arrivals: Mutex::new(Arrivals::default()),
            changed: Condvar::new(),
        }
    }
}

impl RoundControl {
    /// A worker reports that its connection is ready (or failed), then waits for the start.
    /// Never blocks forever: the coordinator always moves the phase on.
    pub fn arrive_and_wait(&self, connected: bool) {
        let mut arrivals = self.arrivals.lock().unwrap_or_else(|e| e.into_inner());
        if connected {
            arrivals.connected += 1;
        } else {
            arrivals.failed += 1;
        }
        self.changed.notify_all();
        while self.phase.load(Ordering::SeqCst) == CONNECTING {
            arrivals = self
                .changed
                .wait(arrivals)
                .unwrap_or_else(|e| e.into_inner());
        }
    }

    /// The coordinator waits until `workers` have arrived or `stop()` says to give up.
    /// Returns (connected, failed).
    pub fn wait_arrivals(&self, workers: usize, stop: impl Fn() -> bool) -> (usize, usize) {
        let mut arrivals = self.arrivals.lock().unwrap_or_else(|e| e.into_inner());
        while arrivals.connected + arrivals.failed < workers && !stop() {
            let timeout = std::time::Duration::from_millis(50);
            arrivals = self
                .changed
                .wait_timeout(arrivals, timeout)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        (arrivals.connected, arrivals.failed)
    }

    /// Moves every worker to `phase` and wakes those waiting at the start.
    pub fn set_phase(&self, phase: u8) {
        let _guard = self.arrivals.lock().unwrap_or_else(|e| e.into_inner());
        self.phase.store(phase, Ordering::SeqCst);
        self.changed.notify_all();
    }
}

/// What a worker measured.
#[derive(Debug)]
pub struct WorkerStats {
    /// Latency of measured events, µs.
    pub histogram: Histogram<u32>,
    /// Measured events.
    pub events: u64,
    /// Statements of measured events.
    pub queries: QueryCounts,
    /// Errors by code during the measured period.
    pub errors: BTreeMap<u16, u64>,
    /// Reconnects during the measured period.
    pub reconnects: u64,
    /// Events longer than the histogram's range.
    pub saturated: u64,
    /// The error that ended this worker, if any.
    pub failure: Option<String>,
}

impl WorkerStats {
    fn new() -> WorkerStats {
        WorkerStats {
            histogram: Histogram::new_with_bounds(1, MAX_LATENCY_US, 3)
                .expect("valid histogram bounds"),
            events: 0,
            queries: QueryCounts::default(),
            errors: BTreeMap::new(),
            reconnects: 0,
            saturated: 0,
            failure: None,
        }
    }

    fn record_latency(&mut self, started: Instant) {
        let micros = started.elapsed().as_micros() as u64;
        if micros > MAX_LATENCY_US {
            self.saturated += 1;
        }
        self.histogram
            .saturating_record(micros.clamp(1, MAX_LATENCY_US));
    }
}

/// Everything a worker needs to run.
#[derive(Debug, Clone, Copy)]
pub struct WorkerSetup<'a> {
    /// How to connect.
    pub connect: &'a ConnectSpec,
    /// What to run.
    pub workload: &'a WorkloadSpec,
    /// Seed of this worker's random generator.
    pub seed: u64,
}

/// Connects, prepares, waits for the start, then runs events until the phase is STOP.
pub fn run(setup: WorkerSetup<'_>, control: &RoundControl) -> WorkerStats {
    let mut stats = WorkerStats::new();
    let prepared = setup.connect.connect().and_then(|mut conn| {
        OltpSession::prepare(&mut conn, setup.workload, WorkloadRng::seeded(setup.seed))
            .map(|session| (conn, session))
    });
    let (mut conn, mut session) = match prepared {
        Ok(ready) => {
            control.arrive_and_wait(true);
            ready
        }
        Err(e) => {
            stats.failure = Some(format!("connect failed: [{}] {e}", error_code(&e)));
            control.arrive_and_wait(false);
            return stats;
        }
    };
    while control.phase.load(Ordering::Relaxed) != STOP {
        let mut counts = QueryCounts::default();
        let started = Instant::now();
        let outcome = session.event(&mut conn, &mut counts);
        let measuring = control.phase.load(Ordering::Relaxed) == MEASURE;
        match outcome {
            Ok(()) if measuring => {
                stats.record_latency(started);
                stats.events += 1;
                stats.queries.add(&counts);
            }
            Ok(()) => {}
            Err(e) => {
                if let Err(message) =
                    handle_error(&e, &mut conn, &mut session, setup, &mut stats, measuring)
                {
                    stats.failure = Some(message);
                    control.fatal.store(true, Ordering::SeqCst);
                    break;
                }
            }
        }
    }
    stats
}

/// Handles a failed event: retryable errors are rolled back and counted, a lost
/// connection is re-opened and counted, anything else ends the worker.
fn handle_error(
    error: &mysql::Error,
    conn: &mut mysql::Conn,
    session: &mut OltpSession,
    setup: WorkerSetup<'_>,
    stats: &mut WorkerStats,
    measuring: bool,
) -> Result<(), String> {
    let code = error_code(error);
    if measuring {
        *stats.errors.entry(code).or_default() += 1;
    }
    if RETRYABLE.contains(&code) {
        if session.uses_transactions() {
            conn.query_drop("ROLLBACK")
                .map_err(|e| format!("ROLLBACK after error {code} failed: {e}"))?;
        }
        return Ok(());
    }
    if CONNECTION_LOST.contains(&code) {
        let fresh = setup.connect.connect().and_then(|mut c| {
            OltpSession::prepare(
                &mut c,
                setup.workload,
                WorkloadRng::seeded(setup.seed ^ stats.reconnects),
            )
            .map(|s| (c, s))
        });
        return match fresh {
            Ok((c, s)) => {
                *conn = c;
                *session = s;
                if measuring {
                    stats.reconnects += 1;
                }
                Ok(())
            }
            Err(e) => Err(format!(
                "connection lost ([{code}] {error}) and reconnect failed: [{}] {e}",
                error_code(&e)
            )),
        };
    }
    Err(format!("[{code}] {error}"))
}
