//! Faithfulness to sysbench 1.0.20: for every workload, abtest and sysbench run on the
//! same managed server, and the server's own Com_* counters — the same meter for both
//! tools — must show the same statements per event. Tables go both ways: abtest runs on
//! tables prepared by `sysbench prepare`, and sysbench runs on tables abtest prepared.

use std::collections::BTreeMap;
use std::process::Command;

use abtest::server::sandbox::ManagedServer;
use mysql::prelude::Queryable;

use crate::support::{Sandbox, server_lock, text};

const COUNTERS: [&str; 6] = [
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

struct Bench {
    server: ManagedServer,
    sandbox: Sandbox,
    profile: String,
}

impl Bench {
    fn start() -> Bench {
        let sandbox = Sandbox::new();
        let server = crate::support::start_server(&BTreeMap::new(), 8);
        let profile = sandbox.write(
            "external.toml",
            &format!(
                "[connection]\nsocket = \"{}\"\nuser = \"root\"\ndatabase = \"sbtest\"\n",
                server.socket().display()
            ),
        );
        Bench {
            server,
            sandbox,
            profile: profile.to_string_lossy().into_owned(),
        }
    }

    fn counters(&self) -> BTreeMap<String, f64> {
        let mut conn = self.server.admin().unwrap();
        let rows: Vec<(String, String)> = conn.query("SHOW GLOBAL STATUS LIKE 'Com\\_%'").unwrap();
        rows.into_iter()
            .filter(|(name, _)| COUNTERS.contains(&name.as_str()))
            .map(|(name, value)| (name, value.parse().unwrap()))
            .collect()
    }

    fn sysbench(&self, workload: &str, command: &str, extra: &[&str]) -> String {
        let socket = format!("--mysql-socket={}", self.server.socket().display());
        let output = Command::new("sysbench")
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
            .arg(command)
            .output()
            .unwrap();
        let (stdout, stderr) = text(&output);
        assert!(
            output.status.success(),
            "sysbench {workload} {command}: {stdout}{stderr}"
        );
        stdout
    }

    /// Statements per event of a sysbench run, from the server's counters.
    fn sysbench_mix(&self, workload: &str, extra: &[&str]) -> BTreeMap<String, f64> {
        let before = self.counters();
        let stdout = self.sysbench(workload, "run", extra);
        let events: f64 = stdout
            .lines()
            .find_map(|l| l.trim().strip_prefix("total number of events:"))
            .and_then(|v| v.trim().parse().ok())
            .expect("sysbench reports its events");
        per_event(&before, &self.counters(), events)
    }

    /// Statements per event of an abtest run, from the server's counters.
    fn abtest_mix(&self, workload: &str, extra: &[&str]) -> BTreeMap<String, f64> {
        let json = self.sandbox.path("parity.json");
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

fn per_event(
    before: &BTreeMap<String, f64>,
    after: &BTreeMap<String, f64>,
    events: f64,
) -> BTreeMap<String, f64> {
    COUNTERS
        .iter()
        .map(|name| (name.to_string(), (after[*name] - before[*name]) / events))
        .collect()
}

/// Same statements per event, within 3 % (abtest's rounds end mid-event; sysbench's do not).
fn assert_same_mix(
    workload: &str,
    sysbench: &BTreeMap<String, f64>,
    abtest: &BTreeMap<String, f64>,
) {
    for name in COUNTERS {
        let (s, a) = (sysbench[name], abtest[name]);
        assert!(
            (s - a).abs() <= 0.03 * s.max(a) + 0.01,
            "{workload}: {name} per event: sysbench {s:.3}, abtest {a:.3}\nsysbench {sysbench:?}\nabtest {abtest:?}"
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
fn workloads_issue_the_same_statements_as_sysbench() {
    ensure_sysbench();
    let _lock = server_lock();
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
        assert_same_mix(workload, &sysbench, &abtest);
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
        assert_same_mix(workload, &sysbench, &abtest);
    }
    let abtest = bench.abtest_mix("oltp_read_write", &["--prepare", "always"]);
    let sysbench = bench.sysbench_mix("oltp_read_write", &[]);
    assert_same_mix("oltp_read_write on abtest's tables", &sysbench, &abtest);
    // bulk_insert: one multi-row INSERT per 512 KiB of rows (~30 000 rows), nothing else
    // but each tool's own set-up queries.
    let abtest = bench.abtest_mix("bulk_insert", &["--prepare", "auto"]);
    let mut admin = bench.server.admin().unwrap();
    admin.query_drop("TRUNCATE TABLE sbtest.sbtest1").unwrap();
    admin.query_drop("TRUNCATE TABLE sbtest.sbtest2").unwrap();
    let sysbench = bench.sysbench_mix("bulk_insert", &["--events=200000"]);
    for mix in [&abtest, &sysbench] {
        assert!((1e-5..1e-4).contains(&mix["Com_insert"]), "{mix:?}");
        assert!(
            mix["Com_select"] + mix["Com_update"] + mix["Com_delete"] < 1e-4,
            "{mix:?}"
        );
    }
    drop(bench);
}
