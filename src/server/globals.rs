//! A server's global variables and plugins as they were before abtest ran anything on
//! it. Hooks change a server in more ways than a reader of `SET` statements sees —
//! executable comments, `EXECUTE IMMEDIATE`, prepared statements, stored procedures,
//! `INSTALL SONAME`, and side effects such as a character set moving its collation — so
//! abtest does not guess what a hook changed: it reads everything before the first hook,
//! saves it in the results file (where `abtest restore` finds it after a `kill -9`), and
//! later compares and puts back every difference ([`super::restore`]).

use std::collections::{BTreeMap, BTreeSet};

use mysql::Value;
use mysql::prelude::Queryable;
use serde::{Deserialize, Serialize};

use crate::db::is_plain_name;

/// Every global variable and plugin of one server at one moment.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct GlobalSnapshot {
    /// When it was read, RFC 3339.
    pub(crate) taken_at: String,
    /// Every global variable (`SHOW GLOBAL VARIABLES`), by lower-case name; a NULL value
    /// (`enforce_storage_engine` unset) is `null`, not an empty string.
    pub(crate) variables: BTreeMap<String, Option<String>>,
    /// Every installed plugin (`information_schema.PLUGINS`), by name.
    pub(crate) plugins: BTreeMap<String, Plugin>,
    /// Events, triggers and accounts (`EVENT db.name`, `TRIGGER db.name`,
    /// `USER 'u'@'h'`): what acts after the run — an event a hook schedules sets a
    /// global after the restore, a trigger fires on the applications' writes, an
    /// account lets someone in. One the hooks leave behind is named,
    /// not dropped: another client of the server may have made it meanwhile.
    #[serde(default)]
    pub(crate) acting_objects: BTreeSet<String>,
}

/// One installed plugin.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Plugin {
    /// `ACTIVE`, `DISABLED`, `INACTIVE`, `DELETED`.
    pub(crate) status: String,
    /// The library it was loaded from, or none for a plugin built into the server.
    pub(crate) library: Option<String>,
}

/// Variables that move by themselves, so a difference in them says nothing about a hook
/// and putting them back would do harm. Each was seen to move, or moves by definition.
pub(crate) const MOVING: &[(&str, &str)] = &[
    // An ordinary write-only run against a server with a binary log moves these three
    // (measured: `0-1-4233` after a two-round oltp_read_write run, nothing else moved).
    (
        "gtid_binlog_pos",
        "moves with every write logged to the binary log",
    ),
    (
        "gtid_binlog_state",
        "moves with every write logged to the binary log",
    ),
    (
        "gtid_current_pos",
        "moves with every write logged or replicated",
    ),
    (
        "gtid_slave_pos",
        "moved by replication; setting it back would make a replica apply again",
    ),
    // Triggers, not settings: they read back as the last request, and setting them
    // again would start (or stop) a dump, a load or a counter reset anew.
    (
        "innodb_buffer_pool_dump_now",
        "an action (dump the buffer pool), not a setting",
    ),
    (
        "innodb_buffer_pool_load_now",
        "an action (load the buffer pool), not a setting",
    ),
    (
        "innodb_buffer_pool_load_abort",
        "an action (abort a load), not a setting",
    ),
    (
        "innodb_monitor_enable",
        "an action on InnoDB counters, not a setting",
    ),
    (
        "innodb_monitor_disable",
        "an action on InnoDB counters, not a setting",
    ),
    (
        "innodb_monitor_reset",
        "an action on InnoDB counters, not a setting",
    ),
    (
        "innodb_monitor_reset_all",
        "an action on InnoDB counters, not a setting",
    ),
];

/// The value the server shows in place of a secret (`wsrep_sst_auth`): it cannot be
/// compared, and writing it back would replace the secret with asterisks.
pub(crate) const MASKED: &str = "********";

/// Whether `name` is left out of every comparison (see [`MOVING`]).
pub(crate) fn moves_by_itself(name: &str) -> bool {
    MOVING.iter().any(|(moving, _)| *moving == name)
}

impl GlobalSnapshot {
    /// Reads every global variable and plugin. NULL values are told from empty strings
    /// (`SHOW GLOBAL VARIABLES` shows both as empty) by asking for each empty one.
    pub(crate) fn read(conn: &mut mysql::Conn) -> Result<GlobalSnapshot, mysql::Error> {
        let rows: Vec<(Value, Value)> = conn.query("SHOW GLOBAL VARIABLES")?;
        let rows: Vec<(String, Option<String>)> = rows
            .into_iter()
            .filter_map(|(name, value)| Some((text(name)?.to_ascii_lowercase(), text(value))))
            .collect();
        let empty: Vec<&str> = rows
            .iter()
            .filter(|(_, value)| value.as_deref() == Some(""))
            .map(|(name, _)| name.as_str())
            .collect();
        let nulls = null_ones(conn, &empty);
        let mut variables = BTreeMap::new();
        for (name, value) in rows {
            let value = match value {
                Some(v) if v.is_empty() && nulls.contains(&name) => None,
                Some(v) => Some(saved_value(&name, v)),
                None => None,
            };
            variables.insert(name, value);
        }
        let rows: Vec<(Value, Value, Value)> = conn.query(
            "SELECT PLUGIN_NAME, PLUGIN_STATUS, PLUGIN_LIBRARY FROM information_schema.PLUGINS",
        )?;
        let plugins = rows
            .into_iter()
            .filter_map(|(name, status, library)| {
                let plugin = Plugin {
                    status: text(status).unwrap_or_default(),
                    library: text(library),
                };
                Some((text(name)?, plugin))
            })
            .collect();
        let mut acting_objects: BTreeSet<String> = conn
            .query::<String, _>(
                "SELECT CONCAT('TRIGGER ', TRIGGER_SCHEMA, '.', TRIGGER_NAME) \
                 FROM information_schema.TRIGGERS",
            )?
            .into_iter()
            .collect();
        // Accounts let someone in after the run: one a hook made is named too. A user
        // who may not read the grant tables sees none, as before.
        acting_objects.extend(
            conn.query::<String, _>(
                "SELECT CONCAT('USER ', QUOTE(User), '@', QUOTE(Host)) FROM mysql.user",
            )
            .unwrap_or_default(),
        );
        // A server started with the event scheduler DISABLED refuses to list events
        // (1577); none can run there, so there is nothing to see.
        acting_objects.extend(
            conn.query::<String, _>(
                "SELECT CONCAT('EVENT ', EVENT_SCHEMA, '.', EVENT_NAME) FROM information_schema.EVENTS",
            )
            .unwrap_or_default(),
        );
        Ok(GlobalSnapshot {
            taken_at: humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
            variables,
            plugins,
            acting_objects,
        })
    }
}

/// A variable's value as the snapshot keeps it. A credential never reaches the results
/// file: it is masked and, like the server's own mask, neither compared nor put back. A
/// switch or a number under such a name (`disconnect_on_expired_password = OFF`) is no
/// secret and is kept.
fn saved_value(name: &str, value: String) -> String {
    if crate::secret::is_secret_option(name) && !is_switch_or_number(&value) {
        crate::secret::MASK.to_string()
    } else {
        value
    }
}

/// Whether a value is a switch or a number, which no credential is.
fn is_switch_or_number(value: &str) -> bool {
    value.is_empty()
        || ["ON", "OFF", "YES", "NO", "TRUE", "FALSE"]
            .contains(&value.to_ascii_uppercase().as_str())
        || value.parse::<f64>().is_ok()
}

/// A column as text; NULL as `None`. Never fails, whatever the server sends.
fn text(value: Value) -> Option<String> {
    match value {
        Value::NULL => None,
        Value::Bytes(bytes) => Some(String::from_utf8_lossy(&bytes).into_owned()),
        other => Some(other.as_sql(true).trim_matches('\'').to_string()),
    }
}

/// Which of the globals `names` (all shown empty) are NULL, asked in one statement so
/// that a snapshot adds one SELECT to the server's counters, not one per variable; one
/// by one when the server refuses the whole list.
fn null_ones(conn: &mut mysql::Conn, names: &[&str]) -> BTreeSet<String> {
    let names: Vec<&str> = names.iter().copied().filter(|n| is_plain_name(n)).collect();
    if names.is_empty() {
        return BTreeSet::new();
    }
    let columns: Vec<String> = names
        .iter()
        .map(|n| format!("@@GLOBAL.{n} IS NULL"))
        .collect();
    let row: Result<Option<mysql::Row>, _> =
        conn.query_first(format!("SELECT {}", columns.join(", ")));
    match row {
        Ok(Some(row)) => names
            .iter()
            .enumerate()
            .filter(|(i, _)| row.get_opt::<i64, _>(*i).and_then(Result::ok) == Some(1))
            .map(|(_, n)| n.to_string())
            .collect(),
        _ => names
            .iter()
            .filter(|n| is_null(conn, n))
            .map(|n| n.to_string())
            .collect(),
    }
}

/// Whether the global `name` is NULL (`SELECT @@GLOBAL.name`); false when it cannot be
/// asked.
fn is_null(conn: &mut mysql::Conn, name: &str) -> bool {
    if !is_plain_name(name) {
        return false;
    }
    matches!(
        conn.query_first::<Value, _>(format!("SELECT @@GLOBAL.{name}")),
        Ok(Some(Value::NULL))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_credential_is_masked_in_the_snapshot_and_a_switch_under_such_a_name_is_kept() {
        assert_eq!(
            saved_value("hashicorp_key_management_token", "s.abc".into()),
            crate::secret::MASK
        );
        assert_eq!(
            saved_value("disconnect_on_expired_password", "OFF".into()),
            "OFF"
        );
        assert_eq!(saved_value("max_connections", "151".into()), "151");
    }

    #[test]
    fn names_are_checked_before_they_reach_a_statement() {
        assert!(is_plain_name("collation_server"));
        assert!(is_plain_name("BLACKHOLE"));
        for bad in ["", "x = 1", "a;b", "a.b", "`a`", "a-b"] {
            assert!(!is_plain_name(bad), "{bad}");
        }
    }

    #[test]
    fn every_moving_variable_says_why() {
        for (name, why) in MOVING {
            assert!(is_plain_name(name) && !why.is_empty(), "{name}");
        }
        assert!(moves_by_itself("gtid_binlog_pos"));
        assert!(!moves_by_itself("collation_server"));
    }

    #[test]
    fn columns_read_as_text_without_failing() {
        assert_eq!(text(Value::NULL), None);
        assert_eq!(text(Value::Bytes(b"ON".to_vec())), Some("ON".into()));
        assert_eq!(text(Value::Int(-3)), Some("-3".into()));
        assert_eq!(text(Value::Bytes(vec![0xff])), Some("\u{fffd}".into()));
    }
}
