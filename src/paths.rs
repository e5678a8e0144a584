//! Whether two paths name one file, existing or not: what keeps an output from landing
//! on an input (a profile, a saved run, a log) or on another output. And whether a path
//! may be written at all: abtest writes a file whole by renaming a new one over it, which
//! would replace a device, a pipe or a socket with a regular file, so only a regular
//! file (or a path where nothing is yet) is written.

use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

use crate::exit::UsageError;

mod lock;
mod resolved;

pub(crate) use lock::{OutputLock, lock, lock_path};
use resolved::resolved;

/// Whether two paths name one file, existing or not (same directory, same name).
pub(crate) fn same_file(a: &Path, b: &Path) -> bool {
    match (resolved(a), resolved(b)) {
        (Some(a), Some(b)) => a == b,
        _ => a == b,
    }
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

/// What is at `path` when it is something abtest must not write over: a directory, a
/// device, a pipe, a socket, or a symbolic link to one of them or to nothing. `None`
/// when nothing is there or a regular file is (through links too).
pub(crate) fn not_a_regular_file(path: &Path) -> Option<String> {
    let link = std::fs::symlink_metadata(path).ok()?;
    let Ok(target) = std::fs::metadata(path) else {
        return Some("a symbolic link to nothing".to_string());
    };
    let kind = target.file_type();
    let what = if kind.is_file() {
        return None;
    } else if kind.is_dir() {
        "a directory"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_fifo() {
        "a named pipe"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "something other than a regular file"
    };
    Some(match link.file_type().is_symlink() {
        true => format!("a symbolic link to {what}"),
        false => what.to_string(),
    })
}

/// The file a write to `path` replaces: `path` itself. A symbolic link there is
/// replaced by the file, never written through: in a directory others can write, a link
/// swapped in during a run would otherwise send abtest's next write to any file its
/// user may write. Anything else but a regular file there is refused.
pub(crate) fn write_target(path: &Path) -> anyhow::Result<PathBuf> {
    if let Some(what) = not_a_regular_file(path) {
        anyhow::bail!(
            "{} is {what}; abtest writes only regular files (it replaces the file whole), \
             so it leaves it alone",
            path.display()
        );
    }
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Ok(path.to_path_buf());
    }
    Ok(path.canonicalize().unwrap_or_else(|_| path.to_path_buf()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_and_free_paths_may_be_written() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("file");
        std::fs::write(&file, "x").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        let to_dir = dir.path().join("to-dir");
        std::os::unix::fs::symlink(dir.path(), &to_dir).unwrap();
        let dangling = dir.path().join("dangling");
        std::os::unix::fs::symlink(dir.path().join("gone"), &dangling).unwrap();
        assert_eq!(not_a_regular_file(&file), None);
        assert_eq!(not_a_regular_file(&link), None);
        assert_eq!(not_a_regular_file(&dir.path().join("new")), None);
        let what = |path: &Path| not_a_regular_file(path).unwrap();
        assert_eq!(what(dir.path()), "a directory");
        assert_eq!(what(Path::new("/dev/null")), "a character device");
        assert_eq!(what(&to_dir), "a symbolic link to a directory");
        assert_eq!(what(&dangling), "a symbolic link to nothing");
        assert_eq!(
            write_target(&link).unwrap(),
            link,
            "the link, not where it leads"
        );
        let refused = write_target(Path::new("/dev/null"))
            .unwrap_err()
            .to_string();
        assert!(refused.contains("is a character device"), "{refused}");
    }
}
