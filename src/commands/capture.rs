//! `abtest capture LOG` or `abtest capture --digest PROFILE`: a workload file from what a
//! server saw.

use anyhow::Context;

use crate::capture::{self, CaptureOptions, Keep};
use crate::cli::CaptureArgs;
use crate::exit::{self, UsageError};
use crate::resolve::outputs::{Existing, Input, Output, claim};

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
    let inputs: Vec<Input> = [
        (args.log.as_deref(), "the log being captured"),
        (args.digest.as_deref(), "the --digest profile"),
        (args.check_on.as_deref(), "the --check-on profile"),
    ]
    .into_iter()
    .filter_map(|(path, what)| Some(Input::new(path?, what)))
    .collect();
    let _claimed = claim(
        &Output::report("--output", args.output.as_deref())
            .into_iter()
            .collect::<Vec<_>>(),
        &inputs,
        Existing::Kept { overwrite: false },
    )?;
    let text = match (&args.log, &args.digest) {
        (Some(log), _) => capture::from_log(log, options)?,
        (None, Some(profile)) => from_digest(profile, options)?,
        (None, None) => return Err(UsageError::err("give a LOG file or --digest PROFILE")),
    };
    crate::report::stdout::write_to(args.output.as_deref(), &text, args.log.as_deref())?;
    if let Some(path) = args.output.as_deref().filter(|p| p.as_os_str() != "-") {
        crate::terminal::note(format_args!("wrote {}", path.display()));
    }
    match &args.check_on {
        Some(profile) => check_on(profile, &text, args.output.as_deref()),
        None => Ok(exit::SUCCESS),
    }
}

/// Prepares every captured statement on the server of `profile`; names each one it
/// cannot prepare and exits 2 when there is one.
fn check_on(
    profile: &std::path::Path,
    text: &str,
    output: Option<&std::path::Path>,
) -> anyhow::Result<i32> {
    let server = crate::resolve::external_server(
        profile,
        "--check-on prepares the captured statements on a running server; give a profile with [connection]",
    )?;
    let (user, endpoint) = (&server.user, &server.endpoint);
    let mut conn = server
        .connect_spec(Some(&server.database))
        .connect()
        .with_context(|| format!("--check-on: cannot connect to {user}@{endpoint}"))?;
    let file = output
        .filter(|p| p.as_os_str() != "-")
        .unwrap_or(std::path::Path::new("<stdout>"));
    let failed = capture::check_on::check(text, file, &mut conn)?;
    if failed.is_empty() {
        crate::terminal::note(format_args!(
            "every captured statement prepares on {user}@{endpoint}"
        ));
        return Ok(exit::SUCCESS);
    }
    for f in &failed {
        crate::terminal::note(format_args!(
            "{}:{}: transaction \"{}\": `{}` cannot be prepared on {user}@{endpoint}: {}",
            file.display(),
            f.line,
            f.transaction,
            f.statement,
            f.error
        ));
    }
    Err(UsageError::err(format!(
        "{} captured statement(s) cannot be prepared on {user}@{endpoint}: fix or remove them in \
         the file, create what they need on the server, or replay them as text (--ps-mode disable)",
        failed.len()
    )))
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
