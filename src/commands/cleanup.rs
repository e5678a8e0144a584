//! `abtest cleanup --profile X.toml`: drop what abtest created on an external server —
//! the tables carrying its mark and those a workload file names — and nothing else.

use anyhow::Context;

use crate::cli::CleanupArgs;
use crate::exit;
use crate::workload::custom::CustomWorkload;
use crate::workload::schema;

/// Drops abtest's tables and lists the ones it kept.
pub(crate) fn execute(args: &CleanupArgs) -> anyhow::Result<i32> {
    let server = crate::resolve::external_server(
        &args.profile,
        "a [server] profile starts a managed server, which is thrown away after every run: there is nothing to clean up",
    )?;
    let (user, endpoint, database) = (&server.user, &server.endpoint, &server.database);
    let extra = match &args.workload_file {
        Some(path) => CustomWorkload::load(path)?.tables,
        None => Vec::new(),
    };
    let connect = server.connect_spec(Some(database));
    let mut conn = connect
        .connect()
        .with_context(|| format!("cannot connect to {user}@{endpoint}/{database}"))?;
    if let Some(notice) = connect.plain_text_notice(&mut conn) {
        crate::terminal::warning(&notice);
    }
    let (dropped, kept) = schema::cleanup(&mut conn, &extra)?;
    crate::report::stdout::line(&format!(
        "dropped {} table(s): {}",
        dropped.len(),
        dropped.join(", ")
    ));
    if !kept.is_empty() {
        crate::report::stdout::line(&format!(
            "kept {} table(s) abtest did not create: {}",
            kept.len(),
            kept.join(", ")
        ));
    }
    Ok(exit::SUCCESS)
}
