//! `abtest import-sysbench-log`: old sysbench runs as rounds for `abtest analyze`.

use std::path::PathBuf;

use crate::cli::ImportLogArgs;
use crate::exit::{self, UsageError};
use crate::resolve::outputs::{Existing, Input, Output, claim};
use crate::side::Side;
use crate::sysbench::log::{self, Run};

/// Writes the per-round CSV of the given logs.
pub(crate) fn execute(args: &ImportLogArgs) -> anyhow::Result<i32> {
    let logs: Vec<Input> = args
        .baseline
        .iter()
        .chain(&args.variant)
        .map(|log| Input::new(log, "a sysbench log being imported"))
        .collect();
    let _claimed = claim(
        &Output::report("--output", args.output.as_deref())
            .into_iter()
            .collect::<Vec<_>>(),
        &logs,
        Existing::Kept { overwrite: false },
    )?;
    let sides = [
        (Side::Baseline, read(&args.baseline, args.threads)?),
        (Side::Variant, read(&args.variant, args.threads)?),
    ];
    let csv = log::to_csv(&sides);
    crate::report::stdout::write_to(args.output.as_deref(), &csv, None)?;
    for (side, runs) in &sides {
        crate::terminal::note(format_args!("{side}: {} run(s) read", runs.len()));
    }
    Ok(exit::SUCCESS)
}

fn read(paths: &[PathBuf], threads: Option<u32>) -> anyhow::Result<Vec<Run>> {
    let mut runs = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(path)
            .map_err(|e| UsageError::err(format!("{}: cannot read it ({e})", path.display())))?;
        let found = log::parse(&text);
        if found.is_empty() {
            return Err(UsageError::err(format!(
                "{}: no sysbench run found (neither a final report nor interval lines)",
                path.display()
            )));
        }
        for (index, mut run) in found.into_iter().enumerate() {
            check_figures(path, index + 1, &run)?;
            run.threads = Some(place_threads(path, index + 1, run.threads, threads)?);
            runs.push(run);
        }
    }
    Ok(runs)
}

/// Refuses a run whose figures no real run has: TPS that is not a positive finite
/// number, a negative or non-finite rate or latency (a damaged or edited log).
fn check_figures(path: &std::path::Path, number: usize, run: &Run) -> anyhow::Result<()> {
    let bad = |what: &str, value: f64| {
        UsageError::err(format!(
            "{}: run {number} reports {what} {value}, which no run has; the log is damaged or \
             edited — leave that run out",
            path.display()
        ))
    };
    if !(run.tps.is_finite() && run.tps > 0.0) {
        return Err(bad("TPS", run.tps));
    }
    for (what, value) in [
        ("QPS", run.qps),
        ("a mean latency of", run.latency_mean_ms),
        ("a latency percentile of", run.latency_p95_ms),
    ] {
        if let Some(value) = value.filter(|v| !(v.is_finite() && *v >= 0.0)) {
            return Err(bad(what, value));
        }
    }
    Ok(())
}

/// The thread count of run `number` of a log: the log's own, which `--threads` must
/// agree with, or `--threads` when the log does not say. Never a guess.
fn place_threads(
    path: &std::path::Path,
    number: usize,
    logged: Option<u32>,
    given: Option<u32>,
) -> anyhow::Result<u32> {
    if logged == Some(0) {
        return Err(UsageError::err(format!(
            "{}: run {number} logs a thread count no run can have (not a whole number from 1 \
             to 100000); the log is damaged or edited",
            path.display()
        )));
    }
    match (logged, given) {
        (Some(logged), Some(given)) if logged != given => Err(UsageError::err(format!(
            "{}: run {number} used {logged} threads, but --threads says {given}; \
             import logs of one thread count at a time, or drop --threads",
            path.display()
        ))),
        (Some(threads), _) | (None, Some(threads)) => Ok(threads),
        (None, None) => Err(UsageError::err(format!(
            "{}: run {number} does not say how many threads it used (no banner and no \
             interval lines); give the count with --threads N",
            path.display()
        ))),
    }
}
