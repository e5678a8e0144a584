//! Bad input is refused before anything starts: exit code 2, a message naming the file,
//! the line, the side and the fix, and nothing left behind.

use crate::support::{Sandbox, text};

fn refuse(sandbox: &Sandbox, args: &[&str]) -> String {
    let output = sandbox.run(args);
    let (_, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(2), "stderr: {stderr}");
    sandbox.assert_nothing_left();
    stderr
}

#[test]
fn unknown_key_names_file_line_side_and_suggestion() {
    let sandbox = Sandbox::new();
    let bad = sandbox.write(
        "bad.toml",
        "name = \"x\"\n\n[server]\n[server.options]\nport_x = 1\n[hooks]\nsetpu = []\n",
    );
    let bad = bad.to_str().unwrap();
    let stderr = refuse(
        &sandbox,
        &[
            "--baseline",
            "profiles/mariadb.toml",
            "--variant",
            bad,
            "--dry-run",
        ],
    );
    assert!(
        stderr.contains(&format!("variant profile {bad}:7")),
        "{stderr}"
    );
    assert!(stderr.contains("unknown field `setpu`"), "{stderr}");
    assert!(stderr.contains("did you mean `setup`?"), "{stderr}");
}

#[test]
fn missing_profile_file() {
    let sandbox = Sandbox::new();
    let stderr = refuse(
        &sandbox,
        &[
            "--baseline",
            "/nonexistent/a.toml",
            "--variant",
            "profiles/mariadb.toml",
        ],
    );
    assert!(
        stderr.contains("baseline profile /nonexistent/a.toml: cannot read it"),
        "{stderr}"
    );
}

#[test]
fn managed_server_with_external_host_is_refused() {
    let sandbox = Sandbox::new();
    let bad = sandbox.write(
        "both.toml",
        "[server]\n\n[connection]\ntls = \"required\"\nhost = \"db1\"\n",
    );
    let bad = bad.to_str().unwrap();
    let stderr = refuse(
        &sandbox,
        &["--baseline", bad, "--variant", "profiles/mariadb.toml"],
    );
    assert!(
        stderr.contains(&format!("baseline profile {bad}:5")),
        "{stderr}"
    );
    assert!(stderr.contains("remove `host`"), "{stderr}");
}

#[test]
fn malformed_toml_and_wrong_type() {
    let sandbox = Sandbox::new();
    let broken = sandbox.write("broken.toml", "[server\n");
    let stderr = refuse(
        &sandbox,
        &[
            "--baseline",
            "profiles/mariadb.toml",
            "--variant",
            broken.to_str().unwrap(),
        ],
    );
    assert!(stderr.contains("broken.toml:1"), "{stderr}");
    let typed = sandbox.write(
        "typed.toml",
        "[connection]\nhost = \"h\"\nport = \"3306\"\n",
    );
    let stderr = refuse(
        &sandbox,
        &[
            "--baseline",
            typed.to_str().unwrap(),
            "--variant",
            "profiles/mariadb.toml",
        ],
    );
    assert!(
        stderr.contains("typed.toml:3") && stderr.contains("invalid type"),
        "{stderr}"
    );
}

#[test]
fn missing_password_variable_and_nonexistent_binary() {
    let sandbox = Sandbox::new();
    let env = sandbox.write(
        "env.toml",
        "[connection]\nhost = \"127.0.0.1\"\npassword_env = \"ABTEST_TEST_NO_SUCH_VAR\"\n",
    );
    let stderr = refuse(
        &sandbox,
        &[
            "--baseline",
            env.to_str().unwrap(),
            "--variant",
            "profiles/mariadb.toml",
        ],
    );
    assert!(
        stderr.contains("env.toml:3") && stderr.contains("ABTEST_TEST_NO_SUCH_VAR is not set"),
        "{stderr}"
    );
    let binary = sandbox.write("bin.toml", "[server]\nbinary = \"/nonexistent/mariadbd\"\n");
    let stderr = refuse(
        &sandbox,
        &[
            "--baseline",
            "profiles/mariadb.toml",
            "--variant",
            binary.to_str().unwrap(),
        ],
    );
    assert!(
        stderr.contains("bin.toml:2") && stderr.contains("/nonexistent/mariadbd does not exist"),
        "{stderr}"
    );
}

#[test]
fn bad_flags_are_usage_errors() {
    let sandbox = Sandbox::new();
    let base = [
        "--baseline",
        "profiles/mariadb.toml",
        "--variant",
        "profiles/mariadb.toml",
    ];
    for extra in [
        &["--rounds", "1"][..],
        &["--round-time", "0s"],
        &["--threads", "0"],
        &["--workload", "oltp_nonsense"],
        &["--round-time", "soon"],
        &["--alpha", "2"],
    ] {
        let args: Vec<&str> = base.iter().chain(extra).copied().collect();
        refuse(&sandbox, &args);
    }
}

#[test]
fn dry_run_prints_the_plan_without_connecting() {
    let sandbox = Sandbox::new();
    let output = sandbox.run(&[
        "--baseline",
        "profiles/mariadb.toml",
        "--variant",
        "profiles/mariadb-audit.toml",
        "--workload",
        "oltp_point_select",
        "--threads",
        "8",
        "--rounds",
        "5",
        "--round-time",
        "5s",
        "--seed",
        "1",
        "--dry-run",
    ]);
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stdout.contains("plugin_load_add=server_audit"), "{stdout}");
    assert!(stdout.contains("oltp_point_select"), "{stdout}");
    assert!(stdout.contains("ABBAABBAAB"), "{stdout}");
    // Each side's first round warms up 5 s, the others re-warm 250 ms (one server's
    // default): 2 × 10 s + 8 × 5.25 s.
    assert!(stdout.contains("estimate  1m 2s"), "{stdout}");
    assert!(
        stdout.contains(
            "client    connections kept between a side's rounds; later rounds re-warm 250ms"
        ),
        "{stdout}"
    );
}

#[test]
fn every_spelling_of_a_reserved_server_option_is_refused() {
    let sandbox = Sandbox::new();
    for (index, option) in [
        "bind_address = \"0.0.0.0\"",
        "loose_bind_address = \"0.0.0.0\"",
        "loose-bind-address = \"0.0.0.0\"",
        "BIND-ADDRESS = \"0.0.0.0\"",
        "bind = \"0.0.0.0\"",
        "skip_grant_tables = true",
        "loose_skip_grant_tables = 1",
        "skip-grant = 1",
        "loose_user = \"root\"",
        "maximum-secure-file-priv = \"/\"",
        "datad = \"/tmp\"",
        "loose_socket = \"/tmp/x.sock\"",
    ]
    .iter()
    .enumerate()
    {
        let name = format!("reserved-{index}.toml");
        let path = sandbox.write(&name, &format!("[server]\n[server.options]\n{option}\n"));
        let stderr = refuse(
            &sandbox,
            &[
                "--baseline",
                path.to_str().unwrap(),
                "--variant",
                "profiles/mariadb.toml",
                "--dry-run",
            ],
        );
        assert!(
            stderr.contains(&format!("{name}:3")) && stderr.contains("abtest sets itself"),
            "{option}: {stderr}"
        );
    }
}

#[test]
fn a_password_of_the_wrong_type_is_never_printed() {
    let sandbox = Sandbox::new();
    for (name, body) in [
        (
            "int.toml",
            "[connection]\nhost = \"127.0.0.1\"\npassword = 987654321\n",
        ),
        (
            "float.toml",
            "[connection]\nhost = \"127.0.0.1\"\npassword = 98765.4321\n",
        ),
        (
            "array.toml",
            "[connection]\nhost = \"127.0.0.1\"\npassword = [\"987654321\"]\n",
        ),
    ] {
        let path = sandbox.write(name, body);
        let output = sandbox.run(&[
            "--baseline",
            path.to_str().unwrap(),
            "--variant",
            "profiles/mariadb.toml",
            "--dry-run",
        ]);
        let (stdout, stderr) = text(&output);
        assert_eq!(output.status.code(), Some(2), "{name}: {stderr}");
        assert!(
            !stdout.contains("987654321") && !stderr.contains("987654321"),
            "{name}: the password was printed: {stderr}"
        );
        assert!(
            !stderr.contains("4321"),
            "{name}: part of the password was printed: {stderr}"
        );
        assert!(stderr.contains(&format!("{name}:3")), "{name}: {stderr}");
    }
}

/// The plan `--dry-run` prints for the stock and audit profiles with `extra` flags.
fn dry_run(sandbox: &Sandbox, extra: &[&str]) -> String {
    sandbox.dry_run_of(
        "profiles/mariadb.toml",
        "profiles/mariadb-audit.toml",
        extra,
    )
}

/// The error a `--dry-run` of the stock and audit profiles with `extra` flags is
/// refused with (exit 2).
fn refuse_dry_run(sandbox: &Sandbox, extra: &[&str]) -> String {
    let mut args = vec![
        "--baseline",
        "profiles/mariadb.toml",
        "--variant",
        "profiles/mariadb-audit.toml",
        "--dry-run",
    ];
    args.extend(extra);
    refuse(sandbox, &args)
}

#[test]
fn switches_take_on_off_in_every_sysbench_spelling() {
    let sandbox = Sandbox::new();
    for (flags, expected) in [
        (
            &["--range-selects", "off", "--skip-trx", "on"][..],
            "range-selects off, skip-trx on, auto-inc on, secondary off, create-secondary on",
        ),
        (
            &[
                "--range-selects=false",
                "--auto-inc=0",
                "--create-secondary",
                "no",
            ][..],
            "range-selects off, skip-trx off, auto-inc off, secondary off, create-secondary off",
        ),
        (
            &["--secondary=1", "--skip-trx", "true"][..],
            "range-selects on, skip-trx on, auto-inc on, secondary on, create-secondary on",
        ),
    ] {
        let plan = dry_run(&sandbox, flags);
        assert!(plan.contains(expected), "{flags:?}: {plan}");
    }
    let stderr = refuse(
        &sandbox,
        &[
            "--baseline",
            "profiles/mariadb.toml",
            "--variant",
            "profiles/mariadb.toml",
            "--range-selects",
            "maybe",
            "--dry-run",
        ],
    );
    assert!(stderr.contains("`maybe` is not on or off"), "{stderr}");
}

#[test]
fn the_dry_run_prints_every_tolerance_as_read() {
    let sandbox = Sandbox::new();
    let plan = dry_run(
        &sandbox,
        &[
            "--max-tps-loss",
            "5",
            "--max-latency-inflation",
            "p99=15%,10",
            "--max-error-rate",
            "0.5%",
            "--alpha",
            "10%",
        ],
    );
    assert!(
        plan.contains(
            "analysis  alpha 0.1; TPS loss at most 5 %; latency_p99_ms inflation at most 15 %; \
             other latency inflation at most 10 %; error rate at most 0.5 %; percentiles 95, 99"
        ),
        "{plan}"
    );
    let untold = dry_run(&sandbox, &[]);
    assert!(
        untold.contains("no TPS tolerance (no verdict on TPS)"),
        "{untold}"
    );
    // The plain blocks by default; the load adjustment only when asked for.
    assert!(untold.contains("compared over ABBA blocks\n"), "{untold}");
    for (flags, expected) in [
        (
            ["--adjust", "host-load"],
            "compared over ABBA blocks, adjusted for the host's load when it varies and the \
             sides met the same load",
        ),
        (
            ["--order", "random"],
            "compared on rounds (Welch, Fieller)\n",
        ),
        (
            ["--order", "abab"],
            "compared over adjacent pairs of rounds\n",
        ),
    ] {
        let plan = dry_run(&sandbox, &flags);
        assert!(plan.contains(expected), "{flags:?}: {plan}");
    }
}

#[test]
fn the_dry_run_refuses_what_the_run_would_refuse() {
    let sandbox = Sandbox::new();
    let profile = |name: &str, body: &str| {
        let path = sandbox.write(name, body);
        path.to_str().unwrap().to_string()
    };
    let cases = [
        (
            profile(
                "typo.toml",
                "name = \"typo\"\n[server.options]\ninnodb_bufer_pool_size = \"256M\"\n",
            ),
            "typo.toml:3: `innodb_bufer_pool_size` is not an option of",
            "did you mean `innodb_buffer_pool_size`?",
        ),
        (
            profile(
                "port0.toml",
                "name = \"p\"\n[connection]\nhost = \"127.0.0.1\"\nport = 0\n",
            ),
            "port0.toml:4: port 0 is not a server's port",
            "such as 3306",
        ),
        (
            profile(
                "managed0.toml",
                "name = \"m\"\n[server.options]\nport = 0\n",
            ),
            "managed0.toml:3: `port` must be a number between 1 and 65535",
            "",
        ),
        (
            profile(
                "quoted.toml",
                "name = \"q\"\n[connection]\nhost = \"127.0.0.1\"\nport = \"3306\"\n",
            ),
            "quoted.toml:4: a port is a number from 1 to 65535, written without quotes",
            "",
        ),
    ];
    for (variant, first, second) in &cases {
        let stderr = refuse(
            &sandbox,
            &[
                "--baseline",
                "profiles/mariadb.toml",
                "--variant",
                variant,
                "--dry-run",
            ],
        );
        assert!(
            stderr.contains(first) && stderr.contains(second),
            "{stderr}"
        );
    }
    let stderr = refuse(
        &sandbox,
        &[
            "--baseline",
            "profiles/mariadb.toml",
            "--variant",
            "profiles/mariadb.toml",
            "--json",
            "/nonexistent/dir/r.json",
            "--dry-run",
        ],
    );
    assert!(
        stderr.contains("cannot write /nonexistent/dir/r.json"),
        "{stderr}"
    );
    // A misspelt option under loose_ is ignored by mariadbd: a warning, not a refusal.
    let loose = profile(
        "loose.toml",
        "name = \"l\"\n[server.options]\nloose_innodb_bufer_pool_size = \"256M\"\n",
    );
    let output = sandbox.run(&[
        "--baseline",
        "profiles/mariadb.toml",
        "--variant",
        &loose,
        "--dry-run",
    ]);
    let (_, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("with loose_ the server ignores it"),
        "{stderr}"
    );
}

#[test]
fn the_dry_run_says_when_both_sides_are_the_same() {
    let sandbox = Sandbox::new();
    let same = sandbox.dry_run_of("profiles/mariadb.toml", "profiles/mariadb.toml", &[]);
    assert!(
        same.contains("notice    baseline and variant are configured identically"),
        "{same}"
    );
    let different = dry_run(&sandbox, &[]);
    assert!(!different.contains("configured identically"), "{different}");
}

#[test]
fn a_time_budget_sets_the_rounds_and_the_looks() {
    let sandbox = Sandbox::new();
    let plan = dry_run(
        &sandbox,
        &[
            "--connections",
            "per-round",
            "--round-time",
            "10s",
            "--warmup",
            "5s",
            "--max-time",
            "10m",
            "--until",
            "decided",
            "--max-tps-loss",
            "5%",
        ],
    );
    // 600 s / (2 sides × 15 s) = 20 rounds per side; five looks on round pairs.
    assert!(plan.contains("20 rounds per side"), "{plan}");
    assert!(
        plan.contains("looks     at 4, 8, 12, 16, 20 rounds per side (budget 10m); stop when every tolerance is GO or NO-GO"),
        "{plan}"
    );
    let precision = dry_run(
        &sandbox,
        &[
            "--max-time",
            "10m",
            "--until",
            "precision=2%",
            "--looks",
            "2",
        ],
    );
    assert!(
        precision.contains("stop when the TPS interval is within ±2 %"),
        "{precision}"
    );
    for (flags, needle) in [
        (
            &["--until", "decided", "--max-tps-loss", "5%"][..],
            "give --max-time too",
        ),
        (
            &["--max-time", "10m", "--until", "decided"][..],
            "needs a tolerance",
        ),
        (
            &[
                "--max-time",
                "10m",
                "--until",
                "decided",
                "--max-tps-loss",
                "5%",
                "--threads",
                "8,16",
            ][..],
            "one thread level",
        ),
        (&["--max-time", "10s"][..], "at least 2 are needed"),
        (
            &["--max-time", "10m", "--until", "soon"][..],
            "is not a stopping rule",
        ),
    ] {
        let stderr = refuse_dry_run(&sandbox, flags);
        assert!(stderr.contains(needle), "{flags:?}: {stderr}");
    }
}

#[test]
fn a_cpu_placement_that_cannot_be_applied_is_refused() {
    let sandbox = Sandbox::new();
    let external = sandbox.write(
        "external.toml",
        "[connection]\nhost = \"127.0.0.1\"\nport = 1\nuser = \"u\"\n",
    );
    let cases = [
        (
            "profiles/mariadb.toml",
            "client=1000",
            "CPU 1000 is not available",
        ),
        (
            "profiles/mariadb.toml",
            "client=4095",
            "CPU 4095 is beyond what a Linux CPU mask holds (0 to 1023)",
        ),
        (
            "profiles/mariadb.toml",
            "server=0",
            "use client=, baseline= or variant=",
        ),
        ("profiles/mariadb.toml", "client=1-0", "runs backwards"),
        (
            external.to_str().unwrap(),
            "variant=0",
            "the variant side is an external server",
        ),
    ];
    for (variant, cpus, message) in cases {
        let output = sandbox.run(&[
            "--baseline",
            "profiles/mariadb.toml",
            "--variant",
            variant,
            "--cpus",
            cpus,
            "--dry-run",
        ]);
        let (stdout, stderr) = text(&output);
        assert_eq!(
            output.status.code(),
            Some(2),
            "--cpus {cpus}: {stdout}{stderr}"
        );
        assert!(stderr.contains(message), "--cpus {cpus}: {stderr}");
    }
}

#[test]
fn a_segment_that_could_not_agree_with_the_others_is_refused() {
    let sandbox = Sandbox::new();
    let external = sandbox
        .write(
            "external.toml",
            "[connection]\nhost = \"127.0.0.1\"\nport = 3306\nuser = \"bench\"\ndatabase = \"sbtest\"\n",
        )
        .display()
        .to_string();
    let json = sandbox.path("segment.json").display().to_string();
    let run = |extra: &[&str]| {
        let mut args = vec!["--baseline", &external, "--variant", &external, "--dry-run"];
        args.extend(extra);
        refuse(&sandbox, &args)
    };
    let at = ["--start-at", "2026-12-01T10:00:00Z"];
    let split = [
        &["--segment", "2/3", "--seed", "1", "--json", &json][..],
        &at,
    ]
    .concat();
    let managed = refuse(
        &sandbox,
        &[
            &[
                "--baseline",
                "profiles/mariadb.toml",
                "--variant",
                &external,
                "--dry-run",
            ][..],
            &split,
        ]
        .concat(),
    );
    assert!(managed.contains("managed [server]"), "{managed}");
    let no_start = run(&["--segment", "2/3", "--seed", "1", "--json", &json]);
    assert!(no_start.contains("--start-at"), "{no_start}");
    let no_seed = run(&[&["--segment", "2/3", "--json", &json][..], &at].concat());
    assert!(no_seed.contains("the same --seed"), "{no_seed}");
    let no_json = run(&[&["--segment", "2/3", "--seed", "1"][..], &at].concat());
    assert!(no_json.contains("--json"), "{no_json}");
    let until = run(&[&split[..], &["--max-time", "5m", "--until", "decided"]].concat());
    assert!(until.contains("--until"), "{until}");
    let few = run(&[&split[..], &["--threads", "2"]].concat());
    assert!(few.contains("--threads 2 cannot be split"), "{few}");
    let bad_index = run(&["--segment", "4/3"]);
    assert!(bad_index.contains("from 1 to the number"), "{bad_index}");
    let bad_time = run(&["--segment", "1/3", "--seed", "1", "--start-at", "tomorrow"]);
    assert!(bad_time.contains("2026-12-01T10:00:00Z"), "{bad_time}");
}

/// The commands that talk to one running server refuse a profile that starts its own,
/// naming the file and saying why.
#[test]
fn commands_for_a_running_server_refuse_a_managed_profile() {
    let sandbox = Sandbox::new();
    let managed = "profiles/mariadb.toml";
    let stderr = refuse(&sandbox, &["cleanup", "--profile", managed]);
    assert!(
        stderr.contains("profiles/mariadb.toml: a [server] profile starts a managed server")
            && stderr.contains("nothing to clean up"),
        "{stderr}"
    );
    let stderr = refuse(&sandbox, &["capture", "--digest", managed]);
    assert!(
        stderr.contains(
            "profiles/mariadb.toml: --digest reads a running server's performance_schema"
        ) && stderr.contains("[connection]"),
        "{stderr}"
    );
}

/// `--check-results` on a workload that only writes would compare nothing and pass for a
/// check that found no difference: it is refused before anything starts.
#[test]
fn a_check_of_answers_with_nothing_to_compare_is_refused() {
    let sandbox = Sandbox::new();
    let profile = "profiles/mariadb.toml";
    let run = |workload: &'static str| {
        vec![
            "--baseline",
            profile,
            "--variant",
            profile,
            "--workload",
            workload,
            "--check-results",
            "10",
            "--dry-run",
        ]
    };
    let stderr = refuse(&sandbox, &run("oltp_write_only"));
    assert!(
        stderr.contains("--check-results 10: the workload oltp_write_only has no read statement"),
        "{stderr}"
    );
    let output = sandbox.run(&run("oltp_read_only"));
    assert_eq!(output.status.code(), Some(0), "{}", text(&output).1);
}

/// `--swap` moves only what the hooks set: a difference in the profiles' client settings
/// would stay with the servers and be mixed up with the change, so it is refused.
#[test]
fn a_swap_that_would_leave_client_settings_behind_is_refused() {
    let sandbox = Sandbox::new();
    let external = |name: &str, port: u16, extra: &str| {
        let text = format!(
            "[connection]\nhost = \"127.0.0.1\"\nport = {port}\n\n[hooks]\nsetup = [\"SET GLOBAL max_connect_errors = 4321\"]\n{extra}"
        );
        sandbox.write(name, &text).to_str().unwrap().to_string()
    };
    let baseline = external("a.toml", 3307, "");
    let run = |variant: &str| {
        sandbox.run(&[
            "--baseline",
            &baseline,
            "--variant",
            variant,
            "--swap",
            "--rounds",
            "4",
            "--dry-run",
        ])
    };
    let variant = external("b.toml", 3308, "\n[session]\nsort_buffer_size = 1048576\n");
    let output = run(&variant);
    let (_, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--swap: the profiles' [connection] tls or [session] settings differ"),
        "{stderr}"
    );
    let variant = external("c.toml", 3308, "");
    let output = run(&variant);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output).1);
}

#[test]
fn sysbench_habits_get_the_abtest_way() {
    let sandbox = Sandbox::new();
    for (args, needle) in [
        (
            &[
                "--baseline",
                "a.toml",
                "--variant",
                "b.toml",
                "--time",
                "60",
            ][..],
            "--max-time",
        ),
        (&["--mysql-host=db1"][..], "[connection] host"),
        (&["--events", "1000"][..], "not a count of events"),
        (&["prepare"][..], "prepares the sbtest data itself"),
        (&["cleanup"][..], "abtest cleanup --profile"),
    ] {
        let output = sandbox.run(args);
        let (_, stderr) = text(&output);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
        assert!(
            stderr.contains("abtest from-sysbench"),
            "{args:?}: {stderr}"
        );
    }
}

/// sysbench's word order and spellings: each refusal names the abtest spelling of what
/// was typed, and clap's "similar argument" (`--mysql-storage-engine` for `--mysql-host`)
/// never comes before it.
#[test]
fn sysbench_spellings_are_answered_with_the_abtest_spelling_first() {
    let sandbox = Sandbox::new();
    let sides = ["--baseline", "a.toml", "--variant", "b.toml"];
    for (args, needle) in [
        (
            &["oltp_read_write", "run"][..],
            "in abtest: abtest --baseline a.toml --variant b.toml --workload oltp_read_write\n",
        ),
        (
            &["--threads", "8", "16"][..],
            "--threads 8 16: abtest reads the thread levels as one list, separated by commas: --threads 8,16",
        ),
        (
            &["--max-tps-loss", "-5%"][..],
            "--max-tps-loss -5%: a tolerance is the size of the loss you accept, written positive: --max-tps-loss 5%",
        ),
        (
            &["--mysql-host=db1"][..],
            "here: [connection] host = \"db1\"",
        ),
        (&["--events", "1000"][..], "not a count of events"),
    ] {
        let mut line = sides.to_vec();
        line.extend_from_slice(args);
        let output = sandbox.run(&line);
        let (_, stderr) = text(&output);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
        assert!(
            !stderr.contains("similar argument") && !stderr.contains("--mysql-storage-engine"),
            "{args:?}: {stderr}"
        );
        assert!(
            !stderr.contains("--segment") && !stderr.contains("to pass '-5'"),
            "{args:?}: {stderr}"
        );
        let refused = stderr.find("error:").unwrap();
        assert!(
            refused < stderr.find("hint (from sysbench)").unwrap(),
            "{stderr}"
        );
    }
}

#[test]
fn a_server_that_refuses_the_connection_is_named_with_the_fix() {
    let sandbox = Sandbox::new();
    // A port nobody listens on: bind one, note it, let it go.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let profile = sandbox.write(
        "gone.toml",
        &format!(
            "[connection]\nhost = \"127.0.0.1\"\nport = {port}\nuser = \"sb\"\npassword_env = \"ABTEST_NO_SUCH_SECRET\"\ndatabase = \"sbtest\"\n"
        ),
    );
    let profile = profile.to_str().unwrap();
    let output = sandbox
        .abtest()
        .args(["--baseline", profile, "--variant", profile, "--rounds", "2"])
        .env("ABTEST_NO_SUCH_SECRET", "x")
        .output()
        .unwrap();
    let (_, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "({profile}): cannot connect to sb@127.0.0.1:{port}/sbtest"
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains("check `host` and `port` (or `socket`) in the profile's [connection]"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("DriverError {") && !stderr.contains("MySqlError {"),
        "{stderr}"
    );
}

#[test]
fn flags_out_of_any_sensible_range_are_refused_not_a_panic_or_a_hang() {
    let sandbox = Sandbox::new();
    for (flags, needle) in [
        (
            &["--round-time", "18446744073709551615s"][..],
            "--round-time",
        ),
        (
            &["--max-time", "100000h"][..],
            "longer than abtest plans (7 days)",
        ),
        (
            &["--max-time", "1000000h"][..],
            "longer than abtest plans (7 days)",
        ),
        (
            &[
                "--max-time",
                "6d",
                "--round-time",
                "1ms",
                "--warmup",
                "0s",
                "--rewarm",
                "0s",
            ][..],
            "more than abtest plans",
        ),
        (
            &["--rounds", "4294967295"][..],
            "--rounds 4294967295 is more than abtest plans",
        ),
        (
            &["--threads", "4294967295"][..],
            "max_connections is at most 100000",
        ),
        (&["--threads", "8,8"][..], "--threads lists 8 twice"),
        (&["--tables", "4294967295"][..], "more than abtest prepares"),
        (
            &["--table-size", "4294967295"][..],
            "does not fit sbtest's INTEGER id",
        ),
        (
            &["--percentiles", "50,50"][..],
            "names latency p50 (ms) twice",
        ),
        (
            &["--max-latency-inflation", "p99=5%,p99=6%"][..],
            "has a tolerance already",
        ),
    ] {
        let mut args = vec![
            "--baseline",
            "profiles/mariadb.toml",
            "--variant",
            "profiles/mariadb.toml",
            "--dry-run",
        ];
        args.extend(flags);
        let stderr = refuse(&sandbox, &args);
        assert!(stderr.contains(needle), "{flags:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{flags:?}: {stderr}");
    }
}

#[test]
fn outputs_never_overwrite_inputs_or_each_other() {
    let sandbox = Sandbox::new();
    let profile = sandbox.write(
        "a.toml",
        &std::fs::read_to_string("profiles/mariadb.toml").unwrap(),
    );
    let profile = profile.to_str().unwrap();
    let same = sandbox.path("same");
    let same = same.to_str().unwrap();
    let dir = sandbox.path("");
    let dir = dir.to_str().unwrap();
    for (outputs, needle) in [
        (vec!["--json", profile], "is an input of the run"),
        (
            vec!["--json", same, "--csv", same],
            "--json and --csv both name",
        ),
        (vec!["--json", dir], "is a directory"),
    ] {
        let mut args = vec!["--baseline", profile, "--variant", "profiles/mariadb.toml"];
        args.extend(&outputs);
        for dry in [true, false] {
            let mut args = args.clone();
            if dry {
                args.push("--dry-run");
            }
            let stderr = refuse(&sandbox, &args);
            assert!(stderr.contains(needle), "{outputs:?}: {stderr}");
        }
    }
    assert_eq!(
        std::fs::read_to_string(profile).unwrap(),
        std::fs::read_to_string("profiles/mariadb.toml").unwrap(),
        "the profile is untouched"
    );
    // Nor is a profile's password file.
    let password = sandbox.write("password", "secret\n");
    std::fs::set_permissions(
        &password,
        std::os::unix::fs::PermissionsExt::from_mode(0o600),
    )
    .unwrap();
    let external = sandbox.write(
        "external.toml",
        &format!(
            "[connection]\nhost = \"127.0.0.1\"\nport = 3306\nuser = \"sb\"\npassword_file = \"{}\"\n",
            password.display()
        ),
    );
    let external = external.to_str().unwrap();
    let stderr = refuse(
        &sandbox,
        &[
            "--baseline",
            external,
            "--variant",
            external,
            "--json",
            password.to_str().unwrap(),
            "--dry-run",
        ],
    );
    assert!(stderr.contains("is an input of the run"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&password).unwrap(), "secret\n");
    // Nor does `merge` write over a segment it reads.
    let segments: Vec<String> = (1..=3)
        .map(|i| {
            let text =
                std::fs::read_to_string(format!("examples/distributed/segment-{i}.json")).unwrap();
            sandbox
                .write(&format!("segment-{i}.json"), &text)
                .display()
                .to_string()
        })
        .collect();
    let before = std::fs::read(&segments[0]).unwrap();
    let mut args: Vec<&str> = vec!["merge"];
    args.extend(segments.iter().map(String::as_str));
    args.extend(["--json", segments[0].as_str()]);
    let stderr = refuse(&sandbox, &args);
    assert!(stderr.contains("is an input of the run"), "{stderr}");
    assert_eq!(
        std::fs::read(&segments[0]).unwrap(),
        before,
        "the segment is untouched"
    );
}

#[test]
fn a_hook_cannot_move_a_managed_servers_logs_outside_its_directory() {
    let sandbox = Sandbox::new();
    let profile = sandbox.write(
        "logs.toml",
        "[server]\n[hooks]\nsetup = [\"SET GLOBAL max_connect_errors = 5\", \"SET /* x */ @@GLOBAL.general_log_file = '/tmp/general.log'\"]\n",
    );
    let stderr = refuse(
        &sandbox,
        &[
            "--baseline",
            "profiles/mariadb.toml",
            "--variant",
            profile.to_str().unwrap(),
            "--dry-run",
        ],
    );
    assert!(
        stderr.contains("logs.toml:3")
            && stderr.contains("general_log_file")
            && stderr.contains("[server.options]"),
        "{stderr}"
    );
}

#[test]
fn a_plan_that_cannot_decide_is_warned_about_before_it_runs() {
    let sandbox = Sandbox::new();
    let base = [
        "--baseline",
        "profiles/mariadb.toml",
        "--variant",
        "profiles/mariadb-audit.toml",
        "--servers",
        "separate",
        "--dry-run",
    ];
    // Three levels in three minutes with two servers' 5 s rounds: 2 ABBA blocks each,
    // 1 degree of freedom.
    let sweep = [
        &base[..],
        &[
            "--threads",
            "4,16,64",
            "--max-time",
            "3m",
            "--max-tps-loss",
            "5%",
        ],
    ]
    .concat();
    let output = sandbox.run(&sweep);
    let (_, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("make 2 ABBA blocks (1 degree(s) of freedom): too few for an interval that can decide; a verdict from it will be INCONCLUSIVE"),
        "{stderr}"
    );
    assert!(
        stderr.contains("give --max-time 6m or more, or fewer --threads levels"),
        "{stderr}"
    );
    let output = sandbox.run(&[&base[..], &["--rounds", "4"]].concat());
    assert!(
        text(&output).1.contains("give --rounds 8 or more"),
        "{}",
        text(&output).1
    );
    // Enough blocks: no such warning.
    let output = sandbox.run(&[&base[..], &["--rounds", "8"]].concat());
    assert!(!text(&output).1.contains("too few"), "{}", text(&output).1);
}

/// Every flag that expands a range or sizes an allocation is bounded before it
/// allocates: the dry run refuses it at once, naming the flag, the limit and the fix.
#[test]
fn range_and_count_flags_are_bounded_before_they_allocate() {
    let sandbox = Sandbox::new();
    let levels: Vec<String> = (1..=20).map(|t| t.to_string()).collect();
    let levels = levels.join(",");
    let cases: [(&[&str], &str); 7] = [
        (
            &["--cpus", "client=0-4294967295"],
            "CPU 4294967295 is beyond what a Linux CPU mask holds (0 to 1023)",
        ),
        (
            &["--cpus", "baseline=1024"],
            "/sys/devices/system/cpu/online",
        ),
        (
            &[
                "--workload",
                "oltp_read_only",
                "--random-points",
                "4294967295",
            ],
            "--random-points makes a statement of 4294967295 placeholders",
        ),
        (
            &["--number-of-ranges", "40000"],
            "more than a prepared statement may have (65535)",
        ),
        (
            &["--point-selects", "4294967295"],
            "--point-selects 4294967295 is more statements per transaction",
        ),
        (
            &["--threads", &levels, "--rounds", "100000"],
            "make 4000000 rounds, more than abtest plans (1000000)",
        ),
        (&["--rounds", "4294967295"], "--rounds 4294967295 is more"),
    ];
    for (flags, message) in cases {
        let stderr = refuse_dry_run(&sandbox, flags);
        assert!(stderr.contains(message), "{flags:?}: {stderr}");
    }
}

/// `--class-timing` and `--max-class-slowdown` are refused, with the fix, where they
/// could time nothing or would be read wrong: a zero budget, a workload without reads,
/// one server on both sides (its sides differ only by hooks, one at a time), a
/// percentage or a ratio that is no slowdown.
#[test]
fn a_class_timing_that_could_time_nothing_is_refused() {
    let sandbox = Sandbox::new();
    let managed = "profiles/mariadb.toml";
    let run = |extra: &[&'static str]| -> Vec<&'static str> {
        let mut args = vec!["--baseline", managed, "--variant", managed, "--dry-run"];
        args.extend(extra);
        args
    };
    let cases: [(&[&str], &str); 5] = [
        (
            &["--class-timing", "0s"],
            "--class-timing needs a budget longer than zero",
        ),
        (
            &[
                "--workload",
                "oltp_write_only",
                "--max-class-slowdown",
                "2x",
            ],
            "--class-timing has no read statement to time",
        ),
        (
            &["--max-class-slowdown", "150%"],
            "give the slowdown as a ratio, such as 2.5x",
        ),
        (
            &["--max-class-slowdown", "0.5x"],
            "write a ratio above 1, such as 2x",
        ),
        (&["--max-class-slowdown", "1"], "write a ratio above 1"),
    ];
    for (extra, expected) in cases {
        let stderr = refuse(&sandbox, &run(extra));
        assert!(stderr.contains(expected), "{extra:?}: {stderr}");
    }
    let one = "examples/one-server/flush-1.toml";
    let shared = refuse(
        &sandbox,
        &[
            "--baseline",
            one,
            "--variant",
            "examples/one-server/flush-2.toml",
            "--class-timing",
            "--dry-run",
        ],
    );
    assert!(shared.contains("both profiles name one server"), "{shared}");
    let fine = sandbox.run(&run(&["--max-class-slowdown", "3x"]));
    let (stdout, stderr) = text(&fine);
    assert_eq!(fine.status.code(), Some(0), "{stderr}");
    assert!(
        stdout.contains(
            "every read query class timed on both sides on idle servers, within about 2m"
        ) && stdout.contains("a timed query class at most 3× slower"),
        "{stdout}"
    );
}

/// The dry run numbers the classes as the file does, also after a choice, refuses a
/// selector that matches nothing with the list, and says a check-only run has no rounds.
#[test]
fn the_dry_run_numbers_the_chosen_classes_and_says_check_only_has_no_rounds() {
    let sandbox = Sandbox::new();
    let file = ["--workload-file", "workloads/captured-sysbench.toml"];
    let all = dry_run(&sandbox, &file);
    assert!(
        all.contains("numbered for --exclude-class/--only-class"),
        "{all}"
    );
    assert!(
        all.contains("   21  SELECT COUNT(*) FROM sbtest{t4_0} WHERE c LIKE"),
        "{all}"
    );
    let chosen = dry_run(
        &sandbox,
        &[&file[..], &["--check-only", "--exclude-class", "21"]].concat(),
    );
    assert!(
        chosen.contains("(--exclude-class/--only-class chose them)"),
        "{chosen}"
    );
    assert!(!chosen.contains("c LIKE"), "class 21 is left out: {chosen}");
    assert!(
        chosen.contains("   22  SELECT id FROM sbtest{t5_0}"),
        "{chosen}"
    );
    assert!(
        chosen.contains("schedule  no timed round (--check-only)"),
        "{chosen}"
    );
    assert!(!chosen.contains("order     "), "{chosen}");
    let stderr = refuse_dry_run(
        &sandbox,
        &[&file[..], &["--only-class", "nothing"]].concat(),
    );
    assert!(stderr.contains("matches no query class"), "{stderr}");
    assert!(stderr.contains("   21  SELECT COUNT(*)"), "{stderr}");
}
