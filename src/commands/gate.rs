//! What `abtest report` and `abtest analyze` give CI about a saved run: the exit code of
//! its verdict, the same one the live run gave (0 GO, 3 NO-GO, 4 INCONCLUSIVE), and the
//! JUnit XML of its tolerances (`--junit`, written with the other outputs).
//! `--no-verdict-exit` is for those who only render.

use crate::cli::GateArgs;
use crate::exit;
use crate::report::ReportView;

/// The exit code of `view`'s verdict, unless `--no-verdict-exit`.
pub(crate) fn exit_code(view: &ReportView<'_>, gate: &GateArgs) -> i32 {
    if gate.no_verdict_exit {
        exit::SUCCESS
    } else {
        view.exit_code()
    }
}
