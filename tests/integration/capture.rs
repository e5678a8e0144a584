//! `abtest capture`: a slow log of a real sysbench run becomes a workload file whose
//! replay issues sysbench's statements per transaction (the server's Com_* counters are
//! the meter, as in the parity tests); fingerprints agree with pt-query-digest's on a
//! log kept in the repository; bad logs are refused with the file and the line.

use std::collections::BTreeMap;
use std::process::Command;

use mysql::prelude::Queryable;

use crate::parity::{Bench, COUNTERS, EVENTS, per_event, reported_count};
use crate::support::{Sandbox, repo, text};

/// The fixture: a MariaDB 10.11 slow log (long_query_time = 0) of sysbench
/// oltp_read_write, with a few hand-written statements appended.
const FIXTURE: &str = "tests/fixtures/capture/mariadb-slow.log";

/// The fingerprints listed in a captured file's header, with their executions.
fn header_fingerprints(captured: &str) -> BTreeMap<String, u64> {
    captured
        .lines()
        .skip_while(|l| !l.starts_with("# fingerprints"))
        .skip(1)
        .map_while(|l| l.strip_prefix("#   "))
        .map(|l| {
            let (count, fingerprint) = l.trim_start().split_once("  ").unwrap();
            (fingerprint.to_string(), count.parse().unwrap())
        })
        .collect()
}

pub(crate) fn capture(sandbox: &Sandbox, args: &[&str]) -> (Option<i32>, String, String) {
    let output = sandbox.run(&[&["capture"], args].concat());
    let (stdout, stderr) = text(&output);
    (output.status.code(), stdout, stderr)
}

/// `abtest capture LOG -o captured.toml` in `sandbox`, which must succeed: the file's
/// path and its text.
fn capture_to_file(sandbox: &Sandbox, log: &std::path::Path) -> (std::path::PathBuf, String) {
    let captured = sandbox.path("captured.toml");
    let (code, _, stderr) = capture(
        sandbox,
        &[log.to_str().unwrap(), "-o", captured.to_str().unwrap()],
    );
    assert_eq!(code, Some(0), "{stderr}");
    let text = std::fs::read_to_string(&captured).unwrap();
    (captured, text)
}

#[test]
fn a_replay_of_a_captured_sysbench_log_issues_sysbenchs_statements() {
    let bench = Bench::start();
    // Three tables, each statement group on one drawn at random, as sysbench does.
    let tables = ["--tables=3"];
    bench.sysbench("oltp_read_write", "prepare", &tables);
    // A directory the server may write, whichever OS user it runs as.
    let logs = bench.sandbox.path("logs");
    std::fs::create_dir(&logs).unwrap();
    std::fs::set_permissions(&logs, std::os::unix::fs::PermissionsExt::from_mode(0o1777)).unwrap();
    let log = logs.join("slow.log");
    let mut admin = bench.server.admin().unwrap();
    let general = logs.join("general.log");
    admin
        .query_drop(format!(
            "SET GLOBAL slow_query_log_file = '{}', long_query_time = 0, slow_query_log = 1, \
             general_log_file = '{}', general_log = 1",
            log.display(),
            general.display()
        ))
        .unwrap();
    let before = bench.counters();
    let stdout = bench.sysbench("oltp_read_write", "run", &["--events=300", "--tables=3"]);
    let sysbench = per_event(
        &before,
        &bench.counters(),
        reported_count(&stdout, "total number of events:"),
    );
    admin
        .query_drop("SET GLOBAL slow_query_log = 0, general_log = 0")
        .unwrap();
    let (captured, file) = capture_to_file(&bench.sandbox, &log);
    // The general log of the same run gives the same classes, counted the same.
    let (code, from_general, stderr) = capture(&bench.sandbox, &[general.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(from_general.contains("(general log)"), "{from_general}");
    assert_eq!(
        header_fingerprints(&from_general),
        header_fingerprints(&file)
    );
    assert_reviewable(&file);
    // sysbench's 2 threads, and the test's own connections that read the counters.
    let sessions: u32 = file
        .lines()
        .find_map(|l| l.strip_prefix("sessions = "))
        .and_then(|n| n.parse().ok())
        .expect("the log's concurrency in [captured]");
    assert!((2..=5).contains(&sessions), "{file}");

    let json = bench.sandbox.path("replay.json");
    let replay_log = logs.join("replay-slow.log");
    admin
        .query_drop(format!(
            "SET GLOBAL slow_query_log_file = '{}', long_query_time = 0, slow_query_log = 1",
            replay_log.display()
        ))
        .unwrap();
    let before = bench.counters();
    let output = bench.sandbox.run(&[
        "--baseline",
        &bench.profile,
        "--variant",
        &bench.profile,
        "--workload-file",
        captured.to_str().unwrap(),
        "--tables",
        "3",
        "--table-size",
        "2000",
        "--prepare",
        "never",
        "--allow-writes",
        "--threads",
        "captured",
        "--rounds",
        "2",
        "--round-time",
        "1s",
        "--warmup",
        "0s",
        "--rewarm",
        "0s",
        "--json",
        json.to_str().unwrap(),
    ]);
    let after = bench.counters();
    admin.query_drop("SET GLOBAL slow_query_log = 0").unwrap();
    let (out, err) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{out}{err}");
    assert!(
        err.contains("copied 3 table(s) the workload writes (sbtest1, sbtest2, sbtest3)")
            && err.contains("both servers' tables ended as they began")
            && !err.contains("their tables now differ"),
        "a replay that writes puts every table it writes back, and says so: {err}"
    );
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(
        results["plan"]["schedule"]["levels"],
        serde_json::json!([sessions]),
        "--threads captured"
    );
    let events: f64 = results["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["transactions"].as_f64().unwrap())
        .sum();
    let replay = per_event(&before, &after, events);
    for name in COUNTERS {
        let (s, r) = (sysbench[name], replay[name]);
        assert!(
            (s - r).abs() <= 0.05 * s.max(r) + 0.01,
            "{name} per transaction: sysbench {s:.3}, replay {r:.3}\n{sysbench:?}\n{replay:?}"
        );
    }
    assert!(replay[EVENTS] > 0.0);
    if percona_toolkit("pt-query-digest") {
        assert_same_shares(&log, &replay_log);
    } else {
        eprintln!(
            "skipped the shares check: percona-toolkit (pt-query-digest) could not be installed"
        );
    }
}

/// A person can review the file: sysbench's one transaction shape folds into a
/// handful of classes over all three tables, in under 300 lines, with each table drawn
/// from the captured ones and ranges that keep their width.
fn assert_reviewable(file: &str) {
    let classes: u64 = file
        .lines()
        .find_map(|l| {
            l.split_once(" transactions in ")?
                .1
                .strip_suffix(" classes.")
        })
        .and_then(|n| n.parse().ok())
        .expect("the header counts the classes");
    assert!(classes <= 3, "{classes} classes: {file}");
    assert!(file.lines().count() < 300, "{} lines", file.lines().count());
    assert!(
        file.contains("writes = true") && file.contains("sbtest = true"),
        "{file}"
    );
    assert!(
        file.lines().any(|l| l.contains("type = \"table\""))
            && file
                .lines()
                .any(|l| l.starts_with("values = [\"") && l.matches('"').count() == 6),
        "a table parameter of the three captured tables: {file}"
    );
    assert!(
        file.lines()
            .any(|l| l.contains("BETWEEN {id_") && l.contains(" + 99}")),
        "ranges keep their width: {file}"
    );
}

/// Each pt-query-digest class's share of the replay's workload statements is its share
/// of the captured log's, within 1 percentage point, and the replay runs no class the
/// capture did not have. abtest's own statements (facts, checks) are not the workload's:
/// only statements on the sbtest tables are counted.
fn assert_same_shares(captured: &std::path::Path, replayed: &std::path::Path) {
    let shares = |log: &std::path::Path| -> BTreeMap<String, f64> {
        let counts: BTreeMap<String, u64> = digest_counts(log)
            .into_iter()
            .filter(|(f, _)| f.contains("sbtest?") && !f.starts_with("checksum"))
            .collect();
        let total: u64 = counts.values().sum();
        counts
            .into_iter()
            .map(|(f, n)| (f, 100.0 * n as f64 / total as f64))
            .collect()
    };
    let (ours, theirs) = (shares(replayed), shares(captured));
    for (fingerprint, share) in &ours {
        let captured_share = theirs.get(fingerprint).copied().unwrap_or(0.0);
        assert!(
            (share - captured_share).abs() <= 1.0,
            "{fingerprint}: {share:.2} % of the replay, {captured_share:.2} % of the capture\nreplay {ours:#?}\ncapture {theirs:#?}"
        );
    }
    for fingerprint in theirs.keys() {
        assert!(
            ours.contains_key(fingerprint),
            "{fingerprint} never replayed"
        );
    }
}

/// Executions per pt-query-digest fingerprint of a slow log.
fn digest_counts(log: &std::path::Path) -> BTreeMap<String, u64> {
    let output = Command::new("pt-query-digest")
        .args(["--output", "json", "--limit", "100%:1000"])
        .arg(log)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let digest: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    digest["classes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["fingerprint"].as_str().unwrap().to_string(),
                c["metrics"]["Query_time"]["cnt"].as_str().map_or_else(
                    || c["query_count"].as_u64().unwrap(),
                    |n| n.parse().unwrap(),
                ),
            )
        })
        .collect()
}

#[test]
fn fingerprints_agree_with_pt_query_digest() {
    if !percona_toolkit("pt-query-digest") {
        eprintln!("skipped: percona-toolkit (pt-query-digest) could not be installed");
        return;
    }
    let fixture = repo().join(FIXTURE);
    let sandbox = Sandbox::new();
    let (code, captured, stderr) = capture(&sandbox, &[fixture.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{stderr}");
    let ours = header_fingerprints(&captured);
    let theirs: BTreeMap<String, u64> = digest_counts(&fixture)
        .into_iter()
        .filter(|(fingerprint, _)| {
            // Transaction control is how abtest groups statements, session settings are
            // the session's, and protocol commands are not SQL: none is a class of the mix.
            !matches!(
                fingerprint.as_str(),
                "begin" | "commit" | "rollback" | "use ?"
            ) && !fingerprint.starts_with("set ")
                && !fingerprint.starts_with("administrator command")
        })
        .collect();
    assert_eq!(ours, theirs);
}

#[test]
fn a_log_abtest_cannot_read_is_refused_with_its_file_and_line() {
    let sandbox = Sandbox::new();
    let cut = sandbox.write(
        "cut.log",
        "# Time: 251130 14:30:07\n# User@Host: a[a] @ localhost []\n# Thread_id: 3  Schema: x\n",
    );
    let binary = sandbox.path("binary.log");
    std::fs::write(&binary, [0xfe, 0x62, 0x69, 0x6e, 0x00, 0x01]).unwrap();
    let unknown = sandbox.write("notes.txt", "hello\nthis is not a log\n");
    let cases = [
        (cut, "cut.log:3: the log ends inside an entry's header"),
        (binary, "binary.log:1: not a text log"),
        (unknown, "notes.txt: unknown log format"),
    ];
    for (path, message) in cases {
        let (code, _, stderr) = capture(&sandbox, &[path.to_str().unwrap()]);
        assert_eq!(code, Some(2), "{stderr}");
        assert!(stderr.contains(message), "{stderr}");
    }
}

/// A slow log of `statements`, one entry each, as MariaDB writes it.
pub(crate) fn slow_log(statements: &[String]) -> String {
    let mut log = String::from(
        "/usr/sbin/mariadbd, Version: 10.11.19-MariaDB-0+deb12u1-log (Debian 12). started with:\n\
         Tcp port: 0  Unix socket: /tmp/x.sock\nTime\t\t    Id Command\tArgument\n",
    );
    for (i, statement) in statements.iter().enumerate() {
        log.push_str(&format!(
            "# Time: 261130 14:30:{:02}\n# User@Host: sbtest[sbtest] @ localhost []\n\
             # Thread_id: 8  Schema: sbtest  QC_hit: No\n\
             # Query_time: 0.000100  Lock_time: 0.000010  Rows_sent: 1  Rows_examined: 1\n\
             SET timestamp=1796050220;\n{statement};\n",
            i % 60
        ));
    }
    log
}

/// Installs percona-toolkit when a tool of it is missing; false when it cannot be.
pub(crate) fn percona_toolkit(tool: &str) -> bool {
    if Command::new(tool).arg("--version").output().is_ok() {
        return true;
    }
    Command::new("sh")
        .args([
            "-c",
            "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq percona-toolkit",
        ])
        .status()
        .is_ok_and(|s| s.success())
}

/// The fingerprints of the query classes pt-upgrade reports for differences other than
/// query time, from its report.
pub(crate) fn pt_upgrade_differences(report: &str) -> Vec<String> {
    let mut found = Vec::new();
    for class in report.split("# Query class ").skip(1) {
        let fingerprint = class
            .lines()
            .skip_while(|l| !l.starts_with("Discarded queries"))
            .skip(1)
            .find(|l| !l.trim().is_empty())
            .unwrap_or_default()
            .trim()
            .to_string();
        let differs = class
            .lines()
            .any(|l| l.starts_with("## ") && l.contains(" diffs:") && !l.contains("Query time"));
        if differs {
            found.push(fingerprint);
        }
    }
    found
}

#[test]
fn pt_upgrade_and_check_results_find_the_same_query_that_differs() {
    if !percona_toolkit("pt-upgrade") {
        eprintln!("skipped: percona-toolkit (pt-upgrade) could not be installed");
        return;
    }
    let _lock = crate::support::server_lock();
    let servers = [(); 2].map(|_| crate::support::start_server(&Default::default(), 8));
    for server in &servers {
        let mut admin = server.admin().unwrap();
        admin
            .query_drop("CREATE TABLE sbtest.items (id INT PRIMARY KEY, k INT, c CHAR(20))")
            .unwrap();
        admin
            .query_drop(
                "INSERT INTO sbtest.items SELECT seq, seq * 13, CONCAT('row-', seq) FROM sbtest.seq_1_to_50",
            )
            .unwrap();
    }
    // The variant divides with more digits: the division's answers differ, the rest not.
    servers[1]
        .admin()
        .unwrap()
        .query_drop("SET GLOBAL div_precision_increment = 9")
        .unwrap();
    let sandbox = Sandbox::new();
    let statements: Vec<String> = (1..=20)
        .flat_map(|id| {
            [
                format!("SELECT c FROM items WHERE id = {id}"),
                format!("SELECT k / 7 FROM items WHERE id = {id}"),
            ]
        })
        .collect();
    let log = sandbox.write("slow.log", &slow_log(&statements));

    let dsn = |server: &crate::support::TestServer| {
        format!("S={},u=root,D=sbtest", server.socket().display())
    };
    let output = Command::new("pt-upgrade")
        .arg(&log)
        .args([dsn(&servers[0]), dsn(&servers[1])])
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&output.stdout).into_owned();
    let theirs = pt_upgrade_differences(&report);
    assert_eq!(theirs, ["select k / ? from items where id = ?"], "{report}");

    let (captured, _) = capture_to_file(&sandbox, &log);
    let profiles =
        [0, 1].map(|i| servers[i].socket_profile(&sandbox, &format!("side-{i}.toml"), ""));
    let finished = sandbox.run_json(&[
        "--baseline",
        &profiles[0],
        "--variant",
        &profiles[1],
        "--workload-file",
        captured.to_str().unwrap(),
        "--prepare",
        "never",
        "--table-size",
        "50",
        "--range-size",
        "10",
        "--threads",
        "1",
        "--rounds",
        "2",
        "--round-time",
        "1s",
        "--warmup",
        "0s",
        "--check-results",
        "40",
    ]);
    assert_eq!(finished.code, Some(3), "{}", finished.output);
    let ours: std::collections::BTreeSet<String> = finished.results["result_check"]["differences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["statement"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ours.len(), 1, "{ours:?}");
    assert!(
        ours.iter().all(|s| s.starts_with("SELECT k / ")),
        "{ours:?}"
    );
}

#[test]
fn a_running_servers_digests_become_a_workload_and_a_missing_grant_is_named() {
    let _lock = crate::support::server_lock();
    let options: BTreeMap<String, String> = [
        ("performance_schema", "ON"),
        (
            "performance_schema_consumer_events_statements_current",
            "ON",
        ),
        (
            "performance_schema_consumer_events_statements_history_long",
            "ON",
        ),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let server = crate::support::start_server(&options, 8);
    server.add_user("reader", "localhost", Some("reader-password"));
    let mut admin = server.admin().unwrap();
    admin
        .query_drop("CREATE TABLE sbtest.t (id INT PRIMARY KEY, v INT)")
        .unwrap();
    admin
        .query_drop("INSERT INTO sbtest.t SELECT seq, seq FROM sbtest.seq_1_to_100")
        .unwrap();
    admin.query_drop("USE sbtest").unwrap();
    for id in 1..=30 {
        admin
            .query_drop(format!("SELECT v FROM t WHERE id = {id}"))
            .unwrap();
    }
    let sandbox = Sandbox::new();
    let profile = server.socket_profile(&sandbox, "server.toml", "");
    let (code, captured, stderr) = capture(&sandbox, &["--digest", &profile]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        captured.contains("performance_schema statement digests"),
        "{captured}"
    );
    assert!(
        captured.contains("SELECT v FROM t WHERE id = {id}"),
        "{captured}"
    );

    let reader = sandbox.write(
        "reader.toml",
        &format!(
            "[connection]\nsocket = \"{}\"\nuser = \"reader\"\npassword_env = \"READER_PASSWORD\"\ndatabase = \"sbtest\"\n",
            server.socket().display()
        ),
    );
    let output = sandbox
        .abtest()
        .args(["capture", "--digest", reader.to_str().unwrap()])
        .env("READER_PASSWORD", "reader-password")
        .output()
        .unwrap();
    let (_, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("GRANT SELECT ON performance_schema.*"),
        "{stderr}"
    );
}

#[test]
fn a_log_cut_mid_statement_loses_only_that_statement_and_says_so() {
    let sandbox = Sandbox::new();
    let full = std::fs::read_to_string("tests/fixtures/capture/mariadb-slow.log").unwrap();
    let cut = sandbox.write("cut.log", &full[..full.len() - 30]);
    let (code, stdout, stderr) = capture(&sandbox, &[cut.to_str().unwrap(), "-o", "-"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("the log's last statement was cut off mid-way")
            && stderr.contains("cut.log:"),
        "{stderr}"
    );
    assert!(
        !stdout.contains("COUNT(*) FRO\""),
        "the cut statement is no query: {stdout}"
    );
    // The complete log is read whole, without the warning.
    let (code, _, stderr) = capture(&sandbox, &["tests/fixtures/capture/mariadb-slow.log"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!stderr.contains("cut off"), "{stderr}");
    assert!(!sandbox.path("-").exists());
}

#[test]
fn every_literal_form_of_a_log_replays() {
    let _lock = crate::support::server_lock();
    let sandbox = Sandbox::new();
    let statements: Vec<String> = (1..=12)
        .flat_map(|id| {
            [
                format!("SELECT c FROM sbtest1 WHERE id = {id} AND c <> X'78'"),
                format!("SELECT id FROM sbtest1 WHERE id = {id} AND b'101' = 5"),
                format!("SELECT _utf8mb4'x' = c FROM sbtest1 WHERE id = {id}"),
                format!("SELECT id FROM sbtest1 WHERE id = {id} AND DATE '2020-01-01' < NOW()"),
                format!("SELECT id * .5, N'n' FROM sbtest1 WHERE id = {id} AND k > -{id}"),
            ]
        })
        .collect();
    let log = sandbox.write("slow.log", &slow_log(&statements));
    let (captured, written) = capture_to_file(&sandbox, &log);
    for kept in [
        "X'78'",
        "b'101'",
        "_utf8mb4'x'",
        "DATE '2020-01-01'",
        "N'n'",
    ] {
        assert!(written.contains(kept), "{kept} kept as written:\n{written}");
    }
    let mut args = vec![
        "--baseline",
        "profiles/mariadb.toml",
        "--variant",
        "profiles/mariadb.toml",
        "--workload-file",
        captured.to_str().unwrap(),
        "--threads",
        "2",
        "--rounds",
        "2",
        "--check-results",
        "20",
    ];
    args.extend(crate::support::QUICK);
    let output = sandbox.run(&args);
    let (_, stderr) = text(&output);
    assert_eq!(
        output.status.code(),
        Some(0),
        "every statement replays: {stderr}"
    );
    assert!(stderr.contains("same answers"), "{stderr}");
}

#[test]
fn check_on_prepares_every_captured_statement_and_names_the_one_that_cannot() {
    let _lock = crate::support::server_lock();
    let server = crate::support::start_server(&Default::default(), 4);
    server
        .admin()
        .unwrap()
        .query_drop("CREATE TABLE sbtest.items (id INT PRIMARY KEY, c CHAR(20))")
        .unwrap();
    let sandbox = Sandbox::new();
    let profile = server.socket_profile(&sandbox, "server.toml", "");
    let statements: Vec<String> = (1..=5)
        .flat_map(|id| {
            [
                format!("SELECT c FROM items WHERE id = {id}"),
                format!("SELECT c FROM items WHERE id = {id} AND c <> X'78'"),
                format!("SELECT gone FROM items WHERE id = {id}"),
            ]
        })
        .collect();
    let log = sandbox.write("slow.log", &slow_log(&statements));
    let captured = sandbox.path("captured.toml");
    let (code, _, stderr) = capture(
        &sandbox,
        &[
            log.to_str().unwrap(),
            "-o",
            captured.to_str().unwrap(),
            "--check-on",
            &profile,
        ],
    );
    assert_eq!(code, Some(2), "{stderr}");
    let file = std::fs::read_to_string(&captured).unwrap();
    let line = file
        .lines()
        .position(|l| l.contains("SELECT gone FROM items"))
        .unwrap()
        + 1;
    assert!(
        stderr.contains(&format!("captured.toml:{line}: transaction \""))
            && stderr.contains("`SELECT gone FROM items WHERE id = {t")
            && stderr.contains("1054")
            && stderr.contains("1 captured statement(s) cannot be prepared"),
        "the file, its line, the transaction, the statement and the server's error: {stderr}"
    );
    // Without the broken statement, every one prepares.
    let good: Vec<String> = statements
        .into_iter()
        .filter(|s| !s.contains("gone"))
        .collect();
    let log = sandbox.write("good.log", &slow_log(&good));
    let (code, _, stderr) = capture(&sandbox, &[log.to_str().unwrap(), "--check-on", &profile]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("every captured statement prepares"),
        "{stderr}"
    );
}

/// Statements an ORM tags with a comment (sqlcommenter in front, marginalia behind, a
/// line comment before) are captured as the statements they are: classes of the mix,
/// not "DDL"; coverage counts them; a DELETE behind a comment makes `writes = true`.
#[test]
fn statements_tagged_with_comments_are_captured_as_their_statements() {
    let sandbox = Sandbox::new();
    let statements: Vec<String> = (1..=12)
        .flat_map(|id| {
            [
                format!(
                    "/*controller='orders',action='show',framework='django'*/ SELECT c FROM sbtest1 WHERE id = {id}"
                ),
                format!("SELECT k FROM sbtest1 WHERE id = {id} /*application:Shop,controller:orders*/"),
                format!("-- report\nSELECT pad FROM sbtest1 WHERE id = {id}"),
                format!("/* purge */ DELETE FROM sbtest1 WHERE id = {id}"),
            ]
        })
        .collect();
    let log = sandbox.write("slow.log", &slow_log(&statements));
    let (code, stdout, stderr) = capture(&sandbox, &[log.to_str().unwrap(), "-o", "-"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        !stdout.contains("left out"),
        "nothing is left out:\n{stdout}"
    );
    assert!(
        stdout.contains("# coverage: the replayed statements make up 100.0 %"),
        "{stdout}"
    );
    assert!(stdout.contains("\nwrites = true\n"), "{stdout}");
    for statement in [
        "SELECT c FROM sbtest",
        "SELECT k FROM sbtest",
        "SELECT pad FROM sbtest",
        "DELETE FROM sbtest",
    ] {
        assert!(stdout.contains(statement), "{statement}:\n{stdout}");
    }
}

/// A log with IN lists of 2 to 5 values, a BETWEEN on dates always 90 days apart and a
/// lookup by id: the lists are one class (as pt-query-digest has them), the range is
/// one captured pair, the parameters are named by their columns; and what a real server
/// executed in the replay (its general log) keeps every list length captured and never
/// a range production did not run.
#[test]
fn lists_keep_their_lengths_and_ranges_their_width_in_a_replay() {
    let _lock = crate::support::server_lock();
    let sandbox = Sandbox::new();
    let server = crate::support::start_server(&Default::default(), 8);
    let mut admin = server.admin().unwrap();
    // The server's calendar: 40 ranges 90 days wide, their low ends 3 days apart.
    let ranges: Vec<(String, String)> = admin
        .query(
            "SELECT '2024-01-01' + INTERVAL 3 * seq DAY, '2024-01-01' + INTERVAL 3 * seq + 90 DAY \
             FROM sbtest.seq_0_to_39",
        )
        .unwrap();
    let statements: Vec<String> = (0..40i64)
        .zip(&ranges)
        .flat_map(|(i, (low, high))| {
            let ids: Vec<String> = (0..2 + i % 4)
                .map(|k| (1 + (i * 3 + k) % 50).to_string())
                .collect();
            [
                format!("SELECT c FROM items WHERE k IN ({})", ids.join(",")),
                format!(
                    "SELECT COUNT(*) FROM events WHERE happened_on BETWEEN '{low}' AND '{high}'"
                ),
                format!("SELECT c FROM items WHERE id = {}", 1 + i % 50),
            ]
        })
        .collect();
    let log = sandbox.write("slow.log", &slow_log(&statements));
    let (captured, file) = capture_to_file(&sandbox, &log);
    for written in [
        "SELECT c FROM items WHERE k IN ({k})",
        "WHERE happened_on BETWEEN {happened_on.low} AND {happened_on.high}",
        "SELECT c FROM items WHERE id = {id}",
        "lengths = [2, 3, 4, 5]",
        "type = \"pair\"",
    ] {
        assert!(file.contains(written), "{written}:\n{file}");
    }
    assert!(
        file.contains("# 120 statements read; 120 transactions in 3 classes."),
        "{file}"
    );
    if percona_toolkit("pt-query-digest") {
        let theirs = digest_counts(&log);
        assert_eq!(theirs.len(), 3, "{theirs:?}");
        assert_eq!(header_fingerprints(&file), theirs);
        assert_eq!(theirs["select c from items where k in(?+)"], 40);
    } else {
        eprintln!("skipped the pt-query-digest check: percona-toolkit could not be installed");
    }

    for sql in [
        "CREATE TABLE sbtest.items (id INT PRIMARY KEY, k INT, c CHAR(20), KEY (k))",
        "INSERT INTO sbtest.items SELECT seq, seq, CONCAT('row-', seq) FROM sbtest.seq_1_to_50",
        "CREATE TABLE sbtest.events (id INT PRIMARY KEY, happened_on DATE, KEY (happened_on))",
        "INSERT INTO sbtest.events SELECT seq, '2024-01-01' + INTERVAL seq DAY FROM sbtest.seq_1_to_400",
        "SET GLOBAL log_output = 'TABLE', general_log = 1",
    ] {
        admin.query_drop(sql).unwrap();
    }
    let profile = server.socket_profile(&sandbox, "server.toml", "");
    let finished = sandbox.run_json(&[
        "--baseline",
        &profile,
        "--variant",
        &profile,
        "--workload-file",
        captured.to_str().unwrap(),
        "--prepare",
        "never",
        "--threads",
        "1",
        "--rounds",
        "2",
        "--round-time",
        "1s",
        "--warmup",
        "0s",
        "--check-results",
        "30",
    ]);
    admin.query_drop("SET GLOBAL general_log = 0").unwrap();
    assert_eq!(finished.code, Some(0), "{}", finished.output);
    let executed: Vec<String> = admin
        .query("SELECT CONVERT(argument USING utf8mb4) FROM mysql.general_log WHERE command_type IN ('Execute', 'Query')")
        .unwrap();
    let mut lengths = BTreeMap::new();
    let mut ranges = 0;
    for sql in &executed {
        if let Some(list) = sql
            .strip_prefix("SELECT c FROM items WHERE k IN (")
            .and_then(|rest| rest.strip_suffix(')'))
        {
            let values: Vec<i64> = list.split(',').map(|v| v.trim().parse().unwrap()).collect();
            let mut distinct = values.clone();
            distinct.sort_unstable();
            distinct.dedup();
            assert_eq!(distinct.len(), values.len(), "{sql}");
            assert!(values.iter().all(|v| (1..=50).contains(v)), "{sql}");
            *lengths.entry(values.len()).or_insert(0) += 1;
        }
        if let Some(range) =
            sql.strip_prefix("SELECT COUNT(*) FROM events WHERE happened_on BETWEEN ")
        {
            let ends: Vec<&str> = range.split(" AND ").map(|d| d.trim_matches('\'')).collect();
            assert_eq!(ends.len(), 2, "{sql}");
            let (width, from_start): (i64, i64) = admin
                .exec_first(
                    "SELECT DATEDIFF(?, ?), DATEDIFF(?, '2024-01-01')",
                    (ends[1], ends[0], ends[0]),
                )
                .unwrap()
                .unwrap();
            assert_eq!(width, 90, "the captured width, low first: {sql}");
            assert!(
                (0..3 * 40).contains(&from_start),
                "a captured low end: {sql}"
            );
            ranges += 1;
        }
    }
    assert_eq!(
        lengths.keys().copied().collect::<Vec<_>>(),
        [2, 3, 4, 5],
        "every captured length, and no other: {lengths:?}"
    );
    assert!(lengths.values().all(|&n| n >= 5), "{lengths:?}");
    assert!(ranges >= 20, "{ranges} ranges replayed");
}
