//! Resolving one profile into the plan of a side: the target (managed or external), the
//! password, the client's TLS and session settings. Every check here can fail without a
//! server, and every failure names the profile's file, line and side.

use std::collections::BTreeMap;
use std::path::Path;

use crate::db::set_statement::SetEffect;
use crate::db::{ClientSpec, ConnectSpec, Endpoint};
use crate::exit::UsageError;
use crate::plan::{SidePlan, TargetSpec};
use crate::profile::{self, LoadedProfile, TlsMode};
use crate::secret::Secret;
use crate::server::write_paths;
use crate::side::Side;

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
        // Saved escaped: the name reaches terminals, reports and tickets.
        name: crate::terminal::escape_controls(&loaded.name()),
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

/// Refuses, before anything starts, a hook whose `SET` abtest cannot read, one whose
/// change it could not put back (`SET PERSIST`, written to mysqld-auto.cnf, outside
/// what the snapshot of globals restores) and one that moves a place a managed server
/// writes. What the hooks change at run time is found and put back by comparing each
/// server with its snapshot; this is the early, line-numbered refusal. The error names
/// the file and the hook's line.
fn check_hooks(loaded: &profile::LoadedProfile) -> anyhow::Result<()> {
    let hooks = &loaded.profile.hooks;
    for (point, statements) in [
        ("setup", &hooks.setup),
        ("before_round", &hooks.before_round),
        ("after_round", &hooks.after_round),
        ("teardown", &hooks.teardown),
    ] {
        for sql in statements {
            let globals = match crate::db::set_statement::global_effect(sql) {
                Ok(SetEffect::Globals(names)) => names,
                Ok(SetEffect::NotSet) => continue,
                Err(why) => {
                    return Err(loaded.error_at_key(
                        "hooks",
                        point,
                        &format!(
                            "hook `{}`: {why}; abtest reads each hook's SET before the run to \
                             refuse what it could not allow (SET PERSIST, a place the server \
                             writes) — write one SET GLOBAL statement per entry",
                            crate::secret::redact_sql(sql)
                        ),
                    ));
                }
            };
            refuse_write_path_globals(loaded, point, sql, &globals)?;
        }
    }
    Ok(())
}

/// Refuses a hook that points a managed server's logs or files somewhere (`SET GLOBAL
/// general_log_file = …`): at runtime nothing keeps them in its private directory.
fn refuse_write_path_globals(
    loaded: &profile::LoadedProfile,
    point: &str,
    sql: &str,
    globals: &[String],
) -> anyhow::Result<()> {
    let managed = loaded.profile.server.is_some();
    match globals
        .iter()
        .find(|name| managed && write_paths::is_write_path_variable(name))
    {
        Some(name) => Err(loaded.error_at_key(
            "hooks",
            point,
            &format!(
                "hook `{}` sets {name}, a place the managed server writes to, which could be \
                 outside its private directory; set it in [server.options], where abtest keeps \
                 it inside",
                crate::secret::redact_sql(sql)
            ),
        )),
        None => Ok(()),
    }
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
        crate::terminal::warning(&warning);
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
        Some(server) => super::managed::resolve(loaded, server, &connection, warnings),
        None => resolve_external(loaded, &connection, warnings),
    }
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
            let path = super::managed::relative_to_profile(&loaded.path, path);
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
        if !crate::db::is_plain_name(key) {
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
