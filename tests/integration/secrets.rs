//! No password ever appears in any output: stdout, stderr, JSON, Markdown, HTML, CSV.

use std::collections::BTreeMap;

use mysql::prelude::Queryable;

use crate::support::{QUICK, Sandbox, server_lock, start_server, text};

const PASSWORD: &str = "Zq7-unique-PaSsW0rd-4f1c";

#[test]
fn passwords_never_reach_any_output() {
    let _lock = server_lock();
    let server = start_server(&BTreeMap::new(), 8);
    let mut admin = server.admin().unwrap();
    admin
        .query_drop(format!(
            "CREATE USER 'secret'@'localhost' IDENTIFIED BY '{PASSWORD}'"
        ))
        .unwrap();
    admin
        .query_drop("GRANT ALL ON sbtest.* TO 'secret'@'localhost'")
        .unwrap();
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
        stderr.contains("baseline: cannot connect") && stderr.contains("Access denied"),
        "{stderr}"
    );
    assert!(!stdout.contains(PASSWORD) && !stderr.contains(PASSWORD));
    drop(server);
}
