//! Resolving one profile into the plan of a side: the target (managed or external), the
//! password, the client's TLS and session settings. Every check here can fail without a
//! server, and every failure names the profile's file, line and side.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{SidePlan, TargetSpec};
use crate::db::{ClientSpec, ConnectSpec, Endpoint};
use crate::exit::UsageError;
use crate::profile::{self, LoadedProfile, Side, TlsMode};
use crate::secret::Secret;
use crate::server::defaults_file::{DefaultsFile, FileOption, Treatment, WRITE_PATHS};

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
];

/// The prefixes mariadbd's option parser strips or interprets before it looks a name up.
const OPTION_PREFIXES: &[&str] = &["loose_", "maximum_", "skip_", "enable_", "disable_"];

/// An option name as mariadbd resolves it: lower case, `-` as `_`, without the
/// `loose-`, `maximum-`, `skip-`, `enable-` and `disable-` prefixes (in any number).
fn option_root(name: &str) -> String {
    let mut root = name.to_ascii_lowercase().replace('-', "_");
    while let Some(prefix) = OPTION_PREFIXES.iter().find(|p| root.starts_with(**p)) {
        root = root[prefix.len()..].to_string();
    }
    root
}

/// The reserved option a profile's option name would reach: the same name in any
/// spelling, or an abbreviation of it (mariadbd accepts unambiguous prefixes, so
/// `bind = …` is `bind_address`). `ssl` is an option of its own, not an abbreviation.
fn reserved_option(name: &str) -> Option<&'static str> {
    let root = option_root(name);
    RESERVED_SERVER_OPTIONS.iter().copied().find(|reserved| {
        *reserved == root || (root.len() >= 2 && root != "ssl" && reserved.starts_with(&root))
    })
}

/// Reads one profile into the plan of a side.
pub(crate) fn resolve_side(
    path: &Path,
    side: Side,
    warnings: &mut Vec<String>,
) -> anyhow::Result<SidePlan> {
    let loaded = profile::load(path, side)?;
    let target = resolve_target(&loaded, warnings)?;
    let client = resolve_client(&loaded)?;
    warn_plain_password(&loaded, &target, &client, warnings);
    check_hooks(&loaded)?;
    Ok(SidePlan {
        side,
        name: loaded.name(),
        profile: path.to_path_buf(),
        target,
        client,
        hooks: loaded.profile.hooks.clone(),
        cpus: None,
        password_file: loaded
            .profile
            .connection
            .as_ref()
            .and_then(|c| c.password_file.clone()),
    })
}

/// Refuses a hook whose `SET` abtest cannot read, or whose change it could not put
/// back (`SET PERSIST`): every global a hook sets is restored after the run, so one it
/// cannot see would stay changed. The error names the file and the hook's line.
fn check_hooks(loaded: &profile::LoadedProfile) -> anyhow::Result<()> {
    let hooks = &loaded.profile.hooks;
    for (point, statements) in [
        ("setup", &hooks.setup),
        ("before_round", &hooks.before_round),
        ("after_round", &hooks.after_round),
        ("teardown", &hooks.teardown),
    ] {
        for sql in statements {
            if let Err(why) = crate::db::set_statement::global_effect(sql) {
                return Err(loaded.error_at_key(
                    "hooks",
                    point,
                    &format!(
                        "hook `{}`: {why}; abtest puts back every global variable a hook \
                         sets and must be able to read each one — write one SET GLOBAL \
                         statement per entry",
                        crate::secret::redact_sql(sql)
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The server of an external profile, for a command that talks to one server outside a
/// run (`capture --digest`, `cleanup`).
pub(crate) struct ExternalServer {
    pub(crate) endpoint: Endpoint,
    pub(crate) user: String,
    pub(crate) database: String,
    password: Option<Secret>,
    client: ClientSpec,
}

impl ExternalServer {
    /// How to connect, with `database` as the default schema.
    pub(crate) fn connect_spec(&self, database: Option<&str>) -> ConnectSpec {
        ConnectSpec::new(
            self.endpoint.clone(),
            &self.user,
            self.password.clone(),
            database,
            &self.client,
        )
    }
}

/// Reads the profile at `path` as an external server; a managed profile is refused with
/// `managed_refusal` after its file name. The profile's warnings go to stderr.
pub(crate) fn external_server(
    path: &Path,
    managed_refusal: &str,
) -> anyhow::Result<ExternalServer> {
    let mut warnings = Vec::new();
    let side = resolve_side(path, Side::Baseline, &mut warnings)?;
    for warning in warnings {
        eprintln!("abtest: warning: {warning}");
    }
    let TargetSpec::External {
        endpoint,
        user,
        password,
        database,
    } = side.target
    else {
        return Err(UsageError::err(format!(
            "{}: {managed_refusal}",
            path.display()
        )));
    };
    Ok(ExternalServer {
        endpoint,
        user,
        database,
        password,
        client: side.client,
    })
}

fn resolve_target(
    loaded: &LoadedProfile,
    warnings: &mut Vec<String>,
) -> anyhow::Result<TargetSpec> {
    let connection = loaded.profile.connection.clone().unwrap_or_default();
    match &loaded.profile.server {
        Some(server) => {
            reject_external_keys(loaded, &connection)?;
            let binary = resolve_binary(loaded, server.binary.as_deref())?;
            let options = resolve_server_options(loaded, &server.options)?;
            check_options_known(loaded, &binary, &options, warnings)?;
            let defaults_file = match &server.defaults_file {
                Some(path) => Some(read_defaults_file(loaded, path, &binary, &options)?),
                None => None,
            };
            Ok(TargetSpec::Managed {
                binary,
                options,
                defaults_file,
            })
        }
        None => resolve_external(loaded, &connection, warnings),
    }
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
        if !is_identifier(&normalized) {
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
    options: &BTreeMap<String, String>,
    warnings: &mut Vec<String>,
) -> anyhow::Result<()> {
    let plugins: Vec<String> = options
        .iter()
        .filter(|(name, _)| {
            matches!(
                option_root(name).as_str(),
                "plugin_load" | "plugin_load_add"
            )
        })
        .map(|(_, value)| format!("--plugin-load-add={value}"))
        .collect();
    let Some(known) = crate::server::options::known_options(binary, &plugins) else {
        warnings.push(format!(
            "{}: server option names not checked: `{} --verbose --help` did not list them",
            loaded.side,
            binary.display()
        ));
        return Ok(());
    };
    let source_key = |normalized: &str| {
        loaded
            .profile
            .server
            .iter()
            .flat_map(|server| server.options.keys())
            .find(|key| key.replace('-', "_") == normalized)
            .cloned()
            .unwrap_or_else(|| normalized.to_string())
    };
    for name in options.keys() {
        if crate::server::options::is_known(&known, name) {
            continue;
        }
        let hint = crate::server::options::closest(&known, &option_root(name))
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
        let key = source_key(name);
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

fn is_identifier(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn resolve_external(
    loaded: &LoadedProfile,
    connection: &profile::ConnectionSection,
    warnings: &mut Vec<String>,
) -> anyhow::Result<TargetSpec> {
    if loaded.profile.connection.is_none() {
        return Err(loaded.error_at_line(
            1,
            "the profile has neither [server] nor [connection]; add [server] for a managed \
             MariaDB or [connection] with host or socket for an external one",
        ));
    }
    let endpoint = match (&connection.host, &connection.socket) {
        (Some(_), Some(_)) => {
            return Err(loaded.error_at_key(
                "connection",
                "socket",
                "set either `host` or `socket` in [connection], not both",
            ));
        }
        (Some(_), None) if connection.port == Some(0) => {
            return Err(loaded.error_at_key(
                "connection",
                "port",
                "port 0 is not a server's port; give the port the server listens on, such as 3306",
            ));
        }
        (Some(host), None) => Endpoint::Tcp {
            host: host.clone(),
            port: connection.port.unwrap_or(3306),
        },
        (None, Some(path)) => Endpoint::Socket { path: path.clone() },
        (None, None) => {
            return Err(loaded.error_at_key(
                "connection",
                "",
                "[connection] needs `host` or `socket` for an external server, or add [server] \
                 to let abtest start one",
            ));
        }
    };
    let password = resolve_password(loaded, connection, warnings)?;
    Ok(TargetSpec::External {
        endpoint,
        user: connection.user.clone().unwrap_or_else(|| "sbtest".into()),
        password,
        database: connection
            .database
            .clone()
            .unwrap_or_else(|| "sbtest".into()),
    })
}

fn resolve_password(
    loaded: &LoadedProfile,
    connection: &profile::ConnectionSection,
    warnings: &mut Vec<String>,
) -> anyhow::Result<Option<Secret>> {
    let sources = [
        connection.password.is_some(),
        connection.password_env.is_some(),
        connection.password_file.is_some(),
        connection.password_prompt,
    ];
    if sources.iter().filter(|set| **set).count() > 1 {
        return Err(loaded.error_at_key(
            "connection",
            "password_env",
            "set only one of `password`, `password_env`, `password_file` and `password_prompt`",
        ));
    }
    if let Some(literal) = &connection.password {
        warnings.push(format!(
            "{} profile {}: holds a literal password; prefer password_env or password_file",
            loaded.side,
            loaded.path.display()
        ));
        if readable_by_others(&loaded.path) {
            warnings.push(format!(
                "{} profile {}: holds a password and is readable by other users; chmod 600 it",
                loaded.side,
                loaded.path.display()
            ));
        }
        return Ok(Some(Secret::new(literal.clone())));
    }
    if connection.password_prompt {
        return prompt_password(loaded, connection).map(Some);
    }
    if let Some(name) = &connection.password_env {
        return std::env::var(name)
            .map(|value| Some(Secret::new(value)))
            .map_err(|_| {
                loaded.error_at_key(
                    "connection",
                    "password_env",
                    &format!(
                        "environment variable {name} is not set; export it before running abtest"
                    ),
                )
            });
    }
    if let Some(path) = &connection.password_file {
        let text = std::fs::read_to_string(path).map_err(|e| {
            loaded.error_at_key(
                "connection",
                "password_file",
                &format!(
                    "cannot read password file {} ({e}); check the path and its permissions",
                    path.display()
                ),
            )
        })?;
        return Ok(Some(Secret::new(text.lines().next().unwrap_or_default())));
    }
    Ok(None)
}

fn readable_by_others(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.permissions().mode() & 0o044 != 0)
}

fn prompt_password(
    loaded: &LoadedProfile,
    connection: &profile::ConnectionSection,
) -> anyhow::Result<Secret> {
    use std::io::IsTerminal;
    if !std::io::stdin().is_terminal() {
        return Err(loaded.error_at_key(
            "connection",
            "password_prompt",
            "password_prompt needs a terminal; use password_env or password_file when running unattended",
        ));
    }
    let user = connection.user.as_deref().unwrap_or("sbtest");
    let host = connection.host.as_deref().unwrap_or("the socket");
    rpassword::prompt_password(format!(
        "abtest: password for {user}@{host} ({} side): ",
        loaded.side
    ))
    .map(Secret::new)
    .map_err(|e| {
        loaded.error_at_key(
            "connection",
            "password_prompt",
            &format!("cannot read the password: {e}"),
        )
    })
}

/// Warns when a password would travel unencrypted to a host that is not this machine.
fn warn_plain_password(
    loaded: &LoadedProfile,
    target: &TargetSpec,
    client: &ClientSpec,
    warnings: &mut Vec<String>,
) {
    let TargetSpec::External {
        endpoint: Endpoint::Tcp { host, .. },
        password: Some(_),
        ..
    } = target
    else {
        return;
    };
    let loopback = host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    if !loopback && matches!(client.tls, TlsMode::Disabled | TlsMode::Preferred) {
        warnings.push(format!(
            "{} profile {}: the password may travel unencrypted to {host}; set tls = \"required\" or stronger",
            loaded.side,
            loaded.path.display()
        ));
    }
}

fn resolve_client(loaded: &LoadedProfile) -> anyhow::Result<ClientSpec> {
    let connection = loaded.profile.connection.clone().unwrap_or_default();
    let needs_ca = matches!(connection.tls, TlsMode::VerifyCa | TlsMode::VerifyIdentity);
    let tls_ca = match &connection.tls_ca {
        Some(path) => {
            let path = relative_to_profile(&loaded.path, path);
            if !path.is_file() {
                return Err(loaded.error_at_key(
                    "connection",
                    "tls_ca",
                    &format!("CA file {} does not exist; fix `tls_ca`", path.display()),
                ));
            }
            Some(path)
        }
        None if needs_ca && loaded.profile.server.is_none() => {
            return Err(loaded.error_at_key(
                "connection",
                "tls",
                "tls = verify_ca / verify_identity needs `tls_ca` with the CA certificate",
            ));
        }
        None => None,
    };
    let mut session = BTreeMap::new();
    for (key, value) in &loaded.profile.session {
        if !is_identifier(key) {
            return Err(loaded.error_at_key(
                "session",
                key,
                &format!("`{key}` is not a variable name"),
            ));
        }
        let literal = sql_literal(value).ok_or_else(|| {
            loaded.error_at_key(
                "session",
                key,
                &format!("`{key}` must be a string, number or boolean"),
            )
        })?;
        session.insert(key.clone(), literal);
    }
    Ok(ClientSpec {
        tls: connection.tls,
        tls_ca,
        session,
    })
}

/// Reads `[server] defaults_file` as mariadbd would (`my_print_defaults` with its groups,
/// includes followed) and classifies each option; see `server::defaults_file`.
fn read_defaults_file(
    loaded: &LoadedProfile,
    path: &Path,
    binary: &Path,
    profile_options: &BTreeMap<String, String>,
) -> anyhow::Result<DefaultsFile> {
    let path = relative_to_profile(&loaded.path, path);
    let fail = |why: String| loaded.error_at_key("server", "defaults_file", &why);
    if !path.is_file() {
        return Err(fail(format!(
            "defaults_file {} does not exist or is not a file; give the path of your my.cnf",
            path.display()
        )));
    }
    let reader =
        crate::server::binary::find_program(&["my_print_defaults", "mariadb-print-defaults"])
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
        .envs(crate::server::sandbox::child_environment())
        .output()
        .map_err(|e| fail(format!("running {}: {e}", reader.display())))?;
    if !output.status.success() {
        return Err(fail(format!(
            "{} cannot be read: {}",
            path.display(),
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    let profile_roots: Vec<String> = profile_options.keys().map(|k| option_root(k)).collect();
    let options = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.strip_prefix("--"))
        .map(|option| {
            let (name, value) = match option.split_once('=') {
                Some((name, value)) => (name.to_string(), Some(value.to_string())),
                None => (option.to_string(), None),
            };
            let root = option_root(&name);
            let treatment = if reserved_option(&name).is_some() || root == "port" {
                Treatment::Replaced
            } else if value.is_some() && WRITE_PATHS.iter().any(|(p, _)| *p == root) {
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
    Ok(DefaultsFile { path, options })
}

fn relative_to_profile(profile: &Path, path: &Path) -> PathBuf {
    if path.is_absolute() {
        return path.to_path_buf();
    }
    profile
        .parent()
        .map(|dir| dir.join(path))
        .unwrap_or_else(|| path.to_path_buf())
}

/// Renders a TOML value as an SQL literal for `SET SESSION`.
fn sql_literal(value: &toml::Value) -> Option<String> {
    match value {
        toml::Value::String(s) => {
            Some(format!("'{}'", s.replace('\\', "\\\\").replace('\'', "''")))
        }
        toml::Value::Integer(i) => Some(i.to_string()),
        toml::Value::Float(f) => Some(f.to_string()),
        toml::Value::Boolean(b) => Some(if *b { "ON".into() } else { "OFF".into() }),
        _ => None,
    }
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
