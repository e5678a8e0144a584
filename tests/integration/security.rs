//! Nobody but abtest gets into a managed server: while a run is going, its ports refuse
//! every login without the workload's password, its directory and TLS key are private,
//! FILE reaches only its own directory, and no secret is handed to the server process.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use abtest::server::process::process_is_alive;

use crate::support::{Sandbox, server_lock, server_pid};

/// The value of `--name=` on a process's command line.
fn argument(pid: i32, name: &str) -> String {
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap();
    let prefix = format!("--{name}=");
    String::from_utf8_lossy(&cmdline)
        .split('\0')
        .filter_map(|arg| arg.strip_prefix(&prefix))
        .next_back()
        .unwrap_or_else(|| panic!("no --{name} on the server's command line"))
        .to_string()
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// A login over TCP, as a local user who read the port off `ps` would try it.
fn tcp_login(port: u16, user: &str, password: Option<&str>) -> Result<(), mysql::Error> {
    let opts = mysql::OptsBuilder::new()
        .ip_or_hostname(Some("127.0.0.1"))
        .tcp_port(port)
        .prefer_socket(false)
        .user(Some(user))
        .pass(password)
        .tcp_connect_timeout(Some(Duration::from_secs(5)));
    mysql::Conn::new(opts).map(drop)
}

#[test]
fn a_running_managed_server_lets_nobody_else_in() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let mut running =
        sandbox.long_aa_run(&[], &[("ABTEST_SECRET_PROBE", "must-not-reach-the-server")]);
    for side in ["baseline", "variant"] {
        let pid = server_pid(&sandbox, side);
        let port: u16 = argument(pid, "port").parse().unwrap();
        for user in ["root", "sbtest", "intruder", ""] {
            assert!(
                tcp_login(port, user, None).is_err(),
                "{side}: `{user}` logged in over TCP without a password"
            );
        }
        assert!(tcp_login(port, "root", Some("root")).is_err());

        let datadir = PathBuf::from(argument(pid, "datadir"));
        let dir = datadir.parent().unwrap();
        assert_eq!(mode(dir), 0o700, "{side}: server directory {dir:?}");
        assert_eq!(
            mode(&PathBuf::from(argument(pid, "ssl-key"))),
            0o600,
            "{side}: TLS key"
        );
        let files = argument(pid, "secure-file-priv");
        assert!(
            Path::new(&files).starts_with(dir),
            "{side}: secure_file_priv {files} outside {dir:?}"
        );
        let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap();
        let environ = String::from_utf8_lossy(&environ);
        assert!(
            !environ.contains("ABTEST_SECRET_PROBE"),
            "{side}: the server inherited abtest's environment: {environ}"
        );
    }
    running.signal(libc::SIGINT);
    running.expect_exit(130, Duration::from_secs(60));
}

#[test]
fn a_hook_password_never_reaches_the_results_file() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let profile = sandbox.write(
        "hooked.toml",
        "[server]\n[hooks]\n\
         setup = [\"CREATE USER 'monitor'@'localhost' IDENTIFIED BY 'Hook-Secret-42'\"]\n\
         teardown = [\"DROP USER 'monitor'@'localhost'\"]\n",
    );
    let profile = profile.to_str().unwrap();
    let finished = sandbox.run_json(&[
        "--baseline",
        "profiles/mariadb.toml",
        "--variant",
        profile,
        "--table-size",
        "1000",
        "--round-time",
        "1s",
        "--warmup",
        "0s",
        "--rounds",
        "2",
        "--threads",
        "1",
    ]);
    assert_eq!(finished.code, Some(0), "{}", finished.output);
    let saved = finished.results.to_string();
    assert!(
        !saved.contains("Hook-Secret-42"),
        "the hook password is in the results file"
    );
    assert!(saved.contains("IDENTIFIED BY '***'"));
    assert!(!finished.output.contains("Hook-Secret-42"));
}

#[test]
fn a_killed_abtest_takes_its_servers_with_it() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let mut running = sandbox.long_aa_run(&[], &[]);
    let servers = [
        server_pid(&sandbox, "baseline"),
        server_pid(&sandbox, "variant"),
    ];
    running.signal(libc::SIGKILL);
    running.wait_exit(Duration::from_secs(10));
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while servers.iter().any(|pid| process_is_alive(*pid as u32)) {
        assert!(
            std::time::Instant::now() < deadline,
            "managed servers {servers:?} outlived a SIGKILLed abtest"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // A killed abtest cannot remove its directories; the kernel only ends its servers.
    std::fs::remove_dir_all(sandbox.path("tmp")).unwrap();
}

/// A short A/A on two managed servers of `profile`; returns the exit code and stderr.
fn short_run(sandbox: &Sandbox, profile: &Path) -> (Option<i32>, String) {
    let profile = profile.to_str().unwrap();
    let mut args = vec!["--baseline", profile, "--variant", profile];
    args.extend(crate::support::SHORT_POINT_SELECTS);
    args.extend(crate::support::QUICK);
    let output = sandbox.run(&args);
    (output.status.code(), crate::support::text(&output).1)
}

#[test]
fn an_account_a_profile_opens_is_found_and_the_server_stopped() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let init = sandbox.write(
        "evil.sql",
        "CREATE USER 'evil'@'%';\nGRANT ALL ON *.* TO 'evil'@'%';\n",
    );
    let profile = sandbox.write(
        "evil.toml",
        &format!(
            "[server]\n[server.options]\ninit_file = \"{}\"\n",
            init.display()
        ),
    );
    let (code, stderr) = short_run(&sandbox, &profile);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("an account abtest did not create, 'evil'@'%'"),
        "{stderr}"
    );
    sandbox.assert_nothing_left();
}

#[test]
fn the_general_log_stays_private_and_never_holds_the_generated_password() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let outside = sandbox.path("general.log");
    let profile = sandbox.write(
        "logged.toml",
        &format!(
            "[server]\n[server.options]\ngeneral_log = \"ON\"\nlog_output = \"FILE\"\ngeneral_log_file = \"{}\"\n",
            outside.display()
        ),
    );
    let mut running = sandbox.spawn(
        &[
            &["--baseline", "profiles/mariadb.toml", "--variant"][..],
            &[profile.to_str().unwrap()],
            crate::support::LONG_RUN,
        ]
        .concat(),
    );
    running.wait_rounds(2, std::time::Duration::from_secs(60));
    // The log is where abtest put it, inside the variant server's private directory.
    let private = std::fs::read_dir(sandbox.path("tmp"))
        .unwrap()
        .flatten()
        .map(|entry| entry.path())
        .find(|path| path.to_string_lossy().contains("abtest-variant-"))
        .expect("the variant's private directory");
    let logged = std::fs::read_to_string(private.join("data/general.log")).unwrap();
    running.signal(libc::SIGINT);
    running.expect_exit(130, std::time::Duration::from_secs(60));
    assert!(!outside.exists(), "the general log was written outside");
    assert!(logged.contains("SELECT"), "the general log was written");
    assert!(
        !logged.contains("CREATE USER") && !logged.contains("IDENTIFIED BY"),
        "the account's creation is in the general log:\n{logged}"
    );
    sandbox.assert_nothing_left();
}
