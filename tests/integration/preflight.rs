//! README promise: "`abtest check` and the dry run catch what would stop a run later":
//! an option value the server refuses, a data set too big for the disk, a wrong
//! password or missing grants on an external server; and a managed server that does
//! not start shows what mariadbd printed, wherever it printed it.

use crate::support::{Sandbox, server_lock, start_server, text};

fn refused(sandbox: &Sandbox, args: &[&str]) -> String {
    let output = sandbox.run(args);
    let (_, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    stderr
}

#[test]
fn the_dry_run_refuses_an_option_value_the_server_refuses_with_the_values_it_accepts() {
    let sandbox = Sandbox::new();
    let profile = sandbox.write(
        "pool.toml",
        "name = \"pool\"\n[server.options]\nthread_handling = \"pool-of-treads\"\n",
    );
    let stderr = refused(
        &sandbox,
        &[
            "--baseline",
            "profiles/mariadb.toml",
            "--variant",
            profile.to_str().unwrap(),
            "--dry-run",
        ],
    );
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
fn the_dry_run_weighs_the_data_against_the_disk_and_the_buffer_pool() {
    let sandbox = Sandbox::new();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "--baseline",
            "profiles/mariadb.toml",
            "--variant",
            "profiles/mariadb.toml",
            "--dry-run",
        ];
        args.extend_from_slice(extra);
        args.iter().map(|s| s.to_string()).collect::<Vec<_>>()
    };
    let huge = run(&["--tables", "64", "--table-size", "2000000000"]);
    let huge: Vec<&str> = huge.iter().map(String::as_str).collect();
    let stderr = refused(&sandbox, &huge);
    assert!(
        stderr.contains("of disk in") && stderr.contains("lower --table-size"),
        "{stderr}"
    );
    let big = run(&["--table-size", "3000000"]);
    let big: Vec<&str> = big.iter().map(String::as_str).collect();
    let output = sandbox.run(&big);
    let (_, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
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
    let check = |variant: &str, threads: &str| {
        sandbox.run(&[
            "check",
            "--baseline",
            &good,
            "--variant",
            variant,
            "--threads",
            threads,
        ])
    };

    let output = check(&good, "2");
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stdout.contains("logged in as bench@") && stdout.contains("free disk in"),
        "{stdout}"
    );

    let output = check(&wrong, "2");
    let (_, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("variant (") && stderr.contains("cannot connect to bench@"),
        "{stderr}"
    );
    assert!(stderr.contains("check `user` and the password"), "{stderr}");

    let output = check(&reader, "2");
    let (_, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("lacks INSERT, UPDATE, DELETE, CREATE, DROP, INDEX on `sbtest`"),
        "{stderr}"
    );

    let output = check(&good, "5000");
    let (_, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("lower --threads or raise max_connections"),
        "{stderr}"
    );
}
