//! Option *values* checked by the installed server itself: `mariadbd --no-defaults
//! <the options> --verbose --help` parses every option exactly as a start would, prints
//! `Error while setting value 'pool-of-treads' to 'thread_handling'` on stderr for a value
//! it refuses, and, when it accepts them all, lists every variable's resulting value (the
//! buffer pool a profile ends up with, say). It takes a few tens of milliseconds and
//! starts nothing, so the dry run can afford it; a typo then costs an exit-2 error with
//! the profile's line instead of a server that dies at start-up minutes later.

use super::process::help_output;
use std::collections::BTreeMap;
use std::path::Path;

/// What mariadbd said about a set of options.
#[derive(Debug, Clone, Default)]
pub(crate) struct ValueCheck {
    /// Values it refused: the option name as mariadbd printed it, the value, and its
    /// whole message (with the reason it gave, when it gave one).
    pub(crate) refused: Vec<Refused>,
    /// Values it changed to fit (`unsigned value 7 adjusted to 3`), as it said them.
    pub(crate) adjusted: Vec<String>,
    /// Plugins it could not load, as it said it: it starts without them.
    pub(crate) plugins_not_loaded: Vec<String>,
    /// Any other error it printed while it failed (exit status not 0), for a message
    /// when no value is named.
    pub(crate) other_errors: Vec<String>,
    /// Every variable and its value after the options were applied (`--verbose --help`'s
    /// last part), names with `_`; empty when the server did not list them.
    pub(crate) variables: BTreeMap<String, String>,
    /// The whole help text, for the values an option accepts.
    help: String,
}

/// One value mariadbd refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refused {
    /// The option as mariadbd named it, with `_` for `-`.
    pub(crate) name: String,
    /// The value it refused.
    pub(crate) value: String,
    /// The reason it gave on the line before, if any (`Unknown suffix 'a' used for …`).
    pub(crate) reason: Option<String>,
    /// What the server does with it: "would not start", or starts without the setting.
    pub(crate) consequence: &'static str,
    /// The values it takes, when its message says (`ON or OFF` for a boolean).
    pub(crate) takes: Option<&'static str>,
}

/// Runs `binary --no-defaults <args> --verbose --help` and reads what it said; `None` when
/// it could not be run at all.
pub(crate) fn check(binary: &Path, args: &[String]) -> Option<ValueCheck> {
    let output = help_output(binary, args)?;
    let mut check = read_stderr(&String::from_utf8_lossy(&output.stderr));
    check.help = String::from_utf8_lossy(&output.stdout).into_owned();
    if output.status.success() {
        check.other_errors.clear();
        check.variables = variables(&check.help);
    } else if !check.refused.is_empty() {
        // A refused value stops mariadbd before its help: ask again without the
        // options, for the values each option accepts.
        let plain = help_output(binary, &[])?;
        check.help = String::from_utf8_lossy(&plain.stdout).into_owned();
    }
    Some(check)
}

impl ValueCheck {
    /// The values the help text lists for option `name` ("One of: a, b, c"), if it
    /// lists them.
    pub(crate) fn accepted_values(&self, name: &str) -> Option<String> {
        accepted_values(&self.help, name)
    }

    /// A variable's value as a number of bytes or a count, if the server listed it.
    pub(crate) fn number(&self, name: &str) -> Option<u64> {
        self.variables.get(name)?.parse().ok()
    }
}

/// The options a managed server is started with, as the probe passes them: the kept
/// options of the defaults file first, then the profile's, so later ones win as at start.
pub(crate) fn probe_args(
    options: &BTreeMap<String, String>,
    defaults_file: Option<&super::defaults_file::DefaultsFile>,
) -> Vec<String> {
    use super::defaults_file::Treatment;
    let from_file = defaults_file
        .into_iter()
        .flat_map(|file| file.options.iter())
        .filter(|o| {
            matches!(
                o.treatment,
                Treatment::Kept | Treatment::OverriddenByProfile
            )
        })
        .map(|o| match &o.value {
            Some(value) => format!("--{}={value}", o.name),
            None => format!("--{}", o.name),
        });
    from_file
        .chain(
            options
                .iter()
                .map(|(name, value)| format!("--{name}={value}")),
        )
        .collect()
}

/// The message of a stderr line without mariadbd's `2024-01-01 10:00:00 0 [ERROR] `
/// prefix, and its level.
fn strip_prefix(line: &str) -> Option<(&str, &str)> {
    for level in ["[ERROR] ", "[Warning] "] {
        if let Some(at) = line.find(level) {
            let text = line[at + level.len()..].trim();
            return Some((
                level.trim(),
                text.strip_prefix("Buffered error: ").unwrap_or(text),
            ));
        }
    }
    None
}

/// Sorts mariadbd's stderr into refused values, adjusted values and other errors.
fn read_stderr(stderr: &str) -> ValueCheck {
    let mut check = ValueCheck::default();
    let mut reason: Option<String> = None;
    for (level, text) in stderr.lines().filter_map(strip_prefix) {
        if let Some((value, name)) = setting_value(text) {
            check.refused.push(Refused {
                name: name.replace('-', "_"),
                value,
                reason: reason.take(),
                consequence: "would not start",
                takes: None,
            });
        } else if let Some(refused) = ignored_value(text) {
            // A boolean it does not recognise, or a value it ignores: the server would
            // start without the setting under test, which is a refusal too.
            check.refused.push(refused);
        } else if level == "[ERROR]" && is_plugin_failure(text) {
            check.plugins_not_loaded.push(text.to_string());
        } else if level == "[Warning]" && text.contains(" adjusted to ") {
            check.adjusted.push(text.to_string());
        } else if level == "[ERROR]" && !text.starts_with("Parsing options for plugin") {
            reason = Some(text.to_string());
            check.other_errors.push(text.to_string());
        }
    }
    check
}

/// A value mariadbd starts without, from its warning: "option 'NAME': boolean value
/// 'V' wasn't recognized. Set to OFF." or "ignoring option '--NAME' due to invalid value
/// 'V'".
fn ignored_value(text: &str) -> Option<Refused> {
    let (name, value) = if text.contains("wasn't recognized") {
        (
            quoted_after(text, "option '")?,
            quoted_after(text, "value '")?,
        )
    } else if text.contains("due to invalid value") {
        (
            quoted_after(text, "ignoring option '--")?,
            quoted_after(text, "invalid value '")?,
        )
    } else {
        return None;
    };
    let boolean = text.contains("boolean value");
    Some(Refused {
        name: name.replace('-', "_"),
        value,
        reason: Some(text.to_string()),
        consequence: "would start without this setting",
        takes: boolean.then_some("ON or OFF (1 or 0)"),
    })
}

/// A plugin mariadbd could not load: it goes on starting without it.
fn is_plugin_failure(text: &str) -> bool {
    text.starts_with("Couldn't load plugins from") || text.contains("Can't open shared library")
}

/// The text between `marker` and the next `'`.
fn quoted_after(text: &str, marker: &str) -> Option<String> {
    let rest = &text[text.find(marker)? + marker.len()..];
    Some(rest[..rest.find('\'')?].to_string())
}

/// `(value, option)` of "…: Error while setting value 'V' to 'NAME'".
fn setting_value(text: &str) -> Option<(String, String)> {
    let rest = &text[text.find("Error while setting value '")? + 27..];
    let (value, rest) = rest.rsplit_once("' to '")?;
    let name = rest.strip_suffix('\'')?;
    Some((value.to_string(), name.to_string()))
}

/// The `name  value` table after "Variables (--variable-name=value)".
fn variables(help: &str) -> BTreeMap<String, String> {
    help.lines()
        .skip_while(|line| !line.starts_with("Variables (--variable-name=value)"))
        .skip(3)
        .take_while(|line| !line.trim().is_empty())
        .filter_map(|line| {
            let (name, value) = line.split_once(' ')?;
            Some((name.replace('-', "_"), value.trim().to_string()))
        })
        .collect()
}

/// The "One of: …" list of option `name`'s description in the help text.
fn accepted_values(help: &str, name: &str) -> Option<String> {
    let wanted = name.replace('_', "-");
    let mut lines = help.lines().skip_while(|line| {
        let Some(start) = line.strip_prefix("  --") else {
            return true;
        };
        let option: String = start
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
            .collect();
        option.replace('_', "-") != wanted
    });
    lines.next()?;
    let description: Vec<&str> = lines
        .take_while(|line| line.starts_with("    "))
        .map(str::trim)
        .collect();
    let description = description.join(" ");
    let list = &description[description.find("One of:")? + 7..];
    let list = list.split(". ").next().unwrap_or(list);
    Some(list.trim().trim_end_matches('.').to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const STDERR: &str = "\
2026-12-03 19:55:05 0 [Warning] Could not increase number of max_open_files to more than 20000 (request: 32184)
2026-12-03 19:55:05 0 [ERROR] Buffered error: Unknown suffix 'a' used for variable 'max_connections' (value 'abc'). Legal suffix characters are: K, M, G, T, P, E
2026-12-03 19:55:05 0 [ERROR] Buffered error: /usr/sbin/mariadbd: Error while setting value 'abc' to 'max_connections'
2026-12-03 19:55:05 0 [ERROR] /usr/sbin/mariadbd: Error while setting value 'pool-of-treads' to 'thread_handling'
2026-12-03 19:55:05 0 [ERROR] /usr/sbin/mariadbd: Error while setting value 'O_DIRCT' to 'innodb-flush-method'
2026-12-03 19:55:05 0 [ERROR] Parsing options for plugin 'InnoDB' failed. Disabling plugin
2026-12-03 19:55:05 0 [Warning] option 'innodb-flush-log-at-trx-commit': unsigned value 7 adjusted to 3
";

    const HELP: &str = "mariadbd  Ver 10.11
  --thread-handling=name 
                      Define threads usage for handling queries. One of: one-thread-per-connection,
                      no-threads, pool-of-threads
  --thread-pool-dedicated-listener 
                      If set to 1,listener thread will not pick up queries
  --innodb-flush-method=name 
                      With which method to flush data.. One of: fsync, O_DSYNC,
                      littlesync, nosync, O_DIRECT, O_DIRECT_NO_FSYNC
  --max-connections=# The number of simultaneous clients allowed

Variables (--variable-name=value)
and boolean options {FALSE|TRUE}                             Value (after reading options)
------------------------------------------------------------ -------------
innodb-buffer-pool-size                                      134217728
thread-handling                                              one-thread-per-connection

To see what values a running MySQL server is using, type
";

    #[test]
    fn refused_values_are_read_with_their_reason() {
        let check = read_stderr(STDERR);
        let names: Vec<_> = check.refused.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(
            names,
            ["max_connections", "thread_handling", "innodb_flush_method"]
        );
        assert_eq!(check.refused[1].value, "pool-of-treads");
        assert!(
            check.refused[0]
                .reason
                .as_deref()
                .is_some_and(|r| r.starts_with("Unknown suffix 'a'")),
            "{:?}",
            check.refused[0]
        );
        assert_eq!(check.refused[1].reason, None);
        assert_eq!(check.adjusted.len(), 1);
    }

    #[test]
    fn variables_and_accepted_values_come_from_the_help() {
        let variables = variables(HELP);
        assert_eq!(
            variables.get("innodb_buffer_pool_size").map(String::as_str),
            Some("134217728")
        );
        assert_eq!(
            accepted_values(HELP, "thread_handling").as_deref(),
            Some("one-thread-per-connection, no-threads, pool-of-threads")
        );
        assert_eq!(
            accepted_values(HELP, "innodb_flush_method").as_deref(),
            Some("fsync, O_DSYNC, littlesync, nosync, O_DIRECT, O_DIRECT_NO_FSYNC")
        );
        assert_eq!(accepted_values(HELP, "max_connections"), None);
    }
}
