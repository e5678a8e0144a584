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

/// Runs `abtest analyze` on CSV text with `flags`; returns the exit code and stdout.
fn analyze_csv(sandbox: &Sandbox, name: &str, csv: &str, flags: &[&str]) -> (Option<i32>, String) {
    let path = sandbox.write(name, csv);
    let mut args = vec!["analyze", path.to_str().unwrap()];
    args.extend(flags);
    let output = sandbox.run(&args);
    let (stdout, stderr) = text(&output);
    (output.status.code(), stdout + &stderr)
}

#[test]
fn a_tolerance_that_could_not_be_checked_is_never_go() {
    let sandbox = Sandbox::new();
    // p99 on one round per side, showing 10× inflation: never silently dropped.
    let one_p99 = "side,threads,round,tps,latency_p99_ms\nbaseline,8,1,100,1.0\nvariant,8,1,100,10.0\n\
                   baseline,8,2,101,\nvariant,8,2,99,\nbaseline,8,3,100,\nvariant,8,3,100,\n";
    let (code, output) = analyze_csv(
        &sandbox,
        "p99.csv",
        one_p99,
        &["--max-latency-inflation", "10%"],
    );
    assert_eq!(code, Some(4), "{output}");
    assert!(
        output.contains("INCONCLUSIVE (a tolerance could not be checked: latency_p99_ms at 8 threads: 1 baseline and 1 variant round(s)"),
        "{output}"
    );
    // A latency tolerance on a file without any latency column is a usage error.
    let no_latency = "side,threads,round,tps\nbaseline,8,1,100\nvariant,8,1,99\nbaseline,8,2,101\nvariant,8,2,98\n";
    let (code, output) = analyze_csv(
        &sandbox,
        "nolat.csv",
        no_latency,
        &["--max-latency-inflation", "10%"],
    );
    assert_eq!(code, Some(2), "{output}");
    assert!(
        output.contains("nolat.csv: the tolerances need latency_*, which the file does not have"),
        "{output}"
    );
    // So is an error-rate tolerance on a CSV that recorded no error rate.
    let (code, output) = analyze_csv(
        &sandbox,
        "noerr.csv",
        no_latency,
        &["--max-tps-loss", "50%", "--max-error-rate", "1%"],
    );
    assert_eq!(code, Some(2), "{output}");
    assert!(
        output.contains("noerr.csv: the tolerances need error_rate"),
        "{output}"
    );
}

/// A saved run re-judged with a tolerance on a percentile it never recorded.
#[test]
fn a_saved_run_names_the_tolerance_it_could_not_check() {
    let sandbox = Sandbox::new();
    let args = [
        "analyze",
        RUN,
        "--max-tps-loss",
        "60%",
        "--max-latency-inflation",
        "p99.9=50%",
    ];
    let output = sandbox.run(&args);
    let (stdout, _) = text(&output);
    assert_eq!(output.status.code(), Some(4), "{stdout}");
    assert!(
        stdout.contains(
            "INCONCLUSIVE (a tolerance could not be checked: latency_p99.9_ms: not in the data)"
        ),
        "{stdout}"
    );
    let output = sandbox.run(&[&args[..], &["--format", "json"]].concat());
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        json["unchecked_tolerances"],
        serde_json::json!(["latency_p99.9_ms: not in the data"])
    );
}

#[test]
fn huge_and_tiny_values_are_analysed_like_values_near_one() {
    let sandbox = Sandbox::new();
    let change = |scale: &str| {
        let csv = format!(
            "side,threads,round,tps\nbaseline,8,1,1{scale}\nvariant,8,1,2{scale}\nbaseline,8,2,3{scale}\nvariant,8,2,1{scale}\n\
             baseline,8,3,2{scale}\nvariant,8,3,2{scale}\n"
        );
        let (code, output) = analyze_csv(
            &sandbox,
            "scaled.csv",
            &csv,
            &["--format", "json", "--max-tps-loss", "5%"],
        );
        assert_eq!(code, Some(4), "1{scale}: {output}");
        let json: serde_json::Value = serde_json::from_str(
            output
                .lines()
                .take_while(|l| !l.starts_with("abtest:"))
                .collect::<Vec<_>>()
                .join("\n")
                .as_str(),
        )
        .unwrap();
        let tps = &json["comparisons"][0];
        (
            tps["change_pct"].as_f64().unwrap(),
            tps["p"].as_f64().unwrap(),
            tps["ci_pct"].clone(),
        )
    };
    let near_one = change("");
    for scale in ["e200", "e-90"] {
        let scaled = change(scale);
        assert!(
            (scaled.0 - near_one.0).abs() < 1e-9,
            "{scale}: {scaled:?} vs {near_one:?}"
        );
        assert!(
            (scaled.1 - near_one.1).abs() < 1e-9,
            "{scale}: {scaled:?} vs {near_one:?}"
        );
        assert_eq!(scaled.2.is_null(), near_one.2.is_null(), "{scale}");
    }
}

#[test]
fn duplicate_rounds_and_non_positive_tps_are_refused_with_the_line() {
    let sandbox = Sandbox::new();
    let rows = "side,threads,round,tps\nbaseline,8,1,100\nvariant,8,1,90\nbaseline,8,2,101\nvariant,8,2,91\n";
    for (name, extra, needle) in [
        (
            "dup.csv",
            "baseline,8,2,99\n",
            "dup.csv:6: baseline round 2 at 8 threads appears twice",
        ),
        ("zero.csv", "baseline,8,0,99\n", "zero.csv:6: round 0"),
        (
            "neg.csv",
            "variant,8,3,-5\n",
            "neg.csv:6: tps `-5` must be above 0",
        ),
    ] {
        let (code, output) = analyze_csv(
            &sandbox,
            name,
            &format!("{rows}{extra}"),
            &["--max-tps-loss", "50%"],
        );
        assert_eq!(code, Some(2), "{name}: {output}");
        assert!(output.contains(needle), "{name}: {output}");
    }
}
