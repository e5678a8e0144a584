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
    assert!(
        stdout.contains(
            "NO-GO: TPS loss at least 17.4 % at 8 threads, beyond the 5 % tolerance (95 % one-sided bound). \
             With 95 % confidence, MariaDB + server_audit costs 13.0–44.3 % of TPS at 8 threads."
        ),
        "{stdout}"
    );
    let go = sandbox.run(&["analyze", RUN, "--max-tps-loss", "60%"]);
    assert_eq!(go.status.code(), Some(0), "{}", text(&go).0);
    assert!(
        text(&go)
            .0
            .contains("GO: TPS loss at most 41.9 % at 8 threads, within the 60 % tolerance")
    );
    let inconclusive = sandbox.run(&[
        "analyze",
        RUN,
        "--max-tps-loss",
        "60%",
        "--max-latency-inflation",
        "p95=30%",
    ]);
    let (stdout, _) = text(&inconclusive);
    assert_eq!(inconclusive.status.code(), Some(4), "{stdout}");
    assert!(stdout.contains("rounds per side would decide"), "{stdout}");
    // A saved run is judged against its own tolerance (5 %), as the run was.
    let saved = sandbox.run(&["analyze", RUN]);
    assert_eq!(saved.status.code(), Some(3), "{}", text(&saved).0);
    let rendered = sandbox.run(&["analyze", RUN, "--no-verdict-exit"]);
    assert_eq!(rendered.status.code(), Some(0));
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
        "--no-verdict-exit",
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
    assert!(stdout.contains("| 8 | TPS | 361.3 | 288.0 |"), "{stdout}");
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
    // One-sided, as the verdict reads: the normal formula's 2·((z.95 + z.80)·3/2)² =
    // 27.8 becomes 30 with the t-test's quantiles; two-sided 35.3 becomes 38.
    assert!(
        stdout.contains("rounds per side: 30 to decide a tolerance"),
        "{stdout}"
    );
    assert!(
        stdout.contains("38 to find a 2.00 % change significant"),
        "{stdout}"
    );
    // 30 rounds per side of 5 s after a 1 s re-warm, both sides: 6 min.
    assert!(stdout.contains("wall-clock: about 6m for 30"), "{stdout}");
    let output = sandbox.run(&[
        "plan-rounds",
        "--pilot",
        RUN,
        "--effect",
        "5%",
        "--round-time",
        "10s",
        "--warmup",
        "2s",
        "--levels",
        "2",
    ]);
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    // The fixture's TPS CVs: 17.8 % and 9.2 %, root mean square 14.19 %.
    assert!(
        stdout.contains("CV 14.19 % from the pilot (8 threads, 5 baseline and 5 variant rounds)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("rounds per side: 102 to decide"),
        "{stdout}"
    );
    // 102 rounds × 2 sides × 2 levels × 12 s = 81 min 36 s.
    assert!(stdout.contains("wall-clock: about 1h 21m 36s"), "{stdout}");
    // Without --round-time and --warmup, the pilot's own rounds (3 s after a 2 s warm-up,
    // connections opened for every round): its CV is of rounds that long.
    let output = sandbox.run(&["plan-rounds", "--pilot", RUN, "--effect", "5%"]);
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    // 102 rounds × 2 sides × 5 s = 17 min.
    assert!(
        stdout.contains("wall-clock: about 17m for 102 rounds per side (1 levels, rounds of 3s after 2s warm-up)"),
        "{stdout}"
    );
    // A rounds CSV says nothing of its rounds' length: the defaults.
    let csv = sandbox.run(&["plan-rounds", "--pilot", CSV, "--effect", "5%"]);
    assert_eq!(csv.status.code(), Some(0), "{}", text(&csv).1);
    assert!(text(&csv).0.contains("from the pilot"));
    assert!(
        text(&csv).0.contains("rounds of 5s after 1s warm-up"),
        "{}",
        text(&csv).0
    );
}

/// A pilot that ran on server instances is planned in instances: its CV is that of the
/// instance means, every count is instances per side, and a re-analysis of it counts
/// instances too, never rounds.
#[test]
fn a_pilot_on_instances_is_planned_in_instances() {
    let sandbox = Sandbox::new();
    let mut run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(RUN).unwrap()).unwrap();
    // The fixture's 5 rounds per side, as two instances of 3 and 2 rounds.
    let mut means: std::collections::BTreeMap<(String, u64), Vec<f64>> = Default::default();
    for round in run["rounds"].as_array_mut().unwrap() {
        let instance = round["index"].as_u64().unwrap() * 2 / 5;
        round["instance"] = instance.into();
        let side = round["side"].as_str().unwrap().to_string();
        means
            .entry((side, instance))
            .or_default()
            .push(round["tps"].as_f64().unwrap());
    }
    let cv_of_side = |side: &str| {
        let values: Vec<f64> = means
            .iter()
            .filter(|((s, _), _)| s == side)
            .map(|(_, v)| v.iter().sum::<f64>() / v.len() as f64)
            .collect();
        let mean = values.iter().sum::<f64>() / values.len() as f64;
        let var =
            values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (values.len() - 1) as f64;
        var.sqrt() / mean
    };
    let cv = ((cv_of_side("baseline").powi(2) + cv_of_side("variant").powi(2)) / 2.0).sqrt();
    let pilot = sandbox.write("instances.json", &run.to_string());
    let pilot = pilot.to_str().unwrap();
    let output = sandbox.run(&["plan-rounds", "--pilot", pilot, "--effect", "5%"]);
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let source = format!(
        "CV {:.2} % from the pilot (8 threads, 2 baseline and 2 variant instances; the CV is of \
         instance means of about 3 rounds each",
        100.0 * cv
    );
    assert!(stdout.contains(&source), "{source}\n{stdout}");
    assert!(stdout.contains("instances per side: "), "{stdout}");
    assert!(
        stdout.contains("instances per side of 3 rounds each"),
        "{stdout}"
    );
    assert!(stdout.contains("   5 instances: "), "{stdout}");
    assert!(!stdout.contains("rounds per side"), "{stdout}");
    let output = sandbox.run(&["analyze", pilot]);
    let (stdout, stderr) = text(&output);
    assert!(
        stderr.contains("baseline TPS at 8 threads: only 2 instances"),
        "{stderr}"
    );
    assert!(!stderr.contains("only 5 rounds"), "{stderr}");
    assert!(
        stdout.contains("so 2 instances can detect a change of about"),
        "{stdout}"
    );
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
        output.contains("INCONCLUSIVE: not judged: latency p99 (ms) at 8 threads: 1 baseline and 1 variant round(s)"),
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
        stdout.contains("INCONCLUSIVE: not judged: latency p99.9 (ms): not in the data."),
        "{stdout}"
    );
    let output = sandbox.run(&[&args[..], &["--format", "json"]].concat());
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        json["unchecked_tolerances"],
        serde_json::json!(["latency p99.9 (ms): not in the data"])
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

/// TPS p-value after Holm, and the compared metrics with their families, of a CSV.
fn tps_holm_and_families(sandbox: &Sandbox, name: &str, csv: &str) -> (f64, Vec<(String, String)>) {
    let (code, output) = analyze_csv(sandbox, name, csv, &["--format", "json"]);
    assert_eq!(code, Some(0), "{output}");
    let json = &output[..output.rfind('}').unwrap() + 1];
    let value: serde_json::Value = serde_json::from_str(json).unwrap();
    let comparisons = value["comparisons"].as_array().unwrap();
    let tps = comparisons.iter().find(|c| c["metric"] == "tps").unwrap();
    let families = comparisons
        .iter()
        .map(|c| {
            (
                c["metric"].as_str().unwrap().to_string(),
                c["family"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    (tps["p_holm"].as_f64().unwrap(), families)
}

#[test]
fn adding_a_column_never_moves_the_holm_p_of_tps() {
    let sandbox = Sandbox::new();
    let rows = [
        ("baseline", 1, 100.0, 0.9),
        ("variant", 1, 80.0, 1.2),
        ("baseline", 2, 104.0, 0.95),
        ("variant", 2, 86.0, 1.1),
        ("baseline", 3, 97.0, 1.0),
        ("variant", 3, 79.0, 1.3),
    ];
    let lean: String = rows.iter().fold(
        "side,threads,round,tps,latency_mean_ms\n".to_string(),
        |csv, (side, round, tps, latency)| csv + &format!("{side},8,{round},{tps},{latency}\n"),
    );
    // qps is tps (point selects), and three explanatory columns that all differ.
    let wide: String = rows.iter().fold(
        "side,threads,round,tps,latency_mean_ms,qps,server_cpu_us_per_tx,threads_running,Com_select\n"
            .to_string(),
        |csv, (side, round, tps, latency)| {
            let cpu = if *side == "baseline" { 50.0 } else { 70.0 } + *round as f64;
            csv + &format!("{side},8,{round},{tps},{latency},{tps},{cpu},{cpu},{}\n", tps * 3.0)
        },
    );
    let (lean_p, lean_metrics) = tps_holm_and_families(&sandbox, "lean.csv", &lean);
    let (wide_p, wide_metrics) = tps_holm_and_families(&sandbox, "wide.csv", &wide);
    assert_eq!(lean_p, wide_p, "TPS's Holm p moved when columns were added");
    let family = |metrics: &[(String, String)], name: &str| {
        metrics
            .iter()
            .find(|(metric, _)| metric == name)
            .map(|(_, family)| family.clone())
    };
    assert_eq!(
        family(&lean_metrics, "latency_mean_ms").as_deref(),
        Some("confirmatory")
    );
    assert_eq!(
        family(&wide_metrics, "tps").as_deref(),
        Some("confirmatory")
    );
    for explanatory in ["server_cpu_us_per_tx", "threads_running", "com_select"] {
        assert_eq!(
            family(&wide_metrics, explanatory).as_deref(),
            Some("explanatory"),
            "{explanatory}"
        );
    }
    assert_eq!(family(&wide_metrics, "qps"), None, "qps only repeats tps");
    let (_, table) = analyze_csv(&sandbox, "wide.csv", &wide, &[]);
    assert!(
        table.contains("Explanatory metrics (not judged; Holm-adjusted among themselves)"),
        "{table}"
    );
    assert!(table.contains("server CPU per transaction (µs)"), "{table}");
}

#[test]
fn every_percentage_and_probability_has_one_meaning() {
    let sandbox = Sandbox::new();
    let refused = [
        (
            &["analyze", CSV, "--max-tps-loss", "0.05"][..],
            "did you mean 5%?",
        ),
        (
            &["analyze", CSV, "--max-tps-loss", "105%"][..],
            "105 % is impossible",
        ),
        (
            &["analyze", CSV, "--max-error-rate", "150"][..],
            "150 % is impossible",
        ),
        (&["analyze", CSV, "--alpha", "5"][..], "write 5% or 0.05"),
        (&["analyze", CSV, "--alpha", "0.6"][..], "impossible"),
        (
            &[
                "plan-rounds",
                "--cv",
                "5%",
                "--effect",
                "3%",
                "--power",
                "0.4",
            ][..],
            "impossible",
        ),
        (
            &["plan-rounds", "--cv", "0.05", "--effect", "3%"][..],
            "did you mean 5%?",
        ),
    ];
    for (args, needle) in refused {
        let output = sandbox.run(args);
        let (stdout, stderr) = text(&output);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stdout}{stderr}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
    }
    let same = |a: &[&str], b: &[&str]| {
        let (x, y) = (sandbox.run(a), sandbox.run(b));
        assert_eq!(x.status.code(), Some(3), "{}", text(&x).1);
        assert_eq!(text(&x).0, text(&y).0, "{a:?} and {b:?} differ");
    };
    same(
        &["analyze", CSV, "--max-tps-loss", "5", "--alpha", "0.05"],
        &["analyze", CSV, "--max-tps-loss", "5%", "--alpha", "5%"],
    );
    let plan = |power: &str| {
        let output = sandbox.run(&[
            "plan-rounds",
            "--cv",
            "5%",
            "--effect",
            "3%",
            "--power",
            power,
        ]);
        assert_eq!(output.status.code(), Some(0), "{}", text(&output).1);
        text(&output).0
    };
    assert_eq!(plan("0.9"), plan("90%"));
    assert!(plan("0.9").contains("power 90 %"), "{}", plan("0.9"));
}

#[test]
fn a_saved_run_is_rejudged_and_rendered_in_every_format() {
    let sandbox = Sandbox::new();
    let rejudged = sandbox.run(&["report", RUN, "--max-tps-loss", "50%"]);
    let (stdout, stderr) = text(&rejudged);
    assert_eq!(rejudged.status.code(), Some(0), "{stderr}");
    assert!(
        stdout.contains("GO: TPS loss at most 41.9 % at 8 threads, within the 50 % tolerance"),
        "{stdout}"
    );
    // Without flags, the saved tolerance (5 %) is the one judged against, with the
    // run's exit code.
    let saved = sandbox.run(&["report", RUN]);
    assert_eq!(saved.status.code(), Some(3));
    assert!(
        text(&saved)
            .0
            .contains("NO-GO: TPS loss at least 17.4 % at 8 threads, beyond the 5 % tolerance"),
        "{}",
        text(&saved).0
    );
    for (format, needle) in [
        ("table", "NO-GO: TPS loss at least 17.4 %"),
        ("md", "**Result:** NO-GO"),
        ("markdown", "## Method"),
        ("html", "<svg"),
        ("jira", "h1. abtest: MariaDB vs MariaDB \\+ server\\_audit"),
        ("json", "\"verdict\": \"NO-GO\""),
        ("csv", "side,threads,round"),
    ] {
        let output = sandbox.run(&["report", RUN, "--format", format]);
        let (stdout, stderr) = text(&output);
        assert_eq!(output.status.code(), Some(3), "{format}: {stderr}");
        assert!(stdout.contains(needle), "{format}: {stdout}");
    }
    let html = sandbox.run(&["analyze", RUN, "--format", "html", "--max-tps-loss", "5%"]);
    assert_eq!(html.status.code(), Some(3), "{}", text(&html).1);
    assert!(text(&html).0.contains("<svg"));
}

#[test]
fn plan_rounds_plans_for_the_t_test_and_the_pilots_own_noise() {
    let sandbox = Sandbox::new();
    // The normal formula says 2 rounds here, whose true power is 0.30.
    let output = sandbox.run(&["plan-rounds", "--cv", "2%", "--effect", "5%"]);
    let (stdout, _) = text(&output);
    assert!(
        stdout.starts_with("rounds per side: 4 to decide a tolerance"),
        "{stdout}"
    );
    let output = sandbox.run(&["plan-rounds", "--pilot", RUN, "--effect", "10%"]);
    let (stdout, _) = text(&output);
    assert!(
        stdout.contains("rounds per side: 45 with the CV's 80 % upper confidence bound, 18.73 %"),
        "{stdout}"
    );
    assert!(
        stdout.contains("the plan of 27 from the point estimate keeps 75 % power on average"),
        "{stdout}"
    );
}

/// The thread-pool example analysed by ABBA blocks, every round given the other
/// processes' CPU it met: a wandering neighbour, plus `shift` points in the variant's
/// rounds.
fn with_neighbour(sandbox: &Sandbox, name: &str, shift: f64) -> String {
    crate::support::edited_run(sandbox, "examples/thread-pool/results.json", name, |run| {
        run["analysis"]["blocking"] = "blocks".into();
        for (i, round) in run["rounds"].as_array_mut().unwrap().iter_mut().enumerate() {
            let moved = if round["side"] == "variant" {
                shift
            } else {
                0.0
            };
            let load = 30.0 + 12.0 * ((i as f64) * 1.7).sin() + moved;
            round["host_load"] = serde_json::json!({
                "steal_pct": 0.0, "runnable": 1.0, "other_cpu_pct": load
            });
        }
    })
}

#[test]
fn a_saved_run_is_judged_again_with_or_without_the_load_adjustment() {
    let sandbox = Sandbox::new();
    // The variant's rounds met 15 points more of the neighbour's CPU: the adjustment,
    // asked for, is refused with the reason and decides nothing.
    let moved = with_neighbour(&sandbox, "moved.json", 15.0);
    for command in ["analyze", "report"] {
        let output = sandbox.run(&[
            command,
            &moved,
            "--max-tps-loss",
            "5%",
            "--adjust",
            "host-load",
        ]);
        let (stdout, stderr) = text(&output);
        assert_eq!(output.status.code(), Some(4), "{command}: {stdout}{stderr}");
        assert!(
            stdout.contains("--adjust host-load was refused: the variant's rounds met +14.8"),
            "{command}: {stdout}"
        );
        assert!(stdout.contains("re-analyse with --adjust none"), "{stdout}");
        // The hint works where it is printed.
        let output = sandbox.run(&[command, &moved, "--max-tps-loss", "5%", "--adjust", "none"]);
        let (stdout, stderr) = text(&output);
        assert_eq!(output.status.code(), Some(0), "{command}: {stdout}{stderr}");
        assert!(stdout.contains("GO: TPS"), "{command}: {stdout}");
    }
    // Balanced load: adjusted, and the report says so.
    let balanced = with_neighbour(&sandbox, "balanced.json", 0.0);
    let output = sandbox.run(&[
        "report",
        &balanced,
        "--adjust",
        "host-load",
        "--format",
        "markdown",
    ]);
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stdout.contains("passed the balance check"), "{stdout}");
    // A value that is not one is a usage error.
    let output = sandbox.run(&["analyze", &balanced, "--adjust", "cpu"]);
    assert_eq!(output.status.code(), Some(2));
}

/// `--max-class-slowdown` on a run that timed no class, or whose every timed class was
/// left out, checks nothing: the GO the TPS tolerance gives becomes INCONCLUSIVE, with
/// the reason; and the timing a file holds is judged like a live run's.
#[test]
fn a_class_slowdown_nothing_was_timed_for_never_passes_for_go() {
    let sandbox = Sandbox::new();
    let go = ["analyze", RUN, "--max-tps-loss", "60%"];
    let untimed = sandbox.run(&[&go[..], &["--max-class-slowdown", "2x"]].concat());
    let (stdout, stderr) = text(&untimed);
    assert_eq!(untimed.status.code(), Some(4), "{stdout}");
    assert!(stderr.contains("no query class was timed"), "{stderr}");
    let mut saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(RUN).unwrap()).unwrap();
    let class = |left_out: Option<&str>, log_ratio: f64| {
        let block = serde_json::json!({"mean_log_ms": [0.0, log_ratio], "median_ms": [1.0, 1.0]});
        let mut class = serde_json::json!({
            "class": "SELECT c FROM sbtest1 WHERE id = {id}",
            "statement": "SELECT c FROM sbtest1 WHERE id = ?",
            "pairs": 5,
            "blocks": if left_out.is_some() { vec![] } else { vec![block; 6] },
        });
        if let Some(why) = left_out {
            class["left_out"] = why.into();
        }
        class
    };
    let mut with = |classes: Vec<serde_json::Value>| {
        saved["class_timing"] = serde_json::json!({
            "blocks": 6, "budget_s": 60.0, "elapsed_s": 50.0, "classes": classes
        });
        let path = sandbox.write("timed.json", &saved.to_string());
        let run = sandbox.run(&[
            "analyze",
            path.to_str().unwrap(),
            "--max-tps-loss",
            "60%",
            "--max-class-slowdown",
            "2x",
        ]);
        let (stdout, stderr) = text(&run);
        (run.status.code(), format!("{stdout}{stderr}"))
    };
    let (code, output) = with(vec![class(
        Some("variant: 1176 (42000): Key 'k_1' doesn't exist"),
        0.0,
    )]);
    assert_eq!(code, Some(4), "{output}");
    assert!(
        output.contains("every timed query class was left out"),
        "{output}"
    );
    let (code, output) = with(vec![class(None, 0.0)]);
    assert_eq!(code, Some(0), "an unchanged class within 2×: {output}");
    let (code, output) = with(vec![class(None, 10f64.ln())]);
    assert_eq!(code, Some(3), "{output}");
    assert!(output.contains("is 10× slower on idle servers"), "{output}");
}
