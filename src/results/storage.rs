//! The results file on disk: written whole or not at all (a temporary file in the same
//! directory, synced, then renamed over the old one), its place checked before a run
//! starts, and read back with its version brought forward and its rounds checked.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;

use super::file::{ResultsFile, ResultsOf};
use super::{checks, schema};

/// Writes `contents` to `path` atomically: a temp file in the same directory, fsync, rename.
/// On failure the previous file is left intact. A symbolic link is replaced, never
/// written through (one swapped in during a run must not redirect the write); a path
/// holding anything but a regular file is refused,
/// since the rename would put a regular file in place of the device, pipe or socket.
pub(crate) fn write_atomic(path: &Path, contents: &[u8]) -> anyhow::Result<()> {
    let target = crate::paths::write_target(path)?;
    let path = target.as_path();
    let dir = parent_dir(path);
    let mut temp = tempfile::NamedTempFile::new_in(&dir).with_context(|| {
        format!(
            "cannot create a file in {} for {}",
            dir.display(),
            path.display()
        )
    })?;
    temp.write_all(contents)
        .and_then(|_| temp.as_file().sync_all())
        .with_context(|| format!("writing {}", path.display()))?;
    temp.persist(path)
        .map_err(|e| e.error)
        .with_context(|| format!("replacing {}", path.display()))?;
    Ok(())
}

/// Checks before a run that `path` can be written, so a typo does not cost a whole run.
pub(crate) fn check_writable(path: &Path) -> anyhow::Result<()> {
    let dir = parent_dir(path);
    tempfile::NamedTempFile::new_in(&dir)
        .map(drop)
        .map_err(|e| {
            crate::exit::UsageError::err(format!(
                "cannot write {} ({e}); choose a path in a writable directory",
                path.display()
            ))
        })
}

fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Saves the results as pretty JSON.
pub(crate) fn save(path: &Path, results: ResultsOf<'_>) -> anyhow::Result<()> {
    let mut json = serde_json::to_vec_pretty(&results)?;
    json.push(b'\n');
    write_atomic(path, &json)
}

/// Reads a results file.
pub(crate) fn load(path: &Path) -> anyhow::Result<ResultsFile> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let not_results = || format!("{} is not an abtest results file", path.display());
    let file: serde_json::Value = serde_json::from_str(&text).with_context(not_results)?;
    let file = schema::migrate(file).map_err(|why| anyhow::anyhow!("{}: {why}", not_results()))?;
    let results: ResultsFile = serde_json::from_value(file).with_context(not_results)?;
    checks::check(&results.record).map_err(|why| {
        anyhow::anyhow!(
            "{}: {why}; abtest reads only results files as a run wrote them",
            path.display()
        )
    })?;
    Ok(results)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// A link swapped in for an output during a run (in a directory others can write)
    /// is replaced by the file; the file it led to is never written.
    #[test]
    fn a_write_replaces_a_link_and_never_follows_it() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "precious").unwrap();
        let output = dir.path().join("out.csv");
        std::os::unix::fs::symlink(&victim, &output).unwrap();
        super::write_atomic(&output, b"round,tps\n").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        assert!(
            !std::fs::symlink_metadata(&output)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read_to_string(&output).unwrap(), "round,tps\n");
    }

    /// The results files kept in the repository, as runs and merges wrote them.
    fn kept_results() -> Vec<std::path::PathBuf> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = vec![root.join("tests/fixtures/audit-point-select.json")];
        for dir in std::fs::read_dir(root.join("examples")).unwrap() {
            let dir = dir.unwrap().path();
            if !dir.is_dir() {
                continue;
            }
            for file in std::fs::read_dir(dir).unwrap() {
                let path = file.unwrap().path();
                if path.extension().is_some_and(|e| e == "json") {
                    files.push(path);
                }
            }
        }
        files
    }

    #[test]
    fn every_kept_results_file_passes_the_checks() {
        let files = kept_results();
        assert!(files.len() > 5, "{files:?}");
        for path in files {
            if let Err(e) = super::load(&path) {
                panic!("{}: {e:#}", path.display());
            }
        }
    }
}
