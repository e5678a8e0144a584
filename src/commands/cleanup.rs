//! `abtest cleanup --profile X.toml`: drop what abtest created on an external server —
//! the tables carrying its mark — and nothing else. A table a workload file names is
//! not abtest's (its setup, or someone, created it): it is kept and named, with the
//! statement to drop it by hand.

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
    let named = match &args.workload_file {
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
    let done = schema::cleanup(&mut conn, &named)?;
    crate::terminal::stdout_line(&format!(
        "dropped {} table(s): {}",
        done.dropped.len(),
        done.dropped.join(", ")
    ));
    if !done.kept.is_empty() {
        crate::terminal::stdout_line(&format!(
            "kept {} table(s) abtest did not create: {}",
            done.kept.len(),
            done.kept.join(", ")
        ));
    }
    if !done.named.is_empty() {
        crate::terminal::stdout_line(&format!(
            "the workload file names {}, which carry no mark of abtest's: abtest drops only \
             the tables it created. If they are the workload's own and hold nothing you need, \
             drop them yourself: {}",
            done.named.join(", "),
            drop_statement(&done.named)
        ));
    }
    Ok(exit::SUCCESS)
}

/// The statement that drops `tables` in the profile's database.
fn drop_statement(tables: &[String]) -> String {
    let quoted: Vec<String> = tables
        .iter()
        .map(|t| crate::db::quoted_identifier(t))
        .collect();
    format!("DROP TABLE {};", quoted.join(", "))
}
