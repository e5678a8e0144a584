//! The seam between the round loop and the servers. The loop decides what runs when —
//! the schedule, hooks around a round, saving after every round, what a failed, lost or
//! interrupted round means, restarts — and asks a [`Backend`] to do it. [`Servers`] does
//! it on real MySQL/MariaDB servers; the tests drive the same loop with a scripted
//! backend, so its rules are checked without starting a server (as hyperfine tests its
//! scheduler with a mock executor).

use std::cell::Cell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Context;

use super::hooks;
use super::pool::WorkerPool;
use super::progress::Progress;
use super::round::{RoundSpec, run_round};
use super::swap::Swap;
use crate::plan::Plan;
use crate::results::RoundRecord;
use crate::results::servers::RoundSettings;
use crate::schedule::Connections;
use crate::schedule::Slot;
use crate::segment::{Segment, ThreadShare, Window};
use crate::server::probe::ServerProbe;
use crate::side::Side;
use crate::target::Target;
use crate::workload::assigned_ids::Assigned;
use crate::workload::random::UniqueSequence;

/// Where in the run a side's hooks run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HookPoint {
    /// Once, after the data is ready (again after a restart).
    Setup,
    /// Before each of the side's rounds.
    BeforeRound,
    /// After each of the side's completed rounds.
    AfterRound,
}

impl HookPoint {
    /// The name the profile gives these hooks.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            HookPoint::Setup => "setup",
            HookPoint::BeforeRound => "before_round",
            HookPoint::AfterRound => "after_round",
        }
    }
}

/// What the round loop needs from the two sides.
pub(crate) trait Backend {
    /// Runs `side`'s hooks at `point`; the first failure is returned.
    fn hooks(&mut self, side: Side, point: HookPoint) -> anyhow::Result<()>;
    /// Runs one round of the schedule. A round that fails or is interrupted is a record
    /// with that status; an error means the round could not be run at all.
    fn round(
        &mut self,
        slot: Slot,
        instance: Option<u32>,
        progress: &Progress,
    ) -> anyhow::Result<RoundRecord>;
    /// Whether `side`'s managed server is gone (its process died).
    fn server_lost(&self, side: Side) -> bool;
    /// Replaces `side`'s lost managed server with a fresh one, its data prepared again.
    fn restart(&mut self, side: Side) -> anyhow::Result<()>;
    /// Moves both sides to fresh server processes started from their prepared data
    /// (`--instances`), with their setup hooks run again.
    fn new_instance(&mut self) -> anyhow::Result<()>;
    /// Exchanges the servers of the two sides (`--swap`): each side's teardown hooks run
    /// and every server's variables are restored, then each side's setup hooks run on
    /// the server that serves it from now on. Returns the teardown's warnings.
    fn swap_servers(&mut self, swapped: bool) -> anyhow::Result<Vec<String>>;
    /// Whether each side runs on the other side's server now (`--swap`).
    fn swapped(&self) -> bool;
}

/// A managed server stopped with SIGSTOP while the other side is measured; it continues
/// (SIGCONT) when this is dropped, also when the round ends in an error or a panic. A
/// SIGKILLed abtest still takes it along: the parent-death signal reaches a stopped
/// process.
struct Frozen(libc::pid_t);

impl Frozen {
    fn stop(pid: u32) -> Frozen {
        let pid = pid as libc::pid_t;
        // SAFETY: kill(2) on the managed server this run started.
        unsafe { libc::kill(pid, libc::SIGSTOP) };
        Frozen(pid)
    }
}

impl Drop for Frozen {
    fn drop(&mut self) {
        // SAFETY: kill(2) on the managed server this run started.
        unsafe { libc::kill(self.0, libc::SIGCONT) };
    }
}

/// A side's client threads at one level (and their sessions), kept between its rounds.
struct SidePool {
    level: u32,
    pool: WorkerPool,
}

/// Both sides' real servers.
pub(crate) struct Servers<'a> {
    /// The plan being run.
    pub(crate) plan: &'a Plan,
    /// Baseline and variant.
    pub(crate) targets: &'a mut [Target; 2],
    /// Distinct ids shared by every round of the run.
    pub(crate) unique: Arc<UniqueSequence>,
    /// Each side's client threads, with their sessions when they are kept
    /// (`--connections persistent`).
    pools: [Option<SidePool>; 2],
    /// A segment's wall-clock window of every slot, by position.
    windows: Option<Vec<Window>>,
    /// Which server serves which side (`--swap`), and the servers' snapshots.
    swap: &'a Swap<'a>,
    /// Set to stop: the round under way ends as interrupted, no other starts.
    stop: &'a AtomicBool,
    /// What the rounds run when it is not the plan's workload: classes that failed on a
    /// side left out ([`super::quarantine`]).
    rounds_workload: Option<crate::workload::WorkloadSpec>,
    /// Each server's copy of the tables a replay writes, by target, put back before
    /// every round ([`super::data_copy`]).
    kept: [Option<super::data_copy::Kept>; 2],
    /// Whether a round ran on each server's copied tables since they were copied or
    /// last put back.
    written: [bool; 2],
    /// Seconds each putting back took, in run order.
    pub(crate) restores_s: Vec<f64>,
    /// Each server's INSERT values it assigns, by target ([`super::insert_ids`]).
    pub(crate) assigned: [Arc<[Assigned]>; 2],
    /// What changes between the sides when both run on one managed server.
    shared: Option<&'a crate::server::switches::Switches>,
    /// The side's settings as read back before its coming round, for the round's record.
    settled: Option<RoundSettings>,
    /// The side whose settings the shared server holds now.
    put_for: Cell<Option<Side>>,
}

impl<'a> Servers<'a> {
    /// A connection of one side's client, with its session settings, for work outside
    /// the rounds; `purpose` finishes "connecting to …" in its error. On a shared server
    /// the side's settings are put in place first, so that the session starts from the
    /// side's globals.
    pub(crate) fn connect(&self, side: Side, purpose: &str) -> anyhow::Result<mysql::Conn> {
        self.switch_to(side)?;
        self.targets[side as usize]
            .client
            .connect()
            .with_context(|| format!("{side}: connecting to {purpose}"))
    }

    /// The servers of `targets`, with the run's id sequence.
    pub(crate) fn new(
        plan: &'a Plan,
        targets: &'a mut [Target; 2],
        swap: &'a Swap<'a>,
        stop: &'a AtomicBool,
    ) -> Servers<'a> {
        let segment = plan.segment.as_ref();
        let skip = segment.map_or(0, Segment::unique_offset);
        Servers {
            plan,
            targets,
            unique: Arc::new(UniqueSequence::skipping(plan.seed, skip)),
            pools: Default::default(),
            // The start time was checked when the plan was made.
            windows: segment.and_then(|s| super::segments::windows(plan, s).ok()),
            swap,
            stop,
            rounds_workload: None,
            kept: Default::default(),
            written: [false; 2],
            restores_s: Vec::new(),
            assigned: [Arc::from([]), Arc::from([])],
            shared: None,
            settled: None,
            put_for: Cell::new(None),
        }
    }

    /// The client connections each managed server is sized for.
    fn server_threads(&self) -> u32 {
        super::shared::server_threads(self.plan, self.shared.is_some())
    }

    /// Both sides run on one managed server: `switches` are put in place before each
    /// side's round hooks, and read back.
    pub(crate) fn share(&mut self, switches: &'a crate::server::switches::Switches) {
        self.shared = Some(switches);
    }

    /// Puts `side`'s settings in place on the shared server and reads them back (none
    /// without one). A mismatch is an error: what follows would not measure the side.
    fn switch_to(&self, side: Side) -> anyhow::Result<Option<RoundSettings>> {
        let Some(switches) = self.shared else {
            return Ok(None);
        };
        let started = std::time::Instant::now();
        let read_back = switches.put_in_place_at(&self.targets[0].admin, side)?;
        // A side's own settings may reach further than the other's (a path, a plugin's
        // port): the process is checked again whenever the side changes.
        if self.put_for.replace(Some(side)) != Some(side) {
            self.targets[0].check_confined(&format!("the {side}'s settings were put in place"))?;
        }
        Ok(Some(RoundSettings {
            put_in_place_ms: started.elapsed().as_secs_f64() * 1000.0,
            read_back,
        }))
    }

    /// The target whose managed server target `index` runs on: itself, or the other one
    /// when both sides share its server.
    fn owner_of(&self, index: usize) -> usize {
        if self.targets[index].borrowed {
            1 - index
        } else {
            index
        }
    }

    /// The process id of the managed server target `index` runs on.
    fn server_pid(&self, index: usize) -> Option<u32> {
        self.targets[self.owner_of(index)].server.as_ref()?.pid()
    }

    /// Makes the rounds run `workload` instead of the plan's.
    pub(crate) fn run_rounds_of(&mut self, workload: crate::workload::WorkloadSpec) {
        self.rounds_workload = Some(workload);
    }

    /// What the rounds run: the plan's workload, or what [`Servers::run_rounds_of`] set.
    pub(crate) fn rounds_workload(&self) -> &crate::workload::WorkloadSpec {
        self.rounds_workload.as_ref().unwrap_or(&self.plan.workload)
    }

    /// Copies the tables the replay writes on each server (once when both sides are
    /// one database), to be put back before every round and at the end.
    pub(crate) fn keep_data(&mut self, tables: &[String]) -> anyhow::Result<()> {
        let one = self.targets[0]
            .client
            .same_database(&self.targets[1].client);
        let servers = if one { 1 } else { 2 };
        for (index, target) in self.targets.iter().enumerate().take(servers) {
            match super::data_copy::Kept::take(&target.client, tables) {
                Ok(kept) => self.kept[index] = Some(kept),
                Err(e) => {
                    // The other server's copies go too: a run that cannot start leaves
                    // nothing behind.
                    for kept in self.kept.iter_mut().filter_map(Option::take) {
                        let _ = kept.drop_copies();
                    }
                    return Err(e.context(format!("{}'s server", Side::BOTH[index])));
                }
            }
        }
        Ok(())
    }

    /// What was copied, for the record.
    pub(crate) fn kept(&self) -> &[Option<super::data_copy::Kept>; 2] {
        &self.kept
    }

    /// Puts the tables back a last time on each server (where a round ran since they
    /// were last put back), checks them against their checksums before the first round
    /// and drops the copies; the tables that did not end as they began. Each server is
    /// ended even when the other fails; a copy that could not be put back is kept, and
    /// the error says so.
    pub(crate) fn end_data(&mut self) -> anyhow::Result<Vec<String>> {
        let mut changed = Vec::new();
        let mut first_error = None;
        for index in 0..2 {
            let Some(kept) = self.kept[index].take() else {
                continue;
            };
            let side = Side::BOTH[index];
            let written = std::mem::take(&mut self.written[index]);
            let ended = (|| {
                if written {
                    let seconds = kept.put_back().with_context(|| {
                        format!("{side}: the copies of the written tables are kept (abtest_kept_*)")
                    })?;
                    self.restores_s.push(seconds);
                }
                let moved = kept.changed()?;
                kept.drop_copies()?;
                anyhow::Ok(moved)
            })();
            match ended {
                Ok(moved) => changed.extend(moved.into_iter().map(|t| format!("{t} ({side})"))),
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        first_error.map_or(Ok(changed), Err)
    }

    /// Puts the tables of the server serving `side` back before its round, when a
    /// round ran on them since they were copied or last put back.
    fn put_back_data(&mut self, side: Side) -> anyhow::Result<()> {
        let index = if self.kept[1].is_some() {
            self.server_of(side)
        } else {
            0
        };
        let Some(kept) = &self.kept[index] else {
            return Ok(());
        };
        if std::mem::replace(&mut self.written[index], true) {
            let seconds = kept
                .put_back()
                .with_context(|| format!("{side}: before its round"))?;
            self.restores_s.push(seconds);
        }
        Ok(())
    }

    /// The index of the target that serves `side` now.
    fn server_of(&self, side: Side) -> usize {
        self.swap.server_of(side)
    }

    /// This process's threads and arrival rate at `slot`'s level.
    fn share_of(&self, slot: Slot) -> (ThreadShare, Option<f64>) {
        match &self.plan.segment {
            Some(segment) => (
                segment.share(slot.threads),
                self.plan
                    .client
                    .rate
                    .map(|r| segment.rate_share(r, slot.threads)),
            ),
            None => (ThreadShare::whole(slot.threads), self.plan.client.rate),
        }
    }

    /// A segment's slot waits for its window, which then sets the measured period.
    fn wait_for_window(&self, slot: Slot) -> Option<Window> {
        let window = self.windows.as_ref()?.get(slot.position as usize)?;
        while !self.stop.load(Ordering::SeqCst) {
            match window.start.duration_since(std::time::SystemTime::now()) {
                Ok(left) if !left.is_zero() => {
                    std::thread::sleep(left.min(std::time::Duration::from_millis(20)));
                }
                _ => break,
            }
        }
        Some(*window)
    }

    /// The side's `threads` client threads at `slot`'s level: those of its last round at
    /// this level, or new ones (another level's threads quit first, closing their
    /// sessions). The caller puts them back after the round.
    fn take_pool(&mut self, slot: Slot, threads: u32) -> anyhow::Result<SidePool> {
        let kept = self.pools[slot.side as usize].take();
        if let Some(kept) = kept.filter(|p| p.level == slot.threads) {
            return Ok(kept);
        }
        let plan = self.plan;
        let pool = WorkerPool::start(
            threads as usize,
            plan.client.client_sched,
            plan.client.cpus.as_ref(),
        )
        .map_err(|e| anyhow::anyhow!("{}: {e}", slot.side))?;
        if let Some(error) = pool.setup().and_then(|s| s.error.as_deref()) {
            crate::terminal::warning(format_args!(
                "{}: the client threads at {threads} threads do not run as \
                 planned ({error}); the rounds go on, and the results record it per round",
                slot.side
            ));
        }
        Ok(SidePool {
            level: slot.threads,
            pool,
        })
    }

    /// Whether sessions are kept from round to round (the plan turns this off when a
    /// profile has round hooks).
    fn keeps_sessions(&self) -> bool {
        self.plan.client.connections == Connections::Persistent
    }
}

impl Backend for Servers<'_> {
    fn hooks(&mut self, side: Side, point: HookPoint) -> anyhow::Result<()> {
        if point == HookPoint::BeforeRound {
            self.settled = self.switch_to(side)?;
        }
        // One server, whose sides have the same hooks (or they would not share it): its
        // setup runs once, on the side that owns it.
        if point == HookPoint::Setup && self.targets[self.server_of(side)].borrowed {
            return Ok(());
        }
        let hooks = &self.plan.side(side).hooks;
        let statements = match point {
            HookPoint::Setup => &hooks.setup,
            HookPoint::BeforeRound => &hooks.before_round,
            HookPoint::AfterRound => &hooks.after_round,
        };
        let index = self.server_of(side);
        hooks::run(&self.targets[index].admin, side, point.as_str(), statements)?;
        // Between rounds only hooks can have changed the server: with none, nothing is
        // read (a few logins and a /proc scan a round); the end of the run checks anyway.
        if statements.is_empty() && point != HookPoint::Setup {
            return Ok(());
        }
        // On a shared server the check is of the process itself, whichever side's hooks ran.
        self.targets[self.owner_of(index)]
            .check_confined(&format!("the {side} {} hooks", point.as_str()))
    }

    fn round(
        &mut self,
        slot: Slot,
        instance: Option<u32>,
        progress: &Progress,
    ) -> anyhow::Result<RoundRecord> {
        let plan = self.plan;
        self.put_back_data(slot.side)?;
        let keep = self.keeps_sessions();
        let other_side = 1 - slot.side as usize;
        if self.shared.is_none() && self.targets[0].client.same_server(&self.targets[1].client) {
            // Both sides on one external server: its max_connections need not hold both
            // sets (a shared managed server is started to hold them).
            self.pools[other_side] = None;
        }
        let (share, rate) = self.share_of(slot);
        let mut side_pool = self.take_pool(slot, share.count)?;
        let rewarm = keep && side_pool.pool.without_session() == 0;
        let window = self.wait_for_window(slot);
        let target = &self.targets[self.server_of(slot.side)];
        let ours: Vec<u32> = std::iter::once(std::process::id())
            .chain(self.targets.iter().filter_map(|t| t.server.as_ref()?.pid()))
            .collect();
        // The other side's server, which idles while this side runs: none when both
        // sides share one.
        let other = self.targets[1 - self.server_of(slot.side)]
            .server
            .as_ref()
            .and_then(|s| s.pid())
            .filter(|_| self.shared.is_none());
        let spec = RoundSpec {
            slot,
            share,
            rate,
            window,
            connect: &target.client,
            workload: self.rounds_workload(),
            client: &plan.client,
            unique: Arc::clone(&self.unique),
            assigned: Arc::clone(&self.assigned[self.server_of(slot.side)]),
            warmup: plan.schedule.warmup_of(rewarm),
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
            ours: &ours,
            other_server: other,
            instance,
            swapped: self.swap.is_swapped(),
        };
        let mut probe =
            ServerProbe::open(&target.admin, self.server_pid(self.server_of(slot.side)));
        let frozen = other.filter(|_| plan.client.freeze_idle).map(Frozen::stop);
        let mut record = run_round(&spec, self.stop, &mut probe, &mut side_pool.pool, keep);
        drop(frozen);
        record.server_settings = self.settled.take();
        self.pools[slot.side as usize] = Some(side_pool);
        Ok(record)
    }

    fn server_lost(&self, side: Side) -> bool {
        self.targets[self.owner_of(self.server_of(side))]
            .server
            .as_ref()
            .is_some_and(|s| !s.is_alive())
    }

    fn swap_servers(&mut self, swapped: bool) -> anyhow::Result<Vec<String>> {
        let warnings = self.swap.undo_settings(self.plan, self.targets).warnings;
        self.pools = Default::default();
        self.swap.set_swapped(swapped);
        for side in Side::BOTH {
            self.hooks(side, HookPoint::Setup)?;
        }
        Ok(warnings)
    }

    fn new_instance(&mut self) -> anyhow::Result<()> {
        let plan = self.plan;
        let threads = self.server_threads();
        self.pools = Default::default();
        for (target, side) in self.targets.iter_mut().zip(&plan.sides) {
            target
                .fresh_instance(side, threads)
                .with_context(|| format!("{}: starting a fresh instance", side.side))?;
        }
        for side in Side::BOTH {
            self.hooks(side, HookPoint::Setup)?;
        }
        Ok(())
    }

    fn swapped(&self) -> bool {
        self.swap.is_swapped()
    }

    fn restart(&mut self, side: Side) -> anyhow::Result<()> {
        let plan = self.plan;
        let index = self.owner_of(self.server_of(side));
        let shared = self.shared.is_some();
        let threads = self.server_threads();
        self.pools[side as usize] = None;
        if shared {
            // Both sides' sessions were on the lost process.
            self.pools = Default::default();
        }
        self.targets[index].server = None;
        let served = &plan.sides[index];
        let mut target = crate::target::open_one(served, threads)
            .with_context(|| format!("{side}: restarting the lost server"))?;
        target.client.io_timeout = plan.client.query_timeout;
        target.admin.io_timeout = plan.client.query_timeout;
        self.targets[index] = target;
        if shared {
            // The other side follows onto the new process; its settings are put in
            // place again before its next round, as before every round.
            let mut other = self.targets[index].borrowed_by(&plan.sides[1 - index])?;
            other.client.io_timeout = plan.client.query_timeout;
            other.admin.io_timeout = plan.client.query_timeout;
            self.targets[1 - index] = other;
        }
        super::prepare::prepare_data(plan, self.targets)?;
        if plan.schedule.instances > 1 {
            self.targets[index].keep_prepared(served, threads)?;
        }
        if shared {
            return Side::BOTH
                .into_iter()
                .try_for_each(|s| self.hooks(s, HookPoint::Setup));
        }
        self.hooks(side, HookPoint::Setup)
    }
}
