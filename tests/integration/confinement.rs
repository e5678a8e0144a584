//! A managed server stays closed to everyone but abtest for the whole run, whatever its
//! hooks do: an account, a port, a file written outside its private directory stops the
//! run (exit 2) naming it; the server runs as an unprivileged OS user; and what a
//! defaults file holds never reaches its command line.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::support::{LONG_RUN, QUICK, SHORT_POINT_SELECTS, Sandbox, server_lock, server_pid};

/// A short run of the stock baseline against `variant`; returns the exit code and
/// everything abtest printed.
fn short_run_against(sandbox: &Sandbox, variant: &Path) -> (Option<i32>, String) {
    let mut args = vec![
        "--baseline",
        "profiles/mariadb.toml",
        "--variant",
        variant.to_str().unwrap(),
    ];
    args.extend(SHORT_POINT_SELECTS);
    args.extend(QUICK);
    let output = sandbox.run(&args);
    let (stdout, stderr) = crate::support::text(&output);
    (output.status.code(), stdout + &stderr)
}

/// A variant profile whose `point` hooks are `statements`, with `options` lines under
/// `[server.options]`.
fn hooked(sandbox: &Sandbox, point: &str, statements: &[&str], options: &str) -> PathBuf {
    let list: Vec<String> = statements
        .iter()
        .map(|s| format!("\"{}\"", s.replace('"', "\\\"")))
        .collect();
    sandbox.write(
        "hooked.toml",
        &format!(
            "[server]\n[server.options]\n{options}\n[hooks]\n{point} = [{}]\n",
            list.join(", ")
        ),
    )
}

/// A directory anyone may write to (as /tmp is), where an unprivileged server could
/// put a file.
fn world_writable(sandbox: &Sandbox) -> PathBuf {
    let dir = sandbox.path("anyone");
    std::fs::create_dir(&dir).unwrap();
    std::fs::set_permissions(&dir, std::os::unix::fs::PermissionsExt::from_mode(0o1777)).unwrap();
    dir
}

fn files_below(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .flat_map(|e| {
            let path = e.path();
            if path.is_dir() {
                files_below(&path)
            } else {
                vec![path]
            }
        })
        .collect()
}

#[test]
fn an_account_a_setup_hook_opens_stops_the_run_naming_it() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let profile = hooked(&sandbox, "setup", &["CREATE USER 'evil'@'%'"], "");
    let (code, output) = short_run_against(&sandbox, &profile);
    assert_eq!(code, Some(2), "{output}");
    assert!(
        output.contains("after the variant setup hooks")
            && output.contains("an account abtest did not create, 'evil'@'%'")
            && output.contains("`evil` logs in over TCP"),
        "{output}"
    );
}

#[test]
fn an_account_a_before_round_hook_opens_stops_the_run_naming_it() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let profile = hooked(
        &sandbox,
        "before_round",
        &["CREATE USER IF NOT EXISTS 'evil'@'%'"],
        "",
    );
    let (code, output) = short_run_against(&sandbox, &profile);
    assert_eq!(code, Some(2), "{output}");
    assert!(
        output.contains("after the variant before_round hooks") && output.contains("'evil'@'%'"),
        "{output}"
    );
}

#[test]
fn a_plugin_that_opens_its_own_port_stops_the_run_naming_the_port() {
    assert!(Path::new("/usr/lib/mysql/plugin/handlersocket.so").exists());
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let port = std::net::TcpListener::bind(("127.0.0.1", 0))
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let profile = hooked(
        &sandbox,
        "setup",
        &["INSTALL SONAME 'handlersocket'"],
        &format!(
            "plugin_maturity = \"beta\"\nloose_handlersocket_port = \"{port}\"\n\
             loose_handlersocket_port_wr = \"{}\"\n",
            port + 1
        ),
    );
    let (code, output) = short_run_against(&sandbox, &profile);
    assert_eq!(code, Some(2), "{output}");
    assert!(
        output.contains(&format!("it listens on tcp port {port} ")),
        "{output}"
    );
}

#[test]
fn a_general_log_an_executable_comment_sends_outside_stops_the_run_naming_the_file() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let outside = world_writable(&sandbox).join("general.log");
    let profile = hooked(
        &sandbox,
        "setup",
        &[
            // Behind EXECUTE IMMEDIATE, which no reading of the hook before the run sees
            // through: only the check of what the server has can find it.
            &format!(
                "/*! EXECUTE IMMEDIATE CONCAT('SET GLOBAL general_log_file = ', QUOTE('{}')) */",
                outside.display()
            ),
            "SET GLOBAL general_log = 1",
        ],
        "",
    );
    let (code, output) = short_run_against(&sandbox, &profile);
    assert_eq!(code, Some(2), "{output}");
    assert!(
        output.contains(&format!("general_log_file = {}", outside.display()))
            && output.contains(&format!("it has {} open", outside.display())),
        "{output}"
    );
}

#[test]
fn a_table_placed_outside_with_data_directory_writes_nothing_there() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let outside = world_writable(&sandbox);
    let profile = hooked(
        &sandbox,
        "setup",
        &[
            &format!(
                "CREATE TABLE sbtest.outside_innodb (id int) DATA DIRECTORY='{}'",
                outside.display()
            ),
            &format!(
                "CREATE TABLE sbtest.outside_myisam (id int) ENGINE=MyISAM DATA DIRECTORY='{}' \
                 INDEX DIRECTORY='{}'",
                outside.display(),
                outside.display()
            ),
        ],
        "",
    );
    let (code, output) = short_run_against(&sandbox, &profile);
    let written = files_below(&outside);
    assert!(
        written.is_empty() || (code == Some(2) && output.contains("outside its private")),
        "exit {code:?}, files {written:?}:\n{output}"
    );
}

/// The uid a process runs as (the real one, first on the `Uid:` line).
fn uid_of(pid: i32) -> u32 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn the_server_runs_unprivileged_and_a_defaults_files_secrets_never_reach_its_command_line() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    sandbox.write(
        "my.cnf",
        "[mysqld]\nwsrep_sst_auth = sst:SST-SECRET-VALUE\n\
         loose-file-key-management-filekey = FILEKEY-SECRET\nmax_allowed_packet = 8M\n\
         [client-server]\npassword = CLIENT-SERVER-SECRET\n",
    );
    let profile = sandbox.write("cnf.toml", "[server]\ndefaults_file = \"my.cnf\"\n");
    let mut running = sandbox.spawn(
        &[
            &["--baseline", "profiles/mariadb.toml", "--variant"][..],
            &[profile.to_str().unwrap()],
            LONG_RUN,
        ]
        .concat(),
    );
    running.wait_rounds(1, Duration::from_secs(120));
    let pid = server_pid(&sandbox, "variant");
    let cmdline = String::from_utf8_lossy(&std::fs::read(format!("/proc/{pid}/cmdline")).unwrap())
        .replace('\0', " ");
    let uid = uid_of(pid);
    let private = std::fs::read_dir(sandbox.path("tmp"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().contains("abtest-variant-"))
        .unwrap();
    let options = private.join("defaults.cnf");
    let (options_meta, private_meta) = (
        std::fs::metadata(&options).unwrap(),
        std::fs::metadata(&private).unwrap(),
    );
    let written = std::fs::read_to_string(&options).unwrap();
    running.signal(libc::SIGINT);
    running.expect_exit(130, Duration::from_secs(60));

    for secret in ["SST-SECRET-VALUE", "FILEKEY-SECRET"] {
        assert!(
            !cmdline.contains(secret),
            "{secret} on the command line: {cmdline}"
        );
        assert!(
            written.contains(secret),
            "{secret} in the options file: {written}"
        );
    }
    assert!(
        !cmdline.contains("CLIENT-SERVER-SECRET") && !written.contains("CLIENT-SERVER-SECRET"),
        "a client's password reached the server: {cmdline}\n{written}"
    );
    assert!(
        cmdline.contains(&format!("--defaults-file={}", options.display())),
        "{cmdline}"
    );
    assert_eq!(options_meta.mode() & 0o777, 0o600, "{options:?}");
    assert_eq!(private_meta.mode() & 0o777, 0o700, "{private:?}");
    assert_eq!(
        options_meta.uid(),
        uid,
        "the options file belongs to the server's user"
    );
    assert_eq!(
        private_meta.uid(),
        uid,
        "the private directory belongs to the server's user"
    );
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        assert_ne!(uid, 0, "the managed server runs as root");
    }
}
