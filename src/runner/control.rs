//! State shared by the coordinator and the workers of one round: the phase, the start
//! gate, and per-worker live counters. Each worker writes only its own cache-padded
//! counters (a plain load and store, no lock and no contended atomic), and the
//! coordinator reads them for `--report-interval` lines.

use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Duration;

use crossbeam_utils::CachePadded;
use hdrhistogram::Histogram;

use crate::histogram;

/// Workers are connecting; nothing runs yet.
pub(crate) const CONNECTING: u8 = 0;
/// Warm-up: events run but are not counted.
pub(crate) const WARMUP: u8 = 1;
/// Measured period: completed events are counted.
pub(crate) const MEASURE: u8 = 2;
/// Stop after the current event.
pub(crate) const STOP: u8 = 3;

/// Counters a worker publishes while it runs.
#[derive(Debug, Default)]
pub(crate) struct LiveCounters {
    /// Completed events.
    pub(crate) events: AtomicU64,
    /// Reads.
    pub(crate) reads: AtomicU64,
    /// Writes.
    pub(crate) writes: AtomicU64,
    /// Other statements.
    pub(crate) other: AtomicU64,
    /// Errors.
    pub(crate) errors: AtomicU64,
    /// Reconnects.
    pub(crate) reconnects: AtomicU64,
    /// Latencies of the current interval (µs), kept only with `--report-interval`.
    pub(crate) interval: Option<Mutex<Histogram<u32>>>,
}

impl LiveCounters {
    fn new(with_interval: bool) -> LiveCounters {
        LiveCounters {
            interval: with_interval.then(|| Mutex::new(histogram::worker(2))),
            ..LiveCounters::default()
        }
    }

    /// Adds to a counter owned by this worker alone: a plain load and store.
    pub(crate) fn bump(counter: &AtomicU64, by: u64) {
        counter.store(counter.load(Ordering::Relaxed) + by, Ordering::Relaxed);
    }
}

/// The round's shared state.
#[derive(Debug)]
pub(crate) struct RoundControl {
    /// Current phase.
    pub(crate) phase: AtomicU8,
    /// Set when a worker hit an error that ends the round.
    pub(crate) fatal: AtomicBool,
    /// One entry per worker.
    pub(crate) live: Vec<CachePadded<LiveCounters>>,
    arrivals: Mutex<Arrivals>,
    /// Signalled when a worker arrives (the coordinator waits on it).
    arrived: Condvar,
    /// Signalled when the phase moves on (the arrived workers wait on it).
    phase_changed: Condvar,
    connecting: Mutex<u32>,
    connect_slot_free: Condvar,
}

/// Connections opened at the same time; more would overflow the server's listen backlog
/// and turn the start of a 1024-connection round into a storm of retries.
const PARALLEL_CONNECTS: u32 = 32;

/// A held slot of the connect limit; released when dropped.
pub(crate) struct ConnectSlot<'a>(&'a RoundControl);

impl Drop for ConnectSlot<'_> {
    fn drop(&mut self) {
        let mut connecting = self.0.connecting.lock().unwrap_or_else(|e| e.into_inner());
        *connecting -= 1;
        self.0.connect_slot_free.notify_one();
    }
}

#[derive(Debug, Default)]
struct Arrivals {
    connected: usize,
    failed: usize,
}

impl RoundControl {
    /// Control for `workers` workers; `with_interval` keeps per-interval histograms.
    pub(crate) fn new(workers: usize, with_interval: bool) -> RoundControl {
        RoundControl {
            phase: AtomicU8::new(CONNECTING),
            fatal: AtomicBool::new(false),
            live: (0..workers)
                .map(|_| CachePadded::new(LiveCounters::new(with_interval)))
                .collect(),
            arrivals: Mutex::new(Arrivals::default()),
            arrived: Condvar::new(),
            phase_changed: Condvar::new(),
            connecting: Mutex::new(0),
            connect_slot_free: Condvar::new(),
        }
    }

    /// Waits for one of the parallel-connect slots.
    pub(crate) fn connect_slot(&self) -> ConnectSlot<'_> {
        let mut connecting = self.connecting.lock().unwrap_or_else(|e| e.into_inner());
        while *connecting >= PARALLEL_CONNECTS {
            connecting = self
                .connect_slot_free
                .wait(connecting)
                .unwrap_or_else(|e| e.into_inner());
        }
        *connecting += 1;
        ConnectSlot(self)
    }

    /// A worker reports that its connection is ready (or failed), then waits for the
    /// start. Never blocks forever: the coordinator always moves the phase on.
    pub(crate) fn arrive_and_wait(&self, connected: bool) {
        let mut arrivals = self.arrivals.lock().unwrap_or_else(|e| e.into_inner());
        if connected {
            arrivals.connected += 1;
        } else {
            arrivals.failed += 1;
        }
        // Only the coordinator waits for arrivals: waking the waiting workers at every
        // arrival would cost n² wake-ups at a thousand connections.
        self.arrived.notify_all();
        while self.phase.load(Ordering::SeqCst) == CONNECTING {
            arrivals = self
                .phase_changed
                .wait(arrivals)
                .unwrap_or_else(|e| e.into_inner());
        }
    }

    /// A worker that cannot go on (its thread panicked) counts as arrived and failed, and
    /// stops the round, so the coordinator never waits for it.
    pub(crate) fn abandon(&self) {
        let mut arrivals = self.arrivals.lock().unwrap_or_else(|e| e.into_inner());
        arrivals.failed += 1;
        self.fatal.store(true, Ordering::SeqCst);
        self.arrived.notify_all();
    }

    /// The coordinator waits until `workers` have arrived or `stop()` says to give up.
    /// Returns the number that failed to connect.
    pub(crate) fn wait_arrivals(&self, workers: usize, stop: impl Fn() -> bool) -> usize {
        let mut arrivals = self.arrivals.lock().unwrap_or_else(|e| e.into_inner());
        while arrivals.connected + arrivals.failed < workers && !stop() {
            arrivals = self
                .arrived
                .wait_timeout(arrivals, Duration::from_millis(50))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        arrivals.failed
    }

    /// Moves every worker to `phase` and wakes those waiting at the start.
    pub(crate) fn set_phase(&self, phase: u8) {
        let _guard = self.arrivals.lock().unwrap_or_else(|e| e.into_inner());
        self.phase.store(phase, Ordering::SeqCst);
        self.phase_changed.notify_all();
    }

    /// Whether workers should keep running events.
    pub(crate) fn running(&self) -> bool {
        self.phase.load(Ordering::Relaxed) != STOP
    }

    /// Whether events completing now are counted.
    pub(crate) fn measuring(&self) -> bool {
        self.phase.load(Ordering::Relaxed) == MEASURE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_abandoned_worker_never_leaves_the_coordinator_waiting() {
        let control = RoundControl::new(3, false);
        std::thread::scope(|scope| {
            scope.spawn(|| control.arrive_and_wait(true));
            scope.spawn(|| control.arrive_and_wait(true));
            // The third worker's thread panicked before it could arrive.
            scope.spawn(|| control.abandon());
            let failed = control.wait_arrivals(3, || false);
            assert_eq!(failed, 1);
            assert!(control.fatal.load(Ordering::SeqCst));
            control.set_phase(STOP);
        });
    }
}
