//! The layers, checked. Every top-level module has a rank; code may name (through
//! `crate::`, grouped imports included) only modules of a lower rank. So the foundation
//! knows nothing of the domain, the domain nothing of the plan, the plan nothing of the
//! runner or the reports, and only the resolving layer and the commands see a flag. An
//! import that goes up is how a "small" change in one module turns into a change in ten.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Each top-level module's rank, lowest first.
const RANKS: &[(&str, u32)] = &[
    // Foundation: no domain knowledge.
    ("exit", 0),
    ("stop", 0),
    ("terminal", 1),
    ("percent", 0),
    ("serde_secs", 0),
    ("secret", 0),
    ("histogram", 0),
    ("cpu", 0),
    ("host", 0),
    ("host_load", 0),
    ("named", 0),
    ("thread_policy", 1),
    ("paths", 1),
    ("profile", 1),
    // The domain: servers, workloads, statistics.
    ("db", 2),
    ("stats", 2),
    ("schedule", 2),
    ("placement", 2),
    ("segment", 3),
    ("workload", 3),
    ("server", 3),
    ("analysis", 3),
    ("sysbench", 3),
    ("answers", 4),
    ("capture", 4),
    // The plan model: typed, saved, knows no flag.
    ("plan", 5),
    // Running and reporting a plan.
    ("target", 6),
    ("results", 6),
    ("report", 7),
    ("roundcsv", 8),
    ("runner", 8),
    // Flags, their resolution into a plan, and the commands.
    ("cli", 9),
    ("resolve", 10),
    ("commands", 11),
];

/// Top-level module → the top-level modules its code names through `crate::`.
fn module_edges() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in rust_files(&src) {
        let relative = file.strip_prefix(&src).unwrap();
        let top = top_level_module(relative);
        if top == "lib" || top == "main" || top == "architecture" {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        let named = edges.entry(top.clone()).or_default();
        named.extend(modules_named(&text).into_iter().filter(|m| *m != top));
    }
    edges
}

/// The top-level modules `text` names: `crate::a::…` and each item of `crate::{a, b::c}`.
fn modules_named(text: &str) -> BTreeSet<String> {
    let code: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut named = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + 7..];
        match rest.strip_prefix('{') {
            Some(group) => named.extend(group_items(group)),
            None => named.extend(identifier(rest)),
        }
    }
    named
}

/// The first identifier of each top-level item of a `{…}` group (`group` starts after
/// the opening brace).
fn group_items(group: &str) -> Vec<String> {
    let mut items = Vec::new();
    let mut depth = 0;
    let mut at_item_start = true;
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => at_item_start = true,
            c if at_item_start && !c.is_whitespace() => {
                items.extend(identifier(&group[i..]));
                at_item_start = false;
            }
            _ => {}
        }
    }
    items
}

fn identifier(text: &str) -> Option<String> {
    let name: String = text
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(name)
}

/// `analysis` for `analysis.rs` and `analysis_tests.rs`, `runner` for `runner/x.rs`.
fn top_level_module(relative: &Path) -> String {
    let first = relative
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy();
    let stem = first.trim_end_matches(".rs");
    stem.trim_end_matches("_tests").to_string()
}

fn rust_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files
}

/// Every import that does not go down: (module, rank, the module it names, its rank).
fn upward_imports(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let rank = |m: &str| RANKS.iter().find(|(name, _)| *name == m).map(|(_, r)| *r);
    let mut wrong = Vec::new();
    for (module, named) in edges {
        let Some(own) = rank(module) else {
            wrong.push(format!("{module} has no rank: add it to RANKS"));
            continue;
        };
        for other in named {
            match rank(other) {
                Some(theirs) if theirs < own => {}
                Some(theirs) => wrong.push(format!(
                    "{module} (rank {own}) imports {other} (rank {theirs})"
                )),
                None => {}
            }
        }
    }
    wrong
}

#[test]
fn imports_only_go_down_the_layers() {
    let edges = module_edges();
    assert!(edges.len() > 25, "{edges:?}");
    let wrong = upward_imports(&edges);
    assert!(
        wrong.is_empty(),
        "imports against the layers:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn only_the_resolving_layer_and_the_commands_read_flags() {
    let readers: Vec<String> = module_edges()
        .into_iter()
        .filter(|(_, named)| named.contains("cli"))
        .map(|(module, _)| module)
        .collect();
    assert_eq!(readers, ["commands", "resolve"]);
}

#[test]
fn a_planted_upward_import_is_found_also_in_a_group() {
    let named = modules_named(
        "use crate::{\n    runner::experiment,\n    stats::{compare, metric},\n};\n// crate::report\nuse crate::db::Endpoint;",
    );
    assert_eq!(
        named.into_iter().collect::<Vec<_>>(),
        ["db", "runner", "stats"]
    );
    let edges: BTreeMap<String, BTreeSet<String>> = [(
        "plan".to_string(),
        ["runner".to_string(), "stats".to_string()].into(),
    )]
    .into();
    assert_eq!(
        upward_imports(&edges),
        ["plan (rank 5) imports runner (rank 8)"]
    );
}
