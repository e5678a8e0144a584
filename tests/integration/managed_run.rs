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

/// The names of the variables that differ between the sides.
fn difference_names(results: &Value) -> Vec<&str> {
    results["differences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect()
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
        // The noise budget's raw material, recorded by a real round.
        assert!(
            round["host_load"]["steal_pct"].as_f64().is_some(),
            "{round}"
        );
        assert!(
            round["host_load"]["runnable"].as_f64().unwrap() > 0.0,
            "{round}"
        );
        assert!(
            round["other_server_cpu_pct"].as_f64().unwrap() >= 0.0,
            "{round}"
        );
    }
    assert_eq!(results["plan"]["client"]["client_sched"], "batch");
    let comparisons = results["comparisons"].as_array().unwrap();
    let metrics: Vec<&str> = comparisons
        .iter()
        .map(|c| c["metric"].as_str().unwrap())
        .collect();
    // threads_running is left out when the baseline's samples are all zero: a % change
    // of zero does not exist.
    assert_eq!(
        metrics[..5],
        [
            "tps",
            "latency_mean_ms",
            "latency_p95_ms",
            "latency_p99_ms",
            "server_cpu_us_per_tx",
        ]
    );
    assert!(
        metrics.len() == 5 || metrics[5] == "threads_running",
        "{metrics:?}"
    );
    for c in comparisons {
        for key in ["change_pct", "p", "p_holm"] {
            assert!(c[key].as_f64().unwrap().is_finite(), "{key} in {c}");
        }
        assert!(c["welch"]["df"].as_f64().unwrap() > 0.0);
    }
    let noise = &results["noise"];
    assert!(
        noise["between_rounds_cv_pct"]["baseline"]
            .as_f64()
            .is_some(),
        "{noise}"
    );
    let differences = difference_names(&results);
    assert!(differences.contains(&"thread_handling"), "{differences:?}");
    assert!(stdout.contains("latency p95 (ms)"), "{stdout}");
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
    let rounds = results["rounds"].as_array().unwrap();
    assert_eq!(rounds.len(), 10, "5 rounds per side");
    assert!(rounds.iter().all(|r| r["status"] == "completed"));
    let comparisons = results["comparisons"].as_array().unwrap();
    let metrics: Vec<&str> = comparisons
        .iter()
        .map(|c| c["metric"].as_str().unwrap())
        .collect();
    for metric in ["tps", "latency_mean_ms", "latency_p95_ms", "latency_p99_ms"] {
        assert!(
            metrics.contains(&metric),
            "{metric} not compared: {metrics:?}"
        );
    }
    // The confirmatory family (TPS and latency) carries the A/A guarantee; explanatory
    // metrics such as threads_running are Holm-adjusted on their own and never judged.
    for c in comparisons {
        assert_eq!(c["baseline"]["n"], 5, "{c}");
        assert_eq!(c["variant"]["n"], 5, "{c}");
        if c["family"] == "confirmatory" {
            assert_eq!(c["significant"], false, "A/A comparison flagged: {c}");
        }
    }
    assert!(
        comparisons.iter().any(|c| c["family"] == "explanatory"),
        "server metrics are compared as explanatory"
    );
}

/// The positive control of the A/A test above: the same suite must see a change that
/// is known to be there. server_audit logging every query costs about a fifth of the
/// point-select throughput on this kind of host; against a 5 % tolerance the tool's own
/// decision must be NO-GO (exit 3), with the TPS interval below zero. Twelve rounds a
/// side: with the host loaded by other tests, two servers' rounds vary by 14 % and
/// eight rounds left the bound at -4.8 %, a hair inside the tolerance.
#[test]
fn a_known_slowdown_is_found() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let finished = sandbox.run_json(&[
        "--baseline",
        "profiles/mariadb.toml",
        "--variant",
        "profiles/mariadb-audit.toml",
        "--workload",
        "oltp_point_select",
        "--threads",
        "4",
        "--rounds",
        "12",
        "--round-time",
        "2s",
        "--warmup",
        "500ms",
        "--table-size",
        "1000",
        "--seed",
        "5",
        "--max-tps-loss",
        "5%",
    ]);
    assert_eq!(finished.code, Some(3), "{}", finished.output);
    assert_eq!(finished.results["verdict"], "NO-GO");
    let tps = finished.results["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["metric"] == "tps")
        .expect("tps is compared")
        .clone();
    assert!(tps["ci_pct"][1].as_f64().unwrap() < 0.0, "{tps}");
    // 2 s rounds hold whole seconds: the per-second TPS inside each is recorded.
    for round in finished.results["rounds"].as_array().unwrap() {
        let seconds = round["per_second_tps"].as_array().unwrap();
        assert!(
            !seconds.is_empty() && seconds.iter().all(|t| t.as_f64().unwrap() > 0.0),
            "{round}"
        );
        assert!(
            round["host_load"]["other_cpu_pct"].as_f64().unwrap() >= 0.0,
            "{round}"
        );
    }
    a_saved_run_is_read_at_equal_load(&sandbox, finished.results);
}

/// The real run's rounds with a load planted in them: re-analysed, the TPS change is the
/// intercept of the blocks' log ratios regressed on their load differences, computed
/// here by hand; a file whose plan says `none`, or says nothing, is not adjusted.
fn a_saved_run_is_read_at_equal_load(sandbox: &Sandbox, mut results: Value) {
    let planted = |side: &str, index: u64| {
        let pattern = match side {
            "baseline" => [10.0, 30.0, 0.0, 20.0, 5.0, 25.0, 40.0, 0.0],
            _ => [20.0, 0.0, 35.0, 15.0, 30.0, 10.0, 0.0, 40.0],
        };
        pattern[index as usize % pattern.len()]
    };
    let rounds_per_side = results["rounds"].as_array().unwrap().len() / 2;
    let mut blocks = vec![[[0.0f64; 2]; 2]; rounds_per_side / 2];
    for round in results["rounds"].as_array_mut().unwrap() {
        let (side, index) = (
            round["side"].as_str().unwrap().to_string(),
            round["index"].as_u64().unwrap(),
        );
        let load = planted(&side, index);
        round["host_load"]["other_cpu_pct"] = load.into();
        let s = usize::from(side == "variant");
        blocks[index as usize / 2][s][0] += round["tps"].as_f64().unwrap() / 2.0;
        blocks[index as usize / 2][s][1] += load / 2.0;
    }
    let d: Vec<f64> = blocks.iter().map(|b| (b[1][0] / b[0][0]).ln()).collect();
    let c: Vec<f64> = blocks.iter().map(|b| b[1][1] - b[0][1]).collect();
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let (cm, dm) = (mean(&c), mean(&d));
    let slope = c
        .iter()
        .zip(&d)
        .map(|(x, y)| (x - cm) * (y - dm))
        .sum::<f64>()
        / c.iter().map(|x| (x - cm).powi(2)).sum::<f64>();
    let by_hand = 100.0 * ((dm - slope * cm).exp() - 1.0);
    let reanalysed = |results: &Value, name: &str| {
        let path = sandbox.path(name);
        std::fs::write(&path, results.to_string()).unwrap();
        let output = sandbox.run(&["report", path.to_str().unwrap(), "--format", "json"]);
        let report: Value = serde_json::from_slice(&output.stdout).unwrap();
        report["comparisons"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["metric"] == "tps")
            .unwrap()
            .clone()
    };
    // Not adjusted by default; asked for, with a load that passes the balance check.
    assert_eq!(results["plan"]["analysis"]["adjust"], "none");
    for analysis in ["/analysis", "/plan/analysis"] {
        results.pointer_mut(analysis).unwrap()["adjust"] = "host_load".into();
    }
    let tps = reanalysed(&results, "planted.json");
    let change = tps["change_pct"].as_f64().unwrap();
    assert!(
        (change - by_hand).abs() < 1e-9 * by_hand.abs(),
        "{change} against {by_hand}: {tps}"
    );
    assert!((tps["blocks"]["adjustment"]["slope"].as_f64().unwrap() - slope).abs() < 1e-12);
    let plain = 100.0 * (dm.exp() - 1.0);
    for analysis in ["/analysis", "/plan/analysis"] {
        results.pointer_mut(analysis).unwrap()["adjust"] = "none".into();
    }
    let tps = reanalysed(&results, "planted-none.json");
    assert!(tps["blocks"]["adjustment"].is_null(), "{tps}");
    assert!((tps["change_pct"].as_f64().unwrap() - plain).abs() < 1e-9 * plain.abs());
    for analysis in ["/analysis", "/plan/analysis"] {
        let options = results.pointer_mut(analysis).unwrap();
        options.as_object_mut().unwrap().remove("adjust");
    }
    let tps = reanalysed(&results, "planted-old.json");
    assert!(tps["blocks"]["adjustment"].is_null(), "{tps}");
}

/// profiles/mariadb-tls.toml: the workload of that side really is encrypted, by the
/// server's own account, and the other side's is not.
#[test]
fn client_tls_on_a_managed_side_is_in_effect() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let (results, _) = run_json(
        &sandbox,
        &[
            "--baseline",
            "profiles/mariadb.toml",
            "--variant",
            "profiles/mariadb-tls.toml",
            "--workload",
            "oltp_point_select",
            "--threads",
            "2",
            "--rounds",
            "2",
        ],
    );
    let cipher = |side: &str| {
        results["sides"][side]["facts"]["tls_cipher"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(cipher("baseline"), "none");
    assert_ne!(cipher("variant"), "none");
    let differences = difference_names(&results);
    assert!(
        differences.contains(&"client_tls_cipher"),
        "{differences:?}"
    );
}

/// A run with a budget and `--until decided` looks as it goes: the audit plugin's cost
/// is decided before the budget is spent, or the last look says it was not, and the
/// results file shows every look.
#[test]
fn a_budget_run_looks_and_says_why_it_stopped() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let finished = sandbox.run_json(&[
        "--baseline",
        "profiles/mariadb.toml",
        "--variant",
        "profiles/mariadb-audit.toml",
        "--workload",
        "oltp_point_select",
        "--threads",
        "4",
        "--table-size",
        "1000",
        "--round-time",
        "1s",
        "--warmup",
        "500ms",
        "--max-time",
        "36s",
        "--until",
        "decided",
        "--looks",
        "3",
        "--max-tps-loss",
        "5%",
        "--seed",
        "3",
    ]);
    crate::support::assert_valid_results(&finished.results);
    let (results, code, stdout) = (&finished.results, finished.code, &finished.output);
    let looks = results["looks"].as_array().expect("looks recorded");
    assert!(!looks.is_empty(), "{stdout}");
    let stopped = results["stopped"].as_str().unwrap();
    let rounds = results["rounds"].as_array().unwrap().len() as u64;
    let last = looks.last().unwrap();
    assert_eq!(
        rounds,
        2 * last["rounds_per_side"].as_u64().unwrap(),
        "no round after the stop"
    );
    if stopped.starts_with("decided") {
        assert_eq!(
            code,
            Some(3),
            "the audit plugin costs more than 5 %: {stdout}"
        );
    } else {
        // Undecided: the run went to the budget's last planned look.
        let planned = &results["plan"]["sequential"]["design"]["rounds"];
        let final_look = planned.as_array().unwrap().last().unwrap();
        assert_eq!(&last["rounds_per_side"], final_look, "{stopped}");
    }
    assert_eq!(
        results["analysis"]["alpha"], last["alpha"],
        "the final analysis is the last look's"
    );
    assert!(stdout.contains("stopped: "), "{stdout}");
}

#[test]
fn an_aa_run_on_three_instances_reports_both_variance_components() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let markdown = sandbox.path("report.md");
    let finished = sandbox.run_json(&[
        "--baseline",
        "profiles/mariadb.toml",
        "--variant",
        "profiles/mariadb.toml",
        "--workload",
        "oltp_point_select",
        "--threads",
        "2",
        "--table-size",
        "1000",
        "--instances",
        "3",
        "--rounds",
        "6",
        "--round-time",
        "1s",
        "--warmup",
        "500ms",
        "--rewarm",
        "300ms",
        "--markdown",
        markdown.to_str().unwrap(),
    ]);
    assert_eq!(finished.code, Some(0), "{}", finished.output);
    let results = finished.results;
    crate::support::assert_valid_results(&results);
    let instances: Vec<u64> = results["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["instance"].as_u64().unwrap())
        .collect();
    assert_eq!(instances, [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]);
    assert_eq!(results["instance_switches_s"].as_array().unwrap().len(), 2);
    assert!(
        finished
            .output
            .contains("instance 2/3: both sides on fresh servers")
    );
    let components = results["noise"]["instances"].as_array().unwrap();
    assert_eq!(components.len(), 2, "{components:?}");
    for side in components {
        assert_eq!(side["tps"]["instances"], 3);
        assert_eq!(side["tps"]["rounds"], 6);
        assert!(side["between_cv_pct"].as_f64().unwrap() >= 0.0);
        assert!(side["within_cv_pct"].as_f64().unwrap() > 0.0);
    }
    // Instance i of each side started together: the split into what both shared and
    // what each had of its own.
    let pairs = results["noise"]["instance_pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 1, "{pairs:?}");
    assert_eq!(pairs[0]["threads"], 2);
    assert_eq!(pairs[0]["tps"]["pairs"], 3);
    for key in ["own_cv_pct", "shared_cv_pct"] {
        assert!(pairs[0][key].as_f64().unwrap() >= 0.0, "{key}");
    }
    let tps = results["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["metric"] == "tps")
        .unwrap();
    assert_eq!(tps["unit"], "instance");
    let report = std::fs::read_to_string(&markdown).unwrap();
    assert!(report.contains("between instances"), "{report}");
    assert!(report.contains("both sides' instances shared"), "{report}");
    assert!(
        report.contains("each instance gives one value per metric, the mean of its rounds"),
        "{report}"
    );
}

#[test]
fn calibrate_says_how_far_two_instances_differ() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let json = sandbox.path("calibration.json");
    let output = sandbox.run(&[
        "calibrate",
        "profiles/mariadb.toml",
        "--instances",
        "2",
        "--max-time",
        "15s",
        "--json",
        json.to_str().unwrap(),
        "--",
        "--workload",
        "oltp_point_select",
        "--threads",
        "2",
        "--table-size",
        "1000",
        "--round-time",
        "1s",
        "--warmup",
        "500ms",
        "--rewarm",
        "300ms",
    ]);
    let (stdout, stderr) = crate::support::text(&output);
    assert_eq!(output.status.code(), Some(0), "{stdout}{stderr}");
    assert!(
        stdout.contains("instances of one configuration differ with an SD of")
            && stdout.contains("(two of them differ by about"),
        "{stdout}"
    );
    assert!(stdout.contains("SD between instances"), "{stdout}");
    // The promised resolution line, whether or not two instances bound the interval.
    assert!(
        stdout.contains("A comparison like this one (2 instances per side"),
        "{stdout}"
    );
    // Two instances are too few, and said so; an A/A is calibrate's point, not a warning.
    assert!(stderr.contains("use --instances 4 or more"), "{stderr}");
    assert!(!stderr.contains("this is an A/A comparison"), "{stderr}");
    assert!(
        stdout.contains("moved both sides' instances together")
            && stdout.contains("two instances started together differ by about"),
        "{stdout}"
    );
    let results: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    crate::support::assert_valid_results(&results);
    assert_eq!(results["noise"]["instances"].as_array().unwrap().len(), 2);
    // An external profile cannot be restarted: refused before anything starts.
    let external = sandbox.write(
        "external.toml",
        "[connection]\nhost = \"127.0.0.1\"\nport = 3306\nuser = \"x\"\ndatabase = \"sbtest\"\n",
    );
    let refused = sandbox.run(&["calibrate", external.to_str().unwrap()]);
    let (_, stderr) = crate::support::text(&refused);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("external server, which abtest cannot restart"),
        "{stderr}"
    );
}

/// `--quiet` leaves stderr to warnings and errors: no per-round line, no note; the
/// table on stdout and the results are as without it. `--color never` keeps escape
/// codes out of a table that `--color always` colours.
#[test]
fn quiet_leaves_the_answer_and_drops_the_chatter() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let mut args: Vec<&str> = crate::support::AA_PROFILES.to_vec();
    args.extend(crate::support::SHORT_POINT_SELECTS);
    args.extend(QUICK);
    args.extend(["--quiet", "--color", "always"]);
    let output = sandbox.run(&args);
    let (stdout, stderr) = crate::support::text(&output);
    assert_eq!(output.status.code(), Some(0), "{stdout}{stderr}");
    assert!(!stderr.contains("round 1/2"), "{stderr}");
    assert!(
        stderr.lines().all(|l| l.starts_with("abtest: warning:")),
        "only warnings: {stderr}"
    );
    assert!(stdout.contains("TPS"), "{stdout}");
    let report = |colour: &str| {
        let run = crate::support::repo().join("tests/fixtures/audit-point-select.json");
        let output = sandbox.run(&["report", run.to_str().unwrap(), "--color", colour]);
        crate::support::text(&output).0
    };
    assert!(report("always").contains('\u{1b}'));
    assert!(!report("never").contains('\u{1b}'));
    sandbox.assert_nothing_left();
}
