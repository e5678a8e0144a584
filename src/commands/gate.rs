//! What `abtest report` and `abtest analyze` give CI about a saved run: the exit code of
//! its verdict, the same one the live run gave (0 GO, 3 NO-GO, 4 INCONCLUSIVE), and the
//! JUnit XML of its tolerances (`--junit`, written with the other outputs).
//! `--no-verdict-exit` is for those who only render.

use std::path::Path;

use crate::cli::GateArgs;
use crate::exit::{self, UsageError};
use crate::report::ReportView;
use crate::report::files::Outputs;
use crate::report::formats::Format;
use crate::results;

/// Refuses, before anything is printed or written, a `--junit` path that is the input,
/// the report's own output (`None` or `-`: stdout), or cannot be written.
pub(crate) fn check_outputs(
    outputs: &Outputs,
    input: &Path,
    report_output: Option<&Path>,
) -> anyhow::Result<()> {
    let Some(junit) = outputs.path(Format::Junit) else {
        return Ok(());
    };
    let report_output = report_output.filter(|p| p.as_os_str() != "-");
    let clash = match report_output {
        _ if junit.as_os_str() == "-" => report_output.is_none(),
        Some(output) => crate::paths::same_file(junit, output),
        None => false,
    };
    if clash {
        let place = match report_output {
            Some(_) => format!("{}, where the report goes too", junit.display()),
            None => "stdout, into the report".to_string(),
        };
        return Err(UsageError::err(format!(
            "--junit would write the JUnit XML to {place}; give it a file of its own \
             (--junit junit.xml)"
        )));
    }
    if junit.as_os_str() == "-" {
        return Ok(());
    }
    crate::paths::refuse_overwriting_input(junit, input)?;
    results::check_writable(junit)
}

/// The exit code of `view`'s verdict, unless `--no-verdict-exit`.
pub(crate) fn exit_code(view: &ReportView<'_>, gate: &GateArgs) -> i32 {
    if gate.no_verdict_exit {
        exit::SUCCESS
    } else {
        view.exit_code()
    }
}
