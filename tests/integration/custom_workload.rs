//! `--workload-file`: the user's own SQL, weighted and parameterised, on real servers.

use serde_json::Value;

use crate::support::{QUICK, Sandbox, server_lock, text};

#[test]
fn custom_workload_runs_its_weighted_transactions() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let json = sandbox.path("custom.json");
    let mut args = vec![
        "--baseline",
        "profiles/mariadb.toml",
        "--variant",
        "profiles/mariadb.toml",
        "--workload-file",
        "workloads/lookup-and-touch.toml",
        "--tables",
        "2",
        "--threads",
        "2",
        "--rounds",
        "2",
        "--ps-mode",
        "disable",
        "--json",
        json.to_str().unwrap(),
    ];
    args.extend(QUICK);
    let output = sandbox.run(&args);
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stdout}{stderr}");
    let results: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(results["plan"]["workload"]["name"], "custom");
    for round in results["rounds"].as_array().unwrap() {
        let q = &round["queries"];
        let (reads, writes, other) = (
            q["read"].as_f64().unwrap(),
            q["write"].as_f64().unwrap(),
            q["other"].as_f64().unwrap(),
        );
        let touches = writes / 2.0;
        assert_eq!(
            other,
            2.0 * touches,
            "BEGIN and COMMIT around every touch: {round}"
        );
        let lookup_share = reads / (reads + touches);
        assert!(
            (0.85..0.95).contains(&lookup_share),
            "weights 9:1 give {lookup_share}"
        );
        assert_eq!(round["transactions"].as_f64().unwrap(), reads + touches);
    }
}

#[test]
fn bad_workload_file_names_line_and_statement() {
    let sandbox = Sandbox::new();
    let bad = sandbox.write(
        "w.toml",
        "[params]\nid = { type = \"id\" }\n\n[[transaction]]\nname = \"q\"\nstatements = [\"SELECT {id}\", \"SELECT {idd}\"]\n",
    );
    let output = sandbox.run(&[
        "--baseline",
        "profiles/mariadb.toml",
        "--variant",
        "profiles/mariadb.toml",
        "--workload-file",
        bad.to_str().unwrap(),
    ]);
    let (_, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("w.toml:6: transaction `q`, statement 2: unknown parameter {idd}"),
        "{stderr}"
    );
}

#[test]
fn a_statement_the_server_cannot_prepare_is_named_with_its_transaction() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let workload = sandbox.write(
        "broken.toml",
        "[params]\nid = { type = \"id\" }\n[[transaction]]\nname = \"good\"\nstatements = [\"SELECT c FROM sbtest1 WHERE id = {id}\"]\n\
         [[transaction]]\nname = \"broken\"\nstatements = [\"SELECT FROM sbtest1 WHERE id = {id}\"]\n",
    );
    let mut args = vec![
        "--baseline",
        "profiles/mariadb.toml",
        "--variant",
        "profiles/mariadb.toml",
        "--workload-file",
        workload.to_str().unwrap(),
        "--threads",
        "1",
        "--rounds",
        "2",
    ];
    args.extend(QUICK);
    let output = sandbox.run(&args);
    let (_, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(
            "while preparing `SELECT FROM sbtest1 WHERE id = ?` of transaction \"broken\""
        ),
        "{stderr}"
    );
}
