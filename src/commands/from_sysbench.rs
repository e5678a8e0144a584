//! `abtest from-sysbench '<command line>'`: print the abtest equivalent.

use crate::cli::FromSysbenchArgs;
use crate::exit::{self, UsageError};
use crate::sysbench::translate::translate;

/// Prints the translated options, the profile stub and what could not be mapped.
pub(crate) fn execute(args: &FromSysbenchArgs) -> anyhow::Result<i32> {
    let quoted: Vec<String> = args
        .command_line
        .iter()
        .map(|word| {
            if args.command_line.len() > 1 && word.contains(' ') {
                format!("'{word}'")
            } else {
                word.clone()
            }
        })
        .collect();
    let translation = translate(&quoted.join(" ")).map_err(UsageError::err)?;
    crate::terminal::stdout(&translation.render());
    Ok(exit::SUCCESS)
}
