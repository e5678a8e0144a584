//! The files a run writes, checked before anything starts: an output never replaces an
//! input (a profile, its defaults file or password file, the workload file), two outputs never share a
//! path (the CSV would replace the JSON), and a directory is no output. Every one of
//! these used to be found out after the first round, or not at all.

use std::path::{Path, PathBuf};

use crate::exit::UsageError;
use crate::paths::same_file;
use crate::plan::{Outputs, Plan, TargetSpec};

/// The flag that names each output, for the messages.
fn named(outputs: &Outputs) -> Vec<(&'static str, &Path)> {
    [
        ("--json", &outputs.json),
        ("--markdown", &outputs.markdown),
        ("--html", &outputs.html),
        ("--csv", &outputs.csv),
        ("--junit", &outputs.junit),
    ]
    .into_iter()
    .filter_map(|(flag, path)| path.as_deref().map(|p| (flag, p)))
    .collect()
}

/// The files a plan reads: both profiles, their defaults files and password files, the
/// workload file.
pub(crate) fn inputs(plan: &Plan, workload_file: Option<&Path>) -> Vec<PathBuf> {
    let mut inputs: Vec<PathBuf> = plan.sides.iter().map(|s| s.profile.clone()).collect();
    inputs.extend(plan.sides.iter().filter_map(|s| s.password_file.clone()));
    for side in &plan.sides {
        if let TargetSpec::Managed {
            defaults_file: Some(file),
            ..
        } = &side.target
        {
            inputs.push(file.path.clone());
        }
    }
    inputs.extend(workload_file.map(Path::to_path_buf));
    inputs
}

/// Refuses outputs that are directories, share a path, or name an input.
pub(crate) fn check(outputs: &Outputs, inputs: &[PathBuf]) -> anyhow::Result<()> {
    let outputs = named(outputs);
    for (i, (flag, path)) in outputs.iter().enumerate() {
        if path.is_dir() {
            return Err(UsageError::err(format!(
                "{flag} {} is a directory; name a file in it, such as {}",
                path.display(),
                path.join("results.json").display()
            )));
        }
        if let Some((other, _)) = outputs[..i].iter().find(|(_, p)| same_file(p, path)) {
            return Err(UsageError::err(format!(
                "{other} and {flag} both name {}; give each output its own file",
                path.display()
            )));
        }
        if let Some(input) = inputs.iter().find(|input| same_file(input, path)) {
            return Err(UsageError::err(format!(
                "{flag} {} is an input of the run ({}); writing there would destroy it — \
                 choose another path",
                path.display(),
                input.display()
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_never_meet_inputs_each_other_or_directories() {
        let dir = tempfile::tempdir().unwrap();
        let profile = dir.path().join("a.toml");
        std::fs::write(&profile, "").unwrap();
        let inputs = vec![profile.clone()];
        let json = |path: &Path| Outputs {
            json: Some(path.to_path_buf()),
            ..Outputs::default()
        };
        let refused = check(&json(&profile), &inputs).unwrap_err().to_string();
        assert!(refused.contains("is an input of the run"), "{refused}");
        let refused = check(&json(dir.path()), &inputs).unwrap_err().to_string();
        assert!(refused.contains("is a directory"), "{refused}");
        let same = dir.path().join("out");
        let both = Outputs {
            json: Some(same.clone()),
            csv: Some(dir.path().join(".").join("out")),
            ..Outputs::default()
        };
        let refused = check(&both, &inputs).unwrap_err().to_string();
        assert!(refused.contains("--json and --csv both name"), "{refused}");
        assert!(check(&json(&dir.path().join("results.json")), &inputs).is_ok());
    }
}
