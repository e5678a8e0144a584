//! Raw command-line flags, exactly as the user typed them. Nothing here is validated
//! beyond its type: `resolve/` turns these flags and the two profiles into a resolved
//! plan, so the rules live in one place and tests can build plans
//! without a command line.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};

use crate::percent;

mod outputs;
mod values;

/// Every long option of abtest and its commands (`--threads`), for the sysbench hints:
/// a command line is respelled whole only when each of its options is one of these.
pub(crate) fn long_options() -> Vec<String> {
    use clap::CommandFactory;
    fn collect(command: &clap::Command, into: &mut Vec<String>) {
        into.extend(
            command
                .get_arguments()
                .filter_map(|a| a.get_long())
                .map(|long| format!("--{long}")),
        );
        for sub in command.get_subcommands() {
            collect(sub, into);
        }
    }
    let mut options = Vec::new();
    collect(&Cli::command(), &mut options);
    options
}

pub(crate) use outputs::OutputArgs;
pub(crate) use values::*;

use crate::db::errors::IgnoreErrors;
use crate::placement::Placement;
use crate::plan::ServerMode;
use crate::report::formats::Format;
use crate::schedule::{Connections, LevelOrder, RoundOrder};
use crate::server::OnServerLoss;
use crate::stats::blocked::Adjust;
use crate::stats::sequential::Until;
use crate::thread_policy::ClientSched;
use crate::workload::random::RandType;
use crate::workload::{PrepareMode, PsMode, WorkloadName};

const EXAMPLE: &str = "\
Example: does the server_audit plugin cost more than 5 % of TPS?

  abtest --baseline profiles/mariadb.toml --variant profiles/mariadb-audit.toml \\
         --workload oltp_point_select --threads 8 --rounds 5 --round-time 5s \\
         --max-tps-loss 5%

abtest starts throwaway MariaDB servers (one for both sides where every difference can
be switched while it runs, as here); both sides get the same sbtest data and workload.
Rounds alternate baseline/variant (ABBA order by default); every round gives one sample
per metric. The analysis follows the order: each ABBA block gives the ratio of its side
means, and a paired t interval over the blocks turns them into a % change with a 95 %
confidence interval (--order random compares rounds with Welch's test and Fieller's
interval).

With a tolerance, the answer is a verdict: GO (exit 0), NO-GO (exit 3) or INCONCLUSIVE
(exit 4, with the rounds needed to decide).

Exit codes: 0 completed or GO, 1 runtime failure, 2 usage or configuration error,
3 NO-GO, 4 INCONCLUSIVE, 130 interrupted (partial results saved).";

/// Command-line interface of abtest.
#[derive(Debug, Parser)]
#[command(
    name = "abtest",
    version,
    about = "A/B test two MySQL/MariaDB configurations with sysbench-style OLTP workloads",
    after_help = EXAMPLE,
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
pub(crate) struct Cli {
    /// A subcommand; without one, abtest runs an experiment.
    #[command(subcommand)]
    pub(crate) command: Option<Command>,

    /// The experiment to run.
    #[command(flatten)]
    pub(crate) run: RunArgs,

    /// What abtest writes on the terminal, for every command.
    #[command(flatten)]
    pub(crate) terminal: TerminalArgs,
}

/// `--quiet` and `--color`, taken by every command.
#[derive(Debug, Clone, Args)]
pub(crate) struct TerminalArgs {
    /// No progress bar, per-round lines or notes on stderr; warnings, errors and stdout
    /// stay.
    #[arg(long, short = 'q', global = true)]
    pub(crate) quiet: bool,

    /// Colour the tables and help: auto (a terminal, unless NO_COLOR is set), always,
    /// never.
    #[arg(long, value_name = "WHEN", global = true, default_value = "auto")]
    pub(crate) color: clap::ColorChoice,
}

/// Subcommands beside running an experiment.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Re-analyse a saved run (results JSON) or a CSV of per-round values, without a database.
    Analyze(AnalyzeArgs),
    /// How many rounds per side are needed to detect an effect, before running anything.
    PlanRounds(PlanRoundsArgs),
    /// Render a report (table, Markdown, HTML, CSV, JSON) from a saved results file.
    Report(ReportArgs),
    /// Translate a sysbench 0.4 or 1.0 command line into abtest options and a profile stub.
    FromSysbench(FromSysbenchArgs),
    /// Turn sysbench 0.4/1.0 result logs into the per-round CSV that `abtest analyze` reads.
    ImportSysbenchLog(ImportLogArgs),
    /// Drop the tables abtest created on an external server (never any other table).
    Cleanup(CleanupArgs),
    /// Put external servers back as they were before a run's first hook, from the
    /// snapshot its results file saved (after a kill -9, for instance).
    Restore(RestoreArgs),
    /// Turn a slow log, a general log or a server's digest table into a --workload-file.
    Capture(CaptureArgs),
    /// Join the results files of a run's segments (--segment I/N) into one run.
    Merge(MergeArgs),
    /// How far two server instances of one configuration differ on this host: an A/A run
    /// on fresh instances, with its variance components.
    Calibrate(CalibrateArgs),
    /// Check a run before it runs: the run's options after `check`. Connects to external
    /// servers (password, grants, max_connections, database, disk); checks managed
    /// servers' option values and the data size against the buffer pool and the disk.
    Check(Box<RunArgs>),
}

/// `abtest calibrate profile.toml --instances 3 --max-time 5m -- --workload oltp_read_write`.
#[derive(Debug, Clone, Args)]
pub(crate) struct CalibrateArgs {
    /// The profile (a managed [server]) run on both sides.
    #[arg(value_name = "PROFILE")]
    pub(crate) profile: PathBuf,

    /// Fresh server instances per side.
    #[arg(long, value_name = "K", default_value_t = 3, value_parser = clap::value_parser!(u32).range(2..=50))]
    pub(crate) instances: u32,

    /// The wall-clock budget of the rounds.
    #[arg(long, value_name = "DUR", default_value = "5m", value_parser = parse_duration)]
    pub(crate) max_time: Duration,

    /// Write the results here (they keep the variance components).
    #[arg(long, value_name = "FILE")]
    pub(crate) json: Option<PathBuf>,

    /// Options of a run (workload, threads, schedule, client) after `--`.
    #[arg(last = true, value_name = "RUN OPTIONS")]
    pub(crate) run_options: Vec<String>,
}

/// `abtest capture slow.log -o captured.toml`.
#[derive(Debug, Clone, Args)]
pub(crate) struct CaptureArgs {
    /// A slow log (written with long_query_time = 0) or a general log; the format is
    /// recognised from the content.
    #[arg(
        value_name = "LOG",
        required_unless_present = "digest",
        conflicts_with = "digest"
    )]
    pub(crate) log: Option<PathBuf>,

    /// Read performance_schema's statement digest table of the server in this profile
    /// ([connection]) instead of a log.
    #[arg(long, value_name = "PROFILE")]
    pub(crate) digest: Option<PathBuf>,

    /// Keep only the N most executed fingerprints.
    #[arg(long, value_name = "N", conflicts_with = "coverage", value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) top: Option<u32>,

    /// Keep the most executed fingerprints until they make up this share of executions.
    #[arg(long, value_name = "PCT", value_parser = percent::parse_percent)]
    pub(crate) coverage: Option<f64>,

    /// Replace captured string literals with made-up ones of the same length and
    /// character kinds (for logs with personal data).
    #[arg(long)]
    pub(crate) anonymize: bool,

    /// Seed of the made-up strings of --anonymize.
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,

    /// Where to write the workload file (default: stdout).
    #[arg(long, short, value_name = "FILE")]
    pub(crate) output: Option<PathBuf>,

    /// Prepare every captured statement on the server in this profile ([connection]) and
    /// name each one it cannot prepare, with its transaction and line in the file (exit 2).
    #[arg(long, value_name = "PROFILE")]
    pub(crate) check_on: Option<PathBuf>,
}

/// `abtest cleanup --profile X.toml`.
#[derive(Debug, Clone, Args)]
pub(crate) struct CleanupArgs {
    /// Profile of the external server.
    #[arg(long, value_name = "FILE")]
    pub(crate) profile: PathBuf,

    /// Name the tables of this workload file's `tables` that are kept (no mark of
    /// abtest's), with the statement to drop them by hand; they are never dropped.
    #[arg(long, value_name = "FILE")]
    pub(crate) workload_file: Option<PathBuf>,
}

/// `abtest restore results.json [--dry-run]`.
#[derive(Debug, Clone, Args)]
pub(crate) struct RestoreArgs {
    /// The results file of the run (--json) whose servers to put back.
    #[arg(value_name = "RESULTS.json")]
    pub(crate) results: PathBuf,

    /// Show every difference and the statement that puts it back; change nothing.
    #[arg(long)]
    pub(crate) dry_run: bool,
}

/// `abtest import-sysbench-log --baseline A.log --variant B.log`.
#[derive(Debug, Clone, Args)]
pub(crate) struct ImportLogArgs {
    /// Logs of the baseline configuration; every run in them is one round.
    #[arg(long, num_args = 1.., required = true)]
    pub(crate) baseline: Vec<PathBuf>,

    /// Logs of the variant configuration.
    #[arg(long, num_args = 1.., required = true)]
    pub(crate) variant: Vec<PathBuf>,

    /// Client threads of runs whose log does not show them (no banner, no interval lines).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) threads: Option<u32>,

    /// Write the CSV here instead of stdout.
    #[arg(long, short, value_name = "FILE")]
    pub(crate) output: Option<PathBuf>,
}

/// `abtest from-sysbench '<command line>'`.
#[derive(Debug, Clone, Args)]
pub(crate) struct FromSysbenchArgs {
    /// Write the profiles (baseline.toml, variant.toml) into DIR instead of printing
    /// them; the printed command names them there. Existing files are not overwritten.
    #[arg(long, value_name = "DIR")]
    pub(crate) write: Option<PathBuf>,

    /// The sysbench command line, quoted as one argument or as separate words; or a
    /// script's text with its prepare and run lines and its `for thread in …` loop.
    #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
    pub(crate) command_line: Vec<String>,
}

/// `abtest report RESULTS.json`.
#[derive(Debug, Clone, Args)]
pub(crate) struct ReportArgs {
    /// An abtest results JSON.
    pub(crate) file: PathBuf,

    /// Report format.
    #[arg(long, value_parser = format_parser(), default_value = "table")]
    pub(crate) format: Format,

    /// Re-judge the saved run: each flag given replaces the saved setting it names.
    #[command(flatten)]
    pub(crate) analysis: AnalysisArgs,

    /// Write to this file instead of stdout.
    #[arg(long, short, value_name = "FILE")]
    pub(crate) output: Option<PathBuf>,

    /// Replace a saved run at --output or another output; without it that is refused.
    #[arg(long)]
    pub(crate) overwrite: bool,

    /// Files to write besides the report.
    #[command(flatten)]
    pub(crate) outputs: OutputArgs,

    /// CI gating of a saved run.
    #[command(flatten)]
    pub(crate) gate: GateArgs,
}

/// How `report` and `analyze` gate CI on a saved run (`--junit` writes its verdicts).
#[derive(Debug, Clone, Args)]
pub(crate) struct GateArgs {
    /// Exit 0 whatever the verdict (only render); without it the exit code follows the
    /// verdict like the run's: 0 GO, 3 NO-GO, 4 INCONCLUSIVE.
    #[arg(long)]
    pub(crate) no_verdict_exit: bool,
}

/// The values of `--format`, from the list of formats.
fn format_parser() -> impl clap::builder::TypedValueParser<Value = Format> {
    use clap::builder::TypedValueParser as _;
    let names = Format::choices().map(|(_, choice)| {
        let value = clap::builder::PossibleValue::new(choice.name).help(choice.help);
        choice
            .alias
            .into_iter()
            .fold(value, |value, alias| value.alias(alias))
    });
    clap::builder::PossibleValuesParser::new(names)
        .map(|name: String| Format::from_choice(&name).expect("a listed format"))
}

/// Flags of an experiment run.
#[derive(Debug, Clone, Args)]
pub(crate) struct RunArgs {
    /// Profile of the baseline side (TOML): a managed [server] or an external [connection].
    #[arg(
        long,
        value_name = "FILE",
        required_unless_present = "resume",
        help_heading = "Sides"
    )]
    pub(crate) baseline: Option<PathBuf>,

    /// Profile of the variant side (TOML), the configuration whose cost is measured.
    #[arg(
        long,
        value_name = "FILE",
        required_unless_present = "resume",
        help_heading = "Sides"
    )]
    pub(crate) variant: Option<PathBuf>,

    /// Continue an interrupted run from its results file: the same plan, the same servers,
    /// from the next round.
    #[arg(long, value_name = "RESULTS.json", conflicts_with_all = ["baseline", "variant"], help_heading = "Sides")]
    pub(crate) resume: Option<PathBuf>,

    /// Workload settings, identical for both sides.
    #[command(flatten)]
    pub(crate) workload: WorkloadArgs,

    /// Schedule of the experiment.
    #[command(flatten)]
    pub(crate) schedule: ScheduleArgs,

    /// Client behaviour.
    #[command(flatten)]
    pub(crate) client: ClientArgs,

    /// Analysis settings.
    #[command(flatten)]
    pub(crate) analysis: AnalysisArgs,

    /// One segment of a run split over several client hosts.
    #[command(flatten)]
    pub(crate) segment: SegmentArgs,

    /// Files to write.
    #[command(flatten, next_help_heading = "Output")]
    pub(crate) outputs: OutputArgs,

    /// Replace a file already at --json (a saved run, say) and any saved run at another
    /// output; without it they are refused, so a finished run is never lost to a re-typed
    /// command.
    #[arg(long, conflicts_with = "resume", help_heading = "Output")]
    pub(crate) overwrite: bool,

    /// Print the resolved plan and the estimated time, then exit without connecting.
    #[arg(long, help_heading = "Output")]
    pub(crate) dry_run: bool,
}

/// How the client drives the servers.
#[derive(Debug, Clone, Args)]
pub(crate) struct ClientArgs {
    /// Open loop: a Poisson arrival rate in events per second across all threads
    /// (latency then counts from the intended start, queueing included); `captured`: the
    /// transactions per second of the log a --workload-file was captured from.
    #[arg(long, value_name = "N|captured", help_heading = "Client")]
    pub(crate) rate: Option<String>,

    /// Error codes that are counted and retried instead of ending the round, or `all`.
    #[arg(long, value_name = "CODES", default_value = "1213,1205,1020", value_parser = IgnoreErrors::parse, help_heading = "Client")]
    pub(crate) ignore_errors: IgnoreErrors,

    /// Read/write timeout of every statement; a stalled server then gives counted errors
    /// instead of a hang. 0s turns it off.
    #[arg(long, value_name = "DUR", default_value = "60s", value_parser = parse_duration, help_heading = "Client")]
    pub(crate) query_timeout: Duration,

    /// When a managed server dies mid-round: fail (exit 1) or retry (restart it and run
    /// the lost round again, up to 3 times).
    #[arg(long, value_parser = choice::<OnServerLoss>(), default_value = "fail", help_heading = "Client")]
    pub(crate) on_server_loss: OnServerLoss,

    /// Print a progress line on stderr every interval, as sysbench's --report-interval.
    #[arg(long, value_name = "DUR", value_parser = parse_duration, help_heading = "Client")]
    pub(crate) report_interval: Option<Duration>,

    /// Scheduling policy of the client threads: batch (they never preempt the server on
    /// wake-up, so a co-located client stays out of its way) or normal (as sysbench).
    #[arg(long, value_parser = choice::<ClientSched>(), default_value = "batch", help_heading = "Client")]
    pub(crate) client_sched: ClientSched,

    /// Stop the idle side's managed server (SIGSTOP) while the other side is measured, so
    /// its background threads take no CPU from the measured side (on|off).
    #[arg(long, default_value = "off", value_parser = parse_switch, action = clap::ArgAction::Set, help_heading = "Client")]
    pub(crate) freeze_idle: bool,

    /// Both managed sides on one server, each side's settings put in place before its
    /// rounds (shared), a server per side (separate), or shared when the server can
    /// change every difference while it runs (auto).
    #[arg(long, value_parser = choice::<ServerMode>(), default_value = "auto", help_heading = "Sides")]
    pub(crate) servers: ServerMode,

    /// Keep each side's connections from round to round (persistent), or open them
    /// for every round (per-round, with the full warm-up each time).
    #[arg(long, value_parser = choice::<Connections>(), default_value = "persistent", help_heading = "Client")]
    pub(crate) connections: Connections,

    /// Before the rounds, run about N read statements on both sides with the same
    /// parameters (every read class, at least 3 each; 200 when N is left out) and compare
    /// the answers: the rows as a multiset, warnings, errors. `all`: every captured value
    /// of each class of a workload file once. Differing answers are NO-GO and stop the run.
    #[arg(
        long,
        value_name = "N|all",
        num_args = 0..=1,
        default_missing_value = "200",
        help_heading = "Client"
    )]
    pub(crate) check_results: Option<String>,

    /// With --check-results: the same rows in another order are a different answer
    /// (as pt-upgrade counts them), not only a warning.
    #[arg(long, requires = "check_results", help_heading = "Client")]
    pub(crate) check_order: bool,

    /// Before the rounds, time every read query class on both sides on idle servers:
    /// six blocks of paired executions on fresh connections, within about BUDGET (2m
    /// when left out), each class's latency ratio with its interval. Judged by
    /// --max-class-slowdown.
    #[arg(
        long,
        value_name = "BUDGET",
        num_args = 0..=1,
        default_missing_value = "2m",
        value_parser = parse_duration,
        help_heading = "Client"
    )]
    pub(crate) class_timing: Option<Duration>,

    /// Compare the answers (and time the classes, if asked) and run no timed round: the
    /// workload's writes are counted and skipped, so a captured log that writes needs
    /// neither --allow-writes nor --allow-foreign-tables. Implies --check-results all.
    #[arg(
        long,
        conflicts_with = "continue_after_differences",
        help_heading = "Client"
    )]
    pub(crate) check_only: bool,

    /// With --check-results: run the timed rounds even when the answers differ.
    #[arg(long, requires = "check_results", help_heading = "Client")]
    pub(crate) continue_after_differences: bool,

    /// Pin the client threads and the managed servers to CPUs:
    /// client=LIST,baseline=LIST,variant=LIST (any of them; LIST as taskset -c: 0,2-3).
    #[arg(long, value_name = "PLACEMENT", value_parser = Placement::parse, help_heading = "Client")]
    pub(crate) cpus: Option<Placement>,
}

/// How results are analysed; shared by a run and `abtest analyze`.
#[derive(Debug, Clone, Args)]
pub(crate) struct AnalysisArgs {
    /// Significance level, 0.05 or 5%; intervals are 1 - alpha, verdicts use 1 - 2 alpha
    /// [default: 0.05, or the saved run's].
    #[arg(long, value_parser = percent::parse_probability, help_heading = "Analysis")]
    pub(crate) alpha: Option<f64>,

    /// Largest acceptable TPS loss, such as 5%; enables a GO / NO-GO / INCONCLUSIVE verdict.
    #[arg(long, value_name = "PCT", value_parser = percent::parse_percent, help_heading = "Analysis")]
    pub(crate) max_tps_loss: Option<f64>,

    /// Largest acceptable latency inflation: 10% for every compared latency metric, or per
    /// metric as p99=15%,mean=5% (mean, p50, p95, p99, ...).
    #[arg(
        long,
        value_name = "PCT",
        value_delimiter = ',',
        help_heading = "Analysis"
    )]
    pub(crate) max_latency_inflation: Vec<String>,

    /// Largest acceptable error rate of the variant, in % of attempted transactions.
    #[arg(long, value_name = "PCT", value_parser = percent::parse_percent, help_heading = "Analysis")]
    pub(crate) max_error_rate: Option<f64>,

    /// Latency percentiles to compare, besides the mean [default: 95,99, or the saved run's].
    #[arg(long, value_delimiter = ',', help_heading = "Analysis")]
    pub(crate) percentiles: Option<Vec<f64>>,

    /// Largest acceptable slowdown of a query class timed on idle servers, as a ratio
    /// such as 2x: a class at least twice as slow and beyond it (Holm among the classes)
    /// is NO-GO of its own. A run given it times the classes (--class-timing) [default:
    /// the saved run's].
    #[arg(long, value_name = "RATIO", value_parser = percent::parse_ratio, help_heading = "Analysis")]
    pub(crate) max_class_slowdown: Option<f64>,

    /// Let a run whose sides answered differently (--check-results) still be judged on
    /// speed; without it, different answers are NO-GO.
    #[arg(long, help_heading = "Analysis")]
    pub(crate) allow_result_diff: bool,

    /// What the ABBA blocks are adjusted for: none (the default: the blocks as they
    /// are) or host-load (the CPU the machine's other processes used in each round;
    /// refused, with the reason, when the variant's rounds met a different load than the
    /// baseline's) [default: none, or the saved run's].
    #[arg(long, value_parser = choice::<Adjust>(), help_heading = "Analysis")]
    pub(crate) adjust: Option<Adjust>,
}

/// `abtest analyze FILE`.
#[derive(Debug, Clone, Args)]
pub(crate) struct AnalyzeArgs {
    /// An abtest results JSON, or a CSV with the header side,threads,round,tps,...
    pub(crate) file: PathBuf,

    /// Analysis settings.
    #[command(flatten)]
    pub(crate) analysis: AnalysisArgs,

    /// Output format.
    #[arg(long, value_parser = format_parser(), default_value = "table")]
    pub(crate) format: Format,

    /// Files to write besides the report.
    #[command(flatten)]
    pub(crate) outputs: OutputArgs,

    /// CI gating.
    #[command(flatten)]
    pub(crate) gate: GateArgs,
}

/// `abtest plan-rounds`.
#[derive(Debug, Clone, Args)]
pub(crate) struct PlanRoundsArgs {
    /// Coefficient of variation of per-round TPS, such as 3%.
    #[arg(long, value_parser = percent::parse_percent, required_unless_present = "pilot", conflicts_with = "pilot")]
    pub(crate) cv: Option<f64>,

    /// Take the CV from a pilot run: an abtest results JSON or a rounds CSV.
    #[arg(long, value_name = "FILE")]
    pub(crate) pilot: Option<PathBuf>,

    /// Distance to decide: between the true change and the tolerance for a verdict, or
    /// the change itself to find it significant, such as 2%.
    #[arg(long, value_parser = percent::parse_percent)]
    pub(crate) effect: f64,

    /// Measured time of one round, for the wall-clock estimate [default: the pilot's
    /// rounds, or 5s].
    #[arg(long, value_parser = parse_duration)]
    pub(crate) round_time: Option<Duration>,

    /// Warm-up of each round, for the wall-clock estimate (a run's re-warm, with its
    /// connections kept between rounds) [default: the pilot's, or 1s].
    #[arg(long, value_parser = parse_duration)]
    pub(crate) warmup: Option<Duration>,

    /// Number of thread levels, for the wall-clock estimate.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) levels: u32,

    /// Significance level, 0.05 or 5%.
    #[arg(long, default_value = "0.05", value_parser = percent::parse_probability)]
    pub(crate) alpha: f64,

    /// Power, the chance of detecting the effect when it is there: 0.8 or 80%.
    #[arg(long, default_value = "80%", value_parser = percent::parse_probability)]
    pub(crate) power: f64,
}

/// The workload; sysbench 1.0 option names where sysbench has one.
#[derive(Debug, Clone, Args)]
pub(crate) struct WorkloadArgs {
    /// sysbench workload to run.
    #[arg(long, value_parser = choice::<WorkloadName>(), default_value = "oltp_read_write", help_heading = "Workload")]
    pub(crate) workload: WorkloadName,

    /// A custom workload: weighted transactions of your own SQL (TOML), instead of --workload.
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with = "workload",
        help_heading = "Workload"
    )]
    pub(crate) workload_file: Option<PathBuf>,

    /// Leave a query class of the --workload-file out (with the transactions that run it):
    /// its number in the dry run's list, its fingerprint, or part of its statement.
    /// Repeat it for more.
    #[arg(
        long,
        value_name = "CLASS",
        requires = "workload_file",
        help_heading = "Workload"
    )]
    pub(crate) exclude_class: Vec<String>,

    /// Run only the transactions of the --workload-file that have this query class (a
    /// number, a fingerprint or part of a statement, as --exclude-class). Repeat it for more.
    #[arg(
        long,
        value_name = "CLASS",
        requires = "workload_file",
        help_heading = "Workload"
    )]
    pub(crate) only_class: Vec<String>,

    /// Number of sbtest tables.
    #[arg(long, default_value_t = 1, help_heading = "Workload")]
    pub(crate) tables: u32,

    /// Rows per table.
    #[arg(long, default_value_t = 10_000, help_heading = "Workload")]
    pub(crate) table_size: u32,

    /// Client threads (one connection each); a list such as 16,32,64 sweeps the levels;
    /// `captured`: the most sessions at once of the log a --workload-file was captured from.
    #[arg(
        long,
        value_name = "N[,N...]|captured",
        value_delimiter = ',',
        default_value = "8",
        help_heading = "Workload"
    )]
    pub(crate) threads: Vec<String>,

    /// Run a write workload against an external database that also holds other tables.
    #[arg(long, help_heading = "Workload")]
    pub(crate) allow_foreign_tables: bool,

    /// Let a captured workload that writes (`writes = true`) replay against an external
    /// server: its writes change that server's data.
    #[arg(long, help_heading = "Workload")]
    pub(crate) allow_writes: bool,

    /// Let a workload file that writes (`writes = true`) change the data for good: by
    /// default the tables it writes are copied before the first round and put back
    /// before every round of each side and at the end.
    #[arg(long, help_heading = "Workload")]
    pub(crate) no_restore_data: bool,

    /// Create, reuse or keep the sbtest tables: auto reuses matching tables.
    #[arg(long, value_parser = choice::<PrepareMode>(), default_value = "auto", help_heading = "Workload")]
    pub(crate) prepare: PrepareMode,

    /// Range size for range SELECT queries.
    #[arg(long, default_value_t = 100, help_heading = "Workload")]
    pub(crate) range_size: u32,

    /// Point SELECT queries per transaction (oltp_point_select always uses 1).
    #[arg(long, default_value_t = 10, help_heading = "Workload")]
    pub(crate) point_selects: u32,

    /// Simple range SELECT queries per transaction.
    #[arg(long, default_value_t = 1, help_heading = "Workload")]
    pub(crate) simple_ranges: u32,

    /// SELECT SUM() queries per transaction.
    #[arg(long, default_value_t = 1, help_heading = "Workload")]
    pub(crate) sum_ranges: u32,

    /// SELECT ORDER BY queries per transaction.
    #[arg(long, default_value_t = 1, help_heading = "Workload")]
    pub(crate) order_ranges: u32,

    /// SELECT DISTINCT queries per transaction.
    #[arg(long, default_value_t = 1, help_heading = "Workload")]
    pub(crate) distinct_ranges: u32,

    /// UPDATE index queries per transaction.
    #[arg(long, default_value_t = 1, help_heading = "Workload")]
    pub(crate) index_updates: u32,

    /// UPDATE non-index queries per transaction.
    #[arg(long, default_value_t = 1, help_heading = "Workload")]
    pub(crate) non_index_updates: u32,

    /// DELETE/INSERT pairs per transaction.
    #[arg(long, default_value_t = 1, help_heading = "Workload")]
    pub(crate) delete_inserts: u32,

    /// Enable the range SELECT queries (on|off).
    #[arg(long, default_value = "on", value_parser = parse_switch, action = clap::ArgAction::Set, help_heading = "Workload")]
    pub(crate) range_selects: bool,

    /// Run every statement in autocommit mode, without BEGIN/COMMIT (on|off).
    #[arg(long, default_value = "off", value_parser = parse_switch, action = clap::ArgAction::Set, help_heading = "Workload")]
    pub(crate) skip_trx: bool,

    /// AUTO_INCREMENT primary key (on) or client-generated ids (off).
    #[arg(long, default_value = "on", value_parser = parse_switch, action = clap::ArgAction::Set, help_heading = "Workload")]
    pub(crate) auto_inc: bool,

    /// Use a secondary index (KEY xid) in place of the PRIMARY KEY (on|off).
    #[arg(long, default_value = "off", value_parser = parse_switch, action = clap::ArgAction::Set, help_heading = "Workload")]
    pub(crate) secondary: bool,

    /// Create the secondary index k_N on column k (on|off).
    #[arg(long, default_value = "on", value_parser = parse_switch, action = clap::ArgAction::Set, help_heading = "Workload")]
    pub(crate) create_secondary: bool,

    /// Storage engine of the sbtest tables.
    #[arg(long, default_value = "innodb", help_heading = "Workload")]
    pub(crate) mysql_storage_engine: String,

    /// Points in the IN() clause of select_random_points.
    #[arg(long, default_value_t = 10, help_heading = "Workload")]
    pub(crate) random_points: u32,

    /// BETWEEN ranges per SELECT in select_random_ranges.
    #[arg(long, default_value_t = 10, help_heading = "Workload")]
    pub(crate) number_of_ranges: u32,

    /// Size of the BETWEEN ranges in select_random_ranges.
    #[arg(long, default_value_t = 5, help_heading = "Workload")]
    pub(crate) delta: u32,

    /// Server-side prepared statements (auto) or text queries (disable), as sysbench's --db-ps-mode.
    #[arg(long, value_parser = choice::<PsMode>(), default_value = "auto", help_heading = "Workload")]
    pub(crate) ps_mode: PsMode,

    /// Distribution of row ids; abtest defaults to uniform (sysbench 1.0: special).
    #[arg(long, value_parser = choice::<RandType>(), default_value = "uniform", help_heading = "Random numbers")]
    pub(crate) rand_type: RandType,

    /// Iterations of the gaussian and special distributions.
    #[arg(long, default_value_t = 12, help_heading = "Random numbers")]
    pub(crate) rand_spec_iter: u32,

    /// Percentage of the range treated as special (special distribution).
    #[arg(long, default_value_t = 1, help_heading = "Random numbers")]
    pub(crate) rand_spec_pct: u32,

    /// Percentage of draws that hit the special values (special distribution).
    #[arg(long, default_value_t = 75, help_heading = "Random numbers")]
    pub(crate) rand_spec_res: u32,

    /// Parameter h of the pareto distribution.
    #[arg(long, default_value_t = 0.2, help_heading = "Random numbers")]
    pub(crate) rand_pareto_h: f64,

    /// Exponent of the zipfian distribution.
    #[arg(long, default_value_t = 0.8, help_heading = "Random numbers")]
    pub(crate) rand_zipfian_exp: f64,
}

/// The schedule of rounds.
#[derive(Debug, Clone, Args)]
pub(crate) struct ScheduleArgs {
    /// Measured rounds per side [default: 30; 150 on one shared server].
    #[arg(long, help_heading = "Schedule")]
    pub(crate) rounds: Option<u32>,

    /// Measured time of one round (5s, 30s, 2m, ...) [default: 5s; 1s on one shared
    /// server].
    #[arg(long, value_name = "DUR", value_parser = parse_duration, help_heading = "Schedule")]
    pub(crate) round_time: Option<Duration>,

    /// Warm-up before each round, not counted.
    #[arg(long, default_value = "5s", value_parser = parse_duration, help_heading = "Schedule")]
    pub(crate) warmup: Duration,

    /// Warm-up of a round whose connections were kept from the side's previous round
    /// (every round but each side's first at a level, with --connections persistent)
    /// [default: 1s; 250ms on one shared server].
    #[arg(long, value_name = "DUR", value_parser = parse_duration, help_heading = "Schedule")]
    pub(crate) rewarm: Option<Duration>,

    /// Idle pause between rounds.
    #[arg(long, default_value = "0s", value_parser = parse_duration, help_heading = "Schedule")]
    pub(crate) pause: Duration,

    /// Order of the sides within the schedule.
    #[arg(long, value_parser = choice::<RoundOrder>(), default_value = "abba", help_heading = "Schedule")]
    pub(crate) order: RoundOrder,

    /// Order of the thread levels of a sweep.
    #[arg(long, value_parser = choice::<LevelOrder>(), default_value = "asc", help_heading = "Schedule")]
    pub(crate) level_order: LevelOrder,

    /// Seed for data, random order and workload randomness (default: random, recorded).
    #[arg(long, help_heading = "Schedule")]
    pub(crate) seed: Option<u64>,

    /// A wall-clock budget for the rounds (30m, 1h): the rounds per side are as many as
    /// fit, in place of --rounds.
    #[arg(long, value_name = "DUR", value_parser = parse_duration, help_heading = "Schedule")]
    pub(crate) max_time: Option<Duration>,

    /// Stop at a look once the answer is known: `decided` (every tolerance GO or NO-GO) or
    /// `precision=2%` (TPS interval half-width); needs --max-time.
    #[arg(long, value_name = "RULE", value_parser = parse_until, help_heading = "Schedule")]
    pub(crate) until: Option<Until>,

    /// Fresh server processes per side and level: the rounds run in this many blocks,
    /// each on new managed servers started from the prepared data, so that the
    /// difference between two server instances counts in the interval.
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=50), help_heading = "Schedule")]
    pub(crate) instances: u32,

    /// Halfway through each level, exchange the settings of two external servers: each
    /// side's teardown hooks run and its variables are restored, then its setup hooks run
    /// on the other server, which serves it from then on. Makes the difference between the
    /// two servers themselves measurable.
    #[arg(long, help_heading = "Schedule")]
    pub(crate) swap: bool,

    /// Looks of a run with --until, spread over the budget's rounds.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=20), help_heading = "Schedule")]
    pub(crate) looks: u32,
}

/// A run split over several client processes (`--segment I/N`), joined by `abtest merge`.
#[derive(Debug, Clone, Args)]
pub(crate) struct SegmentArgs {
    /// Run segment I of N: its share of every level's threads (and of --rate), on the
    /// wall-clock schedule that --start-at and the plan give. External servers only.
    #[arg(long, value_name = "I/N", value_parser = crate::segment::parse_index, help_heading = "Segments")]
    pub(crate) segment: Option<(u32, u32)>,

    /// When the first round of every segment starts (RFC 3339, such as
    /// 2026-12-01T10:00:00Z); needed with more than one segment.
    #[arg(
        long,
        value_name = "TIME",
        requires = "segment",
        help_heading = "Segments"
    )]
    pub(crate) start_at: Option<String>,

    /// Idle time after every round that absorbs clock skew between the hosts.
    #[arg(long, value_name = "DUR", value_parser = parse_duration, requires = "segment", help_heading = "Segments")]
    pub(crate) guard_gap: Option<Duration>,
}

/// `abtest merge seg-1.json seg-2.json ...`.
#[derive(Debug, Clone, Args)]
pub(crate) struct MergeArgs {
    /// The results files of every segment of one run, each once.
    #[arg(value_name = "SEGMENT.json", required = true)]
    pub(crate) files: Vec<PathBuf>,

    /// Files to write: --json is the merged results file, like a single run's.
    #[command(flatten)]
    pub(crate) outputs: OutputArgs,

    /// Replace a file already at --json and any saved run at another output.
    #[arg(long)]
    pub(crate) overwrite: bool,
}

/// Parses a duration such as `30s`, `2m` or `1h 30m`.
pub(crate) fn parse_duration(text: &str) -> Result<Duration, String> {
    humantime::parse_duration(text.trim())
        .map_err(|e| format!("`{text}` is not a duration ({e}); write it as 30s, 2m or 1h"))
}

/// Parses `--until`: `decided` or `precision=2%`.
fn parse_until(text: &str) -> Result<Until, String> {
    match text.trim().split_once('=') {
        None if text.trim() == "decided" => Ok(Until::Decided),
        Some(("precision", value)) => Ok(Until::Precision(100.0 * percent::parse_percent(value)?)),
        _ => Err(format!(
            "`{text}` is not a stopping rule; write decided or precision=2%"
        )),
    }
}

/// Parses sysbench-style booleans: on/off, true/false, yes/no, 1/0.
pub(crate) fn parse_switch(text: &str) -> Result<bool, String> {
    match text.to_ascii_lowercase().as_str() {
        "on" | "true" | "yes" | "1" => Ok(true),
        "off" | "false" | "no" | "0" => Ok(false),
        _ => Err(format!("`{text}` is not on or off")),
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// `-h` describes the analysis a default run gets: ABBA blocks, not Welch on rounds.
    #[test]
    fn the_help_names_the_default_analysis() {
        let help = super::Cli::command().render_help().to_string();
        assert!(help.contains("paired t interval over the blocks"), "{help}");
        assert!(!help.contains("Welch's t-test with a Fieller"), "{help}");
    }
}
