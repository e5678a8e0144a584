//! Reports rendered from a fixed results file (snapshots), the results JSON against its
//! checked-in schema, and the HTML page in a real headless Chromium.

use std::process::Command;

use crate::support::{Sandbox, text};

const RUN: &str = "tests/fixtures/audit-point-select.json";

fn report(sandbox: &Sandbox, format: &str) -> String {
    let output = sandbox.run(&["report", RUN, "--format", format, "--no-verdict-exit"]);
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    stdout
}

#[test]
fn table_snapshot() {
    insta::assert_snapshot!(report(&Sandbox::new(), "table"));
}

#[test]
fn markdown_snapshot() {
    insta::assert_snapshot!(report(&Sandbox::new(), "markdown"));
}

#[test]
fn csv_snapshot() {
    insta::assert_snapshot!(report(&Sandbox::new(), "csv"));
}

#[test]
fn results_files_match_the_schema() {
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(RUN).unwrap()).unwrap();
    crate::support::assert_valid_results(&results);
    let mut broken = results.clone();
    broken["rounds"][0]["side"] = serde_json::json!("sideways");
    let schema = crate::support::results_schema();
    assert!(
        !schema.is_valid(&broken),
        "the schema must reject a wrong side"
    );
}

#[test]
fn rounds_csv_can_be_analysed_again() {
    let sandbox = Sandbox::new();
    let csv = sandbox.write("rounds.csv", &report(&sandbox, "csv"));
    let output = sandbox.run(&["analyze", csv.to_str().unwrap(), "--format", "json"]);
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let value: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(value["comparisons"][0]["metric"], "tps");
}

/// Installs Debian's Chromium when it is missing (the CI machine starts without it).
fn chromium() -> &'static str {
    if Command::new("chromium").arg("--version").output().is_err() {
        let status = Command::new("sh")
            .args(["-c", "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium"])
            .status()
            .expect("apt-get runs");
        assert!(status.success(), "chromium could not be installed");
    }
    "chromium"
}

fn headless(sandbox: &Sandbox, args: &[&str]) -> std::process::Output {
    let profile = sandbox.path("chromium-profile");
    Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .output()
        .expect("chromium runs")
}

#[test]
fn html_report_renders_in_chromium() {
    let sandbox = Sandbox::new();
    let html = sandbox.path("report.html");
    let output = sandbox.run(&[
        "report",
        RUN,
        "--format",
        "html",
        "--output",
        html.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(3), "{}", text(&output).1);
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        !page.contains("src=\"http") && !page.contains("href=\"http"),
        "no external assets"
    );
    assert_eq!(
        page.matches("<svg").count(),
        3,
        "the change chart, a rounds chart and a latency chart"
    );
    let change_chart = page.find("Change of variant vs baseline").unwrap();
    assert!(
        change_chart < page.find("id=\"results\"").unwrap(),
        "the change chart leads"
    );
    assert!(
        page.contains("\nMariaDB + server_audit\n</text>"),
        "charts name the profiles"
    );
    let url = format!("file://{}", html.display());
    let dom = headless(&sandbox, &["--dump-dom", &url]);
    let dom = String::from_utf8_lossy(&dom.stdout);
    assert!(
        dom.contains("id=\"verdict\" class=\"verdict NO-GO\""),
        "{dom}"
    );
    assert!(
        dom.contains("NO-GO: TPS loss at least 17.4 % at 8 threads, beyond the 5 % tolerance"),
        "{dom}"
    );
    let shot = sandbox.path("shot.png");
    headless(
        &sandbox,
        &[
            &format!("--screenshot={}", shot.display()),
            "--window-size=1000,1400",
            &url,
        ],
    );
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&shot).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut pixels).unwrap();
    let pixels = &pixels[..info.buffer_size()];
    let non_white = pixels
        .chunks(info.color_type.samples())
        .filter(|p| p.iter().take(3).any(|&c| c < 200))
        .count();
    let share = non_white as f64 / (info.width * info.height) as f64;
    assert!(
        share > 0.02,
        "the screenshot is blank ({share:.4} of pixels drawn)"
    );
}
