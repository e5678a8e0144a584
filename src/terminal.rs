//! Every byte abtest writes for a person goes through here: notes, warnings, errors, the
//! live progress bar, and the tables and plans on stdout. One owner means one answer to
//! the questions every line raises — is the stream still open, is it a terminal, did
//! the user ask for quiet, may it be coloured — and a bar that other lines never tear.
//!
//! `eprintln!` panics when stderr is closed (`abtest … 2>&1 | head -1`), which used to
//! kill a run after its first round with the results file still saying `running`. Here
//! a stream that cannot be written is not an error: the text is dropped and, when it is
//! the first such failure, the run is asked to stop as if signalled, so it still marks
//! the round, puts the servers back and saves the results, and the file says why it
//! ended.
//!
//! `--quiet` silences what only tells how things go (notes, per-round lines, the bar);
//! warnings, errors and everything on stdout stay, as with `hyperfine --style none` or
//! `ripgrep`'s messages. Colour follows `--color`, and on `auto` what clap does for
//! its help: `NO_COLOR`, `CLICOLOR`, `CLICOLOR_FORCE` and whether the stream is a
//! terminal.

use std::fmt::Display;
use std::io::{ErrorKind, IsTerminal, Write};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

use crate::stop;

static STDERR_GONE: AtomicBool = AtomicBool::new(false);
static QUIET: AtomicBool = AtomicBool::new(false);
static COLOUR: AtomicU8 = AtomicU8::new(Colour::Auto as u8);
/// The bar on screen, if any: lines written meanwhile go above it.
static BAR: Mutex<Option<indicatif::ProgressBar>> = Mutex::new(None);

/// When output may be coloured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Colour {
    /// When the stream is a terminal and the environment does not say otherwise.
    Auto,
    Always,
    Never,
}

/// Sets what the user asked of the terminal, once, before anything is written.
pub(crate) fn configure(quiet: bool, colour: Colour) {
    QUIET.store(quiet, Ordering::Relaxed);
    COLOUR.store(colour as u8, Ordering::Relaxed);
}

/// Whether `--quiet` was given.
pub(crate) fn quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

/// A progress or information line, `abtest: {text}`; silent with `--quiet`.
pub(crate) fn note(text: impl Display) {
    if !quiet() {
        line(format_args!("abtest: {text}"));
    }
}

/// `abtest: warning: {text}`.
pub(crate) fn warning(text: impl Display) {
    line(format_args!("abtest: warning: {text}"));
}

/// `abtest: error: {text}`.
pub(crate) fn error(text: impl Display) {
    line(format_args!("abtest: error: {text}"));
}

/// A line on stderr exactly as given, above the bar when one is shown.
pub(crate) fn line(text: impl Display) {
    stderr(&format!("{text}\n"));
}

/// Writes `text` to stderr, above the bar when one is shown.
fn stderr(text: &str) {
    if STDERR_GONE.load(Ordering::Relaxed) {
        return;
    }
    if let Some(bar) = BAR.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
        bar.println(text.strip_suffix('\n').unwrap_or(text));
        return;
    }
    let mut err = std::io::stderr().lock();
    if err
        .write_all(text.as_bytes())
        .and_then(|()| err.flush())
        .is_err()
    {
        STDERR_GONE.store(true, Ordering::Relaxed);
        stop::request(STDERR_CLOSED);
    }
}

/// Why a run stops when its stderr reader went away.
const STDERR_CLOSED: &str = "standard error was closed (a reader such as `head` stopped reading)";

/// Why a run stops when its stdout reader went away.
const STDOUT_CLOSED: &str = "standard output was closed (a reader such as `head` stopped reading)";

/// Which of stdout and stderr lost its reader, as the cause of the stop that follows:
/// the SIGPIPE of a write to it may be handled before the write's own error is seen,
/// and both must name the same cause. `None` when both still have one (a SIGPIPE sent
/// by someone else).
pub(crate) fn closed_stream() -> Option<&'static str> {
    [(2, STDERR_CLOSED), (1, STDOUT_CLOSED)]
        .into_iter()
        .find(|&(fd, _)| reader_gone(fd))
        .map(|(_, cause)| cause)
}

/// Whether `fd` is a pipe or socket whose other end is closed: poll(2) reports POLLERR
/// (a pipe) or POLLHUP on it at once.
fn reader_gone(fd: i32) -> bool {
    let mut poll = libc::pollfd {
        fd,
        events: 0,
        revents: 0,
    };
    // SAFETY: one valid pollfd, no wait; a closed or invalid fd only sets POLLNVAL.
    let ready = unsafe { libc::poll(&mut poll, 1, 0) };
    ready > 0 && poll.revents & (libc::POLLERR | libc::POLLHUP) != 0
}

/// Writes `text` to stdout. A closed pipe means the reader has what it wanted: the rest
/// is dropped, a run in progress is asked to stop, and a finished command ends as it
/// would have, its exit code still the verdict's.
pub(crate) fn stdout(text: &str) {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => {}
        Err(e) if e.kind() == ErrorKind::BrokenPipe => {
            stop::request(STDOUT_CLOSED);
        }
        Err(e) => warning(format_args!("cannot write to stdout ({e})")),
    }
}

/// The columns of the terminal stdout writes to, which the answer and the tables fit
/// into: `COLUMNS` when set (as GNU tools read it), else the terminal's own width.
/// `None` when stdout is a pipe or a file: a reader there gets every line whole.
pub(crate) fn stdout_columns() -> Option<u16> {
    if !std::io::stdout().is_terminal() {
        return None;
    }
    let set = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<u16>().ok());
    set.or_else(window_columns).filter(|&c| c >= MIN_COLUMNS)
}

/// Narrower than this, wrapping helps no one: the lines are left whole.
const MIN_COLUMNS: u16 = 40;

/// The width the kernel holds for the terminal on stdout; `None` when it has none.
fn window_columns() -> Option<u16> {
    let mut size = libc::winsize {
        ws_row: 0,
        ws_col: 0,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: TIOCGWINSZ fills one winsize; an fd that is not a terminal fails.
    let ok = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut size) } == 0;
    (ok && size.ws_col > 0).then_some(size.ws_col)
}

/// `text` broken at spaces into lines of at most `columns` characters (a word longer
/// than that keeps its own line); with no width, as it is.
pub(crate) fn wrap(text: &str, columns: Option<u16>) -> String {
    let Some(columns) = columns.map(usize::from) else {
        return text.to_string();
    };
    if text.chars().count() <= columns {
        return text.to_string();
    }
    // A bullet's later lines hang under its text.
    let hang = if text.starts_with("- ") { "  " } else { "" };
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in units(text) {
        let needed = line.chars().count() + 1 + word.chars().count();
        if !line.is_empty() && needed > columns {
            lines.push(std::mem::take(&mut line));
            line.push_str(hang);
        }
        if !line.trim_start().is_empty() {
            line.push(' ');
        }
        line.push_str(&word);
    }
    lines.push(line);
    lines.join("\n")
}

/// The words of `text`, with a `%` kept on its number ("90.4 %" is one unit), so a
/// wrapped line never starts with a unit.
fn units(text: &str) -> Vec<String> {
    let mut units: Vec<String> = Vec::new();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        match units.last_mut() {
            Some(last) if word.starts_with('%') => {
                last.push(' ');
                last.push_str(word);
            }
            _ => units.push(word.to_string()),
        }
    }
    units
}

/// A name from a profile or a results file, safe to show: every control character
/// (an ANSI escape, a carriage return, a newline) is written as its Rust escape
/// (`\u{1b}`), so a name can neither restyle the terminal nor forge a line. Escaping
/// twice changes nothing.
pub(crate) fn escape_controls(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() || is_bidi_control(c) {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// The invisible marks that reorder text on screen (U+202E turns the rest of a line
/// around): a name could make a report read what it does not say.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Writes `text` and a newline to stdout, as [`stdout`] does.
pub(crate) fn stdout_line(text: &str) {
    stdout(&format!("{text}\n"));
}

/// A message clap made (help, version, or a usage error), on the stream it belongs to,
/// in colour when that stream may have it.
/// `edit` may change the text before it is written (abtest's own hints in the place of
/// clap's suggestions).
pub(crate) fn clap_message(
    message: &clap::builder::StyledStr,
    on_stderr: bool,
    edit: impl Fn(String) -> String,
) {
    let coloured = |in_colour: bool| {
        edit(if in_colour {
            message.ansi().to_string()
        } else {
            message.to_string()
        })
    };
    if on_stderr {
        stderr(&coloured(colour(&std::io::stderr())));
    } else {
        stdout(&coloured(colour(&std::io::stdout())));
    }
}

/// Whether the tables on stdout may be coloured.
pub(crate) fn colour_on_stdout() -> bool {
    colour(&std::io::stdout())
}

fn colour<S: anstream::stream::RawStream>(stream: &S) -> bool {
    match COLOUR.load(Ordering::Relaxed) {
        c if c == Colour::Always as u8 => true,
        c if c == Colour::Never as u8 => false,
        _ => !matches!(
            anstream::AutoStream::choice(stream),
            anstream::ColorChoice::Never
        ),
    }
}

/// The live bar on stderr. While it is shown, every line goes above it; it is shown
/// only on a terminal and without `--quiet`, and removed when finished or dropped.
#[derive(Debug)]
pub(crate) struct Bar(Option<indicatif::ProgressBar>);

impl Bar {
    /// A bar of `length` steps drawn from `template` (indicatif's template language).
    pub(crate) fn new(length: u64, template: &str) -> Bar {
        if quiet() || !std::io::stderr().is_terminal() {
            return Bar(None);
        }
        let bar = indicatif::ProgressBar::new(length);
        if let Ok(style) = indicatif::ProgressStyle::with_template(template) {
            bar.set_style(style);
        }
        *BAR.lock().unwrap_or_else(|e| e.into_inner()) = Some(bar.clone());
        Bar(Some(bar))
    }

    /// A bar that shows nothing.
    #[cfg(test)]
    pub(crate) fn hidden() -> Bar {
        Bar(None)
    }

    /// Whether the bar is on screen.
    pub(crate) fn shown(&self) -> bool {
        self.0.is_some()
    }

    /// Moves the bar to `position` with `message` beside it.
    pub(crate) fn set(&self, position: u64, message: String) {
        if let Some(bar) = &self.0 {
            bar.set_position(position);
            bar.set_message(message);
        }
    }

    /// Removes the bar; lines go straight to stderr again.
    pub(crate) fn finish(&self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
            *BAR.lock().unwrap_or_else(|e| e.into_inner()) = None;
        }
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_wraps_at_spaces_within_the_columns() {
        let text = "NO-GO: TPS loss at least 16.3 % at 8 threads, beyond the 5 % tolerance";
        let wrapped = wrap(text, Some(40));
        assert!(
            wrapped.lines().all(|l| l.chars().count() <= 40),
            "{wrapped}"
        );
        assert_eq!(wrapped.replace('\n', " "), text);
        assert_eq!(wrap(text, None), text);
        let wrapped = wrap("costs 68.8–90.4 % at 900 threads", Some(16));
        assert!(wrapped.lines().all(|l| !l.starts_with('%')), "{wrapped}");
        let bullet = wrap(
            "- Run longer: about 137 rounds per side would decide",
            Some(20),
        );
        assert!(
            bullet.lines().skip(1).all(|l| l.starts_with("  ")),
            "{bullet}"
        );
        assert!(bullet.lines().all(|l| l.chars().count() <= 20), "{bullet}");
    }

    #[test]
    fn control_characters_in_names_are_escaped_once() {
        let name = "MariaDB \u{1b}[31mred\u{1b}[0m\r\nforged";
        let shown = escape_controls(name);
        assert!(!shown.chars().any(char::is_control), "{shown}");
        assert_eq!(shown, "MariaDB \\u{1b}[31mred\\u{1b}[0m\\r\\nforged");
        assert_eq!(escape_controls(&shown), shown);
        assert_eq!(escape_controls("a\u{202e}b"), "a\\u{202e}b");
        assert_eq!(
            escape_controls("MariaDB + server_audit"),
            "MariaDB + server_audit"
        );
    }

    /// A pipe whose reader closed is told from one still read, so a SIGPIPE names the
    /// stream that lost its reader whichever comes first, the signal or the error.
    #[test]
    fn a_pipe_without_its_reader_is_told_from_one_still_read() {
        let mut fds = [0; 2];
        // SAFETY: a fresh pipe; both ends are closed below.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        let [read, write] = fds;
        assert!(!reader_gone(write));
        // SAFETY: closing the ends this test opened.
        unsafe { libc::close(read) };
        assert!(reader_gone(write));
        unsafe { libc::close(write) };
        assert!(
            !reader_gone(write),
            "a closed descriptor is not a gone reader"
        );
    }
}
