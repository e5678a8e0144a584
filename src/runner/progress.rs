//! `--report-interval` lines on stderr, carrying what sysbench's do — threads, tps, qps,
//! reads/writes/other, the 95th percentile latency, errors and reconnects per second —
//! with the side and round in front.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::control::RoundControl;
use crate::{histogram, terminal};

/// Prints one line per interval from the workers' live counters.
#[derive(Debug)]
pub(crate) struct IntervalReporter {
    label: String,
    threads: usize,
    interval: Duration,
    started: Instant,
    next: Instant,
    previous: [u64; 6],
}

impl IntervalReporter {
    /// A reporter whose lines start with `label`, such as `baseline round 3/10`.
    pub(crate) fn new(label: String, threads: usize, interval: Duration) -> IntervalReporter {
        let now = Instant::now();
        IntervalReporter {
            label,
            threads,
            interval,
            started: now,
            next: now + interval,
            previous: [0; 6],
        }
    }

    /// When the next line is due.
    pub(crate) fn due(&self) -> Instant {
        self.next
    }

    /// Prints a line if one is due.
    pub(crate) fn tick(&mut self, control: &RoundControl) {
        let now = Instant::now();
        if now < self.next {
            return;
        }
        let elapsed = self.interval.as_secs_f64();
        self.next += self.interval;
        let totals = totals(control);
        let delta: Vec<f64> = totals
            .iter()
            .zip(self.previous)
            .map(|(t, p)| (t - p) as f64 / elapsed)
            .collect();
        self.previous = totals;
        let p95 = interval_p95(control);
        let phase = if control.measuring() { "" } else { " warm-up" };
        terminal::line(format_args!(
            "[{}{phase}] [ {:.1}s ] thds: {} tps: {:.2} qps: {:.2} (r/w/o: {:.2}/{:.2}/{:.2}) lat (ms,95%): {:.2} err/s: {:.2} reconn/s: {:.2}",
            self.label,
            (now - self.started).as_secs_f64(),
            self.threads,
            delta[0],
            delta[1] + delta[2] + delta[3],
            delta[1],
            delta[2],
            delta[3],
            p95,
            delta[4],
            delta[5],
        ));
    }
}

pub(super) fn totals(control: &RoundControl) -> [u64; 6] {
    let mut sums = [0u64; 6];
    for live in &control.live {
        let values = [
            &live.events,
            &live.reads,
            &live.writes,
            &live.other,
            &live.errors,
            &live.reconnects,
        ];
        for (sum, value) in sums.iter_mut().zip(values) {
            *sum += value.load(Ordering::Relaxed);
        }
    }
    sums
}

/// The 95th percentile of the interval's latencies in ms; resets the interval histograms.
fn interval_p95(control: &RoundControl) -> f64 {
    let mut merged = histogram::merged(2);
    for live in &control.live {
        if let Some(interval) = &live.interval {
            let mut worker = interval.lock().unwrap_or_else(|e| e.into_inner());
            histogram::merge_into(&mut merged, &worker);
            worker.reset();
        }
    }
    if merged.is_empty() {
        0.0
    } else {
        merged.value_at_quantile(0.95) as f64 / 1000.0
    }
}

/// The live progress bar on stderr: round k of N, side, threads, live TPS and the ETA of
/// the whole experiment. Hidden when stderr is not a terminal or with `--quiet`;
/// per-round lines and `--report-interval` lines take over there.
#[derive(Debug)]
pub(crate) struct Progress {
    bar: terminal::Bar,
    silent: bool,
    started: Instant,
    last: std::sync::Mutex<(Instant, u64)>,
}

impl Progress {
    /// A bar for an experiment expected to take `total`.
    pub(crate) fn new(total: Duration) -> Progress {
        let bar = terminal::Bar::new(
            total.as_millis().max(1) as u64,
            "{bar:30} {msg} [{elapsed_precise}, ETA {eta}]",
        );
        Progress {
            bar,
            silent: false,
            started: Instant::now(),
            last: std::sync::Mutex::new((Instant::now(), 0)),
        }
    }

    /// A display that shows nothing (for simulations of many runs).
    #[cfg(test)]
    pub(crate) fn silent() -> Progress {
        Progress {
            bar: terminal::Bar::hidden(),
            silent: true,
            started: Instant::now(),
            last: std::sync::Mutex::new((Instant::now(), 0)),
        }
    }

    /// A line of how the run goes, `abtest: {text}` (silent with `--quiet`).
    pub(crate) fn note(&self, text: impl std::fmt::Display) {
        if !self.silent {
            terminal::note(text);
        }
    }

    /// `abtest: warning: {text}`.
    pub(crate) fn warning(&self, text: impl std::fmt::Display) {
        if !self.silent {
            terminal::warning(text);
        }
    }

    /// Updates the bar with the live TPS of the running round.
    pub(crate) fn tick(&self, label: &str, control: &RoundControl) {
        if !self.bar.shown() {
            return;
        }
        let now = Instant::now();
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        if now.duration_since(last.0) < Duration::from_millis(500) {
            return;
        }
        let events = totals(control)[0];
        let tps = events.saturating_sub(last.1) as f64 / now.duration_since(last.0).as_secs_f64();
        *last = (now, events);
        self.bar.set(
            self.started.elapsed().as_millis() as u64,
            format!("{label}: {tps:.0} tps"),
        );
    }

    /// Resets the live rate at the start of a round.
    pub(crate) fn start_round(&self) {
        *self.last.lock().unwrap_or_else(|e| e.into_inner()) = (Instant::now(), 0);
    }

    /// Removes the bar.
    pub(crate) fn finish(&self) {
        self.bar.finish();
    }
}
