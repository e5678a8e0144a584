//! One writer per output file. Two runs given the same `--json` used to rewrite it in
//! turn after every round, and the file ended up holding one of them with nothing said.
//! Each output is claimed with an advisory lock (`flock`) on a file beside it,
//! `NAME.lock`, which holds the writer's process id for the message of whoever is
//! refused. The lock is on that file and not on the output because the output is
//! replaced by a rename after every round, which would leave the lock on a file nobody
//! opens again. The kernel drops the lock when the process ends, however it ends
//! (`kill -9` too), so a lock is never stale; the lock file is removed when the claim
//! ends, and a claim checks that the file it locked is still the one at the path, so
//! one being removed at that moment is not taken for a free one.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// A held claim on an output; dropping it releases the lock and removes the lock file.
#[derive(Debug)]
pub(crate) struct OutputLock {
    file: File,
    path: PathBuf,
}

impl Drop for OutputLock {
    fn drop(&mut self) {
        // Removed while still locked: whoever opened it meanwhile finds it gone.
        let _ = std::fs::remove_file(&self.path);
        let _ = self.file.unlock();
    }
}

/// The lock file of `output`: beside the file it names, so every spelling of the
/// output (through links, `..`, relative or not) meets the same lock.
pub(crate) fn lock_path(output: &Path) -> PathBuf {
    let output = super::resolved::resolved(output).unwrap_or_else(|| output.to_path_buf());
    let mut name = output.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    output.with_file_name(name)
}

/// Claims `output` for this process: `Ok(Err(pid))` when another process holds it (its
/// process id when it could be read).
pub(crate) fn lock(output: &Path) -> std::io::Result<Result<OutputLock, Option<u32>>> {
    let path = lock_path(output);
    loop {
        // Never through a link, and never a file with another name too: in a directory
        // others can write, `NAME.lock` could be a link or a hard link someone planted
        // to make abtest overwrite a file of its user's.
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&path)
            .map_err(|e| planted(&path, e))?;
        let meta = file.metadata()?;
        if !meta.is_file() || meta.nlink() > 1 {
            return Err(std::io::Error::other(format!(
                "{} is not a plain lock file (a link or a special file someone put there); \
                 remove it, or write the output to a directory only you can write",
                path.display()
            )));
        }
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => return Ok(Err(holder(&mut file))),
            Err(TryLockError::Error(e)) => return Err(e),
        }
        if !still_at(&file, &path)? {
            continue;
        }
        file.set_len(0)?;
        file.write_all(format!("{}\n", std::process::id()).as_bytes())?;
        return Ok(Ok(OutputLock { file, path }));
    }
}

/// The error of opening a lock file that is a symbolic link, said plainly.
fn planted(path: &Path, error: std::io::Error) -> std::io::Error {
    if error.raw_os_error() == Some(libc::ELOOP) {
        std::io::Error::other(format!(
            "{} is a symbolic link; abtest never follows one to write its lock. Remove it, \
             or write the output to a directory only you can write",
            path.display()
        ))
    } else {
        error
    }
}

/// Whether `file` is still the file at `path` (its holder may have removed it between
/// our open and our lock).
fn still_at(file: &File, path: &Path) -> std::io::Result<bool> {
    let held = file.metadata()?;
    Ok(std::fs::metadata(path).is_ok_and(|now| (now.dev(), now.ino()) == (held.dev(), held.ino())))
}

/// The process id the holder wrote into the lock file.
fn holder(file: &mut File) -> Option<u32> {
    let mut text = String::new();
    file.read_to_string(&mut text).ok()?;
    text.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_claim_at_a_time_and_none_left_behind() {
        let dir = tempfile::tempdir().unwrap();
        let output = dir.path().join("results.json");
        let first = lock(&output).unwrap().unwrap();
        let spelled_otherwise = dir.path().join(".").join("results.json");
        assert_eq!(
            lock(&spelled_otherwise).unwrap().unwrap_err(),
            Some(std::process::id())
        );
        assert!(dir.path().join("results.json.lock").exists());
        drop(first);
        assert!(!dir.path().join("results.json.lock").exists());
        let again = lock(&output).unwrap();
        assert!(again.is_ok(), "free again once released");
    }

    #[test]
    fn a_planted_link_or_hard_link_is_never_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "precious").unwrap();
        let output = dir.path().join("out.md");
        std::os::unix::fs::symlink(&victim, dir.path().join("out.md.lock")).unwrap();
        let refused = lock(&output).unwrap_err().to_string();
        assert!(refused.contains("is a symbolic link"), "{refused}");
        std::fs::remove_file(dir.path().join("out.md.lock")).unwrap();
        std::fs::hard_link(&victim, dir.path().join("out.md.lock")).unwrap();
        let refused = lock(&output).unwrap_err().to_string();
        assert!(refused.contains("not a plain lock file"), "{refused}");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    }
}
