//! Which captured INSERT ids each server assigns in the replay
//! ([`crate::workload::assigned_ids`]), read once before the first round: said on the
//! terminal, kept in the record, and a warning when the two servers' tables disagree
//! on their AUTO_INCREMENT columns, since the two sides then replay different INSERTs.

use crate::results::RunRecord;
use crate::results::data_restore::{listed, rebased_sentence};
use crate::runner::backend::Servers;
use crate::side::Side;
use crate::workload::assigned_ids::server_assigned;

/// Reads on each side which INSERT values its server assigns, and records the
/// baseline's.
pub(super) fn record(servers: &Servers<'_>, record: &mut RunRecord) -> anyhow::Result<()> {
    let spec = servers.rounds_workload();
    let Some(file) = spec.file() else {
        return Ok(());
    };
    let mut columns = Vec::new();
    for side in Side::BOTH {
        let mut conn = servers.connect(side, "read which INSERT ids the server assigns")?;
        let mut found: Vec<String> = server_assigned(&mut conn, file, spec.tables.count)
            .map_err(|e| anyhow::anyhow!("{side}: reading the AUTO_INCREMENT columns: {e}"))?
            .into_iter()
            .map(|a| a.column)
            .collect();
        found.sort();
        found.dedup();
        columns.push(found);
    }
    let [baseline, variant] = [&columns[0], &columns[1]];
    if baseline.is_empty() && variant.is_empty() {
        return Ok(());
    }
    if baseline != variant {
        let warning = format!(
            "the two servers' tables differ in their AUTO_INCREMENT columns (baseline: {}; \
             variant: {}): the server assigns the captured INSERT ids of those columns, so \
             the two sides replay different INSERTs; give both the same schema",
            listed(baseline),
            listed(variant)
        );
        crate::terminal::warning(&warning);
        record.warnings.push(warning);
    }
    crate::terminal::note(rebased_sentence(baseline));
    record.assigned_ids = baseline.clone();
    Ok(())
}
