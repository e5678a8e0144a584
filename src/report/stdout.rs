//! A rendered report goes to a file or to stdout, as the user named it. The terminal
//! module writes the stdout case: a closed pipe there is not an error, so the command
//! finishes as it would have, its exit code still the verdict's.

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
            crate::terminal::stdout(text);
            Ok(())
        }
    }
}
