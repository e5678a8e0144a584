//! The files a command writes, checked against what it reads and what is on disk before
//! anything starts, on every path that writes: a run, a resumed run (whose outputs come
//! from the saved file, so they are checked again as if typed), `calibrate`, `merge`,
//! `report`, `analyze`, `capture` and `import-sysbench-log`. An output is refused when
//! - something other than a regular file is there (a directory, a device such as
//!   `/dev/null`, a pipe, a socket, or a link to one): every output is written by renaming
//!   a new file over the old one, which would put a regular file in the device's place;
//! - another output names the same file (the CSV would replace the JSON);
//! - it is an input: a profile, its password file, TLS CA, defaults file and every file
//!   that one pulls in (`!include`, `!includedir`), the files the server is told to read
//!   (`init_file`, TLS and key files), the workload file, the saved runs a command reads;
//! - another abtest is writing it (a lock, see `paths::lock`): two runs given one
//!   `--json` used to keep one of them in silence;
//! - it would replace a finished run: a results output over any existing file, or any
//!   output over a saved abtest run, needs `--overwrite` (or is the run being resumed).

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::exit::UsageError;
use crate::paths::{OutputLock, same_file};
use crate::plan::{Plan, SidePlan, TargetSpec};
use crate::report::files::Outputs;
pub(crate) use crate::report::formats::Holds;
use crate::server::options::option_root;

/// A file a command reads, with words for what it is.
#[derive(Debug, Clone)]
pub(crate) struct Input {
    /// The file.
    pub(crate) path: PathBuf,
    /// What it is, for the message ("the baseline profile").
    pub(crate) what: String,
}

impl Input {
    /// `path`, described as `what`.
    pub(crate) fn new(path: impl Into<PathBuf>, what: impl Into<String>) -> Input {
        Input {
            path: path.into(),
            what: what.into(),
        }
    }
}

/// One output of a command: the flag that named it, for the messages.
#[derive(Debug, Clone)]
pub(crate) struct Output<'a> {
    /// `--json`, `--output`, …
    pub(crate) flag: &'static str,
    /// Where it goes.
    pub(crate) path: &'a Path,
    /// What it holds.
    pub(crate) holds: Holds,
}

impl<'a> Output<'a> {
    /// A report output named by `flag`; none for stdout (no path, or `-`).
    pub(crate) fn report(flag: &'static str, path: Option<&'a Path>) -> Option<Output<'a>> {
        path.filter(|p| p.as_os_str() != "-").map(|path| Output {
            flag,
            path,
            holds: Holds::Report,
        })
    }
}

/// What happens to an existing file where an output goes.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Existing<'a> {
    /// Kept: the output is refused. `overwrite` says whether the command has
    /// `--overwrite` to replace it.
    Kept { overwrite: bool },
    /// Replaced: `--overwrite` was given.
    Replaced,
    /// The run resumed from this results file writes on to it; its other outputs come
    /// from the file's saved plan.
    Resumed(&'a Path),
}

impl Existing<'_> {
    /// For outputs typed with a command that has `--overwrite`.
    pub(crate) fn typed(overwrite: bool) -> Existing<'static> {
        match overwrite {
            true => Existing::Replaced,
            false => Existing::Kept { overwrite: true },
        }
    }
}

/// The outputs a command holds until it ends: no other abtest may write them meanwhile.
#[derive(Debug)]
#[must_use = "the outputs are free for others once this is dropped"]
pub(crate) struct Claimed(#[allow(dead_code)] Vec<OutputLock>);

/// Each output of `outputs` that goes to a file, with the flag that names it.
pub(crate) fn named(outputs: &Outputs) -> Vec<Output<'_>> {
    outputs
        .iter()
        .filter_map(|(format, path)| {
            let flag = format.file()?.flag;
            match format.holds() {
                Holds::Results => Some(Output {
                    flag,
                    path,
                    holds: Holds::Results,
                }),
                Holds::Report => Output::report(flag, Some(path)),
            }
        })
        .collect()
}

/// Refuses what would go to stdout and cannot: a results file (always a file), an
/// output named `-` where stdout already carries the table or the report
/// (`stdout_taken`), and two outputs both named `-`.
pub(crate) fn stdout_once(outputs: &Outputs, stdout_taken: bool) -> anyhow::Result<()> {
    let mut taken = stdout_taken;
    for (format, path) in outputs.iter().filter(|(_, p)| p.as_os_str() == "-") {
        let Some(flag) = format.file().map(|f| f.flag) else {
            continue;
        };
        let why = match format.holds() {
            Holds::Results => "a results file is always a file",
            Holds::Report if taken => "stdout already carries the table or another report",
            Holds::Report => {
                taken = true;
                continue;
            }
        };
        return Err(UsageError::err(format!(
            "{flag} {}: {why}; give it a file of its own ({flag} FILE)",
            path.display()
        )));
    }
    Ok(())
}

/// The files a plan reads: each side's profile, password file and TLS CA; a managed
/// server's defaults file with every file it pulls in and the files its options name;
/// the workload file.
pub(crate) fn inputs(plan: &Plan, workload_file: Option<&Path>) -> Vec<Input> {
    let mut inputs: Vec<Input> = plan.sides.iter().flat_map(side_inputs).collect();
    inputs.extend(workload_file.map(|path| Input::new(path, "the workload file")));
    inputs
}

/// Options naming a file the server reads; an option name reaching one of them
/// (in any spelling, or abbreviated) is an input.
const FILE_OPTIONS: &[&str] = &[
    "init_file",
    "ssl_ca",
    "ssl_cert",
    "ssl_key",
    "ssl_crl",
    "file_key_management_filename",
];

fn names_a_read_file(name: &str) -> Option<&'static str> {
    let root = option_root(name);
    FILE_OPTIONS
        .iter()
        .copied()
        .find(|option| *option == root || (root.len() >= 4 && option.starts_with(&root)))
}

fn side_inputs(side: &SidePlan) -> Vec<Input> {
    let name = side.side;
    let mut inputs = vec![Input::new(&side.profile, format!("the {name} profile"))];
    if let Some(path) = &side.password_file {
        inputs.push(Input::new(
            path,
            format!("the {name} profile's password_file"),
        ));
    }
    if let Some(path) = &side.client.tls_ca {
        inputs.push(Input::new(path, format!("the {name} profile's tls_ca")));
    }
    let TargetSpec::Managed {
        options,
        defaults_file,
        ..
    } = &side.target
    else {
        return inputs;
    };
    let from_file = defaults_file
        .iter()
        .flat_map(|file| &file.options)
        .filter_map(|o| Some((&o.name, o.value.as_ref()?)));
    for (option, value) in options.iter().chain(from_file) {
        if let Some(reaches) = names_a_read_file(option) {
            inputs.push(Input::new(
                value,
                format!("the {name} server reads it: {reaches}"),
            ));
        }
    }
    if let Some(file) = defaults_file {
        let path = &file.path;
        inputs.push(Input::new(
            path,
            format!("the {name} profile's defaults_file"),
        ));
        for included in crate::server::includes::included(path) {
            inputs.push(Input::new(
                &included.path,
                format!(
                    "part of the {name} profile's defaults_file {}: {} pulls it in with {}",
                    path.display(),
                    included.by.display(),
                    included.directive
                ),
            ));
        }
    }
    inputs
}

/// Claims a run's outputs against its plan's inputs: outputs typed on the command line,
/// or saved in the results file it resumes (`Existing::Resumed`), which the run reads too.
pub(crate) fn claim_run(
    plan: &Plan,
    workload_file: Option<&Path>,
    existing: Existing<'_>,
) -> anyhow::Result<Claimed> {
    let outputs = Outputs::of_plan(&plan.outputs);
    stdout_once(&outputs, true)?;
    let mut inputs = inputs(plan, workload_file);
    if let Existing::Resumed(file) = existing {
        inputs.push(Input::new(file, "the results file being resumed"));
    }
    claim(&named(&outputs), &inputs, existing)
}

/// Checks `outputs` against `inputs`, each other and the filesystem, and claims them for
/// this process; every refusal is a usage error (exit 2) naming the flag, the path, why,
/// and what to do.
pub(crate) fn claim(
    outputs: &[Output<'_>],
    inputs: &[Input],
    existing: Existing<'_>,
) -> anyhow::Result<Claimed> {
    for (i, output) in outputs.iter().enumerate() {
        let label = label(output, existing);
        refuse_what_is_there(&label, output.path)?;
        if let Some(other) = outputs[..i].iter().find(|o| same_file(o.path, output.path)) {
            return Err(UsageError::err(format!(
                "{} and {label} both name {}; give each output its own file",
                other.flag,
                output.path.display()
            )));
        }
        if let Some(other) = outputs
            .iter()
            .find(|o| same_file(&crate::paths::lock_path(o.path), output.path))
        {
            return Err(UsageError::err(format!(
                "{label} {} is the lock file abtest keeps beside {} {} while it writes it, \
                 and removes at the end; give the output another name",
                output.path.display(),
                other.flag,
                other.path.display()
            )));
        }
        let inputs = inputs.iter().filter(|_| !is_resumed(output, existing));
        if let Some(input) = inputs
            .clone()
            .find(|input| same_file(&input.path, output.path))
        {
            return Err(UsageError::err(format!(
                "{label} {} is an input of the run ({}, {}); writing there would destroy it \
                 — choose another path",
                output.path.display(),
                input.what,
                input.path.display()
            )));
        }
        crate::results::check_writable(output.path)?;
    }
    let mut locks = Vec::new();
    for output in outputs {
        locks.push(lock(output, existing)?);
        refuse_replacing(output, existing)?;
    }
    Ok(Claimed(locks))
}

/// The flag of `output` as the user gave it: a resumed run's outputs come from its file.
fn label(output: &Output<'_>, existing: Existing<'_>) -> String {
    match existing {
        Existing::Resumed(file) if !is_resumed(output, existing) => {
            format!("{} (saved in {})", output.flag, file.display())
        }
        _ => output.flag.to_string(),
    }
}

/// Whether `output` is the results file a resumed run writes on to.
fn is_resumed(output: &Output<'_>, existing: Existing<'_>) -> bool {
    matches!(existing, Existing::Resumed(file)
        if output.holds == Holds::Results && same_file(output.path, file))
}

fn refuse_what_is_there(label: &str, path: &Path) -> anyhow::Result<()> {
    let Some(what) = crate::paths::not_a_regular_file(path) else {
        return Ok(());
    };
    if what == "a directory" {
        return Err(UsageError::err(format!(
            "{label} {} is a directory; name a file in it, such as {}",
            path.display(),
            path.join("results.json").display()
        )));
    }
    Err(UsageError::err(format!(
        "{label} {} is {what}, not a regular file; abtest writes an output by replacing the \
         file whole, which would put a regular file in its place — name a regular file",
        path.display()
    )))
}

fn lock(output: &Output<'_>, existing: Existing<'_>) -> anyhow::Result<OutputLock> {
    let label = label(output, existing);
    let path = output.path.display();
    let held = crate::paths::lock(output.path).map_err(|e| {
        UsageError::err(format!(
            "{label} {path}: cannot create its lock file {} ({e}); choose a path in a \
             writable directory",
            crate::paths::lock_path(output.path).display()
        ))
    })?;
    held.map_err(|pid| {
        let by = pid
            .map(|pid| format!(" (process {pid})"))
            .unwrap_or_default();
        UsageError::err(format!(
            "{label} {path} is being written by another abtest{by}; two runs writing one \
             file would keep only one of them — wait for it to finish, or choose another path"
        ))
    })
}

/// Refuses to replace a saved run, or any existing file with results, unless asked to.
fn refuse_replacing(output: &Output<'_>, existing: Existing<'_>) -> anyhow::Result<()> {
    let overwrite = match existing {
        Existing::Replaced => return Ok(()),
        _ if is_resumed(output, existing) || !output.path.exists() => return Ok(()),
        Existing::Kept { overwrite: true } => ", or give --overwrite to replace it",
        Existing::Kept { overwrite: false } => ", or move the file away first",
        Existing::Resumed(_) => "; the path comes from the saved plan (plan.outputs)",
    };
    let (label, path) = (label(output, existing), output.path.display());
    match (saved_run_status(output.path), output.holds) {
        (None, Holds::Report) => Ok(()),
        (None, Holds::Results) => Err(UsageError::err(format!(
            "{label} {path} already exists and is not an abtest results file; the results \
             would replace it — choose another path{overwrite}"
        ))),
        (Some(status), _) => {
            let resume = match (status.as_str(), output.holds, existing) {
                ("completed", _, _) | (_, Holds::Report, _) | (_, _, Existing::Resumed(_)) => {
                    String::new()
                }
                _ => format!("; to continue it, run abtest --resume {path}"),
            };
            Err(UsageError::err(format!(
                "{label} {path} holds a saved abtest run ({status}); writing there would lose \
                 it — choose another path{overwrite}{resume}"
            )))
        }
    }
}

/// The status of the saved abtest run in `path`, if it holds one.
fn saved_run_status(path: &Path) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Saved {
        #[allow(dead_code)]
        schema_version: u64,
        #[allow(dead_code)]
        plan: serde::de::IgnoredAny,
        status: Option<String>,
    }
    let mut file = std::fs::File::open(path).ok()?;
    let mut first = [0u8; 1];
    while file.read(&mut first).ok()? == 1 && first[0].is_ascii_whitespace() {}
    if first[0] != b'{' {
        return None;
    }
    let file = std::fs::File::open(path).ok()?;
    let saved: Saved = serde_json::from_reader(std::io::BufReader::new(file)).ok()?;
    Some(saved.status.unwrap_or_else(|| "unknown status".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(path: &Path) -> Output<'_> {
        Output {
            flag: "--json",
            path,
            holds: Holds::Results,
        }
    }

    const REFUSE: Existing<'static> = Existing::Kept { overwrite: true };

    fn refused(outputs: &[Output<'_>], inputs: &[Input], existing: Existing<'_>) -> String {
        claim(outputs, inputs, existing).unwrap_err().to_string()
    }

    #[test]
    fn outputs_never_meet_inputs_each_other_or_directories() {
        let dir = tempfile::tempdir().unwrap();
        let profile = dir.path().join("a.toml");
        std::fs::write(&profile, "").unwrap();
        let inputs = vec![Input::new(&profile, "the baseline profile")];
        let why = refused(&[json(&profile)], &inputs, Existing::Replaced);
        assert!(
            why.contains("is an input of the run (the baseline profile"),
            "{why}"
        );
        let why = refused(&[json(dir.path())], &inputs, REFUSE);
        assert!(why.contains("is a directory"), "{why}");
        let same = dir.path().join("out");
        let csv = dir.path().join(".").join("out");
        let both = [json(&same), Output::report("--csv", Some(&csv)).unwrap()];
        let why = refused(&both, &inputs, REFUSE);
        assert!(why.contains("--json and --csv both name"), "{why}");
        let lock = dir.path().join("out.lock");
        let beside = [
            json(&same),
            Output::report("--markdown", Some(&lock)).unwrap(),
        ];
        let why = refused(&beside, &inputs, REFUSE);
        assert!(
            why.contains("is the lock file abtest keeps beside --json"),
            "{why}"
        );
        assert!(claim(&[json(&dir.path().join("r.json"))], &inputs, REFUSE).is_ok());
    }

    #[test]
    fn a_device_is_never_replaced() {
        let why = refused(
            &[Output::report("--csv", Some(Path::new("/dev/null"))).unwrap()],
            &[],
            Existing::Replaced,
        );
        assert!(
            why.contains("--csv /dev/null is a character device, not a regular file"),
            "{why}"
        );
    }

    #[test]
    fn a_saved_run_is_replaced_only_when_asked() {
        let dir = tempfile::tempdir().unwrap();
        let saved = dir.path().join("saved.json");
        std::fs::write(
            &saved,
            r#" {"schema_version": 9, "status": "interrupted", "plan": {}}"#,
        )
        .unwrap();
        let other = dir.path().join("notes.txt");
        std::fs::write(&other, "mine").unwrap();
        let why = refused(&[json(&saved)], &[], REFUSE);
        assert!(
            why.contains("holds a saved abtest run (interrupted)"),
            "{why}"
        );
        assert!(why.contains("give --overwrite"), "{why}");
        assert!(why.contains("abtest --resume"), "{why}");
        let why = refused(&[json(&other)], &[], REFUSE);
        assert!(why.contains("already exists and is not an abtest results file"));
        let report = Output::report("--markdown", Some(&saved)).unwrap();
        let why = refused(std::slice::from_ref(&report), &[], REFUSE);
        assert!(why.contains("--markdown"), "{why}");
        let note = Output::report("--markdown", Some(&other)).unwrap();
        assert!(
            claim(&[note], &[], REFUSE).is_ok(),
            "a report replaces a file"
        );
        assert!(claim(&[json(&saved)], &[], Existing::Replaced).is_ok());
        let resumed = Existing::Resumed(&saved);
        let inputs = [Input::new(&saved, "the run being resumed")];
        assert!(claim(&[json(&saved)], &inputs, resumed).is_ok());
        let why = refused(&[json(&saved), report], &inputs, resumed);
        assert!(why.contains(&format!("--markdown (saved in {})", saved.display())));
    }

    #[test]
    fn an_output_in_use_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json");
        let _held = claim(&[json(&path)], &[], REFUSE).unwrap();
        let why = refused(&[json(&path)], &[], Existing::Replaced);
        assert!(why.contains("is being written by another abtest"), "{why}");
    }

    #[test]
    fn options_that_name_read_files_are_found_in_any_spelling() {
        for name in [
            "init_file",
            "init-file",
            "loose_init_file",
            "init_fi",
            "ssl-key",
        ] {
            assert!(names_a_read_file(name).is_some(), "{name}");
        }
        for name in ["init_connect", "ssl", "innodb_buffer_pool_size", "in"] {
            assert_eq!(names_a_read_file(name), None, "{name}");
        }
    }
}
