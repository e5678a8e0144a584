//! `abtest import-sysbench-log`: old sysbench runs as rounds for `abtest analyze`.

use std::path::PathBuf;

use crate::cli::ImportLogArgs;
use crate::exit::{self, UsageError};
use crate::profile::Side;
use crate::results::write_atomic;
use crate::sysbench::log::{self, Run};

/// Writes the per-round CSV of the given logs.
pub fn execute(args: &ImportLogArgs) -> anyhow::Result<i32> {
    let sides = [
        (Side::Baseline, read(&args.baseline)?),
        (Side::Variant, read(&args.variant)?),
    ];
    let csv = log::to_csv(&sides);
    match &args.output {
        Some(path) => write_atomic(path, csv.as_bytes())?,
        None => print!("{csv}"),
    }
    for (side, runs) in &sides {
        eprintln!("abtest: {side}: {} run(s) read", runs.len());
    }
    Ok(exit::SUCCESS)
}

fn read(paths: &[PathBuf]) -> anyhow::Result<Vec<Run>> {
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
        runs.extend(found);
    }
    Ok(runs)
}
