//! The resolved plan: both profiles, the workload and the schedule, validated before
//! anything connects. Every check that can fail without a server lives here, so a bad
//! flag or profile costs the user a second, not a half-finished run.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use crate::analysis::AnalysisOptions;
pub use crate::cli::OnServerLoss;
use crate::cli::RunArgs;
use crate::exit::UsageError;
use crate::profile::{self, Hooks, LoadedProfile, Side, TlsMode};
use crate::runner::errors::IgnoreErrors;
use crate::runner::schedule::Schedule;
use crate::secret::Secret;
use crate::workload::WorkloadSpec;

/// Options abtest sets itself on a managed server; a profile may not override them.
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
    "skip_grant_tables",
];

/// Everything needed to run an experiment, resolved and validated.
#[derive(Debug, Clone, Serialize)]
pub struct Plan {
    /// Baseline and variant, in that order.
    pub sides: [SidePlan; 2],
    /// The workload both sides run.
    pub workload: WorkloadSpec,
    /// Rounds, levels and timing.
    pub schedule: Schedule,
    /// How the client drives the servers.
    pub client: ClientOptions,
    /// How the results are analysed.
    pub analysis: AnalysisOptions,
    /// Seed for data, order and workload randomness.
    pub seed: u64,
    /// Files to write.
    pub outputs: Outputs,
    /// Whether a write workload may run in an external database holding other tables.
    pub allow_foreign_tables: bool,
    /// The command line that reproduces this run (never holds a secret).
    pub command_line: String,
    /// Problems worth a warning that do not stop the run.
    #[serde(skip)]
    pub warnings: Vec<String>,
}

/// The files a run writes.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Outputs {
    /// Results JSON, rewritten after every round.
    pub json: Option<PathBuf>,
    /// Markdown report, written at the end.
    pub markdown: Option<PathBuf>,
    /// HTML report, written at the end.
    pub html: Option<PathBuf>,
    /// Rounds CSV, rewritten after every round.
    pub csv: Option<PathBuf>,
}

impl Outputs {
    /// Every output path that was given.
    pub fn paths(&self) -> impl Iterator<Item = &PathBuf> {
        [&self.json, &self.markdown, &self.html, &self.csv]
            .into_iter()
            .flatten()
    }
}

/// How the client drives the servers, the same for both sides.
#[derive(Debug, Clone, Serialize)]
pub struct ClientOptions {
    /// Open-loop arrival rate (events per second), if any.
    pub rate: Option<f64>,
    /// Errors counted and retried.
    pub ignore_errors: IgnoreErrors,
    /// What to do when a managed server dies mid-round.
    pub on_server_loss: OnServerLoss,
    /// Statement read/write timeout, if any.
    #[serde(with = "crate::serde_secs::option")]
    pub query_timeout: Option<Duration>,
    /// Progress line interval.
    #[serde(with = "crate::serde_secs::option")]
    pub report_interval: Option<Duration>,
}

/// One side of the plan.
#[derive(Debug, Clone, Serialize)]
pub struct SidePlan {
    /// Which side this is.
    pub side: Side,
    /// Label in reports.
    pub name: String,
    /// Profile file it came from.
    pub profile: PathBuf,
    /// The server to run against.
    pub target: TargetSpec,
    /// Client-side settings.
    pub client: ClientSpec,
    /// SQL hooks of this side.
    pub hooks: Hooks,
}

/// Where a side's server comes from.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TargetSpec {
    /// A throwaway server that abtest starts.
    Managed {
        /// Server binary.
        binary: PathBuf,
        /// `--key=value` options from the profile.
        options: BTreeMap<String, String>,
    },
    /// A server someone else runs.
    External {
        /// How to reach it.
        endpoint: Endpoint,
        /// Login name.
        user: String,
        /// Password, never serialised.
        #[serde(skip)]
        password: Option<Secret>,
        /// Database holding the sbtest tables.
        database: String,
    },
}

/// A network address or a Unix socket.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Endpoint {
    /// TCP host and port.
    Tcp {
        /// Host name or address.
        host: String,
        /// Port.
        port: u16,
    },
    /// Unix socket path.
    Socket {
        /// Socket path.
        path: PathBuf,
    },
}

impl std::fmt::Display for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Endpoint::Tcp { host, port } => write!(f, "{host}:{port}"),
            Endpoint::Socket { path } => write!(f, "{}", path.display()),
        }
    }
}

/// Client-side settings applied to every connection of a side.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ClientSpec {
    /// TLS mode.
    pub tls: TlsMode,
    /// CA certificate for verification.
    pub tls_ca: Option<PathBuf>,
    /// `SET SESSION` assignments, values already rendered as SQL literals.
    pub session: BTreeMap<String, String>,
}

impl Plan {
    /// Resolves the command line and both profiles into a plan, or a usage error.
    pub fn resolve(cli: &RunArgs, command_line: String) -> anyhow::Result<Plan> {
        let seed = cli.schedule.seed.unwrap_or_else(crate::secret::random_u64);
        let schedule = resolve_schedule(cli, seed)?;
        let workload = WorkloadSpec::resolve(&cli.workload)?;
        let analysis = AnalysisOptions::from_args(&cli.analysis)?;
        let mut warnings = Vec::new();
        let baseline = resolve_side(
            required(&cli.baseline, "--baseline")?,
            Side::Baseline,
            &mut warnings,
        )?;
        let variant = resolve_side(
            required(&cli.variant, "--variant")?,
            Side::Variant,
            &mut warnings,
        )?;
        Ok(Plan {
            sides: [baseline, variant],
            workload,
            schedule,
            allow_foreign_tables: cli.workload.allow_foreign_tables,
            client: resolve_client_options(cli)?,
            analysis,
            seed,
            outputs: Outputs {
                json: cli.json.clone(),
                markdown: cli.markdown.clone(),
                html: cli.html.clone(),
                csv: cli.csv.clone(),
            },
            command_line,
            warnings,
        })
    }

    /// The plan of one side.
    pub fn side(&self, side: Side) -> &SidePlan {
        &self.sides[side as usize]
    }

    /// The largest thread level, which sizes `max_connections`.
    pub fn max_threads(&self) -> u32 {
        self.schedule.levels.iter().copied().max().unwrap_or(1)
    }

    /// Human-readable plan for `--dry-run`.
    pub fn describe(&self) -> String {
        let mut out = String::new();
        for side in &self.sides {
            out.push_str(&format!(
                "{:<9} {} ({})\n          {}\n",
                side.side.as_str(),
                side.name,
                side.profile.display(),
                describe_target(side)
            ));
        }
        let s = &self.schedule;
        out.push_str(&format!("workload  {}\n", self.workload.describe()));
        out.push_str(&format!(
            "schedule  threads {:?}, {} rounds per side, {} order, warm-up {}, round {}, pause {}\n",
            s.levels,
            s.rounds,
            serde_json::to_value(s.order).unwrap_or_default().as_str().unwrap_or("?"),
            humantime::format_duration(s.warmup),
            humantime::format_duration(s.round_time),
            humantime::format_duration(s.pause),
        ));
        let order: String = s
            .slots(self.seed)
            .iter()
            .map(|slot| slot.side.letter())
            .collect();
        out.push_str(&format!("order     {order} (seed {})\n", self.seed));
        out.push_str(&format!(
            "estimate  {} for {} rounds, plus server start and data preparation\n",
            humantime::format_duration(round_secs(s.estimated_time())),
            s.total_rounds()
        ));
        out
    }
}

fn required<'a>(path: &'a Option<PathBuf>, flag: &str) -> anyhow::Result<&'a Path> {
    path.as_deref()
        .ok_or_else(|| UsageError::err(format!("{flag} FILE is required")))
}

fn round_secs(duration: Duration) -> Duration {
    Duration::from_secs(duration.as_secs())
}

fn describe_target(side: &SidePlan) -> String {
    let tls = serde_json::to_value(side.client.tls).unwrap_or_default();
    let tls = tls.as_str().unwrap_or("?");
    match &side.target {
        TargetSpec::Managed { binary, options } => {
            let options: Vec<String> = options.iter().map(|(k, v)| format!("--{k}={v}")).collect();
            format!(
                "managed {} {} (client TLS {tls})",
                binary.display(),
                options.join(" ")
            )
        }
        TargetSpec::External {
            endpoint,
            user,
            database,
            ..
        } => format!("external {user}@{endpoint}/{database} (client TLS {tls})"),
    }
}

fn resolve_client_options(cli: &RunArgs) -> anyhow::Result<ClientOptions> {
    let args = &cli.client;
    if let Some(rate) = args.rate
        && !(rate > 0.0 && rate.is_finite())
    {
        return Err(UsageError::err(format!(
            "--rate {rate} must be a number of events per second above zero"
        )));
    }
    if args.report_interval.is_some_and(|d| d.is_zero()) {
        return Err(UsageError::err(
            "--report-interval must be longer than zero, such as 1s",
        ));
    }
    Ok(ClientOptions {
        rate: args.rate,
        ignore_errors: args.ignore_errors.clone(),
        query_timeout: Some(args.query_timeout).filter(|d| !d.is_zero()),
        on_server_loss: args.on_server_loss,
        report_interval: args.report_interval,
    })
}

fn resolve_schedule(cli: &RunArgs, seed: u64) -> anyhow::Result<Schedule> {
    let args = &cli.schedule;
    if args.rounds < 2 {
        return Err(UsageError::err(format!(
            "--rounds {} is too few: a variance needs at least 2 rounds per side; use 5 or more",
            args.rounds
        )));
    }
    if args.round_time.is_zero() {
        return Err(UsageError::err(
            "--round-time must be longer than zero; use e.g. 30s",
        ));
    }
    let levels = &cli.workload.threads;
    if levels.is_empty() || levels.contains(&0) {
        return Err(UsageError::err(format!(
            "--threads {levels:?} must be one or more numbers above zero, such as 8 or 16,32,64"
        )));
    }
    Ok(Schedule {
        levels: Schedule::order_levels(levels, args.level_order, seed),
        rounds: args.rounds,
        round_time: args.round_time,
        warmup: args.warmup,
        pause: args.pause,
        order: args.order,
        level_order: args.level_order,
    })
}

/// Reads one profile into the plan of a side.
pub fn resolve_side(
    path: &Path,
    side: Side,
    warnings: &mut Vec<String>,
) -> anyhow::Result<SidePlan> {
    let loaded = profile::load(path, side)?;
    let target = resolve_target(&loaded, warnings)?;
    let client = resolve_client(&loaded)?;
    warn_plain_password(&loaded, &target, &client, warnings);
    Ok(SidePlan {
        side,
        name: loaded.name(),
        profile: path.to_path_buf(),
        target,
        client,
        hooks: loaded.profile.hooks.clone(),
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
            Ok(TargetSpec::Managed {
                binary: resolve_binary(loaded, server.binary.as_deref())?,
                options: resolve_server_options(loaded, &server.options)?,
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
        if is_executable(path) {
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
    find_server_binary().ok_or_else(|| {
        loaded.error_at_key(
            "server",
            "",
            "no mariadbd or mysqld found on PATH or in /usr/sbin; install it \
             (apt-get install mariadb-server) or set `binary` in [server]",
        )
    })
}

/// Finds `mariadbd` (or `mysqld`) on PATH or in /usr/sbin.
pub fn find_server_binary() -> Option<PathBuf> {
    find_program(&["mariadbd", "mysqld"])
}

/// Finds the first of `names` on PATH, /usr/sbin or /usr/bin.
pub fn find_program(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs: Vec<PathBuf> = std::env::split_paths(&path).collect();
    dirs.extend([PathBuf::from("/usr/sbin"), PathBuf::from("/usr/bin")]);
    names
        .iter()
        .flat_map(|name| dirs.iter().map(move |dir| dir.join(name)))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

fn resolve_server_options(
    loaded: &LoadedProfile,
    options: &BTreeMap<String, toml::Value>,
) -> anyhow::Result<BTreeMap<String, String>> {
    let mut resolved = BTreeMap::new();
    for (key, value) in options {
        let normalized = key.replace('-', "_");
        if RESERVED_SERVER_OPTIONS.contains(&normalized.as_str()) {
            return Err(loaded.error_at_key(
                "server.options",
                key,
                &format!(
                    "`{key}` is set by abtest for a managed server; remove it from [server.options]"
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

fn check_port_free(loaded: &LoadedProfile, port: &str) -> anyhow::Result<()> {
    let port: u16 = port.parse().map_err(|_| {
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
