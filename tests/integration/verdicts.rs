//! What a change board and a CI job read: every tolerance judged or named (the error
//! rate from a baseline of 0 %, no verdict from rounds without variation), the bound the
//! verdict reads shown beside it, saved runs gating with the run's exit codes and JUnit
//! XML, and a closed stdout that ends abtest quietly.

use std::process::Stdio;

use crate::support::{Sandbox, text};

const RUN: &str = "tests/fixtures/audit-point-select.json";

/// Five rounds a side of equal TPS; the variant's error rate is `variant_rate(i)`.
fn error_csv(sandbox: &Sandbox, name: &str, variant_rate: impl Fn(u32) -> u32) -> String {
    let mut csv = String::from("side,threads,round,tps,error_rate\n");
    for i in 1..=5 {
        let tps = 4990 + i * 3;
        csv.push_str(&format!("baseline,8,{i},{tps},0\n"));
        csv.push_str(&format!("variant,8,{i},{tps},{}\n", variant_rate(i)));
    }
    sandbox.write(name, &csv).to_str().unwrap().to_string()
}

#[test]
fn a_variant_that_fails_half_its_transactions_is_never_go() {
    let sandbox = Sandbox::new();
    let csv = error_csv(&sandbox, "errors.csv", |i| 44 + i % 3);
    for flags in [
        &["--max-tps-loss", "5%", "--max-error-rate", "1%"][..],
        &["--max-error-rate", "1%"][..],
    ] {
        let output = sandbox.run(&[&["analyze", &csv][..], flags].concat());
        let (stdout, stderr) = text(&output);
        assert_eq!(output.status.code(), Some(3), "{flags:?}: {stdout}{stderr}");
        assert!(
            stdout
                .contains("NO-GO: error rate at least 44.40 % at 8 threads, beyond the 1 % limit"),
            "{stdout}"
        );
        assert!(!stdout.contains("verdict is GO"), "{stdout}");
    }
    // The same rate in every round has no interval: named, not judged.
    let flat = error_csv(&sandbox, "flat.csv", |_| 45);
    let output = sandbox.run(&["analyze", &flat, "--max-error-rate", "1%"]);
    let (stdout, _) = text(&output);
    assert_eq!(output.status.code(), Some(4), "{stdout}");
    assert!(stdout.contains("no variation between rounds"), "{stdout}");
}

#[test]
fn rounds_without_variation_give_no_verdict() {
    let sandbox = Sandbox::new();
    let csv = sandbox.write(
        "flat.csv",
        "side,threads,round,tps\nbaseline,8,1,100\nbaseline,8,2,100\nvariant,8,1,96\nvariant,8,2,96\n",
    );
    let output = sandbox.run(&["analyze", csv.to_str().unwrap(), "--max-tps-loss", "5%"]);
    let (stdout, _) = text(&output);
    assert_eq!(output.status.code(), Some(4), "{stdout}");
    assert!(
        stdout.contains(
            "no variation between rounds on the baseline and the variant: the interval cannot be estimated"
        ),
        "{stdout}"
    );
}

#[test]
fn the_bound_that_decides_is_shown_and_labelled() {
    let sandbox = Sandbox::new();
    let output = sandbox.run(&["report", RUN, "--max-tps-loss", "45%"]);
    let (stdout, _) = text(&output);
    // The 95 % interval [-44.25, -13.01] crosses nothing here; the verdict reads the
    // one-sided 95 % bound, 41.9 %, and says so.
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("verdict reads the 95 % one-sided bound"),
        "{stdout}"
    );
    assert!(
        stdout.contains("loss at most 41.9 % (45 % tolerance)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("GO: TPS loss at most 41.9 % at 8 threads, within the 45 % tolerance (95 % one-sided bound)."),
        "{stdout}"
    );
    for format in ["markdown", "jira", "html"] {
        let output = sandbox.run(&["report", RUN, "--max-tps-loss", "45%", "--format", format]);
        let (page, _) = text(&output);
        assert!(page.contains("loss at most 41.9 %"), "{format}: {page}");
        assert!(page.contains("95 % one-sided bound"), "{format}: {page}");
    }
}

#[test]
fn a_saved_run_gates_ci_like_the_run() {
    let sandbox = Sandbox::new();
    let junit = sandbox.path("verdicts.xml");
    let junit = junit.to_str().unwrap();
    // The fixture was run with --max-tps-loss 5 %: NO-GO, exit 3, from either command.
    for command in ["report", "analyze"] {
        let output = sandbox.run(&[command, RUN, "--junit", junit]);
        assert_eq!(
            output.status.code(),
            Some(3),
            "{command}: {}",
            text(&output).1
        );
        let xml = std::fs::read_to_string(junit).unwrap();
        assert!(
            xml.contains("tests=\"1\" failures=\"1\" skipped=\"0\""),
            "{xml}"
        );
        assert!(
            xml.contains(
                "<testcase classname=\"abtest\" name=\"TPS at 8 threads within the 5 % tolerance\">"
            ),
            "{xml}"
        );
        assert!(
            xml.contains(
                "<failure message=\"NO-GO: TPS loss at least 17.4 % (95 % one-sided bound)\""
            ),
            "{xml}"
        );
    }
    let render_only = sandbox.run(&["report", RUN, "--no-verdict-exit"]);
    assert_eq!(render_only.status.code(), Some(0));
    // INCONCLUSIVE is a failed test case of its own type, with its reason; GO a passed
    // one: CI must not pass what the data could not decide.
    let output = sandbox.run(&[
        "analyze",
        RUN,
        "--max-tps-loss",
        "60%",
        "--max-latency-inflation",
        "p95=30%,p99.9=50%",
        "--junit",
        junit,
    ]);
    assert_eq!(output.status.code(), Some(4));
    let xml = std::fs::read_to_string(junit).unwrap();
    assert!(
        xml.contains("tests=\"3\" failures=\"2\" skipped=\"0\""),
        "{xml}"
    );
    assert!(
        xml.contains(
            "<testcase classname=\"abtest\" name=\"TPS at 8 threads within the 60 % tolerance\"/>"
        ),
        "{xml}"
    );
    assert!(
        xml.contains(
            "<failure message=\"INCONCLUSIVE: latency p99.9 (ms): not in the data\" \
             type=\"INCONCLUSIVE\">"
        ),
        "{xml}"
    );
    // The JUnit file may not replace the saved run or the report, nor mix into it on
    // stdout; each is refused before anything is printed.
    let report = sandbox.path("report.md");
    let report = report.to_str().unwrap();
    for (args, why) in [
        (
            &["report", RUN, "--junit", RUN][..],
            "is an input of the run",
        ),
        (
            &["analyze", RUN, "--junit", RUN][..],
            "is an input of the run",
        ),
        (
            &["report", RUN, "-o", report, "--junit", report][..],
            "--output and --junit both name",
        ),
        (
            &["analyze", RUN, "--junit", "-"][..],
            "--junit -: stdout already carries",
        ),
    ] {
        let output = sandbox.run(args);
        let (stdout, stderr) = text(&output);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains(why) && stdout.is_empty(),
            "{args:?}: {stderr}"
        );
    }
    assert!(!std::path::Path::new(report).exists());
    // With the report in a file, `--junit -` is stdout.
    let output = sandbox.run(&["report", RUN, "-o", report, "--junit", "-"]);
    assert_eq!(output.status.code(), Some(3));
    assert!(text(&output).0.starts_with("<?xml"));
}

#[test]
fn a_closed_stdout_ends_quietly() {
    let sandbox = Sandbox::new();
    for args in [
        &["report", RUN][..],
        &["analyze", RUN, "--format", "markdown"][..],
        &["plan-rounds", "--cv", "5%", "--effect", "2%"][..],
    ] {
        let mut child = sandbox
            .abtest()
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert_ne!(output.status.code(), Some(101), "{args:?}: {stderr}");
    }
}

#[test]
fn a_sequential_run_names_its_level_in_words() {
    let sandbox = Sandbox::new();
    let mut run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(RUN).unwrap()).unwrap();
    // The fixture's rounds, as if judged at the third of three looks (α 0.0148).
    run["analysis"]["alpha"] = 0.0148.into();
    let look = |k: u32| {
        serde_json::json!({"look": k, "rounds_per_side": k + 2, "alpha": 0.0148,
            "tps_change_pct": -30.0, "tps_ci_pct": [-50.0, -10.0], "verdict": "NO-GO",
            "elapsed_s": 10.0 * f64::from(k)})
    };
    run["looks"] = serde_json::json!([look(1), look(2), look(3)]);
    let file = sandbox.write("sequential.json", &run.to_string());
    let output = sandbox.run(&["report", file.to_str().unwrap(), "--no-verdict-exit"]);
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stdout.contains("change [98.52 % CI]"), "{stdout}");
    assert!(
        stdout.contains("the 98.52 % CI and the bound are adjusted for 3 looks"),
        "{stdout}"
    );
    assert!(
        stdout.contains("98.52 % one-sided bound, adjusted for 3 looks"),
        "{stdout}"
    );
    assert!(stdout.contains("± (half-width)"), "{stdout}");
    assert!(stdout.contains("±20.00 %"), "{stdout}");
    // Undecided, the headline names both bounds: "bounds, adjusted for 3 looks".
    let output = sandbox.run(&["report", file.to_str().unwrap(), "--max-tps-loss", "32%"]);
    let (stdout, _) = text(&output);
    assert!(!stdout.contains("lookss"), "{stdout}");
    assert!(
        stdout.contains("98.52 % one-sided bounds, adjusted for 3 looks"),
        "{stdout}"
    );
}

#[test]
fn an_inconclusive_answer_says_what_would_decide_it() {
    let sandbox = Sandbox::new();
    for format in ["table", "markdown", "html"] {
        let output = sandbox.run(&["report", RUN, "--max-tps-loss", "40%", "--format", format]);
        let (stdout, stderr) = text(&output);
        assert_eq!(output.status.code(), Some(4), "{stderr}");
        assert!(
            stdout.contains("Next steps") || stdout.contains("next steps"),
            "{format}: {stdout}"
        );
        // From the table's estimate (-31.35 %) the interval reaches 10.5 % towards the
        // 40 % tolerance, 8.65 away: (10.55/8.65)² × 5 rounds.
        assert!(stdout.contains("--rounds 8,"), "{format}: {stdout}");
        // One figure for how long: the power note gives no second rounds-to-decide.
        assert!(
            !stdout.contains("would decide at the"),
            "{format}: {stdout}"
        );
        // The fixture's noise budget: rounds after a switch of side ran faster.
        assert!(
            stdout.contains("Biggest noise source: a round right after a switch of side"),
            "{format}: {stdout}"
        );
    }
    // At 32 % the estimate sits 0.65 points from the tolerance: no run anyone affords
    // decides, though the interval's midpoint (-29.7 %) would have promised one.
    let output = sandbox.run(&["report", RUN, "--max-tps-loss", "32%"]);
    let (stdout, _) = text(&output);
    assert!(stdout.contains("No affordable run decides"), "{stdout}");
}

#[test]
fn power_notes_cover_the_tolerances_only() {
    let sandbox = Sandbox::new();
    // INCONCLUSIVE on TPS at 32 %: the note is about TPS, not the latencies.
    let output = sandbox.run(&["report", RUN, "--max-tps-loss", "32%"]);
    let (stdout, _) = text(&output);
    assert_eq!(output.status.code(), Some(4), "{stdout}");
    let notes: Vec<&str> = stdout
        .lines()
        .skip_while(|l| *l != "power:")
        .skip(1)
        .collect();
    assert_eq!(notes.len(), 1, "{stdout}");
    assert!(
        notes[0].trim_start().starts_with("TPS at 8 threads"),
        "{stdout}"
    );
}

#[test]
fn a_changed_results_file_is_refused_by_every_reader() {
    let sandbox = Sandbox::new();
    let original: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(RUN).unwrap()).unwrap();
    type Edit = fn(&mut serde_json::Value);
    let edits: [(&str, Edit, &str); 8] = [
        (
            "duplicated",
            |run| {
                let first = run["rounds"][0].clone();
                run["rounds"].as_array_mut().unwrap().push(first);
            },
            "is in the file twice",
        ),
        (
            "index 9",
            |run| run["rounds"][0]["index"] = 8.into(),
            "where the plan puts",
        ),
        (
            "64 threads",
            |run| run["rounds"][0]["threads"] = 64.into(),
            "where the plan puts",
        ),
        (
            "side swapped",
            |run| run["rounds"][0]["side"] = "variant".into(),
            "where the plan puts",
        ),
        (
            "position",
            |run| run["rounds"][0]["position"] = 99.into(),
            "does not have",
        ),
        (
            "duration",
            |run| {
                let d = run["rounds"][1]["duration_s"].as_f64().unwrap();
                run["rounds"][1]["duration_s"] = (d * 1e6).into();
            },
            "the file was changed",
        ),
        (
            "load",
            |run| run["rounds"][1]["host_load"] = serde_json::json!({"other_cpu_pct": -400.0}),
            "which no reading gives",
        ),
        (
            "newer",
            |run| run["schema_version"] = 99.into(),
            "schema version 99, written by a newer abtest",
        ),
    ];
    for (name, edit, needle) in edits {
        let mut run = original.clone();
        edit(&mut run);
        let file = sandbox.write(
            &format!("{name}.json"),
            &serde_json::to_string_pretty(&run).unwrap(),
        );
        let before = std::fs::read(&file).unwrap();
        let path = file.to_str().unwrap();
        for args in [
            vec!["analyze", path],
            vec!["report", path],
            vec!["--resume", path],
            vec!["plan-rounds", "--pilot", path, "--effect", "5%"],
        ] {
            let output = sandbox.run(&args);
            let (_, stderr) = text(&output);
            assert_eq!(output.status.code(), Some(2), "{name} {args:?}: {stderr}");
            assert!(stderr.contains(needle), "{name} {args:?}: {stderr}");
        }
        assert_eq!(
            std::fs::read(&file).unwrap(),
            before,
            "{name}: the file is untouched"
        );
    }
}

#[test]
fn an_answer_check_that_compared_nothing_never_passes_for_agreement() {
    let sandbox = Sandbox::new();
    let mut run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(RUN).unwrap()).unwrap();
    // GO against a 60 % tolerance on speed; every sampled read failed alike on both sides.
    run["result_check"] = serde_json::json!({
        "statements": 12,
        "classes": 1,
        "differences": [],
        "not_compared": [{
            "class": "SELECT gone FROM t WHERE id = {id}",
            "count": 12,
            "statement": "SELECT gone FROM t WHERE id = ?",
            "params": ["1"],
            "baseline": "error 1054",
            "variant": "error 1054"
        }]
    });
    let file = sandbox.write("nothing.json", &serde_json::to_string(&run).unwrap());
    let output = sandbox.run(&["analyze", file.to_str().unwrap(), "--max-tps-loss", "60%"]);
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(4), "{stdout}{stderr}");
    assert!(
        stdout.contains("none of the 12 sampled read statements could be compared"),
        "{stdout}"
    );
}

/// The fixture with its status set to `status` and, when `drop_last`, its last round
/// gone, saved in the sandbox.
fn unfinished(sandbox: &Sandbox, name: &str, status: &str, drop_last: bool) -> String {
    crate::support::edited_run(sandbox, RUN, name, |run| {
        run["status"] = status.into();
        if drop_last {
            run["rounds"].as_array_mut().unwrap().pop();
        }
    })
}

#[test]
fn a_run_that_did_not_finish_is_partial_never_go() {
    let sandbox = Sandbox::new();
    let junit = sandbox.path("partial.xml");
    let junit = junit.to_str().unwrap();
    // With a 45 % tolerance the fixture's rounds say GO; unfinished, they say nothing.
    for (status, drop_last, why) in [
        (
            "interrupted",
            true,
            "the run was interrupted (5 baseline and 4 variant of 5",
        ),
        ("running", true, "saved while the run was still going"),
        ("failed", false, "the run stopped on an error"),
        ("completed", true, "1 planned round(s) did not complete"),
    ] {
        let file = unfinished(&sandbox, &format!("{status}.json"), status, drop_last);
        for format in ["table", "markdown", "html", "jira", "json"] {
            let output = sandbox.run(&[
                "report",
                &file,
                "--max-tps-loss",
                "45%",
                "--format",
                format,
                "--junit",
                junit,
            ]);
            let (stdout, stderr) = text(&output);
            assert_eq!(output.status.code(), Some(5), "{status} {format}: {stderr}");
            assert!(stdout.contains("PARTIAL"), "{status} {format}: {stdout}");
            assert!(stdout.contains(why), "{status} {format}: {stdout}");
            assert!(!stdout.contains("GO:"), "{status} {format}: {stdout}");
            if format == "json" {
                let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
                assert!(json["verdict"].is_null(), "{status}: {}", json["verdict"]);
            }
            let xml = std::fs::read_to_string(junit).unwrap();
            assert!(xml.contains("type=\"PARTIAL\""), "{status}: {xml}");
            assert!(!xml.contains("skipped=\"1\""), "{status}: {xml}");
        }
        let output = sandbox.run(&["analyze", &file, "--max-tps-loss", "45%"]);
        assert_eq!(output.status.code(), Some(5), "{status}: analyze");
    }
    // A `stopped` that no look or answers check bears out does not excuse missing rounds.
    let forged = crate::support::edited_run(&sandbox, RUN, "forged.json", |run| {
        run["stopped"] = "decided at look 1: GO".into();
        run["rounds"].as_array_mut().unwrap().pop();
    });
    let output = sandbox.run(&["report", &forged, "--max-tps-loss", "45%"]);
    assert_eq!(output.status.code(), Some(5), "{}", text(&output).0);
    // The finished run, for contrast: GO, exit 0.
    let output = sandbox.run(&["report", RUN, "--max-tps-loss", "45%"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output).1);
}

#[test]
fn the_answer_has_a_row_for_every_tolerance_that_decided() {
    let sandbox = Sandbox::new();
    let output = sandbox.run(&[
        "report",
        "examples/thread-pool/results.json",
        "--max-tps-loss",
        "5%",
        "--max-error-rate",
        "1",
    ]);
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    // The answer is everything before the first blank line; the error rate is an
    // explanatory metric, yet its limit decided, so it has its rows there.
    let answer: Vec<&str> = stdout.lines().take_while(|l| !l.is_empty()).collect();
    let rows = |metric: &str| {
        answer
            .iter()
            .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
            .filter(|l| l.contains(metric))
            .count()
    };
    assert_eq!(rows("error rate (%)"), 2, "{stdout}");
    assert_eq!(rows(" TPS "), 2, "{stdout}");
}
