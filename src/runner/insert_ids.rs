//! Which captured INSERT ids each server assigns in the replay
//! ([`crate::workload::assigned_ids`]), read once per server before the first round and
//! handed to every session of its rounds, so what is recorded is what the rounds send:
//! said on the terminal, kept in the record, and a warning when the two servers' tables
//! disagree on their AUTO_INCREMENT columns, since the two sides then replay different
//! INSERTs.

use std::sync::Arc;

use anyhow::Context;

use crate::results::RunRecord;
use crate::results::data_restore::{listed, rebased_sentence};
use crate::runner::backend::Servers;
use crate::side::Side;
use crate::workload::assigned_ids::{Assigned, server_assigned};

/// Reads on each server which INSERT values it assigns, gives them to its rounds and
/// records the baseline's.
pub(super) fn record(servers: &mut Servers<'_>, record: &mut RunRecord) -> anyhow::Result<()> {
    let spec = servers.rounds_workload();
    let Some(file) = spec.file() else {
        return Ok(());
    };
    let mut read: Vec<Vec<Assigned>> = Vec::new();
    for side in Side::BOTH {
        let mut conn = servers.connect(side, "read which INSERT ids the server assigns")?;
        let found = server_assigned(&mut conn, file, spec.tables.count)
            .with_context(|| format!("{side}: reading the AUTO_INCREMENT columns"))?;
        read.push(found);
    }
    let columns: Vec<Vec<String>> = read.iter().map(|found| columns_of(found)).collect();
    for (index, found) in read.into_iter().enumerate() {
        servers.assigned[index] = Arc::from(found);
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

/// Every `table.column` of `found`, sorted, each once.
fn columns_of(found: &[Assigned]) -> Vec<String> {
    let mut columns: Vec<String> = found.iter().flat_map(|a| a.columns.clone()).collect();
    columns.sort();
    columns.dedup();
    columns
}
