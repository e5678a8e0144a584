//! `--swap`: each side's settings move to the other server halfway through a level and
//! back at the next, so that what belongs to the servers themselves cancels out. This
//! holds which server serves which side (the one place that says so) and each server's
//! variables from before any hook, put back at every move and at the end.

use std::cell::Cell;

use super::hooks;
use crate::plan::Plan;
use crate::results::ResultsFile;
use crate::server::globals::GlobalSnapshot;
use crate::server::restore;
use crate::side::Side;
use crate::target::Target;

/// What `--swap` needs: each server's variables before any hook, and which way round
/// the sides and servers are now.
pub(crate) struct Swap<'a> {
    /// Each external server's snapshot (by target), restored at a swap and at the end;
    /// none for a managed server, which is thrown away.
    pub(crate) snapshots: &'a [Option<GlobalSnapshot>],
    /// Whether each side runs on the other side's server.
    swapped: Cell<bool>,
}

/// What undoing the hooks did: the warnings to show, and per side what could not be
/// put back (also among the warnings).
#[derive(Debug, Default)]
pub(crate) struct Undone {
    pub(crate) warnings: Vec<String>,
    pub(crate) left: Vec<(Side, String)>,
}

impl<'a> Swap<'a> {
    /// Each side on its own server, with the servers' snapshots (by target).
    pub(crate) fn new(snapshots: &'a [Option<GlobalSnapshot>]) -> Swap<'a> {
        Swap {
            snapshots,
            swapped: Cell::new(false),
        }
    }

    /// Whether each side runs on the other side's server now.
    pub(crate) fn is_swapped(&self) -> bool {
        self.swapped.get()
    }

    /// Records a move: the sides on each other's servers, or back on their own.
    pub(crate) fn set_swapped(&self, swapped: bool) {
        self.swapped.set(swapped);
    }

    /// The index of the target that serves `side` now.
    pub(crate) fn server_of(&self, side: Side) -> usize {
        side as usize ^ usize::from(self.swapped.get())
    }

    /// Undoes what the hooks did: each side's teardown hooks on the server that serves it
    /// now, then every external server compared with its snapshot and put back.
    pub(crate) fn undo_settings(&self, plan: &Plan, targets: &[Target; 2]) -> Undone {
        let mut undone = Undone::default();
        for side in &plan.sides {
            let target = &targets[self.server_of(side.side)];
            // A shared server's sides have the same hooks: its teardown runs once.
            if target.borrowed {
                continue;
            }
            undone.warnings.extend(hooks::teardown(
                &target.admin,
                side.side,
                &side.hooks.teardown,
            ));
        }
        for (i, (target, snapshot)) in targets.iter().zip(self.snapshots).enumerate() {
            let Some(snapshot) = snapshot else { continue };
            // Both sides on one server: it is put back once.
            if targets[..i]
                .iter()
                .any(|t| t.admin.same_server(&target.admin))
            {
                continue;
            }
            let side = target.side;
            let outcome = restore::restore_server(&target.admin, snapshot);
            undone.warnings.extend(
                outcome
                    .restored
                    .iter()
                    .map(|done| format!("{side}: {done}, as it was before the hooks ran")),
            );
            for left in outcome.left {
                undone.warnings.push(format!("{side}: {left}"));
                undone.left.push((side, left));
            }
        }
        undone
    }
}

/// Reads every external server's global variables and plugins before any hook runs
/// (a resumed run keeps those its first start saved) and records them in the results,
/// which the caller saves before the first hook. A server that cannot be read stops
/// the run: what a hook changes there could not be put back.
pub(super) fn snapshots(
    plan: &Plan,
    targets: &[Target; 2],
    results: &mut ResultsFile,
) -> anyhow::Result<Vec<Option<GlobalSnapshot>>> {
    let mut snapshots = Vec::new();
    for target in targets {
        let saved = results
            .record
            .sides
            .get(&target.side)
            .and_then(|s| s.globals.clone());
        let snapshot = match saved {
            _ if target.is_managed() || !super::segments::leads(plan) => None,
            Some(saved) => Some(saved),
            None => Some(read_snapshot(target)?),
        };
        if let Some(info) = results.record.sides.get_mut(&target.side) {
            info.globals.clone_from(&snapshot);
            info.not_restored.clear();
        }
        snapshots.push(snapshot);
    }
    if plan.outputs.json.is_none() && snapshots.iter().any(Option::is_some) {
        let warning = "no --json file: if abtest is killed (kill -9), nothing records how \
                       the external server(s) were before the hooks, and `abtest restore` \
                       cannot put them back"
            .to_string();
        crate::terminal::warning(&warning);
        results.record.warnings.push(warning);
    }
    Ok(snapshots)
}

/// One external server's snapshot, or why it cannot be read.
fn read_snapshot(target: &Target) -> anyhow::Result<GlobalSnapshot> {
    let side = target.side;
    let read = target
        .admin
        .connect()
        .and_then(|mut conn| GlobalSnapshot::read(&mut conn));
    read.map_err(|e| {
        anyhow::anyhow!(
            "{side}: cannot read the server's global variables and plugins, which abtest \
             records before any hook runs so that it can put them back afterwards: {}; \
             nothing was run on it",
            crate::db::errors::describe(&e)
        )
    })
}
