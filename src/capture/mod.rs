//! `abtest capture`: what a server saw, turned into a `--workload-file`, so a
//! pre-upgrade check runs *our* queries, not sysbench's.
//!
//! Sources: a slow log written with `long_query_time = 0` (MariaDB's or MySQL's format),
//! a general log, or a running server's `performance_schema` digest table. Statements
//! are fingerprinted as pt-query-digest does, grouped into the transactions the log shows,
//! weighted by how often they ran, and their literals become parameters drawn from what
//! was observed.

pub(crate) mod check_on;
pub(crate) mod columns;
pub(crate) mod digest;
pub(crate) mod emit;
pub(crate) mod load;
pub(crate) mod log;
pub(crate) mod mix;
pub(crate) mod template;

use std::path::Path;

pub(crate) use mix::Keep;

/// What to do with string literals and which fingerprints to keep.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CaptureOptions {
    /// Which fingerprints to keep.
    pub(crate) keep: Keep,
    /// Replace string literals with made-up ones.
    pub(crate) anonymize: bool,
    /// Seed of the made-up strings.
    pub(crate) seed: u64,
}

/// The workload file captured from the log at `path`.
pub(crate) fn from_log(path: &Path, options: CaptureOptions) -> anyhow::Result<String> {
    let log::ReadLog {
        format,
        statements,
        cut_at,
    } = log::read(path)?;
    if let Some(line) = cut_at {
        crate::terminal::warning(format_args!(
            "{}:{line}: the log's last statement was cut off mid-way (the \
             log was copied while the server wrote it); it is left out of the capture",
            path.display()
        ));
    }
    if statements.is_empty() {
        return Err(crate::exit::UsageError::err(format!(
            "{}: the {} holds no statement to capture (was long_query_time 0, or the general log on?)",
            path.display(),
            format.as_str()
        )));
    }
    let mut mix = mix::build(&statements, options.keep);
    mix.load = load::of(&statements);
    finish(
        &mut mix,
        options,
        emit::Source {
            name: path.display().to_string(),
            kind: format.as_str().to_string(),
            anonymized: options.anonymize,
        },
    )
}

/// Anonymises if asked, and writes the file.
pub(crate) fn finish(
    mix: &mut mix::Mix,
    options: CaptureOptions,
    source: emit::Source,
) -> anyhow::Result<String> {
    if mix.classes.is_empty() {
        return Err(crate::exit::UsageError::err(format!(
            "{}: nothing could be captured: every statement was left out ({:?})",
            source.name, mix.skipped
        )));
    }
    if options.anonymize {
        mix::anonymize(mix, options.seed);
    }
    emit::workload_file(mix, &source)
}
