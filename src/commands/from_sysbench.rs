//! `abtest from-sysbench '<command line or script>'`: print the abtest command that does
//! what the sysbench lines did, with the profiles it names, printed or written to files.

use std::path::Path;

use anyhow::Context as _;

use crate::cli::FromSysbenchArgs;
use crate::exit::{self, UsageError};
use crate::sysbench::script::translate_text;
use crate::sysbench::whole::{self, Profile};

/// Prints the command, the profiles (or writes them), and what could not be mapped.
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
    let translations = translate_text(&quoted.join(" ")).map_err(UsageError::err)?;
    let profiles = whole::profiles(&translations[0]);
    let (baseline, variant) = match &args.write {
        Some(dir) => {
            write_profiles(dir, &profiles)?;
            (
                dir.join(profiles[0].file).display().to_string(),
                dir.join(profiles[1].file).display().to_string(),
            )
        }
        None => (profiles[0].file.to_string(), profiles[1].file.to_string()),
    };
    let commands: Vec<(String, &_)> = translations
        .iter()
        .map(|t| (whole::command(t, &baseline, &variant), t))
        .collect();
    let shown = args.write.is_none().then_some(&profiles[..]);
    crate::terminal::stdout(&whole::render(&commands, shown));
    Ok(exit::SUCCESS)
}

/// Writes the profiles into `dir` (created if needed), refusing to replace a file.
fn write_profiles(dir: &Path, profiles: &[Profile]) -> anyhow::Result<()> {
    for profile in profiles {
        let path = dir.join(profile.file);
        if path.exists() {
            return Err(UsageError::err(format!(
                "{} exists; from-sysbench does not overwrite a profile: remove it or give \
                 --write another directory",
                path.display()
            )));
        }
    }
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    for profile in profiles {
        let path = dir.join(profile.file);
        std::fs::write(&path, &profile.text)
            .with_context(|| format!("writing {}", path.display()))?;
        crate::terminal::note(format_args!("wrote {}", path.display()));
    }
    Ok(())
}
