//! Faults abtest must survive, on real managed servers: Ctrl-C and SIGTERM, a server
//! killed or stalled mid-round, connections killed by the server, an unwritable output.

use std::collections::BTreeMap;
use std::time::Duration;

use mysql::prelude::Queryable;

use crate::support::{self, LONG_RUN, Sandbox, server_lock, server_pid, start_server, text};

#[test]
fn ctrl_c_keeps_finished_rounds_runs_teardown_and_stops_servers() {
    let _lock = server_lock();
    let external = start_server(&BTreeMap::new(), 8);
    let original: Option<u64> = external
        .admin()
        .unwrap()
        .query_first("SELECT @@global.max_prepared_stmt_count")
        .unwrap();
    let sandbox = Sandbox::new();
    let variant = sandbox.write(
        "external.toml",
        &format!(
            "[connection]\nsocket = \"{}\"\nuser = \"root\"\ndatabase = \"sbtest\"\n[hooks]\n\
             setup = [\"SET GLOBAL max_connect_errors = 4242, max_prepared_stmt_count = 54321\", \"/* c */ SET\\tGLOBAL long_query_time := 4\"]\n\
             teardown = [\"SET GLOBAL max_connect_errors = 100\"]\n",
            external.socket().display()
        ),
    );
    let mut args = vec![
        "--baseline",
        "profiles/mariadb.toml",
        "--variant",
        variant.to_str().unwrap(),
    ];
    args.extend(LONG_RUN);
    let mut running = sandbox.spawn(&args);
    running.wait_rounds(2, Duration::from_secs(60));
    let setting: Option<u64> = external
        .admin()
        .unwrap()
        .query_first("SELECT @@global.max_connect_errors")
        .unwrap();
    assert_eq!(setting, Some(4242), "the setup hook ran");
    std::thread::sleep(Duration::from_millis(700));
    running.signal(libc::SIGINT);
    running.expect_exit(130, Duration::from_secs(60));
    let results = running.results();
    assert_eq!(results["status"], "interrupted");
    // An interrupted run gives no verdict, and says what is missing.
    assert!(results["verdict"].is_null(), "{}", results["verdict"]);
    assert!(
        results["partial"]
            .as_str()
            .is_some_and(|p| p.contains("the run was interrupted")),
        "{}",
        results["partial"]
    );
    let rounds = results["rounds"].as_array().unwrap();
    assert!(rounds.iter().filter(|r| r["status"] == "completed").count() >= 2);
    assert_eq!(
        rounds.last().unwrap()["status"],
        "interrupted",
        "the partial round is marked"
    );
    let setting: Option<u64> = external
        .admin()
        .unwrap()
        .query_first("SELECT @@global.max_connect_errors")
        .unwrap();
    assert_eq!(setting, Some(100), "the teardown hook ran on Ctrl-C");
    let restored: Option<u64> = external
        .admin()
        .unwrap()
        .query_first("SELECT @@global.max_prepared_stmt_count")
        .unwrap();
    assert_eq!(
        restored, original,
        "a variable set by a hook and not torn down is restored"
    );
    assert!(
        running.stderr().contains(&format!(
            "restored max_prepared_stmt_count from 54321 to {}",
            original.unwrap()
        )),
        "{}",
        running.stderr()
    );
    // The second variable of a list, and a commented, tab-separated `:=`, come back too.
    let long_query_time: Option<f64> = external
        .admin()
        .unwrap()
        .query_first("SELECT @@global.long_query_time")
        .unwrap();
    assert_eq!(long_query_time, Some(10.0), "{}", running.stderr());
}

#[test]
fn every_global_a_hook_sets_is_back_after_a_normal_end() {
    let _lock = server_lock();
    let external = start_server(&BTreeMap::new(), 8);
    let sandbox = Sandbox::new();
    let variant = external.socket_profile(
        &sandbox,
        "external.toml",
        "[hooks]\nsetup = [\"SET GLOBAL max_connect_errors = 77, sql_mode = \
         'ANSI_QUOTES,NO_ENGINE_SUBSTITUTION'\", \"SET @@GLOBAL.max_prepared_stmt_count = 12345\"]\n",
    );
    let admin = || external.admin().unwrap();
    let before: (u64, String, u64) = admin()
        .query_first(
            "SELECT @@global.max_connect_errors, @@global.sql_mode, @@global.max_prepared_stmt_count",
        )
        .unwrap()
        .unwrap();
    let mut args = vec!["--baseline", "profiles/mariadb.toml", "--variant", &variant];
    args.extend(crate::support::SHORT_POINT_SELECTS);
    args.extend(crate::support::QUICK);
    let output = sandbox.run(&args);
    let (_, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let after: (u64, String, u64) = admin()
        .query_first(
            "SELECT @@global.max_connect_errors, @@global.sql_mode, @@global.max_prepared_stmt_count",
        )
        .unwrap()
        .unwrap();
    assert_eq!(after, before, "{stderr}");
    // A hook abtest could not put back is refused before anything starts.
    let persist = external.socket_profile(
        &sandbox,
        "persist.toml",
        "[hooks]\nsetup = [\"SET PERSIST max_connections = 10\"]\n",
    );
    let output = sandbox.run(&[
        "--baseline",
        "profiles/mariadb.toml",
        "--variant",
        &persist,
        "--dry-run",
    ]);
    let (_, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("persist.toml:6") && stderr.contains("SET PERSIST"),
        "{stderr}"
    );
}

#[test]
fn second_ctrl_c_exits_at_once_without_orphans() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let mut running = sandbox.long_aa_run(&[], &[]);
    running.signal(libc::SIGINT);
    running.wait_output("abtest: SIGINT (Ctrl-C) received", Duration::from_secs(10));
    running.signal(libc::SIGINT);
    // The message proves the forced path ran; the bound only guards against a hang.
    running.expect_exit(130, Duration::from_secs(30));
    assert!(
        running
            .stderr()
            .contains("second interrupt (SIGINT (Ctrl-C)), stopping servers and exiting now"),
        "{}",
        running.stderr()
    );
    std::thread::sleep(Duration::from_millis(500));
}

#[test]
fn every_ending_signal_is_handled_like_ctrl_c() {
    let _lock = server_lock();
    for (signal, name) in [
        (libc::SIGTERM, "SIGTERM"),
        (libc::SIGQUIT, "SIGQUIT"),
        (libc::SIGALRM, "SIGALRM"),
    ] {
        let sandbox = Sandbox::new();
        let mut running = sandbox.long_aa_run(&[], &[]);
        running.signal(signal);
        running.expect_exit(130, Duration::from_secs(60));
        let results = running.results();
        assert_eq!(results["status"], "interrupted", "{name}");
        assert!(
            results["error"]
                .as_str()
                .is_some_and(|e| e.starts_with(&format!("{name} received"))),
            "{name}: {}",
            results["error"]
        );
        let completed = results["rounds"].as_array().unwrap();
        assert!(
            completed.iter().any(|r| r["status"] == "completed"),
            "{name}"
        );
        assert!(
            support::processes_mentioning(&sandbox.path("tmp")).is_empty(),
            "{name}: a managed server outlived abtest"
        );
    }
}

/// A signal during a long data load stops the load, not only the rounds after it.
#[test]
fn a_signal_during_the_data_load_stops_it() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let mut running = sandbox.spawn_aa(&[
        "--workload",
        "oltp_read_write",
        "--table-size",
        "5000000",
        "--rounds",
        "2",
        "--round-time",
        "1s",
    ]);
    running.wait_output("both sides", Duration::from_secs(60));
    std::thread::sleep(Duration::from_secs(3));
    running.signal(libc::SIGUSR1);
    running.expect_exit(130, Duration::from_secs(60));
    let results = running.results();
    assert_eq!(results["status"], "interrupted");
    let error = results["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("preparing data") && error.contains("SIGUSR1 received"),
        "{error}"
    );
    assert!(support::processes_mentioning(&sandbox.path("tmp")).is_empty());
}

/// `abtest … 2>&1 | head -1`: the reader goes away after one line. abtest used to panic
/// at its next line and leave the results file `running` with no round in it.
#[test]
fn a_closed_stderr_ends_the_run_cleanly_with_its_rounds_saved() {
    use std::io::BufRead;
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let json = sandbox.path("closed.json");
    let mut child = sandbox
        .abtest()
        .args(support::AA_PROFILES)
        .args(LONG_RUN)
        .arg("--json")
        .arg(&json)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Read up to the first round's line, then close the pipe (`| sed '/round 1/q'`).
    let mut reader = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut seen = String::new();
    while !seen.contains("round 1/6:") {
        let mut line = String::new();
        assert!(reader.read_line(&mut line).unwrap() > 0, "{seen}");
        seen += &line;
    }
    drop(reader);
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "no panic (101), an orderly stop");
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(results["status"], "interrupted");
    assert!(
        results["error"]
            .as_str()
            .is_some_and(|e| e.contains("standard error was closed")),
        "{}",
        results["error"]
    );
    assert!(
        results["rounds"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["status"] == "completed"),
        "the finished round is kept"
    );
    assert!(support::processes_mentioning(&sandbox.path("tmp")).is_empty());
}

#[test]
fn a_killed_server_fails_the_round_naming_the_side() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let mut running = sandbox.long_aa_run(&[], &[]);
    std::thread::sleep(Duration::from_millis(500));
    // SAFETY: kill(2) on the server the test's abtest started.
    unsafe { libc::kill(server_pid(&sandbox, "variant"), libc::SIGKILL) };
    running.expect_exit(1, Duration::from_secs(60));
    let output = running.stderr();
    assert!(
        output.contains("variant side, 2 threads, round 1"),
        "{output}"
    );
    let results = running.results();
    assert_eq!(results["status"], "failed");
    let rounds = results["rounds"].as_array().unwrap();
    assert_eq!(
        rounds[0]["status"], "completed",
        "the finished round is kept"
    );
    let failed = rounds.last().unwrap();
    assert_eq!(failed["status"], "failed");
    assert!(
        failed["reason"].as_str().unwrap().contains("connection"),
        "{failed}"
    );
}

#[test]
fn a_stalled_server_turns_into_counted_errors_not_a_hang() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let mut running = sandbox.long_aa_run(&["--query-timeout", "1s"], &[]);
    std::thread::sleep(Duration::from_millis(300));
    let pid = server_pid(&sandbox, "variant");
    // SAFETY: kill(2) on the server the test's abtest started.
    unsafe { libc::kill(pid, libc::SIGSTOP) };
    let code = running.wait_exit(Duration::from_secs(90));
    // SAFETY: as above; lets a server that is somehow still there stop.
    unsafe { libc::kill(pid, libc::SIGCONT) };
    assert_eq!(code, Some(1), "{}", running.stderr());
    let results = running.results();
    let failed = results["rounds"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(failed["status"], "failed", "{failed}");
    assert!(
        failed["errors"]["2013"].as_u64().unwrap_or(0) >= 1,
        "timeouts are counted as 2013: {failed}"
    );
    assert!(
        failed["duration_s"].as_f64().unwrap() < 10.0,
        "the 2 s round ended, it did not hang: {failed}"
    );
}

#[test]
fn connections_killed_by_the_server_are_reopened_and_counted() {
    let _lock = server_lock();
    let server = start_server(&BTreeMap::new(), 8);
    server.add_user("bench", "localhost", None);
    let mut admin = server.admin().unwrap();
    let sandbox = Sandbox::new();
    let profile = sandbox.write(
        "bench.toml",
        &format!(
            "[connection]\nsocket = \"{}\"\nuser = \"bench\"\ndatabase = \"sbtest\"\n",
            server.socket().display()
        ),
    );
    let profile = profile.to_str().unwrap();
    let args = [
        "--baseline",
        profile,
        "--variant",
        profile,
        "--workload",
        "oltp_point_select",
        "--threads",
        "2",
        "--rounds",
        "2",
        "--round-time",
        "3s",
        "--warmup",
        "0s",
        "--table-size",
        "1000",
    ];
    let mut running = sandbox.spawn(&args);
    std::thread::sleep(Duration::from_secs(1));
    let mut killed = 0;
    for _ in 0..40 {
        let ids: Vec<u64> = admin
            .query("SELECT ID FROM information_schema.PROCESSLIST WHERE USER = 'bench'")
            .unwrap();
        for id in ids {
            killed += usize::from(admin.query_drop(format!("KILL {id}")).is_ok());
        }
        if let Ok(Some(_)) = running.child.try_wait() {
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    running.expect_exit(0, Duration::from_secs(60));
    assert!(killed > 0);
    let results = running.results();
    let reconnects: u64 = results["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["reconnects"].as_u64().unwrap())
        .sum();
    assert!(reconnects > 0, "{results}");
    assert!(
        results["rounds"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["status"] == "completed")
    );
    drop(server);
}

#[test]
fn an_unwritable_output_is_refused_before_anything_starts() {
    let sandbox = Sandbox::new();
    for flag in ["--json", "--markdown", "--html", "--csv"] {
        let output = sandbox.run(&[
            "--baseline",
            "profiles/mariadb.toml",
            "--variant",
            "profiles/mariadb.toml",
            flag,
            "/nonexistent/dir/out",
        ]);
        let (_, stderr) = text(&output);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains("cannot write /nonexistent/dir/out"),
            "{stderr}"
        );
        sandbox.assert_nothing_left();
    }
}

#[test]
fn resume_continues_from_the_next_round_and_refuses_a_changed_plan() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let profile = sandbox.write(
        "side.toml",
        "[server]\n[server.options]\ninnodb_buffer_pool_size = \"128M\"\n",
    );
    let profile = profile.to_str().unwrap();
    let mut args = vec!["--baseline", profile, "--variant", profile];
    args.extend(LONG_RUN);
    args.extend(["--seed", "9"]);
    let mut running = sandbox.spawn(&args);
    running.wait_rounds(2, Duration::from_secs(60));
    running.signal(libc::SIGINT);
    running.expect_exit(130, Duration::from_secs(60));
    let json = running.json.to_str().unwrap().to_string();
    let before = running.results()["rounds"].as_array().unwrap().len();
    assert!(before >= 2);

    // A changed profile: refused, and the results file is untouched.
    std::fs::write(
        profile,
        "[server]\n[server.options]\ninnodb_buffer_pool_size = \"256M\"\n",
    )
    .unwrap();
    let output = sandbox.run(&["--resume", &json]);
    let (_, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "the plan changed since the run started (sides: baseline profile {profile}, variant profile {profile})"
        )),
        "{stderr}"
    );
    assert_eq!(
        running.results()["rounds"].as_array().unwrap().len(),
        before
    );

    std::fs::write(
        profile,
        "[server]\n[server.options]\ninnodb_buffer_pool_size = \"128M\"\n",
    )
    .unwrap();
    let output = sandbox.run(&["--resume", &json]);
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stdout}{stderr}");
    let results = running.results();
    assert_eq!(results["status"], "completed");
    let mut positions: Vec<u64> = results["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["position"].as_u64().unwrap())
        .collect();
    positions.sort_unstable();
    assert_eq!(
        positions,
        (0..12).collect::<Vec<u64>>(),
        "every round exactly once"
    );
    assert!(
        results["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w.as_str().unwrap().contains("resumed at"))
    );
}

#[test]
fn on_server_loss_retry_restarts_the_server_and_reruns_the_round() {
    retry_after_the_server_is_lost("separate", "variant");
}

#[test]
fn on_server_loss_retry_restarts_a_shared_server_for_both_sides() {
    // The one server's directory is named for the baseline, whose launch started it.
    retry_after_the_server_is_lost("shared", "baseline");
}

/// Kills the server the variant's first round runs on (`servers`: the arrangement,
/// `dir`: the side its directory is named for); the round runs again on a new one.
fn retry_after_the_server_is_lost(servers: &str, dir: &str) {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let args = [
        "--servers",
        servers,
        "--on-server-loss",
        "retry",
        "--workload",
        "oltp_point_select",
        "--threads",
        "2",
        "--rounds",
        "2",
        "--round-time",
        "2s",
        "--warmup",
        "0s",
        "--table-size",
        "1000",
    ];
    let mut running = sandbox.spawn_aa(&args);
    running.wait_rounds(1, Duration::from_secs(60));
    std::thread::sleep(Duration::from_millis(500));
    // SAFETY: kill(2) on the server the test's abtest started.
    unsafe { libc::kill(server_pid(&sandbox, dir), libc::SIGKILL) };
    running.expect_exit(0, Duration::from_secs(90));
    let results = running.results();
    assert_eq!(results["status"], "completed");
    let rounds = results["rounds"].as_array().unwrap();
    let failed: Vec<&serde_json::Value> =
        rounds.iter().filter(|r| r["status"] == "failed").collect();
    assert_eq!(failed.len(), 1, "the lost round is kept, marked failed");
    let position = &failed[0]["position"];
    assert!(
        rounds
            .iter()
            .any(|r| r["position"] == *position && r["status"] == "completed"),
        "and run again"
    );
    assert_eq!(
        rounds.iter().filter(|r| r["status"] == "completed").count(),
        4
    );
    let warnings = results["warnings"].to_string();
    assert!(
        warnings.contains("variant server lost in round 1") && warnings.contains("restarted"),
        "{warnings}"
    );
    assert_eq!(results["servers"]["shared"], servers == "shared");
}

/// A small tmpfs, unmounted when dropped.
struct SmallDisk(std::path::PathBuf);

impl SmallDisk {
    fn mount(path: std::path::PathBuf, size: &str) -> SmallDisk {
        std::fs::create_dir_all(&path).unwrap();
        let status = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(&path)
            .status()
            .unwrap();
        assert!(status.success(), "mounting a tmpfs needs root");
        SmallDisk(path)
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
    }
}

#[test]
fn a_full_disk_keeps_the_previous_results_file_intact() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let disk = SmallDisk::mount(sandbox.path("disk"), "80k");
    let json = disk.0.join("results.json");
    let output = sandbox.run(&[
        "--baseline",
        "profiles/mariadb.toml",
        "--variant",
        "profiles/mariadb-audit.toml",
        "--workload",
        "oltp_point_select",
        "--threads",
        "2",
        "--rounds",
        "3",
        "--round-time",
        "500ms",
        "--warmup",
        "0s",
        "--table-size",
        "1000",
        "--json",
        json.to_str().unwrap(),
    ]);
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(1), "{stdout}{stderr}");
    assert!(stderr.contains("No space left on device"), "{stderr}");
    let saved: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap())
        .expect("the previous results file is still whole");
    assert!(saved["rounds"].as_array().unwrap().len() < 6, "{saved}");
    let leftovers: Vec<_> = std::fs::read_dir(&disk.0)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(
        leftovers.len(),
        1,
        "no temporary file left beside it: {leftovers:?}"
    );
    drop(disk);
}

/// The state letter of process `pid` in /proc (R, S, T for stopped, ...).
fn process_state(pid: i32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit_once(')')?.1.trim_start().chars().next()
}

#[test]
fn freeze_idle_stops_the_idle_server_and_always_lets_it_go() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let mut running = sandbox.long_aa_run(&["--freeze-idle", "on"], &[]);
    let pids = [
        server_pid(&sandbox, "baseline"),
        server_pid(&sandbox, "variant"),
    ];
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let mut seen_stopped = [false; 2];
    while std::time::Instant::now() < deadline && seen_stopped != [true; 2] {
        for (seen, pid) in seen_stopped.iter_mut().zip(pids) {
            *seen |= process_state(pid) == Some('T');
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(
        seen_stopped, [true; 2],
        "each side's server is stopped while the other runs"
    );
    // Ctrl-C mid-round: the frozen server is let go, and both stop cleanly.
    running.signal(libc::SIGINT);
    running.expect_exit(130, Duration::from_secs(60));
    assert!(
        pids.iter().all(|&pid| process_state(pid).is_none()),
        "servers gone"
    );
}

#[test]
fn one_server_two_settings_through_hooks() {
    let _lock = server_lock();
    let server = start_server(&BTreeMap::new(), 8);
    let mut admin = server.admin().unwrap();
    let original: Option<u32> = admin
        .query_first("SELECT @@GLOBAL.innodb_flush_log_at_trx_commit")
        .unwrap();
    admin.query_drop("CREATE DATABASE seen").unwrap();
    admin
        .query_drop("CREATE TABLE seen.rounds (side VARCHAR(10), value INT)")
        .unwrap();
    let sandbox = Sandbox::new();
    let profile = |side: &str, value: u32| {
        server.socket_profile(
            &sandbox,
            &format!("{side}.toml"),
            &format!(
                "[hooks]\nbefore_round = [\"SET GLOBAL innodb_flush_log_at_trx_commit = {value}\"]\n\
                 after_round = [\"INSERT INTO seen.rounds SELECT '{side}', @@GLOBAL.innodb_flush_log_at_trx_commit\"]\n"
            ),
        )
    };
    // The last round is the baseline's (ABBA), so a value left at 0 would show that
    // nothing was restored.
    let (baseline, variant) = (profile("baseline", 0), profile("variant", 2));
    let finished = sandbox.run_json(&[
        "--baseline",
        &baseline,
        "--variant",
        &variant,
        "--workload",
        "oltp_write_only",
        "--threads",
        "2",
        "--rounds",
        "2",
        "--round-time",
        "1s",
        "--warmup",
        "0s",
        "--table-size",
        "1000",
    ]);
    assert_eq!(finished.code, Some(0), "{}", finished.output);
    assert_eq!(
        finished.results["plan"]["client"]["connections"],
        "per_round"
    );
    let seen: Vec<(String, u32)> = admin
        .query("SELECT side, value FROM seen.rounds ORDER BY side")
        .unwrap();
    assert_eq!(
        seen,
        [
            ("baseline".to_string(), 0),
            ("baseline".to_string(), 0),
            ("variant".to_string(), 2),
            ("variant".to_string(), 2)
        ]
    );
    let after: Option<u32> = admin
        .query_first("SELECT @@GLOBAL.innodb_flush_log_at_trx_commit")
        .unwrap();
    assert_eq!(after, original, "the setting is restored when the run ends");
    drop(admin);
    drop(server);
}

#[test]
fn swap_moves_each_sides_settings_to_the_other_server_halfway() {
    let _lock = server_lock();
    let servers = [(); 2].map(|_| start_server(&BTreeMap::new(), 8));
    let mut originals = Vec::new();
    for server in &servers {
        let mut admin = server.admin().unwrap();
        admin.query_drop("CREATE DATABASE seen").unwrap();
        admin
            .query_drop("CREATE TABLE seen.rounds (side VARCHAR(10), errors INT)")
            .unwrap();
        let value: Option<u32> = admin
            .query_first("SELECT @@GLOBAL.max_connect_errors")
            .unwrap();
        originals.push(value);
    }
    let sandbox = Sandbox::new();
    // The variant's setting is a SET GLOBAL in its setup hook; every round notes on its
    // server which side ran and what the setting was.
    let note = |side: &str| {
        format!(
            "after_round = [\"INSERT INTO seen.rounds SELECT '{side}', @@GLOBAL.max_connect_errors\"]\n"
        )
    };
    let baseline = servers[0].socket_profile(
        &sandbox,
        "baseline.toml",
        &format!("[hooks]\n{}", note("baseline")),
    );
    let variant = servers[1].socket_profile(
        &sandbox,
        "variant.toml",
        &format!(
            "[hooks]\nsetup = [\"SET GLOBAL max_connect_errors = 4321\"]\n{}",
            note("variant")
        ),
    );
    let finished = sandbox.run_json(&[
        "--baseline",
        &baseline,
        "--variant",
        &variant,
        "--swap",
        "--workload",
        "oltp_point_select",
        "--threads",
        "2",
        "--rounds",
        "4",
        "--round-time",
        "1s",
        "--warmup",
        "0s",
        "--table-size",
        "1000",
    ]);
    assert_eq!(finished.code, Some(0), "{}", finished.output);
    crate::support::assert_valid_results(&finished.results);
    let swapped: Vec<bool> = finished.results["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["swapped"].as_bool().unwrap_or(false))
        .collect();
    assert_eq!(
        swapped,
        [false, false, false, false, true, true, true, true]
    );
    assert!(finished.results["noise"]["server_effect_pct"].is_number());
    // Each server ran each side twice, the variant always with its setting.
    for (i, server) in servers.iter().enumerate() {
        let mut admin = server.admin().unwrap();
        let rows: Vec<(String, u32)> = admin
            .query("SELECT side, errors FROM seen.rounds ORDER BY side")
            .unwrap();
        let count = |side: &str| rows.iter().filter(|(s, _)| s == side).count();
        assert_eq!(
            (count("baseline"), count("variant")),
            (2, 2),
            "server {i}: {rows:?}"
        );
        for (side, errors) in &rows {
            let expected = if side == "variant" {
                4321
            } else {
                originals[i].unwrap()
            };
            assert_eq!(*errors, expected, "server {i}, {side}: {rows:?}");
        }
        let now: Option<u32> = admin
            .query_first("SELECT @@GLOBAL.max_connect_errors")
            .unwrap();
        assert_eq!(now, originals[i], "server {i} was not put back");
    }
    assert!(
        finished
            .output
            .contains("settings moved to the other server"),
        "{}",
        finished.output
    );
}

#[test]
fn a_refused_resume_leaves_the_results_file_as_it_was() {
    let _lock = server_lock();
    let external = start_server(&BTreeMap::new(), 8);
    let sandbox = Sandbox::new();
    let variant = external.socket_profile(&sandbox, "external.toml", "");
    let mut args = vec!["--baseline", "profiles/mariadb.toml", "--variant", &variant];
    args.extend(LONG_RUN);
    let mut running = sandbox.spawn(&args);
    running.wait_rounds(2, Duration::from_secs(60));
    running.signal(libc::SIGINT);
    running.expect_exit(130, Duration::from_secs(60));
    let json = running.json.clone();
    let saved = std::fs::read(&json).unwrap();
    assert!(
        running.results()["rounds"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["status"] == "interrupted"),
        "the interrupted round is in the file"
    );
    // The external server changed meanwhile: the resume is refused and changes nothing.
    external
        .admin()
        .unwrap()
        .query_drop("SET GLOBAL max_connect_errors = 4343")
        .unwrap();
    let output = sandbox.run(&["--resume", json.to_str().unwrap()]);
    let (_, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("server changed since the run started"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read(&json).unwrap(),
        saved,
        "the file is byte for byte as it was"
    );
    external
        .admin()
        .unwrap()
        .query_drop("SET GLOBAL max_connect_errors = 100")
        .unwrap();
}

#[test]
fn prepared_statements_beyond_the_servers_limit_are_refused_before_the_run() {
    let _lock = server_lock();
    let external = start_server(&BTreeMap::new(), 8);
    // An external server with a small budget (abtest raises a managed one's to fit).
    external
        .admin()
        .unwrap()
        .query_drop("SET GLOBAL max_prepared_stmt_count = 20")
        .unwrap();
    let sandbox = Sandbox::new();
    let profile = external.socket_profile(&sandbox, "small.toml", "");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "--baseline",
            profile.as_str(),
            "--variant",
            profile.as_str(),
            "--workload",
            "oltp_read_only",
            "--threads",
            "8",
            "--rounds",
            "2",
        ];
        args.extend(crate::support::QUICK);
        args.extend(extra);
        sandbox.run(&args)
    };
    let output = run(&[]);
    let (_, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("prepares 5 statements per connection, 40 at 8 connections")
            && stderr.contains("max_prepared_stmt_count = 20")
            && stderr.contains("--ps-mode disable"),
        "{stderr}"
    );
    assert!(
        !sandbox.path("results.json").exists(),
        "refused before anything is written"
    );
    let output = run(&["--ps-mode", "disable"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output).1);
}
