//! The loop over the schedule's rounds: hooks around each round, the results saved after
//! every one, and — with `--on-server-loss retry` — a managed server that died restarted
//! and its lost round run again.

use std::sync::atomic::{AtomicBool, Ordering};

use super::backend::{Backend, HookPoint};
use super::progress::Progress;
use crate::exit::Interrupted;
use crate::plan::Plan;
use crate::results::{ResultsFile, RoundRecord, RoundStatus};
use crate::schedule::Slot;
use crate::server::OnServerLoss;

/// Restarts of lost managed servers allowed in one run.
const MAX_RESTARTS: u32 = 3;

/// Runs every round of the schedule that `results` does not hold yet; `save` is called
/// after every round. Setting `stop` (the signal handler does, tests may) ends the run
/// as interrupted: between rounds, during a pause, or — through the backend — in a round.
pub(crate) fn run_rounds(
    plan: &Plan,
    backend: &mut dyn Backend,
    results: &mut ResultsFile,
    save: &mut dyn FnMut(&ResultsFile) -> anyhow::Result<()>,
    stop: &AtomicBool,
) -> anyhow::Result<()> {
    let progress = Progress::new(plan.schedule.estimated_time());
    run_rounds_with(plan, backend, results, save, progress, stop)
}

/// [`run_rounds`] with its progress display given.
pub(crate) fn run_rounds_with(
    plan: &Plan,
    backend: &mut dyn Backend,
    results: &mut ResultsFile,
    save: &mut dyn FnMut(&ResultsFile) -> anyhow::Result<()>,
    progress: Progress,
    stop: &AtomicBool,
) -> anyhow::Result<()> {
    let slots = plan.schedule.slots(plan.seed);
    let done: Vec<u32> = results.record.rounds.iter().map(|r| r.position).collect();
    let mut run = RoundLoop {
        plan,
        backend,
        results,
        save,
        progress,
        total: slots.len(),
        restarts: 0,
        started: std::time::Instant::now(),
        instance: None,
        stop,
    };
    let mut outcome = Ok(());
    for slot in slots.into_iter().filter(|s| !done.contains(&s.position)) {
        outcome = run.slot(slot);
        if outcome.is_err() || run.results.record.stopped.is_some() {
            break;
        }
    }
    if let Some(reason) = &run.results.record.stopped {
        run.progress.note(format_args!("stopped: {reason}"));
    }
    run.progress.finish();
    outcome
}

/// The state of the loop over the rounds.
struct RoundLoop<'a> {
    plan: &'a Plan,
    backend: &'a mut dyn Backend,
    results: &'a mut ResultsFile,
    save: &'a mut dyn FnMut(&ResultsFile) -> anyhow::Result<()>,
    progress: Progress,
    total: usize,
    restarts: u32,
    started: std::time::Instant,
    /// The server instance block the last slot ran in.
    instance: Option<u32>,
    /// Set to stop the run.
    stop: &'a AtomicBool,
}

impl RoundLoop<'_> {
    /// Before the first slot of a new instance block, both sides move to fresh servers.
    fn enter_instance(&mut self, slot: Slot) -> anyhow::Result<Option<u32>> {
        let schedule = &self.plan.schedule;
        if schedule.instances < 2 {
            return Ok(None);
        }
        let instance = schedule.instance_of(slot.index);
        if self.instance.is_some_and(|last| last != instance) {
            let started = std::time::Instant::now();
            self.backend.new_instance()?;
            let took = started.elapsed().as_secs_f64();
            self.results.record.instance_switches_s.push(took);
            self.progress.note(format_args!(
                "instance {}/{}: both sides on fresh servers from the prepared data ({took:.1} s)",
                instance + 1,
                schedule.instances
            ));
        }
        self.instance = Some(instance);
        Ok(Some(instance))
    }

    /// With `--swap`, the sides move to each other's servers halfway through a level,
    /// and back at the next level's start.
    fn swap_if_due(&mut self, slot: Slot) -> anyhow::Result<()> {
        let due = self.plan.schedule.swapped_at(slot.index);
        if due != self.backend.swapped() {
            let warnings = self.backend.swap_servers(due)?;
            for warning in &warnings {
                self.progress.warning(warning);
            }
            self.results.record.warnings.extend(warnings);
            self.progress.note(if due {
                "swap: each side's settings moved to the other server"
            } else {
                "swap: each side's settings back on its own server"
            });
        }
        Ok(())
    }

    /// Runs one slot to an end: completed, or (after restarts) failed or interrupted.
    fn slot(&mut self, slot: Slot) -> anyhow::Result<()> {
        let instance = self.enter_instance(slot)?;
        self.swap_if_due(slot)?;
        loop {
            if self.stop.load(Ordering::SeqCst) {
                return Err(Interrupted::by(crate::stop::cause()).into());
            }
            self.backend.hooks(slot.side, HookPoint::BeforeRound)?;
            let record = self.backend.round(slot, instance, &self.progress)?;
            self.progress
                .note(round_line(&record, self.total, self.plan.schedule.rounds));
            let (status, reason) = (record.status, record.reason.clone().unwrap_or_default());
            self.results.record.rounds.push(record);
            if status == RoundStatus::Completed {
                super::looks::after_round(self.plan, self.results, self.started.elapsed());
            }
            (self.save)(self.results)?;
            match status {
                RoundStatus::Completed => {
                    let after = self.backend.hooks(slot.side, HookPoint::AfterRound);
                    pause(self.plan, self.stop);
                    return after;
                }
                RoundStatus::Interrupted => {
                    return Err(Interrupted::by(crate::stop::cause()).into());
                }
                RoundStatus::Failed if self.may_restart(slot) => self.restart(slot, &reason)?,
                RoundStatus::Failed => {
                    return Err(anyhow::anyhow!(
                        "{} side, {} threads, round {}: {reason}",
                        slot.side,
                        slot.threads,
                        slot.index + 1
                    ));
                }
            }
        }
    }

    /// Whether `--on-server-loss retry` applies: the side's managed server is gone and
    /// restarts are left.
    fn may_restart(&self, slot: Slot) -> bool {
        self.restarts < MAX_RESTARTS
            && self.plan.client.on_server_loss == OnServerLoss::Retry
            && self.backend.server_lost(slot.side)
    }

    /// Restarts the side's server, saying so, so that the round runs again.
    fn restart(&mut self, slot: Slot, reason: &str) -> anyhow::Result<()> {
        self.restarts += 1;
        let message = format!(
            "{} server lost in round {} at {} threads ({reason}); restarted it and ran the round again",
            slot.side,
            slot.index + 1,
            slot.threads
        );
        self.progress.warning(&message);
        self.results.record.warnings.push(message);
        self.backend.restart(slot.side)
    }
}

/// The line printed after each round.
fn round_line(record: &RoundRecord, total: usize, rounds: u32) -> String {
    format!(
        "[{}/{total}] {:<8} threads {:<4} round {}/{rounds}: {:>10.1} tps, mean {:.3} ms, p95 {:.3} ms{}",
        record.position + 1,
        record.side.as_str(),
        record.threads,
        record.index + 1,
        record.tps,
        record.latency_ms.mean,
        record.latency_ms.p95,
        record
            .reason
            .as_deref()
            .map(|r| format!(" ({r})"))
            .unwrap_or_default()
    )
}

/// The pause after a round, cut short by `stop`.
fn pause(plan: &Plan, stop: &AtomicBool) {
    let deadline = std::time::Instant::now() + plan.schedule.pause;
    while std::time::Instant::now() < deadline && !stop.load(Ordering::SeqCst) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[cfg(test)]
#[path = "round_loop_tests.rs"]
mod tests;
