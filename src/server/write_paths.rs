//! Server options that name a place the server writes to, and where abtest points them.
//!
//! A managed server is a throwaway on someone's host: it must not write where the real
//! server keeps its logs and data, and nothing it writes (a general log holds every
//! statement) may land where others can read it. So an option that names a file or a
//! directory the server writes, from a profile's `[server.options]` or from the user's
//! `defaults_file`, is pointed into the server's private directory, keeping the setting
//! itself on. mariadbd accepts any unambiguous abbreviation (`general-log-fil`), in any
//! case, with `-` or `_` and behind `loose-`; every one of those spellings reaches the
//! same option here. The options abtest sets itself (`datadir`, `log_error`, `tmpdir`,
//! `pid_file`, …) are not in this list: they are refused or replaced, never redirected.

use std::collections::BTreeSet;
use std::path::Path;

use super::options::option_root;

/// What an option's value names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PathKind {
    /// A file, or the base name of a family of files (`log_bin`, `log_basename`): kept
    /// by its base name inside the data directory.
    File,
    /// A directory: the data directory itself.
    Directory,
    /// InnoDB's `name:size[:autoextend];…` list: each name by its base name, relative
    /// to InnoDB's home directory (which is redirected too).
    DataFiles,
}

/// Every option of MariaDB 10.11 and its bundled plugins that names where the server
/// writes, with what its value is. A test holds this list against the installed
/// server's own (`mariadbd --verbose --help`, every bundled plugin loaded).
const WRITE_PATHS: &[(&str, PathKind)] = &[
    ("aria_log_dir_path", PathKind::Directory),
    ("general_log_file", PathKind::File),
    ("innodb_buffer_pool_filename", PathKind::File),
    ("innodb_data_file_path", PathKind::DataFiles),
    ("innodb_data_home_dir", PathKind::Directory),
    ("innodb_log_group_home_dir", PathKind::Directory),
    ("innodb_temp_data_file_path", PathKind::DataFiles),
    ("innodb_tmpdir", PathKind::Directory),
    ("innodb_undo_directory", PathKind::Directory),
    ("log_basename", PathKind::File),
    ("log_bin", PathKind::File),
    ("log_bin_index", PathKind::File),
    ("log_ddl_recovery", PathKind::File),
    ("log_isam", PathKind::File),
    ("log_slow_query_file", PathKind::File),
    ("log_tc", PathKind::File),
    ("master_info_file", PathKind::File),
    ("mroonga_log_file", PathKind::File),
    ("relay_log", PathKind::File),
    ("relay_log_index", PathKind::File),
    ("relay_log_info_file", PathKind::File),
    ("rocksdb_datadir", PathKind::Directory),
    ("rocksdb_tmpdir", PathKind::Directory),
    ("rocksdb_wal_dir", PathKind::Directory),
    ("server_audit_file_path", PathKind::File),
    ("slave_load_tmpdir", PathKind::Directory),
    ("slow_query_log_file", PathKind::File),
    ("sql_error_log_filename", PathKind::File),
    ("wsrep_data_home_dir", PathKind::Directory),
    ("wsrep_status_file", PathKind::File),
];

/// Options of their own whose names begin a write path's name (`general_log` begins
/// `general_log_file`): never an abbreviation of it, even when the server's listing
/// lacks them (a plugin's options appear only when it is loaded).
const NOT_ABBREVIATIONS: &[&str] = &[
    "general_log",
    "log_slow_query",
    "server_audit",
    "slow_query_log",
    "sql_error_log",
];

/// The write-path option `name` sets, as mariadbd resolves it: the same name in any
/// spelling, or an abbreviation of one. `known` is the server's own option list, when it
/// could be read: a name that is an option of its own is not an abbreviation.
pub(crate) fn write_path(name: &str, known: Option<&BTreeSet<String>>) -> Option<&'static str> {
    let root = option_root(name);
    if let Some((exact, _)) = WRITE_PATHS.iter().find(|(path, _)| *path == root) {
        return Some(exact);
    }
    let own_option =
        NOT_ABBREVIATIONS.contains(&root.as_str()) || known.is_some_and(|k| k.contains(&root));
    if own_option || root.is_empty() {
        return None;
    }
    WRITE_PATHS
        .iter()
        .find(|(path, _)| path.starts_with(&root))
        .map(|(path, _)| *path)
}

/// Whether a global variable of this exact name (as `SET GLOBAL` takes it: no
/// abbreviations) names where the server writes.
pub(crate) fn is_write_path_variable(name: &str) -> bool {
    WRITE_PATHS.iter().any(|(path, _)| *path == name)
}

/// The value of write-path option `option` (a name [`write_path`] returned) for a server
/// whose private directory is `dir`: inside its data directory, keeping the file's base
/// name.
pub(crate) fn redirected(option: &str, value: &str, dir: &Path) -> String {
    let data = dir.join("data");
    let kind = WRITE_PATHS
        .iter()
        .find(|(path, _)| *path == option)
        .map_or(PathKind::File, |(_, kind)| *kind);
    match kind {
        PathKind::Directory => data.display().to_string(),
        PathKind::File => data.join(base_name(value, option)).display().to_string(),
        PathKind::DataFiles => value
            .split(';')
            .map(|spec| match spec.split_once(':') {
                Some((file, rest)) => format!("{}:{rest}", base_name(file, option)),
                None => spec.to_string(),
            })
            .collect::<Vec<_>>()
            .join(";"),
    }
}

/// The last component of `value`, or the option's own name where there is none (`..`,
/// `/`, empty).
fn base_name(value: &str, option: &str) -> String {
    Path::new(value)
        .file_name()
        .map_or_else(|| option.to_string(), |n| n.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_and_abbreviation_reaches_its_option() {
        for (name, option) in [
            ("general_log_file", "general_log_file"),
            ("general-log-fil", "general_log_file"),
            ("GENERAL_LOG_FILE", "general_log_file"),
            ("loose-general-log-file", "general_log_file"),
            ("innodb-data-home-d", "innodb_data_home_dir"),
            ("server_audit_file_p", "server_audit_file_path"),
            ("loose_server_audit_file_path", "server_audit_file_path"),
            ("log_tc", "log_tc"),
            ("log-bin", "log_bin"),
            ("skip-log-bin", "log_bin"),
            ("slow_query_log_f", "slow_query_log_file"),
            ("log_slow_query_file", "log_slow_query_file"),
            ("aria-log-dir", "aria_log_dir_path"),
            ("log-isam", "log_isam"),
            ("loose_LOG_ISAM", "log_isam"),
        ] {
            assert_eq!(write_path(name, None), Some(option), "{name}");
        }
    }

    #[test]
    fn options_of_their_own_are_not_abbreviations() {
        let known: BTreeSet<String> = ["log_tc_size", "innodb_buffer_pool_size", "general_log"]
            .map(String::from)
            .into();
        for name in [
            "general_log",
            "general-log",
            "slow_query_log",
            "log_slow_query",
            "server_audit",
            "sql_error_log",
            "log_tc_size",
            "innodb_buffer_pool_size",
            "max_connections",
        ] {
            assert_eq!(write_path(name, Some(&known)), None, "{name}");
        }
        assert_eq!(write_path("log_tc_size", None), None);
    }

    #[test]
    fn values_land_inside_the_data_directory() {
        let dir = Path::new("/tmp/abtest-x");
        for (option, value, expected) in [
            (
                "general_log_file",
                "/var/log/mysql/general.log",
                "/tmp/abtest-x/data/general.log",
            ),
            ("log_bin", "../../bin", "/tmp/abtest-x/data/bin"),
            ("log_tc", "..", "/tmp/abtest-x/data/log_tc"),
            ("innodb_data_home_dir", "/srv/innodb", "/tmp/abtest-x/data"),
            (
                "innodb_data_file_path",
                "/srv/ibdata1:12M;../ibdata2:12M:autoextend",
                "ibdata1:12M;ibdata2:12M:autoextend",
            ),
        ] {
            assert_eq!(redirected(option, value, dir), expected, "{option}={value}");
        }
    }

    /// Options the server's listing names like a place (`…_file`, `…dir`, `…_path`,
    /// `…_log`, `log_…`) that abtest does not redirect, each with why not.
    const NOT_WRITTEN: &[(&str, &str)] = &[
        (
            "aria_sync_log_dir",
            "a policy (NEWFILE, CLOSE, NEVER), not a place",
        ),
        ("basedir", "read: the installation"),
        ("character_sets_dir", "read: character set definitions"),
        ("character_set_filesystem", "a character set"),
        ("des_key_file", "read: DES keys"),
        ("file_key_management_filename", "read: the encryption keys"),
        ("ft_stopword_file", "read: a stopword list"),
        (
            "ignore_db_dirs",
            "names of directories to leave out, not a place",
        ),
        ("init_file", "read: SQL run at start"),
        (
            "innodb_cmp_per_index",
            "an information_schema table's switch",
        ),
        ("lc_messages_dir", "read: error messages"),
        ("log_disabled_statements", "a set of statement kinds"),
        ("log_output", "FILE, TABLE or NONE, not a place"),
        ("log_slow_disabled_statements", "a set of statement kinds"),
        ("log_slow_filter", "a set of query kinds"),
        ("log_slow_verbosity", "a set of details"),
        ("plugin_dir", "read: the plugins"),
        ("sql_error_log", "the plugin's switch"),
        ("ssl_capath", "read: CA certificates"),
        ("ssl_crlpath", "read: revocation lists"),
    ];

    /// Options abtest sets itself on every managed server (replaced, never redirected).
    const ABTESTS_OWN: &[&str] = &[
        "datadir",
        "log_error",
        "pid_file",
        "secure_file_priv",
        "tmpdir",
    ];

    /// The installed server's option listing, with every bundled plugin loaded (their
    /// options exist only then), as `(name, takes a value)`.
    fn listed_options() -> Vec<(String, bool)> {
        let binary = std::path::Path::new("/usr/sbin/mariadbd");
        assert!(binary.exists(), "mariadbd is installed (mariadb-server)");
        let plugins: Vec<String> = std::fs::read_dir("/usr/lib/mysql/plugin")
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|name| name.ends_with(".so"))
            .map(|name| format!("--plugin-load-add={name}"))
            .collect();
        let output = std::process::Command::new(binary)
            .arg("--no-defaults")
            .arg("--plugin-maturity=experimental")
            .args(&plugins)
            .args(["--verbose", "--help"])
            .stderr(std::process::Stdio::null())
            .output()
            .unwrap();
        assert!(output.status.success());
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .filter(|line| line.starts_with("  -"))
            .filter_map(|line| {
                let start = line.find("--")? + 2;
                let rest = &line[start..];
                let end = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
                    .unwrap_or(rest.len());
                let takes_value =
                    rest[end..].starts_with("=name") || rest[end..].starts_with("[=name]");
                Some((rest[..end].replace('-', "_"), takes_value))
            })
            .collect()
    }

    #[test]
    fn every_option_of_the_installed_server_that_names_a_place_is_redirected_or_read_only() {
        let listed = listed_options();
        assert!(listed.len() > 500, "{} options listed", listed.len());
        let place =
            regex::Regex::new(r"(file|filename|dir|directory|path|basename|_log|_index)$|^log_")
                .unwrap();
        let mut unhandled = Vec::new();
        for (name, takes_value) in &listed {
            if !takes_value || !place.is_match(name) {
                continue;
            }
            let handled = is_write_path_variable(name)
                || ABTESTS_OWN.contains(&name.as_str())
                || NOT_WRITTEN.iter().any(|(n, _)| n == name);
            if !handled {
                unhandled.push(name.clone());
            }
        }
        assert!(
            unhandled.is_empty(),
            "options that may name where the server writes, neither redirected nor \
             explained: {unhandled:?}"
        );
        for name in [
            "log_isam",
            "general_log_file",
            "server_audit_file_path",
            "log_tc",
        ] {
            assert!(
                listed.iter().any(|(n, _)| n == name),
                "{name} is listed (the listing is complete)"
            );
        }
    }
}
