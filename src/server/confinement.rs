//! Whether a running managed server is still closed to everyone but abtest, read from
//! what the server has rather than from what it was asked: a hook, a plugin or an
//! executable comment can change a server in ways no parser of its statements sees.
//!
//! Four things are read, every time:
//! - its accounts, from the grant tables and from the server's memory (a row deleted
//!   from `mysql.global_priv` without `FLUSH PRIVILEGES` still logs in): one abtest did
//!   not create must be on a local host and have a password; and a login without a
//!   password over TCP is tried for each account's name;
//! - its listening sockets (`/proc/<pid>/net/{tcp,tcp6,udp,udp6,unix}`, matched to the
//!   process's own descriptors): only abtest's port, `extra_port` and socket;
//! - its open files (`/proc/<pid>/fd`): each inside the private directory;
//! - its global variables: every one that names a place it writes, and every other one
//!   holding an absolute path (apart from the few it only reads), inside the private
//!   directory.
//!
//! abtest runs this when the server is ready, after every hook phase and at the end of
//! the run. What it finds stops the run with exit 2, naming each account, port or file.

use std::collections::BTreeSet;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::path::{Component, Path, PathBuf};

use mysql::prelude::Queryable;

use crate::db::{ClientSpec, ConnectSpec, Endpoint};
use crate::side::Side;

/// A managed server as the check sees it.
pub(crate) struct Confined<'a> {
    /// The side it was started for, for messages.
    pub(crate) side: Side,
    /// Its process.
    pub(crate) pid: u32,
    /// Its private directory.
    pub(crate) dir: &'a Path,
    /// abtest's TCP port.
    pub(crate) port: u16,
    /// abtest's Unix socket.
    pub(crate) socket: &'a Path,
    /// The accounts abtest made, as (user, host).
    pub(crate) accounts: &'a [(String, String)],
}

/// Global variables holding an absolute path that the server only reads: its program,
/// character sets, messages and plugins, and files a profile hands it to read.
const READ_ONLY_PATHS: &[&str] = &[
    "basedir",
    "character_sets_dir",
    "lc_messages_dir",
    "plugin_dir",
    "init_file",
    "file_key_management_filename",
    "wsrep_provider",
    "ssl_capath",
    "ssl_crlpath",
    "ft_stopword_file",
];

/// Global variables whose value may start with `/` without naming a place:
/// the server's base64 id (`/uWyq/XwDX…=`, one start in 64).
const NOT_PLACES: &[&str] = &["server_uid"];

/// Whether a value of a variable no list knows names a place on this machine: an
/// absolute path whose top directory exists (a base64 value that happens to begin with
/// `/` does not).
fn names_a_place(value: &str) -> bool {
    let Some(rest) = value.strip_prefix('/') else {
        return false;
    };
    let top = rest.split('/').next().unwrap_or_default();
    !top.is_empty() && Path::new("/").join(top).exists()
}

/// Global variables naming where the server writes that hold a name relative to its
/// data directory when not absolute (those of `write_paths` count too).
const WRITES: &[&str] = &[
    "datadir",
    "tmpdir",
    "log_error",
    "pid_file",
    "socket",
    "secure_file_priv",
    "general_log_file",
    "slow_query_log_file",
    "log_bin_basename",
    "log_bin_index",
    "relay_log_basename",
    "relay_log_index",
];

/// Checks `server`, reached through `admin`; `after` says when ("the setup hooks").
pub(crate) fn check(
    server: &Confined<'_>,
    admin: &mut mysql::Conn,
    after: &str,
) -> anyhow::Result<()> {
    let extra_port: Option<u16> = admin.query_first("SELECT @@extra_port")?;
    let extra_port = extra_port.filter(|p| *p != 0);
    let mut found = accounts(server, admin)?;
    found.extend(logins(server, admin, extra_port)?);
    found.extend(variables(server, admin)?);
    if crate::server::process::process_is_alive(server.pid) {
        found.extend(listening(server, extra_port)?);
        found.extend(open_files(server)?);
    }
    if found.is_empty() {
        return Ok(());
    }
    Err(crate::exit::UsageError::err(format!(
        "{}: after {after}, the managed server is no longer closed to others:\n  - {}\n\
         The run was stopped and the server with it. A hook, a profile option or a plugin \
         made this: remove it from the profile (abtest's server admits only its own \
         account, port and socket, and writes only inside its private directory)",
        server.side,
        found.join("\n  - ")
    )))
}

/// Hosts an account may have: the ones abtest's own are created for, reachable only from
/// this machine (and `localhost` only through the private socket).
const LOCAL_HOSTS: &[&str] = &["127.0.0.1", "::1", "localhost"];

/// Accounts abtest did not make that let someone in: one reachable from another host,
/// one without a password, and one the server holds in memory that its grant tables do
/// not list (a row deleted without `FLUSH PRIVILEGES`: nothing shows how it logs in).
/// An account a hook creates on a local host with a password is allowed; roles cannot
/// log in and are left out.
fn accounts(server: &Confined<'_>, admin: &mut mysql::Conn) -> anyhow::Result<Vec<String>> {
    let rows: Vec<(String, String, String)> =
        admin.query("SELECT User, Host, Priv FROM mysql.global_priv")?;
    let mut listed = BTreeSet::new();
    let mut found = Vec::new();
    for (user, host, priv_json) in rows {
        let privileges: serde_json::Value =
            serde_json::from_str(&priv_json).unwrap_or(serde_json::Value::Null);
        if privileges["is_role"] == true {
            continue;
        }
        let account = (user, host);
        if !server.accounts.contains(&account) {
            let (user, host) = &account;
            if !LOCAL_HOSTS.contains(&host.as_str()) {
                found.push(format!(
                    "an account abtest did not create, '{user}'@'{host}', which other hosts \
                     can reach"
                ));
            } else if password_less(&privileges) {
                found.push(format!(
                    "an account abtest did not create, '{user}'@'{host}', without a password"
                ));
            }
        }
        listed.insert(account);
    }
    let grantees: Vec<String> =
        admin.query("SELECT DISTINCT GRANTEE FROM information_schema.USER_PRIVILEGES")?;
    for (user, host) in grantees.iter().filter_map(|g| split_grantee(g)) {
        if !listed.contains(&(user.clone(), host.clone())) {
            found.push(format!(
                "an account abtest did not create, '{user}'@'{host}', which the server holds \
                 but its grant tables do not list"
            ));
        }
    }
    Ok(found)
}

/// Whether an account (its `mysql.global_priv` JSON) logs in without a password: it is
/// not locked and one of its ways in is a password plugin with no password.
fn password_less(privileges: &serde_json::Value) -> bool {
    if privileges["account_locked"] == true {
        return false;
    }
    let alternatives = privileges["auth_or"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    std::iter::once(privileges)
        .chain(
            alternatives
                .iter()
                .filter(|a| a.as_object().is_some_and(|o| !o.is_empty())),
        )
        .any(|method| {
            let plugin = method["plugin"].as_str().unwrap_or("");
            let secret = method["authentication_string"].as_str().unwrap_or("");
            let by_password = matches!(
                plugin,
                "" | "mysql_native_password" | "mysql_old_password" | "ed25519" | "parsec"
            );
            by_password && secret.is_empty()
        })
}

/// `'user'@'host'` as `information_schema` writes a grantee.
fn split_grantee(grantee: &str) -> Option<(String, String)> {
    let (user, host) = grantee.rsplit_once("@")?;
    let unquote = |s: &str| {
        s.strip_prefix('\'')
            .and_then(|s| s.strip_suffix('\''))
            .map(|s| s.replace("''", "'"))
    };
    Some((unquote(user)?, unquote(host)?))
}

/// Every account name (and root, and a name nobody has) that logs in over TCP without a
/// password, on abtest's port and `extra_port`: what the server does, not what its
/// tables say.
fn logins(
    server: &Confined<'_>,
    admin: &mut mysql::Conn,
    extra_port: Option<u16>,
) -> anyhow::Result<Vec<String>> {
    let mut users: BTreeSet<String> = admin
        .query::<String, _>("SELECT DISTINCT User FROM mysql.global_priv")?
        .into_iter()
        .collect();
    users.extend(["root".to_string(), "abtest_intruder".to_string()]);
    let mut found = Vec::new();
    for port in std::iter::once(server.port).chain(extra_port) {
        for user in &users {
            let mut spec = ConnectSpec::new(
                Endpoint::Tcp {
                    host: "127.0.0.1".into(),
                    port,
                },
                user,
                None,
                None,
                &ClientSpec::default(),
            );
            spec.connect_timeout = std::time::Duration::from_secs(5);
            if spec.connect().is_ok() {
                found.push(format!(
                    "`{user}` logs in over TCP on port {port} without a password"
                ));
            }
        }
    }
    Ok(found)
}

/// Global variables that place a file outside the private directory.
fn variables(server: &Confined<'_>, admin: &mut mysql::Conn) -> anyhow::Result<Vec<String>> {
    let all: Vec<(String, String)> = admin.query("SHOW GLOBAL VARIABLES")?;
    let data = server.dir.join("data");
    let mut found = Vec::new();
    for (name, value) in all {
        let name = name.to_ascii_lowercase();
        let writes = WRITES.contains(&name.as_str())
            || crate::server::write_paths::is_write_path_variable(&name);
        let places: Vec<PathBuf> = if writes {
            written_places(&name, &value, &data)
        } else if names_a_place(&value)
            && !READ_ONLY_PATHS.contains(&name.as_str())
            && !NOT_PLACES.contains(&name.as_str())
        {
            vec![PathBuf::from(&value)]
        } else {
            Vec::new()
        };
        if let Some(place) = places
            .iter()
            .map(|p| lexically(p))
            .find(|p| !p.starts_with(server.dir))
        {
            let resolved = if place == Path::new(&value) {
                String::new()
            } else {
                format!(" ({})", place.display())
            };
            found.push(format!(
                "{name} = {value}, which is outside its private directory{resolved}"
            ));
        }
    }
    Ok(found)
}

/// The places a write-path variable's value names, relative ones under `data`; none for
/// a switch (`ON`, `OFF`) or an empty value.
fn written_places(name: &str, value: &str, data: &Path) -> Vec<PathBuf> {
    if value.is_empty() || matches!(value, "ON" | "OFF") {
        return Vec::new();
    }
    let names: Vec<&str> = if name.ends_with("_file_path") && name.starts_with("innodb") {
        value
            .split(';')
            .filter_map(|spec| spec.split(':').next())
            .filter(|s| !s.is_empty())
            .collect()
    } else {
        vec![value]
    };
    names.into_iter().map(|n| data.join(n)).collect()
}

/// `path` with `.` and `..` taken away without touching the filesystem.
fn lexically(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Listening sockets of the process other than abtest's port, `extra_port` and socket.
fn listening(server: &Confined<'_>, extra_port: Option<u16>) -> anyhow::Result<Vec<String>> {
    let inodes = socket_inodes(server.pid)?;
    let net = PathBuf::from(format!("/proc/{}/net", server.pid));
    let allowed: Vec<u16> = std::iter::once(server.port).chain(extra_port).collect();
    let mut found = Vec::new();
    for (table, listen_state) in [("tcp", "0A"), ("tcp6", "0A"), ("udp", "07"), ("udp6", "07")] {
        let text = std::fs::read_to_string(net.join(table)).unwrap_or_default();
        for (address, port, state, inode) in text.lines().skip(1).filter_map(inet_line) {
            let tcp_ok = table.starts_with("tcp") && allowed.contains(&port);
            if state == listen_state && inodes.contains(&inode) && !tcp_ok {
                found.push(format!(
                    "it listens on {} port {port} ({address}), which abtest did not open",
                    table.trim_end_matches('6')
                ));
            }
        }
    }
    let unix = std::fs::read_to_string(net.join("unix")).unwrap_or_default();
    for line in unix.lines().skip(1) {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let (Some(flags), Some(inode)) = (fields.get(3), fields.get(6)) else {
            continue;
        };
        let path = fields.get(7).copied().unwrap_or("(unnamed)");
        let listens = u32::from_str_radix(flags, 16).is_ok_and(|f| f & 0x10000 != 0);
        if listens
            && inode.parse().is_ok_and(|i: u64| inodes.contains(&i))
            && Path::new(path) != server.socket
        {
            found.push(format!(
                "it listens on the Unix socket {path}, which abtest did not open"
            ));
        }
    }
    Ok(found)
}

/// Address, port, state and inode of a line of `/proc/net/{tcp,tcp6,udp,udp6}`.
fn inet_line(line: &str) -> Option<(IpAddr, u16, String, u64)> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    let (address, port) = fields.get(1)?.split_once(':')?;
    let port = u16::from_str_radix(port, 16).ok()?;
    let address = kernel_address(address)?;
    Some((
        address,
        port,
        fields.get(3)?.to_string(),
        fields.get(9)?.parse().ok()?,
    ))
}

/// An address as the kernel prints it: 32-bit words in hex, each in host byte order.
fn kernel_address(hex: &str) -> Option<IpAddr> {
    let words: Vec<[u8; 4]> = (0..hex.len() / 8)
        .map(|i| u32::from_str_radix(&hex[i * 8..i * 8 + 8], 16).map(u32::to_ne_bytes))
        .collect::<Result<_, _>>()
        .ok()?;
    match words.as_slice() {
        [v4] => Some(IpAddr::V4(Ipv4Addr::from(*v4))),
        [a, b, c, d] => {
            let bytes: Vec<u8> = [a, b, c, d]
                .iter()
                .flat_map(|w| w.iter().copied())
                .collect();
            let bytes: [u8; 16] = bytes.try_into().ok()?;
            Some(IpAddr::V6(Ipv6Addr::from(bytes)))
        }
        _ => None,
    }
}

/// The inodes of the sockets the process holds.
fn socket_inodes(pid: u32) -> anyhow::Result<BTreeSet<u64>> {
    Ok(descriptors(pid)?
        .iter()
        .filter_map(|target| {
            target
                .strip_prefix("socket:[")?
                .strip_suffix(']')?
                .parse()
                .ok()
        })
        .collect())
}

/// What each of the process's descriptors refers to, as `readlink` shows it.
fn descriptors(pid: u32) -> anyhow::Result<Vec<String>> {
    let dir = format!("/proc/{pid}/fd");
    let entries = std::fs::read_dir(&dir).map_err(|e| {
        anyhow::anyhow!(
            "cannot read {dir} to check what the managed server has open ({e}); abtest \
             must be able to see its own server's descriptors"
        )
    })?;
    Ok(entries
        .flatten()
        .filter_map(|entry| std::fs::read_link(entry.path()).ok())
        .map(|target| target.to_string_lossy().into_owned())
        .collect())
}

/// Files the process has open outside the private directory. Devices, `/proc`, `/sys`,
/// pipes, sockets and anonymous inodes are not files it writes.
fn open_files(server: &Confined<'_>) -> anyhow::Result<Vec<String>> {
    Ok(descriptors(server.pid)?
        .into_iter()
        .filter(|target| target.starts_with('/'))
        .filter(|target| {
            !["/dev/", "/proc/", "/sys/", "/memfd:"]
                .iter()
                .any(|p| target.starts_with(p))
        })
        .filter(|target| !Path::new(target.trim_end_matches(" (deleted)")).starts_with(server.dir))
        .map(|target| format!("it has {target} open, outside its private directory"))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_names_a_place_only_when_its_top_directory_exists() {
        assert!(names_a_place("/tmp/general.log"));
        assert!(!names_a_place("/uWyq/XwDX2k0XmSHJoIx2sUgoE="));
        assert!(!names_a_place("relative/path"));
        assert!(!names_a_place("/"));
    }

    #[test]
    fn kernel_addresses_read_as_written() {
        assert_eq!(
            kernel_address("0100007F"),
            Some(IpAddr::V4(Ipv4Addr::LOCALHOST))
        );
        assert_eq!(
            kernel_address("00000000"),
            Some(IpAddr::V4(Ipv4Addr::UNSPECIFIED))
        );
        assert_eq!(
            kernel_address("00000000000000000000000001000000"),
            Some(IpAddr::V6(Ipv6Addr::LOCALHOST))
        );
        let line = "   1: 0100007F:33FA 00000000:0000 0A 00000000:00000000 00:00000000 \
                    00000000   102        0 337824 1 0000000082b3f5c7 100 0 0 10 0";
        assert_eq!(
            inet_line(line),
            Some((
                IpAddr::V4(Ipv4Addr::LOCALHOST),
                13306,
                "0A".to_string(),
                337824
            ))
        );
    }

    #[test]
    fn password_less_accounts_are_told_from_guarded_ones() {
        let json = |text: &str| serde_json::from_str::<serde_json::Value>(text).unwrap();
        for (privileges, open) in [
            (
                r#"{"access":0,"plugin":"mysql_native_password","authentication_string":""}"#,
                true,
            ),
            (r#"{"access":0}"#, true),
            (
                r#"{"plugin":"mysql_native_password","authentication_string":"","account_locked":true}"#,
                false,
            ),
            (
                r#"{"plugin":"mysql_native_password","authentication_string":"*0D3C"}"#,
                false,
            ),
            (
                r#"{"plugin":"mysql_native_password","authentication_string":"invalid","auth_or":[{},{"plugin":"unix_socket"}]}"#,
                false,
            ),
            (
                r#"{"plugin":"unix_socket","auth_or":[{},{"plugin":"ed25519","authentication_string":""}]}"#,
                true,
            ),
        ] {
            assert_eq!(password_less(&json(privileges)), open, "{privileges}");
        }
    }

    #[test]
    fn grantees_split_into_user_and_host() {
        assert_eq!(
            split_grantee("'evil'@'%'"),
            Some(("evil".into(), "%".into()))
        );
        assert_eq!(
            split_grantee("'o''brien'@'localhost'"),
            Some(("o'brien".into(), "localhost".into()))
        );
    }

    #[test]
    fn relative_and_dotted_places_resolve_under_the_data_directory() {
        let data = Path::new("/tmp/abtest-x/data");
        let places = written_places("general_log_file", "../../../etc/x.log", data);
        assert_eq!(lexically(&places[0]), Path::new("/etc/x.log"));
        let places = written_places("general_log_file", "host.log", data);
        assert!(lexically(&places[0]).starts_with("/tmp/abtest-x"));
        assert!(written_places("log_bin", "OFF", data).is_empty());
        let places = written_places(
            "innodb_data_file_path",
            "ibdata1:12M;/srv/ibdata2:1G:autoextend",
            data,
        );
        assert_eq!(places[1], Path::new("/srv/ibdata2"));
    }
}
