//! The four changes a pre-upgrade check must find, planted one at a time on the variant
//! of a pair of real servers, each checked by pt-upgrade (when installed) and by abtest's
//! `--check-results` with its default N on a captured log:
//!
//! - one row changed in a small application table: different answers, NO-GO;
//! - an `optimizer_switch` (MRR with sorted keys) that changes only the row order of a
//!   range read through a secondary index: reported as "same rows, other order";
//! - that index dropped: the same, another order;
//! - `sql_mode` with PIPES_AS_CONCAT: `||` concatenates instead of OR, NO-GO.

use mysql::prelude::Queryable;

use crate::capture::{capture, percona_toolkit, pt_upgrade_differences, slow_log};
use crate::support::{Sandbox, TestServer, server_lock, start_server};

/// A change planted on the variant, and how to take it back.
struct Plant {
    name: &'static str,
    plant: &'static str,
    undo: &'static str,
    /// The class abtest must name, and whether only its order differs.
    class: &'static str,
    order_only: bool,
}

const PLANTS: [Plant; 4] = [
    Plant {
        name: "1 row changed",
        plant: "UPDATE sbtest.items SET c = 'changed' WHERE id = 17",
        undo: "UPDATE sbtest.items SET c = 'row-17' WHERE id = 17",
        class: "SELECT c FROM items WHERE id = ",
        order_only: false,
    },
    Plant {
        name: "optimizer_switch, row order only",
        plant: "SET GLOBAL optimizer_switch = 'mrr=on,mrr_sort_keys=on,mrr_cost_based=off'",
        undo: "SET GLOBAL optimizer_switch = 'default'",
        class: "SELECT id, c FROM items WHERE k BETWEEN ",
        order_only: true,
    },
    Plant {
        name: "index dropped, row order only",
        plant: "ALTER TABLE sbtest.items DROP INDEX k_idx",
        undo: "ALTER TABLE sbtest.items ADD INDEX k_idx (k)",
        class: "SELECT id, c FROM items WHERE k BETWEEN ",
        order_only: true,
    },
    Plant {
        name: "sql_mode PIPES_AS_CONCAT",
        plant: "SET GLOBAL sql_mode = CONCAT(@@GLOBAL.sql_mode, ',PIPES_AS_CONCAT')",
        undo: "SET GLOBAL sql_mode = REPLACE(@@GLOBAL.sql_mode, ',PIPES_AS_CONCAT', '')",
        class: "SELECT c || ",
        order_only: false,
    },
];

/// What the application ran: lookups by id over the whole table, range reads through
/// the secondary index `k_idx`, and a `||` that depends on sql_mode.
fn statements() -> Vec<String> {
    let lookups = (1..=50).map(|id| format!("SELECT c FROM items WHERE id = {id}"));
    let ranges =
        (1..=20).map(|k| format!("SELECT id, c FROM items WHERE k BETWEEN {k} AND {}", k + 9));
    let pipes = (1..=20).map(|id| format!("SELECT c || 'x' FROM items WHERE id = {id}"));
    lookups.chain(ranges).chain(pipes).collect()
}

fn create_items(server: &TestServer) {
    server
        .admin()
        .unwrap()
        .query_drop(
            "CREATE TABLE sbtest.items (id INT PRIMARY KEY, k INT, c CHAR(20), KEY k_idx (k)); \
             INSERT INTO sbtest.items SELECT seq, (seq * 37) % 50 + 1, CONCAT('row-', seq) \
             FROM sbtest.seq_1_to_50",
        )
        .unwrap();
}

#[test]
fn each_planted_change_is_found_by_default_beside_pt_upgrade() {
    let _lock = server_lock();
    let servers = [(); 2].map(|_| start_server(&Default::default(), 8));
    servers.iter().for_each(create_items);
    let sandbox = Sandbox::new();
    let log = sandbox.write("slow.log", &slow_log(&statements()));
    let captured = sandbox.path("captured.toml");
    let (code, _, stderr) = capture(
        &sandbox,
        &[log.to_str().unwrap(), "-o", captured.to_str().unwrap()],
    );
    assert_eq!(code, Some(0), "{stderr}");
    let profiles =
        [0, 1].map(|i| servers[i].socket_profile(&sandbox, &format!("side-{i}.toml"), ""));
    let with_pt_upgrade = percona_toolkit("pt-upgrade");
    let mut table = Vec::new();
    for plant in &PLANTS {
        let mut variant = servers[1].admin().unwrap();
        variant.query_drop(plant.plant).unwrap();
        let theirs = with_pt_upgrade.then(|| {
            let dsn = |s: &TestServer| format!("S={},u=root,D=sbtest", s.socket().display());
            let output = std::process::Command::new("pt-upgrade")
                .arg(&log)
                .args([dsn(&servers[0]), dsn(&servers[1])])
                .output()
                .unwrap();
            pt_upgrade_differences(&String::from_utf8_lossy(&output.stdout))
        });
        let check_run = |extra: &[&str]| {
            let mut args = vec![
                "--baseline",
                &profiles[0],
                "--variant",
                &profiles[1],
                "--workload-file",
                captured.to_str().unwrap(),
                "--prepare",
                "never",
                "--threads",
                "1",
                "--rounds",
                "2",
                "--round-time",
                "1s",
                "--warmup",
                "0s",
                "--check-results",
            ];
            args.extend(extra);
            sandbox.run_json(&args)
        };
        if plant.name == PLANTS[0].name {
            // `all` reads every captured value once: the 90 logged statements.
            let every = check_run(&["all"]);
            assert_eq!(
                every.results["result_check"]["statements"], 90,
                "{}",
                every.output
            );
            assert_eq!(every.code, Some(3), "{}", every.output);
        }
        let finished = check_run(&[]);
        variant.query_drop(plant.undo).unwrap();
        let check = &finished.results["result_check"];
        let list = if plant.order_only {
            "order_only"
        } else {
            "differences"
        };
        let entries = check[list].as_array().cloned().unwrap_or_default();
        let found: Vec<&str> = entries.iter().filter_map(|d| d["class"].as_str()).collect();
        assert!(
            found.len() == 1 && found[0].starts_with(plant.class),
            "{}: abtest lists {found:?} under {list}\n{}",
            plant.name,
            finished.output
        );
        let expected_code = if plant.order_only { 0 } else { 3 };
        assert_eq!(
            finished.code,
            Some(expected_code),
            "{}: {}",
            plant.name,
            finished.output
        );
        if let Some(theirs) = &theirs {
            assert!(
                !theirs.is_empty(),
                "{}: pt-upgrade found nothing",
                plant.name
            );
        }
        table.push(format!(
            "{}: pt-upgrade {:?} classes; abtest {} statements compared, {} class under {list} ({} statements)",
            plant.name,
            theirs.map(|t| t.len()),
            check["statements"],
            found.len(),
            entries[0]["count"]
        ));
    }
    eprintln!("{}", table.join("\n"));
}
