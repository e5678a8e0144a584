//! `abtest import-sysbench-log`: old sysbench runs as rounds for `abtest analyze`.

use std::path::PathBuf;

use crate::cli::ImportLogArgs;
use crate::exit::{self, UsageError};
use crate::profile::Side;
use crate::results::write_atomic;
use crate::sysbench::log::{self, Run};

/// Writes the per-round CSV of the given logs.
pub(crate) fn execute(args: &ImportLogArgs) -> anyhow::Result<i32> {
    let sides = [
        (Side::Baseline, read(&args.baseline, args.threads)?),
        (Side::Variant, read(&args.variant, args.threads)?),
    ];
    let csv = log::to_csv(&sides);
    match &args.output {
        Some(path) => write_atomic(path, csv.as_bytes())?,
        None => crate::report::stdout::print(&csv),
    }
    for (side, runs) in &sides {
        eprintln!("abtest: {side}: {} run(s) read", runs.len());
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
            run.threads = Some(place_threads(path, index + 1, run.threads, threads)?);
            runs.push(run);
        }
    }
    Ok(runs)
}

/// The thread count of run `number` of a log: the log's own, which `--threads` must
/// agree with, or `--threads` when the log does not say. Never a guess.
fn place_threads(
    path: &std::path::Path,
    number: usize,
    logged: Option<u32>,
    given: Option<u32>,
) -> anyhow::Result<u32> {
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
