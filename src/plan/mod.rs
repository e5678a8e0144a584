//! The resolved plan: both profiles, the workload and the schedule, validated before
//! anything connects. Every check that can fail without a server lives here, so a bad
//! flag or profile costs the user a second, not a half-finished run.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::analysis::AnalysisOptions;
use crate::db::errors::IgnoreErrors;
use crate::db::{ClientSpec, Endpoint};
use crate::placement::CpuList;
use crate::profile::Hooks;
use crate::schedule::{Connections, Schedule};
use crate::secret::Secret;
use crate::segment::Segment;
use crate::server::OnServerLoss;
use crate::server::defaults_file::DefaultsFile;
use crate::server::install_tree::InstallTree;
use crate::server::launch::ServerLaunch;
use crate::side::Side;
use crate::stats::sequential::{Design, Until};
use crate::thread_policy::ClientSched;
use crate::workload::WorkloadSpec;

pub(crate) mod arrangement;
mod describe;
#[cfg(test)]
pub(crate) mod example;
mod outputs;
mod server_mode;
mod validate;

/// The most client threads in one level: MariaDB's max_connections stops at 100 000.
pub(crate) const MAX_THREADS: u32 = 100_000;

/// The most rounds per side abtest plans; the plan and the results grow with them.
pub(crate) const MAX_ROUNDS: u32 = 100_000;

/// The longest measured period, warm-up, re-warm or pause of a round.
pub(crate) const MAX_ROUND_PART: std::time::Duration = std::time::Duration::from_secs(24 * 3600);

pub(crate) use outputs::Outputs;
pub(crate) use server_mode::ServerMode;

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
    /// Whether a captured workload that writes may run against an external server
    /// (`--allow-writes`).
    #[serde(default)]
    pub(crate) allow_writes: bool,
    /// Whether a workload file that writes has the tables it writes put back before
    /// every round and at the end (not `--no-restore-data`).
    #[serde(default)]
    pub(crate) restore_data: bool,
    /// A run with --until: its looks and its stopping rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) sequential: Option<Sequential>,
    /// This process's part of a run split over several client hosts (`--segment`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) segment: Option<Segment>,
    /// Whether two managed sides share one server (`--servers`; `separate`, what ran,
    /// in files older than the option).
    #[serde(default = "separate_servers")]
    pub(crate) servers: ServerMode,
    /// The command line that reproduces this run (never holds a secret).
    pub(crate) command_line: String,
    /// Problems worth a warning that do not stop the run.
    #[serde(skip)]
    pub(crate) warnings: Vec<String>,
    /// The workload file's number of each query class the plan runs, when
    /// `--exclude-class`/`--only-class` chose them (empty: all, numbered from 1).
    #[serde(skip)]
    pub(crate) class_numbers: Vec<u32>,
    /// The timing the run takes instead when the rounds' defaults were chosen for one
    /// shared server and the server then needs one per side (only the server can tell).
    #[serde(skip)]
    pub(crate) if_separate: Option<Box<SeparateTiming>>,
}

/// The rounds' timing of a plan: its schedule, its looks, and the warning when they are
/// too few to decide.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Timing {
    pub(crate) schedule: Schedule,
    pub(crate) sequential: Option<Sequential>,
    pub(crate) warning: Option<String>,
}

/// The timing of a plan on a server per side, kept while it may still share one.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SeparateTiming {
    /// Or why the flags give none on a server per side (a budget too short for its
    /// longer rounds).
    pub(crate) timing: Result<Timing, String>,
    /// The shared timing's warning, which this one's replaces.
    pub(crate) replaces: Option<String>,
}

impl Plan {
    /// Takes the timing kept for a server per side, if one was; the error says why the
    /// flags hold none there.
    pub(crate) fn use_separate_timing(&mut self) -> Result<(), String> {
        let Some(separate) = self.if_separate.take() else {
            return Ok(());
        };
        let SeparateTiming { timing, replaces } = *separate;
        self.warnings.retain(|w| Some(w) != replaces.as_ref());
        self.take_timing(timing?);
        Ok(())
    }

    /// Runs with `timing`: its schedule, its looks, its warning.
    pub(crate) fn take_timing(&mut self, timing: Timing) {
        self.schedule = timing.schedule;
        self.sequential = timing.sequential;
        self.warnings.extend(timing.warning);
    }
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
    /// Whether every captured value of each read class is compared (`--check-results
    /// all`) rather than about `check_results` statements.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) check_all: bool,
    /// Whether the same rows in another order count as a different answer.
    #[serde(default)]
    pub(crate) check_order: bool,
    /// Whether the timed rounds run even when the answers differ.
    #[serde(default)]
    pub(crate) continue_after_differences: bool,
    /// Whether the run compares the answers (and times the classes) only, with no timed
    /// round (`--check-only`): the workload's writes are skipped.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) check_only: bool,
    /// The time given to timing every read query class on idle servers before the
    /// rounds (`--class-timing`), if they are timed.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_secs::option"
    )]
    pub(crate) class_timing: Option<std::time::Duration>,
}

/// How far past its budget the class timing may run before it is cut short.
pub(crate) const CLASS_TIMING_OVERRUN: u32 = 3;

impl ClientOptions {
    /// Which read statements `--check-results` compares.
    pub(crate) fn check_coverage(&self) -> crate::workload::check_sample::Coverage {
        use crate::workload::check_sample::Coverage;
        if self.check_all {
            Coverage::EveryValue
        } else {
            Coverage::Spread(self.check_results)
        }
    }
}

fn separate_servers() -> ServerMode {
    ServerMode::Separate
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
                    tree,
                    options,
                    redirects,
                    defaults_file,
                },
                TargetSpec::Managed {
                    binary: binary_b,
                    tree: tree_b,
                    options: options_b,
                    redirects: redirects_b,
                    defaults_file: defaults_file_b,
                },
            ) => {
                // Compared as saved: a credential's value is masked in a results file.
                let shown = |file: &Option<DefaultsFile>| file.as_ref().map(DefaultsFile::shown);
                (binary, tree, redirects) == (binary_b, tree_b, redirects_b)
                    && crate::secret::masked_options(options)
                        == crate::secret::masked_options(options_b)
                    && shown(defaults_file) == shown(defaults_file_b)
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
    /// The install tree its managed server runs from; none for the system install or an
    /// external server.
    pub(crate) fn install_tree(&self) -> Option<&InstallTree> {
        match &self.target {
            TargetSpec::Managed { tree, .. } => tree.as_ref(),
            TargetSpec::External { .. } => None,
        }
    }

    /// How its managed server is started, for `max_threads` client connections; `None`
    /// for an external server.
    pub(crate) fn server_launch(&self, max_threads: u32) -> Option<ServerLaunch<'_>> {
        match &self.target {
            TargetSpec::Managed {
                binary,
                tree,
                options,
                redirects,
                defaults_file,
            } => Some(ServerLaunch {
                cpus: self.cpus.as_ref(),
                tree: tree.as_ref(),
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
        /// The install tree it runs from (`[server] basedir`, or the tree its binary
        /// sits in); none for the system install.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tree: Option<InstallTree>,
        /// `--key=value` options from the profile; saved with credentials masked.
        #[serde(serialize_with = "crate::secret::serialize_masked_options")]
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

/// Whether both sides reach one and the same external server (two settings of one
/// server, set by hooks).
pub(crate) fn one_external_server(sides: &[SidePlan; 2]) -> bool {
    let external = |s: &SidePlan| matches!(s.target, TargetSpec::External { .. });
    sides.iter().all(external) && sides[0].target == sides[1].target
}

impl Plan {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_per_side_takes_its_own_timing_and_warning() {
        let mut plan = example::managed(150, &[8]);
        let mut separate = plan.schedule.clone();
        separate.rounds = 30;
        separate.round_time = Duration::from_secs(5);
        assert_ne!(separate, plan.schedule);
        plan.warnings = vec!["kept".into(), "too few (shared)".into()];
        plan.if_separate = Some(Box::new(SeparateTiming {
            timing: Ok(Timing {
                schedule: separate.clone(),
                sequential: None,
                warning: Some("too few (separate)".into()),
            }),
            replaces: Some("too few (shared)".into()),
        }));
        assert_eq!(plan.use_separate_timing(), Ok(()));
        assert_eq!(plan.schedule, separate);
        assert_eq!(plan.warnings, ["kept", "too few (separate)"]);
        assert!(plan.if_separate.is_none());
        assert_eq!(
            plan.use_separate_timing(),
            Ok(()),
            "nothing kept: as it was"
        );
        assert_eq!(plan.schedule, separate);
        plan.if_separate = Some(Box::new(SeparateTiming {
            timing: Err("--max-time 20s holds 1 round(s)".into()),
            replaces: None,
        }));
        assert_eq!(
            plan.use_separate_timing(),
            Err("--max-time 20s holds 1 round(s)".to_string())
        );
    }

    #[test]
    fn a_side_equals_its_saved_self_without_the_secrets() {
        let plan = example::external(2, &[8]);
        let mut now = plan.sides[1].clone();
        if let TargetSpec::External { password, .. } = &mut now.target {
            *password = Some(Secret::new("from the profile"));
        }
        now.password_file = Some("/etc/abtest/password".into());
        now.hooks.setup = vec!["CREATE USER u IDENTIFIED BY 'hunter2'".into()];
        let mut saved: SidePlan =
            serde_json::from_value(serde_json::to_value(&now).unwrap()).unwrap();
        assert!(saved.hooks.setup[0].contains("'***'"), "{:?}", saved.hooks);
        assert_eq!(saved, now, "a resumed side is the side that started");
        saved
            .hooks
            .setup
            .push("SET GLOBAL max_connections = 10".into());
        assert_ne!(saved, now, "a changed hook is a changed side");
    }

    #[test]
    fn an_aa_plan_is_told_from_one_that_differs() {
        let mut plan = example::external(2, &[8]);
        assert!(plan.is_aa());
        plan.sides[1].client.tls = crate::profile::TlsMode::Required;
        assert!(!plan.is_aa());
        let mut plan = example::external(2, &[8]);
        if let TargetSpec::External { database, .. } = &mut plan.sides[1].target {
            *database = "other".into();
        }
        assert!(!plan.is_aa());
        assert!(!one_external_server(&plan.sides));
    }
}
