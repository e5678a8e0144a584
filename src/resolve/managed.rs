//! Resolving a managed server's side of a profile: the binary and the install tree it
//! runs from, `[server.options]` and the user's `defaults_file`. A managed server must stay private and must not
//! write where anyone else keeps files, so the options that would change who can get in
//! (abtest's own) are refused, and every option that names where the server writes is
//! pointed into its private directory, in every spelling mariadbd accepts. All of it is
//! decided here, without a server, so the dry run shows the command line as it will run.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::plan::TargetSpec;
use crate::profile::{self, LoadedProfile};
use crate::server::defaults_file::{DefaultsFile, FileOption, Treatment};
use crate::server::install_tree::{self, InstallTree};
use crate::server::options::option_root;
use crate::server::write_paths;

/// Resolves `[server]` into a managed target.
pub(super) fn resolve(
    loaded: &LoadedProfile,
    server: &profile::ServerSection,
    connection: &profile::ConnectionSection,
    warnings: &mut Vec<String>,
) -> anyhow::Result<TargetSpec> {
    reject_external_keys(loaded, connection)?;
    let (binary, tree) = resolve_install(loaded, server, warnings)?;
    let options = resolve_server_options(loaded, &server.options)?;
    let file = match &server.defaults_file {
        Some(path) => Some(read_defaults_file(loaded, path, &binary, tree.as_ref())?),
        None => None,
    };
    let known = known_options(&binary, tree.as_ref(), &options, file.as_ref());
    check_options_known(loaded, &binary, known.as_ref(), &options, warnings)?;
    let redirects = options
        .keys()
        .filter_map(|key| {
            write_paths::write_path(key, known.as_ref()).map(|option| (key.clone(), option.into()))
        })
        .collect();
    let defaults_file =
        file.map(|(path, lines)| classify_defaults_file(path, lines, known.as_ref(), &options));
    if known.is_some() {
        let probe = Probe {
            binary: &binary,
            tree: tree.as_ref(),
        };
        check_option_values(loaded, probe, &options, defaults_file.as_ref(), warnings)?;
    }
    Ok(TargetSpec::Managed {
        binary,
        tree,
        options,
        redirects,
        defaults_file,
    })
}

/// The option names the server knows, with every plugin the profile or the defaults
/// file loads (a plugin's options exist only then, from its install tree's plugin
/// directory); `None` when it cannot list them.
fn known_options(
    binary: &Path,
    tree: Option<&InstallTree>,
    options: &BTreeMap<String, String>,
    file: Option<&(PathBuf, Vec<RawOption>)>,
) -> Option<BTreeSet<String>> {
    let from_file = file
        .into_iter()
        .flat_map(|(_, lines)| lines.iter())
        .filter_map(|(name, value)| Some((name, value.as_ref()?)));
    let plugins = options
        .iter()
        .chain(from_file)
        .filter(|(name, _)| {
            matches!(
                option_root(name).as_str(),
                "plugin_load" | "plugin_load_add"
            )
        })
        .map(|(_, value)| format!("--plugin-load-add={value}"));
    let args: Vec<String> = tree
        .map(InstallTree::server_args)
        .unwrap_or_default()
        .into_iter()
        .chain(plugins)
        .collect();
    crate::server::options::known_options(binary, &args)
}

/// An option of the defaults file as `my_print_defaults` prints it: name and value.
type RawOption = (String, Option<String>);

/// Options abtest sets itself on a managed server; a profile may not override them. The
/// names are as [`option_root`] reduces them (`skip_grant_tables` is `grant_tables`).
const RESERVED_SERVER_OPTIONS: &[&str] = &[
    "datadir",
    "socket",
    "bind_address",
    "pid_file",
    "log_error",
    "tmpdir",
    "user",
    "ssl_ca",
    "ssl_cert",
    "ssl_key",
    "grant_tables",
    "secure_file_priv",
    "symbolic_links",
    "event_scheduler",
];

/// The reserved option a profile's option name would reach: the same name in any
/// spelling, or an abbreviation of it (mariadbd accepts unambiguous prefixes, so
/// `bind = …` is `bind_address`). `ssl` is an option of its own, not an abbreviation.
fn reserved_option(name: &str) -> Option<&'static str> {
    let root = option_root(name);
    RESERVED_SERVER_OPTIONS.iter().copied().find(|reserved| {
        *reserved == root || (root.len() >= 2 && root != "ssl" && reserved.starts_with(&root))
    })
}

fn reject_external_keys(
    loaded: &LoadedProfile,
    connection: &profile::ConnectionSection,
) -> anyhow::Result<()> {
    let set = [
        ("host", connection.host.is_some()),
        ("port", connection.port.is_some()),
        ("socket", connection.socket.is_some()),
        ("user", connection.user.is_some()),
        ("password", connection.password.is_some()),
        ("password_env", connection.password_env.is_some()),
        ("password_file", connection.password_file.is_some()),
        ("password_prompt", connection.password_prompt),
        ("database", connection.database.is_some()),
    ];
    if let Some((key, _)) = set.iter().find(|(_, present)| *present) {
        return Err(loaded.error_at_key(
            "connection",
            key,
            &format!(
                "`{key}` points at an external server, but [server] makes abtest start its own; \
                 remove `{key}` (only tls and tls_ca apply to a managed server) or remove [server]"
            ),
        ));
    }
    Ok(())
}

/// The server binary and the install tree it runs from: `basedir`'s (its binary found
/// in it unless `binary` is set), the tree a `binary` outside /usr sits in, or none (the
/// system install).
fn resolve_install(
    loaded: &LoadedProfile,
    server: &profile::ServerSection,
    warnings: &mut Vec<String>,
) -> anyhow::Result<(PathBuf, Option<InstallTree>)> {
    let Some(basedir) = &server.basedir else {
        let binary = resolve_binary(loaded, server.binary.as_deref())?;
        let tree = match install_tree::tree_of(&binary) {
            Some(dir) => Some(InstallTree::read(&dir).map_err(|why| {
                loaded.error_at_key(
                    "server",
                    "binary",
                    &format!(
                        "{} sits in the install tree {}, but {why}; set `basedir` to the top \
                         directory of a complete install (the one holding bin/ and share/)",
                        binary.display(),
                        dir.display()
                    ),
                )
            })?),
            None => None,
        };
        return Ok((binary, tree));
    };
    let basedir = std::path::absolute(relative_to_profile(&loaded.path, basedir))
        .unwrap_or_else(|_| basedir.clone());
    let fail = |why: String| {
        loaded.error_at_key(
            "server",
            "basedir",
            &format!(
                "{why}; give the top directory of the install (the one holding bin/ and \
                 share/, as an unpacked tarball has them)"
            ),
        )
    };
    if !basedir.is_dir() {
        return Err(fail(format!(
            "basedir {} does not exist or is not a directory",
            basedir.display()
        )));
    }
    let binary = match &server.binary {
        Some(binary) => resolve_binary(loaded, Some(binary))?,
        None => install_tree::server_binary(&basedir).ok_or_else(|| {
            fail(format!(
                "no server binary in basedir {}: looked for {}; or set `binary`",
                basedir.display(),
                install_tree::SERVER_BINARIES.join(", ")
            ))
        })?,
    };
    if !binary.starts_with(&basedir) {
        warnings.push(format!(
            "{} profile {}: the server binary {} is not under basedir {}; the system tables, \
             messages and plugins come from the basedir",
            loaded.side,
            loaded.path.display(),
            binary.display(),
            basedir.display()
        ));
    }
    let tree = InstallTree::read(&basedir).map_err(fail)?;
    Ok((binary, Some(tree)))
}

fn resolve_binary(loaded: &LoadedProfile, binary: Option<&Path>) -> anyhow::Result<PathBuf> {
    if let Some(path) = binary {
        if crate::server::binary::is_executable(path) {
            return Ok(path.to_path_buf());
        }
        return Err(loaded.error_at_key(
            "server",
            "binary",
            &format!(
                "server binary {} does not exist or is not executable; fix the path or remove \
                 `binary` to use mariadbd from PATH",
                path.display()
            ),
        ));
    }
    crate::server::binary::find_server_binary().ok_or_else(|| {
        loaded.error_at_key(
            "server",
            "",
            "no mariadbd or mysqld found on PATH or in /usr/sbin; install it \
             (apt-get install mariadb-server) or set `binary` in [server]",
        )
    })
}

fn resolve_server_options(
    loaded: &LoadedProfile,
    options: &BTreeMap<String, toml::Value>,
) -> anyhow::Result<BTreeMap<String, String>> {
    let mut resolved = BTreeMap::new();
    for (key, value) in options {
        let normalized = key.replace('-', "_");
        if let Some(reserved) = reserved_option(key) {
            return Err(loaded.error_at_key(
                "server.options",
                key,
                &format!(
                    "`{key}` sets `{reserved}`, which abtest sets itself to keep a managed \
                     server private; remove it from [server.options]"
                ),
            ));
        }
        if !crate::db::is_plain_name(&normalized) {
            return Err(loaded.error_at_key(
                "server.options",
                key,
                &format!("`{key}` is not a server option name; use letters, digits and _"),
            ));
        }
        let rendered = option_value(value).ok_or_else(|| {
            loaded.error_at_key(
                "server.options",
                key,
                &format!(
                    "`{key}` must be a string, number or boolean, not {}",
                    value.type_str()
                ),
            )
        })?;
        if normalized == "port" {
            check_port_free(loaded, &rendered)?;
        }
        resolved.insert(normalized, rendered);
    }
    Ok(resolved)
}

/// Refuses a `[server.options]` key the installed server does not know (exit 2, with
/// the line and the closest name), as mariadbd would refuse it at start; under `loose_`
/// mariadbd would silently ignore it, so that is a warning. When the server cannot list
/// its options, a warning says the names were not checked.
fn check_options_known(
    loaded: &LoadedProfile,
    binary: &Path,
    known: Option<&BTreeSet<String>>,
    options: &BTreeMap<String, String>,
    warnings: &mut Vec<String>,
) -> anyhow::Result<()> {
    let Some(known) = known else {
        warnings.push(format!(
            "{}: server option names not checked: `{} --verbose --help` did not list them",
            loaded.side,
            binary.display()
        ));
        return Ok(());
    };
    for name in options.keys() {
        if crate::server::options::is_known(known, name) {
            continue;
        }
        let hint = crate::server::options::closest(known, &option_root(name))
            .map(|c| format!("; did you mean `{c}`?"))
            .unwrap_or_default();
        if name.to_ascii_lowercase().starts_with("loose_") {
            warnings.push(format!(
                "{} profile {}: `{name}` is not an option of {}; with loose_ the server ignores it{hint}",
                loaded.side,
                loaded.path.display(),
                binary.display()
            ));
            continue;
        }
        let key = source_key(loaded, name);
        return Err(loaded.error_at_key(
            "server.options",
            &key,
            &format!(
                "`{key}` is not an option of {} (checked with --verbose --help){hint}",
                binary.display()
            ),
        ));
    }
    Ok(())
}

/// Refuses a `[server.options]` value the installed server refuses (exit 2, with the
/// line, what mariadbd said and the values it accepts), as it would refuse it at start;
/// see `server::option_values`. A value mariadbd adjusts to fit is a warning.
/// The server binary that checks the options, and the install tree it runs from (its
/// plugins and messages are the tree's).
#[derive(Clone, Copy)]
struct Probe<'a> {
    binary: &'a Path,
    tree: Option<&'a InstallTree>,
}

fn check_option_values(
    loaded: &LoadedProfile,
    probe: Probe<'_>,
    options: &BTreeMap<String, String>,
    defaults_file: Option<&DefaultsFile>,
    warnings: &mut Vec<String>,
) -> anyhow::Result<()> {
    use crate::server::option_values;
    let binary = probe.binary;
    let args: Vec<String> = probe
        .tree
        .map(InstallTree::server_args)
        .unwrap_or_default()
        .into_iter()
        .chain(option_values::probe_args(options, defaults_file))
        .collect();
    let Some(check) = option_values::check(binary, &args) else {
        return Ok(());
    };
    let at = format!("{} profile {}", loaded.side, loaded.path.display());
    warnings.extend(
        check
            .adjusted
            .iter()
            .map(|said| format!("{at}: {} adjusts a value: {said}", binary.display())),
    );
    if let Some(refused) = check.refused.first() {
        let valid = check
            .accepted_values(&refused.name)
            .map(|values| format!("use one of: {values}"))
            .or_else(|| refused.takes.map(|values| format!("use {values}")))
            .unwrap_or_else(|| {
                format!(
                    "fix the value (see `{} --verbose --help`)",
                    binary.display()
                )
            });
        let reason = refused
            .reason
            .as_ref()
            .map(|r| format!(" ({r})"))
            .unwrap_or_default();
        let refusal = |shown: &str| {
            format!(
                "{} refuses `{shown} = \"{}\"`{reason} and {}; {valid}",
                binary.display(),
                refused.value,
                refused.consequence
            )
        };
        return Err(match profile_key_for(options, &refused.name) {
            Some(key) => {
                let key = source_key(loaded, key);
                loaded.error_at_key("server.options", &key, &refusal(&key))
            }
            None => {
                let file =
                    defaults_file.map_or(String::new(), |f| format!(" in {}", f.path.display()));
                loaded.error_at_key(
                    "server",
                    "defaults_file",
                    &format!("{}{file}", refusal(&refused.name)),
                )
            }
        });
    }
    if let Some(said) = check.plugins_not_loaded.first() {
        let key = [
            "plugin_load_add",
            "plugin_load",
            "plugin-load-add",
            "plugin-load",
        ]
        .into_iter()
        .find(|key| options.contains_key(*key))
        .unwrap_or("");
        return Err(loaded.error_at_key(
            "server.options",
            key,
            &format!(
                "{} cannot load a plugin and would start without it: {said}; check the \
                 plugin's name (the file in the server's plugin_dir, without .so)",
                binary.display()
            ),
        ));
    }
    if let Some(said) = check.other_errors.first() {
        return Err(loaded.error_at_key(
            "server.options",
            "",
            &format!(
                "{} refuses these options and would not start: {said}; fix [server.options]",
                binary.display()
            ),
        ));
    }
    Ok(())
}

/// The profile option mariadbd's `name` came from: the same root, or an abbreviation
/// of it.
fn profile_key_for<'a>(options: &'a BTreeMap<String, String>, name: &str) -> Option<&'a str> {
    let name = option_root(name);
    options
        .keys()
        .find(|key| {
            let root = option_root(key);
            root == name || (!root.is_empty() && name.starts_with(&root))
        })
        .map(String::as_str)
}

/// The key as the profile spells it (`thread-handling`), from its normalized name.
fn source_key(loaded: &LoadedProfile, normalized: &str) -> String {
    loaded
        .profile
        .server
        .iter()
        .flat_map(|server| server.options.keys())
        .find(|key| key.replace('-', "_") == normalized)
        .cloned()
        .unwrap_or_else(|| normalized.to_string())
}

fn check_port_free(loaded: &LoadedProfile, port: &str) -> anyhow::Result<()> {
    let port: u16 = port.parse().ok().filter(|p| *p > 0).ok_or_else(|| {
        loaded.error_at_key(
            "server.options",
            "port",
            "`port` must be a number between 1 and 65535",
        )
    })?;
    if std::net::TcpListener::bind(("127.0.0.1", port)).is_err() {
        return Err(loaded.error_at_key(
            "server.options",
            "port",
            &format!("port {port} is already in use; remove `port` so abtest picks a free one"),
        ));
    }
    Ok(())
}

fn option_value(value: &toml::Value) -> Option<String> {
    match value {
        toml::Value::String(s) => Some(s.clone()),
        toml::Value::Integer(i) => Some(i.to_string()),
        toml::Value::Float(f) => Some(f.to_string()),
        toml::Value::Boolean(true) => Some("ON".into()),
        toml::Value::Boolean(false) => Some("OFF".into()),
        _ => None,
    }
}

/// Reads `[server] defaults_file` as mariadbd would (`my_print_defaults` with its groups,
/// includes followed) and classifies each option; see `server::defaults_file`.
fn read_defaults_file(
    loaded: &LoadedProfile,
    path: &Path,
    binary: &Path,
    tree: Option<&InstallTree>,
) -> anyhow::Result<(PathBuf, Vec<RawOption>)> {
    let path = relative_to_profile(&loaded.path, path);
    let fail = |why: String| loaded.error_at_key("server", "defaults_file", &why);
    if !path.is_file() {
        return Err(fail(format!(
            "defaults_file {} does not exist or is not a file; give the path of your my.cnf",
            path.display()
        )));
    }
    let reader = tree
        .and_then(|tree| tree.print_defaults.clone())
        .or_else(|| {
            crate::server::binary::find_program(&["my_print_defaults", "mariadb-print-defaults"])
        })
        .ok_or_else(|| {
            fail("my_print_defaults not found; it comes with mariadb-client-core".into())
        })?;
    let version = crate::server::binary::version_series(binary).unwrap_or_default();
    let mut groups = vec!["mysqld", "server", "mariadb", "mariadbd", "client-server"]
        .into_iter()
        .map(String::from)
        .collect::<Vec<_>>();
    if !version.is_empty() {
        groups.extend(["mysqld", "mariadb", "mariadbd"].map(|g| format!("{g}-{version}")));
    }
    let output = std::process::Command::new(&reader)
        .arg(format!("--defaults-file={}", path.display()))
        .args(&groups)
        .env_clear()
        .envs(crate::server::process::child_environment())
        .output()
        .map_err(|e| fail(format!("running {}: {e}", reader.display())))?;
    if !output.status.success() {
        return Err(fail(format!(
            "{} cannot be read: {}",
            path.display(),
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    let options = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.strip_prefix("--"))
        .map(|option| match option.split_once('=') {
            Some((name, value)) => (name.to_string(), Some(value.to_string())),
            None => (option.to_string(), None),
        })
        .collect();
    Ok((path, options))
}

/// What abtest does with each option of the defaults file: abtest's own are replaced,
/// those naming where the server writes are redirected (in any spelling or
/// abbreviation), those the profile sets too are overridden, the rest kept.
fn classify_defaults_file(
    path: PathBuf,
    lines: Vec<RawOption>,
    known: Option<&BTreeSet<String>>,
    profile_options: &BTreeMap<String, String>,
) -> DefaultsFile {
    let profile_roots: Vec<String> = profile_options.keys().map(|k| option_root(k)).collect();
    let options = lines
        .into_iter()
        .map(|(name, value)| {
            let mut root = option_root(&name);
            let write_path = write_paths::write_path(&name, known);
            // A `[client-server]` password is the clients': mariadbd has no such option
            // (it would refuse to start and print the value in its error log), and
            // abtest's client uses its own.
            let treatment =
                if reserved_option(&name).is_some() || root == "port" || root == "password" {
                    Treatment::Replaced
                } else if let Some(option) = write_path.filter(|_| value.is_some()) {
                    root = option.to_string();
                    Treatment::Redirected
                } else if profile_roots.contains(&root) {
                    Treatment::OverriddenByProfile
                } else {
                    Treatment::Kept
                };
            FileOption {
                name,
                value,
                root,
                treatment,
            }
        })
        .collect();
    DefaultsFile { path, options }
}

/// `path` as written in the profile at `profile`: relative paths start from the
/// profile's directory.
pub(super) fn relative_to_profile(profile: &Path, path: &Path) -> PathBuf {
    if path.is_absolute() {
        return path.to_path_buf();
    }
    profile
        .parent()
        .map(|dir| dir.join(path))
        .unwrap_or_else(|| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_options_are_found_in_every_spelling() {
        for name in [
            "bind_address",
            "loose-bind-address",
            "LOOSE_BIND_ADDRESS",
            "bind",
            "skip_grant_tables",
            "loose_skip_grant_tables",
            "disable-grant-tables",
            "maximum_secure_file_priv",
            "loose_user",
            "datad",
            "ssl_ke",
            "event_scheduler",
            "loose-event-scheduler",
            "symbolic_links",
        ] {
            assert!(reserved_option(name).is_some(), "{name}");
        }
    }

    #[test]
    fn ordinary_options_pass() {
        for name in [
            "ssl",
            "skip_ssl",
            "innodb_buffer_pool_size",
            "skip_name_resolve",
            "thread_handling",
            "plugin_load_add",
            "server_audit_logging",
            "use_stat_tables",
        ] {
            assert_eq!(reserved_option(name), None, "{name}");
        }
    }
}
