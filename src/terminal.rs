//! Every line abtest writes for a person goes through here. `eprintln!` panics when
//! stderr is closed (`abtest … 2>&1 | head -1`), which used to kill a run after its
//! first round with the results file still saying `running`. Here a stream that cannot
//! be written is not an error: the text is dropped and, when it is the first such
//! failure, the run is asked to stop as if signalled, so it still marks the round,
//! puts the servers back and saves the results, and the file says why it ended.

use std::fmt::Display;
use std::io::{ErrorKind, Write};
use std::sync::atomic::{AtomicBool, Ordering};

use crate::stop;

static STDERR_GONE: AtomicBool = AtomicBool::new(false);

/// A progress or information line: `abtest: {text}`.
pub(crate) fn note(text: impl Display) {
    line(format_args!("abtest: {text}"));
}

/// `abtest: warning: {text}`.
pub(crate) fn warning(text: impl Display) {
    line(format_args!("abtest: warning: {text}"));
}

/// `abtest: error: {text}`.
pub(crate) fn error(text: impl Display) {
    line(format_args!("abtest: error: {text}"));
}

/// A line on stderr exactly as given.
pub(crate) fn line(text: impl Display) {
    if STDERR_GONE.load(Ordering::Relaxed) {
        return;
    }
    let mut err = std::io::stderr().lock();
    if writeln!(err, "{text}").and_then(|()| err.flush()).is_err() {
        STDERR_GONE.store(true, Ordering::Relaxed);
        stop::request("standard error was closed (a reader such as `head` stopped reading)");
    }
}

/// Writes `text` to stdout. A closed pipe means the reader has what it wanted: the rest
/// is dropped, a run in progress is asked to stop, and a finished command ends as it
/// would have, its exit code still the verdict's.
pub(crate) fn stdout(text: &str) {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => {}
        Err(e) if e.kind() == ErrorKind::BrokenPipe => {
            stop::request("standard output was closed (a reader such as `head` stopped reading)");
        }
        Err(e) => warning(format_args!("cannot write to stdout ({e})")),
    }
}
