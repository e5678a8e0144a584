//! What `abtest report` and `abtest analyze` give CI about a saved run: the exit code of
//! its verdict, the same one the live run gave (0 GO, 3 NO-GO, 4 INCONCLUSIVE), and the
//! JUnit XML of its tolerances. `--no-verdict-exit` is for those who only render.

use std::path::Path;

use crate::cli::GateArgs;
use crate::exit;
use crate::report::{ReportView, junit};
use crate::results;

/// Writes the JUnit XML if asked and returns the exit code of `view`'s verdict.
pub(crate) fn finish(view: &ReportView<'_>, gate: &GateArgs, input: &Path) -> anyhow::Result<i32> {
    if let Some(path) = &gate.junit {
        crate::paths::refuse_overwriting_input(path, input)?;
        results::check_writable(path)?;
        results::write_atomic(path, junit::render(view).as_bytes())?;
    }
    Ok(match view.verdict {
        Some(verdict) if !gate.no_verdict_exit => verdict.exit_code(),
        _ => exit::SUCCESS,
    })
}
