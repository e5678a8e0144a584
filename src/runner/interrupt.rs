//! Ctrl-C and SIGTERM. The first signal asks the run to stop at once but cleanly: the
//! workers stop, the partial round is marked, teardown hooks run and the servers stop.
//! A second signal exits immediately, still killing the managed servers first.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::exit;
use crate::server::sandbox;

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Installs the signal handler; safe to call more than once.
pub(crate) fn install() {
    let _ = ctrlc::set_handler(|| {
        if INTERRUPTED.swap(true, Ordering::SeqCst) {
            eprintln!("abtest: second interrupt, stopping servers and exiting now");
            sandbox::kill_all_now();
            std::process::exit(exit::INTERRUPTED);
        }
        eprintln!(
            "abtest: interrupted, stopping the round, running teardown and saving results (Ctrl-C again to exit at once)"
        );
    });
}

/// The flag workers and the coordinator watch.
pub(crate) fn flag() -> &'static AtomicBool {
    &INTERRUPTED
}

/// Whether a stop was requested.
pub(crate) fn requested() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}
