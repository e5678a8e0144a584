//! The docs are tests. Every abtest command line in README.md and the examples'
//! READMEs is run as written — with `--dry-run` where it would start or reach servers,
//! and from the directory of the README that shows it — and must succeed. Only output
//! files (`-o`, `--junit`) are sent into a scratch directory. The options tables in README.md and
//! `abtest --help` must list the same options.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::support::{Sandbox, repo, text};

/// A shell `for NAME in VALUES; do` loop around documented commands.
struct Loop {
    name: String,
    values: Vec<String>,
}

/// The loop a code line opens (`for d in 00 11; do`), if it opens one.
fn loop_opened(line: &str) -> Option<Loop> {
    let rest = line.strip_prefix("for ")?.strip_suffix("; do")?;
    let (name, values) = rest.split_once(" in ")?;
    Some(Loop {
        name: name.trim().to_string(),
        values: values.split_whitespace().map(String::from).collect(),
    })
}

/// One documented command: where it is written, and its words.
struct Documented {
    place: String,
    dir: PathBuf,
    words: Vec<String>,
    /// Variables the README `export`s before it, with a stand-in for `...`.
    env: Vec<(String, String)>,
}

/// The command lines in code blocks (indented or fenced) of `file` that start with
/// `abtest` (after an optional `$ `), joined over `\` continuations and open quotes,
/// without trailing `# comments`; inside a shell `for` loop, once per value.
fn documented_commands(file: &Path) -> Vec<Documented> {
    let text = std::fs::read_to_string(file).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut commands = Vec::new();
    let (mut fenced, mut index) = (false, 0);
    let mut shell_loop: Option<Loop> = None;
    let mut env: Vec<(String, String)> = Vec::new();
    while index < lines.len() {
        let line = lines[index];
        index += 1;
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        let code = fenced || line.starts_with("    ");
        let trimmed = line.trim();
        let trimmed = trimmed.strip_prefix("$ ").unwrap_or(trimmed);
        if code && let Some(opened) = loop_opened(trimmed) {
            shell_loop = Some(opened);
            continue;
        }
        if !code || trimmed == "done" {
            shell_loop = None;
            continue;
        }
        if let Some(exports) = trimmed.strip_prefix("export ") {
            for assignment in exports.split_whitespace() {
                if let Some((name, value)) = assignment.split_once('=') {
                    let value = if value == "..." { "stand-in" } else { value };
                    env.push((name.to_string(), value.to_string()));
                }
            }
            continue;
        }
        if !trimmed.starts_with("abtest ") {
            continue;
        }
        let start = index;
        let mut command = without_comment(trimmed);
        loop {
            let continued = command.ends_with('\\');
            let open_quote = shlex::split(&command).is_none();
            if !(continued || open_quote) || index >= lines.len() {
                break;
            }
            command = format!(
                "{} {}",
                command.trim_end_matches('\\').trim_end(),
                without_comment(lines[index].trim())
            );
            index += 1;
        }
        let expanded: Vec<String> = match &shell_loop {
            Some(Loop { name, values }) => values
                .iter()
                .map(|value| command.replace(&format!("${name}"), value))
                .collect(),
            None => vec![command],
        };
        for command in expanded {
            let words = shlex::split(&command)
                .unwrap_or_else(|| panic!("{}:{start}: cannot split `{command}`", file.display()));
            commands.push(Documented {
                place: format!("{}:{start}", file.display()),
                dir: file.parent().unwrap().to_path_buf(),
                words: words.into_iter().skip(1).collect(),
                env: env.clone(),
            });
        }
    }
    commands
}

/// A line without a shell comment (` # ...` outside quotes).
fn without_comment(line: &str) -> String {
    let mut quote = None;
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), _) if c == q => quote = None,
            (None, '#') if i > 0 && line[..i].ends_with(' ') => {
                return line[..i].trim_end().to_string();
            }
            _ => {}
        }
    }
    line.to_string()
}

/// The documentation files: README.md and every example's README.md.
fn documentation() -> Vec<PathBuf> {
    let mut files = vec![repo().join("README.md")];
    let mut examples: Vec<PathBuf> = std::fs::read_dir(repo().join("examples"))
        .unwrap()
        .map(|entry| entry.unwrap().path().join("README.md"))
        .filter(|path| path.exists())
        .collect();
    examples.sort();
    files.extend(examples);
    files
}

/// The words to run: a comparison gets `--dry-run`; output files go to the sandbox,
/// each command's under a name of its own (`number`), since abtest keeps a saved run
/// where one already is (a dry run checks that too).
fn runnable(words: &[String], sandbox: &Sandbox, number: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut iter = words.iter();
    let output_flags = [
        "-o",
        "--output",
        "--json",
        "--markdown",
        "--html",
        "--csv",
        "--junit",
        "--write",
    ];
    while let Some(word) = iter.next() {
        out.push(word.clone());
        if output_flags.contains(&word.as_str())
            && let Some(path) = iter.next()
        {
            let name = Path::new(path).file_name().unwrap().to_str().unwrap();
            let path = sandbox.path(&format!("{number}-{name}"));
            out.push(path.to_str().unwrap().to_string());
        }
    }
    let subcommand = [
        "analyze",
        "report",
        "plan-rounds",
        "from-sysbench",
        "import-sysbench-log",
        "cleanup",
        "capture",
        "merge",
    ];
    if !subcommand.contains(&words[0].as_str()) {
        out.push("--dry-run".into());
    }
    out
}

#[test]
fn every_documented_command_line_works() {
    let sandbox = Sandbox::new();
    let mut count = 0;
    for file in documentation() {
        for documented in documented_commands(&file) {
            let args = runnable(&documented.words, &sandbox, count);
            let output = sandbox
                .abtest()
                .current_dir(&documented.dir)
                .args(&args)
                .env("ABTEST_PASSWORD", "from-the-environment")
                .envs(documented.env.iter().map(|(k, v)| (k, v)))
                .output()
                .unwrap();
            let (stdout, stderr) = text(&output);
            // A verdict (GO 0, NO-GO 3, INCONCLUSIVE 4) is an answer; 1 and 2 are failures.
            assert!(
                matches!(output.status.code(), Some(0 | 3 | 4)),
                "{}: abtest {}\n{stdout}{stderr}",
                documented.place,
                args.join(" ")
            );
            count += 1;
        }
    }
    assert!(count >= 15, "only {count} documented commands found");
}

/// The long options in the first column of README.md's options tables (the `## Options`
/// section up to its first subsection, which is about sysbench's options).
fn readme_options() -> BTreeSet<String> {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let section = &readme[readme.find("\n## Options").unwrap()..];
    let section = &section[..section.find("\n### ").unwrap()];
    section
        .lines()
        .filter(|l| l.starts_with("| `--"))
        .flat_map(|l| long_options(l.split('|').nth(1).unwrap()))
        .collect()
}

/// The `--names` in a text.
fn long_options(text: &str) -> Vec<String> {
    text.match_indices("--")
        .map(|(i, _)| {
            text[i..]
                .chars()
                .skip(2)
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect::<String>()
        })
        .filter(|name| !name.is_empty())
        .map(|name| format!("--{name}"))
        .collect()
}

#[test]
fn the_options_tables_and_help_list_the_same_options() {
    let sandbox = Sandbox::new();
    let help = text(&sandbox.run(&["--help"])).0;
    let help_options: BTreeSet<String> = help
        .lines()
        .filter(|l| l.trim_start().starts_with('-'))
        .flat_map(|l| long_options(l.split("  ").find(|p| p.contains("--")).unwrap_or("")))
        .filter(|o| o != "--help" && o != "--version")
        .collect();
    let documented = readme_options();
    let undocumented: Vec<&String> = help_options.difference(&documented).collect();
    let unknown: Vec<&String> = documented.difference(&help_options).collect();
    assert!(
        undocumented.is_empty(),
        "in --help but not in README's tables: {undocumented:?}"
    );
    assert!(
        unknown.is_empty(),
        "in README's tables but not in --help: {unknown:?}"
    );
}
