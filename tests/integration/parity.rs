//! Faithfulness to sysbench 1.0.20: for every workload, abtest and sysbench run on the
//! same managed server, and the server's own Com_* counters — the same meter for both
//! tools — must show the same statements per event. Tables go both ways: abtest runs on
//! tables prepared by `sysbench prepare`, and sysbench runs on tables abtest prepared.
//! The floor client of the benchmarks (bench/raw_client.rs) is held to the same meter, so
//! that the floor it measures is sysbench's work and not less.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;
use std::sync::MutexGuard;

use mysql::prelude::Queryable;

use crate::support::{Sandbox, TestServer, server_lock, start_server, text};

pub(crate) const COUNTERS: [&str; 6] = [
    "Com_select",
    "Com_update",
    "Com_delete",
    "Com_insert",
    "Com_begin",
    "Com_commit",
];

/// Installs sysbench when it is missing (the CI machine starts without it).
fn ensure_sysbench() {
    if Command::new("sysbench").arg("--version").output().is_ok() {
        return;
    }
    let status = Command::new("sh")
        .args([
            "-c",
            "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq sysbench",
        ])
        .status()
        .expect("apt-get runs");
    assert!(status.success(), "sysbench could not be installed");
}

/// A managed server for both tools, held under the server lock, with sysbench installed.
pub(crate) struct Bench {
    pub(crate) server: TestServer,
    pub(crate) sandbox: Sandbox,
    pub(crate) profile: String,
    // Dropped last: the server stops before another test may start its own.
    _lock: MutexGuard<'static, ()>,
}

impl Bench {
    pub(crate) fn start() -> Bench {
        ensure_sysbench();
        let lock = server_lock();
        let sandbox = Sandbox::new();
        let server = crate::support::start_server(&BTreeMap::new(), 8);
        let profile = server.socket_profile(&sandbox, "external.toml", "");
        Bench {
            server,
            sandbox,
            profile,
            _lock: lock,
        }
    }

    pub(crate) fn counters(&self) -> BTreeMap<String, f64> {
        let mut conn = self.server.admin().unwrap();
        let rows: Vec<(String, String)> = conn.query("SHOW GLOBAL STATUS LIKE 'Com\\_%'").unwrap();
        rows.into_iter()
            .filter(|(name, _)| COUNTERS.contains(&name.as_str()))
            .map(|(name, value)| (name, value.parse().unwrap()))
            .collect()
    }

    /// The server's `Bytes_received` counter: what clients sent it.
    fn bytes_received(&self) -> f64 {
        let mut conn = self.server.admin().unwrap();
        let value: Option<(String, String)> = conn
            .query_first("SHOW GLOBAL STATUS LIKE 'Bytes_received'")
            .unwrap();
        value.unwrap().1.parse().unwrap()
    }

    pub(crate) fn sysbench(&self, workload: &str, command: &str, extra: &[&str]) -> String {
        let socket = format!("--mysql-socket={}", self.server.socket().display());
        let mut sysbench = Command::new("sysbench");
        sysbench
            .args([
                workload,
                "--db-driver=mysql",
                &socket,
                "--mysql-user=root",
                "--mysql-db=sbtest",
            ])
            .args([
                "--rand-type=uniform",
                "--threads=2",
                "--time=0",
                "--tables=1",
                "--table-size=2000",
            ])
            .args(if extra.iter().any(|a| a.starts_with("--events")) {
                &[][..]
            } else {
                &["--events=400"][..]
            })
            .args(extra)
            .arg(command);
        run_ok(&mut sysbench, &format!("sysbench {workload} {command}"))
    }

    /// Statements per event of a sysbench run, from the server's counters.
    fn sysbench_mix(&self, workload: &str, extra: &[&str]) -> BTreeMap<String, f64> {
        let before = self.counters();
        let stdout = self.sysbench(workload, "run", extra);
        let events = reported_count(&stdout, "total number of events:");
        per_event(&before, &self.counters(), events)
    }

    /// Statements per event of an abtest run, from the server's counters.
    fn abtest_mix(&self, workload: &str, extra: &[&str]) -> BTreeMap<String, f64> {
        let json = self.sandbox.path("parity.json");
        let _ = std::fs::remove_file(&json);
        let before = self.counters();
        let mut args = vec![
            "--baseline",
            &self.profile,
            "--variant",
            &self.profile,
            "--workload",
            workload,
            "--threads",
            "2",
            "--rounds",
            "2",
            "--round-time",
            "1s",
            "--warmup",
            "0s",
            "--rewarm",
            "0s",
            "--tables",
            "1",
            "--table-size",
            "2000",
            "--json",
            json.to_str().unwrap(),
        ];
        args.extend(extra);
        let output = self.sandbox.run(&args);
        let (stdout, stderr) = text(&output);
        assert_eq!(
            output.status.code(),
            Some(0),
            "abtest {workload}: {stdout}{stderr}"
        );
        let after = self.counters();
        let results: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        let events: f64 = results["rounds"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["transactions"].as_f64().unwrap())
            .sum();
        per_event(&before, &after, events)
    }
}

/// Runs `command`; returns its stdout, or fails the test with its output.
fn run_ok(command: &mut Command, what: &str) -> String {
    let output = command.output().unwrap();
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{what}: {stdout}{stderr}");
    stdout
}

/// The number after `label` in a sysbench-style report.
pub(crate) fn reported_count(stdout: &str, label: &str) -> f64 {
    stdout
        .lines()
        .find_map(|l| l.trim().strip_prefix(label))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| panic!("no `{label}` in:\n{stdout}"))
}

/// The `raw_client` example as `cargo test` built it, beside this test binary.
fn raw_client_binary() -> PathBuf {
    let test_binary = std::env::current_exe().unwrap();
    let profile_dir = test_binary.parent().and_then(|deps| deps.parent()).unwrap();
    let binary = profile_dir.join("examples/raw_client");
    assert!(
        binary.exists(),
        "{} is missing: `cargo test` builds it, as does `cargo build --example raw_client`",
        binary.display()
    );
    binary
}

impl Bench {
    /// Statements per event of the floor client over TCP, from the server's counters.
    fn raw_client_mix(&self, workload: &str) -> BTreeMap<String, f64> {
        let mut admin = self.server.admin().unwrap();
        admin
            .query_drop(
                "CREATE USER IF NOT EXISTS 'floor'@'127.0.0.1' IDENTIFIED BY 'floor-password'",
            )
            .unwrap();
        admin
            .query_drop("GRANT ALL ON sbtest.* TO 'floor'@'127.0.0.1'")
            .unwrap();
        let before = self.counters();
        let port = self.server.port().to_string();
        let mut raw_client = Command::new(raw_client_binary());
        raw_client
            .args([&port, "floor", "floor-password", "sbtest", workload])
            .args(["2", "1", "2000"]);
        let stdout = run_ok(&mut raw_client, &format!("raw_client {workload}"));
        let events = reported_count(&stdout, "transactions:");
        per_event(&before, &self.counters(), events)
    }
}

pub(crate) fn per_event(
    before: &BTreeMap<String, f64>,
    after: &BTreeMap<String, f64>,
    events: f64,
) -> BTreeMap<String, f64> {
    let mut mix: BTreeMap<String, f64> = COUNTERS
        .iter()
        .map(|name| (name.to_string(), (after[*name] - before[*name]) / events))
        .collect();
    mix.insert(EVENTS.to_string(), events);
    mix
}

/// The key under which a mix keeps the number of events it was measured over.
pub(crate) const EVENTS: &str = "events";

/// The bytes per full multi-row INSERT that a bulk_insert run allows: `bytes` sent
/// over `inserts` INSERTs, of which up to `flushes` are short (every thread ends with one
/// short INSERT per run, or per round), so a full one lies between bytes/INSERTs and
/// bytes/(INSERTs − flushes). Both tools cut a batch by its length, not by its rows
/// (row lengths differ with the ids' digits), so bytes are what must agree.
fn full_batch_bytes(bytes: f64, mix: &BTreeMap<String, f64>, flushes: f64) -> (f64, f64) {
    let inserts = (mix["Com_insert"] * mix[EVENTS]).round();
    let upper = if inserts > flushes {
        bytes / (inserts - flushes)
    } else {
        f64::INFINITY
    };
    (bytes / inserts, upper)
}

/// Same statements per event for sysbench and `tool`, within 3 % (abtest's rounds end
/// mid-event; sysbench's do not).
fn assert_same_mix(
    workload: &str,
    sysbench: &BTreeMap<String, f64>,
    tool: &str,
    mix: &BTreeMap<String, f64>,
) {
    for name in COUNTERS {
        let (s, t) = (sysbench[name], mix[name]);
        assert!(
            (s - t).abs() <= 0.03 * s.max(t) + 0.01,
            "{workload}: {name} per event: sysbench {s:.3}, {tool} {t:.3}\nsysbench {sysbench:?}\n{tool} {mix:?}"
        );
    }
}

fn rounded(mix: &BTreeMap<String, f64>) -> [i64; 3] {
    let get = |name: &str| mix[name];
    let reads = get("Com_select");
    let writes = get("Com_update") + get("Com_delete") + get("Com_insert");
    let other = get("Com_begin") + get("Com_commit");
    [
        reads.round() as i64,
        writes.round() as i64,
        other.round() as i64,
    ]
}

#[test]
fn workloads_issue_the_same_statement_counts_per_event_as_sysbench() {
    let bench = Bench::start();
    // sysbench prepares; abtest reuses sysbench's tables as they are.
    bench.sysbench("oltp_read_write", "prepare", &[]);
    let expected = [
        ("oltp_read_write", [14, 4, 2]),
        ("oltp_read_only", [14, 0, 2]),
        ("oltp_write_only", [0, 4, 2]),
        ("oltp_point_select", [1, 0, 0]),
        ("oltp_update_index", [0, 1, 0]),
        ("oltp_update_non_index", [0, 1, 0]),
        ("select_random_points", [1, 0, 0]),
        ("select_random_ranges", [1, 0, 0]),
    ];
    for (workload, mix) in expected {
        let sysbench = bench.sysbench_mix(workload, &[]);
        let abtest = bench.abtest_mix(workload, &["--prepare", "never"]);
        assert_eq!(rounded(&sysbench), mix, "{workload}: sysbench {sysbench:?}");
        assert_same_mix(workload, &sysbench, "abtest", &abtest);
    }
    // Text queries instead of prepared statements change nothing in the mix.
    let text_mode = bench.abtest_mix(
        "oltp_read_write",
        &["--prepare", "never", "--ps-mode", "disable"],
    );
    assert_eq!(rounded(&text_mode), [14, 4, 2]);
    // abtest prepares (its own tables); sysbench runs on them.
    bench.sysbench("oltp_read_write", "cleanup", &[]);
    for (workload, mix) in [("oltp_delete", [0, 1, 0]), ("oltp_insert", [0, 1, 0])] {
        let abtest = bench.abtest_mix(workload, &["--prepare", "always"]);
        let sysbench = bench.sysbench_mix(workload, &[]);
        assert_eq!(rounded(&sysbench), mix, "{workload}: sysbench {sysbench:?}");
        assert_same_mix(workload, &sysbench, "abtest", &abtest);
    }
    let abtest = bench.abtest_mix("oltp_read_write", &["--prepare", "always"]);
    let sysbench = bench.sysbench_mix("oltp_read_write", &[]);
    assert_same_mix(
        "oltp_read_write on abtest's tables",
        &sysbench,
        "abtest",
        &abtest,
    );
    // bulk_insert: one multi-row INSERT per 512 KiB of rows (~30 000 rows), nothing else
    // but each tool's own set-up queries.
    let before = bench.bytes_received();
    let abtest = bench.abtest_mix("bulk_insert", &["--prepare", "auto"]);
    let abtest_bytes = bench.bytes_received() - before;
    let mut admin = bench.server.admin().unwrap();
    admin.query_drop("TRUNCATE TABLE sbtest.sbtest1").unwrap();
    admin.query_drop("TRUNCATE TABLE sbtest.sbtest2").unwrap();
    let before = bench.bytes_received();
    let sysbench = bench.sysbench_mix("bulk_insert", &["--events=200000"]);
    let sysbench_bytes = bench.bytes_received() - before;
    for mix in [&abtest, &sysbench] {
        assert!(
            mix["Com_select"] + mix["Com_update"] + mix["Com_delete"] < 1e-4,
            "{mix:?}"
        );
    }
    // The same batching: each tool's counts allow a range for the size of a full INSERT
    // (sysbench ends with one short INSERT per thread; abtest with one per thread and
    // round, 2 sides × 2 rounds), and the ranges must meet.
    let sysbench_batch = full_batch_bytes(sysbench_bytes, &sysbench, 2.0);
    let abtest_batch = full_batch_bytes(abtest_bytes, &abtest, 2.0 * 4.0);
    println!(
        "bulk_insert bytes per full INSERT: sysbench {sysbench_batch:.0?}, abtest {abtest_batch:.0?}"
    );
    assert!(
        sysbench_batch.0 <= abtest_batch.1 && abtest_batch.0 <= sysbench_batch.1,
        "bulk_insert bytes per full INSERT: sysbench {sysbench_batch:.0?}, abtest {abtest_batch:.0?}"
    );
    assert!(sysbench_batch.0 > 100_000.0, "sysbench {sysbench_batch:?}");
}

#[test]
fn the_floor_client_issues_the_same_statement_counts_per_event_as_sysbench() {
    let bench = Bench::start();
    bench.sysbench("oltp_read_only", "prepare", &[]);
    for (workload, floor_workload) in [
        ("oltp_point_select", "point_select"),
        ("oltp_read_only", "read_only"),
    ] {
        let sysbench = bench.sysbench_mix(workload, &[]);
        let floor = bench.raw_client_mix(floor_workload);
        assert_same_mix(workload, &sysbench, "floor client", &floor);
    }
}

/// `CHECKSUM TABLE sbtest.sbtest1` of a server.
pub(crate) fn checksum(server: &TestServer) -> u64 {
    let row: Option<(String, u64)> = server
        .admin()
        .unwrap()
        .query_first("CHECKSUM TABLE sbtest.sbtest1")
        .unwrap();
    row.unwrap().1
}

/// Runs a short read-only A/B between two external profiles with `seed`; the tables
/// abtest prepares stay on the servers.
fn prepare_with_seed(sandbox: &Sandbox, profiles: [&str; 2], seed: &str) {
    let output = sandbox.run(&[
        "--baseline",
        profiles[0],
        "--variant",
        profiles[1],
        "--workload",
        "oltp_read_only",
        "--threads",
        "1",
        "--rounds",
        "2",
        "--round-time",
        "300ms",
        "--warmup",
        "0s",
        "--table-size",
        "500",
        "--seed",
        seed,
    ]);
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stdout}{stderr}");
}

#[test]
fn the_same_seed_gives_both_sides_the_same_data() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let servers = [
        start_server(&BTreeMap::new(), 2),
        start_server(&BTreeMap::new(), 2),
    ];
    let profiles: Vec<String> = servers
        .iter()
        .enumerate()
        .map(|(i, server)| server.socket_profile(&sandbox, &format!("side{i}.toml"), ""))
        .collect();
    let profiles = [profiles[0].as_str(), profiles[1].as_str()];
    prepare_with_seed(&sandbox, profiles, "42");
    let first = checksum(&servers[0]);
    assert_eq!(
        first,
        checksum(&servers[1]),
        "the same seed, different data"
    );
    // The control: another seed gives other data, so equal checksums mean something.
    for profile in profiles {
        let output = sandbox.run(&["cleanup", "--profile", profile]);
        assert_eq!(output.status.code(), Some(0), "{}", text(&output).1);
    }
    prepare_with_seed(&sandbox, profiles, "43");
    assert_eq!(checksum(&servers[0]), checksum(&servers[1]));
    assert_ne!(
        checksum(&servers[0]),
        first,
        "the seed does not reach the data"
    );
}
