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
    ("side", 0),
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
    ("preflight", 7),
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

/// The code of `text` that is built outside tests: line comments and inline
/// `#[cfg(test)] mod … { … }` blocks removed.
fn non_test_code(text: &str) -> String {
    let code: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let inline_tests =
        regex::Regex::new(r"#\[cfg\(test\)\]\s*(pub(\([a-z]+\))?\s+)?mod\s+\w+\s*\{").unwrap();
    let mut kept = String::new();
    let mut rest = code.as_str();
    while let Some(found) = inline_tests.find(rest) {
        kept.push_str(&rest[..found.start()]);
        rest = &rest[found.end()..];
        let mut depth = 1;
        let end = rest
            .char_indices()
            .find(|&(_, c)| {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    _ => {}
                }
                depth == 0
            })
            .map_or(rest.len(), |(i, _)| i + 1);
        rest = &rest[end..];
    }
    kept.push_str(rest);
    kept
}

/// The files under `src` built only for tests: `*_tests.rs`, `tests.rs`, and files
/// declared as `#[cfg(test)] mod name;`.
fn test_only_files(src: &Path) -> BTreeSet<std::path::PathBuf> {
    let declared = regex::Regex::new(
        r#"#\[cfg\(test\)\]\s*(#\[path = "([^"]+)"\]\s*)?(pub(\([a-z]+\))?\s+)?mod\s+(\w+)\s*;"#,
    )
    .unwrap();
    let mut files = BTreeSet::new();
    for file in rust_files(src) {
        let stem = file.file_stem().unwrap().to_string_lossy().into_owned();
        if stem.ends_with("_tests") || stem == "tests" {
            files.insert(file.clone());
        }
        let text = std::fs::read_to_string(&file).unwrap();
        let dir = file.parent().unwrap();
        let children = if matches!(stem.as_str(), "mod" | "lib" | "main") {
            dir.to_path_buf()
        } else {
            dir.join(&stem)
        };
        for found in declared.captures_iter(&text) {
            match found.get(2) {
                Some(path) => files.insert(dir.join(path.as_str())),
                None => files.insert(children.join(format!("{}.rs", &found[5]))),
            };
        }
    }
    files
}

/// The places in `code` that write to stdout or stderr themselves.
fn own_printing(code: &str) -> Vec<String> {
    let printing =
        regex::Regex::new(r"\b(e?print(ln)?|dbg)!|\b(stdout|stderr)\(\)|\bio::(stdout|stderr)\b")
            .unwrap();
    printing
        .find_iter(code)
        .map(|m| {
            let line = code[..m.start()].lines().count().max(1);
            format!("`{}` (code line {line})", m.as_str())
        })
        .collect()
}

/// The one module that writes to the terminal.
const TERMINAL: &str = "terminal.rs";

#[test]
fn only_the_terminal_module_prints() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let tests = test_only_files(&src);
    assert!(
        tests.contains(&src.join("runner/round_loop_tests.rs"))
            && tests.contains(&src.join("plan/example.rs")),
        "{tests:?}"
    );
    let mut wrong = Vec::new();
    for file in rust_files(&src) {
        let relative = file.strip_prefix(&src).unwrap();
        if tests.contains(&file) || relative == Path::new(TERMINAL) {
            continue;
        }
        let code = non_test_code(&std::fs::read_to_string(&file).unwrap());
        for place in own_printing(&code) {
            wrong.push(format!("{}: {place}", relative.display()));
        }
    }
    assert!(
        wrong.is_empty(),
        "printing outside {TERMINAL}: route it through crate::terminal\n{}",
        wrong.join("\n")
    );
}

#[test]
fn a_planted_print_is_found_and_a_test_print_is_not() {
    let code = non_test_code(
        "fn f() {\n    eprintln!(\"x\");\n    let _ = std::io::stdout().lock();\n}\n\
         // println!(\"a comment\")\n\
         #[cfg(test)]\nmod tests {\n    fn g() { if true { println!(\"y\"); } }\n}\n\
         fn h() { print!(\"z\"); }\n",
    );
    let found = own_printing(&code);
    let what: Vec<&str> = found.iter().map(|f| f.split('`').nth(1).unwrap()).collect();
    assert_eq!(what, ["eprintln!", "io::stdout", "print!"], "{found:?}");
}

/// The name of a folder's own module file (`mod.rs`, or `x.rs` beside `x/`) among its
/// files.
const FOLDER_MODULE: &str = "mod";

/// Within `folder`, whose files are `files` (name → code, the folder's own module file
/// as [`FOLDER_MODULE`]): each file → the files of the folder its code names, through
/// `super::`, `crate::folder::` and, in the module file, `self::` and its children's
/// names.
fn folder_edges(
    folder: &str,
    files: &BTreeMap<String, String>,
) -> BTreeMap<String, BTreeSet<String>> {
    let target = |name: &str| -> Option<String> {
        match name {
            "super" => None,
            "self" => Some(FOLDER_MODULE.to_string()),
            name if files.contains_key(name) && name != FOLDER_MODULE => Some(name.to_string()),
            _ => Some(FOLDER_MODULE.to_string()),
        }
    };
    let child = |name: &str| files.contains_key(name).then(|| name.to_string());
    let bare = regex::Regex::new(r"(?:^|[^\w:])(\w+)::").unwrap();
    let mut edges = BTreeMap::new();
    for (name, code) in files {
        let mut named: BTreeSet<String> = paths_after(code, &format!("crate::{folder}::"))
            .iter()
            .filter_map(|n| target(n))
            .collect();
        if name == FOLDER_MODULE {
            named.extend(paths_after(code, "self::").iter().filter_map(|n| child(n)));
            named.extend(bare.captures_iter(code).filter_map(|c| child(&c[1])));
        } else {
            named.extend(
                paths_after(code, "super::")
                    .iter()
                    .filter_map(|n| target(n)),
            );
        }
        named.remove(name);
        edges.insert(name.clone(), named);
    }
    edges
}

/// The first segment of every path that follows `prefix` in `code` (each item of a
/// `{…}` group), where `prefix` begins a path rather than continuing one.
fn paths_after(code: &str, prefix: &str) -> Vec<String> {
    let mut names = Vec::new();
    for (at, _) in code.match_indices(prefix) {
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c == ':' || c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &code[at + prefix.len()..];
        match rest.strip_prefix('{') {
            Some(group) => names.extend(group_items(group)),
            None => names.extend(identifier(rest)),
        }
    }
    names
}

/// The groups of files that depend on each other in a loop (strongly connected
/// components of more than one file), each sorted.
fn file_loops(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let reach = |from: &str| -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut next = vec![from.to_string()];
        while let Some(file) = next.pop() {
            for other in edges.get(&file).into_iter().flatten() {
                if seen.insert(other.clone()) {
                    next.push(other.clone());
                }
            }
        }
        seen
    };
    let reached: BTreeMap<&String, BTreeSet<String>> =
        edges.keys().map(|file| (file, reach(file))).collect();
    let mut loops: Vec<Vec<String>> = Vec::new();
    for (file, from_file) in &reached {
        let group: Vec<String> = from_file
            .iter()
            .filter(|other| reached.get(other).is_some_and(|r| r.contains(*file)))
            .cloned()
            .collect();
        if group.len() > 1 && !loops.contains(&group) {
            loops.push(group);
        }
    }
    loops
}

/// Every folder under `src` that holds modules: its name (`server`, `a/b`) and its
/// files' non-test code, the folder's own module file as [`FOLDER_MODULE`].
fn folders(src: &Path) -> BTreeMap<String, BTreeMap<String, String>> {
    let tests = test_only_files(src);
    let mut folders: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for file in rust_files(src) {
        let relative = file.strip_prefix(src).unwrap();
        let Some(dir) = relative.parent().filter(|d| !d.as_os_str().is_empty()) else {
            continue;
        };
        if tests.contains(&file) {
            continue;
        }
        let stem = file.file_stem().unwrap().to_string_lossy().into_owned();
        let code = non_test_code(&std::fs::read_to_string(&file).unwrap());
        folders
            .entry(dir.to_string_lossy().replace('/', "::"))
            .or_default()
            .insert(stem, code);
        // `x.rs` beside `x/` is the folder's module file.
        let beside = src.join(dir).with_extension("rs");
        if beside.is_file() {
            let code = non_test_code(&std::fs::read_to_string(&beside).unwrap());
            folders
                .entry(dir.to_string_lossy().replace('/', "::"))
                .or_default()
                .insert(FOLDER_MODULE.to_string(), code);
        }
    }
    folders
}

#[test]
fn the_files_of_a_folder_depend_on_each_other_without_a_loop() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let folders = folders(&src);
    assert!(folders.len() > 10, "{:?}", folders.keys());
    let mut wrong = Vec::new();
    for (folder, files) in &folders {
        let edges = folder_edges(folder, files);
        for group in file_loops(&edges) {
            let links: Vec<String> = group
                .iter()
                .flat_map(|file| {
                    edges[file]
                        .iter()
                        .filter(|other| group.contains(other))
                        .map(move |other| format!("{file} → {other}"))
                })
                .collect();
            wrong.push(format!("src/{folder}/: {}", links.join(", ")));
        }
    }
    assert!(
        wrong.is_empty(),
        "files of a folder in a loop: move what both need into a file of its own\n{}",
        wrong.join("\n")
    );
}

/// The files that may make a verdict: its rules (`stats::verdict`), the analysis of
/// samples they are applied in (`analysis`, which a CSV of rounds is analysed with too),
/// and the judge of a run (`results::judge`), which adds the answers check and withholds
/// an unfinished run's verdicts. Everything else only reads, compares or renders one.
const JUDGES: &[&str] = &["stats/verdict.rs", "analysis.rs", "results/judge.rs"];

/// The lines of `text` (its tests left out) that make a verdict: a `Verdict::Go`,
/// `NoGo` or `Inconclusive` that is neither a pattern nor compared with, or an
/// assignment to a `.verdict`.
fn verdicts_made(text: &str) -> Vec<String> {
    non_test_code(text)
        .lines()
        .map(str::trim)
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
fn a_planted_file_loop_is_found_through_super_crate_and_the_module_file() {
    let files: BTreeMap<String, String> = [
        (
            "mod",
            "mod a;\nmod b;\nmod c;\npub(crate) use c::Thing;\nfn f() { self::a::g(); }",
        ),
        ("a", "use super::{b::h, Shared};\nfn g() {}"),
        (
            "b",
            "fn h() { crate::box_::c::k(); }\nuse super::super::other;",
        ),
        ("c", "fn k() {}\n// super::a::g()\n"),
        (
            "d",
            "use crate::box_::{a, b};\nfn m() { super::super::x(); }",
        ),
    ]
    .into_iter()
    .map(|(name, code)| (name.to_string(), non_test_code(code)))
    .collect();
    let edges = folder_edges("box_", &files);
    let names = |file: &str| edges[file].iter().cloned().collect::<Vec<_>>();
    assert_eq!(names("mod"), ["a", "c"]);
    assert_eq!(names("a"), ["b", "mod"]);
    assert_eq!(names("b"), ["c"]);
    assert_eq!(names("c"), Vec::<String>::new());
    assert_eq!(names("d"), ["a", "b"]);
    assert_eq!(
        file_loops(&edges),
        [vec!["a".to_string(), "mod".to_string()]]
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
