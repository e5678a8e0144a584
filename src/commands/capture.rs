//! `abtest capture LOG` or `abtest capture --digest PROFILE`: a workload file from what a
//! server saw.

use anyhow::Context;

use crate::capture::{self, CaptureOptions, Keep};
use crate::cli::CaptureArgs;
use crate::exit::{self, UsageError};

/// Captures, then writes the file (or prints it).
pub(crate) fn execute(args: &CaptureArgs) -> anyhow::Result<i32> {
    crate::resolve::ranges::check_given("--coverage", args.coverage)?;
    let options = CaptureOptions {
        keep: match (args.top, args.coverage) {
            (Some(n), _) => Keep::Top(n as usize),
            (None, Some(share)) => Keep::Coverage(share),
            (None, None) => Keep::All,
        },
        anonymize: args.anonymize,
        seed: args.seed,
    };
    let text = match (&args.log, &args.digest) {
        (Some(log), _) => capture::from_log(log, options)?,
        (None, Some(profile)) => from_digest(profile, options)?,
        (None, None) => return Err(UsageError::err("give a LOG file or --digest PROFILE")),
    };
    crate::report::stdout::write_to(args.output.as_deref(), &text, args.log.as_deref())?;
    if let Some(path) = args.output.as_deref().filter(|p| p.as_os_str() != "-") {
        eprintln!("abtest: wrote {}", path.display());
    }
    Ok(exit::SUCCESS)
}

/// Reads the digest table of the external server in `profile`.
fn from_digest(profile: &std::path::Path, options: CaptureOptions) -> anyhow::Result<String> {
    let server = crate::resolve::external_server(
        profile,
        "--digest reads a running server's performance_schema; give a profile with [connection]",
    )?;
    let (user, endpoint, database) = (&server.user, &server.endpoint, &server.database);
    let mut conn = server
        .connect_spec(None)
        .connect()
        .with_context(|| format!("cannot connect to {user}@{endpoint}"))?;
    let mut mix = capture::digest::read(&mut conn, Some(database.as_str()), options.keep)?;
    let source = capture::emit::Source {
        name: format!("{user}@{endpoint}, schema {database}"),
        kind: "performance_schema statement digests".to_string(),
        anonymized: options.anonymize,
    };
    capture::finish(&mut mix, options, source)
}
