//! `--check-results`: the same sampled reads on both sides, on two real servers. Equal
//! data answers alike; a changed row, or a server setting that changes a division's
//! digits, is found, listed and made NO-GO unless `--allow-result-diff`.

use mysql::prelude::Queryable;

use crate::support::{Sandbox, TestServer, server_lock, start_server, text};

const WORKLOAD: &str = r#"
[params]
id = { type = "id" }

[[transaction]]
name = "read"
statements = [
  "SELECT c FROM sbtest1 WHERE id = {id}",
  "SELECT k / 7 FROM sbtest1 WHERE id = {id}",
]
"#;

struct Pair {
    servers: [TestServer; 2],
    sandbox: Sandbox,
    profiles: [String; 2],
    workload: String,
}

impl Pair {
    fn start() -> Pair {
        let servers = [(); 2].map(|_| start_server(&Default::default(), 8));
        let sandbox = Sandbox::new();
        let profiles =
            [0, 1].map(|i| servers[i].socket_profile(&sandbox, &format!("side-{i}.toml"), ""));
        let workload = sandbox.write("reads.toml", WORKLOAD).display().to_string();
        Pair {
            servers,
            sandbox,
            profiles,
            workload,
        }
    }

    fn run(&self, extra: &[&str]) -> (Option<i32>, serde_json::Value, String) {
        let mut args = vec![
            "--baseline",
            &self.profiles[0],
            "--variant",
            &self.profiles[1],
            "--workload-file",
            &self.workload,
            "--table-size",
            "10",
            "--range-size",
            "5",
            "--seed",
            "5",
            "--threads",
            "1",
            "--rounds",
            "2",
            "--round-time",
            "1s",
            "--warmup",
            "0s",
            "--check-results",
            "60",
        ];
        args.extend(extra);
        let finished = self.sandbox.run_json(&args);
        (finished.code, finished.results, finished.output)
    }

    fn on_variant(&self, sql: &str) {
        self.servers[1].admin().unwrap().query_drop(sql).unwrap();
    }
}

#[test]
fn answers_that_differ_are_listed_and_make_the_run_no_go() {
    let _lock = server_lock();
    let pair = Pair::start();
    let (code, results, output) = pair.run(&[]);
    assert_eq!(code, Some(0), "{output}");
    assert_eq!(results["result_check"]["statements"], 60, "{results}");
    assert_eq!(
        results["result_check"]["differences"],
        serde_json::json!([])
    );
    assert!(output.contains("same answers to 60"), "{output}");

    pair.on_variant("UPDATE sbtest.sbtest1 SET c = 'changed' WHERE id = 3");
    let (code, results, output) = pair.run(&["--prepare", "never"]);
    assert_eq!(code, Some(3), "a changed row is NO-GO: {output}");
    assert_eq!(results["verdict"], "NO-GO");
    let differences = results["result_check"]["differences"].as_array().unwrap();
    assert!(!differences.is_empty());
    assert!(
        differences
            .iter()
            .all(|d| d["params"][0] == "3"
                && d["statement"].as_str().unwrap().contains("SELECT c FROM")),
        "{differences:?}"
    );
    assert!(
        differences[0]["variant"]
            .as_str()
            .unwrap()
            .contains("changed"),
        "{differences:?}"
    );
    let report = pair.sandbox.path("answers.md");
    let output = pair.sandbox.run(&[
        "report",
        pair.sandbox.path("results.json").to_str().unwrap(),
        "--format",
        "markdown",
        "-o",
        report.to_str().unwrap(),
    ]);
    // The saved run is NO-GO (its answers differ): the report says so with exit 3.
    assert_eq!(output.status.code(), Some(3), "{:?}", text(&output));
    let markdown = std::fs::read_to_string(&report).unwrap();
    assert!(
        markdown.contains("## Answers") && markdown.contains("changed"),
        "{markdown}"
    );

    let (code, _, output) = pair.run(&["--prepare", "never", "--allow-result-diff"]);
    assert_eq!(code, Some(0), "allowed: {output}");

    pair.on_variant("UPDATE sbtest.sbtest1 SET c = (SELECT c FROM (SELECT c FROM sbtest.sbtest1 WHERE id = 4) AS other) WHERE id = 3");
    pair.servers[0]
        .admin()
        .unwrap()
        .query_drop("UPDATE sbtest.sbtest1 SET c = (SELECT c FROM (SELECT c FROM sbtest.sbtest1 WHERE id = 4) AS other) WHERE id = 3")
        .unwrap();
    pair.on_variant("SET GLOBAL div_precision_increment = 9");
    let (code, results, output) = pair.run(&["--prepare", "never"]);
    assert_eq!(code, Some(3), "a different division is NO-GO: {output}");
    let differences = results["result_check"]["differences"].as_array().unwrap();
    assert!(
        !differences.is_empty()
            && differences
                .iter()
                .all(|d| d["statement"].as_str().unwrap().contains("k / 7")),
        "{differences:?}"
    );
}
