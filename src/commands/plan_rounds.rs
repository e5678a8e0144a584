//! `abtest plan-rounds --cv 3% --effect 2%`: how many rounds a run needs, and how long
//! it takes, before it runs. The verdict is one-sided at α (it asks whether the
//! interval clears a tolerance), so the rounds to decide a tolerance are planned with
//! that rule; the two-sided figure for finding a change significant is shown beside it.
//! The CV can come from a pilot run instead of a guess.

use std::path::Path;
use std::time::Duration;

use crate::cli::PlanRoundsArgs;
use crate::exit::{self, UsageError};
use crate::profile::Side;
use crate::results;
use crate::roundcsv;
use crate::stats::compare::Sample;
use crate::stats::metric::Metric;
use crate::stats::power::{Test, minimum_detectable_effect, rounds_needed};
use crate::stats::summary::Summary;

/// Prints the rounds per side needed, their wall-clock time, and what smaller runs
/// could detect.
pub(crate) fn execute(args: &PlanRoundsArgs) -> anyhow::Result<i32> {
    let cv = match (&args.pilot, args.cv) {
        (Some(pilot), _) => {
            let (cv, source) = pilot_cv(pilot)?;
            println!("CV {:.2} % from the pilot ({source})", 100.0 * cv);
            cv
        }
        (None, Some(cv)) => cv,
        (None, None) => return Err(UsageError::err("give --cv 3% or --pilot FILE")),
    };
    let (alpha, power) = (args.alpha, args.power);
    let verdict = rounds_needed(cv, args.effect, alpha, power, Test::Verdict).unwrap_or(2);
    let significance =
        rounds_needed(cv, args.effect, alpha, power, Test::Significance).unwrap_or(2);
    println!(
        "rounds per side: {verdict} to decide a tolerance when the true change lies {:.2} % from it \
         (one-sided at alpha {alpha}, as the verdict; CV {:.2} %, power {:.0} %)",
        100.0 * args.effect,
        100.0 * cv,
        100.0 * power
    );
    println!(
        "                 {significance} to find a {:.2} % change significant (two-sided)",
        100.0 * args.effect
    );
    println!(
        "wall-clock: about {} for {verdict} rounds per side ({} levels, rounds of {} after {} warm-up), \
         plus server start and data preparation",
        humantime::format_duration(wall_clock(args, verdict)),
        args.levels,
        humantime::format_duration(args.round_time),
        humantime::format_duration(args.warmup)
    );
    println!("smallest change a verdict can tell from its tolerance, by rounds per side:");
    for n in [5, 10, 20, 30, 50] {
        let mde = minimum_detectable_effect(cv, n, alpha, power, Test::Verdict);
        println!("  {n:>3} rounds: {:.2} %", 100.0 * mde);
    }
    Ok(exit::SUCCESS)
}

/// Both sides' rounds at every level, each a warm-up and a measured period.
fn wall_clock(args: &PlanRoundsArgs, rounds: u32) -> Duration {
    let per_round = args.round_time + args.warmup;
    per_round * rounds * 2 * args.levels
}

/// The largest per-level CV of TPS in a pilot (root mean square of both sides' CVs),
/// with what it was read from.
fn pilot_cv(path: &Path) -> anyhow::Result<(f64, String)> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| UsageError::err(format!("{}: cannot read it ({e})", path.display())))?;
    let mut unit = "";
    let samples = if text.trim_start().starts_with('{') {
        let run = results::load(path).map_err(|e| UsageError::err(format!("{e:#}")))?;
        let completed: Vec<_> = run
            .rounds
            .into_iter()
            .filter(|r| r.status == results::RoundStatus::Completed)
            .collect();
        if completed.iter().any(|r| r.instance.is_some()) {
            // A pilot on fresh instances (calibrate, --instances): the CV is that of
            // instance means, between and within instances together.
            unit = "; the pilot ran on server instances, so the CV is of instance means and \
                    every count below is instances per side, each of the pilot's rounds per instance";
        }
        results::samples(&completed, &[Metric::Tps])
    } else {
        roundcsv::read(path)?
    };
    let mut levels: Vec<u32> = samples.iter().map(|s| s.threads).collect();
    levels.sort_unstable();
    levels.dedup();
    let mut worst: Option<(f64, u32, [usize; 2])> = None;
    for threads in levels {
        let summaries = Side::BOTH.map(|side| Summary::of(&tps_of(&samples, side, threads)));
        if summaries.iter().any(|s| s.n < 2) {
            continue;
        }
        let cv = ((summaries[0].cv.powi(2) + summaries[1].cv.powi(2)) / 2.0).sqrt();
        if worst.is_none_or(|(w, _, _)| cv > w) {
            worst = Some((cv, threads, [summaries[0].n, summaries[1].n]));
        }
    }
    let (cv, threads, [nb, nv]) = worst.filter(|(cv, _, _)| *cv > 0.0).ok_or_else(|| {
        UsageError::err(format!(
            "{}: no thread level has 2 or more varying TPS rounds per side to take a CV from",
            path.display()
        ))
    })?;
    let what = if unit.is_empty() {
        "rounds"
    } else {
        "instances"
    };
    Ok((
        cv,
        format!("{threads} threads, {nb} baseline and {nv} variant {what}{unit}"),
    ))
}

fn tps_of(samples: &[Sample], side: Side, threads: u32) -> Vec<f64> {
    samples
        .iter()
        .filter(|s| s.side == side && s.threads == threads && s.metric == Metric::Tps)
        .map(|s| s.value)
        .collect()
}
