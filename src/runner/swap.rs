//! `--swap`: each side's settings move to the other server halfway through a level and
//! back at the next, so that what belongs to the servers themselves cancels out. This
//! holds which server serves which side (the one place that says so) and each server's
//! variables from before any hook, put back at every move and at the end.

use std::cell::Cell;

use super::hooks;
use crate::plan::{Plan, SidePlan};
use crate::profile::Side;
use crate::target::Target;

/// What `--swap` needs: each server's variables before any hook, and which way round
/// the sides and servers are now.
pub(crate) struct Swap<'a> {
    /// Each server's snapshot (by target), restored at a swap and at the end.
    pub(crate) snapshots: &'a [hooks::GlobalSnapshot],
    /// Whether each side runs on the other side's server.
    swapped: Cell<bool>,
}

impl<'a> Swap<'a> {
    /// Each side on its own server, with the servers' snapshots (by target).
    pub(crate) fn new(snapshots: &'a [hooks::GlobalSnapshot]) -> Swap<'a> {
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

    /// Undoes what the hooks set: each side's teardown hooks on the server that serves it
    /// now, then every server's variables put back. Returns the warnings.
    pub(crate) fn undo_settings(&self, plan: &Plan, targets: &[Target; 2]) -> Vec<String> {
        let mut warnings = Vec::new();
        for side in &plan.sides {
            let target = &targets[self.server_of(side.side)];
            warnings.extend(hooks::teardown(
                &target.admin,
                side.side,
                &side.hooks.teardown,
            ));
        }
        for (target, snapshot) in targets.iter().zip(self.snapshots) {
            warnings.extend(hooks::restore(&target.admin, target.side, snapshot));
        }
        warnings
    }
}

/// The statements whose global variables a server's snapshot records: its side's hooks,
/// or with `--swap` both sides', since both sides' settings will be made on it.
pub(super) fn snapshot_statements(plan: &Plan, side: &SidePlan) -> Vec<String> {
    if plan.schedule.swap {
        plan.sides
            .iter()
            .flat_map(|s| s.hooks.all_but_teardown())
            .collect()
    } else {
        side.hooks.all_but_teardown()
    }
}
