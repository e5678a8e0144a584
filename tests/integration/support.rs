//! Helpers shared by the integration tests: running the real binary in an isolated
//! temporary directory, and proving afterwards that nothing was left behind.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, MutexGuard};

/// Tests that start servers take this lock, so at most one experiment (two servers)
/// runs at a time on a 2-core machine.
static SERVERS: Mutex<()> = Mutex::new(());

/// Serialises server-starting tests.
pub fn server_lock() -> MutexGuard<'static, ()> {
    SERVERS.lock().unwrap_or_else(|e| e.into_inner())
}

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A scratch directory that also serves as TMPDIR for the abtest under test, so its
/// server directories can be found (and must be gone) afterwards.
pub struct Sandbox {
    pub dir: tempfile::TempDir,
}

impl Sandbox {
    /// Others may pass through the directory (mode 0711), as through /tmp: a managed
    /// server started by root runs as `mysql` and must reach its own directory inside.
    pub fn new() -> Sandbox {
        Sandbox {
            dir: tempfile::Builder::new()
                .prefix("abtest-test-")
                .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o711))
                .tempdir()
                .unwrap(),
        }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Writes a file into the sandbox and returns its path.
    pub fn write(&self, name: &str, contents: &str) -> PathBuf {
        let path = self.path(name);
        std::fs::write(&path, contents).unwrap();
        path
    }

    /// The abtest binary with TMPDIR pointing into the sandbox.
    pub fn abtest(&self) -> Command {
        let tmp = self.path("tmp");
        std::fs::create_dir_all(&tmp).unwrap();
        let mut command = Command::new(env!("CARGO_BIN_EXE_abtest"));
        command.env("TMPDIR", &tmp).current_dir(repo());
        command
    }

    /// Runs abtest with `args` and returns its output.
    pub fn run(&self, args: &[&str]) -> Output {
        self.abtest().args(args).output().expect("abtest runs")
    }

    /// The dry run of `profile` as the baseline against the stock managed profile.
    pub fn dry_run_against_stock(&self, profile: &Path) -> Output {
        self.run(&[
            "--baseline",
            profile.to_str().expect("a UTF-8 path"),
            "--variant",
            "profiles/mariadb.toml",
            "--dry-run",
        ])
    }

    /// The plan `--dry-run` prints for two profiles and `extra` flags; the run must pass.
    pub fn dry_run_of(&self, baseline: &str, variant: &str, extra: &[&str]) -> String {
        let mut args = vec!["--baseline", baseline, "--variant", variant, "--dry-run"];
        args.extend(extra);
        let output = self.run(&args);
        let (stdout, stderr) = text(&output);
        assert_eq!(output.status.code(), Some(0), "{args:?}: {stdout}{stderr}");
        stdout
    }

    /// Fails when a server directory or a server process of this sandbox remains.
    pub fn assert_nothing_left(&self) {
        let tmp = self.path("tmp");
        let left: Vec<_> = std::fs::read_dir(&tmp)
            .map(|entries| entries.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        assert!(
            left.is_empty(),
            "temporary directories left behind: {left:?}"
        );
        let processes = processes_mentioning(&tmp);
        assert!(
            processes.is_empty(),
            "processes left running: {processes:?}"
        );
    }
}

/// Command lines of live processes that mention `path`.
pub fn processes_mentioning(path: &Path) -> Vec<String> {
    let needle = path.to_string_lossy().into_owned();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        if let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) {
            let text = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            if text.contains(&needle) {
                found.push(text);
            }
        }
    }
    found
}

/// stdout and stderr as text.
pub fn text(output: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Short-round arguments for a quick real run.
pub const QUICK: &[&str] = &[
    "--table-size",
    "1000",
    "--round-time",
    "1s",
    "--warmup",
    "500ms",
];

/// Two rounds a side of point selects at 2 threads; with [`QUICK`], a short real run.
pub const SHORT_POINT_SELECTS: &[&str] = &[
    "--workload",
    "oltp_point_select",
    "--threads",
    "2",
    "--rounds",
    "2",
];

/// The connections each round of a results file opened, in run order.
pub fn connections_opened(results: &serde_json::Value) -> Vec<u64> {
    results["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["connections_opened"].as_u64().unwrap())
        .collect()
}

/// The checked-in JSON Schema of the results file.
pub fn results_schema() -> jsonschema::Validator {
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("schema/results.schema.json")).unwrap(),
    )
    .unwrap();
    jsonschema::validator_for(&schema).expect("the schema compiles")
}

/// Fails with every schema violation of a results file.
pub fn assert_valid_results(results: &serde_json::Value) {
    let schema = results_schema();
    let errors: Vec<String> = schema
        .iter_errors(results)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "results file violates schema/results.schema.json:\n{}",
        errors.join("\n")
    );
}

impl Drop for Sandbox {
    /// Every test that runs abtest in a sandbox proves that nothing was left: no server
    /// directory, no server process. A test that fails already is not failed twice.
    fn drop(&mut self) {
        if !std::thread::panicking() {
            self.assert_nothing_left();
        }
    }
}

/// A managed server a test started for itself next to abtest. Dropping it stops the
/// server and proves that its process and its directory are gone.
pub struct TestServer(abtest::server::sandbox::ManagedServer);

impl std::ops::Deref for TestServer {
    type Target = abtest::server::sandbox::ManagedServer;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl TestServer {
    /// Creates `'user'@'host'` with every right on `sbtest`, with `password` if given.
    pub fn add_user(&self, user: &str, host: &str, password: Option<&str>) {
        use mysql::prelude::Queryable;
        let identified = password
            .map(|p| format!(" IDENTIFIED BY '{p}'"))
            .unwrap_or_default();
        let mut admin = self.admin().unwrap();
        admin
            .query_drop(format!("CREATE USER '{user}'@'{host}'{identified}"))
            .unwrap();
        admin
            .query_drop(format!("GRANT ALL ON sbtest.* TO '{user}'@'{host}'"))
            .unwrap();
    }

    /// Writes a profile `name` that reaches this server as an external one: its socket,
    /// its administrator, database `sbtest`, then `extra` lines.
    pub fn socket_profile(&self, sandbox: &Sandbox, name: &str, extra: &str) -> String {
        sandbox
            .write(
                name,
                &format!(
                    "[connection]\nsocket = \"{}\"\nuser = \"{}\"\ndatabase = \"sbtest\"\n{extra}",
                    self.socket().display(),
                    self.admin_spec().user
                ),
            )
            .display()
            .to_string()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        let pid = self.0.pid();
        let dir = self.0.socket().parent().map(Path::to_path_buf);
        self.0.stop();
        if std::thread::panicking() {
            return;
        }
        if let Some(dir) = dir {
            assert!(!dir.exists(), "server directory {dir:?} left behind");
        }
        if let Some(pid) = pid {
            assert!(
                !abtest::server::process::process_is_alive(pid),
                "server process {pid} left running"
            );
        }
    }
}

/// Starts a managed server directly through the library, for tests that need a server of
/// their own next to abtest (it stops when dropped).
pub fn start_server(
    options: &std::collections::BTreeMap<String, String>,
    max_threads: u32,
) -> TestServer {
    start_server_named(options, max_threads, abtest::server::tls::SERVER_NAMES)
}

/// As [`start_server`], with chosen names in the server's TLS certificate.
pub fn start_server_named(
    options: &std::collections::BTreeMap<String, String>,
    max_threads: u32,
    tls_names: &[&str],
) -> TestServer {
    use abtest::server::launch::ServerLaunch;
    use abtest::server::sandbox::ManagedServer;
    let binary = abtest::server::binary::find_server_binary().expect("mariadbd installed");
    let launch = ServerLaunch::new(
        abtest::profile::Side::Baseline,
        &binary,
        options,
        max_threads,
        tls_names,
    );
    let mut server = ManagedServer::install(&launch).unwrap();
    server.spawn(&launch).unwrap();
    server.wait_ready().unwrap();
    TestServer(server)
}

/// An abtest process running in the background, its output going to files.
pub struct Running {
    pub child: std::process::Child,
    pub json: PathBuf,
    out: PathBuf,
    err: PathBuf,
}

/// A run long enough to act on while it goes: 6 rounds of 2 s per side.
pub const LONG_RUN: &[&str] = &[
    "--workload",
    "oltp_point_select",
    "--threads",
    "2",
    "--rounds",
    "6",
    "--round-time",
    "2s",
    "--warmup",
    "0s",
    "--table-size",
    "1000",
    // The fault tests stop, kill and watch each side's own server process.
    "--servers",
    "separate",
];

/// Both sides on the stock managed MariaDB profile: an A/A run.
pub const AA_PROFILES: &[&str] = &[
    "--baseline",
    "profiles/mariadb.toml",
    "--variant",
    "profiles/mariadb.toml",
];

impl Sandbox {
    /// Starts an A/A run (`AA_PROFILES`) with `args`, as [`Sandbox::spawn`].
    pub fn spawn_aa(&self, args: &[&str]) -> Running {
        self.spawn(&[AA_PROFILES, args].concat())
    }

    /// Starts an A/A run of [`LONG_RUN`] plus `extra`, with `env` added to abtest's
    /// environment, and waits for its first round.
    pub fn long_aa_run(&self, extra: &[&str], env: &[(&str, &str)]) -> Running {
        let mut running = self.spawn_with_env(&[AA_PROFILES, LONG_RUN, extra].concat(), env);
        running.wait_rounds(1, std::time::Duration::from_secs(60));
        running
    }

    /// Starts abtest with `args` plus `--json` into the sandbox, without waiting.
    pub fn spawn(&self, args: &[&str]) -> Running {
        self.spawn_with_env(args, &[])
    }

    /// As [`Sandbox::spawn`], with extra environment variables for abtest.
    pub fn spawn_with_env(&self, args: &[&str], env: &[(&str, &str)]) -> Running {
        let json = self.path("running.json");
        let (out, err) = (self.path("stdout.txt"), self.path("stderr.txt"));
        let child = self
            .abtest()
            .envs(env.iter().copied())
            .args(args)
            .arg("--json")
            .arg(&json)
            .stdout(std::fs::File::create(&out).unwrap())
            .stderr(std::fs::File::create(&err).unwrap())
            .spawn()
            .expect("abtest starts");
        Running {
            child,
            json,
            out,
            err,
        }
    }
}

impl Running {
    /// Waits until the results file holds `n` rounds; panics after `limit`.
    pub fn wait_rounds(&mut self, n: usize, limit: std::time::Duration) {
        let deadline = std::time::Instant::now() + limit;
        loop {
            if self.results()["rounds"]
                .as_array()
                .is_some_and(|r| r.len() >= n)
            {
                return;
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!(
                    "abtest exited ({status}) before {n} rounds: {}",
                    self.stderr()
                );
            }
            assert!(
                std::time::Instant::now() < deadline,
                "no {n} rounds after {limit:?}: {}",
                self.stderr()
            );
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    }

    /// Waits until abtest's output contains `needle`; panics after `limit`.
    pub fn wait_output(&mut self, needle: &str, limit: std::time::Duration) {
        let deadline = std::time::Instant::now() + limit;
        while !self.stderr().contains(needle) {
            assert!(
                std::time::Instant::now() < deadline,
                "no `{needle}` after {limit:?}: {}",
                self.stderr()
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    /// Sends a signal to abtest.
    pub fn signal(&self, signal: i32) {
        // SAFETY: kill(2) on our own child.
        unsafe { libc::kill(self.child.id() as i32, signal) };
    }

    /// Waits for the exit; kills abtest and panics after `limit` (a hang is a failure).
    pub fn wait_exit(&mut self, limit: std::time::Duration) -> Option<i32> {
        let deadline = std::time::Instant::now() + limit;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code();
            }
            if std::time::Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("abtest did not exit within {limit:?}: {}", self.stderr());
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }

    /// Waits for the exit (see `wait_exit`) and asserts its code, showing abtest's output.
    pub fn expect_exit(&mut self, code: i32, limit: std::time::Duration) {
        let exited = self.wait_exit(limit);
        assert_eq!(exited, Some(code), "{}", self.stderr());
    }

    /// The results file as it is now.
    pub fn results(&self) -> serde_json::Value {
        std::fs::read_to_string(&self.json)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or(serde_json::Value::Null)
    }

    /// Everything abtest wrote to stdout and stderr.
    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.out).unwrap_or_default()
            + &std::fs::read_to_string(&self.err).unwrap_or_default()
    }
}

/// The pid of a managed server of this sandbox, by the side in its directory name.
pub fn server_pid(sandbox: &Sandbox, side: &str) -> i32 {
    let needle = format!("{}/abtest-{side}-", sandbox.path("tmp").display());
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        if let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) {
            let text = String::from_utf8_lossy(&cmdline);
            if text.starts_with("/usr/sbin/mariadbd") && text.contains(&needle) {
                return pid;
            }
        }
    }
    panic!("no {side} server running");
}

/// What a finished run left: its exit code, its results file (or null) and its output.
pub struct Finished {
    pub code: Option<i32>,
    pub results: serde_json::Value,
    pub output: String,
}

impl Sandbox {
    /// Runs abtest with `args` plus `--json` into the sandbox and reads everything back.
    /// Each call writes a new file: the one of an earlier call is removed first (abtest
    /// keeps a saved run unless told to replace it).
    pub fn run_json(&self, args: &[&str]) -> Finished {
        let json = self.path("results.json");
        let _ = std::fs::remove_file(&json);
        let mut all: Vec<&str> = args.to_vec();
        all.extend(["--json", json.to_str().unwrap()]);
        let output = self.run(&all);
        let (stdout, stderr) = text(&output);
        let results = std::fs::read_to_string(&json)
            .map(|t| serde_json::from_str(&t).unwrap())
            .unwrap_or(serde_json::Value::Null);
        Finished {
            code: output.status.code(),
            results,
            output: stdout + &stderr,
        }
    }
}

/// A saved run from the repository (`relative` to its root), changed by `edit` and
/// written into the sandbox as `name` with its results path pointing at the copy, so
/// that reports of it never name the original; returns the copy's path.
pub fn edited_run(
    sandbox: &Sandbox,
    relative: &str,
    name: &str,
    edit: impl FnOnce(&mut serde_json::Value),
) -> String {
    let text = std::fs::read_to_string(repo().join(relative)).unwrap();
    let mut run: serde_json::Value = serde_json::from_str(&text).unwrap();
    edit(&mut run);
    let copy = sandbox.path(name);
    run["plan"]["outputs"] = serde_json::json!({ "json": copy.to_str().unwrap() });
    std::fs::write(&copy, run.to_string()).unwrap();
    copy.to_str().unwrap().to_string()
}
