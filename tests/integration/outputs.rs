//! Every output is checked against what the command reads and what is on disk, on every
//! path that writes: a run, a resumed run (its outputs come from the saved file), report,
//! analyze, merge, capture, import-sysbench-log. Each refusal is exit 2, names the flag
//! and the path, says why and what to do, and leaves the file as it was.

use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::support::{LONG_RUN, Sandbox, server_lock, text};

const RUN: &str = "tests/fixtures/audit-point-select.json";
const LOG: &str = "tests/fixtures/capture/mariadb-slow.log";
const SYSBENCH_LOG: &str = "tests/fixtures/sysbench-1.0.20-oltp_read_write.log";

/// Runs abtest, expects exit 2 and returns stderr.
fn refused(sandbox: &Sandbox, args: &[&str]) -> String {
    let output = sandbox.run(args);
    let (_, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    stderr
}

fn s(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}

/// An external-server profile (nothing listens on its port): a dry run and the
/// refusals need no server.
fn external(sandbox: &Sandbox, file: &str, extra: &str) -> PathBuf {
    let name = file.trim_end_matches(".toml");
    sandbox.write(
        file,
        &format!(
            "name = \"{name}\"\n[connection]\nhost = \"127.0.0.1\"\nport = 1\nuser = \"sbtest\"\n\
             database = \"sbtest\"\n{extra}"
        ),
    )
}

#[test]
fn files_a_defaults_file_pulls_in_and_files_the_server_reads_are_inputs() {
    let sandbox = Sandbox::new();
    std::fs::create_dir(sandbox.path("conf.d")).unwrap();
    let member = sandbox.write("conf.d/tuning.cnf", "[mysqld]\nmax_connections = 77\n");
    let fragment = sandbox.write("fragment.cnf", "[mysqld]\nmax_connect_errors = 55\n");
    let init_in_file = sandbox.write("from-file.sql", "SELECT 1;\n");
    let init_in_profile = sandbox.write("from-profile.sql", "SELECT 2;\n");
    sandbox.write(
        "my.cnf",
        &format!(
            "[mysqld]\n!include {}\n!includedir {}\ninit_file = {}\n",
            fragment.display(),
            sandbox.path("conf.d").display(),
            init_in_file.display()
        ),
    );
    let profile = sandbox.write(
        "from-cnf.toml",
        &format!(
            "[server]\ndefaults_file = \"my.cnf\"\n[server.options]\ninit-file = \"{}\"\n",
            init_in_profile.display()
        ),
    );
    let ca = sandbox.write("ca.pem", "not checked before the run\n");
    let tls = external(
        &sandbox,
        "tls.toml",
        &format!("tls = \"verify_ca\"\ntls_ca = \"{}\"\n", ca.display()),
    );
    let cases = [
        (&profile, "--json", &fragment, "pulls it in with !include"),
        (&profile, "--csv", &member, "pulls it in with !includedir"),
        (
            &profile,
            "--markdown",
            &init_in_file,
            "server reads it: init_file",
        ),
        (
            &profile,
            "--html",
            &init_in_profile,
            "server reads it: init_file",
        ),
        (&tls, "--junit", &ca, "the baseline profile's tls_ca"),
    ];
    for (profile, flag, file, why) in cases {
        let before = std::fs::read(file).unwrap();
        let stderr = refused(
            &sandbox,
            &[
                "--baseline",
                s(profile),
                "--variant",
                s(profile),
                flag,
                s(file),
                "--dry-run",
            ],
        );
        assert!(
            stderr.contains(&format!("{flag} {} is an input of the run", file.display())),
            "{flag}: {stderr}"
        );
        assert!(stderr.contains(why), "{flag}: {stderr}");
        assert!(stderr.contains("choose another path"), "{flag}: {stderr}");
        assert_eq!(std::fs::read(file).unwrap(), before, "{flag}: untouched");
    }
}

/// A character device like /dev/null (made in the sandbox, never the real one), when
/// this process may make one.
fn character_device(sandbox: &Sandbox) -> Option<PathBuf> {
    let path = sandbox.path("null");
    let name = std::ffi::CString::new(s(&path)).unwrap();
    // SAFETY: mknod with a valid NUL-terminated path; it fails cleanly without root.
    let made = unsafe { libc::mknod(name.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, 3)) };
    (made == 0).then_some(path)
}

/// A named pipe in the sandbox, `pipe`.
fn named_pipe(sandbox: &Sandbox) -> std::path::PathBuf {
    let pipe = sandbox.path("pipe");
    let name = std::ffi::CString::new(s(&pipe)).unwrap();
    // SAFETY: mkfifo with a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
    pipe
}

#[test]
fn a_path_that_is_not_a_regular_file_is_never_written() {
    let sandbox = Sandbox::new();
    let pipe = named_pipe(&sandbox);
    let _socket = std::os::unix::net::UnixListener::bind(sandbox.path("socket")).unwrap();
    let link = sandbox.path("link-to-pipe");
    std::os::unix::fs::symlink(&pipe, &link).unwrap();
    let mut targets = vec![
        (pipe.clone(), "a named pipe"),
        (sandbox.path("socket"), "a socket"),
        (link.clone(), "a symbolic link to a named pipe"),
    ];
    targets.extend(character_device(&sandbox).map(|p| (p, "a character device")));
    let side = external(&sandbox, "side.toml", "");
    let segments: Vec<String> = (1..=3)
        .map(|i| format!("examples/distributed/segment-{i}.json"))
        .collect();
    for (target, what) in &targets {
        let target = s(target);
        let run = ["--baseline", s(&side), "--variant", s(&side), "--dry-run"];
        let mut merge = vec!["merge"];
        merge.extend(segments.iter().map(String::as_str));
        let commands: Vec<(Vec<&str>, &str)> = vec![
            ([&run[..], &["--csv", target]].concat(), "--csv"),
            ([&run[..], &["--json", target]].concat(), "--json"),
            (vec!["report", RUN, "-o", target], "--output"),
            (vec!["report", RUN, "--junit", target], "--junit"),
            (vec!["analyze", RUN, "--junit", target], "--junit"),
            ([&merge[..], &["--json", target]].concat(), "--json"),
            ([&merge[..], &["--markdown", target]].concat(), "--markdown"),
            (vec!["capture", LOG, "-o", target], "--output"),
            (
                vec![
                    "import-sysbench-log",
                    "--baseline",
                    SYSBENCH_LOG,
                    "--variant",
                    SYSBENCH_LOG,
                    "-o",
                    target,
                ],
                "--output",
            ),
        ];
        for (args, flag) in commands {
            let stderr = refused(&sandbox, &args);
            assert!(
                stderr.contains(&format!("{flag} {target} is {what}, not a regular file")),
                "{args:?}: {stderr}"
            );
            assert!(stderr.contains("name a regular file"), "{args:?}: {stderr}");
        }
    }
    assert!(
        std::fs::symlink_metadata(&pipe)
            .unwrap()
            .file_type()
            .is_fifo()
    );
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    for (target, _) in &targets {
        assert!(
            !std::fs::metadata(target).unwrap().is_file(),
            "{} is still what it was",
            target.display()
        );
    }
}

#[test]
fn a_saved_run_is_replaced_only_with_overwrite() {
    let sandbox = Sandbox::new();
    let saved = sandbox.write("saved.json", &std::fs::read_to_string(RUN).unwrap());
    let notes = sandbox.write("notes.txt", "the DBA's own notes\n");
    let before = std::fs::read(&saved).unwrap();
    let side = external(&sandbox, "side.toml", "");
    let run = ["--baseline", s(&side), "--variant", s(&side), "--dry-run"];
    let mut merge = vec!["merge".to_string()];
    merge.extend((1..=3).map(|i| format!("examples/distributed/segment-{i}.json")));
    let merge: Vec<&str> = merge.iter().map(String::as_str).collect();
    let saved_run = format!(
        "{} holds a saved abtest run (completed); writing there would lose it",
        saved.display()
    );
    for (args, needle, fix) in [
        (
            [&run[..], &["--json", s(&saved)]].concat(),
            format!("--json {saved_run}"),
            "or give --overwrite to replace it",
        ),
        (
            [&run[..], &["--markdown", s(&saved)]].concat(),
            format!("--markdown {saved_run}"),
            "or give --overwrite to replace it",
        ),
        (
            [&run[..], &["--json", s(&notes)]].concat(),
            format!(
                "--json {} already exists and is not an abtest results file",
                notes.display()
            ),
            "or give --overwrite to replace it",
        ),
        (
            [&merge[..], &["--json", s(&saved)]].concat(),
            format!("--json {saved_run}"),
            "or give --overwrite to replace it",
        ),
        (
            vec!["report", RUN, "-o", s(&saved)],
            format!("--output {saved_run}"),
            "or give --overwrite to replace it",
        ),
        (
            vec!["capture", LOG, "-o", s(&saved)],
            format!("--output {saved_run}"),
            "or move the file away first",
        ),
    ] {
        let stderr = refused(&sandbox, &args);
        assert!(stderr.contains(&needle), "{args:?}: {stderr}");
        assert!(stderr.contains(fix), "{args:?}: {stderr}");
    }
    assert_eq!(
        std::fs::read(&saved).unwrap(),
        before,
        "the saved run is intact"
    );
    assert_eq!(
        std::fs::read_to_string(&notes).unwrap(),
        "the DBA's own notes\n"
    );
    // A report replaces an earlier report, and --overwrite replaces a saved run.
    let output = sandbox.run(&[&run[..], &["--markdown", s(&notes)]].concat());
    assert_eq!(output.status.code(), Some(0), "{}", text(&output).1);
    let output = sandbox.run(&[&run[..], &["--json", s(&saved), "--overwrite"]].concat());
    assert_eq!(output.status.code(), Some(0), "{}", text(&output).1);
    let output = sandbox.run(&[
        "report",
        RUN,
        "-o",
        s(&saved),
        "--overwrite",
        "--no-verdict-exit",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output).1);
    assert_ne!(
        std::fs::read(&saved).unwrap(),
        before,
        "replaced by the report"
    );
    let output = sandbox.run(&[&merge[..], &["--json", s(&notes), "--overwrite"]].concat());
    assert_ne!(output.status.code(), Some(2), "{}", text(&output).1);
    assert!(
        std::fs::read_to_string(&notes)
            .unwrap()
            .contains("schema_version")
    );
}

/// A saved run of external sides whose profiles are in the sandbox, marked interrupted,
/// with `outputs` as its saved plan's outputs (the results file itself is `--json`).
fn interrupted_run(sandbox: &Sandbox, outputs: serde_json::Value) -> (PathBuf, [PathBuf; 2]) {
    let text = std::fs::read_to_string("examples/server-comparison/results.json").unwrap();
    let mut run: serde_json::Value = serde_json::from_str(&text).unwrap();
    let profiles = [
        external(sandbox, "offer A.toml", ""),
        external(sandbox, "offer B.toml", ""),
    ];
    for (side, profile) in run["plan"]["sides"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .zip(&profiles)
    {
        side["profile"] = s(profile).into();
        side["target"]["endpoint"]["tcp"]["port"] = 1.into();
    }
    run["status"] = "interrupted".into();
    let file = sandbox.path("interrupted.json");
    run["plan"]["outputs"] = outputs;
    run["plan"]["outputs"]["json"] = s(&file).into();
    std::fs::write(&file, run.to_string()).unwrap();
    (file, profiles)
}

#[test]
fn a_resumed_run_checks_its_saved_outputs_as_if_typed() {
    let sandbox = Sandbox::new();
    let pipe = named_pipe(&sandbox);
    let baseline = sandbox.path("offer A.toml");
    let resumed = sandbox.path("interrupted.json");
    for (outputs, needle) in [
        (
            serde_json::json!({ "markdown": s(&baseline) }),
            format!(
                "--markdown (saved in {}) {} is an input of the run (the baseline profile",
                resumed.display(),
                baseline.display()
            ),
        ),
        (
            serde_json::json!({ "html": s(&resumed) }),
            format!(
                "--json and --html (saved in {0}) both name {0}",
                resumed.display()
            ),
        ),
        (
            serde_json::json!({ "csv": s(&pipe) }),
            format!("{} is a named pipe, not a regular file", pipe.display()),
        ),
    ] {
        let (file, profiles) = interrupted_run(&sandbox, outputs);
        let before = std::fs::read(&file).unwrap();
        let profile = std::fs::read(&profiles[0]).unwrap();
        // Not a dry run: the refusal comes before anything is connected or written.
        let stderr = refused(&sandbox, &["--resume", s(&file)]);
        assert!(stderr.contains(&needle), "{stderr}");
        assert_eq!(std::fs::read(&file).unwrap(), before, "{stderr}");
        assert_eq!(std::fs::read(&profiles[0]).unwrap(), profile, "{stderr}");
    }
    assert!(
        std::fs::symlink_metadata(&pipe)
            .unwrap()
            .file_type()
            .is_fifo()
    );
    // Saved outputs that are fine pass, and the run is resumed (up to the closed port).
    let (file, _) = interrupted_run(
        &sandbox,
        serde_json::json!({ "markdown": s(&sandbox.path("report.md")) }),
    );
    let output = sandbox.run(&["--resume", s(&file), "--dry-run"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output).1);
}

#[test]
fn a_results_file_being_written_is_refused_to_every_other_run() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let profile = sandbox.write(
        "managed.toml",
        &std::fs::read_to_string("profiles/mariadb.toml").unwrap(),
    );
    let sides = ["--baseline", s(&profile), "--variant", s(&profile)];
    let mut running = sandbox.spawn(&[&sides[..], LONG_RUN].concat());
    running.wait_rounds(1, Duration::from_secs(60));
    let json = running.json.clone();
    let pid = running.child.id();
    let side = external(&sandbox, "side.toml", "");
    let writing = format!(
        "--json {} is being written by another abtest (process {pid})",
        json.display()
    );
    let other = [
        "--baseline",
        s(&side),
        "--variant",
        s(&side),
        "--json",
        s(&json),
    ];
    let stderr = refused(
        &sandbox,
        &[&other[..], &["--overwrite", "--dry-run"]].concat(),
    );
    assert!(stderr.contains(&writing), "{stderr}");
    assert!(stderr.contains("wait for it to finish"), "{stderr}");
    let stderr = refused(&sandbox, &["--resume", s(&json)]);
    assert!(
        stderr.contains("is being written by another abtest") || stderr.contains("running"),
        "{stderr}"
    );
    // Reading it is fine: a report of the run so far.
    let output = sandbox.run(&["report", s(&json), "--no-verdict-exit"]);
    assert!(
        !text(&output).1.contains("being written"),
        "{}",
        text(&output).1
    );
    running.signal(libc::SIGINT);
    running.expect_exit(130, Duration::from_secs(60));
    assert!(
        !sandbox.path("running.json.lock").exists(),
        "the lock file goes with the run"
    );
    // Once it is over, the file is a saved run: kept unless --overwrite, resumable.
    let stderr = refused(&sandbox, &[&other[..], &["--dry-run"]].concat());
    assert!(
        stderr.contains("holds a saved abtest run (interrupted)"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "to continue it, run abtest --resume {}",
            json.display()
        )),
        "{stderr}"
    );
    let output = sandbox.run(&[&other[..], &["--dry-run", "--overwrite"]].concat());
    assert_eq!(output.status.code(), Some(0), "{}", text(&output).1);
    // Its saved outputs edited to name its profile: the resume is refused, nothing
    // written (it used to finish the run and write the report over the profile).
    let mut saved = running.results();
    saved["plan"]["outputs"]["markdown"] = s(&profile).into();
    std::fs::write(&json, serde_json::to_string_pretty(&saved).unwrap()).unwrap();
    let (before, profile_before) = (
        std::fs::read(&json).unwrap(),
        std::fs::read(&profile).unwrap(),
    );
    let stderr = refused(&sandbox, &["--resume", s(&json)]);
    assert!(
        stderr.contains(&format!(
            "--markdown (saved in {}) {} is an input of the run (the baseline profile",
            json.display(),
            profile.display()
        )),
        "{stderr}"
    );
    assert_eq!(std::fs::read(&json).unwrap(), before);
    assert_eq!(std::fs::read(&profile).unwrap(), profile_before);
    sandbox.assert_nothing_left();
}

#[test]
fn a_lock_held_by_any_process_is_respected() {
    let sandbox = Sandbox::new();
    let json = sandbox.path("r.json");
    let lock = std::fs::File::create(sandbox.path("r.json.lock")).unwrap();
    lock.try_lock().unwrap();
    let side = external(&sandbox, "side.toml", "");
    let stderr = refused(
        &sandbox,
        &[
            "--baseline",
            s(&side),
            "--variant",
            s(&side),
            "--json",
            s(&json),
            "--dry-run",
        ],
    );
    assert!(
        stderr.contains("is being written by another abtest"),
        "{stderr}"
    );
    drop(lock);
    let output = sandbox.run(&[
        "--baseline",
        s(&side),
        "--variant",
        s(&side),
        "--json",
        s(&json),
        "--dry-run",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output).1);
}

/// Stdout carries one thing: a run's, a merge's and `analyze`'s table, or the report of
/// `report`. A second report there, or a results file, is refused before anything is
/// written; one report is allowed where stdout is free.
#[test]
fn stdout_carries_one_output_and_never_a_results_file() {
    let sandbox = Sandbox::new();
    let run = crate::support::repo().join(RUN);
    let run = s(&run);
    let stderr = refused(&sandbox, &["report", run, "--markdown", "-"]);
    assert!(
        stderr.contains("--markdown -: stdout already carries"),
        "{stderr}"
    );
    let ticket = sandbox.path("ticket.txt");
    let stderr = refused(
        &sandbox,
        &[
            "report",
            run,
            "-o",
            s(&ticket),
            "--markdown",
            "-",
            "--html",
            "-",
        ],
    );
    assert!(stderr.contains("--html -"), "{stderr}");
    assert!(!ticket.exists(), "nothing is written before the refusal");
    let stderr = refused(&sandbox, &["report", run, "-o", s(&ticket), "--json", "-"]);
    assert!(
        stderr.contains("a results file is always a file"),
        "{stderr}"
    );
    let a = external(&sandbox, "a.toml", "");
    let b = external(&sandbox, "b.toml", "");
    let stderr = refused(
        &sandbox,
        &[
            "--baseline",
            s(&a),
            "--variant",
            s(&b),
            "--csv",
            "-",
            "--dry-run",
        ],
    );
    assert!(
        stderr.contains("--csv -: stdout already carries"),
        "{stderr}"
    );
    let output = sandbox.run(&["report", run, "-o", s(&ticket), "--markdown", "-"]);
    let (stdout, stderr) = text(&output);
    assert_eq!(
        output.status.code(),
        Some(3),
        "the verdict's exit: {stderr}"
    );
    assert!(stdout.starts_with("# abtest:"), "{stdout}");
    assert!(ticket.exists());
}

/// A CSV of rounds has no results file and no rounds to write again: `analyze` refuses
/// the outputs that need them before it writes any.
#[test]
fn analyze_of_a_csv_refuses_the_outputs_of_a_saved_run_before_writing() {
    let sandbox = Sandbox::new();
    let csv = crate::support::repo().join("tests/fixtures/sysbench-rounds.csv");
    let (md, rounds) = (sandbox.path("r.md"), sandbox.path("rounds.csv"));
    for (flag, path) in [("--csv", &rounds), ("--json", &sandbox.path("r.json"))] {
        let stderr = refused(
            &sandbox,
            &["analyze", s(&csv), "--markdown", s(&md), flag, s(path)],
        );
        assert!(
            stderr.contains(&format!("{flag} writes a saved run's")),
            "{stderr}"
        );
        assert!(!md.exists() && !path.exists(), "{flag}: nothing written");
    }
    let stderr = refused(&sandbox, &["analyze", s(&csv), "--format", "csv"]);
    assert!(
        stderr.contains("--format csv writes a saved run's"),
        "{stderr}"
    );
}
