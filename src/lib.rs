//! abtest: runs the same sysbench-style OLTP workload against a baseline and a variant
//! MySQL/MariaDB configuration in alternating rounds, and reports what the change costs
//! with confidence intervals a reviewer can trust.
//!
//! The flow is: [`cli`] flags and two [`profile`]s resolve into a [`plan::Plan`]; the
//! [`runner`] opens both [`target`]s, prepares the [`workload`] data and runs the rounds;
//! [`stats`] turns per-round samples into comparisons; [`report`] renders them.

mod analysis;
mod answers;
mod capture;
mod cli;
mod commands;
pub mod cpu;
mod db;
mod exit;
mod histogram;
mod host;
mod host_load;
mod named;
mod paths;
mod percent;
mod placement;
mod plan;
mod preflight;
pub mod profile;
mod report;
mod resolve;
mod results;
pub mod roundcsv;
mod runner;
mod schedule;
mod secret;
mod segment;
mod serde_secs;
pub mod server;
mod side;
mod stats;
mod stop;
mod sysbench;
mod target;
mod terminal;
pub mod thread_policy;
pub mod workload;

#[cfg(test)]
mod architecture_tests;

use std::ffi::OsString;

use clap::Parser;

use crate::cli::{Cli, Command};

/// Parses `args`, runs, and returns the process exit code.
pub fn main_with_args<I: IntoIterator<Item = OsString>>(args: I) -> i32 {
    let args: Vec<OsString> = args.into_iter().collect();
    // Help and usage errors come before the parsed flags exist: `--color` is read first.
    terminal::configure(false, colour_asked(&args));
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) => {
            let hints = e
                .use_stderr()
                .then(|| sysbench::habits::hints(&args, &cli::long_options()))
                .flatten();
            terminal::clap_message(&e.render(), e.use_stderr(), |text| match &hints {
                Some(hints) => sysbench::habits::with_hints(&text, hints),
                None => text,
            });
            if !e.use_stderr() {
                return exit::SUCCESS;
            }
            return exit::USAGE;
        }
    };
    terminal::configure(
        cli.terminal.quiet,
        match cli.terminal.color {
            clap::ColorChoice::Auto => terminal::Colour::Auto,
            clap::ColorChoice::Always => terminal::Colour::Always,
            clap::ColorChoice::Never => terminal::Colour::Never,
        },
    );
    let outcome = match &cli.command {
        None => commands::run::execute(&cli.run, reproduce_command(&args)),
        Some(Command::Analyze(analyze)) => commands::analyze::execute(analyze),
        Some(Command::PlanRounds(plan)) => commands::plan_rounds::execute(plan),
        Some(Command::Report(report)) => commands::report::execute(report),
        Some(Command::FromSysbench(args)) => commands::from_sysbench::execute(args),
        Some(Command::ImportSysbenchLog(args)) => commands::import_log::execute(args),
        Some(Command::Cleanup(args)) => commands::cleanup::execute(args),
        Some(Command::Restore(args)) => commands::restore::execute(args),
        Some(Command::Capture(args)) => commands::capture::execute(args),
        Some(Command::Merge(args)) => commands::merge::execute(args),
        Some(Command::Calibrate(args)) => commands::calibrate::execute(args),
        Some(Command::Check(args)) => commands::check::execute(args),
    };
    match outcome {
        Ok(code) => code,
        Err(e) => {
            terminal::error(format_args!("{}", db::errors::chain_message(&e)));
            exit::code_for(&e)
        }
    }
}

/// The command line as a shell would need it to run again. Profiles hold the secrets,
/// never the command line, so this is safe to print.
fn reproduce_command(args: &[OsString]) -> String {
    let quote = |arg: &OsString| {
        let text = arg.to_string_lossy();
        if !text.is_empty()
            && text
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_./=,:%".contains(c))
        {
            text.into_owned()
        } else {
            format!("'{}'", text.replace('\'', r"'\''"))
        }
    };
    // Run again, the command must not replace the run it reproduces unless asked anew.
    let mut words: Vec<String> = args
        .iter()
        .filter(|arg| *arg != "--overwrite")
        .map(quote)
        .collect();
    if let Some(first) = words.first_mut() {
        *first = "abtest".into();
    }
    words.join(" ")
}

/// The colour `--color` asks for, read from the raw arguments (the last one given), so
/// that `--help` and a usage error honour it too.
fn colour_asked(args: &[OsString]) -> terminal::Colour {
    let mut asked = None;
    let mut words = args.iter().filter_map(|a| a.to_str());
    while let Some(word) = words.next() {
        if word == "--" {
            break;
        }
        let value = match word.strip_prefix("--color") {
            Some("") => words.next(),
            Some(rest) => rest.strip_prefix('='),
            None => None,
        };
        asked = value.or(asked);
    }
    match asked {
        Some("always") => terminal::Colour::Always,
        Some("never") => terminal::Colour::Never,
        _ => terminal::Colour::Auto,
    }
}
