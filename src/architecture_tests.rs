//! The layers, checked: the `crate::` paths between top-level modules form no cycle, and
//! only the command layer (`commands`, `plan`, the crate root) reads command-line flags.
//! A cycle is how a "small" change in one module turns into a change in ten.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Top-level module → the top-level modules its code names through `crate::`.
fn module_edges() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in rust_files(&src) {
        let relative = file.strip_prefix(&src).unwrap();
        let top = top_level_module(relative);
        if top == "lib" || top == "main" {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        let named = edges.entry(top.clone()).or_default();
        for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
            for (at, _) in line.match_indices("crate::") {
                let name: String = line[at + 7..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() && name != top {
                    named.insert(name);
                }
            }
        }
    }
    edges
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

/// A cycle through `start`, as the modules on it, if there is one.
fn cycle_from(edges: &BTreeMap<String, BTreeSet<String>>, start: &str) -> Option<Vec<String>> {
    let mut stack = vec![(start.to_string(), vec![start.to_string()])];
    let mut seen = BTreeSet::new();
    while let Some((module, path)) = stack.pop() {
        for next in edges.get(&module).into_iter().flatten() {
            if next == start {
                return Some(path.iter().cloned().chain([start.to_string()]).collect());
            }
            if seen.insert(next.clone()) {
                let mut longer = path.clone();
                longer.push(next.clone());
                stack.push((next.clone(), longer));
            }
        }
    }
    None
}

#[test]
fn top_level_modules_form_no_cycle() {
    let edges = module_edges();
    assert!(edges.len() > 15, "{edges:?}");
    for module in edges.keys() {
        if let Some(cycle) = cycle_from(&edges, module) {
            panic!("a dependency cycle: {}", cycle.join(" → "));
        }
    }
}

#[test]
fn only_the_command_layer_reads_flags() {
    let readers: Vec<String> = module_edges()
        .into_iter()
        .filter(|(_, named)| named.contains("cli"))
        .map(|(module, _)| module)
        .collect();
    assert_eq!(readers, ["commands", "plan"]);
}

#[test]
fn a_cycle_is_found() {
    let edges: BTreeMap<String, BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a"]),
        ("d", vec!["a"]),
    ]
    .into_iter()
    .map(|(m, to)| (m.to_string(), to.into_iter().map(String::from).collect()))
    .collect();
    assert_eq!(cycle_from(&edges, "a").unwrap(), ["a", "b", "c", "a"]);
    assert_eq!(cycle_from(&edges, "d"), None);
}
