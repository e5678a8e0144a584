//! The answers check of a pre-upgrade check on two real servers with one planted change
//! per kind of trouble: the variant rejects a GROUP BY under a stricter sql_mode (an
//! error on one side) and truncates GROUP_CONCAT (a different answer with a warning);
//! the workload also reads the clock and sorts at random (non-deterministic), and sorts
//! on a column with ties under a LIMIT. The report must find each for
//! what it is: the error and the truncation as differences with their texts, and the
//! clock read and the random order compared in part, never called a difference.

use crate::support::{Sandbox, assert_valid_results, server_lock, start_server};

const WORKLOAD: &str = r#"
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

#[test]
fn every_planted_change_is_found_for_what_it_is() {
    let _lock = server_lock();
    let servers = [(); 2].map(|_| start_server(&Default::default(), 4));
    let sandbox = Sandbox::new();
    let baseline = servers[0].socket_profile(&sandbox, "baseline.toml", "");
    let variant = servers[1].socket_profile(
        &sandbox,
        "variant.toml",
        "[hooks]\nsetup = [\"SET GLOBAL sql_mode = 'ONLY_FULL_GROUP_BY'\", \
         \"SET GLOBAL group_concat_max_len = 20\"]\n",
    );
    let workload = sandbox.write("reads.toml", WORKLOAD);
    let finished = sandbox.run_json(&[
        "--baseline",
        &baseline,
        "--variant",
        &variant,
        "--workload-file",
        workload.to_str().unwrap(),
        "--table-size",
        "50000",
        "--seed",
        "7",
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
    ]);
    // The answers differ: NO-GO, and the timed rounds do not run.
    assert_eq!(finished.code, Some(3), "{}", finished.output);
    let results = &finished.results;
    assert_valid_results(results);
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
        finished.output.contains("NO-GO") && finished.output.contains("Warning 1260"),
        "{}",
        finished.output
    );
}
