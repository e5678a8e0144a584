//! One file per subcommand; each returns the process exit code of a completed command.

pub(crate) mod analyze;
pub(crate) mod calibrate;
pub(crate) mod capture;
pub(crate) mod check;
pub(crate) mod cleanup;
pub(crate) mod from_sysbench;
pub(crate) mod gate;
pub(crate) mod import_log;
pub(crate) mod merge;
pub(crate) mod plan_rounds;
pub(crate) mod report;
pub(crate) mod restore;
pub(crate) mod resume;
pub(crate) mod run;
