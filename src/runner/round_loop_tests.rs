//! The round loop on a scripted backend: the schedule's order, hooks around each round,
//! a save after every round, and what a failed, lost or interrupted round does — all
//! without a server.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use super::{run_rounds, run_rounds_with};
use crate::exit::Interrupted;
use crate::plan::{Plan, Sequential};
use crate::results::{ResultsFile, RoundRecord, RoundStatus, RunStatus, Stage};
use crate::runner::backend::{Backend, HookPoint};
use crate::runner::experiment::{new_results, resumed};
use crate::runner::looks::final_analysis;
use crate::runner::progress::Progress;
use crate::schedule::Slot;
use crate::server::OnServerLoss;
use crate::side::Side;
use crate::stats::compare::Unit;
use crate::stats::metric::Metric;
use crate::stats::sequential::{Design, Until};
use crate::stats::verdict::Verdict;
use rand::{Rng, SeedableRng, rngs::SmallRng};

/// What the scripted backend does with one attempt at a round.
#[derive(Debug, Clone, Copy)]
enum Script {
    /// The round runs its full period.
    Completed,
    /// The round fails with this reason (its server is still there).
    Failed(&'static str),
    /// The side's managed server dies during the round.
    LostServer,
    /// Ctrl-C arrives during the round.
    Interrupted,
}

/// Draws a round's TPS and the other processes' CPU it met, for a side.
type TpsAndLoad = Box<dyn FnMut(Side) -> (f64, f64) + Send>;

/// A backend that logs every call and plays scripted outcomes, per position and attempt;
/// with a generator, each round's TPS is drawn from it.
#[derive(Default)]
struct Scripted {
    calls: Vec<String>,
    scripts: BTreeMap<u32, VecDeque<Script>>,
    lost: [bool; 2],
    tps: Option<Box<dyn FnMut(Side) -> f64 + Send>>,
    /// Each round's TPS and the other processes' CPU it met, drawn together.
    tps_and_load: Option<TpsAndLoad>,
    swapped: bool,
    /// The stop token, set after the round at this position (as Ctrl-C would be).
    stop_after: Option<(u32, Arc<AtomicBool>)>,
}

impl Scripted {
    /// Plays `scripts` at `position`, one per attempt; later attempts complete.
    fn at(mut self, position: u32, scripts: &[Script]) -> Scripted {
        self.scripts
            .insert(position, scripts.iter().copied().collect());
        self
    }

    fn rounds_run(&self) -> Vec<&str> {
        self.calls
            .iter()
            .filter_map(|c| c.strip_prefix("round "))
            .collect()
    }
}

impl Backend for Scripted {
    fn hooks(&mut self, side: Side, point: HookPoint) -> anyhow::Result<()> {
        let server = match (self.swapped, side) {
            (false, side) => side,
            (true, Side::Baseline) => Side::Variant,
            (true, Side::Variant) => Side::Baseline,
        };
        let on = if server == side {
            String::new()
        } else {
            format!(" on {server}'s server")
        };
        self.calls.push(format!("{} {side}{on}", point.as_str()));
        Ok(())
    }

    fn round(
        &mut self,
        slot: Slot,
        instance: Option<u32>,
        _progress: &Progress,
    ) -> anyhow::Result<RoundRecord> {
        self.calls.push(format!(
            "round {} {} {}#{}",
            slot.position, slot.side, slot.threads, slot.index
        ));
        let script = self
            .scripts
            .get_mut(&slot.position)
            .and_then(VecDeque::pop_front)
            .unwrap_or(Script::Completed);
        if let Some((_, stop)) = self
            .stop_after
            .as_ref()
            .filter(|(at, _)| *at == slot.position)
        {
            stop.store(true, Ordering::SeqCst);
        }
        let swapped = self.swapped;
        let mut record = |status, reason| {
            let mut r = record(slot, status, reason);
            r.instance = instance;
            r.swapped = swapped;
            if let Some(draw) = self.tps.as_mut() {
                r.tps = draw(slot.side);
                r.qps = r.tps;
            }
            if let Some(draw) = self.tps_and_load.as_mut() {
                let (tps, load) = draw(slot.side);
                r.tps = tps;
                r.qps = tps;
                r.host_load = Some(crate::results::HostLoad {
                    steal_pct: None,
                    runnable: None,
                    other_cpu_pct: Some(load),
                });
            }
            r
        };
        Ok(match script {
            Script::Completed => record(RoundStatus::Completed, None),
            Script::Failed(reason) => record(RoundStatus::Failed, Some(reason)),
            Script::LostServer => {
                let r = record(RoundStatus::Failed, Some("Lost connection to server"));
                self.lost[slot.side as usize] = true;
                r
            }
            Script::Interrupted => record(RoundStatus::Interrupted, Some("interrupted")),
        })
    }

    fn server_lost(&self, side: Side) -> bool {
        self.lost[side as usize]
    }

    fn new_instance(&mut self) -> anyhow::Result<()> {
        self.calls.push("new instance".to_string());
        Ok(())
    }

    fn swap_servers(&mut self, swapped: bool) -> anyhow::Result<Vec<String>> {
        self.calls.push(format!("swap {swapped}"));
        self.swapped = swapped;
        Ok(Vec::new())
    }

    fn swapped(&self) -> bool {
        self.swapped
    }

    fn restart(&mut self, side: Side) -> anyhow::Result<()> {
        self.calls.push(format!("restart {side}"));
        self.lost[side as usize] = false;
        Ok(())
    }
}

fn record(slot: Slot, status: RoundStatus, reason: Option<&str>) -> RoundRecord {
    RoundRecord {
        position: slot.position,
        status,
        reason: reason.map(String::from),
        tps: 100.0 + f64::from(slot.position),
        ..RoundRecord::example(slot.side, slot.threads, slot.index)
    }
}

/// A plan of `rounds` rounds per side at `levels`, in ABBA order, against two external
/// servers nobody connects to.
fn plan(rounds: u32, levels: &[u32], on_server_loss: OnServerLoss) -> Plan {
    let mut plan = crate::plan::example::external(rounds, levels);
    plan.client.on_server_loss = on_server_loss;
    plan
}

/// Runs the loop; returns the outcome, the results and how many rounds each save held.
fn run(
    plan: &Plan,
    backend: &mut Scripted,
    results: &mut ResultsFile,
) -> (anyhow::Result<()>, Vec<usize>) {
    let mut saves = Vec::new();
    let stop = AtomicBool::new(false);
    let outcome = run_rounds(
        plan,
        backend,
        results,
        &mut |r| {
            saves.push(r.record.rounds.len());
            Ok(())
        },
        &stop,
    );
    (outcome, saves)
}

/// A scripted backend that sets `stop` after the round at `position`.
fn stopping_after(position: u32, stop: &Arc<AtomicBool>) -> Scripted {
    Scripted {
        stop_after: Some((position, Arc::clone(stop))),
        ..Scripted::default()
    }
}

#[test]
fn a_stop_between_rounds_ends_the_run_as_interrupted_with_the_rounds_kept() {
    let plan = plan(2, &[8], OnServerLoss::Fail);
    let stop = Arc::new(AtomicBool::new(false));
    let mut backend = stopping_after(1, &stop);
    let mut results = new_results(&plan);
    let outcome = run_rounds(&plan, &mut backend, &mut results, &mut |_| Ok(()), &stop);
    assert!(outcome.unwrap_err().is::<Interrupted>());
    assert_eq!(backend.rounds_run(), ["0 baseline 8#0", "1 variant 8#0"]);
    assert_eq!(
        results.record.rounds.len(),
        2,
        "the finished rounds are kept"
    );
    assert_eq!(
        backend.calls.last().map(String::as_str),
        Some("after_round variant"),
        "no hook of a round that never started"
    );
}

#[test]
fn a_stop_during_the_pause_ends_it_at_once() {
    let mut plan = plan(2, &[8], OnServerLoss::Fail);
    plan.schedule.pause = std::time::Duration::from_secs(3600);
    let stop = Arc::new(AtomicBool::new(false));
    let mut backend = stopping_after(0, &stop);
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut results = new_results(&plan);
        let outcome = run_rounds(&plan, &mut backend, &mut results, &mut |_| Ok(()), &stop);
        let _ = done.send((outcome.is_err(), results.record.rounds.len()));
    });
    // The pause is an hour; a loop that did not watch the token would still be in it.
    let (interrupted, rounds) = finished
        .recv_timeout(std::time::Duration::from_secs(120))
        .expect("the pause ended when the stop was set");
    assert!(interrupted);
    assert_eq!(rounds, 1);
}

#[test]
fn a_swap_moves_the_sides_halfway_through_a_level_and_back_at_the_next() {
    let mut plan = plan(4, &[8, 16], OnServerLoss::Fail);
    plan.schedule.swap = true;
    let mut backend = Scripted::default();
    let mut results = new_results(&plan);
    let (outcome, _) = run(&plan, &mut backend, &mut results);
    outcome.unwrap();
    let swaps: Vec<&str> = backend
        .calls
        .iter()
        .filter(|c| c.starts_with("swap"))
        .map(String::as_str)
        .collect();
    assert_eq!(swaps, ["swap true", "swap false", "swap true"]);
    let first_swap = backend.calls.iter().position(|c| c == "swap true").unwrap();
    assert_eq!(
        backend.calls[first_swap + 1],
        "before_round baseline on variant's server",
        "the hooks follow the side to the other server"
    );
    for record in &results.record.rounds {
        assert_eq!(
            record.swapped,
            record.index >= 2,
            "round {} of {} at {}",
            record.index,
            record.side,
            record.threads
        );
    }
}

#[test]
fn rounds_run_in_abba_order_with_hooks_around_each_and_a_save_after_each() {
    let plan = plan(2, &[8, 16], OnServerLoss::Fail);
    let mut backend = Scripted::default();
    let mut results = new_results(&plan);
    let (outcome, saves) = run(&plan, &mut backend, &mut results);
    outcome.unwrap();
    assert_eq!(
        backend.rounds_run(),
        [
            "0 baseline 8#0",
            "1 variant 8#0",
            "2 variant 8#1",
            "3 baseline 8#1",
            "4 baseline 16#0",
            "5 variant 16#0",
            "6 variant 16#1",
            "7 baseline 16#1",
        ]
    );
    assert_eq!(
        &backend.calls[..3],
        [
            "before_round baseline",
            "round 0 baseline 8#0",
            "after_round baseline"
        ]
    );
    assert_eq!(
        saves,
        (1..=8).collect::<Vec<_>>(),
        "saved after every round"
    );
    assert!(
        results
            .record
            .rounds
            .iter()
            .all(|r| r.status == RoundStatus::Completed)
    );
}

#[test]
fn a_failed_round_stops_the_run_naming_the_side_and_the_round() {
    let plan = plan(2, &[8], OnServerLoss::Retry);
    let mut backend = Scripted::default().at(1, &[Script::Failed("cannot connect: refused")]);
    let mut results = new_results(&plan);
    let (outcome, saves) = run(&plan, &mut backend, &mut results);
    let error = format!("{:#}", outcome.unwrap_err());
    assert_eq!(
        error,
        "variant side, 8 threads, round 1: cannot connect: refused"
    );
    assert_eq!(
        backend.rounds_run().len(),
        2,
        "nothing runs after the failure"
    );
    assert_eq!(saves, [1, 2], "the failed round is saved too");
    assert_eq!(results.record.rounds[1].status, RoundStatus::Failed);
    assert!(!backend.calls.contains(&"after_round variant".to_string()));
    assert!(
        !backend.calls.iter().any(|c| c.starts_with("restart")),
        "a live server is not restarted"
    );
}

#[test]
fn a_lost_server_stops_the_run_unless_retry_is_asked() {
    let plan_fail = plan(2, &[8], OnServerLoss::Fail);
    let mut backend = Scripted::default().at(2, &[Script::LostServer]);
    let mut results = new_results(&plan_fail);
    let (outcome, _) = run(&plan_fail, &mut backend, &mut results);
    assert!(format!("{:#}", outcome.unwrap_err()).contains("Lost connection to server"));
    assert!(!backend.calls.iter().any(|c| c.starts_with("restart")));

    let plan_retry = plan(2, &[8], OnServerLoss::Retry);
    let mut backend = Scripted::default().at(2, &[Script::LostServer]);
    let mut results = new_results(&plan_retry);
    let (outcome, saves) = run(&plan_retry, &mut backend, &mut results);
    outcome.unwrap();
    assert_eq!(
        backend.rounds_run(),
        [
            "0 baseline 8#0",
            "1 variant 8#0",
            "2 variant 8#1",
            "2 variant 8#1",
            "3 baseline 8#1"
        ]
    );
    let restart = backend
        .calls
        .iter()
        .position(|c| c == "restart variant")
        .unwrap();
    assert_eq!(
        backend.calls[restart + 1],
        "before_round variant",
        "then the round again"
    );
    let statuses: Vec<RoundStatus> = results.record.rounds.iter().map(|r| r.status).collect();
    assert_eq!(
        statuses,
        [
            RoundStatus::Completed,
            RoundStatus::Completed,
            RoundStatus::Failed,
            RoundStatus::Completed,
            RoundStatus::Completed
        ],
        "the lost round is kept, marked failed"
    );
    assert_eq!(saves.len(), 5);
    assert!(
        results
            .record
            .warnings
            .iter()
            .any(|w| w.contains("variant server lost in round 2"))
    );
}

#[test]
fn retry_gives_up_after_three_restarts() {
    let plan = plan(2, &[8], OnServerLoss::Retry);
    let mut backend = Scripted::default().at(1, &[Script::LostServer; 4]);
    let mut results = new_results(&plan);
    let (outcome, _) = run(&plan, &mut backend, &mut results);
    assert!(outcome.is_err());
    let restarts = backend
        .calls
        .iter()
        .filter(|c| c.starts_with("restart"))
        .count();
    assert_eq!(restarts, 3);
}

#[test]
fn ctrl_c_mid_round_stops_the_run_and_keeps_what_ran() {
    let plan = plan(2, &[8], OnServerLoss::Fail);
    let mut backend = Scripted::default().at(2, &[Script::Interrupted]);
    let mut results = new_results(&plan);
    let (outcome, saves) = run(&plan, &mut backend, &mut results);
    assert!(outcome.unwrap_err().is::<Interrupted>());
    assert_eq!(backend.rounds_run().len(), 3);
    assert_eq!(saves, [1, 2, 3]);
    assert_eq!(results.record.rounds[2].status, RoundStatus::Interrupted);
}

#[test]
fn a_resumed_run_continues_from_the_interrupted_round_and_runs_each_round_once() {
    let plan = plan(3, &[8], OnServerLoss::Fail);
    let mut first = Scripted::default().at(3, &[Script::Interrupted]);
    let mut results = new_results(&plan);
    let (outcome, _) = run(&plan, &mut first, &mut results);
    assert!(outcome.unwrap_err().is::<Interrupted>());

    let mut results = resumed(results);
    let mut second = Scripted::default();
    let (outcome, saves) = run(&plan, &mut second, &mut results);
    outcome.unwrap();
    assert_eq!(
        second.rounds_run(),
        ["3 baseline 8#1", "4 baseline 8#2", "5 variant 8#2"]
    );
    assert_eq!(saves, [4, 5, 6]);
    let mut positions: Vec<u32> = results.record.rounds.iter().map(|r| r.position).collect();
    positions.sort_unstable();
    assert_eq!(positions, [0, 1, 2, 3, 4, 5]);
    assert!(
        results
            .record
            .rounds
            .iter()
            .all(|r| r.status == RoundStatus::Completed)
    );
    assert!(
        results
            .record
            .warnings
            .iter()
            .any(|w| w.contains("1 unfinished round(s) run again"))
    );
}

#[path = "simulation_tests.rs"]
mod simulation;

#[test]
fn instances_restart_both_sides_between_blocks_and_the_analysis_uses_instance_means() {
    let mut plan = plan(6, &[8, 16], OnServerLoss::Fail);
    plan.schedule.instances = 3;
    // Each instance has its own speed (12 rounds per level, 4 per instance), the
    // rounds inside it vary by ±1 TPS only.
    let mut calls = 0usize;
    let mut rng = SmallRng::seed_from_u64(19);
    let mut backend = Scripted {
        tps: Some(Box::new(move |side| {
            let level = [1000.0, 1100.0, 950.0][(calls % 12) / 4];
            calls += 1;
            level + if side == Side::Variant { 5.0 } else { 0.0 } + rng.random_range(-1.0..1.0)
        })),
        ..Scripted::default()
    };
    let mut results = new_results(&plan);
    let outcome = run_rounds(
        &plan,
        &mut backend,
        &mut results,
        &mut |_| Ok(()),
        &AtomicBool::new(false),
    );
    outcome.unwrap();
    // Two blocks of 2 pairs after the first at each level, and one move to the next level.
    let moves: Vec<usize> = backend
        .calls
        .iter()
        .enumerate()
        .filter(|(_, c)| *c == "new instance")
        .map(|(i, _)| i)
        .collect();
    assert_eq!(moves.len(), 5, "{:?}", backend.calls);
    let instances: Vec<Option<u32>> = results.record.rounds.iter().map(|r| r.instance).collect();
    assert_eq!(
        &instances[..12],
        &[0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2].map(Some)
    );
    assert_eq!(results.record.instance_switches_s.len(), 5);
    // A new instance comes between the last round of one block and the first of the next.
    let first_of_block = backend
        .calls
        .iter()
        .position(|c| c.starts_with("round 4 "))
        .unwrap();
    assert_eq!(backend.calls[first_of_block - 2], "new instance");
    results.judgement = crate::results::judge(
        &results.record,
        &final_analysis(&plan, &results.record),
        Stage::AsItStands,
    );
    let noise = results.judgement.noise.as_ref().unwrap();
    assert_eq!(noise.instances.len(), 4, "both sides at both levels");
    for v in &noise.instances {
        assert_eq!(v.tps.instances, 3);
        assert!(v.between_cv_pct > 3.0 && v.within_cv_pct < 0.2, "{v:?}");
    }
    // Judged on three instance means per side, the +0.5 % of the variant is well
    // inside the instances' spread.
    let tps = results
        .judgement
        .comparisons
        .iter()
        .find(|c| c.metric == Metric::Tps)
        .unwrap();
    assert!(!tps.significant, "{tps:?}");
    // Three values per side, counted as what they are.
    assert_eq!((tps.baseline.n, tps.unit), (3, Unit::Instance));
    let warnings = &results.judgement.analysis_warnings;
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("baseline TPS at 8 threads: only 3 instances")),
        "{warnings:?}"
    );
    assert!(
        !warnings.iter().any(|w| w.contains("only 3 rounds")),
        "{warnings:?}"
    );
}
