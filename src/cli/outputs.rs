//! The output flags — `--json`, `--markdown`, `--html`, `--csv`, `--junit` — made from
//! the one list of formats (`report::formats`), so a run, `merge`, `report` and
//! `analyze` take the same flags with the same help, and a new format needs no flag here.

use std::path::PathBuf;

use clap::{Arg, ArgMatches, Args, Command, FromArgMatches};

use crate::report::files::Outputs;
use crate::report::formats::Format;

/// The files a command writes, one flag a format.
#[derive(Debug, Clone, Default)]
pub(crate) struct OutputArgs {
    /// Each format given, with its file.
    pub(crate) outputs: Outputs,
}

impl FromArgMatches for OutputArgs {
    fn from_arg_matches(matches: &ArgMatches) -> Result<OutputArgs, clap::Error> {
        let mut args = OutputArgs::default();
        args.update_from_arg_matches(matches)?;
        Ok(args)
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        for (format, file) in Format::files() {
            if let Some(path) = matches.get_one::<PathBuf>(file.key()) {
                self.outputs.set(format, path.clone());
            }
        }
        Ok(())
    }
}

impl Args for OutputArgs {
    fn augment_args(command: Command) -> Command {
        Format::files().fold(command, |command, (_, file)| {
            command.arg(
                Arg::new(file.key())
                    .long(file.key())
                    .value_name("FILE")
                    .value_parser(clap::value_parser!(PathBuf))
                    .help(file.help),
            )
        })
    }

    fn augment_args_for_update(command: Command) -> Command {
        OutputArgs::augment_args(command)
    }
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, Parser};

    use super::*;
    use crate::cli::Cli;

    /// A format added to `report::formats` is a flag of a run, `merge`, `report` and
    /// `analyze`, and is saved in the plan, with no change anywhere else.
    #[test]
    fn every_file_format_is_a_flag_of_every_command_that_writes() {
        let mut cli = Cli::command();
        cli.build();
        for command in [None, Some("merge"), Some("report"), Some("analyze")] {
            let command = match command {
                None => &cli,
                Some(name) => cli.find_subcommand(name).unwrap(),
            };
            for (_, file) in Format::files() {
                let flag = command.get_arguments().find(|a| a.get_id() == file.key());
                assert!(
                    flag.is_some(),
                    "{} has no {}",
                    command.get_name(),
                    file.flag
                );
            }
        }
        let mut words = vec!["abtest".to_string(), "merge".into(), "a.json".into()];
        for (_, file) in Format::files() {
            words.extend([file.flag.to_string(), format!("out.{}", file.key())]);
        }
        let Some(crate::cli::Command::Merge(merge)) = Cli::parse_from(words).command else {
            panic!("not a merge");
        };
        let saved = merge.outputs.outputs.saved();
        let keys = serde_json::to_value(&saved).unwrap();
        for (format, file) in Format::files() {
            let path = PathBuf::from(format!("out.{}", file.key()));
            assert_eq!(merge.outputs.outputs.path(format), Some(path.as_path()));
            assert_eq!(keys[file.key()], path.display().to_string());
        }
        let back = Outputs::of_plan(&saved);
        assert_eq!(back, merge.outputs.outputs);
    }
}
