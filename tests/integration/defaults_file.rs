//! `[server] defaults_file`: a managed server started from the user's my.cnf. Its
//! options reach the server, the profile's and abtest's own win, and nothing the file
//! names outside the server's private directory is written.

use crate::support::{Sandbox, server_lock};

#[test]
fn a_managed_server_starts_from_the_users_my_cnf_and_stays_private() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let outside = sandbox.path("production-logs");
    sandbox.write(
        "my.cnf",
        &format!(
            "[mysqld]\ndatadir = /var/lib/mysql\nport = 3306\nsocket = /run/mysqld/mysqld.sock\n\
             log_bin = {out}/mariadb-bin\ninnodb_buffer_pool_size = 64M\nmax_connect_errors = 4321\n\
             skip-name-resolve\ngeneral_log = 1\ngeneral-log-fil = {out}/general.log\n\
             innodb-data-home-d = {out}/innodb\nlog_tc = {out}/tc.log\n\
             plugin_load_add = server_audit\nserver_audit_logging = ON\n\
             loose-server-audit-file-path = {out}/audit.log\n\
             [mariadb-10.11]\nmax_allowed_packet = 8M\n[client]\nport = 3307\n",
            out = outside.display()
        ),
    );
    let profile = sandbox.write(
        "from-cnf.toml",
        &format!(
            "name = \"from my.cnf\"\n[server]\ndefaults_file = \"my.cnf\"\n[server.options]\n\
             max_connect_errors = 999\nslow_query_log = 1\nslow-query-log-f = \"{}/slow.log\"\n",
            outside.display()
        ),
    );
    let finished = sandbox.run_json(&[
        "--baseline",
        profile.to_str().unwrap(),
        "--variant",
        "profiles/mariadb.toml",
        "--workload",
        "oltp_point_select",
        "--threads",
        "1",
        "--rounds",
        "2",
        "--round-time",
        "1s",
        "--warmup",
        "0s",
        "--table-size",
        "1000",
        "--markdown",
        sandbox.path("report.md").to_str().unwrap(),
    ]);
    assert_eq!(finished.code, Some(0), "{}", finished.output);
    let variables = &finished.results["sides"]["baseline"]["facts"]["variables"];
    assert_eq!(
        variables["innodb_buffer_pool_size"], "67108864",
        "{variables}"
    );
    assert_eq!(variables["max_allowed_packet"], "8388608");
    assert_eq!(variables["max_connect_errors"], "999", "the profile wins");
    assert_eq!(variables["log_bin"], "ON");
    assert_ne!(variables["port"], "3306", "abtest's own port wins");
    assert!(
        !outside.exists(),
        "the server wrote outside its private directory: {:?}",
        std::fs::read_dir(&outside).map(|d| d.flatten().map(|e| e.path()).collect::<Vec<_>>())
    );
    for (variable, file) in [
        ("general_log_file", "general.log"),
        ("slow_query_log_file", "slow.log"),
        ("server_audit_file_path", "audit.log"),
    ] {
        let value = variables[variable].as_str().unwrap_or_default();
        assert!(
            value.contains("/abtest-baseline-") && value.ends_with(&format!("/data/{file}")),
            "{variable} = {value}"
        );
    }
    assert_eq!(variables["general_log"], "ON");
    let options = finished.results["plan"]["sides"][0]["target"]["defaults_file"]["options"]
        .as_array()
        .unwrap();
    let treatment = |name: &str| {
        options
            .iter()
            .find(|o| o["name"] == name)
            .map(|o| o["treatment"].as_str().unwrap().to_string())
    };
    assert_eq!(treatment("datadir").as_deref(), Some("replaced"));
    assert_eq!(treatment("port").as_deref(), Some("replaced"));
    for name in [
        "log_bin",
        "general-log-fil",
        "innodb-data-home-d",
        "log_tc",
        "loose-server-audit-file-path",
    ] {
        assert_eq!(treatment(name).as_deref(), Some("redirected"), "{name}");
    }
    assert_eq!(treatment("skip-name-resolve").as_deref(), Some("kept"));
    assert_eq!(
        treatment("max_connect_errors").as_deref(),
        Some("overridden_by_profile")
    );
    assert_eq!(treatment("max_allowed_packet").as_deref(), Some("kept"));
    let report = std::fs::read_to_string(sandbox.path("report.md")).unwrap();
    assert!(
        report.contains("defaults file")
            && report.contains("redirected into the private directory"),
        "{report}"
    );
}

#[test]
fn a_missing_defaults_file_is_refused_at_its_line() {
    let sandbox = Sandbox::new();
    let profile = sandbox.write("p.toml", "[server]\ndefaults_file = \"nowhere.cnf\"\n");
    let output = sandbox.dry_run_against_stock(&profile);
    let (_, stderr) = crate::support::text(&output);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("p.toml:2") && stderr.contains("nowhere.cnf"),
        "{stderr}"
    );
}

#[test]
fn the_dry_run_shows_the_command_line_with_every_write_inside_the_private_directory() {
    let sandbox = Sandbox::new();
    sandbox.write(
        "my.cnf",
        "[mysqld]\ngeneral-log-fil = /var/log/mysql/general.log\ninnodb-data-home-d = /srv/innodb\n\
         datadir = /var/lib/mysql\nmax_allowed_packet = 8M\n",
    );
    let profile = sandbox.write(
        "p.toml",
        "[server]\ndefaults_file = \"my.cnf\"\n[server.options]\nlog_bin = \"/var/log/mysql/bin\"\n",
    );
    let output = sandbox.dry_run_against_stock(&profile);
    let (stdout, stderr) = crate::support::text(&output);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let command = stdout
        .lines()
        .find(|line| {
            line.trim_start().starts_with('/')
                && line.contains("--defaults-file=<private-dir>/defaults.cnf")
        })
        .unwrap_or_else(|| panic!("no command line in:\n{stdout}"));
    // The file's options reach the server through its private options file, shown
    // below the command line, never on it.
    for line in [
        "general-log-fil=\"<private-dir>/data/general.log\"",
        "innodb-data-home-d=\"<private-dir>/data\"",
        "max_allowed_packet=\"8M\"",
    ] {
        assert!(
            stdout.lines().any(|l| l.trim() == line),
            "{line} in:\n{stdout}"
        );
    }
    assert!(!command.contains("general-log-fil"), "{command}");
    for word in [
        "--log_bin=<private-dir>/data/bin",
        "--datadir=<private-dir>/data",
        "--secure-file-priv=<private-dir>/files",
        "--max-prepared-stmt-count=1048576",
    ] {
        assert!(
            command.split_whitespace().any(|w| w == word),
            "{word} in {command}"
        );
    }
    assert!(!command.contains("/var/"), "{command}");
    for line in [
        "general-log-fil=/var/log/mysql/general.log: redirected into the private directory",
        "datadir=/var/lib/mysql: replaced by abtest's own",
        "max_allowed_packet=8M: kept",
    ] {
        assert!(stdout.contains(line), "{line} in:\n{stdout}");
    }
}
