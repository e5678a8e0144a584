//! Concurrency sweeps and scale on real managed servers.

use std::collections::BTreeMap;

use mysql::prelude::Queryable;
use serde_json::Value;

use crate::support::{Sandbox, server_lock, start_server};

fn run(sandbox: &Sandbox, args: &[&str]) -> (Option<i32>, Value, String) {
    let mut all = vec!["--table-size", "1000", "--warmup", "500ms"];
    all.extend(args);
    let finished = sandbox.run_json(&all);
    (finished.code, finished.results, finished.output)
}

#[test]
fn sweep_compares_every_level_in_each_holm_family() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let (code, results, output) = run(
        &sandbox,
        &[
            "--baseline",
            "profiles/mariadb.toml",
            "--variant",
            "profiles/mariadb-threadpool.toml",
            "--workload",
            "oltp_point_select",
            "--threads",
            "32,2,8",
            "--rounds",
            "2",
            "--round-time",
            "1s",
            "--level-order",
            "desc",
        ],
    );
    assert_eq!(code, Some(0), "{output}");
    assert_eq!(
        results["plan"]["schedule"]["levels"],
        serde_json::json!([32, 8, 2])
    );
    let comparisons = results["comparisons"].as_array().unwrap();
    for threads in [2, 8, 32] {
        let block: Vec<&Value> = comparisons
            .iter()
            .filter(|c| c["threads"] == threads)
            .collect();
        assert!(
            block.iter().any(|c| c["metric"] == "tps"),
            "no block for {threads} threads"
        );
    }
    // Two Holm families, each over every level: TPS and latency (confirmatory), and the
    // rest (explanatory). In each, the smallest p is multiplied by the family's size.
    for family in ["confirmatory", "explanatory"] {
        let members: Vec<&Value> = comparisons
            .iter()
            .filter(|c| c["family"] == family)
            .collect();
        let levels: std::collections::BTreeSet<u64> = members
            .iter()
            .map(|c| c["threads"].as_u64().unwrap())
            .collect();
        assert_eq!(levels.len(), 3, "{family} spans every level");
        let m = members.len() as f64;
        let smallest = members
            .iter()
            .min_by(|a, b| {
                a["p"]
                    .as_f64()
                    .unwrap()
                    .total_cmp(&b["p"].as_f64().unwrap())
            })
            .unwrap();
        let expected = (smallest["p"].as_f64().unwrap() * m).min(1.0);
        assert!(
            (smallest["p_holm"].as_f64().unwrap() - expected).abs() < 1e-12,
            "{family} family size {m}: {smallest}"
        );
    }
    assert!(output.contains("sweep summary"), "{output}");
    assert_eq!(
        output.matches("│ threads ┆ metric").count(),
        6,
        "a confirmatory and an explanatory block per level: {output}"
    );
    assert_eq!(output.matches("Explanatory metrics").count(), 3, "{output}");
}

#[test]
fn five_hundred_connections_on_a_thread_pool() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let server = start_server(
        &BTreeMap::from([("thread_handling".to_string(), "pool-of-threads".to_string())]),
        512,
    );
    let profile = server.socket_profile(&sandbox, "pool.toml", "");
    let profile = profile.as_str();
    let (code, results, output) = run(
        &sandbox,
        &[
            "--baseline",
            profile,
            "--variant",
            profile,
            "--workload",
            "oltp_point_select",
            "--threads",
            "512",
            "--rounds",
            "2",
            "--round-time",
            "1s",
        ],
    );
    assert_eq!(code, Some(0), "{output}");
    for round in results["rounds"].as_array().unwrap() {
        assert_eq!(round["status"], "completed", "{round}");
        assert_eq!(round["errors"], serde_json::json!({}), "{round}");
    }
    // The server's own count: 512 client connections were open at once.
    let used: Option<(String, u64)> = server
        .admin()
        .unwrap()
        .query_first("SHOW GLOBAL STATUS LIKE 'Max_used_connections'")
        .unwrap();
    let used = used.unwrap().1;
    assert!(used >= 512, "Max_used_connections {used}");
    let handling: Option<String> = server
        .admin()
        .unwrap()
        .query_first("SELECT @@thread_handling")
        .unwrap();
    assert_eq!(handling.as_deref(), Some("pool-of-threads"));
}

#[test]
fn a_connect_failure_names_the_level_and_the_side() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let limited = sandbox.write(
        "limited.toml",
        "name = \"limited\"\n[server]\n[server.options]\nmax_user_connections = 10\n",
    );
    let (code, results, output) = run(
        &sandbox,
        &[
            "--baseline",
            "profiles/mariadb.toml",
            "--variant",
            limited.to_str().unwrap(),
            "--workload",
            "oltp_point_select",
            "--threads",
            "2,30",
            "--rounds",
            "2",
            "--round-time",
            "1s",
        ],
    );
    assert_eq!(code, Some(1), "{output}");
    assert!(
        output.contains("variant side, 30 threads, round 1: a connection could not be opened"),
        "{output}"
    );
    assert!(output.contains("[1203]"), "{output}");
    let kept = results["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["status"] == "completed" && r["threads"] == 2)
        .count();
    assert_eq!(kept, 4, "the 2-thread level finished and is kept");
}
