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
    let change_chart = page.find("Change vs baseline").unwrap();
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

/// Pixels of a screenshot whose colour `matches`: (x, y) of each.
fn pixels_where(png_path: &std::path::Path, matches: impl Fn(&[u8]) -> bool) -> Vec<(u32, u32)> {
    let file = std::io::BufReader::new(std::fs::File::open(png_path).unwrap());
    let mut reader = png::Decoder::new(file).read_info().unwrap();
    let mut buffer = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buffer).unwrap();
    let samples = info.color_type.samples();
    let mut found = Vec::new();
    for (i, pixel) in buffer[..info.buffer_size()].chunks(samples).enumerate() {
        if matches(pixel) {
            found.push((i as u32 % info.width, i as u32 / info.width));
        }
    }
    found
}

#[test]
fn the_change_chart_keeps_the_decision_visible() {
    // A p99 whose interval reaches thousands of % beside a TPS loss of about 9 %: the
    // axis follows TPS and the tolerances, the p99 interval is clipped with its value.
    let sandbox = Sandbox::new();
    let mut csv = String::from("side,threads,round,tps,latency_p99_ms\n");
    let baseline = [
        (5010, 1.0),
        (4950, 1.5),
        (5080, 0.6),
        (4990, 1.2),
        (5020, 0.8),
    ];
    let variant = [(4540, 10), (4380, 30), (4700, 5), (4450, 60), (4650, 20)];
    for (i, ((bt, bl), (vt, vl))) in baseline.iter().zip(variant).enumerate() {
        csv.push_str(&format!(
            "baseline,8,{},{bt},{bl}\nvariant,8,{},{vt},{vl}\n",
            i + 1,
            i + 1
        ));
    }
    let csv = sandbox.write("wild.csv", &csv);
    let output = sandbox.run(&[
        "analyze",
        csv.to_str().unwrap(),
        "--max-tps-loss",
        "5%",
        "--max-latency-inflation",
        "10%",
        "--format",
        "html",
    ]);
    let html = sandbox.write("wild.html", &text(&output).0);
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("worse"), "the worse side is labelled");
    // Written as the table writes it: beyond +999 % it is ">+999".
    assert!(
        page.contains("…+") || page.contains("…&gt;+999"),
        "the clipped p99 interval keeps its value"
    );
    let shot = sandbox.path("wild.png");
    headless(
        &sandbox,
        &[
            &format!("--screenshot={}", shot.display()),
            "--window-size=1000,600",
            &format!("file://{}", html.display()),
        ],
    );
    // The variant's orange: the top row is TPS (its interval bar and point).
    let orange = pixels_where(&shot, |p| {
        p[0] > 200 && (100..=215).contains(&p[1]) && p[2] < 150
    });
    let top = orange
        .iter()
        .map(|p| p.1)
        .min()
        .expect("the chart is drawn");
    let tps_row: Vec<u32> = orange
        .iter()
        .filter(|p| p.1 <= top + 12)
        .map(|p| p.0)
        .collect();
    let width = tps_row.iter().max().unwrap() - tps_row.iter().min().unwrap();
    assert!(width >= 30, "the TPS row is {width} px wide");
    // The tolerance lines (pure red) are inside the plot: one crosses the TPS row.
    let red = pixels_where(&shot, |p| p[0] > 200 && p[1] < 40 && p[2] < 40);
    assert!(
        red.iter().any(|p| p.1.abs_diff(top + 6) <= 6),
        "a tolerance line crosses the TPS row"
    );
}

/// The thread-pool example analysed by ABBA blocks, as a run of today's is, saved in the
/// sandbox: its blocks' change differs from the ratio of the plain side means.
fn block_analysed(sandbox: &Sandbox) -> String {
    crate::support::edited_run(
        sandbox,
        "examples/thread-pool/results.json",
        "blocks.json",
        |run| {
            run["analysis"]["blocking"] = "blocks".into();
        },
    )
}

/// The numbers of a row: every figure in it, signs kept.
fn numbers(row: &str) -> Vec<f64> {
    let mut out = Vec::new();
    let mut current = String::new();
    for ch in row.chars().chain([' ']) {
        if ch.is_ascii_digit() || ch == '.' || ((ch == '-' || ch == '+') && current.is_empty()) {
            current.push(ch);
        } else {
            if current.chars().any(|c| c.is_ascii_digit()) {
                out.push(current.trim_end_matches('.').parse().unwrap());
            }
            current.clear();
        }
    }
    out
}

#[test]
fn every_format_shows_the_figures_the_change_is_computed_from() {
    let sandbox = Sandbox::new();
    let file = block_analysed(&sandbox);
    let output = sandbox.run(&["report", &file, "--format", "json", "--no-verdict-exit"]);
    let json: serde_json::Value = serde_json::from_str(&text(&output).0).unwrap();
    let mut checked = 0;
    for c in json["comparisons"].as_array().unwrap() {
        let [b, v] = [0, 1].map(|i| c["estimate_means"][i].as_f64().unwrap());
        let change = c["change_pct"].as_f64().unwrap();
        if c["metric"] == "error_rate" {
            // A rate is compared in points.
            assert!((v - b - change).abs() < 1e-9, "{c}");
            continue;
        }
        assert!((100.0 * (v / b - 1.0) - change).abs() < 1e-6, "{c}");
        let plain = 100.0
            * (c["variant"]["mean"].as_f64().unwrap() / c["baseline"]["mean"].as_f64().unwrap()
                - 1.0);
        checked += usize::from((plain - change).abs() > 0.1);
    }
    assert!(
        checked > 0,
        "the fixture must tell the plain means from the blocks'"
    );
    for format in ["table", "markdown", "jira", "html"] {
        let output = sandbox.run(&["report", &file, "--format", format, "--no-verdict-exit"]);
        let page = text(&output).0;
        let rows: Vec<&str> = match format {
            "html" => page.split("<tr").collect(),
            _ => page.lines().collect(),
        };
        let mut seen = 0;
        for label in ["TPS", "latency mean (ms)"] {
            for row in rows.iter().filter(|r| {
                [
                    format!("┆ {label} "),
                    format!("| {label} |"),
                    format!("|{label}|"),
                    format!("<td>{label}</td>"),
                ]
                .iter()
                .any(|cell| r.contains(cell.as_str()))
            }) {
                let n = numbers(row);
                if n.len() < 4 {
                    continue; // a header that names the metric
                }
                let (b, v, change) = (n[1], n[2], n[3]);
                let implied = 100.0 * (v / b - 1.0);
                // Figures print to a tenth of a TPS or a thousandth of a ms.
                assert!(
                    (implied - change).abs() < 0.05,
                    "{format}: {label} shows {b} and {v}, i.e. {implied:+.2} %, beside {change:+.2} %: {row}"
                );
                seen += 1;
            }
        }
        assert!(seen >= 4, "{format}: {seen} rows checked\n{page}");
    }
}

/// `abtest report` of `file` on a 100-column terminal (a pseudo-terminal from
/// `script`, `COLUMNS=100`), as the person who ran it sees it.
fn on_a_terminal(sandbox: &Sandbox, file: &str, extra: &str) -> String {
    on_a_terminal_of(100, sandbox, file, extra)
}

/// `abtest report` of `file` on a terminal `columns` wide.
fn on_a_terminal_of(columns: usize, sandbox: &Sandbox, file: &str, extra: &str) -> String {
    let command = format!(
        "COLUMNS={columns} {} report {file} --color never --no-verdict-exit {extra}",
        env!("CARGO_BIN_EXE_abtest")
    );
    let _ = sandbox;
    let output = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .current_dir(crate::support::repo())
        .output()
        .expect("script (util-linux) runs");
    String::from_utf8_lossy(&output.stdout).replace("\r\n", "\n")
}

#[test]
fn the_answer_comes_first_and_fits_100_columns() {
    let sandbox = Sandbox::new();
    // Two thread levels, and an INCONCLUSIVE whose next steps are long sentences.
    for extra in [
        "",
        "--max-tps-loss 5%",
        "--max-tps-loss 60% --max-latency-inflation p95=30%",
    ] {
        let page = on_a_terminal(&sandbox, "examples/thread-pool/results.json", extra);
        let answer: Vec<&str> = page.lines().take_while(|l| !l.starts_with('┌')).collect();
        assert!(answer.len() > 3, "{page}");
        assert!(
            ["GO:", "NO-GO:", "INCONCLUSIVE:", "With "]
                .iter()
                .any(|start| answer[0].starts_with(start)),
            "the verdict comes first: {page}"
        );
        for threads in ["512", "900"] {
            assert!(
                answer.iter().any(|l| l.trim_start().starts_with(threads)),
                "one line for {threads} threads: {page}"
            );
        }
        for line in page.lines() {
            assert!(
                line.chars().count() <= 100,
                "{} wide: {line}\n{page}",
                line.chars().count()
            );
        }
    }
    // At 100 columns a nine-column full table (an INCONCLUSIVE with its long "verdict
    // reads") wraps at spaces and keeps every verdict word whole.
    let page = on_a_terminal(
        &sandbox,
        "examples/ssl-overhead/results.json",
        "--max-tps-loss 25%",
    );
    let full: Vec<&str> = page.lines().skip_while(|l| !l.starts_with('─')).collect();
    for word in ["INCONCLUSIVE", "significant", "tolerance)"] {
        assert!(
            full.iter().any(|l| l.split_whitespace().any(|w| w == word)),
            "{word} is split: {page}"
        );
    }
    // Narrower terminals too: the full tables wrap at spaces, then inside words, to fit.
    for columns in [60, 80] {
        for file in ["examples/thread-pool/results.json", RUN] {
            let page = on_a_terminal_of(columns, &sandbox, file, "--max-tps-loss 5%");
            for line in page.lines() {
                assert!(line.chars().count() <= columns, "{columns}: {line}\n{page}");
            }
        }
    }
    // A table written to a file from a terminal gets every line whole.
    let file = sandbox.path("answer.txt");
    on_a_terminal(
        &sandbox,
        "examples/thread-pool/results.json",
        &format!("--format table --output {}", file.display()),
    );
    let written = std::fs::read_to_string(&file).unwrap();
    assert!(
        written.lines().any(|l| l.chars().count() > 100),
        "{written}"
    );
    assert!(!written.contains('\u{1b}'), "{written}");
    // A pipe gets the same content, every line whole.
    let piped = report(&sandbox, "table");
    assert!(
        piped
            .lines()
            .next()
            .unwrap()
            .starts_with("NO-GO: TPS loss at least 17.4 %")
    );
    assert!(piped.lines().any(|l| l.chars().count() > 100), "{piped}");
}

#[test]
fn a_name_with_control_characters_is_shown_escaped() {
    let sandbox = Sandbox::new();
    let file = crate::support::edited_run(&sandbox, RUN, "named.json", |run| {
        run["sides"]["baseline"]["name"] = "MariaDB\u{1b}[2J\u{1b}[31m red\nforged".into();
    });
    for format in ["table", "markdown", "html"] {
        let output = sandbox.run(&["report", &file, "--format", format, "--no-verdict-exit"]);
        let (stdout, stderr) = text(&output);
        assert_eq!(output.status.code(), Some(0), "{stderr}");
        assert!(!stdout.contains('\u{1b}'), "{format}: {stdout}");
        assert!(stdout.contains("MariaDB\\u{1b}[2J"), "{format}: {stdout}");
    }
}
