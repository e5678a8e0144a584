//! Both sides on one running server: what must change between a baseline round and a
//! variant round, and the proof before each round that it did. Whether an option can
//! change while the server runs is the server's own answer — its row in
//! `information_schema.SYSTEM_VARIABLES` and its `READ_ONLY` column, or for a plugin
//! library whether `INSTALL SONAME` takes it and `UNINSTALL SONAME` lets it go without
//! a warning — never a list kept here. Every value the rounds depend on is read back
//! after it is set, so a setting the server quietly refused or rounded cannot pass for
//! the one the profile asked for.

use std::collections::{BTreeMap, BTreeSet};

use mysql::Value;
use mysql::prelude::Queryable;

use crate::side::Side;

/// A `[server.options]` key the two profiles set differently (or only one sets), with
/// each side's value (`None`: the side leaves it at the server's default).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OptionDifference {
    /// The name as the server resolves it: lower case, `_` for `-`, no `loose_`.
    pub(crate) name: String,
    /// Baseline's and variant's value.
    pub(crate) values: [Option<String>; 2],
}

impl OptionDifference {
    /// Whether this is a plugin library to load (`plugin_load_add`, `plugin_load`).
    pub(crate) fn is_plugin_load(&self) -> bool {
        matches!(self.name.as_str(), "plugin_load_add" | "plugin_load")
    }
}

/// What one variable is set to on a side.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Setting {
    /// The profile's value.
    To(String),
    /// The server's compiled default (`SET GLOBAL … = DEFAULT`): the side leaves it.
    Default,
    /// Nothing: the variable belongs to a plugin this side runs without.
    Absent,
}

/// A variable the sides set differently: what each sets and what the server reads
/// back once it is set.
#[derive(Debug, Clone)]
struct Switch {
    name: String,
    set: [Setting; 2],
    expect: [String; 2],
    /// The library of the plugin the variable belongs to, if any.
    plugin: Option<String>,
}

/// A plugin library one side loads and the other does not.
#[derive(Debug, Clone)]
struct PluginSwitch {
    /// The library as `INSTALL SONAME` names it.
    library: String,
    /// The side whose profile loads it.
    on: Side,
    /// Why it stays loaded for both sides, when `UNINSTALL SONAME` does not let it go
    /// cleanly (the server's own warning): the other side then runs with it switched off.
    kept: Option<String>,
}

/// What changes between the sides on the one shared server.
#[derive(Debug, Clone, Default)]
pub(crate) struct Switches {
    variables: Vec<Switch>,
    plugins: Vec<PluginSwitch>,
}

/// What the server said about sharing it.
#[derive(Debug)]
pub(crate) enum Discovered {
    /// Every difference changes at runtime: these are put in place before each round.
    Shared(Switches),
    /// This difference needs a restart, so each side needs its own server.
    Separate(String),
}

/// Each variable's `READ_ONLY` flag, by lower-case name.
fn catalog(conn: &mut mysql::Conn) -> Result<BTreeMap<String, bool>, mysql::Error> {
    let rows: Vec<(String, String)> = conn
        .query("SELECT LOWER(VARIABLE_NAME), READ_ONLY FROM information_schema.SYSTEM_VARIABLES")?;
    Ok(rows.into_iter().map(|(n, ro)| (n, ro == "YES")).collect())
}

/// The libraries a `plugin_load_add` value loads (`lib`, `name=lib`, `;`-separated),
/// as `PLUGIN_LIBRARY` names them.
fn libraries(value: Option<&str>) -> BTreeSet<String> {
    value
        .unwrap_or_default()
        .split(';')
        .map(|item| item.rsplit('=').next().unwrap_or(item).trim())
        .filter(|lib| !lib.is_empty())
        .map(|lib| {
            if lib.ends_with(".so") {
                lib.to_string()
            } else {
                format!("{lib}.so")
            }
        })
        .collect()
}

/// Whether a library name can be written in `INSTALL SONAME '…'` as it is.
fn is_plain_library(lib: &str) -> bool {
    lib.bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

fn installed(conn: &mut mysql::Conn, library: &str) -> Result<bool, mysql::Error> {
    let found: Option<String> = conn.exec_first(
        "SELECT PLUGIN_NAME FROM information_schema.PLUGINS WHERE PLUGIN_LIBRARY = ?",
        (library,),
    )?;
    Ok(found.is_some())
}

/// The warnings of the last statement, in words.
fn warnings(conn: &mut mysql::Conn) -> Result<Vec<String>, mysql::Error> {
    let rows: Vec<(String, u32, String)> = conn.query("SHOW WARNINGS")?;
    Ok(rows
        .into_iter()
        .map(|(level, code, message)| format!("{level} {code}: {message}"))
        .collect())
}

impl Switches {
    /// Asks the running server, started with the baseline's options, whether each
    /// difference can be changed while it runs; tries each plugin library on and off.
    /// Leaves the server in the baseline's state. `defaults_file`: the sides start from a
    /// my.cnf, whose value a side that names no value would get only at start-up.
    pub(crate) fn discover(
        conn: &mut mysql::Conn,
        differences: &[OptionDifference],
        defaults_file: bool,
    ) -> Result<Discovered, mysql::Error> {
        let mut switches = Switches::default();
        let mut plugin_variables: BTreeMap<String, usize> = BTreeMap::new();
        let mut plugin_catalog: BTreeMap<String, bool> = BTreeMap::new();
        for difference in differences.iter().filter(|d| d.is_plugin_load()) {
            let libs = difference.values.clone().map(|v| libraries(v.as_deref()));
            for side in Side::BOTH {
                let other = &libs[1 - side as usize];
                for library in libs[side as usize].difference(other) {
                    let tried = try_plugin(conn, library, side)?;
                    let (plugin, variables) = match tried {
                        Ok(found) => found,
                        Err(reason) => return Ok(Discovered::Separate(reason)),
                    };
                    for (name, read_only) in variables {
                        plugin_variables.insert(name.clone(), switches.plugins.len());
                        plugin_catalog.insert(name, read_only);
                    }
                    switches.plugins.push(plugin);
                }
            }
        }
        // The server's variables now, and those of the plugins tried, which a plugin
        // that unloads cleanly no longer shows.
        let mut catalog = catalog(conn)?;
        catalog.extend(plugin_catalog);
        for difference in differences.iter().filter(|d| !d.is_plugin_load()) {
            let plugin = plugin_variables
                .get(&difference.name)
                .map(|&i| &switches.plugins[i]);
            match variable_switch(difference, &catalog, plugin, defaults_file) {
                Ok(switch) => switches.variables.push(switch),
                Err(reason) => return Ok(Discovered::Separate(reason)),
            }
        }
        if let Some(reason) = switches.unswitchable_plugin() {
            return Ok(Discovered::Separate(reason));
        }
        for side in [Side::Variant, Side::Baseline] {
            if let Some(reason) = switches.settle(conn, side)? {
                return Ok(Discovered::Separate(reason));
            }
        }
        Ok(Discovered::Shared(switches))
    }

    /// A kept plugin whose side sets none of its variables: the other side could not
    /// run with it switched off.
    fn unswitchable_plugin(&self) -> Option<String> {
        self.plugins.iter().find_map(|p| {
            let why = p.kept.as_ref()?;
            let switched = self.variables.iter().any(|v| {
                v.plugin.as_deref() == Some(p.library.as_str())
                    && v.set[1 - p.on as usize] == Setting::Default
            });
            (!switched).then(|| {
                format!(
                    "the {} loads {}, which the server does not unload cleanly ({why}), and \
                     sets none of its variables, so the {} could not run with it switched off",
                    p.on,
                    p.library,
                    p.on.other()
                )
            })
        })
    }

    /// Puts `side`'s state in place for the first time and records what the server reads
    /// back; a value the server does not take as given is a reason for two servers.
    fn settle(
        &mut self,
        conn: &mut mysql::Conn,
        side: Side,
    ) -> Result<Option<String>, mysql::Error> {
        // A variable the catalog calls dynamic may still be refused in this server's
        // state (max_user_connections on a server started with 0): only a start-up sets it.
        match self.apply(conn, side) {
            Err(e @ mysql::Error::MySqlError(_)) => {
                return Ok(Some(format!(
                    "the server refuses the {side}'s settings while it runs ({}), so only a \
                     start-up gives them",
                    crate::db::errors::describe(&e)
                )));
            }
            other => other?,
        }
        for switch in &mut self.variables {
            // A compiled default may be sized at start-up, unlike what DEFAULT sets: only
            // a value the profile names is waited for.
            let target = match &switch.set[side as usize] {
                Setting::To(value) => Some(value.clone()),
                Setting::Default | Setting::Absent => None,
            };
            let read = settled(conn, &switch.name, |read| {
                target.as_deref().is_none_or(|t| same_setting(t, read))
            })?;
            if let Setting::To(value) = &switch.set[side as usize]
                && !same_setting(value, &read)
            {
                return Ok(Some(format!(
                    "the server reads `{}` back as '{read}' after it is set to '{value}' \
                     while it runs, so only a start-up gives the {side} its value",
                    switch.name
                )));
            }
            switch.expect[side as usize] = read;
        }
        Ok(None)
    }

    /// Sets `side`'s plugins and variables.
    fn apply(&self, conn: &mut mysql::Conn, side: Side) -> Result<(), mysql::Error> {
        for plugin in &self.plugins {
            let want = plugin.kept.is_some() || plugin.on == side;
            let have = installed(conn, &plugin.library)?;
            if want && !have {
                conn.query_drop(format!("INSTALL SONAME '{}'", plugin.library))?;
            } else if !want && have {
                conn.query_drop(format!("UNINSTALL SONAME '{}'", plugin.library))?;
            }
        }
        for switch in &self.variables {
            let name = &switch.name;
            match &switch.set[side as usize] {
                Setting::To(value) => set_global(conn, name, value)?,
                Setting::Default => conn.query_drop(format!("SET GLOBAL {name} = DEFAULT"))?,
                Setting::Absent => {}
            }
        }
        Ok(())
    }

    /// Puts `side`'s settings in place before one of its rounds and reads every one back:
    /// what the server holds, by variable (and `plugin <library>`). A value other than
    /// the one the side ran with before is an error: the round would not measure the side.
    pub(crate) fn put_in_place(
        &self,
        conn: &mut mysql::Conn,
        side: Side,
    ) -> anyhow::Result<BTreeMap<String, String>> {
        self.apply(conn, side)
            .map_err(|e| anyhow::anyhow!("{side}: putting its settings in place: {e}"))?;
        let mut read = BTreeMap::new();
        for plugin in &self.plugins {
            let have = installed(conn, &plugin.library)?;
            let want = plugin.kept.is_some() || plugin.on == side;
            if have != want {
                anyhow::bail!(
                    "{side}: the shared server {} the plugin library {} after it was {}",
                    if have { "still has" } else { "does not have" },
                    plugin.library,
                    if want { "installed" } else { "uninstalled" }
                );
            }
            let state = if have { "loaded" } else { "not loaded" };
            read.insert(format!("plugin {}", plugin.library), state.to_string());
        }
        for switch in &self.variables {
            if switch.set[side as usize] == Setting::Absent {
                continue;
            }
            let expected = &switch.expect[side as usize];
            let now = settled(conn, &switch.name, |read| read == expected)?;
            if &now != expected {
                anyhow::bail!(
                    "{side}: the shared server reads `{}` back as '{now}' where the {side} runs \
                     with '{expected}'; the round is not run, since it would not measure the {side}",
                    switch.name
                );
            }
            read.insert(switch.name.clone(), now);
        }
        Ok(read)
    }

    /// [`Switches::put_in_place`] over a new administrator connection to `admin`.
    pub(crate) fn put_in_place_at(
        &self,
        admin: &crate::db::ConnectSpec,
        side: Side,
    ) -> anyhow::Result<BTreeMap<String, String>> {
        let mut conn = admin
            .connect()
            .map_err(|e| anyhow::anyhow!("{side}: connecting to the shared server: {e}"))?;
        self.put_in_place(&mut conn, side)
    }

    /// What changes between the sides, one line each, as the server reads it back.
    pub(crate) fn lines(&self) -> Vec<String> {
        let shown = |s: &Switch, side: Side| match &s.set[side as usize] {
            Setting::Absent => "(no plugin)".to_string(),
            Setting::Default => format!("{} (default)", s.expect[side as usize]),
            Setting::To(_) => s.expect[side as usize].clone(),
        };
        let mut lines: Vec<String> = self
            .plugins
            .iter()
            .map(|p| match &p.kept {
                None => format!(
                    "plugin {}: installed before each {} round, uninstalled before each {} round",
                    p.library,
                    p.on,
                    p.on.other()
                ),
                Some(why) => format!(
                    "plugin {}: loaded for both sides, since the server does not unload it \
                     cleanly ({why}); the {} runs with it switched off (its variables at \
                     their defaults)",
                    p.library,
                    p.on.other()
                ),
            })
            .collect();
        lines.extend(self.variables.iter().map(|s| {
            format!(
                "{}: baseline {}, variant {}",
                s.name,
                shown(s, Side::Baseline),
                shown(s, Side::Variant)
            )
        }));
        lines
    }

    /// Plugins loaded for a side whose profile does not load them, in words.
    pub(crate) fn kept_plugins(&self) -> Vec<String> {
        self.plugins
            .iter()
            .filter(|p| p.kept.is_some())
            .map(|p| {
                format!(
                    "the {} ran with {} loaded and switched off: the server does not unload it \
                     cleanly, so one server could not run without it",
                    p.on.other(),
                    p.library
                )
            })
            .collect()
    }
}

/// A plugin library tried on and off: how it switches, and its variables with their
/// `READ_ONLY` flags.
type Tried = (PluginSwitch, BTreeMap<String, bool>);

/// Installs `library` if it is not, then tries to uninstall it: the variables it brings,
/// and whether it goes cleanly. Leaves it as the baseline has it.
fn try_plugin(
    conn: &mut mysql::Conn,
    library: &str,
    on: Side,
) -> Result<Result<Tried, String>, mysql::Error> {
    if !is_plain_library(library) {
        return Ok(Err(format!(
            "the {on} loads the plugin library '{library}', whose name abtest does not \
             install at runtime"
        )));
    }
    let install = format!("INSTALL SONAME '{library}'");
    if !installed(conn, library)?
        && let Err(e) = conn.query_drop(&install)
    {
        return Ok(Err(format!(
            "the {on} loads the plugin library {library}, which the server does not \
             install while it runs ({})",
            crate::db::errors::describe(&e)
        )));
    }
    // A plugin's variables are named for it (`server_audit_logging` for SERVER_AUDIT):
    // the server prefixes them so. Read while it is loaded, with their READ_ONLY flags.
    let names: Vec<String> = conn.exec(
        "SELECT LOWER(PLUGIN_NAME) FROM information_schema.PLUGINS WHERE PLUGIN_LIBRARY = ?",
        (library,),
    )?;
    let variables: BTreeMap<String, bool> = catalog(conn)?
        .into_iter()
        .filter(|(name, _)| names.iter().any(|p| name.starts_with(&format!("{p}_"))))
        .collect();
    let uninstalled = conn.query_drop(format!("UNINSTALL SONAME '{library}'"));
    let refused = match uninstalled {
        Ok(()) => warnings(conn)?.into_iter().next(),
        Err(e) => Some(crate::db::errors::describe(&e)),
    };
    let kept = match refused {
        Some(why) => Some(why),
        None if installed(conn, library)? => Some("it is still listed after UNINSTALL".into()),
        None => None,
    };
    let wanted = kept.is_some() || on == Side::Baseline;
    if wanted
        && !installed(conn, library)?
        && let Err(e) = conn.query_drop(&install)
    {
        return Ok(Err(format!(
            "the plugin library {library} cannot be installed again after UNINSTALL ({})",
            crate::db::errors::describe(&e)
        )));
    }
    Ok(Ok((
        PluginSwitch {
            library: library.to_string(),
            on,
            kept,
        },
        variables,
    )))
}

/// How one differing variable is switched, or why it cannot be at runtime.
fn variable_switch(
    difference: &OptionDifference,
    catalog: &BTreeMap<String, bool>,
    plugin: Option<&PluginSwitch>,
    defaults_file: bool,
) -> Result<Switch, String> {
    let name = &difference.name;
    match catalog.get(name) {
        None => {
            return Err(format!(
                "`{name}` is no variable the server can set while it runs \
                 (information_schema.SYSTEM_VARIABLES has no row for it): it takes a restart"
            ));
        }
        Some(true) => {
            return Err(format!(
                "`{name}` is read-only while the server runs \
                 (information_schema.SYSTEM_VARIABLES.READ_ONLY = YES): it takes a restart"
            ));
        }
        Some(false) => {}
    }
    if !crate::db::is_plain_name(name) {
        return Err(format!("`{name}` is not a plain variable name"));
    }
    if defaults_file && plugin.is_none() && difference.values.iter().any(Option::is_none) {
        return Err(format!(
            "one side sets `{name}` and the other leaves it to the my.cnf file \
             ([server] defaults_file), which the server reads only at start-up"
        ));
    }
    let set = [Side::Baseline, Side::Variant].map(|side| {
        match (&difference.values[side as usize], plugin) {
            (Some(value), _) => Setting::To(value.clone()),
            (None, Some(p)) if p.kept.is_none() && p.on != side => Setting::Absent,
            (None, _) => Setting::Default,
        }
    });
    Ok(Switch {
        name: name.clone(),
        set,
        expect: Default::default(),
        plugin: plugin.map(|p| p.library.clone()),
    })
}

/// How long a value may take to reach what was set: a buffer resized online is
/// resized by a background thread, and its variable follows when it is done.
const SETTLE: std::time::Duration = std::time::Duration::from_secs(10);

/// A global's value once `done` says it is what was set, or when [`SETTLE`] is over:
/// the last value read.
fn settled(
    conn: &mut mysql::Conn,
    name: &str,
    done: impl Fn(&str) -> bool,
) -> Result<String, mysql::Error> {
    let deadline = std::time::Instant::now() + SETTLE;
    let mut read = read_global(conn, name)?;
    while !done(&read) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(100));
        read = read_global(conn, name)?;
    }
    Ok(read)
}

/// A global's value as text (NULL as empty).
fn read_global(conn: &mut mysql::Conn, name: &str) -> Result<String, mysql::Error> {
    let value: Option<Value> = conn.query_first(format!("SELECT @@GLOBAL.{name}"))?;
    Ok(match value {
        Some(Value::Bytes(bytes)) => String::from_utf8_lossy(&bytes).into_owned(),
        Some(Value::NULL) | None => String::new(),
        Some(other) => other.as_sql(true).trim_matches('\'').to_string(),
    })
}

/// `SET GLOBAL name = value`, a number sent as one (`0.5`, `-1`, and `K`, `M`, `G` read
/// as the server reads them in a my.cnf): the server refuses a quoted number.
fn set_global(conn: &mut mysql::Conn, name: &str, value: &str) -> Result<(), mysql::Error> {
    let sql = format!("SET GLOBAL {name} = ?");
    match byte_size(value) {
        Some(n) => conn.exec_drop(&sql, (n,)),
        None => match super::restore::number(value) {
            Some(number) => conn.exec_drop(&sql, (number,)),
            None => conn.exec_drop(&sql, (value,)),
        },
    }
}

/// A whole number, or one with a `K`/`M`/`G`/`T` suffix, as a number.
fn byte_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let (digits, shift) = match text.chars().last()?.to_ascii_uppercase() {
        'K' => (&text[..text.len() - 1], 10),
        'M' => (&text[..text.len() - 1], 20),
        'G' => (&text[..text.len() - 1], 30),
        'T' => (&text[..text.len() - 1], 40),
        _ => (text, 0),
    };
    digits.parse::<u64>().ok()?.checked_mul(1 << shift)
}

/// Whether the server's read-back `read` is the profile's `value`: the same text in any
/// case, the same number (suffixes read), or the same switch (ON/1/TRUE, OFF/0/FALSE).
fn same_setting(value: &str, read: &str) -> bool {
    let switch = |t: &str| match t.to_ascii_uppercase().as_str() {
        "ON" | "1" | "TRUE" | "YES" => Some(true),
        "OFF" | "0" | "FALSE" | "NO" => Some(false),
        _ => None,
    };
    value.eq_ignore_ascii_case(read.trim())
        || byte_size(value).is_some_and(|n| byte_size(read) == Some(n))
        || switch(value).is_some_and(|b| switch(read) == Some(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plugin_load_value_names_its_libraries() {
        let libs = libraries(Some("server_audit;simple=simple_password_check.so"));
        assert_eq!(
            libs.into_iter().collect::<Vec<_>>(),
            ["server_audit.so", "simple_password_check.so"]
        );
        assert!(libraries(None).is_empty());
        assert!(is_plain_library("server_audit.so"));
        assert!(!is_plain_library("x'; DROP TABLE t; --"));
    }

    #[test]
    fn a_read_back_value_is_the_profiles_in_the_servers_words() {
        assert!(same_setting("512M", "536870912"));
        assert!(same_setting("ON", "1"));
        assert!(same_setting("on", "ON"));
        assert!(same_setting("1", "1"));
        assert!(!same_setting("512M", "134217728"));
        assert!(!same_setting("2", "1"));
        assert!(!same_setting("O_DIRECT", "fsync"));
        assert_eq!(byte_size("1G"), Some(1 << 30));
        assert_eq!(byte_size("ON"), None);
    }

    fn difference(name: &str, values: [Option<&str>; 2]) -> OptionDifference {
        OptionDifference {
            name: name.into(),
            values: values.map(|v| v.map(String::from)),
        }
    }

    #[test]
    fn a_variable_switches_only_where_the_server_says_it_can() {
        let catalog: BTreeMap<String, bool> = [
            ("sync_binlog".to_string(), false),
            ("thread_handling".to_string(), true),
        ]
        .into();
        let sync = difference("sync_binlog", [Some("0"), None]);
        let switch = variable_switch(&sync, &catalog, None, false).unwrap();
        assert_eq!(switch.set, [Setting::To("0".into()), Setting::Default]);
        let error = variable_switch(&sync, &catalog, None, true).unwrap_err();
        assert!(error.contains("defaults_file"), "{error}");

        let pool = difference("thread_handling", [None, Some("pool-of-threads")]);
        let error = variable_switch(&pool, &catalog, None, false).unwrap_err();
        assert!(error.contains("READ_ONLY = YES"), "{error}");
        let flag = difference("skip_name_resolve", [None, Some("ON")]);
        let error = variable_switch(&flag, &catalog, None, false).unwrap_err();
        assert!(error.contains("has no row"), "{error}");
    }

    #[test]
    fn a_plugins_variable_is_absent_where_the_plugin_is_and_off_where_it_is_kept() {
        let catalog: BTreeMap<String, bool> = [("server_audit_logging".to_string(), false)].into();
        let logging = difference("server_audit_logging", [None, Some("ON")]);
        let mut plugin = PluginSwitch {
            library: "server_audit.so".into(),
            on: Side::Variant,
            kept: None,
        };
        let switch = variable_switch(&logging, &catalog, Some(&plugin), true).unwrap();
        assert_eq!(switch.set, [Setting::Absent, Setting::To("ON".into())]);
        plugin.kept = Some("Warning 1620: Plugin is busy".into());
        let switch = variable_switch(&logging, &catalog, Some(&plugin), true).unwrap();
        assert_eq!(switch.set, [Setting::Default, Setting::To("ON".into())]);
        let switches = Switches {
            variables: vec![],
            plugins: vec![plugin],
        };
        let reason = switches.unswitchable_plugin().unwrap();
        assert!(reason.contains("switched off"), "{reason}");
    }
}
