//! Exit codes are part of the user contract (docs/output-contract.md): CI pipelines branch on them,
//! so every failure is mapped to exactly one documented code here and nowhere else.

use thiserror::Error;

/// Completed; GO, or no tolerance given.
pub(crate) const SUCCESS: i32 = 0;
/// Runtime failure: a server error, a lost server, an I/O failure.
pub(crate) const RUNTIME: i32 = 1;
/// Usage or configuration error; nothing was started.
pub(crate) const USAGE: i32 = 2;
/// A tolerance was given and the change is worse than it (NO-GO).
pub(crate) const NO_GO: i32 = 3;
/// A tolerance was given and the data cannot decide (INCONCLUSIVE).
pub(crate) const INCONCLUSIVE: i32 = 4;
/// The run did not finish its plan (a saved run interrupted, failed or still running,
/// or planned rounds that did not complete): no verdict is given.
pub(crate) const PARTIAL: i32 = 5;
/// A server was left changed: a global variable or plugin that hooks changed could not
/// be put back as it was before the first hook (the run's results are complete and
/// saved; the server needs a DBA). Wins over every other code.
pub(crate) const NOT_RESTORED: i32 = 6;
/// Interrupted by a signal that ends a process (Ctrl-C, SIGTERM, SIGQUIT, …) or a closed
/// stdout or stderr during a run; partial results were saved.
pub(crate) const INTERRUPTED: i32 = 130;

/// A mistake in the command line or a profile: exit code 2, nothing was started.
#[derive(Debug, Error)]
#[error("{0}")]
pub(crate) struct UsageError(pub String);

impl UsageError {
    /// Wraps a message into an `anyhow::Error` carrying the usage exit code.
    pub(crate) fn err(message: impl Into<String>) -> anyhow::Error {
        anyhow::Error::new(UsageError(message.into()))
    }
}

/// The run was stopped by a signal or a closed output stream; what finished is saved.
/// The cause (`SIGQUIT received`) leads the message, in the terminal and the file.
#[derive(Debug, Error)]
#[error("{}interrupted; every finished round is saved", cause.as_deref().map(|c| format!("{c}: ")).unwrap_or_default())]
pub(crate) struct Interrupted {
    cause: Option<String>,
}

impl Interrupted {
    /// An interruption, with what caused it when that is known.
    pub(crate) fn by(cause: Option<&str>) -> Interrupted {
        Interrupted {
            cause: cause.map(str::to_string),
        }
    }
}

/// A server left changed: what could not be put back, and how to do it.
#[derive(Debug, Error)]
#[error("{0}")]
pub(crate) struct NotRestored(pub String);

/// Maps an error to its documented exit code by looking through its cause chain.
pub(crate) fn code_for(error: &anyhow::Error) -> i32 {
    if error.chain().any(|cause| cause.is::<NotRestored>()) {
        NOT_RESTORED
    } else if error.chain().any(|cause| cause.is::<Interrupted>()) {
        INTERRUPTED
    } else if error.chain().any(|cause| cause.is::<UsageError>()) {
        USAGE
    } else {
        RUNTIME
    }
}
