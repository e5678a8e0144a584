//! A managed server's command line, in one place, so that the server abtest starts and
//! the one `--dry-run` shows are the same words.
//!
//! The order is the guarantee: `--no-defaults`, or the user's my.cnf as a private 0600
//! options file (`--defaults-file`, read before the command line: its values, keys and
//! passwords among them, never appear in `ps`); the install tree's basedir, messages and
//! plugins when the server runs from one; the generated TLS files (a profile may
//! turn TLS off); the profile's options; abtest's own last, so that no spelling of an
//! option before them can take the server out of its private directory or open it to
//! others. Options that name where the server writes are pointed into the private
//! directory wherever they come from (see `write_paths`); symbolic links are off, so
//! `CREATE TABLE … DATA DIRECTORY` cannot place a table outside it either. Who the
//! server runs as is not an option: abtest switches the process's user itself.

use std::path::{Path, PathBuf};

use super::install_tree::InstallTree;
use super::launch::ServerLaunch;
use super::tls::TlsFiles;
use super::write_paths;

/// The least `max_prepared_stmt_count` of a managed server: a captured workload at a
/// thousand connections can hold far more than the default 16 382 prepared statements,
/// and a throwaway server has no other client to protect.
const PREPARED_STATEMENTS: u64 = 1_048_576;

/// Where a managed server's files are.
pub(crate) struct Layout<'a> {
    /// The private directory (mode 0700) holding everything below.
    pub(crate) dir: &'a Path,
    /// Its Unix socket.
    pub(crate) socket: &'a Path,
    /// Its TCP port, on 127.0.0.1.
    pub(crate) port: String,
    /// Its generated TLS material.
    pub(crate) tls: &'a TlsFiles,
}

/// The data directory inside a private directory.
pub(crate) fn data_dir(dir: &Path) -> PathBuf {
    dir.join("data")
}

/// The options file holding the user's my.cnf, as the server reads it.
pub(crate) fn options_file(dir: &Path) -> PathBuf {
    dir.join("defaults.cnf")
}

/// The only directory `SELECT … INTO OUTFILE` and `LOAD DATA` may reach.
pub(crate) fn files_dir(dir: &Path) -> PathBuf {
    dir.join("files")
}

/// The arguments mariadbd is started with.
pub(crate) fn server_args(layout: &Layout<'_>, launch: &ServerLaunch<'_>) -> Vec<String> {
    let dir = layout.dir;
    let defaults = match launch.defaults_file {
        Some(_) => format!("--defaults-file={}", options_file(dir).display()),
        None => "--no-defaults".to_string(),
    };
    let mut args = vec![defaults];
    // The install tree's own paths, before the profile's options so a profile may still
    // name a plugin directory of its own.
    args.extend(
        launch
            .tree
            .map(InstallTree::server_args)
            .unwrap_or_default(),
    );
    args.extend([
        format!("--ssl-ca={}", layout.tls.ca.display()),
        format!("--ssl-cert={}", layout.tls.cert.display()),
        format!("--ssl-key={}", layout.tls.key.display()),
    ]);
    let needed = launch.max_threads + 16;
    let max_connections = launch
        .options
        .get("max_connections")
        .and_then(|v| v.parse::<u32>().ok())
        .map_or(needed, |v| v.max(needed));
    let max_prepared = launch
        .options
        .get("max_prepared_stmt_count")
        .and_then(|v| v.parse::<u64>().ok())
        .map_or(PREPARED_STATEMENTS, |v| v.max(PREPARED_STATEMENTS));
    for (key, value) in launch.options {
        match key.as_str() {
            "max_connections" | "port" | "max_prepared_stmt_count" => {}
            // The pool must be allowed as many threads as there are connections.
            "thread_pool_max_threads" => {
                let requested = value.parse::<u32>().unwrap_or(0);
                args.push(format!(
                    "--thread-pool-max-threads={}",
                    requested.max(needed)
                ));
            }
            _ => match launch.redirects.and_then(|r| r.get(key)) {
                Some(option) => args.push(format!(
                    "--{key}={}",
                    write_paths::redirected(option, value, dir)
                )),
                None => args.push(format!("--{key}={value}")),
            },
        }
    }
    args.extend([
        format!("--datadir={}", data_dir(dir).display()),
        format!("--socket={}", layout.socket.display()),
        format!("--port={}", layout.port),
        "--bind-address=127.0.0.1".into(),
        format!("--pid-file={}", dir.join("mysqld.pid").display()),
        format!("--tmpdir={}", dir.join("tmp").display()),
        format!("--log-error={}", dir.join("error.log").display()),
        "--skip-name-resolve".into(),
        format!("--max-connections={max_connections}"),
        format!("--max-prepared-stmt-count={max_prepared}"),
        format!("--open-files-limit={}", (max_connections * 4).max(4096)),
        format!("--secure-file-priv={}", files_dir(dir).display()),
        "--skip-skip-grant-tables".into(),
        "--skip-symbolic-links".into(),
        // Disabled at start, the scheduler cannot be turned on by a hook: an event
        // would act between the confinement checks, which only see what is there.
        "--event-scheduler=DISABLED".into(),
    ]);
    args
}

/// Where a preview places the private directory, which is chosen at start.
pub(crate) const PRIVATE_DIR: &str = "<private-dir>";

/// The arguments the server would start with, the private directory and a free port
/// named, not invented (credentials as they are: not for showing).
pub(crate) fn preview_args(launch: &ServerLaunch<'_>) -> Vec<String> {
    let dir = Path::new(PRIVATE_DIR);
    let tls = TlsFiles::in_dir(dir);
    let layout = Layout {
        dir,
        socket: &dir.join("mysqld.sock"),
        port: launch
            .options
            .get("port")
            .cloned()
            .unwrap_or_else(|| "<free-port>".into()),
        tls: &tls,
    };
    server_args(&layout, launch)
}

/// The command line as `--dry-run` shows it: the private directory and a free port are
/// chosen at start, so they are named, not invented.
pub(crate) fn preview(launch: &ServerLaunch<'_>) -> String {
    let dir = Path::new(PRIVATE_DIR);
    let mut words = vec![launch.binary.display().to_string()];
    words.extend(
        preview_args(launch)
            .iter()
            .map(|word| crate::secret::shown_arg(word).into_owned()),
    );
    let mut preview = words.join(" ");
    if let Some(file) = launch.defaults_file {
        preview.push_str(&format!(
            "\n          with {} (mode 0600):\n            {}",
            options_file(dir).display(),
            file.shown()
                .options_file(dir)
                .trim_end()
                .replace('\n', "\n            ")
        ));
    }
    preview
}
