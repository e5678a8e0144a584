//! Client behaviour on real servers: the open-loop rate, interval reports, and how
//! errors are counted, ignored or fatal.

use serde_json::Value;

use crate::support::{AA_PROFILES, QUICK, Sandbox, server_lock};

fn run(sandbox: &Sandbox, extra: &[&str]) -> (Option<i32>, Value, String) {
    let mut args = AA_PROFILES.to_vec();
    args.extend(["--threads", "2", "--rounds", "2"]);
    args.extend(QUICK);
    args.extend(extra);
    let finished = sandbox.run_json(&args);
    (finished.code, finished.results, finished.output)
}

#[test]
fn open_loop_rate_and_interval_reports() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let (code, results, output) = run(
        &sandbox,
        &[
            "--workload",
            "oltp_point_select",
            "--rate",
            "400",
            "--report-interval",
            "250ms",
        ],
    );
    assert_eq!(code, Some(0), "{output}");
    for round in results["rounds"].as_array().unwrap() {
        let tps = round["tps"].as_f64().unwrap();
        assert!(
            (300.0..500.0).contains(&tps),
            "a 400/s Poisson rate gave {tps} tps"
        );
        assert_eq!(round["open_loop"]["rate"], 400.0);
        assert!(round["open_loop"]["max_queue_depth"].as_u64().is_some());
    }
    assert!(
        results["rate_not_kept"].is_null(),
        "{}",
        results["rate_not_kept"]
    );
    assert!(!output.contains("did not keep its rate"), "{output}");
    let line = output
        .lines()
        .find(|l| l.contains("thds: 2 tps:"))
        .unwrap_or_else(|| panic!("{output}"));
    assert!(line.starts_with("[baseline round 1/2 threads 2"), "{line}");
    assert!(
        line.contains("(r/w/o: ") && line.contains("lat (ms,95%): ") && line.contains("reconn/s: "),
        "{line}"
    );
}

/// A rate no server on this host keeps: the verdict's sentence says so, with what each
/// side achieved, since latencies measured from the intended start then time a queue.
#[test]
fn an_open_loop_that_falls_behind_says_so_with_the_rate_achieved() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let (code, results, output) = run(
        &sandbox,
        &["--workload", "oltp_point_select", "--rate", "5000000"],
    );
    assert_eq!(code, Some(0), "{output}");
    let said = results["rate_not_kept"]
        .as_str()
        .unwrap_or_else(|| panic!("{results}"));
    assert!(
        said.starts_with("The open loop did not keep its rate of 5000000.0 transactions/s"),
        "{said}"
    );
    for side in ["baseline", "variant"] {
        let achieved = results["rounds"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["side"] == side)
            .map(|r| r["transactions"].as_f64().unwrap() / r["duration_s"].as_f64().unwrap())
            .sum::<f64>()
            / 2.0;
        assert!(achieved < 1_000_000.0, "{side}: {achieved}");
        assert!(
            said.contains(&format!("{side} ")) && said.contains("2 of 2 round(s) short"),
            "{said}"
        );
    }
    let headline = output
        .lines()
        .find(|l| l.starts_with("With 95 % confidence") || l.contains("did not keep"))
        .unwrap_or_else(|| panic!("{output}"));
    assert!(headline.contains("did not keep its rate"), "{headline}");
}

#[test]
fn errors_are_counted_by_code_ignored_on_request_or_fatal() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let workload = sandbox.write(
        "dup.toml",
        "[params]\nid = { type = \"id\" }\n[[transaction]]\nname = \"dup\"\nstatements = [\"INSERT INTO sbtest1 (id, k, c, pad) VALUES ({id}, 1, '', '')\"]\n",
    );
    let workload = workload.to_str().unwrap();
    let (code, results, output) = run(
        &sandbox,
        &["--workload-file", workload, "--ignore-errors", "1062"],
    );
    assert_eq!(code, Some(0), "{output}");
    let round = &results["rounds"][0];
    assert!(round["errors"]["1062"].as_u64().unwrap() > 10, "{round}");
    let comparisons: Vec<&str> = results["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["metric"].as_str().unwrap())
        .collect();
    assert!(comparisons.contains(&"error_rate"), "{comparisons:?}");
    sandbox.assert_nothing_left();

    let (code, results, output) = run(&sandbox, &["--workload-file", workload]);
    assert_eq!(code, Some(1), "{output}");
    assert!(
        output.contains("baseline side, 2 threads, round 1: a worker stopped: [1062]"),
        "{output}"
    );
    assert_eq!(results["status"], "failed");
    assert_eq!(results["rounds"][0]["status"], "failed");
}

/// What `read` finds in each of abtest's worker threads (/proc/PID/task/TID), waiting
/// until some exist.
fn of_worker_threads<T>(pid: u32, read: impl Fn(&std::path::Path) -> Option<T>) -> Vec<T> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while std::time::Instant::now() < deadline {
        let tasks = std::fs::read_dir(format!("/proc/{pid}/task"))
            .into_iter()
            .flatten();
        let found: Vec<T> = tasks
            .flatten()
            .filter(|task| {
                std::fs::read_to_string(task.path().join("comm"))
                    .is_ok_and(|name| name.starts_with("worker-"))
            })
            .filter_map(|task| read(&task.path()))
            .collect();
        if !found.is_empty() {
            return found;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    panic!("no worker thread of abtest {pid} appeared within 60 s");
}

/// Scheduling policies (field 41 of /proc/PID/task/TID/stat) of abtest's worker threads.
fn worker_policies(pid: u32) -> Vec<u32> {
    of_worker_threads(pid, |task| {
        let stat = std::fs::read_to_string(task.join("stat")).ok()?;
        stat.rsplit_once(')')?
            .1
            .split_whitespace()
            .nth(38)?
            .parse()
            .ok()
    })
}

/// The `Cpus_allowed_list` of a task (/proc/PID or /proc/PID/task/TID).
fn cpus_allowed(task: &std::path::Path) -> Option<String> {
    let status = std::fs::read_to_string(task.join("status")).ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("Cpus_allowed_list:"))
        .map(|list| list.trim().to_string())
}

/// The `Cpus_allowed_list` of every thread of process `pid`.
fn cpus_of_every_thread(pid: i32) -> Vec<String> {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .unwrap()
        .flatten()
        .filter_map(|task| cpus_allowed(&task.path()))
        .collect()
}

#[test]
fn cpus_pin_the_client_threads_and_each_managed_server() {
    let _lock = server_lock();
    let online = std::thread::available_parallelism().map_or(1, usize::from);
    if online < 2 {
        eprintln!("skipped: CPU placement needs two CPUs, this host has {online}");
        return;
    }
    let sandbox = Sandbox::new();
    let mut running = sandbox.spawn_aa(&[
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
        "--cpus",
        "client=1,baseline=0,variant=0-1",
    ]);
    let workers = of_worker_threads(running.child.id(), cpus_allowed);
    assert!(workers.iter().all(|cpus| cpus == "1"), "{workers:?}");
    for (side, expected) in [("baseline", "0"), ("variant", "0-1")] {
        let threads = cpus_of_every_thread(crate::support::server_pid(&sandbox, side));
        assert!(threads.len() > 3, "{side}: {threads:?}");
        assert!(
            threads.iter().all(|cpus| cpus == expected),
            "{side}: {threads:?}"
        );
    }
    running.expect_exit(0, std::time::Duration::from_secs(120));
    let results = running.results();
    assert_eq!(results["plan"]["client"]["cpus"], "1");
    assert_eq!(results["plan"]["sides"][0]["cpus"], "0");
    assert_eq!(results["plan"]["sides"][1]["cpus"], "0-1");
}

#[test]
fn worker_threads_run_under_the_chosen_scheduling_policy() {
    let _lock = server_lock();
    for (flag, policy) in [("batch", libc::SCHED_BATCH), ("normal", libc::SCHED_OTHER)] {
        let sandbox = Sandbox::new();
        let mut running = sandbox.spawn_aa(&[
            "--workload",
            "oltp_point_select",
            "--threads",
            "3",
            "--rounds",
            "2",
            "--round-time",
            "2s",
            "--warmup",
            "0s",
            "--table-size",
            "1000",
            "--client-sched",
            flag,
        ]);
        let policies = worker_policies(running.child.id());
        assert!(
            policies.iter().all(|&p| p == policy as u32),
            "--client-sched {flag}: worker policies {policies:?}"
        );
        running.expect_exit(0, std::time::Duration::from_secs(120));
    }
}

/// Connections the server accepted so far (its `Connections` counter).
fn connections_accepted(server: &crate::support::TestServer) -> u64 {
    use mysql::prelude::Queryable;
    let row: Option<(String, u64)> = server
        .admin()
        .unwrap()
        .query_first("SHOW GLOBAL STATUS LIKE 'Connections'")
        .unwrap();
    row.unwrap().1
}

#[test]
fn connections_persist_across_a_sides_rounds_unless_asked_not_to() {
    let _lock = server_lock();
    let servers = [(); 2].map(|_| crate::support::start_server(&Default::default(), 8));
    let sandbox = Sandbox::new();
    let [baseline, variant] =
        [0, 1].map(|i| servers[i].socket_profile(&sandbox, &format!("external-{i}.toml"), ""));
    let accepted = || -> u64 { servers.iter().map(connections_accepted).sum() };
    let run_with = |connections: &str| {
        let before = accepted();
        let mut args = vec!["--baseline", &baseline, "--variant", &variant];
        args.extend(["--workload", "oltp_point_select", "--threads", "1,2"]);
        args.extend(["--rounds", "2", "--connections", connections]);
        args.extend(QUICK);
        let finished = sandbox.run_json(&args);
        assert_eq!(finished.code, Some(0), "{}", finished.output);
        (accepted() - before, finished.results)
    };
    // The first run creates the tables; the two compared below find them.
    run_with("per-round");
    let (kept, results) = run_with("persistent");
    let opened = crate::support::connections_opened(&results);
    // Levels 1 and 2, ABBA: each side opens its connections at its first round of a
    // level and keeps them.
    assert_eq!(opened, [1, 1, 0, 0, 2, 2, 0, 0], "{results}");
    for round in results["rounds"].as_array().unwrap() {
        assert!(round["switch_ms"].as_f64().unwrap() >= 0.0, "{round}");
    }
    assert_eq!(results["plan"]["client"]["connections"], "persistent");
    let (per_round, results) = run_with("per-round");
    assert_eq!(results["plan"]["client"]["connections"], "per_round");
    assert_eq!(results["plan"]["schedule"]["rewarm"], Value::Null);
    // The server counts what each mode opened; the administrator's connections (facts,
    // probes, hooks) are the same in both runs. Per round: 1 x 4 + 2 x 4 = 12 client
    // connections; persistent: 1 + 1 + 2 + 2 = 6.
    assert_eq!(
        per_round - kept,
        6,
        "per-round {per_round}, persistent {kept}"
    );
}

#[test]
fn round_hooks_open_connections_for_every_round() {
    let sandbox = Sandbox::new();
    let profile = sandbox.write(
        "hooked.toml",
        "[server]\n[hooks]\nbefore_round = [\"SET GLOBAL max_connect_errors = 100\"]\n",
    );
    let output = sandbox.run(&[
        "--baseline",
        "profiles/mariadb.toml",
        "--variant",
        profile.to_str().unwrap(),
        "--dry-run",
    ]);
    let (stdout, stderr) = crate::support::text(&output);
    assert_eq!(output.status.code(), Some(0), "{stdout}{stderr}");
    assert!(
        (stdout.clone() + &stderr).contains("connections are opened for every round"),
        "{stdout}{stderr}"
    );
}
