//! The one request to stop a run, and why it was made. A signal, a closed terminal
//! stream or a reader that went away all end a run the same way: the workers stop, the
//! round in progress is marked, teardown and the restore run, the servers stop and the
//! results are saved. Keeping the flag here, below everything that may raise it, lets
//! the terminal module ask for a stop without knowing about the runner.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);
static CAUSE: OnceLock<String> = OnceLock::new();

/// Asks the run to stop; returns whether a stop had already been asked for. The first
/// cause given is the one the results file records.
pub(crate) fn request(cause: &str) -> bool {
    let _ = CAUSE.set(cause.to_string());
    REQUESTED.swap(true, Ordering::SeqCst)
}

/// The flag workers and the coordinator watch.
pub(crate) fn flag() -> &'static AtomicBool {
    &REQUESTED
}

/// Whether a stop was requested.
pub(crate) fn requested() -> bool {
    REQUESTED.load(Ordering::SeqCst)
}

/// Why the run was asked to stop, in words (`SIGQUIT received`).
pub(crate) fn cause() -> Option<&'static str> {
    CAUSE.get().map(String::as_str)
}
