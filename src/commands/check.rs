//! `abtest check --baseline A --variant B ...`: the run's command with `check` in front
//! connects to every external server and checks what would stop the run later (the
//! password, the grants, the connection limits, the database, the disk), on top of what
//! the dry run checks (profiles, option names and values, the data against the disk and
//! the buffer pool). It writes nothing and starts no server of the run's: where only
//! the server can say whether one server serves both sides, it asks the throwaway server
//! the dry run asks, so its timing, warnings and refusals are the run's. With
//! `--dry-run` it connects to no external server either, so a documented `check` line
//! can be tried offline.

use crate::cli::RunArgs;
use crate::exit;
use crate::preflight;

/// Resolves the run as the dry run does, then checks each external side; exit 0 when
/// everything passed, otherwise the first failure's code.
pub(crate) fn execute(args: &RunArgs) -> anyhow::Result<i32> {
    let mut plan = crate::resolve::plan(args, String::new())?;
    // The servers' answer settles the timing (and refuses what the run would refuse)
    // before the plan's warnings are said.
    let servers = crate::runner::shared::describe(&mut plan)?;
    for warning in &plan.warnings {
        crate::terminal::warning(warning);
    }
    for warning in preflight::data_size::check_managed(&plan)? {
        crate::terminal::warning(warning);
    }
    let mut lines: Vec<String> = servers.into_iter().collect();
    for side in &plan.sides {
        let title = format!("{} ({})", side.side, side.profile.display());
        if side.server_launch(0).is_some() {
            lines.push(format!(
                "{title}: managed server; options and their values accepted by the server binary"
            ));
            continue;
        }
        if args.dry_run {
            lines.push(format!(
                "{title}: external server; not connected (--dry-run): the login, grants, \
                 connection limits and disk are checked without --dry-run"
            ));
            continue;
        }
        let findings = preflight::external::check(&plan, side)?;
        for warning in &findings.warnings {
            crate::terminal::warning(warning);
        }
        lines.extend(
            findings
                .passed
                .iter()
                .map(|passed| format!("{title}: {passed}")),
        );
    }
    lines.push("check passed: nothing found that would stop the run".to_string());
    crate::terminal::stdout(&format!("{}\n", lines.join("\n")));
    Ok(exit::SUCCESS)
}
