//! `abtest --baseline A --variant B ...`: run an experiment.

use crate::cli::RunArgs;
use crate::exit;
use crate::report::{self, ReportView};
use crate::resolve::outputs::{self, Existing};
use crate::runner;

/// Runs an experiment and prints its table; the exit code follows the verdict.
pub(crate) fn execute(args: &RunArgs, command_line: String) -> anyhow::Result<i32> {
    let (mut plan, previous) = match &args.resume {
        Some(path) => {
            let (plan, previous) = super::resume::load(path)?;
            (plan, Some(previous))
        }
        None => (crate::resolve::plan(args, command_line)?, None),
    };
    // Held until the run ends: no other abtest may write these files meanwhile.
    let _outputs = match &args.resume {
        Some(path) => outputs::claim_run(&plan, None, Existing::Resumed(path))?,
        None => outputs::claim_run(
            &plan,
            args.workload.workload_file.as_deref(),
            Existing::typed(args.overwrite),
        )?,
    };
    // A segment whose first round is already past is refused before anything is
    // written, in the dry run too.
    if previous.is_none() {
        runner::segments::check_not_late(&plan)?;
        for warning in crate::preflight::data_size::check_managed(&plan)? {
            crate::terminal::warning(warning);
        }
    }
    // The rounds' timing may hang on whether one server serves both sides.
    let servers = match args.dry_run {
        true => runner::shared::describe(&mut plan)?,
        false => {
            runner::shared::settle(&mut plan)?;
            None
        }
    };
    for warning in &plan.warnings {
        crate::terminal::warning(warning);
    }
    if plan.is_aa() && !args.dry_run {
        crate::terminal::note(format_args!("notice: {}", crate::plan::AA_NOTICE));
    }
    if args.dry_run {
        crate::terminal::stdout(&plan.describe(servers.as_deref()));
        return Ok(exit::SUCCESS);
    }
    runner::interrupt::install();
    raise_open_files_limit();
    let (results, outcome) = runner::experiment::run(&plan, previous);
    let view = ReportView::of_results(&results);
    if !results.judgement.comparisons.is_empty() {
        crate::terminal::stdout(&report::table::render(&view));
    }
    for warning in &results.judgement.analysis_warnings {
        crate::terminal::warning(warning);
    }
    if let Some(segment) = plan.segment.as_ref().filter(|s| s.is_split()) {
        crate::terminal::note(format_args!(
            "segment {}/{} finished its rounds; join all {} results files with `abtest merge`",
            segment.index, segment.count, segment.count
        ));
    }
    if let Some(left) = left_changed(&results, &plan) {
        let left = exit::NotRestored(left);
        return Err(match outcome {
            Ok(()) => anyhow::Error::new(left),
            Err(e) => e.context(left),
        });
    }
    outcome?;
    Ok(view.exit_code())
}

/// What a server was left with that could not be put back, and what to do about it.
fn left_changed(results: &crate::results::ResultsFile, plan: &crate::plan::Plan) -> Option<String> {
    let left: Vec<String> = results
        .record
        .sides
        .iter()
        .flat_map(|(side, info)| {
            info.not_restored
                .iter()
                .map(move |l| format!("{side}: {l}"))
        })
        .collect();
    if left.is_empty() {
        return None;
    }
    let again = plan.outputs.json.as_ref().map_or(String::new(), |path| {
        format!(
            ", then `abtest restore {}` compares it with the saved snapshot again",
            path.display()
        )
    });
    Some(format!(
        "the server was left changed by the hooks ({}); put it back by hand{again}",
        left.join("; ")
    ))
}

/// Every connection is a file descriptor: lift the soft limit to the hard one so a
/// 1024-connection level does not fail with "too many open files".
fn raise_open_files_limit() {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit with a valid pointer to a local struct.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 && limit.rlim_cur < limit.rlim_max
        {
            limit.rlim_cur = limit.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
        }
    }
}
