//! A server started from its own install tree: an unpacked tarball or a second install
//! under a basedir of its own, the old or the new version of a pre-upgrade comparison.
//!
//! A server binary alone is not a server: `mariadb-install-db` writes the system tables
//! from SQL files of its own version, mariadbd reads its error messages (`errmsg.sys`) and
//! loads its plugins from its tree. Taking any of them from the system install would
//! measure a mix of two versions, or fail at start with "Unknown/unsupported storage
//! engine" or an error-message file of the wrong size. So every piece is looked up in the
//! tree, once, where the profile is resolved, and the dry run shows the paths found.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::binary::is_executable;

/// Where a server binary sits in an install tree, in the order they are tried: the
/// tarball's `bin/`, a package's `sbin/`, then `libexec/`, and the old name `mysqld`.
pub(crate) const SERVER_BINARIES: &[&str] = &[
    "bin/mariadbd",
    "sbin/mariadbd",
    "libexec/mariadbd",
    "bin/mysqld",
    "sbin/mysqld",
    "libexec/mysqld",
];

/// Where the script that installs the system tables sits: `scripts/` in a tarball,
/// `bin/` in a package.
const INSTALL_SCRIPTS: &[&str] = &[
    "scripts/mariadb-install-db",
    "bin/mariadb-install-db",
    "scripts/mysql_install_db",
    "bin/mysql_install_db",
];

/// The directories holding `english/errmsg.sys`: `share/` in a tarball, `share/mysql/`
/// or `share/mariadb/` in a package.
const MESSAGE_DIRS: &[&str] = &["share", "share/mysql", "share/mariadb"];

/// The plugin directories of a tarball (`lib/plugin`) and of packages.
const PLUGIN_DIRS: &[&str] = &[
    "lib/plugin",
    "lib/mysql/plugin",
    "lib/mariadb/plugin",
    "lib64/plugin",
    "lib64/mysql/plugin",
    "lib64/mariadb/plugin",
];

/// Where the defaults-file reader sits.
const PRINT_DEFAULTS: &[&str] = &[
    "bin/my_print_defaults",
    "bin/mariadb-print-defaults",
    "extra/my_print_defaults",
];

/// The directories a server binary sits in, below its tree.
const BINARY_DIRS: &[&str] = &["bin", "sbin", "libexec"];

/// The pieces of one install tree a managed server is installed and started with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct InstallTree {
    /// The top directory of the install (`--basedir`).
    pub(crate) basedir: PathBuf,
    /// Its `mariadb-install-db`.
    pub(crate) install_db: PathBuf,
    /// The directory holding `english/errmsg.sys` (`--lc-messages-dir`).
    pub(crate) lc_messages_dir: PathBuf,
    /// Its plugin directory (`--plugin-dir`), when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) plugin_dir: Option<PathBuf>,
    /// Its `my_print_defaults`, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) print_defaults: Option<PathBuf>,
}

impl InstallTree {
    /// Reads the tree at `basedir`; the error says which piece is missing and where it
    /// was looked for.
    pub(crate) fn read(basedir: &Path) -> Result<InstallTree, String> {
        if !basedir.is_dir() {
            return Err(format!("{} is not a directory", basedir.display()));
        }
        let install_db = first_executable(basedir, INSTALL_SCRIPTS)
            .ok_or_else(|| missing(basedir, "mariadb-install-db", INSTALL_SCRIPTS))?;
        let lc_messages_dir = MESSAGE_DIRS
            .iter()
            .map(|dir| basedir.join(dir))
            .find(|dir| dir.join("english/errmsg.sys").is_file())
            .ok_or_else(|| {
                let looked: Vec<String> = MESSAGE_DIRS
                    .iter()
                    .map(|dir| format!("{dir}/english/errmsg.sys"))
                    .collect();
                missing(
                    basedir,
                    "error messages",
                    &looked.iter().map(String::as_str).collect::<Vec<_>>(),
                )
            })?;
        Ok(InstallTree {
            basedir: basedir.to_path_buf(),
            install_db,
            lc_messages_dir,
            plugin_dir: PLUGIN_DIRS
                .iter()
                .map(|dir| basedir.join(dir))
                .find(|dir| dir.is_dir()),
            print_defaults: first_executable(basedir, PRINT_DEFAULTS),
        })
    }

    /// The options that make mariadbd take everything from this tree; they come before
    /// the profile's, so a profile may still set `plugin_dir` itself.
    pub(crate) fn server_args(&self) -> Vec<String> {
        let mut args = vec![
            format!("--basedir={}", self.basedir.display()),
            format!("--lc-messages-dir={}", self.lc_messages_dir.display()),
        ];
        if let Some(plugins) = &self.plugin_dir {
            args.push(format!("--plugin-dir={}", plugins.display()));
        }
        args
    }
}

/// The server binary under `basedir`, the first of [`SERVER_BINARIES`] there.
pub(crate) fn server_binary(basedir: &Path) -> Option<PathBuf> {
    first_executable(basedir, SERVER_BINARIES)
}

/// The tree a server binary was installed with, when it sits in one outside /usr (the
/// system install keeps its compiled-in paths): `bin/`, `sbin/` or `libexec/` below a
/// directory with `share/`.
pub(crate) fn tree_of(binary: &Path) -> Option<PathBuf> {
    let dir = binary.parent()?;
    let name = dir.file_name()?.to_str()?;
    let tree = dir.parent()?;
    (BINARY_DIRS.contains(&name) && tree != Path::new("/usr") && tree.join("share").is_dir())
        .then(|| tree.to_path_buf())
}

fn first_executable(basedir: &Path, candidates: &[&str]) -> Option<PathBuf> {
    candidates
        .iter()
        .map(|candidate| basedir.join(candidate))
        .find(|path| is_executable(path))
}

fn missing(basedir: &Path, what: &str, looked: &[&str]) -> String {
    format!(
        "no {what} in the install tree {}: looked for {}",
        basedir.display(),
        looked.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn touch(root: &Path, path: &str, executable: bool) {
        let file = root.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, "").unwrap();
        let mode = if executable { 0o755 } else { 0o644 };
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    #[test]
    fn a_tarball_layout_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        touch(root, "bin/mariadbd", true);
        touch(root, "scripts/mariadb-install-db", true);
        touch(root, "bin/my_print_defaults", true);
        touch(root, "share/english/errmsg.sys", false);
        std::fs::create_dir_all(root.join("lib/plugin")).unwrap();
        assert_eq!(server_binary(root), Some(root.join("bin/mariadbd")));
        let tree = InstallTree::read(root).unwrap();
        assert_eq!(tree.install_db, root.join("scripts/mariadb-install-db"));
        assert_eq!(tree.lc_messages_dir, root.join("share"));
        assert_eq!(tree.plugin_dir, Some(root.join("lib/plugin")));
        assert_eq!(
            tree.print_defaults,
            Some(root.join("bin/my_print_defaults"))
        );
        assert_eq!(tree_of(&root.join("bin/mariadbd")).as_deref(), Some(root));
    }

    #[test]
    fn a_missing_piece_is_named_with_where_it_was_looked_for() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        touch(root, "sbin/mariadbd", true);
        let error = InstallTree::read(root).unwrap_err();
        assert!(error.contains("mariadb-install-db"), "{error}");
        assert!(error.contains("scripts/mariadb-install-db"), "{error}");
        touch(root, "bin/mariadb-install-db", true);
        let error = InstallTree::read(root).unwrap_err();
        assert!(error.contains("share/mysql/english/errmsg.sys"), "{error}");
        assert!(server_binary(&root.join("nowhere")).is_none());
    }

    #[test]
    fn the_system_install_is_no_tree() {
        assert_eq!(tree_of(Path::new("/usr/sbin/mariadbd")), None);
        assert_eq!(tree_of(Path::new("/opt/wrapper/mariadbd")), None);
    }
}
