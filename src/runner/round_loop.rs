//! The loop over the schedule's rounds: hooks around each round, the results saved after
//! every one, and — with `--on-server-loss retry` — a managed server that died restarted
//! and its lost round run again.

use super::backend::{Backend, HookPoint};
use super::interrupt;
use super::progress::Progress;
use crate::exit::Interrupted;
use crate::plan::Plan;
use crate::results::{ResultsFile, RoundRecord, RoundStatus};
use crate::server::OnServerLoss;

/// Restarts of lost managed servers allowed in one run.
const MAX_RESTARTS: u32 = 3;

/// Runs every round of the schedule that `results` does not hold yet; `save` is called
/// after every round.
pub(crate) fn run_rounds(
    plan: &Plan,
    backend: &mut dyn Backend,
    results: &mut ResultsFile,
    save: &mut dyn FnMut(&ResultsFile) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let slots = plan.schedule.slots(plan.seed);
    let total = slots.len();
    let progress = Progress::new(plan.schedule.estimated_time());
    let done: Vec<u32> = results.rounds.iter().map(|r| r.position).collect();
    let mut restarts = 0;
    let mut outcome = Ok(());
    for slot in slots.into_iter().filter(|s| !done.contains(&s.position)) {
        outcome = loop {
            if interrupt::requested() {
                break Err(Interrupted.into());
            }
            let record = match backend
                .hooks(slot.side, HookPoint::BeforeRound)
                .and_then(|()| backend.round(slot, &progress))
            {
                Ok(record) => record,
                Err(e) => break Err(e),
            };
            progress.line(&round_line(&record, total, plan.schedule.rounds));
            let (status, reason) = (record.status, record.reason.clone().unwrap_or_default());
            results.rounds.push(record);
            save(results)?;
            match status {
                RoundStatus::Completed => {
                    let after = backend.hooks(slot.side, HookPoint::AfterRound);
                    pause(plan);
                    break after;
                }
                RoundStatus::Interrupted => break Err(Interrupted.into()),
                RoundStatus::Failed
                    if restarts < MAX_RESTARTS
                        && plan.client.on_server_loss == OnServerLoss::Retry
                        && backend.server_lost(slot.side) =>
                {
                    restarts += 1;
                    let message = format!(
                        "{} server lost in round {} at {} threads ({reason}); restarted it and ran the round again",
                        slot.side,
                        slot.index + 1,
                        slot.threads
                    );
                    progress.line(&format!("abtest: warning: {message}"));
                    results.warnings.push(message);
                    if let Err(e) = backend.restart(slot.side) {
                        break Err(e);
                    }
                }
                RoundStatus::Failed => {
                    break Err(anyhow::anyhow!(
                        "{} side, {} threads, round {}: {reason}",
                        slot.side,
                        slot.threads,
                        slot.index + 1
                    ));
                }
            }
        };
        if outcome.is_err() {
            break;
        }
    }
    progress.finish();
    outcome
}

/// The line printed after each round.
fn round_line(record: &RoundRecord, total: usize, rounds: u32) -> String {
    format!(
        "abtest: [{}/{total}] {:<8} threads {:<4} round {}/{rounds}: {:>10.1} tps, mean {:.3} ms, p95 {:.3} ms{}",
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

fn pause(plan: &Plan) {
    let deadline = std::time::Instant::now() + plan.schedule.pause;
    while std::time::Instant::now() < deadline && !interrupt::requested() {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[cfg(test)]
#[path = "round_loop_tests.rs"]
mod tests;
