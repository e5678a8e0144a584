//! Signals. Every signal whose default is to end the process ends a run the way Ctrl-C
//! does: the first asks the run to stop at once but cleanly (the workers stop, the
//! partial round is marked, teardown hooks and the restore run, the servers stop, the
//! results are saved); a second exits immediately, still killing the managed servers
//! first. SIGQUIT and SIGALRM used to end abtest on the spot with none of that done.
//! A SIGPIPE only asks for the stop: it comes again with every write to a reader that
//! went away, and must not count as the impatient second signal.

use signal_hook::consts::signal::{
    SIGALRM, SIGHUP, SIGINT, SIGPIPE, SIGPROF, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGVTALRM,
    SIGXCPU, SIGXFSZ,
};
use std::sync::atomic::{AtomicBool, Ordering};

use signal_hook::iterator::Signals;

use crate::server::sandbox;
use crate::{exit, stop, terminal};

/// The signals that end a run cleanly.
const ENDING: [i32; 12] = [
    SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGALRM, SIGUSR1, SIGUSR2, SIGPIPE, SIGXCPU, SIGXFSZ,
    SIGVTALRM, SIGPROF,
];

/// Whether a signal that ends the run came already (a closed stream's stop does not
/// count: the next Ctrl-C is then still the patient first one).
static SIGNALLED: AtomicBool = AtomicBool::new(false);

/// The results file holding the external servers' snapshot, once saved: a second
/// signal skips the restore, and then says how to do it.
static RESTORE_FROM: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// Records the results file `abtest restore` would read after an exit at once.
pub(crate) fn restore_from(file: &std::path::Path) {
    let _ = RESTORE_FROM.set(file.display().to_string());
}

/// Installs the handlers; safe to call more than once (later calls do nothing).
pub(crate) fn install() {
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| match Signals::new(ENDING) {
        Ok(mut signals) => {
            std::thread::spawn(move || {
                for signal in signals.forever() {
                    received(signal);
                }
            });
        }
        Err(e) => terminal::warning(format_args!(
            "cannot install signal handlers ({e}): a signal will end abtest without teardown"
        )),
    });
}

/// What one delivered signal does.
fn received(signal: i32) {
    let name = signal_name(signal);
    if signal == SIGPIPE {
        match terminal::closed_stream() {
            Some(cause) => stop::request(cause),
            None => stop::request(&format!(
                "{name} received (a reader of abtest's output went away)"
            )),
        };
        return;
    }
    stop::request(&format!("{name} received"));
    if SIGNALLED.swap(true, Ordering::SeqCst) {
        terminal::line(format_args!(
            "abtest: second interrupt ({name}), stopping servers and exiting now"
        ));
        sandbox::kill_all_now();
        if let Some(file) = RESTORE_FROM.get() {
            terminal::line(format_args!(
                "abtest: the external server(s) were not put back: run `abtest restore {file}`"
            ));
        }
        std::process::exit(exit::INTERRUPTED);
    }
    terminal::line(format_args!(
        "abtest: {name} received: stopping the round, running teardown, restoring the servers \
         and saving results (send it again, or press Ctrl-C, to exit at once)"
    ));
}

/// The conventional name of a signal this module handles.
fn signal_name(signal: i32) -> &'static str {
    match signal {
        SIGINT => "SIGINT (Ctrl-C)",
        SIGTERM => "SIGTERM",
        SIGHUP => "SIGHUP",
        SIGQUIT => "SIGQUIT",
        SIGALRM => "SIGALRM",
        SIGUSR1 => "SIGUSR1",
        SIGUSR2 => "SIGUSR2",
        SIGPIPE => "SIGPIPE",
        SIGXCPU => "SIGXCPU",
        SIGXFSZ => "SIGXFSZ",
        SIGVTALRM => "SIGVTALRM",
        SIGPROF => "SIGPROF",
        _ => "a signal",
    }
}
