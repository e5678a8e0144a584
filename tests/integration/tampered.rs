//! A saved results file is checked like live data before anything is judged from it: a
//! figure no run writes (a negative or non-finite latency, a round far longer than the
//! plan's, a histogram that does not read or is not the round's) refuses the file with
//! exit 2, naming the file, the round and the field, for every command that reads it.

use crate::support::{Sandbox, edited_run, text};

const RUN: &str = "tests/fixtures/audit-point-select.json";

/// Every command that judges a saved run (`analyze`, `report` with its CI gate, `merge`)
/// refuses `file` with exit 2 and a message
/// naming the file, the round and `field`.
fn refused_everywhere(sandbox: &Sandbox, file: &str, field: &str) {
    let merged = sandbox.path("merged.json");
    let junit = sandbox.path("junit.xml");
    let commands: [Vec<&str>; 4] = [
        vec!["analyze", file, "--max-tps-loss", "45%"],
        vec![
            "report",
            file,
            "--max-tps-loss",
            "45%",
            "--format",
            "markdown",
        ],
        vec![
            "report",
            file,
            "--format",
            "json",
            "--junit",
            junit.to_str().unwrap(),
        ],
        vec!["merge", file, "--json", merged.to_str().unwrap()],
    ];
    for args in commands {
        let output = sandbox.run(&args);
        let (stdout, stderr) = text(&output);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stdout}{stderr}");
        assert!(stderr.contains(file), "{args:?}: {stderr}");
        assert!(stderr.contains("round"), "{args:?}: {stderr}");
        assert!(stderr.contains(field), "{args:?}: {stderr}");
        assert!(!stdout.contains("GO"), "{args:?}: {stdout}");
    }
}

/// The first variant round of the fixture, edited by `edit`, saved as `name`.
fn with_variant_round(
    sandbox: &Sandbox,
    name: &str,
    edit: impl FnOnce(&mut serde_json::Value),
) -> String {
    edited_run(sandbox, RUN, name, |run| {
        let round = run["rounds"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .find(|r| r["side"] == "variant")
            .unwrap();
        edit(round);
    })
}

#[test]
fn a_negative_latency_refuses_the_file() {
    let sandbox = Sandbox::new();
    let file = with_variant_round(&sandbox, "negative.json", |round| {
        round["latency_ms"]["p95"] = (-0.4).into();
    });
    refused_everywhere(&sandbox, &file, "latency_ms.p95 is -0.4");
}

#[test]
fn a_latency_that_is_not_a_number_refuses_the_file() {
    let sandbox = Sandbox::new();
    // JSON has no NaN or infinity: a number beyond f64, or null, is refused as it is
    // read (a value that gets through is checked like the others, see the unit tests).
    for (name, value) in [("infinite.json", "1e999"), ("null.json", "null")] {
        let file = with_variant_round(&sandbox, name, |round| {
            round["latency_ms"]["p99"] = "NOT_A_NUMBER".into();
        });
        let edited = std::fs::read_to_string(&file)
            .unwrap()
            .replace("\"NOT_A_NUMBER\"", value);
        std::fs::write(&file, edited).unwrap();
        for command in ["analyze", "report"] {
            let output = sandbox.run(&[command, &file, "--max-tps-loss", "45%"]);
            let (stdout, stderr) = text(&output);
            assert_eq!(output.status.code(), Some(2), "{name}: {stdout}{stderr}");
            assert!(
                stderr.contains(&format!("{file} is not an abtest results file")),
                "{name}: {stderr}"
            );
            assert!(!stdout.contains("GO"), "{name}: {stdout}");
        }
    }
}

fn text_of(output: &std::process::Output) -> String {
    let (stdout, stderr) = text(output);
    format!("{stdout}{stderr}")
}

#[test]
fn a_round_of_ten_to_the_300_seconds_refuses_the_file() {
    let sandbox = Sandbox::new();
    let file = with_variant_round(&sandbox, "long.json", |round| {
        round["duration_s"] = 1e300.into();
        round["tps"] = 0.0.into();
        round["transactions"] = 0.into();
    });
    refused_everywhere(&sandbox, &file, "duration_s is 1e300 s");
}

#[test]
fn a_histogram_that_does_not_decode_refuses_the_file() {
    let sandbox = Sandbox::new();
    let file = with_variant_round(&sandbox, "garbage.json", |round| {
        round["histogram"] = "Z2FyYmFnZQ==".into();
    });
    refused_everywhere(&sandbox, &file, "histogram is not a latency histogram");
    // A percentile read only from the histogram is never dropped from the verdict.
    let output = sandbox.run(&["analyze", &file, "--max-latency-inflation", "p99.9=50%"]);
    assert_eq!(output.status.code(), Some(2), "{}", text_of(&output));
}

#[test]
fn another_rounds_histogram_refuses_the_file() {
    let sandbox = Sandbox::new();
    let file = edited_run(&sandbox, RUN, "swapped.json", |run| {
        let rounds = run["rounds"].as_array_mut().unwrap();
        rounds[1]["histogram"] = rounds[0]["histogram"].clone();
    });
    refused_everywhere(&sandbox, &file, "histogram holds");
}

#[test]
fn an_edited_round_count_in_the_plan_is_refused_before_it_is_laid_out() {
    let sandbox = Sandbox::new();
    let file = edited_run(&sandbox, RUN, "rounds.json", |run| {
        run["plan"]["schedule"]["rounds"] = 4_000_000_000u32.into();
    });
    let output = sandbox.run(&["analyze", &file]);
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(2), "{stdout}{stderr}");
    assert!(stderr.contains("its plan"), "{stderr}");
}
