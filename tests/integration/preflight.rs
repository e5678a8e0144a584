//! README promise: "`abtest check` and the dry run catch what would stop a run later":
//! an option value the server refuses, a data set too big for the disk, a wrong
//! password or missing grants on an external server; and a managed server that does
//! not start shows what mariadbd printed, wherever it printed it.

use crate::support::{Sandbox, server_lock, start_server, text};

/// The exit code and stderr of a dry run of the stock profile against `variant`, with
/// `extra` options.
fn dry_run(sandbox: &Sandbox, variant: &str, extra: &[&str]) -> (Option<i32>, String) {
    let mut args = vec!["--baseline", "profiles/mariadb.toml", "--variant", variant];
    args.extend_from_slice(extra);
    args.push("--dry-run");
    let output = sandbox.run(&args);
    (output.status.code(), text(&output).1)
}

#[test]
fn the_dry_run_refuses_an_option_value_the_server_refuses_with_the_values_it_accepts() {
    let sandbox = Sandbox::new();
    let profile = sandbox.write(
        "pool.toml",
        "name = \"pool\"\n[server.options]\nthread_handling = \"pool-of-treads\"\n",
    );
    let (code, stderr) = dry_run(&sandbox, profile.to_str().unwrap(), &[]);
    assert_eq!(code, Some(2), "{stderr}");
    for expected in [
        "variant profile",
        "pool.toml:3:",
        "`thread_handling = \"pool-of-treads\"`",
        "use one of: one-thread-per-connection, no-threads, pool-of-threads",
    ] {
        assert!(stderr.contains(expected), "{expected}: {stderr}");
    }
}

#[test]
fn the_dry_run_refuses_a_value_the_server_would_start_without_and_a_plugin_it_cannot_load() {
    let sandbox = Sandbox::new();
    let cases = [
        (
            "skip_name_resolve = \"maybe\"",
            "would start without this setting; use ON or OFF",
        ),
        (
            "innodb_file_per_table = \"maybe\"",
            "would start without this setting",
        ),
        (
            "plugin_load_add = \"server_audit\"\nserver_audit_logging = \"maybe\"",
            "`server_audit_logging = \"maybe\"`",
        ),
        (
            "plugin_load_add = \"no_such_plugin\"",
            "cannot load a plugin and would start without it",
        ),
    ];
    for (options, expected) in cases {
        let profile = sandbox.write(
            "variant.toml",
            &format!("name = \"variant\"\n[server.options]\n{options}\n"),
        );
        let (code, stderr) = dry_run(&sandbox, profile.to_str().unwrap(), &[]);
        assert_eq!(code, Some(2), "{options}: {stderr}");
        assert!(stderr.contains(expected), "{options}: {stderr}");
        assert!(stderr.contains("variant.toml:"), "{options}: {stderr}");
    }
}

#[test]
fn the_dry_run_weighs_the_data_against_the_disk_and_the_buffer_pool() {
    let sandbox = Sandbox::new();
    let stock = "profiles/mariadb.toml";
    let huge = ["--tables", "64", "--table-size", "2000000000"];
    let (code, stderr) = dry_run(&sandbox, stock, &huge);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("of disk in") && stderr.contains("lower --table-size"),
        "{stderr}"
    );
    let (code, stderr) = dry_run(&sandbox, stock, &["--table-size", "3000000"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("is larger than innodb_buffer_pool_size (256 MiB)"),
        "{stderr}"
    );
}

#[test]
fn a_managed_server_that_does_not_start_shows_what_it_printed_on_stderr() {
    let _lock = server_lock();
    use abtest::server::launch::ServerLaunch;
    use abtest::server::sandbox::ManagedServer;
    let binary = abtest::server::binary::find_server_binary().expect("mariadbd installed");
    // Past the dry run's checks (as a value mariadbd refuses only at start would be).
    let options = [("thread_handling".to_string(), "pool-of-treads".to_string())].into();
    let launch = ServerLaunch::new(
        abtest::profile::Side::Variant,
        &binary,
        &options,
        4,
        abtest::server::tls::SERVER_NAMES,
    );
    let mut server = ManagedServer::install(&launch).unwrap();
    server.spawn(&launch).unwrap();
    let error = format!("{:#}", server.wait_ready().unwrap_err());
    assert!(
        error.contains("exited during start-up")
            && error.contains("what it printed on stderr:")
            && error.contains("Error while setting value 'pool-of-treads' to 'thread_handling'"),
        "{error}"
    );
    server.stop();
}

#[test]
fn check_logs_in_to_external_servers_and_reads_their_grants_and_limits() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let server = start_server(&Default::default(), 8);
    server.add_user("bench", "localhost", Some("right"));
    {
        use mysql::prelude::Queryable;
        let mut admin = server.admin().unwrap();
        admin
            .query_drop("CREATE USER 'reader'@'localhost' IDENTIFIED BY 'right'")
            .unwrap();
        admin
            .query_drop("GRANT SELECT ON sbtest.* TO 'reader'@'localhost'")
            .unwrap();
    }
    let profile = |name: &str, user: &str, password: &str| {
        sandbox
            .write(
                name,
                &format!(
                    "[connection]\nsocket = \"{}\"\nuser = \"{user}\"\npassword = \"{password}\"\ndatabase = \"sbtest\"\n",
                    server.socket().display()
                ),
            )
            .display()
            .to_string()
    };
    let good = profile("good.toml", "bench", "right");
    let wrong = profile("wrong.toml", "bench", "wrong");
    let reader = profile("reader.toml", "reader", "right");
    let cases: [(&str, &str, i32, &[&str]); 4] = [
        (
            &good,
            "2",
            0,
            &["logged in as bench@", "free disk in", "check passed"],
        ),
        (
            &wrong,
            "2",
            1,
            &[
                "variant (",
                "cannot connect to bench@",
                "check `user` and the password",
            ],
        ),
        (
            &reader,
            "2",
            2,
            &["lacks INSERT, UPDATE, DELETE, CREATE, DROP, INDEX on `sbtest`"],
        ),
        (
            &good,
            "5000",
            2,
            &["lower --threads or raise max_connections"],
        ),
    ];
    for (variant, threads, code, expected) in cases {
        let output = sandbox.run(&[
            "check",
            "--baseline",
            &good,
            "--variant",
            variant,
            "--threads",
            threads,
        ]);
        let (stdout, stderr) = text(&output);
        assert_eq!(output.status.code(), Some(code), "{variant}: {stderr}");
        for expected in expected {
            assert!(
                stdout.contains(expected) || stderr.contains(expected),
                "{expected}: {stdout}{stderr}"
            );
        }
    }
    // With --dry-run, check connects to nothing: the wrong password is not tried.
    let output = sandbox.run(&[
        "check",
        "--baseline",
        &good,
        "--variant",
        &wrong,
        "--dry-run",
    ]);
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stdout.contains("not connected (--dry-run)"), "{stdout}");
    // The plain dry run says which command would try it.
    let output = sandbox.run(&["--baseline", &good, "--variant", &wrong, "--dry-run"]);
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        format!("{stdout}{stderr}").contains("abtest check"),
        "{stdout}{stderr}"
    );
}
