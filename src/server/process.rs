//! Facts about processes that several server files need — whether a process runs,
//! whether abtest runs as root, the environment a child gets — kept below the sandbox,
//! which starts servers, so the files it uses need not reach back into it.

/// Whether process `pid` runs: it exists and is not a zombie (a child that died but is
/// not reaped yet has state `Z` in /proc).
pub fn process_is_alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            stat.rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().next().map(String::from))
        })
        .is_some_and(|state| state != "Z" && state != "X")
}

/// Whether abtest runs as root (then a managed server runs as `mysql`).
pub(crate) fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// The environment of mariadbd and mariadb-install-db: only PATH. abtest's own
/// environment may hold a password (`password_env`), which no child needs.
pub(crate) fn child_environment() -> Vec<(&'static str, std::ffi::OsString)> {
    std::env::var_os("PATH")
        .map(|path| vec![("PATH", path)])
        .unwrap_or_default()
}

/// Where a managed server's stderr goes, in its private directory: mariadbd prints
/// there what stops it before its error log is open (a refused option value, say).
const STDERR_FILE: &str = "stderr.log";

/// Opens the file a managed server's stderr is written to.
pub(crate) fn stderr_file(dir: &std::path::Path) -> anyhow::Result<std::fs::File> {
    use anyhow::Context;
    let path = dir.join(STDERR_FILE);
    std::fs::File::create(&path).with_context(|| format!("creating {}", path.display()))
}

/// What a server that did not start printed, wherever it printed it: the end of its
/// stderr, then the end of its error log (`log_tail`), each said to be empty when it is.
pub(crate) fn start_output(dir: &std::path::Path, log_tail: &str) -> String {
    const LINES: usize = 20;
    let stderr = std::fs::read_to_string(dir.join(STDERR_FILE)).unwrap_or_default();
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    let stderr = lines[lines.len().saturating_sub(LINES)..].join("\n");
    let part = |what: &str, text: &str| {
        if text.trim().is_empty() {
            format!("{what} is empty")
        } else {
            format!("{what}:\n{text}")
        }
    };
    format!(
        "{}\n{}",
        part("what it printed on stderr", &stderr),
        part("the end of its error log", log_tail)
    )
}

/// What `binary --no-defaults <args> --verbose --help` prints, stdout and stderr.
pub(crate) fn help_output(
    binary: &std::path::Path,
    args: &[String],
) -> Option<std::process::Output> {
    std::process::Command::new(binary)
        .env_clear()
        .envs(child_environment())
        .arg("--no-defaults")
        .args(args)
        .args(["--verbose", "--help"])
        .stdin(std::process::Stdio::null())
        .output()
        .ok()
}
