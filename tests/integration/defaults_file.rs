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
             log_bin = {}/mariadb-bin\ninnodb_buffer_pool_size = 64M\nmax_connect_errors = 4321\n\
             skip-name-resolve\n[mariadb-10.11]\nmax_allowed_packet = 8M\n[client]\nport = 3307\n",
            outside.display()
        ),
    );
    let profile = sandbox.write(
        "from-cnf.toml",
        "name = \"from my.cnf\"\n[server]\ndefaults_file = \"my.cnf\"\n[server.options]\nmax_connect_errors = 999\n",
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
        "the binary log went outside the private directory"
    );
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
    assert_eq!(treatment("log_bin").as_deref(), Some("redirected"));
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
    let output = sandbox.run(&[
        "--baseline",
        profile.to_str().unwrap(),
        "--variant",
        "profiles/mariadb.toml",
        "--dry-run",
    ]);
    let (_, stderr) = crate::support::text(&output);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("p.toml:2") && stderr.contains("nowhere.cnf"),
        "{stderr}"
    );
}
