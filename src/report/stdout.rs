//! Printing to stdout without panicking. `print!` panics when stdout is a closed pipe
//! (`abtest report … | head -1`); a closed stdout means the reader has what it wanted,
//! so the rest of the text is dropped and the command finishes as it would have — files
//! saved, servers stopped, the exit code still the verdict's, so CI that gates on it
//! does not depend on whether anyone read the table.

/// Writes `text` to stdout; a closed pipe is not an error, any other failure is a
/// warning on stderr.
pub(crate) fn print(text: &str) {
    crate::terminal::stdout(text);
}

/// Writes `text` and a newline to stdout, as [`print`] does.
pub(crate) fn line(text: &str) {
    print(&format!("{text}\n"));
}

/// Writes `text` to `path`, atomically, or to stdout when there is no path or it is
/// `-`, as every Unix tool reads it. `input`, when given, is the file the text was made
/// from: writing over it is refused.
pub(crate) fn write_to(
    path: Option<&std::path::Path>,
    text: &str,
    input: Option<&std::path::Path>,
) -> anyhow::Result<()> {
    match path.filter(|p| p.as_os_str() != "-") {
        Some(path) => {
            if let Some(input) = input {
                crate::paths::refuse_overwriting_input(path, input)?;
            }
            crate::results::write_atomic(path, text.as_bytes())
        }
        None => {
            print(text);
            Ok(())
        }
    }
}
