//! One side of a comparison, read from a TOML profile (the format: docs/profile-format.md).
//!
//! A profile describes a target and its configuration, never the workload: keeping the
//! workload out of profiles is what makes both sides run the same thing by construction.
//! Every error names the file, the line, the side and the fix, because a typo found after
//! an hour-long run is an hour lost.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::exit::UsageError;
pub use crate::side::Side;

/// The profile file as written by the user.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Profile {
    /// Label in reports; defaults to the file stem.
    pub(crate) name: Option<String>,
    /// A managed throwaway server that abtest starts and stops.
    pub(crate) server: Option<ServerSection>,
    /// An external server, or the client-side settings of a managed one.
    pub(crate) connection: Option<ConnectionSection>,
    /// `SET SESSION` variables applied on every connection.
    #[serde(default)]
    pub(crate) session: BTreeMap<String, toml::Value>,
    /// SQL run on this side's server at fixed points of the experiment.
    #[serde(default)]
    pub(crate) hooks: Hooks,
}

/// `[server]`: a managed MariaDB started from a fresh datadir.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ServerSection {
    /// The server binary; found on PATH or in /usr/sbin when absent, under `basedir`
    /// when that is set.
    pub(crate) binary: Option<PathBuf>,
    /// The install tree the server runs from (an unpacked tarball, a second install):
    /// its binary, install script, error messages and plugins.
    pub(crate) basedir: Option<PathBuf>,
    /// The user's my.cnf to start from; `[server.options]` and abtest's own settings win.
    pub(crate) defaults_file: Option<PathBuf>,
    /// `[mysqld]` options passed as `--key=value`.
    #[serde(default)]
    pub(crate) options: BTreeMap<String, toml::Value>,
}

/// `[connection]`: where and how the client connects.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ConnectionSection {
    /// Host name or address of an external server.
    pub(crate) host: Option<String>,
    /// TCP port (default 3306).
    pub(crate) port: Option<u16>,
    /// Unix socket path of an external server.
    pub(crate) socket: Option<PathBuf>,
    /// User name (default `sbtest`).
    pub(crate) user: Option<String>,
    /// Literal password; allowed, with a warning.
    pub(crate) password: Option<String>,
    /// Name of the environment variable holding the password.
    pub(crate) password_env: Option<String>,
    /// File whose first line is the password.
    pub(crate) password_file: Option<PathBuf>,
    /// Ask for the password on the terminal.
    #[serde(default)]
    pub(crate) password_prompt: bool,
    /// Database holding the sbtest tables (default `sbtest`).
    pub(crate) database: Option<String>,
    /// Client TLS mode.
    #[serde(default)]
    pub(crate) tls: TlsMode,
    /// CA certificate for verify_ca / verify_identity.
    pub(crate) tls_ca: Option<PathBuf>,
}

/// Client TLS modes, with the semantics of the MySQL client's `--ssl-mode`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum TlsMode {
    /// Plain connection.
    #[default]
    Disabled,
    /// TLS when the server offers it, plain otherwise.
    Preferred,
    /// TLS, without certificate checks.
    Required,
    /// TLS with a certificate signed by `tls_ca`.
    VerifyCa,
    /// As verify_ca, and the certificate must name the host.
    VerifyIdentity,
}

/// `[hooks]`: SQL statements run on this side's server.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Hooks {
    /// Once, before this side's first round.
    #[serde(default, serialize_with = "crate::secret::serialize_redacted_sql")]
    pub(crate) setup: Vec<String>,
    /// Before every round of this side.
    #[serde(default, serialize_with = "crate::secret::serialize_redacted_sql")]
    pub(crate) before_round: Vec<String>,
    /// After every round of this side.
    #[serde(default, serialize_with = "crate::secret::serialize_redacted_sql")]
    pub(crate) after_round: Vec<String>,
    /// Once at the end; always runs, also on error and Ctrl-C.
    #[serde(default, serialize_with = "crate::secret::serialize_redacted_sql")]
    pub(crate) teardown: Vec<String>,
}

/// Two hook lists are the same when they are saved the same: a literal password in a
/// statement is never saved, so it is not compared (a resumed run's hooks, read from its
/// results file, hold `***` where the profile holds the password).
impl PartialEq for Hooks {
    fn eq(&self, other: &Hooks) -> bool {
        let as_saved = |hooks: &Hooks| -> Vec<Vec<String>> {
            let Hooks {
                setup,
                before_round,
                after_round,
                teardown,
            } = hooks;
            [setup, before_round, after_round, teardown]
                .map(|list| {
                    list.iter()
                        .map(|sql| crate::secret::redact_sql(sql))
                        .collect()
                })
                .to_vec()
        };
        as_saved(self) == as_saved(other)
    }
}

/// A profile together with where it came from, for error messages.
#[derive(Debug, Clone)]
pub struct LoadedProfile {
    /// The parsed profile.
    pub(crate) profile: Profile,
    /// The file it was read from.
    pub(crate) path: PathBuf,
    /// The side it is used for.
    pub(crate) side: Side,
    /// The raw text, kept to locate keys in later validation errors.
    pub(crate) source: String,
}

impl LoadedProfile {
    /// The label of this side in reports.
    pub(crate) fn name(&self) -> String {
        self.profile.name.clone().unwrap_or_else(|| {
            self.path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| self.side.to_string())
        })
    }

    /// Builds a usage error that names this file, the line of `key` and the side.
    pub(crate) fn error_at_key(&self, section: &str, key: &str, message: &str) -> anyhow::Error {
        let line = line_of_key(&self.source, section, key).unwrap_or(1);
        self.error_at_line(line, message)
    }

    /// Builds a usage error that names this file, a line and the side.
    pub(crate) fn error_at_line(&self, line: usize, message: &str) -> anyhow::Error {
        UsageError::err(format!(
            "{} profile {}:{line}: {message}",
            self.side,
            self.path.display()
        ))
    }
}

/// Reads and parses a profile; any problem is a usage error naming file, line and side.
pub(crate) fn load(path: &Path, side: Side) -> anyhow::Result<LoadedProfile> {
    let source = std::fs::read_to_string(path).map_err(|e| {
        UsageError::err(format!(
            "{side} profile {}: cannot read it ({e}); check the path given to --{side}",
            path.display()
        ))
    })?;
    parse(source, path, side)
}

/// Parses profile text read from `path`.
pub fn parse(source: String, path: &Path, side: Side) -> anyhow::Result<LoadedProfile> {
    let profile: Profile =
        toml::from_str(&source).map_err(|e| parse_error(path, side, &source, &e))?;
    Ok(LoadedProfile {
        profile,
        path: path.to_path_buf(),
        side,
        source,
    })
}

fn parse_error(path: &Path, side: Side, source: &str, error: &toml::de::Error) -> anyhow::Error {
    let line = error.span().map_or(1, |span| line_at(source, span.start));
    let message = friendlier(&redact_secrets(source, line, error.message().trim()));
    let hint = suggestion(&message)
        .map(|s| format!("; did you mean `{s}`?"))
        .unwrap_or_default();
    UsageError::err(format!(
        "{side} profile {}:{line}: {message}{hint}",
        path.display()
    ))
}

/// Keys whose values are secrets: never echoed in an error.
const SECRET_KEYS: &[&str] = &["password"];

/// A parse error's message with every secret value of the profile masked. An error on
/// the line of a secret key gets a message of its own, since the parser's wording may
/// quote the value in any form (`invalid type: integer `987654321``).
fn redact_secrets(source: &str, error_line: usize, message: &str) -> String {
    let mut redacted = message.to_string();
    for (index, raw) in source.lines().enumerate() {
        let Some((key, value)) = raw.split_once('=') else {
            continue;
        };
        let key = key.trim().trim_matches('"');
        if !SECRET_KEYS.contains(&key) {
            continue;
        }
        if index + 1 == error_line {
            return format!(
                "`{key}` must be a string in quotes (its value is not shown); \
                 or use password_env, password_file or password_prompt"
            );
        }
        let value = value.trim().trim_matches(['"', '\'']);
        if !value.is_empty() {
            redacted = redacted.replace(value, "***");
        }
    }
    redacted
}

/// The parser's words for a wrong type, said as the fix: `port = "3306"` gets "a port
/// is a number from 1 to 65535, written without quotes", not "expected u16".
fn friendlier(message: &str) -> String {
    if message.contains("expected u16") {
        return format!(
            "a port is a number from 1 to 65535, written without quotes, such as port = 3306 ({message})"
        );
    }
    message.to_string()
}

/// The 1-based line of a byte offset (clamped to the text).
pub(crate) fn line_at(source: &str, offset: usize) -> usize {
    let end = offset.min(source.len());
    source.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// For serde's "unknown field `x`, expected one of `a`, `b`" messages, the closest valid key.
fn suggestion(message: &str) -> Option<String> {
    let rest = message.strip_prefix("unknown field `")?;
    let (unknown, expected) = rest.split_once('`')?;
    expected
        .split('`')
        .skip(1)
        .step_by(2)
        .map(|candidate| (strsim::jaro_winkler(unknown, candidate), candidate))
        .filter(|(score, _)| *score > 0.7)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, candidate)| candidate.to_string())
}

/// Finds the 1-based line where `key` is set inside `[section]` (or at top level when
/// `section` is empty).
pub(crate) fn line_of_key(source: &str, section: &str, key: &str) -> Option<usize> {
    let mut current = String::new();
    for (index, raw) in source.lines().enumerate() {
        let line = raw.trim();
        if let Some(header) = line.strip_prefix('[') {
            current = header.trim_end_matches(']').trim().to_string();
            if key.is_empty() && current == section {
                return Some(index + 1);
            }
            continue;
        }
        let Some((name, _)) = line.split_once('=') else {
            continue;
        };
        if current == section && name.trim().trim_matches('"') == key {
            return Some(index + 1);
        }
    }
    None
}
