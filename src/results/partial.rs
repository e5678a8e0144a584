//! A run that did not finish its plan gives no verdict. Its rounds still estimate the
//! change, but a fixed design judged at an unplanned stop is an extra look nobody paid
//! α for, and a change board reads GO as "the run said so". So an interrupted, failed or
//! still-running run, or one whose planned rounds did not all complete, is PARTIAL: the
//! verdicts are withheld, the headline says what is missing, and the exit code is its
//! own. A run its looks or its answers check stopped on purpose is finished. This file
//! says what is missing; `judge` withholds the verdicts.

use super::record::{RunRecord, RunStatus};
use super::round::RoundStatus;
use crate::side::Side;

impl RunRecord {
    /// What is missing from the run, in words, or `None` when it finished its plan.
    pub(crate) fn unfinished(&self) -> Option<String> {
        let progress = self.progress();
        let resume = match &self.plan.outputs.json {
            Some(path) => format!("`abtest --resume {}` finishes it", path.display()),
            None => "`abtest --resume` with its results file finishes it".to_string(),
        };
        match self.status {
            RunStatus::Running => Some(format!(
                "the file was saved while the run was still going ({progress}); wait for it \
                 to finish, or if it was killed, {resume}"
            )),
            RunStatus::Interrupted => {
                Some(format!("the run was interrupted ({progress}); {resume}"))
            }
            RunStatus::Failed => Some(format!(
                "the run stopped on an error ({progress}{}); {resume}",
                self.error
                    .as_deref()
                    .map(|e| format!(": {e}"))
                    .unwrap_or_default()
            )),
            RunStatus::Completed => {
                let missing = self.missing_rounds();
                (missing > 0)
                    .then(|| format!("{missing} planned round(s) did not complete ({progress})"))
            }
        }
    }

    /// Completed rounds per side and level against the plan: "14 of 30 rounds per side
    /// completed at 8 threads".
    fn progress(&self) -> String {
        let planned = self.plan.schedule.rounds;
        let levels: Vec<String> = self
            .plan
            .schedule
            .levels
            .iter()
            .map(|&threads| {
                let done = Side::BOTH.map(|side| self.completed(side, threads));
                let done = if done[0] == done[1] {
                    done[0].to_string()
                } else {
                    format!("{} baseline and {} variant", done[0], done[1])
                };
                format!("{done} of {planned} rounds per side completed at {threads} threads")
            })
            .collect();
        levels.join(", ")
    }

    fn completed(&self, side: Side, threads: u32) -> u32 {
        self.rounds
            .iter()
            .filter(|r| {
                r.side == side && r.threads == threads && r.status == RoundStatus::Completed
            })
            .count() as u32
    }

    /// The rounds per side the run was due to complete: the plan's, or where a stop on
    /// purpose ended it, as many as that stop had (a look's rounds; none when the
    /// answers check stopped it before any round). A `stopped` that neither explains
    /// is not believed: the file's own looks and answers must bear it out.
    fn due_rounds(&self) -> u32 {
        match (&self.stopped, self.looks.last(), &self.result_check) {
            (Some(_), Some(look), _) => look.rounds_per_side,
            (Some(_), None, Some(check)) if check.answers_differ() => 0,
            (_, _, Some(_)) if self.plan.client.check_only => 0,
            _ => self.plan.schedule.rounds,
        }
    }

    /// Rounds due that did not complete, over both sides and every level.
    fn missing_rounds(&self) -> u32 {
        let planned = self.due_rounds();
        self.plan
            .schedule
            .levels
            .iter()
            .flat_map(|&threads| Side::BOTH.map(|side| self.completed(side, threads)))
            .map(|done| planned.saturating_sub(done))
            .sum()
    }
}
