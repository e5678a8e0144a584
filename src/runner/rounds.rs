//! The loop over the schedule's rounds: hooks around each round, the results saved after
//! every one, and — with `--on-server-loss retry` — a managed server that died restarted
//! and its lost round run again.

use anyhow::Context;

use super::progress::Progress;
use super::round::{RoundSpec, run_round};
use super::{hooks, interrupt};
use crate::exit::Interrupted;
use crate::plan::Plan;
use crate::results::{ResultsFile, RoundRecord, RoundStatus};
use crate::schedule::Slot;
use crate::server::OnServerLoss;
use crate::server::probe::ServerProbe;
use crate::target::Target;
use crate::workload::random::UniqueSequence;

/// Restarts of lost managed servers allowed in one run.
const MAX_RESTARTS: u32 = 3;

/// Runs every round of the schedule that `results` does not hold yet; `save` is called
/// after every round.
pub(crate) fn run_rounds(
    plan: &Plan,
    targets: &mut [Target; 2],
    results: &mut ResultsFile,
    save: &mut dyn FnMut(&ResultsFile) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let slots = plan.schedule.slots(plan.seed);
    let total = slots.len();
    let unique = std::sync::Arc::new(UniqueSequence::new(plan.seed));
    let progress = Progress::new(plan.schedule.estimated_time());
    let done: Vec<u32> = results.rounds.iter().map(|r| r.position).collect();
    let mut restarts = 0;
    let mut outcome = Ok(());
    for slot in slots.into_iter().filter(|s| !done.contains(&s.position)) {
        outcome = loop {
            if interrupt::requested() {
                break Err(Interrupted.into());
            }
            let record =
                match run_slot(plan, &targets[slot.side as usize], slot, &unique, &progress) {
                    Ok(record) => record,
                    Err(e) => break Err(e),
                };
            progress.line(&round_line(&record, total, plan.schedule.rounds));
            let (status, reason) = (record.status, record.reason.clone().unwrap_or_default());
            results.rounds.push(record);
            save(results)?;
            match status {
                RoundStatus::Completed => {
                    break finish_slot(plan, &targets[slot.side as usize], slot);
                }
                RoundStatus::Interrupted => break Err(Interrupted.into()),
                RoundStatus::Failed
                    if restarts < MAX_RESTARTS
                        && server_lost(plan, &targets[slot.side as usize]) =>
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
                    if let Err(e) = restart(plan, targets, slot) {
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

fn run_slot(
    plan: &Plan,
    target: &Target,
    slot: Slot,
    unique: &std::sync::Arc<UniqueSequence>,
    progress: &Progress,
) -> anyhow::Result<RoundRecord> {
    let hooks = &plan.side(slot.side).hooks;
    hooks::run(
        &target.admin,
        slot.side,
        "before_round",
        &hooks.before_round,
    )?;
    let spec = RoundSpec {
        slot,
        connect: &target.client,
        workload: &plan.workload,
        client: &plan.client,
        unique: std::sync::Arc::clone(unique),
        warmup: plan.schedule.warmup,
        duration: plan.schedule.round_time,
        seed: plan.seed ^ (u64::from(slot.position) << 40),
        label: format!(
            "{} round {}/{} threads {}",
            slot.side,
            slot.index + 1,
            plan.schedule.rounds,
            slot.threads
        ),
        progress,
    };
    let mut probe = ServerProbe::open(&target.admin, target.server.as_ref().and_then(|s| s.pid()));
    Ok(run_round(&spec, interrupt::flag(), &mut probe))
}

fn finish_slot(plan: &Plan, target: &Target, slot: Slot) -> anyhow::Result<()> {
    hooks::run(
        &target.admin,
        slot.side,
        "after_round",
        &plan.side(slot.side).hooks.after_round,
    )?;
    pause(plan);
    Ok(())
}

/// Whether `--on-server-loss retry` applies: a managed server whose process is gone.
fn server_lost(plan: &Plan, target: &Target) -> bool {
    plan.client.on_server_loss == OnServerLoss::Retry
        && target.server.as_ref().is_some_and(|s| !s.is_alive())
}

/// Replaces a lost managed server with a fresh one: same options, data prepared again,
/// setup hooks run again.
fn restart(plan: &Plan, targets: &mut [Target; 2], slot: Slot) -> anyhow::Result<()> {
    let index = slot.side as usize;
    let side_plan = plan.side(slot.side);
    targets[index].server = None;
    let mut target = crate::target::open_one(side_plan, plan.max_threads())
        .with_context(|| format!("{}: restarting the lost server", slot.side))?;
    target.client.io_timeout = plan.client.query_timeout;
    target.admin.io_timeout = plan.client.query_timeout;
    targets[index] = target;
    super::experiment::prepare_data(plan, targets)?;
    hooks::run(
        &targets[index].admin,
        slot.side,
        "setup",
        &side_plan.hooks.setup,
    )?;
    Ok(())
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
