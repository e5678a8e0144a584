//! Where a path really is, whether or not the file exists yet: what tells two spellings
//! of one output apart from two outputs, and names the lock beside an output. Kept
//! apart so the lock need not reach back into the module that re-exports it.

use std::path::{Path, PathBuf};

/// A path with its directory resolved: the file itself when it exists, else its
/// resolved parent and its name.
pub(crate) fn resolved(path: &Path) -> Option<PathBuf> {
    if let Ok(full) = path.canonicalize() {
        return Some(full);
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.canonicalize().ok()?,
        _ => std::env::current_dir().ok()?,
    };
    Some(parent.join(path.file_name()?))
}
