//! From sysbench to abtest: command lines translated, and real sysbench logs (1.0.20
//! captured from a run, 0.4 as quoted in seed 003) imported and analysed.

use crate::support::{Sandbox, text};

const LOG_1_0: &str = "tests/fixtures/sysbench-1.0.20-oltp_read_write.log";
const LOG_0_4: &str = "tests/fixtures/sysbench-0.4-seed003.log";

/// Runs `import-sysbench-log` into the sandbox's rounds.csv; returns its output and path.
fn import(
    sandbox: &Sandbox,
    baseline: &[&str],
    variant: &[&str],
) -> (std::process::Output, std::path::PathBuf) {
    let csv = sandbox.path("rounds.csv");
    let mut args = vec!["import-sysbench-log", "--baseline"];
    args.extend(baseline);
    args.push("--variant");
    args.extend(variant);
    args.extend(["-o", csv.to_str().unwrap()]);
    (sandbox.run(&args), csv)
}

#[test]
fn sysbench_logs_become_rounds_for_analyze() {
    let sandbox = Sandbox::new();
    let (output, csv) = import(&sandbox, &[LOG_1_0, LOG_1_0], &[LOG_0_4, LOG_0_4, LOG_0_4]);
    let (_, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("baseline: 2 run(s) read") && stderr.contains("variant: 3 run(s) read"),
        "{stderr}"
    );
    let rows = std::fs::read_to_string(&csv).unwrap();
    assert!(
        rows.starts_with(
            "side,threads,round,tps,qps,latency_mean_ms,latency_p95_ms\nbaseline,8,1,"
        ),
        "{rows}"
    );
    assert!(
        rows.contains("variant,64,3,1182.19,22463.02,54.12,129.41"),
        "{rows}"
    );
    // Different thread counts never pair up, so analyze refuses with a clear message.
    let output = sandbox.run(&["analyze", csv.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output)
            .1
            .contains("variant has 0 round(s) at 8 threads"),
        "{}",
        text(&output).1
    );
}

#[test]
fn a_real_sysbench_log_is_analysed_against_itself() {
    let sandbox = Sandbox::new();
    let (output, csv) = import(&sandbox, &[LOG_1_0, LOG_1_0], &[LOG_1_0, LOG_1_0]);
    assert_eq!(output.status.code(), Some(0));
    let output = sandbox.run(&["analyze", csv.to_str().unwrap(), "--format", "json"]);
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let value: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(value["comparisons"][0]["metric"], "tps");
    assert_eq!(value["comparisons"][0]["change_pct"], 0.0);
}

#[test]
fn from_sysbench_lists_what_it_cannot_map_and_hides_the_password() {
    let sandbox = Sandbox::new();
    let output = sandbox.run(&[
        "from-sysbench",
        "sysbench --test=oltp --oltp-test-mode=nontrx --oltp-nontrx-mode=select --oltp-table-size=500000 \
         --num-threads=16 --max-time=3600 --mysql-password=hunter2 --frobnicate=1 run",
    ]);
    let (stdout, _) = text(&output);
    assert_eq!(output.status.code(), Some(0));
    assert!(stdout.contains("--workload oltp_point_select"), "{stdout}");
    assert!(
        stdout.contains("--frobnicate=1: no abtest equivalent"),
        "{stdout}"
    );
    assert!(
        stdout.contains("password_env = \"ABTEST_PASSWORD\"") && !stdout.contains("hunter2"),
        "{stdout}"
    );
}
