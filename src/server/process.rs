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
