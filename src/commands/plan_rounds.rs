//! `abtest plan-rounds --cv 3% --effect 2%`: how many rounds a run needs, and how long
//! it takes, before it runs. The verdict is one-sided at α (it asks whether the
//! interval clears a tolerance), so the rounds to decide a tolerance are planned with
//! that rule; the two-sided figure for finding a change significant is shown beside it.
//! The CV can come from a pilot run instead of a guess.

use std::path::Path;
use std::time::Duration;

use crate::cli::PlanRoundsArgs;
use crate::exit::{self, UsageError};
use crate::results;
use crate::roundcsv;
use crate::schedule::INSTANCE_SWITCH_ESTIMATE;
use crate::side::Side;
use crate::stats::compare::{Sample, Unit};
use crate::stats::metric::Metric;
use crate::stats::power::{self, Test, minimum_detectable_effect, rounds_needed};
use crate::stats::summary::Summary;

/// What the plan counts and where its CV came from: rounds, or (from a pilot on server
/// instances) instance means of `rounds_per_value` rounds each.
struct Basis {
    cv: f64,
    unit: Unit,
    rounds_per_value: u32,
    /// Degrees of freedom of a pilot's CV (values of both sides less 2); none for --cv.
    df: Option<f64>,
    /// A results file's measured round and the warm-up of its later rounds: its CV is of
    /// rounds that long, so the estimate counts rounds that long.
    timing: Option<Timing>,
}

/// A round's measured time and its warm-up, for the wall-clock estimate.
#[derive(Clone, Copy)]
struct Timing {
    round: Duration,
    warmup: Duration,
}

/// The timing the estimate counts: each option given, else the pilot's, else two
/// servers' default rounds and re-warm.
fn timing(args: &PlanRoundsArgs, basis: &Basis) -> Timing {
    let defaults = crate::schedule::RoundDefaults::Separate;
    let fallback = basis.timing.unwrap_or(Timing {
        round: defaults.round_time(),
        warmup: defaults.rewarm(),
    });
    Timing {
        round: args.round_time.unwrap_or(fallback.round),
        warmup: args.warmup.unwrap_or(fallback.warmup),
    }
}

/// Prints the rounds (or instances) per side needed, their wall-clock time, and what
/// smaller runs could detect.
pub(crate) fn execute(args: &PlanRoundsArgs) -> anyhow::Result<i32> {
    crate::resolve::ranges::check_plan_rounds(args)?;
    let basis = match (&args.pilot, args.cv) {
        (Some(pilot), _) => {
            let (basis, source) = pilot_basis(pilot)?;
            crate::terminal::stdout_line(&format!(
                "CV {:.2} % from the pilot ({source})",
                100.0 * basis.cv
            ));
            basis
        }
        (None, Some(cv)) => Basis {
            cv,
            unit: Unit::Round,
            rounds_per_value: 1,
            df: None,
            timing: None,
        },
        (None, None) => return Err(UsageError::err("give --cv 3% or --pilot FILE")),
    };
    let (cv, unit, alpha, power) = (basis.cv, basis.unit.noun(), args.alpha, args.power);
    let beyond = || {
        UsageError::err(format!(
            "an effect of {} % at a CV of {} % needs more than 10 million {unit}s per side: no \
             run can decide it; check --effect and --cv",
            crate::percent::trim_number(100.0 * args.effect),
            crate::percent::trim_number(100.0 * cv)
        ))
    };
    let verdict = rounds_needed(cv, args.effect, alpha, power, Test::Verdict).ok_or_else(beyond)?;
    let significance =
        rounds_needed(cv, args.effect, alpha, power, Test::Significance).ok_or_else(beyond)?;
    crate::terminal::stdout_line(&format!(
        "{unit}s per side: {verdict} to decide a tolerance when the true change lies {:.2} % from it \
         (one-sided at alpha {alpha}, as the verdict; CV {:.2} %, power {:.0} %)",
        100.0 * args.effect,
        100.0 * cv,
        100.0 * power
    ));
    crate::terminal::stdout_line(&format!(
        "{:width$} {significance} to find a {:.2} % change significant (two-sided)",
        "",
        100.0 * args.effect,
        width = unit.len() + "s per side:".len()
    ));
    if let Some(df) = basis.df {
        pilot_uncertainty(args, &basis, df, verdict);
    }
    let counted = timing(args, &basis);
    let of_rounds = match basis.unit {
        Unit::Round => String::new(),
        Unit::Instance => format!(" of {} rounds each", basis.rounds_per_value),
    };
    crate::terminal::stdout_line(&format!(
        "wall-clock: about {} for {verdict} {unit}s per side{of_rounds} ({} levels, rounds of {} after {} warm-up), \
         plus server start and data preparation",
        humantime::format_duration(wall_clock(args, &basis, verdict)),
        args.levels,
        humantime::format_duration(counted.round),
        humantime::format_duration(counted.warmup)
    ));
    crate::terminal::stdout_line(&format!(
        "smallest change a verdict can tell from its tolerance, by {unit}s per side:"
    ));
    for n in [5, 10, 20, 30, 50] {
        let mde = minimum_detectable_effect(cv, n, alpha, power, Test::Verdict);
        crate::terminal::stdout_line(&format!("  {n:>3} {unit}s: {:.2} %", 100.0 * mde));
    }
    Ok(exit::SUCCESS)
}

/// What the pilot's own noise does to the plan: the rounds for the CV's 80 % upper
/// confidence bound, and the power the point-estimate plan keeps on average.
fn pilot_uncertainty(args: &PlanRoundsArgs, basis: &Basis, df: f64, planned: u32) {
    let unit = basis.unit.noun();
    let (alpha, power) = (args.alpha, args.power);
    let upper = power::cv_upper_bound(basis.cv, df, 0.8);
    let cautious = rounds_needed(upper, args.effect, alpha, power, Test::Verdict).unwrap_or(2);
    crate::terminal::stdout_line(&format!(
        "{unit}s per side: {cautious} with the CV's 80 % upper confidence bound, {:.2} % (a \
         pilot of {} values a side estimates its CV loosely; plan with this to keep the power \
         whatever the pilot's luck)",
        100.0 * upper,
        (df / 2.0 + 1.0).round()
    ));
    if let Some(expected) =
        power::expected_power(basis.cv, df, args.effect, alpha, power, Test::Verdict)
    {
        crate::terminal::stdout_line(&format!(
            "{:width$} the plan of {planned} from the point estimate keeps {:.0} % power on \
             average, not {:.0} %",
            "",
            100.0 * expected,
            100.0 * power,
            width = unit.len() + "s per side:".len()
        ));
    }
}

/// Both sides' rounds at every level, each a warm-up and a measured period, and, for
/// instances, the moves between them.
fn wall_clock(args: &PlanRoundsArgs, basis: &Basis, values: u32) -> Duration {
    let Timing { round, warmup } = timing(args, basis);
    let per_round = round + warmup;
    let rounds = per_round * values * basis.rounds_per_value * 2 * args.levels;
    match basis.unit {
        Unit::Round => rounds,
        Unit::Instance => rounds + INSTANCE_SWITCH_ESTIMATE * (values * args.levels - 1),
    }
}

/// The largest per-level CV of TPS in a pilot (root mean square of both sides' CVs),
/// with what it was read from. A pilot on fresh instances (calibrate, --instances) gives
/// the CV of instance means, between and within instances together.
fn pilot_basis(path: &Path) -> anyhow::Result<(Basis, String)> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| UsageError::err(format!("{}: cannot read it ({e})", path.display())))?;
    let (samples, unit, rounds_per_value, timing) = if text.trim_start().starts_with('{') {
        let run = results::load(path).map_err(|e| UsageError::err(format!("{e:#}")))?;
        let schedule = &run.record.plan.schedule;
        let kept = run.record.plan.client.connections == crate::schedule::Connections::Persistent;
        let timing = Timing {
            round: schedule.round_time,
            warmup: schedule.warmup_of(kept),
        };
        let completed: Vec<_> = run
            .record
            .rounds
            .into_iter()
            .filter(|r| r.status == results::RoundStatus::Completed)
            .collect();
        let unit = results::sample_unit(&completed);
        let samples = results::samples(&completed, &[Metric::Tps]);
        let per_value = completed.len().div_ceil(samples.len().max(1)) as u32;
        (samples, unit, per_value, Some(timing))
    } else {
        (roundcsv::read(path)?, Unit::Round, 1, None)
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
            "{}: no thread level has 2 or more varying TPS {}s per side to take a CV from",
            path.display(),
            unit.noun()
        ))
    })?;
    let noun = unit.noun();
    let mut source = format!("{threads} threads, {nb} baseline and {nv} variant {noun}s");
    if unit == Unit::Instance {
        source.push_str(&format!(
            "; the CV is of instance means of about {rounds_per_value} rounds each, so every \
             count below is instances per side with that many rounds each"
        ));
    }
    let basis = Basis {
        cv,
        unit,
        rounds_per_value,
        df: Some((nb + nv).saturating_sub(2).max(1) as f64),
        timing,
    };
    Ok((basis, source))
}

fn tps_of(samples: &[Sample], side: Side, threads: u32) -> Vec<f64> {
    samples
        .iter()
        .filter(|s| s.side == side && s.threads == threads && s.metric == Metric::Tps)
        .map(|s| s.value)
        .collect()
}
