//! From what the user typed to the plan: the flags (`args`), both profiles (`side`,
//! `managed`), a split run's segment (`split`) and the output paths (`outputs`, checked
//! and claimed by each command that writes, see [`outputs::claim`]). This is
//! the only layer that reads flags; everything below it sees the typed `Plan` alone, so
//! a flag can be renamed without touching the code that runs, and tests build plans
//! without a command line.

use std::path::{Path, PathBuf};

use crate::analysis::AnalysisOptions;
use crate::cli::RunArgs;
use crate::exit::UsageError;
use crate::placement::Placement;
use crate::plan::arrangement::Layout;
use crate::plan::{ClientOptions, Plan, SeparateTiming, SidePlan, TargetSpec, Timing};
use crate::schedule::{Connections, RoundDefaults, RoundOrder, Schedule};
use crate::side::Side;
use crate::stats::blocked::Blocking;
use crate::workload::WorkloadSpec;

pub(crate) mod args;
mod captured;
mod managed;
pub(crate) mod outputs;
pub(crate) mod ranges;
mod side;
mod split;

pub(crate) use side::{external_server, resolve_side};

/// The unit of the confirmatory analysis that `order` was designed for: chosen before
/// any data are seen (`stats::blocked`).
fn blocking_of(order: RoundOrder) -> Blocking {
    match order {
        RoundOrder::Abba => Blocking::Blocks,
        RoundOrder::Abab => Blocking::Pairs,
        RoundOrder::Random => Blocking::Rounds,
    }
}

/// Resolves the command line and both profiles into a plan, or a usage error.
pub(crate) fn plan(cli: &RunArgs, command_line: String) -> anyhow::Result<Plan> {
    let seed = cli.schedule.seed.unwrap_or_else(crate::secret::random_u64);
    let (workload, class_numbers) = args::workload_spec(&cli.workload)?;
    let levels = captured::levels(&cli.workload.threads, &workload)?;
    let mut warnings = Vec::new();
    let baseline = resolve_side(
        required(&cli.baseline, "--baseline")?,
        Side::Baseline,
        &mut warnings,
    )?;
    let variant = resolve_side(
        required(&cli.variant, "--variant")?,
        Side::Variant,
        &mut warnings,
    )?;
    let (sides, client) = place(cli, &workload, [baseline, variant], &mut warnings)?;
    let blocked = AnalysisOptions {
        blocking: blocking_of(cli.schedule.order),
        ..AnalysisOptions::default()
    };
    let analysis = args::analysis_options(&cli.analysis, &blocked)?;
    let client = ClientOptions {
        class_timing: client
            .class_timing
            .or(analysis.max_class_slowdown.map(|_| CLASS_TIMING_BUDGET)),
        ..client
    };
    let timing_of = |defaults| timing(cli, &levels, seed, &client, &analysis, defaults);
    let separate = timing_of(RoundDefaults::Separate);
    let shared = timing_of(RoundDefaults::Shared);
    // The plan's layout decides between them; until then, either that fits.
    let provisional = match (&separate, &shared) {
        (Ok(timing), _) | (_, Ok(timing)) => timing.clone(),
        (Err(_), Err(_)) => {
            return Err(separate
                .err()
                .unwrap_or_else(|| anyhow::anyhow!("no schedule fits the flags")));
        }
    };
    let mut plan = Plan {
        sides,
        workload,
        schedule: provisional.schedule,
        allow_foreign_tables: cli.workload.allow_foreign_tables,
        allow_writes: cli.workload.allow_writes,
        restore_data: !cli.workload.no_restore_data,
        client,
        analysis,
        seed,
        sequential: provisional.sequential,
        outputs: cli.outputs.outputs.saved(),
        segment: split::segment(&cli.segment)?,
        servers: cli.client.servers,
        command_line,
        warnings,
        class_numbers,
        if_separate: None,
    };
    if let (Err(why), Ok(_), true) = (&shared, &separate, shares_a_server(&plan)) {
        plan.warnings.push(format!(
            "one server's defaults ({}) do not fit ({why:#}); the rounds take two servers' \
             defaults ({}) instead: give --round-time and --rewarm to choose",
            RoundDefaults::Shared.summary(),
            RoundDefaults::Separate.summary()
        ));
    }
    let shared = shared
        .ok()
        .filter(|shared| shares_a_server(&plan) && separate.as_ref().ok() != Some(shared));
    match shared {
        Some(shared) => {
            let replaces = shared.warning.clone();
            plan.take_timing(shared);
            plan.if_separate = Some(Box::new(SeparateTiming {
                timing: separate.map_err(|e| format!("{e:#}")),
                replaces,
            }));
        }
        None => plan.take_timing(separate?),
    }
    plan.validate()?;
    split::check(&plan, cli.schedule.seed.is_some())?;
    Ok(plan)
}

/// Whether the plan's two managed sides may run on one server, which keeps each side's
/// sessions between its rounds: its rounds then take the shared defaults.
fn shares_a_server(plan: &Plan) -> bool {
    matches!(plan.layout(), Layout::Shareable(_))
        && plan.client.connections == Connections::Persistent
}

/// The rounds' timing the flags ask for, with `defaults` where they are silent.
fn timing(
    cli: &RunArgs,
    levels: &[u32],
    seed: u64,
    client: &ClientOptions,
    analysis: &AnalysisOptions,
    defaults: RoundDefaults,
) -> anyhow::Result<Timing> {
    let schedule = args::schedule(&cli.schedule, levels, seed, client.connections, defaults)?;
    let sequential = args::sequential(&cli.schedule, &schedule, analysis)?;
    let warning = too_few_blocks(&schedule, analysis, cli.schedule.max_time);
    Ok(Timing {
        schedule,
        sequential,
        warning,
    })
}

/// The class timing's budget when `--max-class-slowdown` asks for it without
/// `--class-timing` (the same as `--class-timing` with no value).
const CLASS_TIMING_BUDGET: std::time::Duration = std::time::Duration::from_secs(120);

/// The fewest blocks (or pairs) per level whose interval can decide: three degrees of
/// freedom. With two blocks the t quantile is 12.7 and intervals read "[−98, >+999]".
const ENOUGH_BLOCKS: u32 = 4;

/// Why a plan cannot decide, when each level gets fewer than [`ENOUGH_BLOCKS`] of the
/// analysis's units: said before anything runs, with the rounds or budget that would.
fn too_few_blocks(
    schedule: &Schedule,
    analysis: &AnalysisOptions,
    max_time: Option<std::time::Duration>,
) -> Option<String> {
    let size = analysis.blocking.rounds_per_block()?;
    let blocks = schedule.rounds / size;
    if blocks >= ENOUGH_BLOCKS {
        return None;
    }
    let needed = ENOUGH_BLOCKS * size;
    let fix = match max_time {
        Some(_) => {
            let levels = schedule.levels.len() as u32;
            let seconds = schedule.budget_for(needed).as_secs().div_ceil(60) * 60;
            format!(
                "give --max-time {} or more{}",
                humantime::format_duration(std::time::Duration::from_secs(seconds)),
                if levels > 1 {
                    ", or fewer --threads levels"
                } else {
                    ""
                }
            )
        }
        None => format!("give --rounds {needed} or more"),
    };
    let judged = if analysis.has_tolerance() {
        "; a verdict from it will be INCONCLUSIVE unless the change is enormous"
    } else {
        ""
    };
    Some(format!(
        "{} round(s) per side per thread level make {blocks} {} ({} degree(s) of freedom): \
         too few for an interval that can decide{judged}; {fix}",
        schedule.rounds,
        analysis.blocking.plural(),
        blocks.saturating_sub(1)
    ))
}

/// A SET GLOBAL of a session variable in a `before_round` or `after_round` hook reaches
/// only sessions opened after it, so a run with round hooks opens its connections for
/// every round.
fn connections_per_round_with_round_hooks(
    sides: &[SidePlan; 2],
    client: &mut ClientOptions,
    warnings: &mut Vec<String>,
) {
    let round_hooks =
        |s: &SidePlan| !s.hooks.before_round.is_empty() || !s.hooks.after_round.is_empty();
    if client.connections == Connections::Persistent && sides.iter().any(round_hooks) {
        client.connections = Connections::PerRound;
        warnings.push(
            "a profile has before_round/after_round hooks: connections are opened for every round \
             (as with --connections per-round), so each session sees what the hooks set"
                .to_string(),
        );
    }
}

/// The client's options for `sides`, and both put where `--cpus` says: the connections
/// a round needs with the profiles' hooks, and each managed server's CPUs.
fn place(
    cli: &RunArgs,
    workload: &WorkloadSpec,
    mut sides: [SidePlan; 2],
    warnings: &mut Vec<String>,
) -> anyhow::Result<([SidePlan; 2], ClientOptions)> {
    let mut client = args::client_options(&cli.client, workload)?;
    if let Some(placement) = &cli.client.cpus {
        place_cpus(placement, &mut sides, &mut client)?;
    }
    connections_per_round_with_round_hooks(&sides, &mut client, warnings);
    Ok((sides, client))
}

/// Puts `--cpus` into the plan: the client's list and each managed server's. A list for
/// an external server, or a CPU this host does not offer, is refused.
fn place_cpus(
    placement: &Placement,
    sides: &mut [SidePlan; 2],
    client: &mut ClientOptions,
) -> anyhow::Result<()> {
    placement
        .check_available()
        .map_err(|e| UsageError::err(format!("--cpus {e}")))?;
    for side in sides.iter_mut() {
        let cpus = placement.server(side.side).cloned();
        if cpus.is_some() && matches!(side.target, TargetSpec::External { .. }) {
            return Err(UsageError::err(format!(
                "--cpus {}=: the {} side is an external server ([connection]); abtest can place \
                 only the servers it starts. Pin it where it runs (taskset, systemd CPUAffinity=)",
                side.side, side.side
            )));
        }
        side.cpus = cpus;
    }
    client.cpus = placement.client.clone();
    Ok(())
}

fn required<'a>(path: &'a Option<PathBuf>, flag: &str) -> anyhow::Result<&'a Path> {
    path.as_deref()
        .ok_or_else(|| UsageError::err(format!("{flag} FILE is required")))
}
