//! `abtest --resume results.json`: continue an interrupted or failed run from the next
//! round. The plan is rebuilt from the saved command line and must match the saved plan;
//! the servers' facts must match the saved facts. Otherwise abtest refuses and says what
//! changed, because rounds measured against a different plan or server cannot be
//! compared.

use clap::Parser;

use crate::cli::Cli;
use crate::exit::UsageError;
use crate::plan::Plan;
use crate::results::{self, ResultsFile, RunStatus};

/// Parts of the plan that must not change between the run and its resumption.
const FIXED_PLAN_PARTS: [&str; 5] = ["sides", "workload", "schedule", "seed", "client"];

/// The plan to resume and the results so far.
pub fn load(path: &std::path::Path) -> anyhow::Result<(Plan, ResultsFile)> {
    let previous = results::load(path).map_err(|e| UsageError::err(format!("--resume: {e:#}")))?;
    if previous.status == RunStatus::Completed {
        return Err(UsageError::err(format!(
            "--resume: {} is a completed run; there is nothing to resume",
            path.display()
        )));
    }
    let command_line = previous.plan["command_line"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let mut words = shlex::split(&command_line)
        .ok_or_else(|| UsageError::err("--resume: the saved command line cannot be parsed"))?;
    let seed = previous.plan["seed"].as_u64().unwrap_or_default();
    for option in ["--seed", "--json"] {
        words = without_option(words, option);
    }
    words.extend([
        "--seed".to_string(),
        seed.to_string(),
        "--json".to_string(),
        path.display().to_string(),
    ]);
    let cli = Cli::try_parse_from(&words)
        .map_err(|e| UsageError::err(format!("--resume: the saved command line: {e}")))?;
    let plan = Plan::resolve(&cli.run, command_line)?;
    check_same_plan(&plan, &previous)?;
    Ok((plan, previous))
}

fn check_same_plan(plan: &Plan, previous: &ResultsFile) -> anyhow::Result<()> {
    let now = serde_json::to_value(plan)?;
    let changed: Vec<&str> = FIXED_PLAN_PARTS
        .iter()
        .copied()
        .filter(|part| now[*part] != previous.plan[*part])
        .collect();
    if changed.is_empty() {
        return Ok(());
    }
    Err(UsageError::err(format!(
        "--resume: the plan changed since the run started ({}); the profiles or abtest's \
         defaults differ. Start a new run instead",
        changed.join(", ")
    )))
}

/// `words` without `option` and its value (`--option value` or `--option=value`).
fn without_option(words: Vec<String>, option: &str) -> Vec<String> {
    let mut kept = Vec::with_capacity(words.len());
    let mut skip_next = false;
    for word in words {
        if skip_next {
            skip_next = false;
        } else if word == option {
            skip_next = true;
        } else if !word.starts_with(&format!("{option}=")) {
            kept.push(word);
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removes_an_option_in_both_spellings() {
        let words: Vec<String> = ["abtest", "--seed", "3", "--rounds", "2", "--seed=4"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            without_option(words, "--seed"),
            vec!["abtest", "--rounds", "2"]
        );
    }
}
