//! Which query classes got slower, on two real servers: the variant loses the index one
//! class reads through, and the query classes table puts that class first, significantly
//! slower and far ahead of the class that never used the index. That class is not left
//! untouched: on the same connection it runs right after a 50 000-row scan, whose cache
//! misses it pays for (measured +28 % to +180 %), so the test asks for a wide margin, not
//! for no change.

use crate::support::{Finished, Sandbox, assert_valid_results, server_lock, start_server};

const WORKLOAD: &str = r#"
[params]
id = { type = "id" }
k = { type = "id" }

[[transaction]]
name = "lookups"
statements = [
  "SELECT c FROM sbtest1 WHERE id = {id}",
  "SELECT COUNT(*) FROM sbtest1 WHERE k = {k}",
]
"#;

const BY_K: &str = "SELECT COUNT(*) FROM sbtest1 WHERE k = {k}";

/// `workload` on two real servers of 50 000 rows, one thread, the variant without the
/// index `k_1` and with its optimizer's index merge switched off (a plan change: an `OR`
/// of two indexed columns is read by a scan instead of two lookups), with `args` after
/// the common ones.
fn without_index(sandbox: &Sandbox, workload: &str, args: &[&str]) -> Finished {
    let _lock = server_lock();
    let no_index_merge = [(
        "optimizer_switch".to_string(),
        "index_merge=off".to_string(),
    )];
    let servers =
        [Default::default(), no_index_merge.into()].map(|options| start_server(&options, 4));
    let baseline = servers[0].socket_profile(sandbox, "baseline.toml", "");
    let variant = servers[1].socket_profile(
        sandbox,
        "variant.toml",
        "[hooks]\nsetup = [\"ALTER TABLE sbtest1 DROP INDEX k_1\"]\n",
    );
    let workload = sandbox.write("lookups.toml", workload);
    let common = [
        "--baseline",
        &baseline,
        "--variant",
        &variant,
        "--workload-file",
        workload.to_str().unwrap(),
        "--table-size",
        "50000",
        "--threads",
        "1",
        "--round-time",
        "1s",
        "--warmup",
        "0s",
    ];
    sandbox.run_json(&[&common[..], args].concat())
}

#[test]
fn the_class_that_lost_its_index_comes_first_far_ahead_of_the_others() {
    let sandbox = Sandbox::new();
    // Eight rounds, not five: on a busy host five paired rounds left the interval of a
    // real tenfold slowdown open at Holm p 0.08.
    let finished = without_index(&sandbox, WORKLOAD, &["--seed", "11", "--rounds", "8"]);
    assert_eq!(finished.code, Some(0), "{}", finished.output);
    let results = &finished.results;
    assert_valid_results(results);
    let classes = results["query_classes"].as_array().expect("query classes");
    let names: Vec<&str> = classes
        .iter()
        .map(|c| c["class"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [BY_K, "SELECT c FROM sbtest1 WHERE id = {id}"],
        "slowest change first: {classes:#?}"
    );
    let slowed = &classes[0];
    let change = |c: &serde_json::Value| c["change_pct"].as_f64().unwrap();
    assert!(
        slowed["significant"] == true && change(slowed) > 500.0,
        "a full scan of 50 000 rows instead of an index lookup: {slowed}"
    );
    // The lookup by id never used the index: it is not found slower, or is far behind
    // the class that lost its index. On a saturated host it can be found slower for a
    // real reason: on the same connection it runs right after the scan, whose CPU
    // time the scheduler then takes back from it. Its ratio stays a few times smaller.
    let ratio = |c: &serde_json::Value| 1.0 + change(c) / 100.0;
    assert!(
        classes[1]["significant"] == false || ratio(slowed) > 3.0 * ratio(&classes[1]),
        "the lookup by id never used the index: {classes:#?}"
    );
    assert_eq!(slowed["calls_per_tx"], serde_json::json!([1.0, 1.0]));
    // Every round keeps each class's calls and histogram, so a report can be drawn again.
    let round = &results["rounds"][0];
    let calls: u64 = round["classes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["calls"].as_u64().unwrap())
        .sum();
    assert_eq!(calls, 2 * round["transactions"].as_u64().unwrap());
    assert!(
        finished
            .output
            .contains("Query classes, slowest change first")
            && finished.output.contains("slower"),
        "{}",
        finished.output
    );
    for format in ["markdown", "html", "jira", "json"] {
        let output = sandbox.run(&[
            "report",
            sandbox.path("results.json").to_str().unwrap(),
            "--format",
            format,
        ]);
        let report = String::from_utf8_lossy(&output.stdout);
        // Jira escapes `*` and `{`: the class is found by its words.
        assert!(
            report.contains("FROM sbtest1 WHERE k = ")
                && (report.contains("Query classes") || report.contains("\"query_classes\"")),
            "{format}: {report}\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

/// A third class reads through `k_1` by name: on the variant, which lost the index, it
/// fails (1176) and is left out of the class timing with its error. A fourth reads
/// `sbtest2`, which keeps its indexes, by either of two of them: the variant's plan
/// change makes it scan.
const WITH_FORCED_INDEX: &str = r#"
[params]
id = { type = "id" }
k = { type = "id" }

[[transaction]]
name = "lookups"
statements = [
  "SELECT c FROM sbtest1 WHERE id = {id}",
  "SELECT COUNT(*) FROM sbtest1 WHERE k = {k}",
  "SELECT COUNT(*) FROM sbtest1 FORCE INDEX (k_1) WHERE k = {k}",
  "SELECT COUNT(*) FROM sbtest2 WHERE id = {id} OR k = {k}",
]
"#;

const EITHER_INDEX: &str = "SELECT COUNT(*) FROM sbtest2 WHERE id = {id} OR k = {k}";

/// `--max-class-slowdown`: every class timed on idle servers in blocks; the class that
/// lost its index and the class whose plan changed are each NO-GO with an interval far
/// beyond the tolerance, the lookup by id
/// (which never used the index) is not, the class that names the lost index is left out
/// with the variant's error while the others are timed, and the saved timing is judged
/// again by `analyze` against another ratio.
#[test]
fn the_class_that_lost_its_index_is_no_go_when_timed_on_idle_servers() {
    let sandbox = Sandbox::new();
    let finished = without_index(
        &sandbox,
        WITH_FORCED_INDEX,
        &[
            "--rounds",
            "2",
            "--tables",
            "2",
            "--ignore-errors",
            "1176",
            // As text, so the load rounds meet the error at execution and count it.
            "--ps-mode",
            "disable",
            "--max-class-slowdown",
            "2x",
            "--class-timing",
            "20s",
        ],
    );
    assert_eq!(finished.code, Some(3), "{}", finished.output);
    let results = &finished.results;
    assert_valid_results(results);
    let timed = results["timed_classes"].as_array().expect("timed classes");
    assert_eq!(timed.len(), 4, "{timed:#?}");
    let class = |name: &str| timed.iter().find(|c| c["class"] == name).unwrap();
    // Both slowdowns are found, each with its own interval: the lost index and the plan
    // change. Each is a scan of 50 000 rows against one or two index lookups.
    for slowed in [BY_K, EITHER_INDEX] {
        let slowed = class(slowed);
        assert_eq!(slowed["verdict"], "NO-GO", "{timed:#?}");
        assert!(
            slowed["ci"][0].as_f64().unwrap() > 5.0,
            "a scan of 50 000 rows against index lookups: {timed:#?}"
        );
    }
    assert_ne!(
        class("SELECT c FROM sbtest1 WHERE id = {id}")["verdict"],
        "NO-GO",
        "never used the index: {timed:#?}"
    );
    let forced = timed
        .iter()
        .find(|c| c["class"].as_str().unwrap().contains("FORCE INDEX"))
        .unwrap();
    assert!(
        forced["class"].as_str().unwrap().contains("FORCE INDEX")
            && forced["left_out"]
                .as_str()
                .unwrap()
                .starts_with("variant: [1176] Key 'k_1' doesn't exist")
            && forced.get("verdict").is_none(),
        "{forced}"
    );
    let by_k = results["class_timing"]["classes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["class"] == BY_K)
        .unwrap();
    assert_eq!(by_k["blocks"].as_array().unwrap().len(), 6);
    assert!(
        finished
            .output
            .contains("Query classes timed on idle servers")
            && finished
                .output
                .contains(&format!("NO-GO: query class {BY_K} is "))
            && finished.output.contains("left out: variant: [1176]"),
        "{}",
        finished.output
    );
    let again = sandbox.run(&[
        "analyze",
        sandbox.path("results.json").to_str().unwrap(),
        "--max-class-slowdown",
        "10000x",
    ]);
    let text = String::from_utf8_lossy(&again.stdout);
    assert!(
        !text.contains("NO-GO: query class"),
        "nothing is ten thousand times slower: {text}"
    );
}

/// A class whose `IN` list has several captured lengths is one class with several
/// statement texts: the class timing prepares each text it runs (a statement prepared
/// for one length is refused the parameters of another) and times the class.
#[test]
fn a_class_with_lists_of_several_lengths_is_timed_in_prepared_statements() {
    let sandbox = Sandbox::new();
    let finished = without_index(
        &sandbox,
        r#"
[params]
ids = { type = "list", lengths = [2, 3, 5], values = [1, 2, 3, 5, 8, 13, 21, 34] }

[[transaction]]
name = "by ids"
statements = ["SELECT c FROM sbtest1 WHERE id IN ({ids})"]
"#,
        &["--rounds", "2", "--class-timing", "10s"],
    );
    let timed = finished.results["timed_classes"]
        .as_array()
        .unwrap_or_else(|| panic!("timed classes: {}", finished.output));
    assert_eq!(timed.len(), 1, "{timed:#?}");
    let class = &timed[0];
    assert!(
        class.get("left_out").is_none(),
        "{class:#}\n{}",
        finished.output
    );
    assert!(
        class["ratio"].as_f64().is_some_and(f64::is_finite),
        "{class:#}"
    );
}
