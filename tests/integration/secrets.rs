//! No password ever appears in any output: stdout, stderr, JSON, Markdown, HTML, CSV.

use std::collections::BTreeMap;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

use crate::support::{QUICK, Sandbox, TestServer, server_lock, start_server, text};

const PASSWORD: &str = "Zq7-unique-PaSsW0rd-4f1c";

#[test]
fn passwords_never_reach_any_output() {
    let _lock = server_lock();
    let server = start_server(&BTreeMap::new(), 8);
    server.add_user("secret", "localhost", Some(PASSWORD));
    let sandbox = Sandbox::new();
    let socket = server.socket().display().to_string();
    let from_env = sandbox.write(
        "env.toml",
        &format!("[connection]\nsocket = \"{socket}\"\nuser = \"secret\"\npassword_env = \"ABTEST_TEST_SECRET\"\n"),
    );
    let literal = sandbox.write(
        "literal.toml",
        &format!(
            "[connection]\nsocket = \"{socket}\"\nuser = \"secret\"\npassword = \"{PASSWORD}\"\n"
        ),
    );
    let outputs = ["r.json", "r.md", "r.html", "r.csv"].map(|name| sandbox.path(name));
    let mut args = vec![
        "--baseline".to_string(),
        from_env.display().to_string(),
        "--variant".to_string(),
        literal.display().to_string(),
        "--workload".to_string(),
        "oltp_point_select".to_string(),
        "--threads".to_string(),
        "2".to_string(),
        "--rounds".to_string(),
        "2".to_string(),
        "--report-interval".to_string(),
        "300ms".to_string(),
    ];
    args.extend(QUICK.iter().map(|s| s.to_string()));
    for (flag, path) in ["--json", "--markdown", "--html", "--csv"]
        .iter()
        .zip(&outputs)
    {
        args.extend([flag.to_string(), path.display().to_string()]);
    }
    let output = sandbox
        .abtest()
        .args(&args)
        .env("ABTEST_TEST_SECRET", PASSWORD)
        .output()
        .unwrap();
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stderr.contains("holds a literal password"), "{stderr}");
    let mut artefacts = vec![
        ("stdout".to_string(), stdout),
        ("stderr".to_string(), stderr),
    ];
    for path in &outputs {
        artefacts.push((
            path.display().to_string(),
            std::fs::read_to_string(path).unwrap(),
        ));
    }
    for (name, content) in &artefacts {
        assert!(!content.is_empty(), "{name} is empty");
        assert!(!content.contains(PASSWORD), "{name} contains the password");
    }
    // A wrong password is refused with the server's message, and still not echoed.
    let output = sandbox
        .abtest()
        .args([
            "--baseline",
            from_env.to_str().unwrap(),
            "--variant",
            from_env.to_str().unwrap(),
        ])
        .env("ABTEST_TEST_SECRET", format!("{PASSWORD}-wrong"))
        .output()
        .unwrap();
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "baseline ({}): cannot connect",
            from_env.display()
        )) && stderr.contains("ERROR 1045 (28000): Access denied"),
        "{stderr}"
    );
    assert!(
        stderr.contains("check `user` and the password (`password_file`, `password_env`"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("MySqlError {") && !stderr.contains("DriverError {"),
        "{stderr}"
    );
    assert!(!stdout.contains(PASSWORD) && !stderr.contains(PASSWORD));
    drop(server);
}

/// A server with user `filed` whose password is PASSWORD, and a profile for it.
fn server_with_password_user(sandbox: &Sandbox, extra: &str) -> (TestServer, PathBuf) {
    let server = start_server(&BTreeMap::new(), 2);
    server.add_user("filed", "127.0.0.1", Some(PASSWORD));
    let profile = sandbox.write(
        "filed.toml",
        &format!(
            "[connection]\nhost = \"127.0.0.1\"\nport = {}\nuser = \"filed\"\ndatabase = \"sbtest\"\n{extra}",
            server.port()
        ),
    );
    (server, profile)
}

#[test]
fn a_password_file_logs_in() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let file = sandbox.write("pw.txt", &format!("{PASSWORD}\n"));
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let (_server, profile) = server_with_password_user(
        &sandbox,
        &format!("password_file = \"{}\"\n", file.display()),
    );
    let output = sandbox.run(&["cleanup", "--profile", profile.to_str().unwrap()]);
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stdout.contains("dropped 0 table(s)"), "{stdout}");
    assert!(!stdout.contains(PASSWORD) && !stderr.contains(PASSWORD));
}

#[test]
fn a_password_typed_at_the_prompt_logs_in() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let (_server, profile) = server_with_password_user(&sandbox, "password_prompt = true\n");
    // script(1) gives abtest a terminal; what it reads there comes from our stdin.
    let command = format!(
        "{} cleanup --profile {}",
        env!("CARGO_BIN_EXE_abtest"),
        profile.display()
    );
    let mut child = std::process::Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .env("TMPDIR", sandbox.path("tmp"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("script(1) from util-linux runs");
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let reader = {
        let seen = seen.clone();
        let mut stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            let mut chunk = [0u8; 512];
            while let Ok(n) = std::io::Read::read(&mut stdout, &mut chunk) {
                if n == 0 {
                    break;
                }
                seen.lock().unwrap().extend_from_slice(&chunk[..n]);
            }
        })
    };
    let shown = || String::from_utf8_lossy(&seen.lock().unwrap()).into_owned();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !shown().contains("abtest: password for filed@127.0.0.1") {
        assert!(
            std::time::Instant::now() < deadline,
            "no prompt: {}",
            shown()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // The prompt is written just before echo is switched off.
    std::thread::sleep(std::time::Duration::from_millis(300));
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(format!("{PASSWORD}\n").as_bytes()).unwrap();
    let status = child.wait().unwrap();
    drop(stdin);
    reader.join().unwrap();
    let stdout = shown();
    assert_eq!(status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("dropped 0 table(s)"), "{stdout}");
    assert!(
        !stdout.contains(PASSWORD),
        "the typed password was echoed: {stdout}"
    );
}

/// Credentials a my.cnf and a profile's `[server.options]` give a managed server.
const OPTION_SECRETS: [&str; 4] = [
    "Sst-PaSs-71x",
    "FILEKEY-9d3e0a",
    "CliSrv-PaSs-5q",
    "Prof-PaSs-2zz",
];

/// A my.cnf with an SST credential and a file key (and, when `client_password`, a
/// `[client-server]` password, which mariadbd itself refuses to start with), and a
/// profile starting from it that sets a credential of its own.
fn profile_with_secrets(sandbox: &Sandbox, client_password: bool) -> PathBuf {
    let [sst, filekey, client, profile] = OPTION_SECRETS;
    let mut cnf = format!(
        "[mysqld]\nwsrep_sst_auth = sst:{sst}\nloose-file-key-management-filekey = {filekey}\n\
         key_buffer_size = 8M\n"
    );
    if client_password {
        cnf.push_str(&format!("[client-server]\npassword = {client}\n"));
    }
    sandbox.write("secret.cnf", &cnf);
    sandbox.write(
        "secret.toml",
        &format!(
            "name = \"with credentials\"\n[server]\ndefaults_file = \"secret.cnf\"\n\
             [server.options]\nwsrep_sst_auth = \"prof:{profile}\"\n"
        ),
    )
}

fn assert_no_option_secret(name: &str, content: &str) {
    assert!(!content.is_empty(), "{name} is empty");
    for secret in OPTION_SECRETS {
        assert!(
            !content.contains(secret),
            "{name} contains {secret}:\n{content}"
        );
    }
}

#[test]
fn option_credentials_are_masked_in_the_dry_run() {
    let sandbox = Sandbox::new();
    let profile = profile_with_secrets(&sandbox, true);
    let output = sandbox.dry_run_against_stock(&profile);
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stdout}{stderr}");
    assert_no_option_secret("the dry run", &(stdout.clone() + &stderr));
    assert!(stdout.contains("wsrep_sst_auth=***"), "{stdout}");
    // A non-secret option around keys stays readable.
    assert!(stdout.contains("key_buffer_size=8M"), "{stdout}");
}

#[test]
fn option_credentials_never_reach_the_plan_the_facts_or_a_report() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let profile = profile_with_secrets(&sandbox, false);
    let outputs = ["r.json", "r.md", "r.html", "r.csv", "r.xml"].map(|name| sandbox.path(name));
    let mut args = vec![
        "--baseline",
        profile.to_str().unwrap(),
        "--variant",
        "profiles/mariadb.toml",
        "--workload",
        "oltp_point_select",
        "--threads",
        "1",
        "--rounds",
        "2",
        "--max-tps-loss",
        "99%",
    ];
    args.extend(QUICK);
    for (flag, path) in ["--json", "--markdown", "--html", "--csv", "--junit"]
        .iter()
        .zip(&outputs)
    {
        args.extend([*flag, path.to_str().unwrap()]);
    }
    let output = sandbox.run(&args);
    let (stdout, stderr) = text(&output);
    assert!(
        matches!(output.status.code(), Some(0 | 3 | 4)),
        "{stdout}{stderr}"
    );
    let mut artefacts = vec![
        ("stdout".to_string(), stdout),
        ("stderr".to_string(), stderr),
    ];
    for path in &outputs {
        let content = std::fs::read_to_string(path).unwrap();
        artefacts.push((path.display().to_string(), content));
    }
    let json = outputs[0].to_str().unwrap();
    for format in ["table", "markdown", "html", "jira", "json"] {
        let output = sandbox.run(&["report", json, "--format", format]);
        artefacts.push((format!("report --format {format}"), text(&output).0));
    }
    for (name, content) in &artefacts {
        assert_no_option_secret(name, content);
    }
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    let target = &results["plan"]["sides"][0]["target"];
    assert_eq!(target["options"]["wsrep_sst_auth"], "***", "{target}");
}
