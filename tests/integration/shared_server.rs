//! Both managed sides on one server (`--servers auto|shared|separate`): each side's
//! settings are put in place and read back before every one of its rounds, a difference
//! only a restart makes keeps two servers and says which, and the shared server ends as
//! it began.

use serde_json::Value;

use crate::support::{Finished, QUICK, SHORT_POINT_SELECTS, Sandbox, server_lock, text};

/// The rounds' read-back value of `name`, by side, in run order.
fn read_back<'a>(results: &'a Value, name: &str) -> Vec<(&'a str, &'a str)> {
    results["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let side = r["side"].as_str().unwrap();
            let value = r["server_settings"]["read_back"][name].as_str();
            (
                side,
                value.unwrap_or_else(|| panic!("{name} not read back: {r}")),
            )
        })
        .collect()
}

/// A quick real run of `args` that must finish on one shared server which ends as it
/// began, with a results file the schema accepts.
fn run_shared(sandbox: &Sandbox, args: &[&str]) -> Finished {
    let mut all = args.to_vec();
    all.extend(QUICK);
    let finished = sandbox.run_json(&all);
    assert_eq!(finished.code, Some(0), "{}", finished.output);
    crate::support::assert_valid_results(&finished.results);
    let servers = &finished.results["servers"];
    assert_eq!(servers["shared"], true, "{servers}");
    assert_eq!(servers["ended_as_began"], true, "{}", finished.output);
    finished
}

#[test]
fn one_server_runs_each_side_with_its_own_settings_read_back_every_round() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let finished = run_shared(
        &sandbox,
        &[
            "--baseline",
            "examples/durability/relaxed.toml",
            "--variant",
            "examples/durability/durable.toml",
            "--workload",
            "oltp_write_only",
            "--threads",
            "2",
            "--rounds",
            "4",
            "--instances",
            "2",
            "--seed",
            "3",
        ],
    );
    let results = &finished.results;
    for name in ["sync_binlog", "innodb_flush_log_at_trx_commit"] {
        // Both instances: the second is a fresh process of the shared server.
        let values = read_back(results, name);
        assert_eq!(values.len(), 8);
        for (side, value) in values {
            let expected = if side == "baseline" { "0" } else { "1" };
            assert_eq!(value, expected, "{name} in a {side} round");
        }
    }
    for round in results["rounds"].as_array().unwrap() {
        let ms = round["server_settings"]["put_in_place_ms"]
            .as_f64()
            .unwrap();
        assert!(ms > 0.0 && ms < 60_000.0, "{round}");
    }
    // Each side's facts were read with its settings in place: the difference shows.
    let differences: Vec<&str> = results["differences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    assert!(differences.contains(&"sync_binlog"), "{differences:?}");
    assert!(
        finished
            .output
            .contains("starting one server for both sides"),
        "{}",
        finished.output
    );
    let report = sandbox.run(&[
        "analyze",
        sandbox.path("results.json").to_str().unwrap(),
        "--format",
        "markdown",
    ]);
    let (stdout, _) = text(&report);
    assert!(
        stdout.contains("Both sides ran on one managed server.")
            && stdout.contains("- sync_binlog: baseline 0, variant 1")
            && stdout.contains("The server ended as it began"),
        "{stdout}"
    );
}

#[test]
fn a_plugin_the_server_cannot_unload_stays_loaded_and_switched_off_for_the_baseline() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let pair = [
        "--baseline",
        "profiles/mariadb.toml",
        "--variant",
        "profiles/mariadb-audit.toml",
    ];
    let finished = run_shared(&sandbox, &[&pair[..], SHORT_POINT_SELECTS].concat());
    let results = &finished.results;
    let notes = results["servers"]["notes"].to_string();
    assert!(
        notes.contains("server_audit.so loaded and switched off"),
        "{notes}"
    );
    for (side, value) in read_back(results, "server_audit_logging") {
        let expected = if side == "baseline" { "0" } else { "1" };
        assert_eq!(value, expected, "server_audit_logging in a {side} round");
    }
    for (side, value) in read_back(results, "plugin server_audit.so") {
        assert_eq!(value, "loaded", "the plugin in a {side} round");
    }
    // A B B A: each side opens its sessions once and keeps them while the other runs,
    // so the baseline's second round, after the variant's two, opens none.
    let opened = crate::support::connections_opened(results);
    assert_eq!(opened, [2, 2, 0, 0], "{}", finished.output);
}

#[test]
fn a_difference_only_a_restart_makes_keeps_two_servers_and_says_which() {
    let sandbox = Sandbox::new();
    let pair = [
        "--baseline",
        "profiles/mariadb.toml",
        "--variant",
        "profiles/mariadb-threadpool.toml",
    ];
    let dry = sandbox.run(&[&pair[..], &["--dry-run"]].concat());
    let (stdout, stderr) = text(&dry);
    assert_eq!(dry.status.code(), Some(0), "{stdout}{stderr}");
    assert!(
        stdout.contains("servers   a managed server per side: `thread_handling` is read-only"),
        "{stdout}"
    );
    // The server's answer came before the schedule: two servers' defaults.
    assert!(
        stdout.contains("30 rounds per side") && stdout.contains("round 5s"),
        "{stdout}"
    );
    assert!(!stdout.contains("the defaults on one server"), "{stdout}");
    let short = sandbox.run(&[&pair[..], &["--max-time", "20s", "--dry-run"]].concat());
    let (_, stderr) = text(&short);
    assert_eq!(short.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("a managed server per side (`thread_handling`")
            && stderr.contains("with the defaults of two servers: --max-time 20s holds 1"),
        "{stderr}"
    );
    // `abtest check` asks the same server and refuses what the run refuses.
    for check in [&["check"][..], &["check", "--dry-run"][..]] {
        let output = sandbox.run(&[check, &pair[..], &["--max-time", "20s"]].concat());
        let (stdout, stderr) = text(&output);
        assert_eq!(output.status.code(), Some(2), "{stdout}{stderr}");
        assert!(
            stderr.contains("with the defaults of two servers: --max-time 20s holds 1"),
            "{stderr}"
        );
        assert!(!stdout.contains("check passed"), "{stdout}");
    }
    let output = sandbox.run(&[&["check", "--dry-run"][..], &pair[..]].concat());
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stdout.contains("servers   a managed server per side: `thread_handling` is read-only")
            && stdout.contains("check passed"),
        "{stdout}"
    );
    // The two servers' timing is checked as strictly as the one it replaced.
    let instances = sandbox.run(&[&pair[..], &["--instances", "20", "--dry-run"]].concat());
    let (_, stderr) = text(&instances);
    assert_eq!(instances.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--instances 20 needs at least 40 rounds per side"),
        "{stderr}"
    );
    let shared = sandbox.run(&[&pair[..], &["--servers", "shared", "--dry-run"]].concat());
    let (stdout, stderr) = text(&shared);
    assert_eq!(shared.status.code(), Some(2), "{stdout}{stderr}");
    assert!(
        stderr.contains("--servers shared: one server cannot serve both sides")
            && stderr.contains("thread_handling")
            && stderr.contains("--servers separate"),
        "{stderr}"
    );
    let separate = sandbox.run(&[
        "--baseline",
        "examples/durability/relaxed.toml",
        "--variant",
        "examples/durability/durable.toml",
        "--servers",
        "separate",
        "--dry-run",
    ]);
    let (stdout, _) = text(&separate);
    assert!(
        stdout.contains("servers   a managed server per side: --servers separate"),
        "{stdout}"
    );
}

#[test]
fn one_server_runs_shorter_rounds_in_the_same_measured_time_unless_told() {
    let sandbox = Sandbox::new();
    let plan = |extra: &[&str]| {
        sandbox.dry_run_of("profiles/mariadb.toml", "profiles/mariadb.toml", extra)
    };
    let shared = plan(&[]);
    for needle in [
        "150 rounds per side",
        "round 1s",
        "re-warm 250ms",
        "(the defaults on one server",
    ] {
        assert!(shared.contains(needle), "{needle}: {shared}");
    }
    let separate = plan(&["--servers", "separate"]);
    for needle in ["30 rounds per side", "round 5s", "re-warm 1s"] {
        assert!(separate.contains(needle), "{needle}: {separate}");
    }
    assert!(
        !separate.contains("the defaults on one server"),
        "{separate}"
    );
    // Each flag given is kept; the others take one server's defaults.
    let given = plan(&["--round-time", "5s"]);
    assert!(
        given.contains("150 rounds per side") && given.contains("round 5s"),
        "{given}"
    );
    assert!(given.contains("re-warm 250ms"), "{given}");
    // Sessions opened for every round warm up fully each round: two servers' defaults.
    let per_round = plan(&["--connections", "per-round"]);
    assert!(per_round.contains("round 5s"), "{per_round}");
    // A budget too short for 5 s rounds holds enough 1 s ones on one server.
    let budget = plan(&["--max-time", "20s"]);
    assert!(budget.contains("round 1s"), "{budget}");
    // A budget too long for one server's 1 s rounds takes two servers' 5 s ones, and says so.
    let long = sandbox.run(&[
        "--baseline",
        "profiles/mariadb.toml",
        "--variant",
        "profiles/mariadb.toml",
        "--dry-run",
        "--max-time",
        "4d",
    ]);
    let (stdout, stderr) = text(&long);
    assert_eq!(long.status.code(), Some(0), "{stderr}");
    assert!(stdout.contains("round 5s"), "{stdout}");
    assert!(
        stderr.contains("one server's defaults (150 rounds of 1s, re-warm 250ms) do not fit")
            && stderr.contains("give --round-time and --rewarm to choose"),
        "{stderr}"
    );
}

#[test]
fn a_run_settles_its_timing_on_the_servers_it_gets() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let rewarm_of = |variant: &str| {
        let mut args = vec!["--baseline", "profiles/mariadb.toml", "--variant", variant];
        args.extend(SHORT_POINT_SELECTS);
        args.extend(QUICK);
        let finished = sandbox.run_json(&args);
        assert_eq!(finished.code, Some(0), "{}", finished.output);
        let results = finished.results;
        (
            results["servers"]["shared"].clone(),
            results["plan"]["schedule"]["rewarm"].clone(),
        )
    };
    // --round-time and --rounds given, --rewarm not: one server's 250 ms, or two
    // servers' 1 s once the server said it needs a restart.
    assert_eq!(
        rewarm_of("profiles/mariadb.toml"),
        (Value::Bool(true), serde_json::json!(0.25))
    );
    assert_eq!(
        rewarm_of("profiles/mariadb-threadpool.toml"),
        (Value::Bool(false), serde_json::json!(1.0))
    );
    sandbox.assert_nothing_left();
}
