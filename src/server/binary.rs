//! Finding the server programs abtest starts: `mariadbd` (or `mysqld`) and
//! `mariadb-install-db`, on PATH or where Debian installs them.

use std::path::{Path, PathBuf};

/// Finds `mariadbd` (or `mysqld`) on PATH or in /usr/sbin.
pub fn find_server_binary() -> Option<PathBuf> {
    find_program(&["mariadbd", "mysqld"])
}

/// Finds the first of `names` on PATH, /usr/sbin or /usr/bin.
pub(crate) fn find_program(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs: Vec<PathBuf> = std::env::split_paths(&path).collect();
    dirs.extend([PathBuf::from("/usr/sbin"), PathBuf::from("/usr/bin")]);
    names
        .iter()
        .flat_map(|name| dirs.iter().map(move |dir| dir.join(name)))
        .find(|candidate| is_executable(candidate))
}

pub(crate) fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}
