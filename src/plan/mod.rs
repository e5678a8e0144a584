//! The resolved plan: both profiles, the workload and the schedule, validated before
//! anything connects. Every check that can fail without a server lives here, so a bad
//! flag or profile costs the user a second, not a half-finished run.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::analysis::AnalysisOptions;
use crate::cli::RunArgs;
use crate::db::errors::IgnoreErrors;
use crate::db::{ClientSpec, Endpoint};
use crate::exit::UsageError;
use crate::placement::{CpuList, Placement};
use crate::profile::{Hooks, Side};
use crate::schedule::{Connections, Schedule};
use crate::secret::Secret;
use crate::segment::Segment;
use crate::server::OnServerLoss;
use crate::server::defaults_file::DefaultsFile;
use crate::server::sandbox::ServerLaunch;
use crate::stats::sequential::{Design, Until};
use crate::thread_policy::ClientSched;
use crate::workload::WorkloadSpec;

pub(crate) mod args;
mod managed;
pub(crate) mod outputs;
mod side;
mod split;

pub(crate) use side::{external_server, resolve_side};

/// Everything needed to run an experiment, resolved and validated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Plan {
    /// Baseline and variant, in that order.
    pub(crate) sides: [SidePlan; 2],
    /// The workload both sides run.
    pub(crate) workload: WorkloadSpec,
    /// Rounds, levels and timing.
    pub(crate) schedule: Schedule,
    /// How the client drives the servers.
    pub(crate) client: ClientOptions,
    /// How the results are analysed.
    pub(crate) analysis: AnalysisOptions,
    /// Seed for data, order and workload randomness.
    pub(crate) seed: u64,
    /// Files to write.
    pub(crate) outputs: Outputs,
    /// Whether a write workload may run in an external database holding other tables.
    #[serde(default)]
    pub(crate) allow_foreign_tables: bool,
    /// A run with --until: its looks and its stopping rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) sequential: Option<Sequential>,
    /// This process's part of a run split over several client hosts (`--segment`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) segment: Option<Segment>,
    /// The command line that reproduces this run (never holds a secret).
    pub(crate) command_line: String,
    /// Problems worth a warning that do not stop the run.
    #[serde(skip)]
    pub(crate) warnings: Vec<String>,
}

/// A run that may stop at a look (`--max-time` with `--until`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Sequential {
    /// When to stop early.
    pub(crate) until: Until,
    /// The looks and the α each spends.
    pub(crate) design: Design,
    /// The wall-clock budget of the rounds.
    #[serde(with = "crate::serde_secs")]
    pub(crate) max_time: Duration,
}

/// The files a run writes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Outputs {
    /// Results JSON, rewritten after every round.
    pub(crate) json: Option<PathBuf>,
    /// Markdown report, written at the end.
    pub(crate) markdown: Option<PathBuf>,
    /// HTML report, written at the end.
    pub(crate) html: Option<PathBuf>,
    /// Rounds CSV, rewritten after every round.
    pub(crate) csv: Option<PathBuf>,
    /// JUnit XML of the verdicts, written at the end.
    #[serde(default)]
    pub(crate) junit: Option<PathBuf>,
}

impl Outputs {
    /// Every output path that was given.
    pub(crate) fn paths(&self) -> impl Iterator<Item = &PathBuf> {
        [
            &self.json,
            &self.markdown,
            &self.html,
            &self.csv,
            &self.junit,
        ]
        .into_iter()
        .flatten()
    }
}

/// How the client drives the servers, the same for both sides.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ClientOptions {
    /// Open-loop arrival rate (events per second), if any.
    pub(crate) rate: Option<f64>,
    /// Errors counted and retried.
    pub(crate) ignore_errors: IgnoreErrors,
    /// What to do when a managed server dies mid-round (`fail` in files older than
    /// the option).
    #[serde(default = "fail_on_server_loss")]
    pub(crate) on_server_loss: OnServerLoss,
    /// Statement read/write timeout, if any (none in files older than the option).
    #[serde(default, with = "crate::serde_secs::option")]
    pub(crate) query_timeout: Option<Duration>,
    /// Progress line interval.
    #[serde(with = "crate::serde_secs::option")]
    pub(crate) report_interval: Option<Duration>,
    /// Scheduling policy of the client threads (`normal`, what ran, in files older than
    /// the option).
    #[serde(default = "normal_scheduling")]
    pub(crate) client_sched: ClientSched,
    /// Whether the idle side's managed server is stopped while the other side runs.
    #[serde(default)]
    pub(crate) freeze_idle: bool,
    /// Whether connections are kept between a side's rounds (`per_round`, what ran, in
    /// files older than the option).
    #[serde(default = "connections_per_round")]
    pub(crate) connections: Connections,
    /// The CPUs the client threads run on (`--cpus client=`), or any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) cpus: Option<CpuList>,
    /// Sampled read statements whose answers are compared before the rounds (0: none).
    #[serde(default)]
    pub(crate) check_results: u32,
}

fn connections_per_round() -> Connections {
    Connections::PerRound
}

fn fail_on_server_loss() -> OnServerLoss {
    OnServerLoss::Fail
}

fn normal_scheduling() -> ClientSched {
    ClientSched::Normal
}

/// One side of the plan.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct SidePlan {
    /// Which side this is.
    pub(crate) side: Side,
    /// Label in reports.
    pub(crate) name: String,
    /// Profile file it came from.
    pub(crate) profile: PathBuf,
    /// The server to run against.
    pub(crate) target: TargetSpec,
    /// Client-side settings.
    pub(crate) client: ClientSpec,
    /// SQL hooks of this side.
    pub(crate) hooks: Hooks,
    /// The CPUs its managed server runs on (`--cpus`), or any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) cpus: Option<CpuList>,
    /// The profile's `password_file`: an input no output may replace (not saved).
    #[serde(skip)]
    pub(crate) password_file: Option<PathBuf>,
}

/// Two sides are equal when a run could not tell them apart: the profile's password file
/// is where a secret comes from, not part of the side (and is never saved).
impl PartialEq for SidePlan {
    fn eq(&self, other: &SidePlan) -> bool {
        let SidePlan {
            side,
            name,
            profile,
            target,
            client,
            hooks,
            cpus,
            password_file: _,
        } = self;
        (side, name, profile, target, client, hooks, cpus)
            == (
                &other.side,
                &other.name,
                &other.profile,
                &other.target,
                &other.client,
                &other.hooks,
                &other.cpus,
            )
    }
}

impl PartialEq for TargetSpec {
    fn eq(&self, other: &TargetSpec) -> bool {
        match (self, other) {
            (
                TargetSpec::Managed {
                    binary,
                    options,
                    redirects,
                    defaults_file,
                },
                TargetSpec::Managed {
                    binary: binary_b,
                    options: options_b,
                    redirects: redirects_b,
                    defaults_file: defaults_file_b,
                },
            ) => {
                (binary, options, redirects, defaults_file)
                    == (binary_b, options_b, redirects_b, defaults_file_b)
            }
            (
                TargetSpec::External {
                    endpoint,
                    user,
                    password: _,
                    database,
                },
                TargetSpec::External {
                    endpoint: endpoint_b,
                    user: user_b,
                    password: _,
                    database: database_b,
                },
            ) => (endpoint, user, database) == (endpoint_b, user_b, database_b),
            _ => false,
        }
    }
}

impl SidePlan {
    /// How its managed server is started, for `max_threads` client connections; `None`
    /// for an external server.
    pub(crate) fn server_launch(&self, max_threads: u32) -> Option<ServerLaunch<'_>> {
        match &self.target {
            TargetSpec::Managed {
                binary,
                options,
                redirects,
                defaults_file,
            } => Some(ServerLaunch {
                cpus: self.cpus.as_ref(),
                defaults_file: defaults_file.as_ref(),
                redirects: Some(redirects),
                ..ServerLaunch::new(
                    self.side,
                    binary,
                    options,
                    max_threads,
                    crate::server::tls::SERVER_NAMES,
                )
            }),
            TargetSpec::External { .. } => None,
        }
    }
}

/// Where a side's server comes from. Two targets are equal when they are the same
/// server, set up the same: the password that reaches it is not part of that (it is never
/// saved, so a resumed run's target has none).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum TargetSpec {
    /// A throwaway server that abtest starts.
    Managed {
        /// Server binary.
        binary: PathBuf,
        /// `--key=value` options from the profile.
        options: BTreeMap<String, String>,
        /// The profile's options that name where the server writes, with the option
        /// each reaches: pointed into the server's private directory.
        #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
        redirects: BTreeMap<String, String>,
        /// The user's my.cnf it starts from (`[server] defaults_file`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        defaults_file: Option<DefaultsFile>,
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

/// Said when both sides are configured identically.
pub(crate) const AA_NOTICE: &str = "baseline and variant are configured identically: this is an A/A \
     run, which measures the noise; any change it reports is chance";

/// A SET GLOBAL of a session variable in a `before_round` or `after_round` hook reaches
/// only sessions opened after it, so a run with round hooks opens its connections for
/// every round.
fn connections_per_round_with_round_hooks(
    sides: &[SidePlan; 2],
    client: &mut ClientOptions,
    warnings: &mut Vec<String>,
) {
    let round_hooks =
        |s: &SidePlan| !s.hooks.before_round.is_empty() || !s.hooks.after_round.is_empty();
    if client.connections == Connections::Persistent && sides.iter().any(round_hooks) {
        client.connections = Connections::PerRound;
        warnings.push(
            "a profile has before_round/after_round hooks: connections are opened for every round \
             (as with --connections per-round), so each session sees what the hooks set"
                .to_string(),
        );
    }
}

/// `--instances K` restarts managed servers between blocks of rounds; each block needs
/// two rounds per side for a variance within it.
fn check_instances(
    schedule: &Schedule,
    sides: &[SidePlan; 2],
    sequential: bool,
) -> anyhow::Result<()> {
    let k = schedule.instances;
    if k < 2 {
        return Ok(());
    }
    if let Some(side) = sides
        .iter()
        .find(|s| matches!(s.target, TargetSpec::External { .. }))
    {
        return Err(UsageError::err(format!(
            "--instances {k}: the {} side ({}) is an external server, which abtest cannot restart; \
             fresh instances need managed [server] sides. For external servers, run `abtest calibrate` \
             on the pair first (see \"Instance effects\" in README)",
            side.side,
            side.profile.display()
        )));
    }
    if schedule.rounds < 2 * k {
        return Err(UsageError::err(format!(
            "--instances {k} needs at least {} rounds per side (2 per instance), the plan has {}; \
             raise --rounds or --max-time, or lower --instances",
            2 * k,
            schedule.rounds
        )));
    }
    if sequential {
        return Err(UsageError::err(format!(
            "--instances {k} with --until: looks inside an instance block would judge an unfinished \
             instance; give --max-time without --until"
        )));
    }
    Ok(())
}

/// Whether both sides reach one and the same external server (two settings of one
/// server, set by hooks).
pub(crate) fn one_external_server(sides: &[SidePlan; 2]) -> bool {
    let external = |s: &SidePlan| matches!(s.target, TargetSpec::External { .. });
    sides.iter().all(external) && sides[0].target == sides[1].target
}

/// `--swap` moves each side's settings to the other server through its hooks: that
/// needs two external servers, and settings that hooks make.
fn check_swap(schedule: &Schedule, sides: &[SidePlan; 2], sequential: bool) -> anyhow::Result<()> {
    if !schedule.swap {
        return Ok(());
    }
    let refuse = |why: &str| Err(UsageError::err(format!("--swap: {why}")));
    if sides
        .iter()
        .any(|s| !matches!(s.target, TargetSpec::External { .. }))
    {
        return refuse(
            "both sides must be external [connection] servers; managed servers are fresh \
             instances already (see --instances)",
        );
    }
    if one_external_server(sides) {
        return refuse("both sides are the same server; there is nothing to swap");
    }
    if sides.iter().all(|s| s.hooks.setup.is_empty()) {
        return refuse(
            "neither profile has setup hooks; --swap exchanges the settings the hooks make \
             (SET GLOBAL, INSTALL SONAME), so the change must be written as hooks",
        );
    }
    let client = |s: &SidePlan| (s.client.tls, s.client.session.clone());
    if client(&sides[0]) != client(&sides[1]) {
        return refuse(
            "the profiles' [connection] tls or [session] settings differ; --swap moves only \
             what the hooks set, so those would stay with the servers and be mixed up with the \
             change: make them the same, or write the difference as hooks",
        );
    }
    if schedule.rounds < 4 || schedule.instances > 1 || sequential {
        return refuse("needs at least 4 rounds per side, and neither --instances nor --until");
    }
    Ok(())
}

/// `--check-results N` compares the answers of the workload's reads; a workload without
/// a read has nothing to compare, and a check that compared nothing must never pass for
/// one that found no difference.
fn check_answers_can_be_compared(
    workload: &WorkloadSpec,
    client: &ClientOptions,
) -> anyhow::Result<()> {
    let n = client.check_results;
    if n == 0 || !crate::workload::oltp::sample_reads(workload, 0, 1).is_empty() {
        return Ok(());
    }
    Err(UsageError::err(format!(
        "--check-results {n}: the workload {} has no read statement whose answers could be \
         compared; drop --check-results, or check the answers with a workload that reads \
         (such as oltp_read_only)",
        workload.name.as_str()
    )))
}

/// A captured workload that writes changes an external server's data: that needs
/// `--allow-writes`. Managed servers are thrown away, so they need nothing.
fn check_captured_writes(
    workload: &WorkloadSpec,
    sides: &[SidePlan; 2],
    allowed: bool,
) -> anyhow::Result<()> {
    let writes = workload.custom.as_ref().is_some_and(|c| c.writes);
    let external = sides
        .iter()
        .find(|s| matches!(s.target, TargetSpec::External { .. }));
    match external {
        Some(side) if writes && !allowed => Err(UsageError::err(format!(
            "the workload file is marked `writes = true` (a captured mix with INSERT/UPDATE/DELETE) \
             and the {} side ({}) is an external server: its data would change. Replay on managed \
             servers, on a copy, or add --allow-writes",
            side.side,
            side.profile.display()
        ))),
        _ => Ok(()),
    }
}

/// Puts `--cpus` into the plan: the client's list and each managed server's. A list for
/// an external server, or a CPU this host does not offer, is refused.
fn place(
    placement: &Placement,
    sides: &mut [SidePlan; 2],
    client: &mut ClientOptions,
) -> anyhow::Result<()> {
    placement
        .check_available()
        .map_err(|e| UsageError::err(format!("--cpus {e}")))?;
    for side in sides.iter_mut() {
        let cpus = placement.server(side.side).cloned();
        if cpus.is_some() && matches!(side.target, TargetSpec::External { .. }) {
            return Err(UsageError::err(format!(
                "--cpus {}=: the {} side is an external server ([connection]); abtest can place \
                 only the servers it starts. Pin it where it runs (taskset, systemd CPUAffinity=)",
                side.side, side.side
            )));
        }
        side.cpus = cpus;
    }
    client.cpus = placement.client.clone();
    Ok(())
}

impl Plan {
    /// Resolves the command line and both profiles into a plan, or a usage error.
    pub(crate) fn resolve(cli: &RunArgs, command_line: String) -> anyhow::Result<Plan> {
        let seed = cli.schedule.seed.unwrap_or_else(crate::secret::random_u64);
        let mut schedule = args::schedule(&cli.schedule, &cli.workload.threads, seed)?;
        let workload = args::workload_spec(&cli.workload)?;
        let analysis = args::analysis_options(&cli.analysis, &AnalysisOptions::default())?;
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
        let mut sides = [baseline, variant];
        let mut client = args::client_options(&cli.client)?;
        if let Some(placement) = &cli.client.cpus {
            place(placement, &mut sides, &mut client)?;
        }
        connections_per_round_with_round_hooks(&sides, &mut client, &mut warnings);
        if client.connections == Connections::PerRound {
            schedule.rewarm = None;
        }
        let sequential = args::budget(&cli.schedule, &mut schedule, &analysis)?;
        check_instances(&schedule, &sides, sequential.is_some())?;
        check_swap(&schedule, &sides, sequential.is_some())?;
        check_captured_writes(&workload, &sides, cli.workload.allow_writes)?;
        check_answers_can_be_compared(&workload, &client)?;
        let plan = Plan {
            sides,
            workload,
            schedule,
            allow_foreign_tables: cli.workload.allow_foreign_tables,
            client,
            analysis,
            seed,
            sequential,
            outputs: Outputs {
                json: cli.json.clone(),
                markdown: cli.markdown.clone(),
                html: cli.html.clone(),
                csv: cli.csv.clone(),
                junit: cli.junit.clone(),
            },
            segment: split::segment(&cli.segment)?,
            command_line,
            warnings,
        };
        split::check(&plan, cli.schedule.seed.is_some())?;
        outputs::check(
            &plan.outputs,
            &outputs::inputs(&plan, cli.workload.workload_file.as_deref()),
        )?;
        Ok(plan)
    }

    /// The plan of one side.
    pub(crate) fn side(&self, side: Side) -> &SidePlan {
        &self.sides[side as usize]
    }

    /// The largest thread level, which sizes `max_connections`.
    pub(crate) fn max_threads(&self) -> u32 {
        self.schedule.levels.iter().copied().max().unwrap_or(1)
    }

    /// Whether both sides are configured identically (same server, options, client and
    /// hooks): an A/A run, which measures the noise, not a change.
    pub(crate) fn is_aa(&self) -> bool {
        let [a, b] = &self.sides;
        (&a.target, &a.client, &a.hooks) == (&b.target, &b.client, &b.hooks)
    }

    /// Human-readable plan for `--dry-run`.
    pub(crate) fn describe(&self) -> String {
        let mut out = String::new();
        for side in &self.sides {
            out.push_str(&format!(
                "{:<9} {} ({})\n          {}\n",
                side.side.as_str(),
                side.name,
                side.profile.display(),
                describe_target(
                    side,
                    self.schedule.levels.iter().copied().max().unwrap_or(1)
                )
            ));
        }
        if self.is_aa() {
            out.push_str(&format!("notice    {AA_NOTICE}\n"));
        }
        let s = &self.schedule;
        out.push_str(&format!("workload  {}\n", self.workload.describe()));
        out.push_str(&format!(
            "schedule  threads {:?}, {} rounds per side, {} order, warm-up {}, round {}, pause {}\n",
            s.levels,
            s.rounds,
            s.order.as_str(),
            humantime::format_duration(s.warmup),
            humantime::format_duration(s.round_time),
            humantime::format_duration(s.pause),
        ));
        if s.instances > 1 {
            out.push_str(&format!(
                "instances {} per side and level: fresh servers from the prepared data every {} round pairs; compared on instance means\n",
                s.instances,
                s.rounds.div_ceil(s.instances)
            ));
        }
        out.push_str(&match s.rewarm {
            Some(rewarm) => format!(
                "client    connections kept between a side's rounds; later rounds re-warm {}\n",
                humantime::format_duration(rewarm)
            ),
            None => "client    connections opened for every round\n".to_string(),
        });
        let servers = self.sides.iter().filter_map(|side| {
            side.cpus
                .as_ref()
                .map(|cpus| format!("{} server on CPU {cpus}", side.side))
        });
        let placement: Vec<String> = self
            .client
            .cpus
            .iter()
            .map(|cpus| format!("client threads on CPU {cpus}"))
            .chain(servers)
            .collect();
        if !placement.is_empty() {
            out.push_str(&format!("cpus      {}\n", placement.join(", ")));
        }
        if let Some(segment) = &self.segment {
            let shares: Vec<u32> = s.levels.iter().map(|&l| segment.share(l).count).collect();
            out.push_str(&format!(
                "segment   {} of {}: threads {shares:?} of {:?}; first round at {}, guard gap {} after every round\n",
                segment.index,
                segment.count,
                s.levels,
                segment.start_at.as_deref().unwrap_or("once ready"),
                humantime::format_duration(segment.guard)
            ));
        }
        let order: String = s
            .slots(self.seed)
            .iter()
            .map(|slot| slot.side.letter())
            .collect();
        out.push_str(&format!("order     {order} (seed {})\n", self.seed));
        out.push_str(&format!("analysis  {}\n", self.analysis.describe()));
        if let Some(sequential) = &self.sequential {
            let looks: Vec<String> = sequential
                .design
                .rounds
                .iter()
                .map(u32::to_string)
                .collect();
            let until = match sequential.until {
                Until::Decided => "every tolerance is GO or NO-GO".to_string(),
                Until::Precision(h) => format!("the TPS interval is within ±{h} %"),
            };
            out.push_str(&format!(
                "looks     at {} rounds per side (budget {}); stop when {until}\n",
                looks.join(", "),
                humantime::format_duration(sequential.max_time)
            ));
        }
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

/// A side's server for the dry run: where it is, and for a managed one the full command
/// line it starts with and what became of each option of its defaults file.
fn describe_target(side: &SidePlan, max_threads: u32) -> String {
    let tls = serde_json::to_value(side.client.tls).unwrap_or_default();
    let tls = tls.as_str().unwrap_or("?");
    match &side.target {
        TargetSpec::Managed { defaults_file, .. } => {
            let command = side
                .server_launch(max_threads)
                .map(|launch| crate::server::command_line::preview(&launch))
                .unwrap_or_default();
            let mut out =
                format!("managed server (client TLS {tls}), started as\n          {command}");
            if let Some(file) = defaults_file {
                out.push_str(&format!(
                    "\n          defaults file {}:",
                    file.path.display()
                ));
                for option in &file.options {
                    let written = match &option.value {
                        Some(value) => format!("{}={value}", option.name),
                        None => option.name.clone(),
                    };
                    out.push_str(&format!(
                        "\n            {written}: {}",
                        option.treatment.as_str()
                    ));
                }
            }
            out
        }
        TargetSpec::External {
            endpoint,
            user,
            database,
            ..
        } => format!("external {user}@{endpoint}/{database} (client TLS {tls})"),
    }
}
