//! One file per subcommand; each returns the process exit code of a completed command.

pub mod analyze;
pub mod cleanup;
pub mod from_sysbench;
pub mod import_log;
pub mod plan_rounds;
pub mod report;
pub mod resume;
pub mod run;
