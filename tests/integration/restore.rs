//! An external server ends a run exactly as it began, however a hook changed it:
//! executable comments, `EXECUTE IMMEDIATE`, `PREPARE`/`EXECUTE`, a stored procedure,
//! teardown hooks, a workload file's `setup`, a character set and its collation, a NULL
//! global, plugins installed and removed. Each test compares every global variable and
//! plugin before and after, not only those the hooks name; `abtest restore` puts a
//! server back after a `kill -9`.

use std::collections::BTreeMap;
use std::time::Duration;

use mysql::Value;
use mysql::prelude::Queryable;

use crate::support::{Sandbox, TestServer, server_lock, start_server, text};

/// Variables that move by themselves (the list abtest keeps, `server::globals::MOVING`).
const MOVING: &[&str] = &[
    "gtid_binlog_pos",
    "gtid_binlog_state",
    "gtid_current_pos",
    "gtid_slave_pos",
    "innodb_buffer_pool_dump_now",
    "innodb_buffer_pool_load_now",
    "innodb_buffer_pool_load_abort",
    "innodb_monitor_enable",
    "innodb_monitor_disable",
    "innodb_monitor_reset",
    "innodb_monitor_reset_all",
];

/// The shortest real run (with `--workload` or `--workload-file`): one thread, two rounds of 300 ms a side, one small table.
const SHORT_RUN: &[&str] = &[
    "--threads",
    "1",
    "--rounds",
    "2",
    "--round-time",
    "300ms",
    "--warmup",
    "0s",
    "--table-size",
    "100",
    "--tables",
    "1",
];

/// Every global variable (NULL told from empty) and every plugin with its status.
#[derive(Debug, PartialEq)]
struct State {
    variables: BTreeMap<String, Option<String>>,
    plugins: BTreeMap<String, String>,
}

fn value_text(value: Value) -> Option<String> {
    match value {
        Value::NULL => None,
        Value::Bytes(b) => Some(String::from_utf8_lossy(&b).into_owned()),
        other => Some(other.as_sql(true)),
    }
}

fn state(server: &TestServer) -> State {
    let mut conn = server.admin().unwrap();
    let rows: Vec<(String, Value)> = conn.query("SHOW GLOBAL VARIABLES").unwrap();
    let mut variables = BTreeMap::new();
    for (name, value) in rows {
        if MOVING.contains(&name.as_str()) {
            continue;
        }
        let mut value = value_text(value);
        if value.as_deref() == Some("") {
            let direct: Value = conn
                .query_first(format!("SELECT @@GLOBAL.{name}"))
                .unwrap()
                .unwrap();
            if direct == Value::NULL {
                value = None;
            }
        }
        variables.insert(name, value);
    }
    let plugins: Vec<(String, String)> = conn
        .query("SELECT PLUGIN_NAME, PLUGIN_STATUS FROM information_schema.PLUGINS")
        .unwrap();
    State {
        variables,
        plugins: plugins.into_iter().collect(),
    }
}

/// What differs between two states, in words (for a readable failure).
fn differences(before: &State, after: &State) -> Vec<String> {
    let mut found = Vec::new();
    for (name, was) in &before.variables {
        let now = after.variables.get(name);
        if now != Some(was) {
            found.push(format!("{name}: {was:?} -> {now:?}"));
        }
    }
    for name in after.variables.keys() {
        if !before.variables.contains_key(name) {
            found.push(format!("{name}: new"));
        }
    }
    if before.plugins != after.plugins {
        found.push(format!(
            "plugins {:?} -> {:?}",
            before.plugins, after.plugins
        ));
    }
    found
}

/// A procedure that sets any global (`CALL hooks.set_global('x', '1')`), and a table
/// where round hooks note what they see.
fn prepare_server(server: &TestServer) {
    let mut admin = server.admin().unwrap();
    admin.query_drop("CREATE DATABASE hooks").unwrap();
    admin
        .query_drop(
            "CREATE PROCEDURE hooks.set_global(name VARCHAR(64), value VARCHAR(200)) \
             EXECUTE IMMEDIATE CONCAT('SET GLOBAL ', name, ' = ', value)",
        )
        .unwrap();
    admin
        .query_drop("CREATE TABLE hooks.seen (name VARCHAR(64), value VARCHAR(200))")
        .unwrap();
}

/// A short run: the baseline on `server` as it is, the variant on the same server with
/// `hooks` (a TOML `[hooks]` body), and `extra` arguments.
fn run_with_hooks(
    sandbox: &Sandbox,
    server: &TestServer,
    hooks: &str,
    extra: &[&str],
) -> std::process::Output {
    let baseline = server.socket_profile(sandbox, "plain.toml", "");
    let variant = server.socket_profile(sandbox, "hooked.toml", &format!("[hooks]\n{hooks}"));
    let mut args = vec![
        "--baseline",
        baseline.as_str(),
        "--variant",
        variant.as_str(),
    ];
    if !extra.contains(&"--workload-file") {
        args.extend(["--workload", "oltp_point_select"]);
    }
    args.extend(SHORT_RUN);
    args.extend(extra);
    sandbox.run(&args)
}

/// A TOML string array.
fn toml_list(statements: &[String]) -> String {
    let quoted: Vec<String> = statements
        .iter()
        .map(|s| format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\"")))
        .collect();
    format!("[{}]", quoted.join(", "))
}

/// What the round hooks noted on the server.
fn seen(server: &TestServer) -> BTreeMap<String, String> {
    let rows: Vec<(String, String)> = server
        .admin()
        .unwrap()
        .query("SELECT name, value FROM hooks.seen")
        .unwrap();
    rows.into_iter().collect()
}

#[test]
fn every_route_a_hook_changes_a_server_by_ends_as_it_began() {
    let _lock = server_lock();
    let server = start_server(&BTreeMap::new(), 8);
    prepare_server(&server);
    // A plugin the server had before the run, which a hook removes.
    server
        .admin()
        .unwrap()
        .query_drop("INSTALL SONAME 'ha_archive'")
        .unwrap();
    let before = state(&server);
    let sandbox = Sandbox::new();
    let workload = sandbox.write(
        "workload.toml",
        "setup = [\"SET GLOBAL net_write_timeout = 88\"]\n\
         [params]\nid = { type = \"id\" }\n\
         [[transaction]]\nname = \"read\"\nstatements = [\"SELECT c FROM sbtest1 WHERE id = {id}\"]\n",
    );
    let setup = [
        "/*! SET GLOBAL max_connect_errors = 777 */",
        "/*M!100000 SET GLOBAL long_query_time = 3 */",
        "SET @abtest_hook = 1 /*!, GLOBAL div_precision_increment = 9 */",
        "EXECUTE IMMEDIATE 'SET GLOBAL wait_timeout = 1111'",
        "PREPARE hook FROM 'SET GLOBAL net_read_timeout = 66'",
        "EXECUTE hook",
        "CALL hooks.set_global('optimizer_search_depth', '7')",
        "SET GLOBAL character_set_server = 'ascii'",
        "SET GLOBAL enforce_storage_engine = 'InnoDB'",
        "INSTALL SONAME 'ha_blackhole'",
        "UNINSTALL SONAME 'ha_archive'",
    ]
    .map(String::from);
    let noted = "INSERT INTO hooks.seen SELECT LOWER(VARIABLE_NAME), VARIABLE_VALUE FROM \
                 information_schema.GLOBAL_VARIABLES WHERE VARIABLE_NAME IN ('MAX_CONNECT_ERRORS', \
                 'LONG_QUERY_TIME', 'DIV_PRECISION_INCREMENT', 'WAIT_TIMEOUT', 'NET_READ_TIMEOUT', \
                 'OPTIMIZER_SEARCH_DEPTH', 'COLLATION_SERVER', 'ENFORCE_STORAGE_ENGINE', \
                 'NET_WRITE_TIMEOUT') UNION ALL SELECT PLUGIN_NAME, PLUGIN_STATUS FROM \
                 information_schema.PLUGINS WHERE PLUGIN_NAME IN ('BLACKHOLE', 'ARCHIVE')";
    let hooks = format!(
        "setup = {}\nafter_round = {}\nteardown = {}\n",
        toml_list(&setup),
        toml_list(&["DELETE FROM hooks.seen".to_string(), noted.to_string()]),
        toml_list(&["SET GLOBAL lock_wait_timeout = 4444".to_string()]),
    );
    let json = sandbox.path("run.json");
    let output = run_with_hooks(
        &sandbox,
        &server,
        &hooks,
        &[
            "--workload-file",
            workload.to_str().unwrap(),
            "--json",
            json.to_str().unwrap(),
        ],
    );
    let (_, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    // Every route took effect while the rounds ran...
    let during = seen(&server);
    let expected = [
        ("max_connect_errors", "777"),
        ("long_query_time", "3.000000"),
        ("div_precision_increment", "9"),
        ("wait_timeout", "1111"),
        ("net_read_timeout", "66"),
        ("optimizer_search_depth", "7"),
        ("collation_server", "ascii_general_ci"),
        ("enforce_storage_engine", "InnoDB"),
        ("net_write_timeout", "88"),
        ("BLACKHOLE", "ACTIVE"),
    ];
    for (name, value) in expected {
        assert_eq!(
            during.get(name).map(String::as_str),
            Some(value),
            "{name}: {during:?}"
        );
    }
    assert!(!during.contains_key("ARCHIVE"), "{during:?}");
    // ...the teardown hook ran, and everything is back.
    assert!(
        stderr.contains("restored lock_wait_timeout from 4444"),
        "{stderr}"
    );
    server
        .admin()
        .unwrap()
        .query_drop("DELETE FROM hooks.seen")
        .unwrap();
    let after = state(&server);
    assert_eq!(
        differences(&before, &after),
        Vec::<String>::new(),
        "{stderr}"
    );
    // The snapshot is in the results file, NULL as null, and the file keeps its schema.
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    crate::support::assert_valid_results(&results);
    let globals = &results["sides"]["variant"]["globals"];
    assert!(
        globals["variables"]["enforce_storage_engine"].is_null()
            && globals["variables"]
                .as_object()
                .is_some_and(|v| v.contains_key("enforce_storage_engine")),
        "{globals}"
    );
    assert_eq!(globals["plugins"]["ARCHIVE"]["status"], "ACTIVE");
    assert!(results["sides"]["variant"]["not_restored"].is_null());
}

/// A small deterministic generator (xorshift), so a failing case can be replayed.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Settings a hook may make, with values the server takes.
const SETTINGS: &[(&str, &[&str])] = &[
    ("max_connect_errors", &["5", "777", "100000"]),
    ("long_query_time", &["1", "2.5", "20"]),
    ("div_precision_increment", &["0", "9", "30"]),
    (
        "character_set_server",
        &["'latin1'", "'ascii'", "'utf8mb3'"],
    ),
    ("collation_server", &["'latin1_bin'", "'utf8mb4_bin'"]),
    ("collation_connection", &["'utf8mb4_unicode_ci'"]),
    ("enforce_storage_engine", &["'InnoDB'"]),
    (
        "sql_mode",
        &["'ANSI_QUOTES'", "'NO_BACKSLASH_ESCAPES,STRICT_ALL_TABLES'"],
    ),
    ("optimizer_search_depth", &["0", "7"]),
    ("net_read_timeout", &["66"]),
    ("default_storage_engine", &["'Aria'", "'MyISAM'"]),
    ("query_cache_size", &["1048576"]),
    ("init_connect", &["'SET @x = 1'", "'7'"]),
];

/// One statement that makes `name = value` through a randomly chosen route; a route of
/// two statements (PREPARE, EXECUTE) gives both.
fn through_a_route(rng: &mut Rng, name: &str, value: &str) -> Vec<String> {
    let set = format!("SET GLOBAL {name} = {value}");
    let quoted = set.replace('\'', "''");
    match rng.below(7) {
        0 => vec![set],
        1 => vec![format!("/*! {set} */")],
        2 => vec![format!("/*M!100000 {set} */")],
        3 => vec![format!(
            "SET @abtest_hook = 1 /*!, GLOBAL {name} = {value} */"
        )],
        4 => vec![format!("EXECUTE IMMEDIATE '{quoted}'")],
        5 => vec![
            format!("PREPARE hook FROM '{quoted}'"),
            "EXECUTE hook".to_string(),
        ],
        _ => vec![format!(
            "CALL hooks.set_global('{name}', '{}')",
            value.replace('\'', "''")
        )],
    }
}

/// A random program of hooks at every point: settings through every route, and now and
/// then a plugin installed.
fn random_hooks(rng: &mut Rng) -> (String, Vec<String>) {
    let mut points: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let names = [
        "setup",
        "before_round",
        "after_round",
        "teardown",
        "workload",
    ];
    for _ in 0..1 + rng.below(6) {
        let (name, values) = rng.pick(SETTINGS);
        let value = rng.pick(values);
        let point = *rng.pick(&names);
        let statements = through_a_route(rng, name, value);
        points.entry(point).or_default().extend(statements);
    }
    if rng.below(3) == 0 {
        let plugin = rng.pick(&["ha_blackhole", "simple_password_check"]);
        points
            .entry("setup")
            .or_default()
            .push(format!("INSTALL SONAME '{plugin}'"));
    }
    let workload = points.remove("workload").unwrap_or_default();
    let hooks = points
        .iter()
        .map(|(point, statements)| format!("{point} = {}\n", toml_list(statements)))
        .collect();
    (hooks, workload)
}

#[test]
fn random_hook_programs_through_every_route_leave_the_server_as_it_began() {
    let _lock = server_lock();
    let server = start_server(&BTreeMap::new(), 8);
    prepare_server(&server);
    let before = state(&server);
    let cases: u64 = std::env::var("ABTEST_RESTORE_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(20);
    for case in 0..cases {
        let seed = 0x9e37_79b9_7f4a_7c15 ^ (case + 1);
        let mut rng = Rng(seed);
        let (hooks, workload_setup) = random_hooks(&mut rng);
        let sandbox = Sandbox::new();
        let workload = sandbox.write(
            "workload.toml",
            &format!(
                "setup = {}\n[params]\nid = {{ type = \"id\" }}\n[[transaction]]\nname = \"read\"\n\
                 statements = [\"SELECT c FROM sbtest1 WHERE id = {{id}}\"]\n",
                toml_list(&workload_setup)
            ),
        );
        let output = run_with_hooks(
            &sandbox,
            &server,
            &hooks,
            &["--workload-file", workload.to_str().unwrap()],
        );
        let (_, stderr) = text(&output);
        assert_eq!(
            output.status.code(),
            Some(0),
            "case {case} (seed {seed:#x}):\n{hooks}\nworkload setup {workload_setup:?}\n{stderr}"
        );
        let after = state(&server);
        assert_eq!(
            differences(&before, &after),
            Vec::<String>::new(),
            "case {case} (seed {seed:#x}):\n{hooks}\nworkload setup {workload_setup:?}\n{stderr}"
        );
    }
}

#[test]
fn what_cannot_be_put_back_is_named_recorded_and_fails_the_run() {
    let _lock = server_lock();
    let server = start_server(&BTreeMap::new(), 8);
    prepare_server(&server);
    // The run's user may call a procedure that sets a global with its definer's rights,
    // but may not set that global back itself.
    let mut admin = server.admin().unwrap();
    admin
        .query_drop("CREATE USER 'limited'@'localhost'")
        .unwrap();
    admin
        .query_drop("GRANT ALL ON sbtest.* TO 'limited'@'localhost'")
        .unwrap();
    admin
        .query_drop("GRANT EXECUTE ON PROCEDURE hooks.set_global TO 'limited'@'localhost'")
        .unwrap();
    let original: Option<u64> = admin
        .query_first("SELECT @@GLOBAL.max_connect_errors")
        .unwrap();
    let sandbox = Sandbox::new();
    let profile = |name: &str, hooks: &str| {
        sandbox
            .write(
                name,
                &format!(
                    "[connection]\nsocket = \"{}\"\nuser = \"limited\"\ndatabase = \"sbtest\"\n{hooks}",
                    server.socket().display()
                ),
            )
            .display()
            .to_string()
    };
    let baseline = profile("plain.toml", "");
    let variant = profile(
        "hooked.toml",
        "[hooks]\nsetup = [\"CALL hooks.set_global('max_connect_errors', '4321')\"]\n",
    );
    let json = sandbox.path("run.json");
    let output = sandbox.run(
        &[
            &["--baseline", &baseline, "--variant", &variant],
            SHORT_RUN,
            &["--json", json.to_str().unwrap()],
        ]
        .concat(),
    );
    let (_, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(6), "{stderr}");
    assert!(
        stderr.contains("could not put back: max_connect_errors is 4321, was"),
        "{stderr}"
    );
    assert!(stderr.contains("left changed"), "{stderr}");
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    crate::support::assert_valid_results(&results);
    let left = results["sides"]["baseline"]["not_restored"].to_string();
    assert!(left.contains("max_connect_errors"), "{left}");
    assert_eq!(results["status"], "completed");
    // Put back by hand, as the message says.
    admin
        .query_drop(format!(
            "SET GLOBAL max_connect_errors = {}",
            original.unwrap()
        ))
        .unwrap();
}

#[test]
fn after_kill_9_abtest_restore_puts_the_server_back() {
    let _lock = server_lock();
    let server = start_server(&BTreeMap::new(), 8);
    prepare_server(&server);
    let before = state(&server);
    let sandbox = Sandbox::new();
    let baseline = server.socket_profile(&sandbox, "plain.toml", "");
    let variant = server.socket_profile(
        &sandbox,
        "hooked.toml",
        "[hooks]\nsetup = [\"/*! SET GLOBAL max_connect_errors = 777 */\", \
         \"SET GLOBAL character_set_server = 'ascii'\", \
         \"SET GLOBAL enforce_storage_engine = 'InnoDB'\", \"INSTALL SONAME 'ha_blackhole'\"]\n",
    );
    let mut args = vec![
        "--baseline",
        baseline.as_str(),
        "--variant",
        variant.as_str(),
    ];
    args.extend(crate::support::LONG_RUN);
    let mut running = sandbox.spawn(&args);
    running.wait_rounds(1, Duration::from_secs(60));
    running.signal(libc::SIGKILL);
    running.wait_exit(Duration::from_secs(30));
    let json = running.json.to_str().unwrap().to_string();
    let changed = differences(&before, &state(&server));
    assert!(
        changed.iter().any(|d| d.starts_with("collation_server"))
            && changed
                .iter()
                .any(|d| d.starts_with("enforce_storage_engine")),
        "the hooks' changes stay after kill -9: {changed:?}"
    );
    // The dry run shows every difference and the statement for it, and changes nothing.
    let dry = sandbox.run(&["restore", &json, "--dry-run"]);
    let (stdout, stderr) = text(&dry);
    assert_eq!(dry.status.code(), Some(0), "{stdout}{stderr}");
    let was = |name: &str| before.variables[name].clone().unwrap();
    for statement in [
        format!(
            "SET GLOBAL max_connect_errors = {}",
            was("max_connect_errors")
        ),
        format!(
            "SET GLOBAL character_set_server = '{}'",
            was("character_set_server")
        ),
        format!(
            "SET GLOBAL collation_server = '{}'",
            was("collation_server")
        ),
        "SET GLOBAL enforce_storage_engine = NULL".to_string(),
        "UNINSTALL PLUGIN BLACKHOLE".to_string(),
    ] {
        assert!(stdout.contains(&statement), "{statement}: {stdout}");
    }
    assert_eq!(differences(&before, &state(&server)), changed);
    // The restore puts everything back, and a second one finds nothing to do.
    let restored = sandbox.run(&["restore", &json]);
    let (stdout, stderr) = text(&restored);
    assert_eq!(restored.status.code(), Some(0), "{stdout}{stderr}");
    assert_eq!(
        differences(&before, &state(&server)),
        Vec::<String>::new(),
        "{stdout}"
    );
    let again = sandbox.run(&["restore", &json]);
    let (stdout, _) = text(&again);
    assert!(stdout.contains("is as it was before the hooks"), "{stdout}");
    assert!(stdout.contains("serves both sides"), "{stdout}");
}

#[test]
fn restore_refuses_another_server_and_names_what_it_cannot_put_back() {
    let _lock = server_lock();
    let server = start_server(&BTreeMap::new(), 8);
    let sandbox = Sandbox::new();
    let profile = server.socket_profile(&sandbox, "plain.toml", "");
    let json = sandbox.path("run.json");
    let output = sandbox.run(
        &[
            &["--baseline", &profile, "--variant", &profile],
            SHORT_RUN,
            &["--json", json.to_str().unwrap()],
        ]
        .concat(),
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output).1);
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let edit = |name: &str, path: &[&str], value: &str| {
        let mut edited = saved.clone();
        for side in ["baseline", "variant"] {
            let mut at = &mut edited["sides"][side]["globals"]["variables"];
            for key in path {
                at = &mut at[*key];
            }
            *at = value.into();
        }
        sandbox.write(name, &edited.to_string())
    };
    // A read-only variable that differs is named, and the restore exits 6.
    let read_only = edit("read_only.json", &["innodb_page_size"], "8192");
    let output = sandbox.run(&["restore", read_only.to_str().unwrap()]);
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(6), "{stdout}{stderr}");
    assert!(
        stdout.contains("could not put back: innodb_page_size is 16384, was 8192"),
        "{stdout}"
    );
    assert!(stderr.contains("read only"), "{stderr}");
    // A snapshot of another server (another datadir) is refused, nothing changed.
    let other = edit("other.json", &["datadir"], "/srv/other/");
    let output = sandbox.run(&["restore", other.to_str().unwrap()]);
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(2), "{stdout}{stderr}");
    assert!(
        stderr.contains("is not the server the snapshot was taken of (datadir was /srv/other/"),
        "{stderr}"
    );
}

/// A trigger a hook leaves behind would fire on the applications' writes after the run
/// (an event, on a server whose scheduler runs, would set a global after the restore):
/// it is named with the statement that drops it, and the run says the server was left
/// changed.
#[test]
fn a_trigger_a_hook_leaves_behind_is_named_and_fails_the_run() {
    let _lock = server_lock();
    let server = start_server(&BTreeMap::new(), 8);
    prepare_server(&server);
    let sandbox = Sandbox::new();
    let json = sandbox.path("run.json");
    let output = run_with_hooks(
        &sandbox,
        &server,
        "setup = [\"CREATE TABLE IF NOT EXISTS hooks.orders (id INT)\", \
         \"CREATE TRIGGER IF NOT EXISTS hooks.later BEFORE INSERT ON hooks.orders FOR EACH ROW \
         SET NEW.id = NEW.id + 1\"]\n",
        &["--json", json.to_str().unwrap()],
    );
    let (_, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(6), "{stderr}");
    assert!(
        stderr.contains("trigger hooks.later was made after the snapshot")
            && stderr.contains("DROP TRIGGER `hooks`.`later`;"),
        "{stderr}"
    );
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    crate::support::assert_valid_results(&results);
    let left = format!(
        "{}{}",
        results["sides"]["baseline"]["not_restored"], results["sides"]["variant"]["not_restored"]
    );
    assert!(left.contains("DROP TRIGGER"), "{left}");
    // `abtest restore` names it too, in a dry run and for real, and never drops it.
    let json = json.to_str().unwrap();
    let dry = sandbox.run(&["restore", json, "--dry-run"]);
    let (stdout, stderr) = text(&dry);
    assert_eq!(dry.status.code(), Some(0), "{stderr}");
    assert!(
        stdout.contains("not put back: trigger hooks.later was made after the snapshot"),
        "{stdout}"
    );
    let real = sandbox.run(&["restore", json]);
    let (stdout, stderr) = text(&real);
    assert_eq!(real.status.code(), Some(6), "{stdout}{stderr}");
    assert!(stdout.contains("DROP TRIGGER `hooks`.`later`;"), "{stdout}");
    let mut admin = server.admin().unwrap();
    let kept: Option<String> = admin
        .query_first(
            "SELECT TRIGGER_NAME FROM information_schema.TRIGGERS WHERE TRIGGER_NAME = 'later'",
        )
        .unwrap();
    assert_eq!(kept.as_deref(), Some("later"), "named, never dropped");
}
