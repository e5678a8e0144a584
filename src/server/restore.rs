//! Putting a server back as its [`GlobalSnapshot`] says it was: what differs now is
//! turned into steps (plugins first, then variables, those that move others first), the
//! steps are applied, and the server is read again — a second and a third pass put back
//! what a step's side effect moved. Whatever still differs after that is named with the
//! server's reason: the caller warns, records it, and exits non-zero.

use std::collections::BTreeMap;

use mysql::Value;
use mysql::prelude::Queryable;

use super::globals::{GlobalSnapshot, MASKED, moves_by_itself};
use crate::db::ConnectSpec;
use crate::db::{is_plain_name, quoted_identifier};

/// The server's error for a read-only variable.
const READ_ONLY: u16 = 1238;
/// The server's error for a missing privilege.
const ACCESS_DENIED: u16 = 1227;

/// Passes of apply-and-read-again: one, and two for what a step moved as a side effect.
const PASSES: usize = 3;

/// One thing to do to put a server back, or one that no statement can.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    /// A plugin installed since the snapshot: `UNINSTALL PLUGIN`.
    Uninstall { plugin: String, library: String },
    /// A plugin removed since the snapshot: `INSTALL PLUGIN … SONAME`.
    Install { plugin: String, library: String },
    /// A variable whose value changed: `SET GLOBAL`.
    Set {
        name: String,
        was: Option<String>,
        now: Option<String>,
    },
    /// A difference no statement puts back, and why.
    Cannot { what: String, why: String },
}

impl Step {
    /// The statement that puts this back, as it is shown (a value is sent apart from the
    /// statement when it is applied).
    pub(crate) fn sql(&self) -> Option<String> {
        match self {
            Step::Uninstall { plugin, .. } => Some(format!("UNINSTALL PLUGIN {plugin}")),
            Step::Install { plugin, library } => {
                Some(format!("INSTALL PLUGIN {plugin} SONAME '{library}'"))
            }
            Step::Set { name, was, .. } => Some(format!("SET GLOBAL {name} = {}", literal(was))),
            Step::Cannot { .. } => None,
        }
    }

    /// The variable or plugin it is about, which pairs a failure with the same step in a
    /// later pass.
    fn key(&self) -> String {
        match self {
            Step::Uninstall { plugin, .. } | Step::Install { plugin, .. } => {
                format!("plugin {plugin}")
            }
            Step::Set { name, .. } => name.clone(),
            Step::Cannot { what, .. } => what.clone(),
        }
    }

    /// The difference in words: what it is now and what it was.
    pub(crate) fn difference(&self) -> String {
        match self {
            Step::Uninstall { plugin, library } => {
                format!("plugin {plugin} ({library}) was installed since")
            }
            Step::Install { plugin, library } => {
                format!("plugin {plugin} ({library}) was uninstalled since")
            }
            Step::Set { name, was, now } => {
                format!("{name} is {}, was {}", shown(now), shown(was))
            }
            Step::Cannot { what, why } => format!("{what} {why}"),
        }
    }

    /// The message once the step is done.
    fn done(&self) -> String {
        match self {
            Step::Uninstall { plugin, .. } => {
                format!("uninstalled plugin {plugin}, installed after the snapshot")
            }
            Step::Install { plugin, library } => {
                format!("installed plugin {plugin} again from {library}")
            }
            Step::Set { name, was, now } => {
                format!("restored {name} from {} to {}", shown(now), shown(was))
            }
            Step::Cannot { .. } => String::new(),
        }
    }

    /// The message for a difference that remains, with the server's reason when a step
    /// failed.
    fn left(&self, error: Option<&(u16, String)>) -> String {
        let fix = match (self, error.map(|e| e.0)) {
            (Step::Cannot { .. }, _) | (_, Some(READ_ONLY)) => {
                "only a restart with the original configuration puts it back"
            }
            (_, Some(ACCESS_DENIED)) => {
                "run the statement, or `abtest restore` on the results file, as a user \
                 allowed to (SUPER)"
            }
            _ => "run the statement by hand",
        };
        let error = error.map(|e| &e.1);
        let statement = self
            .sql()
            .map(|sql| format!(" (`{sql}`)"))
            .unwrap_or_default();
        match error {
            Some(error) => format!(
                "could not put back: {}{statement}: {error}; {fix}",
                self.difference()
            ),
            None => format!(
                "could not put back: {}{statement}; {fix}",
                self.difference()
            ),
        }
    }
}

/// A value as a person reads it: NULL, a number, or a quoted string.
fn shown(value: &Option<String>) -> String {
    match value {
        None => "NULL".into(),
        Some(v) => v.clone(),
    }
}

/// A value as SQL: NULL, a number as it is, anything else quoted.
fn literal(value: &Option<String>) -> String {
    match value {
        None => "NULL".into(),
        Some(v) if number(v).is_some() => v.clone(),
        Some(v) => format!("'{}'", v.replace('\\', "\\\\").replace('\'', "''")),
    }
}

/// A value that reads as a number, as the number the server expects for a numeric
/// variable (it refuses a quoted one).
pub(crate) fn number(text: &str) -> Option<Value> {
    if let Ok(n) = text.parse::<i64>() {
        return Some(Value::Int(n));
    }
    if let Ok(n) = text.parse::<u64>() {
        return Some(Value::UInt(n));
    }
    let numeric = text
        .bytes()
        .all(|b| b.is_ascii_digit() || b == b'.' || b == b'-');
    match text.parse::<f64>() {
        Ok(n) if numeric && n.is_finite() => Some(Value::Double(n)),
        _ => None,
    }
}

/// Variables whose change moves others go first: a character set resets its collation
/// (and a collation sets its character set, so the collation is set after it), and
/// `max_join_size` resets `sql_big_selects`.
fn rank(name: &str) -> u8 {
    if name.starts_with("character_set_") || name == "max_join_size" {
        0
    } else if name.starts_with("collation_") || name == "sql_big_selects" {
        2
    } else {
        1
    }
}

/// Everything that differs between `before` and `now`, as the steps that put it back, in
/// the order to run them: plugins, then variables by [`rank`], then what no step can do.
pub(crate) fn steps(before: &GlobalSnapshot, now: &GlobalSnapshot) -> Vec<Step> {
    let mut plugins = plugin_steps(before, now);
    let plugins_move = plugins
        .iter()
        .any(|s| matches!(s, Step::Uninstall { .. } | Step::Install { .. }));
    let mut variables = variable_steps(before, now, plugins_move);
    variables.sort_by(|a, b| match (a, b) {
        (Step::Set { name: x, .. }, Step::Set { name: y, .. }) => (rank(x), x).cmp(&(rank(y), y)),
        _ => matches!(a, Step::Cannot { .. }).cmp(&matches!(b, Step::Cannot { .. })),
    });
    plugins.sort_by_key(|s| match s {
        Step::Uninstall { .. } => 0,
        Step::Install { .. } => 1,
        _ => 2,
    });
    let (mut first, cannot): (Vec<Step>, Vec<Step>) = plugins
        .into_iter()
        .partition(|s| !matches!(s, Step::Cannot { .. }));
    first.extend(variables);
    first.extend(cannot);
    first
}

/// Plugins installed or removed since the snapshot, or changed in status.
fn plugin_steps(before: &GlobalSnapshot, now: &GlobalSnapshot) -> Vec<Step> {
    let mut steps = Vec::new();
    for (plugin, state) in &now.plugins {
        if before.plugins.contains_key(plugin) {
            continue;
        }
        steps.push(match &state.library {
            Some(library) if is_plain_name(plugin) && is_library(library) => Step::Uninstall {
                plugin: plugin.clone(),
                library: library.clone(),
            },
            _ => Step::Cannot {
                what: format!("plugin {plugin}"),
                why: "was installed since, and cannot be uninstalled by name".into(),
            },
        });
    }
    for (plugin, state) in &before.plugins {
        match (now.plugins.get(plugin), &state.library) {
            (None, Some(library)) if is_plain_name(plugin) && is_library(library) => {
                steps.push(Step::Install {
                    plugin: plugin.clone(),
                    library: library.clone(),
                });
            }
            (None, _) => steps.push(Step::Cannot {
                what: format!("plugin {plugin}"),
                why: "was removed since and is built into the server".into(),
            }),
            (Some(current), _) if current.status != state.status => steps.push(Step::Cannot {
                what: format!("plugin {plugin}"),
                why: format!("is {}, was {}", current.status, state.status),
            }),
            _ => {}
        }
    }
    steps
}

/// A plugin library's file name, safe inside quotes (the server refuses paths anyway).
fn is_library(library: &str) -> bool {
    !library.is_empty()
        && library
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_.-".contains(&b))
}

/// Variables changed, gone or new since the snapshot. A variable gone or new while a
/// plugin comes or goes is the plugin's: it follows the plugin step.
fn variable_steps(before: &GlobalSnapshot, now: &GlobalSnapshot, plugins_move: bool) -> Vec<Step> {
    let compared = |name: &str, value: &Option<String>| {
        !moves_by_itself(name)
            && value.as_deref() != Some(MASKED)
            && value.as_deref() != Some(crate::secret::MASK)
    };
    let mut steps = Vec::new();
    for (name, was) in &before.variables {
        if !compared(name, was) {
            continue;
        }
        match now.variables.get(name) {
            Some(current) if current == was => {}
            Some(current) if is_plain_name(name) => steps.push(Step::Set {
                name: name.clone(),
                was: was.clone(),
                now: current.clone(),
            }),
            Some(_) => steps.push(Step::Cannot {
                what: format!("variable {name:?}"),
                why: "changed, and its name is not a variable name".into(),
            }),
            None if plugins_move => {}
            None => steps.push(Step::Cannot {
                what: format!("variable {name}"),
                why: "no longer exists".into(),
            }),
        }
    }
    if !plugins_move {
        for (name, value) in &now.variables {
            if !before.variables.contains_key(name) && compared(name, value) {
                steps.push(Step::Cannot {
                    what: format!("variable {name}"),
                    why: "appeared since".into(),
                });
            }
        }
    }
    steps
}

/// What a restore did and what it could not do.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Outcome {
    /// Each step done, in words.
    pub(crate) restored: Vec<String>,
    /// Each difference that remains, with why.
    pub(crate) left: Vec<String>,
}

/// Connects and puts the server back as `before` says it was.
pub(crate) fn restore_server(connect: &ConnectSpec, before: &GlobalSnapshot) -> Outcome {
    let outcome = connect
        .connect()
        .and_then(|mut conn| restore(&mut conn, before));
    outcome.unwrap_or_else(|e| Outcome {
        restored: Vec::new(),
        left: vec![format!(
            "could not put back the global variables and plugins: {}",
            crate::db::errors::describe(&e)
        )],
    })
}

/// Applies [`steps`] until nothing is left to do or [`PASSES`] are done, then names
/// what still differs.
pub(crate) fn restore(
    conn: &mut mysql::Conn,
    before: &GlobalSnapshot,
) -> Result<Outcome, mysql::Error> {
    let mut outcome = Outcome::default();
    let mut errors: BTreeMap<String, (u16, String)> = BTreeMap::new();
    for _ in 0..PASSES {
        let now = GlobalSnapshot::read(conn)?;
        let todo: Vec<Step> = steps(before, &now)
            .into_iter()
            .filter(|s| !matches!(s, Step::Cannot { .. }))
            .collect();
        if todo.is_empty() {
            break;
        }
        for step in todo {
            match apply(conn, &step) {
                Ok(()) => {
                    errors.remove(&step.key());
                    let done = step.done();
                    if !outcome.restored.contains(&done) {
                        outcome.restored.push(done);
                    }
                }
                Err(e) => {
                    let error = (crate::db::error_code(&e), crate::db::errors::describe(&e));
                    errors.insert(step.key(), error);
                }
            }
        }
    }
    let now = GlobalSnapshot::read(conn)?;
    outcome.left = steps(before, &now)
        .iter()
        .map(|s| s.left(errors.get(&s.key())))
        .collect();
    outcome.left.extend(left_acting(before, &now));
    Ok(outcome)
}

/// Events and triggers made since the snapshot, with the statement that drops each:
/// they would act after the run (an event setting a global after the restore), so the
/// server is not as it was; abtest does not drop them itself, since on a shared server
/// another client may have made one meanwhile.
pub(crate) fn left_acting(before: &GlobalSnapshot, now: &GlobalSnapshot) -> Vec<String> {
    now.acting_objects
        .difference(&before.acting_objects)
        .map(|object| {
            let (kind, name) = object.split_once(' ').unwrap_or(("OBJECT", object));
            // An account is saved quoted already ('u'@'h'); a schema object is `db.name`.
            let target = if kind == "USER" {
                name.to_string()
            } else {
                let quoted: Vec<String> = name.splitn(2, '.').map(quoted_identifier).collect();
                quoted.join(".")
            };
            format!(
                "{} {name} was made after the snapshot (by a hook, or another client) and would \
                 act after the run; drop it if it is not wanted: DROP {kind} {target};",
                kind.to_ascii_lowercase(),
            )
        })
        .collect()
}

/// Runs one step. A value is sent as a parameter, typed as a number when it reads as one
/// (a numeric variable refuses a string) and as a string otherwise or when the number is
/// refused; NULL falls back to DEFAULT where a variable refuses NULL.
fn apply(conn: &mut mysql::Conn, step: &Step) -> Result<(), mysql::Error> {
    match step {
        Step::Set { name, was, .. } => {
            let sql = format!("SET GLOBAL {name} = ?");
            match was.as_deref() {
                None => conn
                    .exec_drop(&sql, (Value::NULL,))
                    .or_else(|_| conn.query_drop(format!("SET GLOBAL {name} = DEFAULT"))),
                Some(text) => match number(text) {
                    Some(n) => conn
                        .exec_drop(&sql, (n,))
                        .or_else(|_| conn.exec_drop(&sql, (text,))),
                    None => conn.exec_drop(&sql, (text,)),
                },
            }
        }
        Step::Uninstall { .. } | Step::Install { .. } => {
            conn.query_drop(step.sql().unwrap_or_default())
        }
        Step::Cannot { .. } => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::super::globals::Plugin;
    use super::*;

    fn snapshot(
        variables: &[(&str, Option<&str>)],
        plugins: &[(&str, Option<&str>)],
    ) -> GlobalSnapshot {
        GlobalSnapshot {
            taken_at: String::new(),
            variables: variables
                .iter()
                .map(|(n, v)| (n.to_string(), v.map(str::to_string)))
                .collect(),
            plugins: plugins
                .iter()
                .map(|(n, l)| {
                    let plugin = Plugin {
                        status: "ACTIVE".into(),
                        library: l.map(str::to_string),
                    };
                    (n.to_string(), plugin)
                })
                .collect(),
            acting_objects: Default::default(),
        }
    }

    #[test]
    fn an_event_or_trigger_made_since_the_snapshot_is_named_with_its_drop() {
        let before = snapshot(&[], &[]);
        let mut now = snapshot(&[], &[]);
        now.acting_objects.insert("EVENT sbtest.ev1".into());
        now.acting_objects.insert("TRIGGER sbtest.t`x".into());
        now.acting_objects.insert("USER 'evil'@'%'".into());
        let left = left_acting(&before, &now);
        assert_eq!(left.len(), 3);
        assert!(left[2].contains("DROP USER 'evil'@'%';"), "{}", left[2]);
        assert!(
            left[0].contains("DROP EVENT `sbtest`.`ev1`;"),
            "{}",
            left[0]
        );
        assert!(
            left[1].contains("DROP TRIGGER `sbtest`.`t``x`;"),
            "{}",
            left[1]
        );
        assert!(left_acting(&now, &now).is_empty());
    }

    fn sql(steps: &[Step]) -> Vec<String> {
        steps
            .iter()
            .map(|s| s.sql().unwrap_or_else(|| s.difference()))
            .collect()
    }

    #[test]
    fn nothing_differs_nothing_to_do() {
        let before = snapshot(&[("a", Some("1"))], &[("InnoDB", None)]);
        assert!(steps(&before, &before).is_empty());
    }

    #[test]
    fn a_character_set_goes_before_its_collation_whatever_the_names_order() {
        let before = snapshot(
            &[
                ("collation_server", Some("utf8mb4_general_ci")),
                ("character_set_server", Some("utf8mb4")),
                ("collation_connection", Some("utf8mb4_general_ci")),
                ("max_connections", Some("151")),
            ],
            &[],
        );
        let now = snapshot(
            &[
                ("collation_server", Some("latin1_swedish_ci")),
                ("character_set_server", Some("latin1")),
                ("collation_connection", Some("latin1_bin")),
                ("max_connections", Some("10")),
            ],
            &[],
        );
        assert_eq!(
            sql(&steps(&before, &now)),
            [
                "SET GLOBAL character_set_server = 'utf8mb4'",
                "SET GLOBAL max_connections = 151",
                "SET GLOBAL collation_connection = 'utf8mb4_general_ci'",
                "SET GLOBAL collation_server = 'utf8mb4_general_ci'",
            ]
        );
    }

    #[test]
    fn a_null_original_is_set_back_to_null_and_an_unset_one_to_its_value() {
        let before = snapshot(&[("enforce_storage_engine", None)], &[]);
        let now = snapshot(&[("enforce_storage_engine", Some("InnoDB"))], &[]);
        assert_eq!(
            sql(&steps(&before, &now)),
            ["SET GLOBAL enforce_storage_engine = NULL"]
        );
        assert_eq!(
            sql(&steps(&now, &before)),
            ["SET GLOBAL enforce_storage_engine = 'InnoDB'"]
        );
    }

    #[test]
    fn plugins_come_first_and_their_variables_follow_them() {
        let before = snapshot(
            &[("a", Some("1")), ("blackhole_x", Some("1"))],
            &[("BLACKHOLE", Some("ha_blackhole.so")), ("InnoDB", None)],
        );
        let now = snapshot(
            &[
                ("a", Some("2")),
                ("simple_password_check_digits", Some("1")),
            ],
            &[
                ("simple_password_check", Some("simple_password_check.so")),
                ("InnoDB", None),
            ],
        );
        assert_eq!(
            sql(&steps(&before, &now)),
            [
                "UNINSTALL PLUGIN simple_password_check",
                "INSTALL PLUGIN BLACKHOLE SONAME 'ha_blackhole.so'",
                "SET GLOBAL a = 1",
            ]
        );
    }

    #[test]
    fn what_no_statement_puts_back_is_named() {
        let before = snapshot(&[("gone", Some("1"))], &[("InnoDB", None)]);
        let now = snapshot(&[("new", Some("1"))], &[]);
        let steps = steps(&before, &now);
        let said: Vec<String> = steps.iter().map(|s| s.left(None)).collect();
        assert_eq!(said.len(), 3, "{said:?}");
        assert!(
            said[0].contains("variable gone no longer exists"),
            "{said:?}"
        );
        assert!(said[1].contains("variable new appeared since"), "{said:?}");
        assert!(said[2].contains("plugin InnoDB was removed"), "{said:?}");
    }

    #[test]
    fn moving_and_masked_variables_are_left_out() {
        let before = snapshot(
            &[
                ("gtid_binlog_pos", Some("")),
                ("wsrep_sst_auth", Some(MASKED)),
            ],
            &[],
        );
        let now = snapshot(
            &[
                ("gtid_binlog_pos", Some("0-1-9")),
                ("wsrep_sst_auth", Some("x")),
            ],
            &[],
        );
        assert!(steps(&before, &now).is_empty());
    }

    #[test]
    fn a_name_or_library_from_a_file_never_reaches_a_statement_unchecked() {
        let before = snapshot(&[("x = 1; DROP", Some("1"))], &[("p", Some("../x.so'"))]);
        let now = snapshot(&[("x = 1; DROP", Some("2"))], &[]);
        let steps = steps(&before, &now);
        assert!(steps.iter().all(|s| s.sql().is_none()), "{steps:?}");
    }

    #[test]
    fn values_are_typed_as_the_server_wants_them() {
        assert_eq!(number("151"), Some(Value::Int(151)));
        assert_eq!(number("18446744073709551615"), Some(Value::UInt(u64::MAX)));
        assert_eq!(number("10.000000"), Some(Value::Double(10.0)));
        for text in ["ON", "", "1e3", "inf", "NaN", "0-1-2x"] {
            assert_eq!(number(text), None, "{text}");
        }
        assert_eq!(literal(&Some("it's\\".into())), "'it''s\\\\'");
    }
}
