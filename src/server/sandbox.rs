//! Managed throwaway servers: a temporary datadir, a free loopback port, the profile's
//! options, generated TLS material and a clean stop.
//!
//! Nobody but abtest may enter a managed server. Its directory (datadir, socket, TLS key,
//! options file) is private to the user the server runs as (the invoking user, or
//! `mysql` when abtest runs as root: see `os_user`); its only administrator is the
//! invoking OS user over the Unix socket (`unix_socket` authentication, no password
//! exists to steal); over TCP only the workload's `sbtest` account exists, with a random
//! password kept in memory; FILE reaches only a directory inside the private one;
//! abtest's own options come after the profile's so none can be overridden; and before a
//! server is used, and again after every hook phase, abtest checks from what the server
//! has that it is still closed to others (see `confinement`).
//!
//! No mariadbd may outlive abtest. Three layers make sure of it: `Drop` stops the server
//! on every normal and panicking exit; the server runs in its own process group so a
//! terminal's Ctrl-C reaches abtest (which still needs the server for teardown hooks)
//! and not mariadbd; and `PR_SET_PDEATHSIG` kills it if abtest itself is killed.

use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use mysql::prelude::Queryable;

use crate::db::ConnectSpec;
use crate::db::{ClientSpec, Endpoint};
use crate::placement::CpuList;
use crate::profile::TlsMode;
use crate::secret::Secret;
use crate::server::command_line;
use crate::server::confinement::{self, Confined};
use crate::server::launch::ServerLaunch;
use crate::server::os_user::ServerUser;
use crate::server::process::{child_environment, process_is_alive, start_output, stderr_file};
use crate::server::tls::{self, TlsFiles};
use crate::side::Side;

/// Database and user created on every managed server.
pub(crate) const DATABASE: &str = "sbtest";
/// The application user created on every managed server.
pub(crate) const USER: &str = "sbtest";

const READY_TIMEOUT: Duration = Duration::from_secs(60);
const STOP_TIMEOUT: Duration = Duration::from_secs(30);

/// Servers alive right now, so a forced exit can kill them and remove their directories.
static LIVE: Mutex<Vec<(u32, PathBuf)>> = Mutex::new(Vec::new());

/// A running managed server; dropping it stops the server and removes its directory.
#[derive(Debug)]
pub struct ManagedServer {
    side: Side,
    child: Option<Child>,
    dir: Option<tempfile::TempDir>,
    port: u16,
    socket: PathBuf,
    tls: TlsFiles,
    password: Secret,
    /// The administrator: the invoking OS user, looked up once at install.
    admin_user: String,
    /// The OS user the server runs as, when not the invoking one (abtest runs as root).
    user: Option<ServerUser>,
}

impl ManagedServer {
    /// Installs a datadir and TLS material and picks a port; nothing runs yet. Safe to
    /// call from any thread, so both sides can install in parallel.
    pub fn install(launch: &ServerLaunch<'_>) -> anyhow::Result<ManagedServer> {
        let side = launch.side;
        let dir = tempfile::Builder::new()
            .prefix(&format!("abtest-{side}-"))
            .permissions(std::fs::Permissions::from_mode(0o700))
            .tempdir()
            .with_context(|| format!("{side}: creating a temporary directory"))?;
        let user = ServerUser::for_managed_server().map_err(|e| e.context(side.to_string()))?;
        if let (Some(user), Some(parent)) = (&user, dir.path().parent()) {
            user.check_reaches(parent)
                .map_err(|e| e.context(side.to_string()))?;
        }
        let admin_user = os_user_name();
        std::fs::create_dir_all(dir.path().join("tmp"))?;
        std::fs::create_dir_all(command_line::files_dir(dir.path()))?;
        let tls = tls::generate_for(dir.path(), launch.tls_names)?;
        if let Some(file) = launch.defaults_file {
            write_private(
                &command_line::options_file(dir.path()),
                &file.options_file(dir.path()),
            )
            .with_context(|| format!("{side}: writing the defaults file's options"))?;
        }
        if let Some(user) = &user {
            user.own_tree(dir.path())
                .with_context(|| format!("{side}: handing the private directory over"))?;
        }
        install_datadir(
            dir.path(),
            launch,
            &admin_user,
            &launch
                .defaults_file
                .map(|file| file.bootstrap_args(dir.path()))
                .unwrap_or_default(),
            user.as_ref(),
        )
        .with_context(|| format!("{side}: installing the datadir"))?;
        let port = match launch.options.get("port") {
            Some(port) => port.parse().context("port option")?,
            None => free_port()?,
        };
        Ok(ManagedServer {
            side,
            child: None,
            socket: dir.path().join("mysqld.sock"),
            dir: Some(dir),
            port,
            tls,
            password: Secret::random(),
            admin_user,
            user,
        })
    }

    /// Starts the installed server process without waiting for it.
    ///
    /// Call this from a thread that lives as long as the server (the main thread): the
    /// kernel's parent-death signal fires when the *thread* that spawned the server ends.
    pub fn spawn(&mut self, launch: &ServerLaunch<'_>) -> anyhow::Result<()> {
        let args = self.server_args(launch);
        let mut command = Command::new(launch.binary);
        command
            .env_clear()
            .envs(child_environment())
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr_file(self.dir())?);
        let place = launch.cpus.map(CpuList::pre_exec_placer);
        let user = self.user.clone();
        // SAFETY: only async-signal-safe calls between fork and exec (the CPU mask and
        // the user were looked up before the fork). The parent-death signal is set after
        // the switch of user, which clears it.
        unsafe {
            command.pre_exec(move || {
                libc::setpgid(0, 0);
                user.as_ref().map_or(Ok(()), ServerUser::switch_to)?;
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                place.as_ref().map_or(Ok(()), |place| place())
            });
        }
        let child = command
            .spawn()
            .with_context(|| format!("{}: starting {}", self.side, launch.binary.display()))?;
        LIVE.lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((child.id(), self.dir().to_path_buf()));
        self.child = Some(child);
        Ok(())
    }

    /// Waits until the spawned server accepts connections, then creates the `sbtest`
    /// database and user.
    pub fn wait_ready(&mut self) -> anyhow::Result<()> {
        self.wait_accepting()?;
        self.create_user()?;
        self.check_closed_to_others()
    }

    /// Proves the server is closed to everyone but abtest before it is used: a TCP
    /// login without the password is refused, for an unknown user and for root, and
    /// the addresses and directories are abtest's own. A profile option that got past
    /// the name check (an abbreviation mariadbd resolves, say) is caught here.
    fn check_closed_to_others(&self) -> anyhow::Result<()> {
        let side = self.side;
        self.check_confined("start-up")?;
        let mut admin = self.admin()?;
        let row: Option<(String, String, String)> =
            admin.query_first("SELECT @@bind_address, @@socket, @@secure_file_priv")?;
        let expected = (
            "127.0.0.1".to_string(),
            self.socket.display().to_string(),
            self.files_dir().display().to_string(),
        );
        match row {
            Some((bind, socket, files))
                if bind == expected.0
                    && socket == expected.1
                    && files.trim_end_matches('/') == expected.2 =>
            {
                Ok(())
            }
            other => bail!(
                "{side}: the managed server does not run with abtest's own settings \
                 (bind_address, socket, secure_file_priv = {other:?}, expected {expected:?}); \
                 it was stopped. Remove the option that overrides them from [server.options]"
            ),
        }
    }

    /// Refuses a server that is no longer closed to others (see `confinement`): an
    /// account abtest did not make (a password-less `'evil'@'%'` would let anyone in), a
    /// password-less login, a port or socket abtest did not open, a file open or a
    /// write-path variable outside the private directory. `after` says when, for the
    /// message; the error carries exit code 2.
    pub(crate) fn check_confined(&self, after: &str) -> anyhow::Result<()> {
        let Some(pid) = self.pid() else {
            return Ok(());
        };
        let accounts: Vec<(String, String)> = ["127.0.0.1", "::1", "localhost"]
            .iter()
            .map(|host| (USER.to_string(), host.to_string()))
            .chain(
                ["root", "mariadb.sys", self.admin_user.as_str()]
                    .iter()
                    .map(|user| (user.to_string(), "localhost".to_string())),
            )
            .collect();
        let server = Confined {
            side: self.side,
            pid,
            dir: self.dir(),
            port: self.port,
            socket: &self.socket,
            accounts: &accounts,
        };
        confinement::check(&server, &mut self.admin()?, after)
    }

    /// The only directory `LOAD DATA INFILE`, `SELECT … INTO OUTFILE` and `LOAD_FILE`
    /// may touch: inside the private directory.
    fn files_dir(&self) -> PathBuf {
        command_line::files_dir(self.dir())
    }

    fn dir(&self) -> &Path {
        self.dir
            .as_ref()
            .expect("directory lives as long as the server")
            .path()
    }

    /// The server's command line (see `command_line`).
    fn server_args(&self, launch: &ServerLaunch<'_>) -> Vec<String> {
        let layout = command_line::Layout {
            dir: self.dir(),
            socket: &self.socket,
            port: self.port.to_string(),
            tls: &self.tls,
        };
        command_line::server_args(&layout, launch)
    }

    fn wait_accepting(&mut self) -> anyhow::Result<()> {
        let started = Instant::now();
        loop {
            if let Some(status) = self
                .child
                .as_mut()
                .and_then(|c| c.try_wait().ok().flatten())
            {
                self.child = None;
                bail!(
                    "{}: the managed server exited during start-up ({status}); {}",
                    self.side,
                    start_output(self.dir(), &self.log_tail(20))
                );
            }
            if self.admin_spec().connect().is_ok() {
                return Ok(());
            }
            if started.elapsed() > READY_TIMEOUT {
                bail!(
                    "{}: the managed server was not ready after {}s; {}",
                    self.side,
                    READY_TIMEOUT.as_secs(),
                    start_output(self.dir(), &self.log_tail(20))
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Creates abtest's account. The password never reaches a log: the statement
    /// carries only its hash (what the grant tables store anyway), and the session keeps
    /// out of the general log, the slow log and the binary log, whatever a profile turned
    /// on.
    fn create_user(&self) -> anyhow::Result<()> {
        let mut admin = self.admin()?;
        admin.query_drop(
            "SET SESSION sql_log_off = 1, sql_log_bin = 0, long_query_time = 31536000",
        )?;
        let hash = native_password_hash(self.password.expose());
        admin.query_drop(format!("CREATE DATABASE IF NOT EXISTS {DATABASE}"))?;
        for host in ["127.0.0.1", "::1", "localhost"] {
            admin.query_drop(format!(
                "CREATE USER '{USER}'@'{host}' IDENTIFIED BY PASSWORD '{hash}'"
            ))?;
            admin.query_drop(format!("GRANT ALL ON {DATABASE}.* TO '{USER}'@'{host}'"))?;
        }
        Ok(())
    }

    /// Connection settings for the administrator over the Unix socket, used for hooks
    /// and facts: the invoking OS user, authenticated by the kernel (`unix_socket`).
    pub fn admin_spec(&self) -> ConnectSpec {
        let mut spec = ConnectSpec::new(
            Endpoint::Socket {
                path: self.socket.clone(),
            },
            &self.admin_user,
            None,
            None,
            &ClientSpec::default(),
        );
        spec.connect_timeout = Duration::from_secs(2);
        // A stopped (SIGSTOP) server accepts the socket but never answers.
        spec.io_timeout = Some(Duration::from_secs(10));
        spec
    }

    /// An administrator connection over the Unix socket.
    pub fn admin(&self) -> anyhow::Result<mysql::Conn> {
        self.admin_spec().connect().with_context(|| {
            format!(
                "{}: connecting to the managed server as its administrator",
                self.side
            )
        })
    }

    /// Connection settings for the workload: TCP on loopback as `sbtest`, with the
    /// profile's client settings.
    pub(crate) fn client_spec(&self, client: &ClientSpec) -> ConnectSpec {
        let mut client = client.clone();
        if client.tls_ca.is_none()
            && matches!(client.tls, TlsMode::VerifyCa | TlsMode::VerifyIdentity)
        {
            client.tls_ca = Some(self.tls.ca.clone());
        }
        ConnectSpec::new(
            Endpoint::Tcp {
                host: "127.0.0.1".into(),
                port: self.port,
            },
            USER,
            Some(self.password.clone()),
            Some(DATABASE),
            &client,
        )
    }

    /// Whether the server process is still running.
    pub(crate) fn is_alive(&self) -> bool {
        self.pid().is_some_and(process_is_alive)
    }

    /// Process id of the server.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// The Unix socket the server listens on.
    pub fn socket(&self) -> &Path {
        &self.socket
    }

    /// The TCP port the server listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The generated TLS files.
    pub fn tls_files(&self) -> &TlsFiles {
        &self.tls
    }

    /// The last `lines` lines of the server's error log.
    pub(crate) fn log_tail(&self, lines: usize) -> String {
        let mut text = String::new();
        if let Ok(mut file) = std::fs::File::open(self.dir().join("error.log")) {
            let _ = file.read_to_string(&mut text);
        }
        let all: Vec<&str> = text.lines().collect();
        all[all.len().saturating_sub(lines)..].join("\n")
    }

    /// Stops the server cleanly (SHUTDOWN, wait, kill after a timeout) and removes its
    /// directory. Safe to call more than once.
    pub fn stop(&mut self) {
        self.shut_down();
        if let Some(dir) = self.dir.take() {
            let _ = dir.close();
        }
    }

    /// Stops the server process cleanly (SHUTDOWN, wait, kill after a timeout), keeping
    /// its directory.
    fn shut_down(&mut self) {
        if let Some(mut child) = self.child.take() {
            if let Ok(mut admin) = self.admin_spec().connect() {
                let _ = admin.query_drop("SHUTDOWN");
            } else {
                // Not answering (dead or stopped): ask it to terminate, and continue it
                // in case it was stopped, so it can.
                // SAFETY: plain kill(2) on our own child.
                unsafe {
                    libc::kill(child.id() as i32, libc::SIGTERM);
                    libc::kill(child.id() as i32, libc::SIGCONT);
                }
            }
            let deadline = Instant::now() + STOP_TIMEOUT;
            while Instant::now() < deadline && matches!(child.try_wait(), Ok(None)) {
                std::thread::sleep(Duration::from_millis(20));
            }
            if matches!(child.try_wait(), Ok(None)) {
                let _ = child.kill();
            }
            let _ = child.wait();
            LIVE.lock()
                .unwrap_or_else(|e| e.into_inner())
                .retain(|(pid, _)| *pid != child.id());
        }
    }

    /// Shuts the server down cleanly and keeps a copy of its datadir as it is now (the
    /// data just prepared, and InnoDB's buffer pool dump of it), then starts it again:
    /// every later instance starts from this copy, so none prepares again.
    pub(crate) fn keep_prepared(&mut self, launch: &ServerLaunch<'_>) -> anyhow::Result<()> {
        self.shut_down();
        let (data, prepared) = (
            command_line::data_dir(self.dir()),
            self.dir().join("prepared"),
        );
        copy_tree(&data, &prepared)
            .with_context(|| format!("{}: keeping a copy of the prepared datadir", self.side))?;
        self.respawn(launch)
    }

    /// Replaces the server with a fresh process on a fresh copy of the prepared datadir
    /// (reflinked where the filesystem can): new memory layout, new file extents, the
    /// same data. The buffer pool is loaded from the copy's dump before it is used.
    pub(crate) fn fresh_instance(&mut self, launch: &ServerLaunch<'_>) -> anyhow::Result<()> {
        self.shut_down();
        let (data, prepared) = (
            command_line::data_dir(self.dir()),
            self.dir().join("prepared"),
        );
        std::fs::remove_dir_all(&data)
            .with_context(|| format!("{}: removing the last instance's datadir", self.side))?;
        copy_tree(&prepared, &data)
            .with_context(|| format!("{}: copying the prepared datadir", self.side))?;
        self.respawn(launch)
    }

    /// Starts the process again on the existing datadir (its user and password are in
    /// it) and waits until it is ready, closed to others and warm.
    fn respawn(&mut self, launch: &ServerLaunch<'_>) -> anyhow::Result<()> {
        self.spawn(launch)?;
        self.wait_accepting()?;
        self.check_closed_to_others()?;
        self.wait_buffer_pool_loaded();
        Ok(())
    }

    /// Waits (at most a minute) until InnoDB has loaded the buffer pool dump it found at
    /// start-up, so an instance's first round does not measure the load.
    fn wait_buffer_pool_loaded(&self) {
        let deadline = Instant::now() + Duration::from_secs(60);
        while Instant::now() < deadline {
            let status: Option<(String, String)> = self.admin().ok().and_then(|mut admin| {
                admin
                    .query_first("SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_load_status'")
                    .ok()
                    .flatten()
            });
            // "Loading buffer pool(s) from …", "Loaded 120/400 pages" while it runs.
            match status {
                Some((_, text)) if text.starts_with("Loading") || text.starts_with("Loaded") => {}
                _ => return,
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// Copies a directory tree with its modes, reflinking where the filesystem can.
fn copy_tree(from: &Path, to: &Path) -> anyhow::Result<()> {
    let output = Command::new("cp")
        .args(["-a", "--reflink=auto"])
        .arg(from)
        .arg(to)
        .output()
        .context("running cp")?;
    if !output.status.success() {
        bail!(
            "cp {} {}: {}",
            from.display(),
            to.display(),
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    Ok(())
}

impl Drop for ManagedServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Kills every live managed server at once and removes its directory: the forced exit
/// path of a second Ctrl-C.
pub(crate) fn kill_all_now() {
    let live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
    for (pid, dir) in live.iter() {
        // SAFETY: plain kill(2) on our own child.
        unsafe { libc::kill(*pid as i32, libc::SIGKILL) };
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// The invoking OS user's name: the managed server's only administrator.
fn os_user_name() -> String {
    let mut buffer = vec![0 as libc::c_char; 4096];
    // SAFETY: all-zero is a valid `passwd` (null pointers, zero ids).
    let mut entry: libc::passwd = unsafe { std::mem::zeroed() };
    let mut found: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: getpwuid_r writes only into `entry` and `buffer`, whose sizes it is given;
    // `pw_name` points into `buffer`, which outlives its use here.
    unsafe {
        let status = libc::getpwuid_r(
            libc::geteuid(),
            &mut entry,
            buffer.as_mut_ptr(),
            buffer.len(),
            &mut found,
        );
        if status != 0 || found.is_null() || entry.pw_name.is_null() {
            return "root".into();
        }
        std::ffi::CStr::from_ptr(entry.pw_name)
            .to_string_lossy()
            .into_owned()
    }
}

/// Installs the system tables. The administrator is the invoking OS user over the
/// socket only (`unix_socket`): no account with an empty password, none over TCP, no
/// anonymous user, no test database. A server run from an install tree is installed by
/// that tree's own script, from its own SQL files, with the profile's binary.
fn install_datadir(
    dir: &Path,
    launch: &ServerLaunch<'_>,
    admin_user: &str,
    bootstrap: &[String],
    user: Option<&ServerUser>,
) -> anyhow::Result<()> {
    let install = match launch.tree {
        Some(tree) => tree.install_db.clone(),
        None => super::binary::find_program(&["mariadb-install-db", "mysql_install_db"])
            .context("mariadb-install-db not found; install mariadb-server")?,
    };
    // A private TMPDIR: parallel bootstraps sharing /tmp collide on temporary table names.
    let tmp = dir.join("tmp");
    let mut command = Command::new(&install);
    command
        .env_clear()
        .envs(child_environment())
        .env("TMPDIR", &tmp)
        .args([
            "--no-defaults".to_string(),
            format!("--datadir={}", command_line::data_dir(dir).display()),
            "--auth-root-authentication-method=socket".into(),
            format!("--auth-root-socket-user={admin_user}"),
            "--skip-test-db".into(),
        ])
        .args(bootstrap);
    if let Some(user) = user.cloned() {
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe { command.pre_exec(move || user.switch_to()) };
    }
    match launch.tree {
        Some(tree) => {
            // The script bootstraps with the binary it finds in the tree, unless told.
            command
                .env("MYSQLD_BOOTSTRAP", launch.binary)
                .arg(format!("--basedir={}", tree.basedir.display()));
        }
        None => {
            if let Some(base) = launch.binary.parent().and_then(Path::parent)
                && base != Path::new("/usr")
            {
                command.arg(format!("--basedir={}", base.display()));
            }
        }
    }
    let output = command
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("running {}", install.display()))?;
    if !output.status.success() {
        bail!(
            "{} failed ({}):\n{}{}",
            install.display(),
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(())
}

/// The `mysql_native_password` hash of `password` as the grant tables store it:
/// `*` and the upper-case hex of SHA1(SHA1(password)). It cannot log in by itself.
fn native_password_hash(password: &str) -> String {
    use sha1::{Digest, Sha1};
    let twice = Sha1::digest(Sha1::digest(password.as_bytes()));
    let hex: String = twice.iter().map(|b| format!("{b:02X}")).collect();
    format!("*{hex}")
}

/// Writes `text` into a new file readable by its owner only (0600).
fn write_private(path: &Path, text: &str) -> anyhow::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .with_context(|| format!("creating {}", path.display()))?;
    file.write_all(text.as_bytes())
        .with_context(|| format!("writing {}", path.display()))
}

fn free_port() -> anyhow::Result<u16> {
    let listener = std::net::TcpListener::bind(("127.0.0.1", 0)).context("finding a free port")?;
    Ok(listener.local_addr()?.port())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_native_password_hash_is_the_servers() {
        // SELECT PASSWORD('abc') on MariaDB 10.11.
        assert_eq!(
            super::native_password_hash("abc"),
            "*0D3CED9BEC10A777AEC23CCC353A8C08A633045E"
        );
    }
}
