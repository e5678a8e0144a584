//! Facts read from a server at the start of a run. They are the evidence that the
//! variant differs from the baseline as claimed, and nothing else does.

use std::collections::BTreeMap;

use mysql::prelude::Queryable;
use serde::{Deserialize, Serialize};

/// Variables that differ between any two instances and say nothing about configuration
/// (the install paths among them: two installs of one version are the same server; two
/// versions differ in `version`).
const INSTANCE_VARIABLES: &[&str] = &[
    "basedir",
    "character_sets_dir",
    "datadir",
    "general_log_file",
    "gtid_binlog_pos",
    "gtid_binlog_state",
    "gtid_current_pos",
    "gtid_slave_pos",
    "hostname",
    "lc_messages_dir",
    "log_bin_basename",
    "log_bin_index",
    "log_error",
    "pid_file",
    "report_port",
    "server_uid",
    "plugin_dir",
    "port",
    "relay_log_basename",
    "relay_log_index",
    "server_uuid",
    "slow_query_log_file",
    "socket",
    "ssl_ca",
    "ssl_cert",
    "ssl_key",
    "system_time_zone",
    "timestamp",
    "tmpdir",
    "wsrep_node_name",
];

/// What a server is and how it is configured.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct ServerFacts {
    /// `SELECT VERSION()`.
    pub(crate) version: String,
    /// `@@version_comment`.
    pub(crate) version_comment: String,
    /// Active plugins and their status.
    pub(crate) plugins: BTreeMap<String, String>,
    /// TLS version of the client connection, or "none".
    pub(crate) tls_version: String,
    /// TLS cipher of the client connection, or "none".
    pub(crate) tls_cipher: String,
    /// `SHOW GLOBAL VARIABLES`.
    pub(crate) variables: BTreeMap<String, String>,
}

impl ServerFacts {
    /// Reads the facts. `client` is a connection made like the workload's, so its TLS
    /// status is what the workload sees; `admin` may see more variables.
    pub(crate) fn read(
        admin: &mut mysql::Conn,
        client: &mut mysql::Conn,
    ) -> Result<ServerFacts, mysql::Error> {
        let version: Option<String> = admin.query_first("SELECT VERSION()")?;
        let comment: Option<String> = admin.query_first("SELECT @@version_comment")?;
        let variables: Vec<(String, String)> = admin.query("SHOW GLOBAL VARIABLES")?;
        let plugins: Vec<(String, String)> =
            admin.query("SELECT PLUGIN_NAME, PLUGIN_STATUS FROM information_schema.PLUGINS WHERE PLUGIN_TYPE <> 'INFORMATION SCHEMA' AND PLUGIN_STATUS = 'ACTIVE'")?;
        let tls: Vec<(String, String)> = client
            .query("SHOW SESSION STATUS WHERE Variable_name IN ('Ssl_version', 'Ssl_cipher')")?;
        let tls: BTreeMap<String, String> = tls.into_iter().collect();
        let none_if_empty = |value: Option<&String>| match value {
            Some(v) if !v.is_empty() => v.clone(),
            _ => "none".to_string(),
        };
        Ok(ServerFacts {
            version: version.unwrap_or_default(),
            version_comment: comment.unwrap_or_default(),
            plugins: plugins.into_iter().collect(),
            tls_version: none_if_empty(tls.get("Ssl_version")),
            tls_cipher: none_if_empty(tls.get("Ssl_cipher")),
            // A credential or a key never reaches the facts, the differences or a report.
            variables: variables
                .into_iter()
                .map(|(name, value)| {
                    let shown = crate::secret::shown_option(&name, &value).into_owned();
                    (name, shown)
                })
                .collect(),
        })
    }
}

/// A variable whose value differs between the sides.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct VariableDiff {
    /// Variable name.
    pub(crate) name: String,
    /// Baseline value, or absent.
    pub(crate) baseline: Option<String>,
    /// Variant value, or absent.
    pub(crate) variant: Option<String>,
}

/// The configuration differences between two servers, instance-specific noise excluded.
/// The client TLS status is included as the pseudo-variables `client_tls_version` and
/// `client_tls_cipher`, since it is often the very change under test.
pub(crate) fn differences(baseline: &ServerFacts, variant: &ServerFacts) -> Vec<VariableDiff> {
    let with_client = |facts: &ServerFacts| {
        let mut all = normalized_paths(&facts.variables);
        all.insert("client_tls_version".into(), facts.tls_version.clone());
        all.insert("client_tls_cipher".into(), facts.tls_cipher.clone());
        all
    };
    let (a, b) = (with_client(baseline), with_client(variant));
    let names: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    names
        .into_iter()
        .filter(|name| !INSTANCE_VARIABLES.contains(&name.as_str()))
        .filter(|name| a.get(*name) != b.get(*name))
        .map(|name| VariableDiff {
            name: name.clone(),
            baseline: a.get(name).cloned(),
            variant: b.get(name).cloned(),
        })
        .collect()
}

/// Replaces the server's own data directory inside every value with `<datadir>`, so
/// two instances that differ only in where they live show no difference.
fn normalized_paths(variables: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    let datadir = variables
        .get("datadir")
        .map(|d| d.trim_end_matches('/').to_string());
    let home = datadir
        .as_deref()
        .and_then(|d| std::path::Path::new(d).parent())
        .map(|p| p.display().to_string());
    variables
        .iter()
        .map(|(name, value)| {
            let mut value = value.clone();
            for (path, label) in [(&datadir, "<datadir>"), (&home, "<instance>")] {
                if let Some(path) = path.as_deref().filter(|p| p.len() > 1) {
                    value = value.replace(path, label);
                }
            }
            (name.clone(), value)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_ignores_instance_variables_and_reports_tls() {
        let mut a = ServerFacts::default();
        a.variables.insert("port".into(), "1".into());
        a.variables
            .insert("datadir".into(), "/tmp/abtest-a/data/".into());
        a.variables
            .insert("aria_log_dir_path".into(), "/tmp/abtest-a/data/".into());
        a.variables
            .insert("thread_handling".into(), "one-thread-per-connection".into());
        a.tls_cipher = "none".into();
        let mut b = a.clone();
        b.variables.insert("port".into(), "2".into());
        b.variables
            .insert("datadir".into(), "/tmp/abtest-b/data/".into());
        b.variables
            .insert("aria_log_dir_path".into(), "/tmp/abtest-b/data/".into());
        b.variables
            .insert("thread_handling".into(), "pool-of-threads".into());
        b.tls_cipher = "TLS_AES_256_GCM_SHA384".into();
        let names: Vec<String> = differences(&a, &b).into_iter().map(|d| d.name).collect();
        assert_eq!(names, vec!["client_tls_cipher", "thread_handling"]);
    }
}
