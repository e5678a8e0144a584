//! Printing to stdout without panicking. `print!` panics when stdout is a closed pipe
//! (`abtest report … | head -1`); a closed stdout means the reader has what it wanted,
//! so the rest of the text is dropped and the command finishes as it would have — files
//! saved, servers stopped, the exit code still the verdict's, so CI that gates on it
//! does not depend on whether anyone read the table.

use std::io::{ErrorKind, Write};

/// Writes `text` to stdout; a closed pipe is not an error, any other failure is a
/// warning on stderr.
pub(crate) fn print(text: &str) {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => {}
        Err(e) if e.kind() == ErrorKind::BrokenPipe => {}
        Err(e) => eprintln!("abtest: warning: cannot write to stdout ({e})"),
    }
}

/// Writes `text` and a newline to stdout, as [`print`] does.
pub(crate) fn line(text: &str) {
    print(&format!("{text}\n"));
}
