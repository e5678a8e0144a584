//! Real A/B runs on managed MariaDB servers started by abtest itself.

use serde_json::Value;

use crate::support::{QUICK, Sandbox, server_lock};

fn run_json(sandbox: &Sandbox, args: &[&str]) -> (Value, String) {
    let mut all: Vec<&str> = args.to_vec();
    all.extend(QUICK);
    let finished = sandbox.run_json(&all);
    assert_eq!(finished.code, Some(0), "{}", finished.output);
    crate::support::assert_valid_results(&finished.results);
    (finished.results, finished.output)
}

#[test]
fn managed_ab_run_records_every_round_and_leaves_nothing() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let (results, stdout) = run_json(
        &sandbox,
        &[
            "--baseline",
            "profiles/mariadb.toml",
            "--variant",
            "profiles/mariadb-threadpool.toml",
            "--workload",
            "oltp_read_write",
            "--threads",
            "2",
            "--rounds",
            "3",
            "--seed",
            "7",
        ],
    );
    assert_eq!(results["schema_version"], 1);
    assert_eq!(results["status"], "completed");
    let rounds = results["rounds"].as_array().unwrap();
    assert_eq!(rounds.len(), 6);
    let order: String = rounds
        .iter()
        .map(|r| if r["side"] == "baseline" { 'A' } else { 'B' })
        .collect();
    assert_eq!(order, "ABBAAB");
    for (position, round) in rounds.iter().enumerate() {
        assert_eq!(round["position"], position);
        assert_eq!(round["status"], "completed");
        assert!(round["tps"].as_f64().unwrap() > 0.0, "{round}");
        let per_tx = |kind: &str| {
            round["queries"][kind].as_f64().unwrap() / round["transactions"].as_f64().unwrap()
        };
        assert_eq!(
            (per_tx("read"), per_tx("write"), per_tx("other")),
            (14.0, 4.0, 2.0)
        );
        assert!(!round["histogram"].as_str().unwrap().is_empty());
        let client_cpu = round["client_cpu_us_per_tx"].as_f64().unwrap();
        assert!(client_cpu > 0.0 && client_cpu.is_finite(), "{round}");
    }
    assert_eq!(results["plan"]["client"]["client_sched"], "batch");
    let comparisons = results["comparisons"].as_array().unwrap();
    let metrics: Vec<&str> = comparisons
        .iter()
        .map(|c| c["metric"].as_str().unwrap())
        .collect();
    assert_eq!(
        metrics,
        [
            "tps",
            "qps",
            "latency_mean_ms",
            "latency_p95_ms",
            "latency_p99_ms",
            "server_cpu_us_per_tx",
            "threads_running"
        ]
    );
    for c in comparisons {
        for key in ["change_pct", "p", "p_holm"] {
            assert!(c[key].as_f64().unwrap().is_finite(), "{key} in {c}");
        }
        assert!(c["welch"]["df"].as_f64().unwrap() > 0.0);
    }
    let differences: Vec<&str> = results["differences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    assert!(differences.contains(&"thread_handling"), "{differences:?}");
    assert!(stdout.contains("latency_p95_ms"), "{stdout}");
    sandbox.assert_nothing_left();
}

#[test]
fn aa_run_reports_no_significant_difference() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let (results, _) = run_json(
        &sandbox,
        &[
            "--baseline",
            "profiles/mariadb.toml",
            "--variant",
            "profiles/mariadb.toml",
            "--workload",
            "oltp_read_only",
            "--threads",
            "2",
            "--rounds",
            "5",
            "--alpha",
            "0.01",
            "--seed",
            "11",
            "--client-sched",
            "normal",
        ],
    );
    assert_eq!(results["plan"]["client"]["client_sched"], "normal");
    for c in results["comparisons"].as_array().unwrap() {
        assert_eq!(c["significant"], false, "A/A comparison flagged: {c}");
    }
    sandbox.assert_nothing_left();
}
