//! The prepare check: before the timed rounds of a workload file, every statement text
//! is prepared on both sides and closed again. Preparing executes nothing, so it is safe
//! for the writes of a captured log, and it finds what the server refuses before it
//! runs anything (a stricter `sql_mode` refusing a GROUP BY, a removed function or
//! syntax, an unknown column). A class that one side prepares and the other refuses is
//! recorded, so the rounds leave it out ([`super::quarantine`]) and the judge reports it
//! even when no answers were compared (`--check-results`).
//!
//! With `--ps-mode disable` nothing is prepared in the rounds, and a server or proxy
//! that cannot prepare at all would make every class look refused: the check is not run,
//! and only the answers check finds such a class.

use mysql::prelude::Queryable;

use super::backend::Servers;
use crate::results::prepare_check::{OneSided, PrepareCheck};
use crate::side::Side;
use crate::workload::{PsMode, Workload};

/// Prepares every statement text of the plan's workload file on both sides; `None`
/// when the workload is built in (sysbench's statements) or the rounds do not prepare.
pub(crate) fn check(servers: &Servers<'_>) -> anyhow::Result<Option<PrepareCheck>> {
    let spec = &servers.plan.workload;
    let Workload::File(file) = &spec.kind else {
        return Ok(None);
    };
    if spec.ps_mode == PsMode::Disable {
        return Ok(None);
    }
    let purpose = "prepare the workload's statements";
    let mut conns = [
        servers.connect(Side::Baseline, purpose)?,
        servers.connect(Side::Variant, purpose)?,
    ];
    let mut check = PrepareCheck::default();
    let mut seen = std::collections::BTreeSet::new();
    for (_, class, text) in file.prepared_texts(spec.tables.count) {
        if !seen.insert(class) {
            continue;
        }
        check.statements += 1;
        let [baseline, variant] = [0, 1].map(|i| prepare(&mut conns[i], &text));
        let refused = match (baseline, variant) {
            (Err(error), Ok(())) => Some((Side::Baseline, error)),
            (Ok(()), Err(error)) => Some((Side::Variant, error)),
            _ => None,
        };
        if let Some((failed_on, error)) = refused {
            check.one_sided.push(OneSided {
                class: class.to_string(),
                failed_on,
                error,
            });
        }
    }
    Ok(Some(check))
}

/// Prepares `text` on `conn` and closes it; the server's error, with its code.
fn prepare(conn: &mut mysql::Conn, text: &str) -> Result<(), String> {
    let statement = conn.prep(text).map_err(|e| crate::db::errors::coded(&e))?;
    let _ = conn.close(statement);
    Ok(())
}
