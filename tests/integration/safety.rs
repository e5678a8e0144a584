//! Safety of the user's data and secrets: TLS modes with the MySQL client's semantics,
//! refusing to write next to foreign tables, `abtest cleanup`, and bad connection input.

use std::collections::BTreeMap;

use mysql::prelude::Queryable;

use crate::support::{Sandbox, TestServer, server_lock, start_server, start_server_named, text};

/// A TCP profile for user `tls` (password from ABTEST_TLS_PASSWORD) with extra lines.
fn tcp_profile(sandbox: &Sandbox, name: &str, port: u16, extra: &str) -> String {
    let path = sandbox.write(
        name,
        &format!(
            "[connection]\nhost = \"127.0.0.1\"\nport = {port}\nuser = \"tls\"\npassword_env = \"ABTEST_TLS_PASSWORD\"\n\
             database = \"sbtest\"\n{extra}"
        ),
    );
    path.to_string_lossy().into_owned()
}

/// A server of the test's own with user `tls` (password `tls-test`) over TCP.
fn server_with_tls_user(options: &[(&str, &str)]) -> TestServer {
    let options: BTreeMap<String, String> = options
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    with_tls_user(start_server(&options, 4))
}

fn with_tls_user(server: TestServer) -> TestServer {
    server.add_user("tls", "127.0.0.1", Some("tls-test"));
    server
}

/// Connects through `abtest cleanup`, which opens one connection with the profile's TLS
/// mode and drops nothing that is not abtest's.
fn connect(sandbox: &Sandbox, profile: &str) -> (Option<i32>, String) {
    connect_with_env(sandbox, profile, &[])
}

/// As [`connect`], with extra environment variables (a wrong password, a CA store).
fn connect_with_env(
    sandbox: &Sandbox,
    profile: &str,
    env: &[(&str, &dyn AsRef<std::ffi::OsStr>)],
) -> (Option<i32>, String) {
    let mut command = sandbox.abtest();
    command
        .args(["cleanup", "--profile", profile])
        .env("ABTEST_TLS_PASSWORD", "tls-test");
    for (name, value) in env {
        command.env(name, value);
    }
    let output = command.output().unwrap();
    let (stdout, stderr) = text(&output);
    (output.status.code(), stdout + &stderr)
}

#[test]
fn tls_modes_follow_the_mysql_client_semantics() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let good = server_with_tls_user(&[]);
    let ca = good.tls_files().ca.display().to_string();
    let other_ca_dir = tempfile::tempdir().unwrap();
    let other_ca = abtest::server::tls::generate(other_ca_dir.path())
        .unwrap()
        .ca
        .display()
        .to_string();
    let port = good.port();
    let profile = |name: &str, extra: &str| tcp_profile(&sandbox, name, port, extra);

    assert_eq!(
        connect(&sandbox, &profile("required.toml", "tls = \"required\"\n")).0,
        Some(0)
    );
    assert_eq!(
        connect(
            &sandbox,
            &profile(
                "verify-ca.toml",
                &format!("tls = \"verify_ca\"\ntls_ca = \"{ca}\"\n")
            )
        )
        .0,
        Some(0)
    );
    let identity = profile(
        "identity.toml",
        &format!("tls = \"verify_identity\"\ntls_ca = \"{ca}\"\n"),
    );
    assert_eq!(
        connect(&sandbox, &identity).0,
        Some(0),
        "the certificate names 127.0.0.1"
    );
    let (code, output) = connect(
        &sandbox,
        &profile(
            "wrong-ca.toml",
            &format!("tls = \"verify_ca\"\ntls_ca = \"{other_ca}\"\n"),
        ),
    );
    assert_eq!(
        code,
        Some(1),
        "verify_ca must fail against a wrong CA: {output}"
    );
    assert!(output.contains("cannot connect"), "{output}");

    // A certificate that does not name the host: verify_ca passes, verify_identity fails.
    let misnamed = with_tls_user(start_server_named(&BTreeMap::new(), 4, &["wronghost"]));
    let ca = misnamed.tls_files().ca.display().to_string();
    let port = misnamed.port();
    let ca_only = tcp_profile(
        &sandbox,
        "m-ca.toml",
        port,
        &format!("tls = \"verify_ca\"\ntls_ca = \"{ca}\"\n"),
    );
    assert_eq!(connect(&sandbox, &ca_only).0, Some(0));
    let identity = tcp_profile(
        &sandbox,
        "m-id.toml",
        port,
        &format!("tls = \"verify_identity\"\ntls_ca = \"{ca}\"\n"),
    );
    let (code, output) = connect(&sandbox, &identity);
    assert_eq!(
        code,
        Some(1),
        "verify_identity must fail on a host name mismatch: {output}"
    );

    // A server without TLS: required fails, preferred falls back to plain.
    let plain = server_with_tls_user(&[("ssl", "OFF")]);
    let have_ssl: Option<String> = plain
        .admin()
        .unwrap()
        .query_first("SELECT @@have_ssl")
        .unwrap();
    assert_ne!(have_ssl.as_deref(), Some("YES"));
    let (code, output) = connect(
        &sandbox,
        &tcp_profile(&sandbox, "p-req.toml", plain.port(), "tls = \"required\"\n"),
    );
    assert_eq!(code, Some(1), "required must fail without TLS: {output}");
    let (code, output) = connect(
        &sandbox,
        &tcp_profile(
            &sandbox,
            "p-pref.toml",
            plain.port(),
            "tls = \"preferred\"\n",
        ),
    );
    assert_eq!(code, Some(0), "{output}");
    assert!(
        output.contains("offers no TLS: connected in plain text"),
        "preferred must say it fell back: {output}"
    );
}

#[test]
fn write_workloads_refuse_foreign_tables_and_cleanup_drops_only_abtests() {
    let _lock = server_lock();
    let server = start_server(&BTreeMap::new(), 4);
    let mut admin = server.admin().unwrap();
    admin
        .query_drop("CREATE TABLE sbtest.customers (id INT PRIMARY KEY)")
        .unwrap();
    let sandbox = Sandbox::new();
    let profile = server.socket_profile(&sandbox, "ext.toml", "");
    let profile = profile.as_str();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "--baseline",
            profile,
            "--variant",
            profile,
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
            "--range-size",
            "10",
        ];
        args.extend(extra);
        let output = sandbox.run(&args);
        let (stdout, stderr) = text(&output);
        (output.status.code(), stdout + &stderr)
    };
    let (code, output) = run(&["--workload", "oltp_read_write"]);
    assert_eq!(code, Some(2), "{output}");
    assert!(
        output.contains("holds tables abtest does not own (customers)")
            && output.contains("--allow-foreign-tables"),
        "{output}"
    );
    let tables: Vec<String> = admin.query("SHOW TABLES FROM sbtest").unwrap();
    assert_eq!(tables, vec!["customers"], "nothing was created");
    assert_eq!(
        run(&["--workload", "oltp_read_only"]).0,
        Some(0),
        "reads are allowed"
    );
    assert_eq!(
        run(&["--workload", "oltp_read_write", "--allow-foreign-tables"]).0,
        Some(0)
    );
    admin
        .query_drop("CREATE TABLE sbtest.sbtest9 (id INT PRIMARY KEY)")
        .unwrap();
    let output = sandbox.run(&["cleanup", "--profile", profile]);
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stdout.contains("dropped 1 table(s): sbtest1"), "{stdout}");
    assert!(
        stdout.contains("kept 2 table(s) abtest did not create: customers, sbtest9"),
        "{stdout}"
    );
    let mut tables: Vec<String> = admin.query("SHOW TABLES FROM sbtest").unwrap();
    tables.sort();
    assert_eq!(tables, vec!["customers", "sbtest9"]);
}

#[test]
fn bad_connection_input_is_refused_clearly() {
    let sandbox = Sandbox::new();
    let base = ["--variant", "profiles/mariadb.toml", "--dry-run"];
    let refuse = |name: &str, body: &str, code: i32, needles: &[&str]| {
        let path = sandbox.write(name, body);
        let mut args = vec!["--baseline", path.to_str().unwrap()];
        args.extend(base);
        let output = sandbox.run(&args);
        let (_, stderr) = text(&output);
        assert_eq!(output.status.code(), Some(code), "{name}: {stderr}");
        for needle in needles {
            assert!(stderr.contains(needle), "{name}: {stderr}");
        }
        stderr
    };
    let busy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = busy.local_addr().unwrap().port();
    refuse(
        "port.toml",
        &format!("[server]\n[server.options]\nport = {port}\n"),
        2,
        &["port.toml:3", "already in use"],
    );
    refuse(
        "pwfile.toml",
        "[connection]\nhost = \"127.0.0.1\"\npassword_file = \"/nonexistent/pw\"\n",
        2,
        &["pwfile.toml:3", "cannot read password file"],
    );
    refuse(
        "noca.toml",
        "[connection]\nhost = \"127.0.0.1\"\ntls = \"verify_identity\"\n",
        2,
        &["noca.toml:3", "needs `tls_ca`"],
    );
    let warned = refuse(
        "plain.toml",
        "[connection]\nhost = \"db.example.invalid\"\npassword = \"x\"\n",
        0,
        &["literal password"],
    );
    assert!(
        warned.contains("may travel unencrypted to db.example.invalid"),
        "{warned}"
    );
    let readable = sandbox.write(
        "open.toml",
        "[connection]\nhost = \"127.0.0.1\"\npassword = \"x\"\n",
    );
    std::fs::set_permissions(
        &readable,
        std::os::unix::fs::PermissionsExt::from_mode(0o644),
    )
    .unwrap();
    let output = sandbox.run(&[
        "--baseline",
        readable.to_str().unwrap(),
        "--variant",
        "profiles/mariadb.toml",
        "--dry-run",
    ]);
    assert!(
        text(&output).1.contains("readable by other users"),
        "{}",
        text(&output).1
    );
    // Unreachable (nothing listens on the port): exit 1 with the client's message.
    drop(busy);
    let closed = sandbox.write(
        "closed.toml",
        &format!("[connection]\nhost = \"127.0.0.1\"\nport = {port}\n"),
    );
    let output = sandbox.run(&[
        "--baseline",
        closed.to_str().unwrap(),
        "--variant",
        closed.to_str().unwrap(),
    ]);
    let (_, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "baseline ({}): cannot connect to sbtest@127.0.0.1",
            closed.display()
        )),
        "{stderr}"
    );
}

#[test]
fn a_missing_database_is_reported_with_the_servers_message() {
    let _lock = server_lock();
    let server = start_server(&BTreeMap::new(), 4);
    let sandbox = Sandbox::new();
    let profile = sandbox.write(
        "nodb.toml",
        &format!(
            "[connection]\nsocket = \"{}\"\nuser = \"root\"\ndatabase = \"no_such_db\"\n",
            server.socket().display()
        ),
    );
    let output = sandbox.run(&[
        "--baseline",
        profile.to_str().unwrap(),
        "--variant",
        profile.to_str().unwrap(),
    ]);
    let (_, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("Unknown database 'no_such_db'"), "{stderr}");
}

/// A global status counter of a server, read over its admin socket.
fn status(server: &TestServer, name: &str) -> u64 {
    let row: Option<(String, u64)> = server
        .admin()
        .unwrap()
        .query_first(format!("SHOW GLOBAL STATUS LIKE '{name}'"))
        .unwrap();
    row.unwrap_or_else(|| panic!("no status variable {name}")).1
}

#[test]
fn tls_modes_are_what_the_server_sees() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let server = server_with_tls_user(&[]);
    let ca = server.tls_files().ca.display().to_string();
    // The server's own count of TLS handshakes says whether a connection was encrypted.
    for (name, extra, handshakes) in [
        ("s-required.toml", "tls = \"required\"\n".to_string(), 1),
        (
            "s-verify.toml",
            format!("tls = \"verify_identity\"\ntls_ca = \"{ca}\"\n"),
            1,
        ),
        ("s-preferred.toml", "tls = \"preferred\"\n".to_string(), 1),
        ("s-off.toml", "tls = \"disabled\"\n".to_string(), 0),
    ] {
        let profile = tcp_profile(&sandbox, name, server.port(), &extra);
        let before = status(&server, "Ssl_finished_accepts");
        let (code, output) = connect(&sandbox, &profile);
        assert_eq!(code, Some(0), "{name}: {output}");
        assert_eq!(
            status(&server, "Ssl_finished_accepts") - before,
            handshakes,
            "{name}: TLS handshakes the server accepted"
        );
    }
}

#[test]
fn preferred_never_retries_a_failed_login_in_plain_text() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let server = server_with_tls_user(&[]);
    let profile = tcp_profile(
        &sandbox,
        "wrong-pw.toml",
        server.port(),
        "tls = \"preferred\"\n",
    );
    let before = status(&server, "Access_denied_errors");
    let (code, output) = connect_with_env(
        &sandbox,
        &profile,
        &[("ABTEST_TLS_PASSWORD", &"not-the-password")],
    );
    assert_eq!(code, Some(1), "{output}");
    assert!(output.contains("Access denied"), "{output}");
    assert_eq!(
        status(&server, "Access_denied_errors") - before,
        1,
        "one login attempt, not a second one without TLS"
    );
}

#[test]
fn verify_ca_trusts_the_given_ca_and_nothing_else() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let server = server_with_tls_user(&[]);
    let other_ca_dir = tempfile::tempdir().unwrap();
    let other_ca = abtest::server::tls::generate(other_ca_dir.path())
        .unwrap()
        .ca
        .display()
        .to_string();
    let profile = tcp_profile(
        &sandbox,
        "pinned.toml",
        server.port(),
        &format!("tls = \"verify_ca\"\ntls_ca = \"{other_ca}\"\n"),
    );
    // The server's own CA stands in for a publicly trusted one: it is in the system
    // store (SSL_CERT_FILE) but is not the CA the profile names.
    let (code, output) = connect_with_env(
        &sandbox,
        &profile,
        &[("SSL_CERT_FILE", &server.tls_files().ca)],
    );
    assert_eq!(
        code,
        Some(1),
        "verify_ca accepted a certificate from a CA the profile does not name: {output}"
    );
}

/// A table of someone's data on the external server: 1 000 rows in `orders`.
fn external_with_orders() -> TestServer {
    let server = start_server(&BTreeMap::new(), 4);
    let mut admin = server.admin().unwrap();
    admin
        .query_drop("CREATE TABLE sbtest.orders (id INT PRIMARY KEY, note CHAR(10))")
        .unwrap();
    admin
        .query_drop("INSERT INTO sbtest.orders SELECT seq, 'kept' FROM sbtest.seq_1_to_1000")
        .unwrap();
    server
}

fn orders(server: &TestServer) -> u64 {
    let mut admin = server.admin().unwrap();
    admin
        .query_first("SELECT COUNT(*) FROM sbtest.orders")
        .unwrap()
        .unwrap()
}

/// A write is a write whatever comment stands in front of it or wraps it: the server
/// runs the code, so the foreign-table guard reads the code. Each workload file below
/// deletes from `orders` and must be refused before it runs (exit 2, every row kept);
/// a workload file's `setup` counts too.
#[test]
fn a_write_behind_a_comment_is_refused_next_to_foreign_tables() {
    let _lock = server_lock();
    let server = external_with_orders();
    let sandbox = Sandbox::new();
    let profile = server.socket_profile(&sandbox, "ext.toml", "");
    let deletes = [
        "/* purge */ DELETE FROM orders WHERE id > {n}",
        "-- x\nDELETE FROM orders WHERE id > {n}",
        "#x\nDELETE FROM orders WHERE id > {n}",
        "/*!DELETE FROM orders WHERE id > {n}*/",
        "/*!50000 DELETE FROM orders WHERE id > {n} */",
        "/*M!100000 DELETE FROM orders WHERE id > {n} */",
        "/* a /* b */ DELETE FROM orders WHERE id > {n}",
        "SELECT 1; DELETE FROM orders WHERE id > {n}",
        "WITH x AS (SELECT 1) DELETE FROM orders WHERE id > {n}",
    ];
    let mut files: Vec<String> = deletes
        .iter()
        .map(|sql| {
            format!(
                "sbtest = false\n[params]\nn = {{ type = \"int\", min = 0, max = 0 }}\n\
                 [[transaction]]\nname = \"purge\"\nstatements = [{}]\n",
                toml_string(sql)
            )
        })
        .collect();
    files.push(
        "sbtest = false\nsetup = [\"/* purge */ DELETE FROM orders\"]\n\
         [[transaction]]\nname = \"read\"\nstatements = [\"SELECT 1\"]\n"
            .to_string(),
    );
    for (i, body) in files.iter().enumerate() {
        let workload = sandbox.write(&format!("w{i}.toml"), body);
        let output = sandbox.run(&[
            "--baseline",
            &profile,
            "--variant",
            &profile,
            "--workload-file",
            workload.to_str().unwrap(),
            "--threads",
            "1",
            "--rounds",
            "2",
            "--round-time",
            "300ms",
            "--warmup",
            "0s",
        ]);
        let (stdout, stderr) = text(&output);
        assert_eq!(output.status.code(), Some(2), "{body}\n{stdout}{stderr}");
        assert!(
            stderr.contains("holds tables abtest does not own (orders)"),
            "{body}\n{stderr}"
        );
        assert_eq!(orders(&server), 1000, "{body}: every row is kept");
    }
}

/// `sql` as a TOML basic string.
fn toml_string(sql: &str) -> String {
    format!(
        "\"{}\"",
        sql.replace('\\', "\\\\")
            .replace('"', "\\\"")
            .replace('\n', "\\n")
    )
}

/// `cleanup` drops what carries abtest's mark and nothing else: a table a workload file
/// lists under `tables` without the mark (here `orders`, someone's 1 000 rows) is kept,
/// listed as kept, and the message says how to drop it by hand.
#[test]
fn cleanup_keeps_a_workload_files_table_without_the_mark() {
    let _lock = server_lock();
    let server = external_with_orders();
    server
        .admin()
        .unwrap()
        .query_drop("CREATE TABLE sbtest.scratch (id INT) COMMENT = 'created by abtest'")
        .unwrap();
    let sandbox = Sandbox::new();
    let profile = server.socket_profile(&sandbox, "ext.toml", "");
    let workload = sandbox.write(
        "w.toml",
        "sbtest = false\ntables = [\"orders\"]\n[[transaction]]\nname = \"r\"\nstatements = [\"SELECT 1\"]\n",
    );
    let output = sandbox.run(&[
        "cleanup",
        "--profile",
        &profile,
        "--workload-file",
        workload.to_str().unwrap(),
    ]);
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stdout.contains("dropped 1 table(s): scratch"), "{stdout}");
    assert!(
        stdout.contains("kept 1 table(s) abtest did not create: orders"),
        "{stdout}"
    );
    assert!(
        stdout.contains("drop them yourself: DROP TABLE `orders`;"),
        "{stdout}"
    );
    assert_eq!(orders(&server), 1000);
}

/// The hook checks read the code the server runs: a write-path global set through an
/// executable comment is refused like the plain one, and `SET PERSIST` as well.
#[test]
fn hooks_are_checked_through_executable_comments() {
    let sandbox = Sandbox::new();
    for (i, (hook, needle)) in [
        (
            "/*!SET GLOBAL general_log_file = '/tmp/g.log'*/",
            "general_log_file",
        ),
        (
            "SET /*!GLOBAL*/ general_log_file = '/tmp/g.log'",
            "general_log_file",
        ),
        (
            "/*M!100000 SET GLOBAL general_log_file = '/tmp/g.log' */",
            "general_log_file",
        ),
        ("SET /*!PERSIST*/ max_connections = 10", "PERSIST"),
    ]
    .iter()
    .enumerate()
    {
        let profile = sandbox.write(
            &format!("hook{i}.toml"),
            &format!("[server]\n[hooks]\nsetup = [{}]\n", toml_string(hook)),
        );
        let output = sandbox.run(&[
            "--baseline",
            "profiles/mariadb.toml",
            "--variant",
            profile.to_str().unwrap(),
            "--dry-run",
        ]);
        let (_, stderr) = text(&output);
        assert_eq!(output.status.code(), Some(2), "{hook}: {stderr}");
        assert!(
            stderr.contains(&format!("hook{i}.toml:3")) && stderr.contains(needle),
            "{hook}: {stderr}"
        );
    }
}
