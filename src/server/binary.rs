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

/// The release series of a server binary (`10.11` for `Ver 10.11.19-MariaDB…`), from
/// `--version`; none when it cannot be read.
pub(crate) fn version_series(binary: &Path) -> Option<String> {
    let output = std::process::Command::new(binary)
        .arg("--version")
        .env_clear()
        .envs(super::process::child_environment())
        .output()
        .ok()?;
    series_of(&String::from_utf8_lossy(&output.stdout))
}

fn series_of(version_line: &str) -> Option<String> {
    let version = version_line
        .split_once("Ver ")?
        .1
        .split_whitespace()
        .next()?;
    let mut parts = version.split(['.', '-']);
    let (major, minor) = (parts.next()?, parts.next()?);
    (major.chars().all(|c| c.is_ascii_digit()) && minor.chars().all(|c| c.is_ascii_digit()))
        .then(|| format!("{major}.{minor}"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_series_is_major_and_minor() {
        let line =
            "/usr/sbin/mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu on x86_64";
        assert_eq!(super::series_of(line).as_deref(), Some("10.11"));
        assert_eq!(super::series_of("nonsense"), None);
    }
}
