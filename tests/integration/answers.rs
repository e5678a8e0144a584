//! `--check-results`: the same sampled reads on both sides, on two real servers. Equal
//! data answers alike; a changed row, or a server setting that changes a division's
//! digits, is found, listed and made NO-GO unless `--allow-result-diff`; an error on one
//! side and a truncation are shown with their texts, and statements that read the clock
//! or chance are compared in part, never called a difference.

use mysql::prelude::Queryable;

use crate::support::{Sandbox, TestServer, assert_valid_results, server_lock, start_server, text};

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

const TROUBLE: &str = r#"
[params]
id = { type = "id" }

[[transaction]]
name = "reads"
statements = [
  "SELECT c FROM sbtest1 WHERE id = {id}",
  "SELECT id, NOW(6) FROM sbtest1 WHERE id = {id}",
  "SELECT k, c FROM sbtest1 WHERE id BETWEEN {id} AND {id} + 9 GROUP BY k",
  "SELECT GROUP_CONCAT(c) FROM sbtest1 WHERE id BETWEEN {id} AND {id} + 3",
  "SELECT id FROM sbtest1 WHERE id BETWEEN {id} AND {id} + 9 ORDER BY RAND() LIMIT 3",
  "SELECT id FROM sbtest1 WHERE id BETWEEN {id} AND {id} + 20 ORDER BY LEFT(c, 1) LIMIT 3",
]
"#;

const CLOCK: &str = "SELECT id, NOW(6) FROM sbtest1 WHERE id = {id}";
const GROUPED: &str = "SELECT k, c FROM sbtest1 WHERE id BETWEEN {id} AND {id} + 9 GROUP BY k";
const RANDOM: &str =
    "SELECT id FROM sbtest1 WHERE id BETWEEN {id} AND {id} + 9 ORDER BY RAND() LIMIT 3";
const TIES: &str =
    "SELECT id FROM sbtest1 WHERE id BETWEEN {id} AND {id} + 20 ORDER BY LEFT(c, 1) LIMIT 3";
const CONCAT: &str = "SELECT GROUP_CONCAT(c) FROM sbtest1 WHERE id BETWEEN {id} AND {id} + 3";

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
        self.run_workload(&self.workload, extra)
    }

    /// A short run of `workload` with its answers checked on 60 statements.
    fn run_workload(
        &self,
        workload: &str,
        extra: &[&str],
    ) -> (Option<i32>, serde_json::Value, String) {
        self.replay(workload, &[&["--check-results", "60"], extra].concat())
    }

    /// A short run of `workload`, two rounds a side, with `extra`.
    fn replay(&self, workload: &str, extra: &[&str]) -> (Option<i32>, serde_json::Value, String) {
        let mut args = vec![
            "--baseline",
            &self.profiles[0],
            "--variant",
            &self.profiles[1],
            "--workload-file",
            workload,
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
        ];
        args.extend(extra);
        let finished = self.sandbox.run_json(&args);
        (finished.code, finished.results, finished.output)
    }

    /// Runs `statements` on both servers, in order.
    fn on_both(&self, statements: &[&str]) {
        for server in &self.servers {
            let mut admin = server.admin().unwrap();
            for sql in statements {
                admin.query_drop(sql).unwrap();
            }
        }
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
    assert!(
        results["result_check"]["data_differs"]
            .as_str()
            .is_some_and(|d| d.contains("CHECKSUM TABLE sbtest.sbtest1")),
        "the sides' data were compared first: {}",
        results["result_check"]
    );
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

const CLASSES: &str = r#"
[params]
id = { type = "id" }

[[transaction]]
name = "read"
statements = [
  "SELECT c FROM sbtest1 WHERE id = {id}",
  "SELECT id, c FROM sbtest1 WHERE c >= '' AND id <> 3 AND id <= {id} + 1000",
  "SELECT no_such_column FROM sbtest1 WHERE id = {id}",
]
"#;

#[test]
fn answers_are_compared_class_by_class_as_multisets_and_a_shared_error_is_not_agreement() {
    let _lock = server_lock();
    let pair = Pair::start();
    let workload = pair.sandbox.write("classes.toml", CLASSES);
    let workload = workload.to_str().unwrap();
    let (code, _, output) = pair.run_workload(workload, &[]);
    assert_eq!(
        code,
        Some(1),
        "the missing column fails the rounds: {output}"
    );
    // The variant: one row changed, and an index that serves the second statement in
    // the order of `c` instead of `id`.
    pair.on_variant("UPDATE sbtest.sbtest1 SET c = 'changed' WHERE id = 3");
    pair.on_variant("ALTER TABLE sbtest.sbtest1 ADD INDEX by_c (c)");
    let (code, results, output) = pair.run_workload(workload, &["--prepare", "never"]);
    assert_eq!(code, Some(3), "{output}");
    let check = &results["result_check"];
    assert_eq!(check["classes"], 3, "{check}");
    let classes = |list: &str| -> Vec<String> {
        check[list]
            .as_array()
            .map(|l| {
                l.iter()
                    .map(|d| d["class"].as_str().unwrap().to_string())
                    .collect()
            })
            .unwrap_or_default()
    };
    assert_eq!(
        classes("differences"),
        ["SELECT c FROM sbtest1 WHERE id = {id}"]
    );
    assert_eq!(
        classes("not_compared"),
        ["SELECT no_such_column FROM sbtest1 WHERE id = {id}"],
        "the same error on both sides is not the same answer"
    );
    assert_eq!(
        classes("order_only"),
        ["SELECT id, c FROM sbtest1 WHERE c >= '' AND id <> 3 AND id <= {id} + 1000"],
        "same rows in another order are not a difference: {check}"
    );
    assert_eq!(
        results["rounds"].as_array().map(Vec::len),
        Some(0),
        "the timed rounds do not run after different answers"
    );
    assert!(
        results["stopped"]
            .as_str()
            .is_some_and(|s| s.contains("--continue-after-differences")),
        "{results}"
    );
    assert!(
        output.contains("NO-GO: 1 of 3 query classes answer differently"),
        "{output}"
    );
    // Only order would differ: a warning by default, NO-GO with --check-order.
    pair.on_variant("UPDATE sbtest.sbtest1 SET c = (SELECT c FROM (SELECT c FROM sbtest.sbtest1 WHERE id = 4) AS other) WHERE id = 3");
    pair.servers[0]
        .admin()
        .unwrap()
        .query_drop("UPDATE sbtest.sbtest1 SET c = (SELECT c FROM (SELECT c FROM sbtest.sbtest1 WHERE id = 4) AS other) WHERE id = 3")
        .unwrap();
    let order_only = pair.sandbox.write(
        "order.toml",
        &CLASSES.replace(
            "  \"SELECT no_such_column FROM sbtest1 WHERE id = {id}\",\n",
            "",
        ),
    );
    let order_only = order_only.to_str().unwrap();
    let (code, results, output) = pair.run_workload(order_only, &["--prepare", "never"]);
    assert_eq!(code, Some(0), "{output}");
    assert!(
        output.contains("same rows, other order: 1 class"),
        "{output}"
    );
    assert!(!results["rounds"].as_array().unwrap().is_empty());
    let (code, _, output) = pair.run_workload(order_only, &["--prepare", "never", "--check-order"]);
    assert_eq!(code, Some(3), "{output}");
}

#[test]
fn one_server_set_apart_by_hooks_is_checked_with_each_sides_settings() {
    let _lock = server_lock();
    let server = start_server(&Default::default(), 8);
    let sandbox = Sandbox::new();
    let mode = |extra: &str| {
        format!(
            "[hooks]\nbefore_round = [\"SET GLOBAL sql_mode = 'STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION{extra}'\"]\n"
        )
    };
    let baseline = server.socket_profile(&sandbox, "plain.toml", &mode(""));
    let variant = server.socket_profile(&sandbox, "pipes.toml", &mode(",PIPES_AS_CONCAT"));
    let workload = sandbox.write(
        "concat.toml",
        "[params]\nid = { type = \"id\" }\n[[transaction]]\nname = \"r\"\nstatements = [\"SELECT c || 'x' FROM sbtest1 WHERE id = {id}\"]\n",
    );
    let finished = sandbox.run_json(&[
        "--baseline",
        &baseline,
        "--variant",
        &variant,
        "--workload-file",
        workload.to_str().unwrap(),
        "--table-size",
        "10",
        "--range-size",
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
        "10",
    ]);
    assert_eq!(finished.code, Some(3), "{}", finished.output);
    assert_eq!(
        finished.results["result_check"]["differences"][0]["class"],
        "SELECT c || 'x' FROM sbtest1 WHERE id = {id}",
        "{}",
        finished.output
    );
}

#[test]
fn an_unchanged_pair_under_concurrent_writes_explains_every_difference() {
    let _lock = server_lock();
    let pair = Pair::start();
    let (code, _, output) = pair.run(&[]);
    assert_eq!(code, Some(0), "{output}");
    // Another client keeps writing to both sides, as production does while a check runs.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writers: Vec<_> = pair
        .servers
        .iter()
        .map(|server| {
            let mut conn = server.admin().unwrap();
            let stop = std::sync::Arc::clone(&stop);
            std::thread::spawn(move || {
                let mut id = 0;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    id = id % 10 + 1;
                    conn.query_drop(format!(
                        "UPDATE sbtest.sbtest1 SET k = k + 1 WHERE id = {id}"
                    ))
                    .unwrap();
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
            })
        })
        .collect();
    let (_, results, output) = pair.run(&["--prepare", "never"]);
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    writers.into_iter().for_each(|w| w.join().unwrap());
    let check = &results["result_check"];
    let note = check["data_differs"].as_str().unwrap_or_default();
    assert!(
        note.contains("data changed while the answers were compared"),
        "the writes are seen and said: {check}\n{output}"
    );
    let differences = check["differences"].as_array().map_or(0, Vec::len);
    eprintln!("differences under concurrent writes: {differences} classes, explained: {note}");
}

/// One planted change per kind of trouble a pre-upgrade check meets: the variant rejects
/// a GROUP BY under a stricter sql_mode (an error on one side) and truncates
/// GROUP_CONCAT (a different answer with a warning); the workload also reads the clock
/// and sorts at random (non-deterministic), and sorts on a column with ties under a
/// LIMIT. Each is found for what it is: the error and the truncation as differences with
/// their texts, the clock and the random order compared in part and never called a
/// difference, the ties no difference.
#[test]
fn every_kind_of_answer_trouble_is_found_for_what_it_is() {
    let _lock = server_lock();
    let pair = Pair::start();
    pair.on_variant("SET GLOBAL sql_mode = 'ONLY_FULL_GROUP_BY'");
    pair.on_variant("SET GLOBAL group_concat_max_len = 20");
    let workload = pair.sandbox.write("trouble.toml", TROUBLE);
    let (code, results, output) = pair.run_workload(workload.to_str().unwrap(), &[]);
    // The answers differ: NO-GO, and the timed rounds do not run.
    assert_eq!(code, Some(3), "{output}");
    assert_valid_results(&results);
    let check = &results["result_check"];
    let classes = |key: &str| -> Vec<String> {
        check[key]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|d| d["class"].as_str().unwrap().to_string())
                    .collect()
            })
            .unwrap_or_default()
    };
    let differences = classes("differences");
    assert!(
        differences.contains(&GROUPED.to_string()) && differences.contains(&CONCAT.to_string()),
        "{check:#}"
    );
    assert_eq!(differences.len(), 2, "{check:#}");
    for kin in [CLOCK, RANDOM] {
        assert!(
            classes("not_comparable").contains(&kin.to_string()),
            "{kin}: {check:#}"
        );
    }
    // Ties under an ORDER BY with a LIMIT: both sides run one plan on one data, so no
    // difference (and were they picked otherwise, the rerun would say so).
    assert!(!differences.contains(&TIES.to_string()), "{check:#}");
    let concat = check["differences"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["class"] == CONCAT)
        .unwrap();
    assert!(
        concat["variant_warnings"]
            .to_string()
            .contains("GROUP_CONCAT"),
        "the warning's text: {concat:#}"
    );
    assert!(
        output.contains("NO-GO") && output.contains("Warning 1260"),
        "{output}"
    );
}

const TWO_TRANSACTIONS: &str = r#"
[params]
id = { type = "id" }

[[transaction]]
name = "lookup"
statements = ["SELECT c FROM sbtest1 WHERE id = {id}"]

[[transaction]]
name = "grouped"
statements = ["SELECT k, c FROM sbtest1 WHERE id BETWEEN {id} AND {id} + 9 GROUP BY k"]
"#;

/// A class that fails on the variant only (a GROUP BY under ONLY_FULL_GROUP_BY) is an
/// error difference, and with --continue-after-differences the timed rounds run without
/// its transaction, saying so, instead of every variant round ending on its error.
#[test]
fn a_class_that_fails_on_one_side_is_left_out_of_the_timed_rounds() {
    let _lock = server_lock();
    let pair = Pair::start();
    pair.on_variant("SET GLOBAL sql_mode = 'ONLY_FULL_GROUP_BY'");
    let workload = pair.sandbox.write("two.toml", TWO_TRANSACTIONS);
    let (code, results, output) = pair.run_workload(
        workload.to_str().unwrap(),
        &["--continue-after-differences"],
    );
    assert_eq!(code, Some(3), "NO-GO on the answers: {output}");
    assert_valid_results(&results);
    let grouped = results["result_check"]["differences"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["class"] == GROUPED)
        .unwrap_or_else(|| panic!("{results:#}"));
    assert_eq!(grouped["failed_on"], "variant", "{grouped:#}");
    // The prepare check found it too; the judge counts the difference once.
    assert_eq!(results["prepare_check"]["one_sided"][0]["class"], GROUPED);
    let judged = results["analysis_warnings"].to_string();
    assert!(!judged.contains("cannot be prepared"), "{judged}");
    let rounds = results["rounds"].as_array().unwrap();
    assert_eq!(rounds.len(), 4, "every round ran: {output}");
    for round in rounds {
        assert_eq!(round["status"], "completed", "{round:#}");
        let classes = round["classes"].to_string();
        assert!(
            !classes.contains("GROUP BY") && classes.contains("WHERE id ="),
            "{classes}"
        );
    }
    let warnings = results["warnings"].to_string();
    assert!(
        warnings.contains("left out of the timed rounds") && warnings.contains("grouped"),
        "{warnings}"
    );
    assert!(output.contains("left out of the timed rounds"), "{output}");
}

/// Without an answers check, the same class is found by preparing every statement on
/// both sides before the rounds: the variant's refusal is a NO-GO of its own, saved in
/// the results, and the rounds run without its transaction.
#[test]
fn a_class_one_side_refuses_to_prepare_is_found_without_an_answers_check() {
    let _lock = server_lock();
    let pair = Pair::start();
    pair.on_variant("SET GLOBAL sql_mode = 'ONLY_FULL_GROUP_BY'");
    let workload = pair.sandbox.write("two.toml", TWO_TRANSACTIONS);
    let (code, results, output) = pair.replay(workload.to_str().unwrap(), &[]);
    assert_eq!(code, Some(3), "NO-GO on the refused class: {output}");
    assert_valid_results(&results);
    assert!(results.get("result_check").is_none(), "{results:#}");
    let check = &results["prepare_check"];
    assert_eq!(check["statements"], 2, "{check:#}");
    let refused = &check["one_sided"][0];
    assert_eq!(refused["class"], GROUPED, "{check:#}");
    assert_eq!(refused["failed_on"], "variant", "{check:#}");
    assert!(
        refused["error"].as_str().unwrap().contains("1055"),
        "{check:#}"
    );
    let rounds = results["rounds"].as_array().unwrap();
    assert_eq!(rounds.len(), 4, "every round ran: {output}");
    for round in rounds {
        assert_eq!(round["status"], "completed", "{round:#}");
        assert!(
            !round["classes"].to_string().contains("GROUP BY"),
            "{round:#}"
        );
    }
    let said = results["analysis_warnings"].to_string();
    assert!(
        said.contains("NO-GO: query class") && said.contains("cannot be prepared on the variant"),
        "{said}"
    );
    assert!(output.contains("left out of the timed rounds"), "{output}");
    assert!(
        output.contains("cannot be prepared on the variant"),
        "{output}"
    );

    let (code, results, output) = pair.replay(workload.to_str().unwrap(), &["--allow-result-diff"]);
    assert_ne!(code, Some(2), "{output}");
    let said = results["analysis_warnings"].to_string();
    assert!(
        said.contains("allowed by --allow-result-diff") && !said.contains("NO-GO: query class"),
        "speed judged, the refusal said: {said}"
    );
}

const READS_AND_WRITES: &str = r#"
writes = true

[params]
id = { type = "id" }

[[transaction]]
name = "lookup"
statements = ["SELECT c FROM sbtest1 WHERE id = {id}"]

[[transaction]]
name = "divide"
statements = ["SELECT k / 7 FROM sbtest1 WHERE id = {id}"]

[[transaction]]
name = "touch"
weight = 5
statements = ["UPDATE sbtest1 SET k = k + 1 WHERE id = {id}"]
"#;

/// `--check-only` on a log that writes, against external servers: no --allow-writes
/// asked, no timed round, the writes skipped (the data of both sides unchanged), the
/// verdict on the answers alone; `--exclude-class` leaves a read class unchecked.
#[test]
fn check_only_compares_the_answers_of_a_log_with_writes_and_writes_nothing() {
    let _lock = server_lock();
    let pair = Pair::start();
    let workload = pair.sandbox.write("mixed.toml", READS_AND_WRITES);
    let workload = workload.to_str().unwrap();
    // The first run prepares the sbtest tables; the checksums are taken after it.
    let (code, results, output) = pair.run_workload(workload, &["--check-only"]);
    assert_eq!(code, Some(0), "GO on the answers: {output}");
    assert_valid_results(&results);
    assert_eq!(
        results["rounds"].as_array().map_or(0, Vec::len),
        0,
        "{output}"
    );
    assert_eq!(results["verdict"], "GO", "{output}");
    assert!(output.contains("1 write query class(es)"), "{output}");
    let sums = || pair.servers.each_ref().map(super::parity::checksum);
    let before = sums();
    let (code, results, output) =
        pair.run_workload(workload, &["--check-only", "--exclude-class", "k / 7"]);
    assert_eq!(code, Some(0), "{output}");
    assert_eq!(sums(), before, "nothing was written: {output}");
    assert_eq!(
        results["result_check"]["classes"], 1,
        "{:#}",
        results["result_check"]
    );
    // Without --check-only the same file is refused against external servers.
    let (code, _, output) = pair.run_workload(workload, &[]);
    assert_eq!(code, Some(2), "{output}");
    assert!(output.contains("--allow-writes"), "{output}");
}

const ORDERS: &str = r#"
writes = true
sbtest = false
tables = ["orders"]
setup = ["CREATE TABLE IF NOT EXISTS orders (id INT AUTO_INCREMENT PRIMARY KEY, customer INT NOT NULL, total INT NOT NULL)"]

[params]
customer = { type = "int", min = 1, max = 3 }

[[transaction]]
name = "new_order"
statements = ["INSERT INTO orders (customer, total) VALUES ({customer}, 5)"]

[[transaction]]
name = "pay"
statements = ["UPDATE orders SET total = total + 1 WHERE customer = {customer}"]

[[transaction]]
name = "cancel"
statements = ["DELETE FROM orders WHERE id > 6 AND customer = {customer}"]

[[transaction]]
name = "read"
statements = ["SELECT SUM(total) FROM orders WHERE customer = {customer}"]
"#;

/// A captured log's INSERTs: `new_order` inserts ids drawn from the two captured ones,
/// `reorder` deletes a captured id and inserts it again (one value in two statements).
const CAPTURED_INSERTS: &str = r#"
writes = true
sbtest = false

[params]
id = { type = "choice", values = [7, 8] }
again = { type = "choice", values = [2] }
customer = { type = "int", min = 1, max = 3 }

[[transaction]]
name = "new_order"
weight = 3
statements = ["INSERT INTO orders (id, customer, total) VALUES ({id}, {customer}, 5)"]

[[transaction]]
name = "reorder"
begin = true
statements = ["DELETE FROM orders WHERE id = {again}", "INSERT INTO orders (id, customer, total) VALUES ({again}, 1, 1)"]
"#;

/// Captured INSERT ids on two real servers: the id of `new_order`, alone in its
/// transaction and bound to the table's AUTO_INCREMENT column, is left to the server
/// (no duplicate key however often 7 and 8 are drawn; the rows get ids from the
/// counter), while `reorder`'s id, which its DELETE also uses, is sent as captured.
#[test]
fn captured_insert_ids_are_assigned_by_the_server_unless_the_transaction_ties_them() {
    let _lock = server_lock();
    let pair = Pair::start();
    pair.on_both(&[
        "CREATE DATABASE IF NOT EXISTS sbtest",
        "CREATE TABLE sbtest.orders (id INT AUTO_INCREMENT PRIMARY KEY, \
         customer INT NOT NULL, total INT NOT NULL) AUTO_INCREMENT = 50",
        "INSERT INTO sbtest.orders (id, customer, total) VALUES (1, 1, 10), (2, 2, 20)",
    ]);
    let workload = pair.sandbox.write("captured.toml", CAPTURED_INSERTS);
    let workload = workload.to_str().unwrap();
    let md = pair.sandbox.path("report.md");
    let (code, results, output) = pair.replay(
        workload,
        &[
            "--allow-writes",
            "--allow-foreign-tables",
            "--no-restore-data",
            "--markdown",
            md.to_str().unwrap(),
        ],
    );
    assert_eq!(code, Some(0), "no duplicate key: {output}");
    assert_valid_results(&results);
    assert_eq!(
        results["assigned_ids"],
        serde_json::json!(["orders.id"]),
        "{output}"
    );
    assert!(
        output.contains("Captured INSERT ids re-based: orders.id"),
        "{output}"
    );
    let report = std::fs::read_to_string(&md).unwrap();
    assert!(report.contains("Captured INSERT ids re-based"), "{report}");
    for server in &pair.servers {
        let mut admin = server.admin().unwrap();
        let captured: u64 = admin
            .query_first("SELECT COUNT(*) FROM sbtest.orders WHERE id IN (7, 8)")
            .unwrap()
            .unwrap();
        let assigned: u64 = admin
            .query_first("SELECT COUNT(*) FROM sbtest.orders WHERE id >= 50")
            .unwrap()
            .unwrap();
        let tied: Option<(u32, u32)> = admin
            .query_first("SELECT customer, total FROM sbtest.orders WHERE id = 2")
            .unwrap();
        assert_eq!(captured, 0, "no captured id was inserted: {output}");
        assert!(assigned > 1, "the server assigned the ids: {assigned}");
        assert_eq!(tied, Some((1, 1)), "the tied id was sent as captured");
    }
}

/// A replay that writes (`writes = true`) on two real servers: the table it writes is
/// copied before the first round and put back before every round and at the end, so
/// each server's table ends as it began (rows, checksum, AUTO_INCREMENT counter; a
/// generated column computed again), the
/// report says so, and no copy is left; `--no-restore-data` leaves the writes in place.
#[test]
fn a_replay_that_writes_puts_the_tables_back_before_every_round_and_at_the_end() {
    let _lock = server_lock();
    let pair = Pair::start();
    pair.on_both(&[
        "CREATE DATABASE IF NOT EXISTS sbtest",
        "CREATE TABLE sbtest.orders (id INT AUTO_INCREMENT PRIMARY KEY, \
         customer INT NOT NULL, total INT NOT NULL, \
         doubled INT AS (total * 2) VIRTUAL) AUTO_INCREMENT = 50",
        "INSERT INTO sbtest.orders (id, customer, total) VALUES (1, 1, 10), (2, 2, 20), (6, 3, 30)",
    ]);
    let state = || {
        pair.servers.each_ref().map(|s| {
            let mut admin = s.admin().unwrap();
            let sum: Option<(String, u64)> =
                admin.query_first("CHECKSUM TABLE sbtest.orders").unwrap();
            let next: Option<u64> = admin
                .query_first(
                    "SELECT AUTO_INCREMENT FROM information_schema.TABLES \
                     WHERE TABLE_SCHEMA = 'sbtest' AND TABLE_NAME = 'orders'",
                )
                .unwrap();
            let copies: Vec<String> = admin
                .query(
                    "SELECT TABLE_NAME FROM information_schema.TABLES \
                     WHERE TABLE_NAME LIKE 'abtest_kept%'",
                )
                .unwrap();
            (sum.unwrap().1, next, copies)
        })
    };
    let before = state();
    let workload = pair.sandbox.write("orders.toml", ORDERS);
    let workload = workload.to_str().unwrap();
    let md = pair.sandbox.path("report.md");
    let (code, results, output) = pair.replay(
        workload,
        &["--allow-writes", "--markdown", md.to_str().unwrap()],
    );
    assert_eq!(code, Some(0), "{output}");
    assert_valid_results(&results);
    assert_eq!(
        state(),
        before,
        "both tables as they began, no copy left: {output}"
    );
    let restore = &results["data_restore"];
    assert_eq!(
        restore["tables"],
        serde_json::json!([{"name": "orders", "rows": 3}])
    );
    assert_eq!(restore["checked"], true, "{restore:#}");
    let rounds = results["rounds"].as_array().map_or(0, Vec::len);
    assert_eq!(rounds, 4, "{output}");
    assert_eq!(
        restore["restores_s"].as_array().map_or(0, Vec::len),
        rounds,
        "before every round but each server's first, and once per server at the end: \
         {restore:#}"
    );
    assert!(
        output.contains("both servers' tables ended as they began"),
        "{output}"
    );
    let report = std::fs::read_to_string(&md).unwrap();
    assert!(
        report.contains("Writes replayed on kept data: 1 table(s)"),
        "{report}"
    );
    assert!(!output.contains("their tables now differ"), "{output}");
    // Without it the writes stay, and the run says the servers' data changed.
    let (code, results, output) = pair.replay(workload, &["--allow-writes", "--no-restore-data"]);
    assert_eq!(code, Some(0), "{output}");
    assert!(results.get("data_restore").is_none(), "{results:#}");
    assert_ne!(state(), before, "the writes stayed: {output}");
    assert!(output.contains("their tables now differ"), "{output}");
}
