//! From command-line flags to the plan's types: the one place that reads `cli`. The
//! flags are what the user typed; everything here checks them and builds the typed
//! settings the engine runs on, so no module below the plan ever sees a flag (the
//! split of ripgrep's low-level and high-level arguments).

use std::collections::BTreeMap;

use crate::analysis::AnalysisOptions;
use crate::cli::{AnalysisArgs, ClientArgs, ScheduleArgs, WorkloadArgs};
use crate::exit::UsageError;
use crate::schedule::RoundDefaults;
use crate::schedule::{Connections, Schedule};
use crate::stats::metric::Metric;
use crate::workload::custom::CustomWorkload;
use crate::workload::random::RandSpec;
use crate::workload::{SysbenchOptions, TablesSpec, Workload, WorkloadName, WorkloadSpec};

use crate::plan::{ClientOptions, MAX_ROUND_PART, MAX_ROUNDS, MAX_THREADS, Sequential};
use crate::stats::sequential::{Design, Until};

/// The workload of the flags, with the workload file read and the settings sysbench
/// itself would reject refused.
/// With it, the file's numbers of the query classes `--exclude-class`/`--only-class`
/// kept (empty when they were not given).
pub(crate) fn workload_spec(args: &WorkloadArgs) -> anyhow::Result<(WorkloadSpec, Vec<u32>)> {
    let name: WorkloadName = args.workload;
    let (kind, numbers) = match &args.workload_file {
        Some(path) => {
            let (file, numbers) = crate::workload::class_filter::choose(
                CustomWorkload::load(path)?,
                &args.exclude_class,
                &args.only_class,
            )?;
            (Workload::File(file), numbers)
        }
        None => (Workload::Sysbench(name), Vec::new()),
    };
    let spec = WorkloadSpec {
        kind,
        tables: TablesSpec {
            count: args.tables,
            rows: args.table_size,
            prepare: args.prepare,
            auto_inc: args.auto_inc,
            secondary: args.secondary,
            create_secondary: args.create_secondary,
            storage_engine: args.mysql_storage_engine.clone(),
        },
        sysbench: SysbenchOptions {
            range_size: args.range_size,
            point_selects: args.point_selects,
            simple_ranges: args.simple_ranges,
            sum_ranges: args.sum_ranges,
            order_ranges: args.order_ranges,
            distinct_ranges: args.distinct_ranges,
            index_updates: args.index_updates,
            non_index_updates: args.non_index_updates,
            delete_inserts: args.delete_inserts,
            range_selects: args.range_selects,
            skip_trx: args.skip_trx,
            random_points: args.random_points,
            number_of_ranges: args.number_of_ranges,
            delta: args.delta,
        }
        .with_script_overrides(name),
        ps_mode: args.ps_mode,
        rand: RandSpec {
            kind: args.rand_type,
            spec_iter: args.rand_spec_iter,
            spec_pct: args.rand_spec_pct,
            spec_res: args.rand_spec_res,
            pareto_h: args.rand_pareto_h,
            zipfian_exp: args.rand_zipfian_exp,
        },
    };
    spec.validate()?;
    Ok((spec, numbers))
}

/// `base` with every analysis flag that `args` gives in place of the setting it names:
/// defaults for a run (`AnalysisOptions::default()`), a saved run's settings for
/// `report`. `--max-latency-inflation` replaces all latency tolerances.
pub(crate) fn analysis_options(
    args: &AnalysisArgs,
    base: &AnalysisOptions,
) -> anyhow::Result<AnalysisOptions> {
    let alpha = super::ranges::check("--alpha", args.alpha.unwrap_or(base.alpha))?;
    super::ranges::check_given("--max-tps-loss", args.max_tps_loss)?;
    super::ranges::check_given("--max-error-rate", args.max_error_rate)?;
    let percentiles = args.percentiles.clone().unwrap_or(base.percentiles.clone());
    if let Some(bad) = percentiles
        .iter()
        .find(|p| Metric::percentile(**p).is_none())
    {
        return Err(UsageError::err(format!(
            "--percentiles {bad} must lie between 0 and 100 (to a thousandth), such as 95,99"
        )));
    }
    let metrics: Vec<Metric> = percentiles
        .iter()
        .filter_map(|p| Metric::percentile(*p))
        .collect();
    if let Some(twice) = metrics
        .iter()
        .enumerate()
        .find(|(i, m)| metrics[..*i].contains(m))
        .map(|(_, m)| m)
    {
        return Err(UsageError::err(format!(
            "--percentiles names {} twice; list each percentile once, such as 95,99",
            twice.label()
        )));
    }
    // A saved look's verdict level is checked like α; a new --alpha replaces both levels.
    let verdict_alpha = match args.alpha {
        Some(_) => None,
        None => base
            .verdict_alpha
            .map(|level| super::ranges::check("--alpha", level))
            .transpose()?,
    };
    let mut options = AnalysisOptions {
        alpha,
        verdict_alpha,
        max_tps_loss: args.max_tps_loss.or(base.max_tps_loss),
        max_error_rate: args
            .max_error_rate
            .map(|f| f * 100.0)
            .or(base.max_error_rate),
        percentiles,
        allow_result_diff: args.allow_result_diff || base.allow_result_diff,
        max_class_slowdown: args.max_class_slowdown.or(base.max_class_slowdown),
        adjust: args.adjust.unwrap_or(base.adjust),
        ..base.clone()
    };
    if !args.max_latency_inflation.is_empty() {
        options.max_latency_inflation = BTreeMap::new();
        options.max_latency_inflation_all = None;
        for entry in &args.max_latency_inflation {
            options.add_latency_tolerance(entry)?;
        }
    }
    Ok(options)
}

/// The client options, checked.
pub(crate) fn client_options(
    args: &ClientArgs,
    workload: &WorkloadSpec,
) -> anyhow::Result<ClientOptions> {
    let rate = super::captured::rate(args.rate.as_deref(), workload)?;
    if args.report_interval.is_some_and(|d| d.is_zero()) {
        return Err(UsageError::err(
            "--report-interval must be longer than zero, such as 1s",
        ));
    }
    let asked = match (&args.check_results, args.check_only) {
        (None, true) => Some("all"),
        (given, _) => given.as_deref(),
    };
    let (check_results, check_all) = check_results(asked)?;
    Ok(ClientOptions {
        rate,
        ignore_errors: args.ignore_errors.clone(),
        query_timeout: Some(args.query_timeout).filter(|d| !d.is_zero()),
        on_server_loss: args.on_server_loss,
        report_interval: args.report_interval,
        client_sched: args.client_sched,
        freeze_idle: args.freeze_idle,
        check_results,
        check_all,
        check_order: args.check_order,
        continue_after_differences: args.continue_after_differences,
        check_only: args.check_only,
        class_timing: args.class_timing,
        connections: args.connections,
        cpus: None,
    })
}

/// The schedule of the rounds at the thread `levels`, checked; `seed` orders them, and
/// `defaults` fills what was not given. With `--max-time`, the rounds are those the
/// budget holds; connections opened for every round re-warm fully.
pub(crate) fn schedule(
    args: &ScheduleArgs,
    levels: &[u32],
    seed: u64,
    connections: Connections,
    defaults: RoundDefaults,
) -> anyhow::Result<Schedule> {
    let rounds = args.rounds.unwrap_or(defaults.rounds());
    let round_time = args.round_time.unwrap_or(defaults.round_time());
    let rewarm = args.rewarm.unwrap_or(defaults.rewarm());
    if rounds < 2 {
        return Err(UsageError::err(format!(
            "--rounds {rounds} is too few: a variance needs at least 2 rounds per side; use 5 or more"
        )));
    }
    if round_time.is_zero() {
        return Err(UsageError::err(
            "--round-time must be longer than zero; use e.g. 30s",
        ));
    }
    if levels.is_empty() || levels.contains(&0) {
        return Err(UsageError::err(format!(
            "--threads {levels:?} must be one or more numbers above zero, such as 8 or 16,32,64"
        )));
    }
    if let Some(level) = levels.iter().find(|&&t| t > MAX_THREADS) {
        return Err(UsageError::err(format!(
            "--threads {level} is more than a server accepts (max_connections is at most \
             {MAX_THREADS})"
        )));
    }
    let mut seen = levels.to_vec();
    seen.sort_unstable();
    if let Some(pair) = seen.windows(2).find(|w| w[0] == w[1]) {
        return Err(UsageError::err(format!(
            "--threads lists {} twice; give each level once",
            pair[0]
        )));
    }
    if rounds > MAX_ROUNDS {
        return Err(UsageError::err(format!(
            "--rounds {rounds} is more than abtest plans ({MAX_ROUNDS} per side); lengthen \
             --round-time instead"
        )));
    }
    for (flag, duration) in [
        ("--round-time", round_time),
        ("--warmup", args.warmup),
        ("--rewarm", rewarm),
        ("--pause", args.pause),
    ] {
        if duration > MAX_ROUND_PART {
            return Err(UsageError::err(format!(
                "{flag} {} is longer than a day; a round's parts are seconds to minutes",
                humantime::format_duration(duration)
            )));
        }
    }
    let mut schedule = Schedule {
        levels: Schedule::order_levels(levels, args.level_order, seed),
        rounds,
        round_time,
        warmup: args.warmup,
        rewarm: (connections == Connections::Persistent).then_some(rewarm),
        pause: args.pause,
        order: args.order,
        level_order: args.level_order,
        instances: args.instances,
        swap: args.swap,
    };
    if let Some(rounds) = budget_rounds(args, &schedule)? {
        schedule.rounds = rounds;
    }
    Ok(schedule)
}

/// The most statements `--check-results` compares: more than pt-upgrade reads from a
/// day's slow log of most servers, and every one is held in memory with both answers.
const MAX_CHECK_RESULTS: u32 = 1_000_000;

/// `--check-results N` (within [`MAX_CHECK_RESULTS`]) or `all`: the number of statements,
/// and whether every captured value is read.
fn check_results(value: Option<&str>) -> anyhow::Result<(u32, bool)> {
    let Some(value) = value else {
        return Ok((0, false));
    };
    if value.eq_ignore_ascii_case("all") {
        return Ok((DEFAULT_CHECK_RESULTS, true));
    }
    let n: u32 = value.parse().map_err(|_| {
        UsageError::err(format!(
            "--check-results {value}: give a number of statements (such as 200) or `all`"
        ))
    })?;
    if n > MAX_CHECK_RESULTS {
        return Err(UsageError::err(format!(
            "--check-results {n} is more than abtest compares ({MAX_CHECK_RESULTS}); every read \
             class gets at least 3 statements whatever N is, so a few thousand cover a mix"
        )));
    }
    Ok((n, false))
}

/// `--check-results` without a number (the CLI's `default_missing_value`).
const DEFAULT_CHECK_RESULTS: u32 = 200;

/// The longest `--max-time` budget.
const MAX_BUDGET: std::time::Duration = std::time::Duration::from_secs(7 * 24 * 3600);

/// The rounds per side a `--max-time` budget holds in `schedule`, when one is given.
fn budget_rounds(args: &ScheduleArgs, schedule: &Schedule) -> anyhow::Result<Option<u32>> {
    let Some(max_time) = args.max_time else {
        return Ok(None);
    };
    if max_time > MAX_BUDGET {
        return Err(UsageError::err(format!(
            "--max-time {} is longer than abtest plans (7 days); split the study into runs",
            humantime::format_duration(max_time)
        )));
    }
    let rounds = schedule.rounds_within(max_time);
    if rounds < 2 {
        return Err(UsageError::err(format!(
            "--max-time {} holds {rounds} round(s) per side of {} each; at least 2 are needed: \
             raise --max-time or shorten --round-time/--warmup",
            humantime::format_duration(max_time),
            humantime::format_duration(schedule.later_round_time())
        )));
    }
    if rounds > MAX_ROUNDS {
        return Err(UsageError::err(format!(
            "--max-time {} holds {rounds} rounds per side, more than abtest plans ({MAX_ROUNDS}); \
             lengthen --round-time",
            humantime::format_duration(max_time)
        )));
    }
    Ok(Some(rounds))
}

/// The looks of an `--until` run over the budget `schedule` was planned for. `--until`
/// needs a budget, one thread level and (for `decided`) a tolerance.
pub(crate) fn sequential(
    args: &ScheduleArgs,
    schedule: &Schedule,
    analysis: &AnalysisOptions,
) -> anyhow::Result<Option<Sequential>> {
    let Some(until) = args.until else {
        return Ok(None);
    };
    let Some(max_time) = args.max_time else {
        return Err(UsageError::err(
            "--until stops a run within a budget: give --max-time too, such as --max-time 10m",
        ));
    };
    if let Until::Precision(half_width) = until {
        super::ranges::check("--until precision", half_width / 100.0)?;
    }
    if schedule.levels.len() > 1 {
        return Err(UsageError::err(
            "--until looks at one thread level: give one --threads value",
        ));
    }
    if until == Until::Decided && !analysis.has_tolerance() {
        return Err(UsageError::err(
            "--until decided needs a tolerance to decide, such as --max-tps-loss 5%",
        ));
    }
    Ok(Some(Sequential {
        until,
        design: Design::new(
            schedule.rounds,
            args.looks,
            analysis.alpha,
            Some(analysis.blocking),
        ),
        max_time,
    }))
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;
    use crate::cli::Cli;

    /// The run flags of `abtest --baseline a --variant b` and `extra`.
    fn flags(extra: &[&str]) -> crate::cli::RunArgs {
        let mut words = vec!["abtest", "--baseline", "a", "--variant", "b"];
        words.extend(extra);
        Cli::parse_from(words).run
    }

    fn sysbench() -> WorkloadSpec {
        WorkloadSpec::sysbench(WorkloadName::OltpReadWrite)
    }

    #[test]
    fn the_flags_defaults_are_sysbench_s() {
        for name in ["oltp_read_write", "oltp_point_select", "bulk_insert"] {
            let (spec, _) = workload_spec(&flags(&["--workload", name]).workload).unwrap();
            let Workload::Sysbench(script) = spec.kind else {
                panic!("{name} is a built-in workload")
            };
            assert_eq!(spec, WorkloadSpec::sysbench(script), "{name}");
        }
        assert_eq!(
            workload_spec(
                &flags(&["--workload", "oltp_point_select", "--point-selects", "5"]).workload
            )
            .unwrap()
            .0
            .sysbench
            .point_selects,
            1,
            "oltp_point_select forces one point select, as its script does"
        );
    }

    #[test]
    fn a_saved_run_keeps_its_settings_unless_a_flag_replaces_them() {
        let saved = analysis_options(
            &flags(&[
                "--max-tps-loss",
                "5%",
                "--alpha",
                "0.01",
                "--max-latency-inflation",
                "p99=20%",
            ])
            .analysis,
            &AnalysisOptions::default(),
        )
        .unwrap();
        let kept = analysis_options(&flags(&[]).analysis, &saved).unwrap();
        assert_eq!(kept, saved);
        let rejudged =
            analysis_options(&flags(&["--max-tps-loss", "10"]).analysis, &saved).unwrap();
        assert_eq!(rejudged.max_tps_loss, Some(0.10));
        assert_eq!(rejudged.alpha, 0.01);
        assert_eq!(
            rejudged.max_latency_inflation[&Metric::from_key("latency_p99_ms")],
            0.20
        );
        let relatency =
            analysis_options(&flags(&["--max-latency-inflation", "5%"]).analysis, &saved).unwrap();
        assert!(relatency.max_latency_inflation.is_empty());
        assert_eq!(relatency.max_latency_inflation_all, Some(0.05));
    }

    #[test]
    fn a_saved_looks_verdict_level_is_checked_and_a_new_alpha_replaces_it() {
        let look = AnalysisOptions {
            alpha: 0.0156,
            verdict_alpha: Some(0.0195),
            ..AnalysisOptions::default()
        };
        let kept = analysis_options(&flags(&[]).analysis, &look).unwrap();
        assert_eq!(kept.verdict_level(), 0.0195);
        let realpha = analysis_options(&flags(&["--alpha", "0.01"]).analysis, &look).unwrap();
        assert_eq!((realpha.alpha, realpha.verdict_level()), (0.01, 0.01));
        let tampered = AnalysisOptions {
            verdict_alpha: Some(0.7),
            ..look
        };
        assert!(analysis_options(&flags(&[]).analysis, &tampered).is_err());
    }

    #[test]
    fn a_percentile_that_rounds_to_100_is_refused() {
        let args = flags(&["--percentiles", "95,99.9999"]).analysis;
        assert!(analysis_options(&args, &AnalysisOptions::default()).is_err());
        let args = flags(&["--percentiles", "99.9"]).analysis;
        assert!(analysis_options(&args, &AnalysisOptions::default()).is_ok());
    }

    #[test]
    fn a_schedule_needs_two_rounds_and_real_levels() {
        let args = flags(&["--rounds", "1"]);
        assert!(
            schedule(
                &args.schedule,
                &[8],
                1,
                Connections::Persistent,
                RoundDefaults::Separate
            )
            .is_err()
        );
        let args = flags(&[]);
        assert!(
            schedule(
                &args.schedule,
                &[0],
                1,
                Connections::Persistent,
                RoundDefaults::Separate
            )
            .is_err()
        );
        let levels = schedule(
            &args.schedule,
            &[32, 8],
            1,
            Connections::Persistent,
            RoundDefaults::Separate,
        )
        .unwrap()
        .levels;
        assert_eq!(levels, [8, 32], "ascending by default");
    }

    /// A budget holds fewer rounds when fresh instances take their moves and full
    /// warm-ups out of it, and the plan's estimate stays inside the budget.
    #[test]
    fn a_budget_leaves_room_for_instance_moves() {
        let rounds_in = |extra: &[&str]| {
            let mut words = vec!["--max-time", "5m"];
            words.extend(extra);
            let args = flags(&words);
            let plan = schedule(
                &args.schedule,
                &[8],
                1,
                Connections::Persistent,
                RoundDefaults::Separate,
            )
            .unwrap();
            assert!(
                plan.estimated_time() <= std::time::Duration::from_secs(300),
                "{plan:?}"
            );
            plan.rounds
        };
        let (one, four) = (rounds_in(&[]), rounds_in(&["--instances", "4"]));
        assert!(four < one, "{four} rounds with 4 instances, {one} with one");
    }

    #[test]
    fn client_options_refuse_a_rate_of_zero() {
        assert!(client_options(&flags(&["--rate", "0"]).client, &sysbench()).is_err());
        assert!(client_options(&flags(&["--report-interval", "0s"]).client, &sysbench()).is_err());
        assert_eq!(
            client_options(&flags(&["--query-timeout", "0s"]).client, &sysbench())
                .unwrap()
                .query_timeout,
            None
        );
    }

    #[test]
    fn latency_tolerances_per_metric() {
        let args = crate::cli::AnalysisArgs {
            alpha: None,
            max_tps_loss: None,
            max_latency_inflation: vec!["10%".into(), "p99=15%".into(), "mean=5".into()],
            max_error_rate: None,
            percentiles: Some(vec![95.0, 99.0, 99.9]),
            allow_result_diff: false,
            max_class_slowdown: None,
            adjust: None,
        };
        let opts = analysis_options(&args, &AnalysisOptions::default()).unwrap();
        assert_eq!(opts.max_latency_inflation_all, Some(0.10));
        assert_eq!(
            opts.max_latency_inflation[&Metric::from_key("latency_p99_ms")],
            0.15
        );
        assert_eq!(opts.max_latency_inflation[&Metric::LatencyMean], 0.05);
        assert_eq!(opts.run_metrics(false)[5].to_string(), "latency_p99.9_ms");
        let bad = crate::cli::AnalysisArgs {
            max_latency_inflation: vec!["p200=5%".into()],
            ..args
        };
        assert!(analysis_options(&bad, &AnalysisOptions::default()).is_err());
    }
}
