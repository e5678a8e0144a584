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
    ("thread_policy", 0),
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

/// The files that may make a verdict: its rules (`stats::verdict`), the analysis of
/// samples they are applied in (`analysis`, which a CSV of rounds is analysed with too),
/// and the judge of a run (`results::judge`), which adds the answers check and withholds
/// an unfinished run's verdicts. Everything else only reads, compares or renders one.
const JUDGES: &[&str] = &["stats/verdict.rs", "analysis.rs", "results/judge.rs"];

/// `text` without its test module (`#[cfg(test)]` on a `mod`) and its comment lines.
fn code_without_tests(text: &str) -> Vec<&str> {
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let end = (0..lines.len())
        .find(|&i| {
            lines[i] == "#[cfg(test)]"
                && lines[i + 1..]
                    .iter()
                    .find(|l| !l.starts_with("#["))
                    .is_some_and(|l| l.starts_with("mod "))
        })
        .unwrap_or(lines.len());
    lines[..end]
        .iter()
        .copied()
        .filter(|l| !l.starts_with("//"))
        .collect()
}

/// The lines of `text` (its tests left out) that make a verdict: a `Verdict::Go`,
/// `NoGo` or `Inconclusive` that is neither a pattern nor compared with, or an
/// assignment to a `.verdict`.
fn verdicts_made(text: &str) -> Vec<String> {
    code_without_tests(text)
        .into_iter()
        .filter(|line| makes_verdict(line))
        .map(String::from)
        .collect()
}

fn makes_verdict(line: &str) -> bool {
    let assigns = line
        .match_indices(".verdict =")
        .any(|(at, found)| !line[at + found.len()..].starts_with('='));
    let constructs = ["Verdict::Go", "Verdict::NoGo", "Verdict::Inconclusive"]
        .iter()
        .any(|name| {
            line.match_indices(name).any(|(at, _)| {
                let (before, after) = (&line[..at], &line[at + name.len()..]);
                let whole = !after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_');
                let compared = ["==", "!=", "matches!("]
                    .iter()
                    .any(|op| before.contains(op));
                let pattern = after.contains("=>") && !before.contains("=>");
                whole && !compared && !pattern
            })
        });
    assigns || constructs
}

#[test]
fn only_the_judge_makes_a_verdict() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut made = Vec::new();
    for file in rust_files(&src) {
        let relative = file
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if JUDGES.contains(&relative.as_str())
            || relative.ends_with("_tests.rs")
            || relative == "architecture_tests.rs"
        {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        made.extend(
            verdicts_made(&text)
                .into_iter()
                .map(|line| format!("{relative}: {line}")),
        );
    }
    assert!(
        made.is_empty(),
        "verdicts made outside the judge (results::judge):\n{}",
        made.join("\n")
    );
}

#[test]
fn a_planted_verdict_is_found_and_a_read_one_is_not() {
    let made = verdicts_made(
        "fn f(r: &mut R, c: &C) {\n    if r.verdict == Some(Verdict::Go) {}\n    \
         match c.verdict {\n        Some(Verdict::NoGo) | None => {}\n        _ => {}\n    }\n    \
         let shown = c.verdict.unwrap_or(Verdict::Inconclusive);\n    \
         r.verdict = Some(Verdict::NoGo);\n    r.verdict = None;\n}\n\
         // r.verdict = Some(Verdict::Go);\n\
         #[cfg(test)]\nmod tests {\n    const V: Verdict = Verdict::Go;\n}\n",
    );
    assert_eq!(
        made,
        [
            "let shown = c.verdict.unwrap_or(Verdict::Inconclusive);",
            "r.verdict = Some(Verdict::NoGo);",
            "r.verdict = None;",
        ]
    );
}

/// The files of `src/results/` each of its files names (by file stem, `mod` for
/// `mod.rs`): `super::x` is the sibling `x.rs` when there is one, else what `mod.rs`
/// declares or re-exports; `mod.rs` names every file it declares.
fn results_edges() -> BTreeMap<String, BTreeSet<String>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/results");
    let files: BTreeMap<String, String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "rs"))
        .map(|path| {
            let stem = path.file_stem().unwrap().to_string_lossy().to_string();
            (stem, std::fs::read_to_string(&path).unwrap())
        })
        .collect();
    let stems: BTreeSet<String> = files.keys().cloned().collect();
    files
        .iter()
        .map(|(stem, text)| (stem.clone(), files_named(stem, text, &stems)))
        .collect()
}

/// The files of the folder that `stem`'s `text` names (its tests left out).
fn files_named(stem: &str, text: &str, stems: &BTreeSet<String>) -> BTreeSet<String> {
    let code = code_without_tests(text).join("\n");
    let sibling = |name: String| {
        if stems.contains(&name) && name != "mod" {
            name
        } else {
            "mod".to_string()
        }
    };
    if stem == "mod" {
        return code
            .lines()
            .filter_map(|l| l.trim_start_matches("pub(crate) ").strip_prefix("mod "))
            .map(|name| name.trim_end_matches(';').to_string())
            .collect();
    }
    let mut named = BTreeSet::new();
    for prefix in ["super::", "crate::results::"] {
        for (at, _) in code.match_indices(prefix) {
            let rest = &code[at + prefix.len()..];
            let items = match rest.strip_prefix('{') {
                Some(group) => group_items(group),
                None => identifier(rest).into_iter().collect(),
            };
            named.extend(items.into_iter().map(sibling));
        }
    }
    named.remove(stem);
    named
}

/// Every cycle of `edges`, each as the path that closes it ("a -> b -> a").
fn cycles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    fn visit(
        node: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        found: &mut Vec<String>,
    ) {
        if let Some(start) = path.iter().position(|n| n == node) {
            let mut cycle = path[start..].to_vec();
            cycle.push(node.to_string());
            found.push(cycle.join(" -> "));
            return;
        }
        path.push(node.to_string());
        for next in edges.get(node).into_iter().flatten() {
            visit(next, edges, path, found);
        }
        path.pop();
    }
    let mut found = Vec::new();
    for node in edges.keys() {
        visit(node, edges, &mut Vec::new(), &mut found);
    }
    found
}

#[test]
fn the_files_of_results_import_each_other_without_a_loop() {
    let edges = results_edges();
    assert!(
        edges.len() > 10 && edges["judge"].contains("record"),
        "{edges:?}"
    );
    let found = cycles(&edges);
    assert!(
        found.is_empty(),
        "loops among src/results/:\n{}",
        found.join("\n")
    );
}

#[test]
fn a_planted_loop_through_mod_rs_is_found() {
    let stems: BTreeSet<String> = ["mod", "round", "judge"].map(String::from).into();
    let judge = files_named(
        "judge",
        "use super::{round::RoundRecord, Judgement};\n#[cfg(test)]\nmod tests {\n    use super::*;\n}\n",
        &stems,
    );
    assert_eq!(judge.into_iter().collect::<Vec<_>>(), ["mod", "round"]);
    let edges: BTreeMap<String, BTreeSet<String>> = [
        ("mod".to_string(), ["judge".to_string()].into()),
        (
            "judge".to_string(),
            ["mod".to_string(), "round".to_string()].into(),
        ),
    ]
    .into();
    assert!(cycles(&edges).contains(&"mod -> judge -> mod".to_string()));
}
