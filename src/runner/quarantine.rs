//! A query class that failed on one side (a stricter `sql_mode`, a removed function) is
//! found by the prepare check, reported by the answers check as an error difference and
//! by the class timing as left out; the timed rounds then leave it out too, with its transactions, instead of every
//! round ending on the same error. What was left out is said once, in the terminal and
//! in the run's warnings, and derived again from the saved check on `--resume`, so a
//! resumed run times the same mix.

use std::collections::BTreeSet;

use crate::plan::Plan;
use crate::results::RunRecord;
use crate::workload::class_filter;
use crate::workload::{Workload, WorkloadSpec};

/// What the rounds run instead of the plan's workload, and the sentence that says so:
/// `None` when no class failed on a side (or the workload is built in: its statements
/// are sysbench's, and `--ignore-errors` decides what an error does). When every
/// transaction has a failed class nothing can be left out: the rounds run the plan's
/// workload (no replacement), and the sentence says their errors will show.
pub(super) fn rounds_workload(
    plan: &Plan,
    record: &RunRecord,
) -> Option<(Option<WorkloadSpec>, String)> {
    let failed = failed_classes(record);
    let Workload::File(file) = &plan.workload.kind else {
        return None;
    };
    if failed.is_empty() {
        return None;
    }
    let names: Vec<&str> = failed.iter().map(String::as_str).collect();
    let Some(left) = class_filter::without(file, &failed) else {
        return Some((
            None,
            format!(
                "every transaction of the workload has a query class that failed on one side \
                 ({}): the timed rounds run them, and their errors show in the rounds",
                names.join("; ")
            ),
        ));
    };
    let transactions = class_filter::transactions_left_out(file, &failed);
    let note = format!(
        "left out of the timed rounds: {} query class(es) that failed on one side ({}), with \
         their transaction(s) {}; the rounds time the other {} transaction(s)",
        failed.len(),
        names.join("; "),
        transactions.join(", "),
        left.transactions.len()
    );
    let spec = WorkloadSpec {
        kind: Workload::File(left),
        ..plan.workload.clone()
    };
    Some((Some(spec), note))
}

/// The classes the prepare check or the answers check saw fail on exactly one side,
/// and those the class timing left out because a side failed.
fn failed_classes(record: &RunRecord) -> BTreeSet<String> {
    let prepared = record
        .prepare_check
        .iter()
        .flat_map(|c| &c.one_sided)
        .map(|o| o.class.clone());
    let answers = record
        .result_check
        .iter()
        .flat_map(|c| &c.differences)
        .filter(|d| d.failed_on.is_some())
        .map(|d| d.class.clone());
    let timing = record
        .class_timing
        .iter()
        .flat_map(|t| &t.classes)
        .filter(|c| c.left_out.is_some())
        .map(|c| c.class.clone());
    prepared.chain(answers).chain(timing).collect()
}
