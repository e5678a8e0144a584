//! `abtest analyze` and `abtest plan-rounds`: no database, saved runs and CSVs from any tool.

use crate::support::{Sandbox, text};

const RUN: &str = "tests/fixtures/audit-point-select.json";
const CSV: &str = "tests/fixtures/sysbench-rounds.csv";

#[test]
fn verdict_exit_codes_follow_the_tolerances() {
    let sandbox = Sandbox::new();
    let nogo = sandbox.run(&["analyze", RUN, "--max-tps-loss", "5%"]);
    let (stdout, _) = text(&nogo);
    assert_eq!(nogo.status.code(), Some(3), "{stdout}");
    assert!(stdout.contains("NO-GO: TPS -31.35 %"), "{stdout}");
    let go = sandbox.run(&["analyze", RUN, "--max-tps-loss", "60%"]);
    assert_eq!(go.status.code(), Some(0), "{}", text(&go).0);
    assert!(text(&go).0.contains("GO: TPS"));
    let inconclusive = sandbox.run(&["analyze", RUN, "--max-latency-inflation", "p95=30%"]);
    let (stdout, _) = text(&inconclusive);
    assert_eq!(inconclusive.status.code(), Some(4), "{stdout}");
    assert!(stdout.contains("rounds per side would decide"), "{stdout}");
    let none = sandbox.run(&["analyze", RUN]);
    assert_eq!(none.status.code(), Some(0));
}

#[test]
fn analyze_json_output_recomputes_with_new_alpha_and_percentiles() {
    let sandbox = Sandbox::new();
    let output = sandbox.run(&[
        "analyze",
        RUN,
        "--format",
        "json",
        "--alpha",
        "0.01",
        "--percentiles",
        "50,99.9",
    ]);
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let value: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(value["alpha"], 0.01);
    let metrics: Vec<&str> = value["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["metric"].as_str().unwrap())
        .collect();
    assert_eq!(
        metrics,
        [
            "tps",
            "qps",
            "latency_mean_ms",
            "latency_p50_ms",
            "latency_p99.9_ms",
            "server_cpu_us_per_tx",
            "threads_running"
        ]
    );
}

#[test]
fn analyze_csv_from_any_tool() {
    let sandbox = Sandbox::new();
    let output = sandbox.run(&[
        "analyze",
        CSV,
        "--format",
        "markdown",
        "--max-tps-loss",
        "5%",
    ]);
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(3), "{stdout}{stderr}");
    assert!(stdout.contains("| 8 | tps | 361.3 | 288.0 |"), "{stdout}");
    assert!(stdout.contains("**Result:** NO-GO"), "{stdout}");
}

#[test]
fn analyze_bad_csv_names_the_line() {
    let sandbox = Sandbox::new();
    let bad = sandbox.write(
        "bad.csv",
        "side,threads,round,tps\nbaseline,8,1,100\nvariant,8,1,n/a\n",
    );
    let output = sandbox.run(&["analyze", bad.to_str().unwrap()]);
    let (_, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr.contains("bad.csv:3: tps `n/a` is not a number"),
        "{stderr}"
    );
}

#[test]
fn plan_rounds_answers_before_a_run() {
    let sandbox = Sandbox::new();
    let output = sandbox.run(&["plan-rounds", "--cv", "3%", "--effect", "2%"]);
    let (stdout, _) = text(&output);
    assert_eq!(output.status.code(), Some(0));
    assert!(stdout.contains("rounds per side: 36"), "{stdout}");
}
