//! Whether two paths name one file, existing or not: what keeps an output from landing
//! on an input (a profile, a saved run, a log) or on another output.

use std::path::{Path, PathBuf};

use crate::exit::UsageError;

/// Whether two paths name one file, existing or not (same directory, same name).
pub(crate) fn same_file(a: &Path, b: &Path) -> bool {
    match (resolved(a), resolved(b)) {
        (Some(a), Some(b)) => a == b,
        _ => a == b,
    }
}

/// A path with its directory resolved: the file itself when it exists, else its
/// resolved parent and its name.
fn resolved(path: &Path) -> Option<PathBuf> {
    if let Ok(full) = path.canonicalize() {
        return Some(full);
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.canonicalize().ok()?,
        _ => std::env::current_dir().ok()?,
    };
    Some(parent.join(path.file_name()?))
}

/// Refuses an output path that names the input file: writing there would destroy it.
pub(crate) fn refuse_overwriting_input(output: &Path, input: &Path) -> anyhow::Result<()> {
    if same_file(output, input) {
        return Err(UsageError::err(format!(
            "{} is the input file; write the output to another path",
            output.display()
        )));
    }
    Ok(())
}
