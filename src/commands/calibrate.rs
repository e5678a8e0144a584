//! `abtest calibrate PROFILE`: an A/A run of one configuration on fresh server instances
//! (`--instances`), read as a calibration of the host: how far apart two instances of
//! the same configuration are, how much rounds vary inside one, and what a comparison of
//! this length can resolve. Run it before trusting a small difference.

use clap::Parser as _;

use crate::cli::{CalibrateArgs, Cli};
use crate::exit::{self, UsageError};
use crate::results::ResultsFile;
use crate::runner;
use crate::stats::metric::Metric;

/// Runs the A/A and prints what it says about the host.
pub(crate) fn execute(args: &CalibrateArgs) -> anyhow::Result<i32> {
    let profile = args.profile.display().to_string();
    let instances = args.instances.to_string();
    let budget = humantime::format_duration(args.max_time).to_string();
    let mut words: Vec<String> = ["abtest", "--baseline", &profile, "--variant", &profile]
        .map(String::from)
        .to_vec();
    words.extend(["--instances".into(), instances, "--max-time".into(), budget]);
    // The calibration is of two servers of one configuration: never one shared.
    if !args.run_options.iter().any(|o| o.starts_with("--servers")) {
        words.extend(["--servers".into(), "separate".into()]);
    }
    if let Some(json) = &args.json {
        words.extend(["--json".into(), json.display().to_string()]);
    }
    words.extend(args.run_options.iter().cloned());
    let cli = Cli::try_parse_from(&words)
        .map_err(|e| UsageError::err(format!("calibrate: the run options: {e}")))?;
    let plan = crate::resolve::plan(&cli.run, words.join(" "))?;
    let _outputs = crate::resolve::outputs::claim_run(
        &plan,
        cli.run.workload.workload_file.as_deref(),
        crate::resolve::outputs::Existing::typed(cli.run.overwrite),
    )?;
    for warning in &plan.warnings {
        crate::terminal::warning(warning);
    }
    if cli.run.dry_run {
        crate::terminal::stdout(&plan.describe(None));
        return Ok(exit::SUCCESS);
    }
    if args.instances < 4 {
        crate::terminal::warning(format_args!(
            "calibrate: {} instances per side give a rough figure: the SD \
             between instances rests on {} values; use --instances 4 or more",
            args.instances, args.instances
        ));
    }
    runner::interrupt::install();
    let (results, outcome) = runner::experiment::run(&plan, None);
    outcome?;
    crate::terminal::stdout(&summary(&results));
    Ok(exit::SUCCESS)
}

/// What the calibration says, in words.
fn summary(results: &ResultsFile) -> String {
    let mut out = String::new();
    let Some(noise) = &results.judgement.noise else {
        return "abtest: calibrate: no completed rounds\n".to_string();
    };
    for v in &noise.instances {
        out.push_str(&format!(
            "{} at {} threads: {:.0} TPS; SD between instances {:.1} %, between rounds of one instance {:.1} % ({} instances, {} rounds)\n",
            v.side, v.threads, v.tps.mean, v.between_cv_pct, v.within_cv_pct, v.tps.instances, v.tps.rounds
        ));
    }
    let between: Vec<f64> = noise.instances.iter().map(|v| v.between_cv_pct).collect();
    let within: Vec<f64> = noise.instances.iter().map(|v| v.within_cv_pct).collect();
    // SDs pool as the root of their mean square: variances add, SDs do not.
    let pooled = |v: &[f64]| (v.iter().map(|x| x * x).sum::<f64>() / v.len().max(1) as f64).sqrt();
    let tps = results
        .judgement
        .comparisons
        .iter()
        .find(|c| c.metric == Metric::Tps);
    let minutes = results
        .record
        .rounds
        .iter()
        .map(|r| r.duration_s)
        .sum::<f64>()
        / 60.0;
    let between = pooled(&between);
    out.push_str(&format!(
        "On this host, instances of one configuration differ with an SD of {between:.1} % in TPS \
         (two of them differ by about {:.1} %); rounds of one instance vary by {:.1} %.\n",
        std::f64::consts::SQRT_2 * between,
        pooled(&within)
    ));
    let own: Vec<f64> = noise.instance_pairs.iter().map(|v| v.own_cv_pct).collect();
    let shared: Vec<f64> = noise
        .instance_pairs
        .iter()
        .map(|v| v.shared_cv_pct)
        .collect();
    if !own.is_empty() {
        // Each estimate rests on a few instances: an "own" part above the whole is noise.
        let own = pooled(&own).min(between);
        out.push_str(&format!(
            "Of that SD, {:.1} % moved both sides' instances together — they start at the same \
             moment, so it cancels in a comparison — and {own:.1} % was each instance's own, \
             which a comparison keeps: two instances started together differ by about {:.1} %.\n",
            pooled(&shared).min(between),
            std::f64::consts::SQRT_2 * own
        ));
    }
    out.push_str(&resolution_line(results, tps, minutes));
    out
}

/// What a comparison like this one resolves: the half-width of this A/A's interval.
fn resolution_line(
    results: &ResultsFile,
    tps: Option<&crate::stats::compare::Comparison>,
    minutes: f64,
) -> String {
    let instances = results.record.plan.schedule.instances;
    match tps.and_then(|c| c.ci_pct.map(|ci| (c.change_pct, ci))) {
        Some((change, [low, high])) => format!(
            "A comparison like this one ({instances} instances per side, {minutes:.1} minutes \
             measured) resolves about ±{:.1} % (the half-width of this A/A's 95 % interval, \
             {change:+.1} % [{low:+.1}, {high:+.1}]).\n",
            (high - low) / 2.0
        ),
        None => format!(
            "A comparison like this one ({instances} instances per side, {minutes:.1} minutes \
             measured) resolves nothing yet: its 95 % interval is unbounded; give it more \
             instances (--instances) or more time (--max-time).\n"
        ),
    }
}
