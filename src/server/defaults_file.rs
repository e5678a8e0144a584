//! A managed server started from the user's own my.cnf (`[server] defaults_file`), so
//! "does this my.cnf change cost us?" is two profiles and one command.
//!
//! The file is read the way mariadbd reads it (`my_print_defaults` with mariadbd's
//! groups, includes followed), and its options reach the server through a private
//! options file of its own (never the command line, which every local user can read),
//! read before the profile's and abtest's own options, so later ones win. Three kinds of option are not taken as
//! they are, because a throwaway server on a shared host must stay private and must not
//! write where the real server keeps its files:
//! - abtest's own (datadir, socket, port, bind address, TLS files, user, …) are replaced;
//! - options that name where the server writes (binary and relay logs, the general and
//!   slow logs, InnoDB's and Aria's directories) are redirected into the server's
//!   private directory, keeping the setting on;
//! - everything else is kept.
//!
//! The report lists each option with what happened to it.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::write_paths;

/// Options a datadir must be installed with to match the server that will run on it.
pub(crate) const BOOTSTRAP: &[&str] = &[
    "innodb_page_size",
    "innodb_data_file_path",
    "innodb_log_file_size",
    "lower_case_table_names",
    "character_set_server",
    "collation_server",
];

/// What abtest did with an option of the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Treatment {
    /// Passed to the server as written.
    Kept,
    /// Dropped: abtest sets it itself.
    Replaced,
    /// Pointed into the server's private directory.
    Redirected,
    /// Passed, then overridden by the profile's `[server.options]`.
    OverriddenByProfile,
}

impl Treatment {
    /// Words for the report.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Treatment::Kept => "kept",
            Treatment::Replaced => "replaced by abtest's own",
            Treatment::Redirected => "redirected into the private directory",
            Treatment::OverriddenByProfile => "overridden by the profile",
        }
    }
}

/// One option of the file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct FileOption {
    /// The name as written (`skip-name-resolve`, `innodb_buffer_pool_size`).
    pub(crate) name: String,
    /// The value, or none for a bare option.
    pub(crate) value: Option<String>,
    /// The option's root name, as mariadbd resolves it (`name_resolve`); for an option
    /// that names where the server writes, the full name an abbreviation reaches.
    pub(crate) root: String,
    /// What abtest did with it.
    pub(crate) treatment: Treatment,
}

/// The user's my.cnf, read and classified.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct DefaultsFile {
    /// The file.
    pub(crate) path: PathBuf,
    /// Its options for mariadbd, in file order; saved with credentials masked.
    #[serde(serialize_with = "serialize_shown")]
    pub(crate) options: Vec<FileOption>,
}

/// Saves the options as they may be shown: a credential's value masked.
fn serialize_shown<S: serde::Serializer>(
    options: &[FileOption],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(options.iter().map(FileOption::shown))
}

impl FileOption {
    /// The option as it may be shown or saved: the value of a credential or a key
    /// masked (`wsrep_sst_auth`, `file_key_management_filekey`, `password`).
    pub(crate) fn shown(&self) -> FileOption {
        FileOption {
            value: self
                .value
                .as_deref()
                .map(|value| crate::secret::shown_option(&self.name, value).into_owned()),
            ..self.clone()
        }
    }
}

impl DefaultsFile {
    /// The file as it may be shown or saved (see [`FileOption::shown`]).
    pub(crate) fn shown(&self) -> DefaultsFile {
        DefaultsFile {
            path: self.path.clone(),
            options: self.options.iter().map(FileOption::shown).collect(),
        }
    }

    /// The options file a server in `dir` (its private directory) reads the file's
    /// options from: kept ones as written, redirected ones inside `dir`, each value
    /// quoted and escaped the way mariadbd's option-file reader undoes it.
    pub(crate) fn options_file(&self, dir: &Path) -> String {
        let mut text = String::from("[mysqld]\n");
        for option in &self.options {
            let value = match option.treatment {
                Treatment::Kept | Treatment::OverriddenByProfile => option.value.clone(),
                Treatment::Redirected => Some(write_paths::redirected(
                    &option.root,
                    option.value.as_deref().unwrap_or_default(),
                    dir,
                )),
                Treatment::Replaced => continue,
            };
            match value {
                Some(value) => text.push_str(&format!("{}={}\n", option.name, quoted(&value))),
                None => text.push_str(&format!("{}\n", option.name)),
            }
        }
        text
    }

    /// The arguments a datadir in `dir` is installed with (see [`BOOTSTRAP`]).
    pub(crate) fn bootstrap_args(&self, dir: &Path) -> Vec<String> {
        self.options
            .iter()
            .filter(|o| BOOTSTRAP.contains(&o.root.as_str()))
            .filter_map(|o| match o.treatment {
                Treatment::Kept => Some(render(o, None)),
                Treatment::Redirected => Some(render_redirected(o, dir)),
                Treatment::Replaced | Treatment::OverriddenByProfile => None,
            })
            .collect()
    }
}

fn render(option: &FileOption, value: Option<String>) -> String {
    match value.or_else(|| option.value.clone()) {
        Some(value) => format!("--{}={value}", option.name),
        None => format!("--{}", option.name),
    }
}

/// `value` in double quotes, with what mariadbd's option-file reader unescapes escaped.
fn quoted(value: &str) -> String {
    let mut out = String::from("\"");
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A redirected option: its value inside the private directory `dir`.
fn render_redirected(option: &FileOption, dir: &Path) -> String {
    let value = option.value.as_deref().unwrap_or_default();
    render(
        option,
        Some(write_paths::redirected(&option.root, value, dir)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn option(name: &str, value: Option<&str>, root: &str, treatment: Treatment) -> FileOption {
        FileOption {
            name: name.into(),
            value: value.map(String::from),
            root: root.into(),
            treatment,
        }
    }

    #[test]
    fn kept_options_pass_and_writes_stay_inside_the_private_directory() {
        let file = DefaultsFile {
            path: "/etc/my.cnf".into(),
            options: vec![
                option("skip-name-resolve", None, "name_resolve", Treatment::Kept),
                option(
                    "datadir",
                    Some("/var/lib/mysql"),
                    "datadir",
                    Treatment::Replaced,
                ),
                option(
                    "log_bin",
                    Some("/var/log/mysql/bin"),
                    "log_bin",
                    Treatment::Redirected,
                ),
                option(
                    "innodb_log_group_home_dir",
                    Some("/srv"),
                    "innodb_log_group_home_dir",
                    Treatment::Redirected,
                ),
                option(
                    "innodb_page_size",
                    Some("32k"),
                    "innodb_page_size",
                    Treatment::Kept,
                ),
            ],
        };
        assert_eq!(
            file.options_file(Path::new("/tmp/abtest-x")),
            "[mysqld]\nskip-name-resolve\nlog_bin=\"/tmp/abtest-x/data/bin\"\n\
             innodb_log_group_home_dir=\"/tmp/abtest-x/data\"\ninnodb_page_size=\"32k\"\n"
        );
        assert_eq!(
            file.bootstrap_args(Path::new("/tmp/abtest-x")),
            ["--innodb_page_size=32k"]
        );
    }
}
