//! The files a my.cnf pulls in. mariadbd reads `!include FILE` and every `*.cnf` file of
//! `!includedir DIR`, nested up to ten levels; abtest reads a `defaults_file`'s options
//! through `my_print_defaults`, which follows them without naming them. They are listed
//! here, read as mariadbd reads them (`mysys/my_default.c`), because each is part of the
//! defaults file: an output of a run must never land on one.

use std::path::{Path, PathBuf};

/// How deep mariadbd follows includes (`max_recursion_level`).
const DEPTH: usize = 10;

/// A file pulled in by another.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Included {
    /// The file read.
    pub(crate) path: PathBuf,
    /// The file whose directive pulled it in.
    pub(crate) by: PathBuf,
    /// `!include` or `!includedir`.
    pub(crate) directive: &'static str,
}

/// Every file `defaults_file` pulls in, directly or through another, each once.
pub(crate) fn included(defaults_file: &Path) -> Vec<Included> {
    let mut found = Vec::new();
    follow(defaults_file, defaults_file, 0, &mut found);
    found
}

fn follow(root: &Path, file: &Path, level: usize, found: &mut Vec<Included>) {
    if level >= DEPTH {
        return;
    }
    let Ok(text) = std::fs::read(file) else {
        return;
    };
    for line in String::from_utf8_lossy(&text).lines() {
        let Some((directive, argument)) = directive(line) else {
            continue;
        };
        for path in members(directive, argument) {
            if path == root || found.iter().any(|f| f.path == path) {
                continue;
            }
            found.push(Included {
                path: path.clone(),
                by: file.to_path_buf(),
                directive,
            });
            follow(root, &path, level + 1, found);
        }
    }
}

/// The directive of a line and its argument: `!` and spaces, the keyword, at least one
/// space, then the rest of the line with its trailing spaces dropped.
fn directive(line: &str) -> Option<(&'static str, &str)> {
    let rest = line.trim_start().strip_prefix('!')?.trim_start();
    ["!includedir", "!include"]
        .into_iter()
        .find_map(|directive| {
            let argument = rest.strip_prefix(&directive[1..])?;
            argument
                .starts_with(char::is_whitespace)
                .then(|| (directive, argument.trim()))
        })
}

/// The files a directive reads: the file of `!include`; the `*.cnf` files of an
/// `!includedir`, in name order.
fn members(directive: &str, argument: &str) -> Vec<PathBuf> {
    if directive == "!include" {
        return vec![PathBuf::from(argument)];
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(argument)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "cnf"))
        .collect();
    files.sort();
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn includes_and_included_directories_are_followed_to_any_depth() {
        let dir = tempfile::tempdir().unwrap();
        let path = |name: &str| dir.path().join(name);
        std::fs::create_dir(path("conf.d")).unwrap();
        std::fs::write(
            path("my.cnf"),
            format!(
                "[mysqld]\n  ! include  {} \n!includedir\t{}\n# !include {}\n!includex {}\n",
                path("extra.cnf").display(),
                path("conf.d").display(),
                path("commented.cnf").display(),
                path("not-a-directive.cnf").display(),
            ),
        )
        .unwrap();
        std::fs::write(
            path("extra.cnf"),
            format!("!include {}\n", path("my.cnf").display()),
        )
        .unwrap();
        std::fs::write(
            path("conf.d/a.cnf"),
            format!("!include {}\n", path("deep.ini").display()),
        )
        .unwrap();
        std::fs::write(path("conf.d/skipped.txt"), "").unwrap();
        let found: Vec<(PathBuf, &str)> = included(&path("my.cnf"))
            .into_iter()
            .map(|i| (i.path, i.directive))
            .collect();
        assert_eq!(
            found,
            [
                (path("extra.cnf"), "!include"),
                (path("conf.d/a.cnf"), "!includedir"),
                (path("deep.ini"), "!include"),
            ]
        );
    }
}
