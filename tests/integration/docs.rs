//! The docs are tests. Every abtest command line in README.md, `docs/*.md`,
//! `bench/README.md` and the examples' READMEs is run as written — with `--dry-run` where
//! it would start or reach servers, from the repository's root (an example's README: from
//! its own directory) — and must succeed. Only output files (`-o`, `--junit`) are sent
//! into a scratch directory. The tables of `docs/options.md` and the help of `abtest` and
//! of each command must list the same options. README.md must stay a guide (at most 450
//! lines, a table of contents that is exactly its `##` headings), and every relative link
//! of README.md and `docs/` must reach a file, and a heading where it names one.

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

/// One documented command: where it is written, where it runs, and its words.
struct Documented {
    place: String,
    dir: PathBuf,
    words: Vec<String>,
    /// Variables the README `export`s before it, with a stand-in for `...`.
    env: Vec<(String, String)>,
}

/// The command lines in code blocks (indented or fenced; a ```` ```text ```` block is
/// output, never run) of `file` that start with `abtest` (after an optional `$ `), joined over `\` continuations and open quotes,
/// without trailing `# comments`; inside a shell `for` loop, once per value.
fn documented_commands(file: &Path, dir: &Path) -> Vec<Documented> {
    let text = std::fs::read_to_string(file).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut commands = Vec::new();
    let (mut fenced, mut output, mut index) = (false, false, 0);
    let mut shell_loop: Option<Loop> = None;
    let mut env: Vec<(String, String)> = Vec::new();
    while index < lines.len() {
        let line = lines[index];
        index += 1;
        if let Some(info) = line.trim_start().strip_prefix("```") {
            fenced = !fenced;
            output = fenced && info.trim() == "text";
            continue;
        }
        if output {
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
                dir: dir.to_path_buf(),
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

/// The markdown files of `docs/`, sorted.
fn docs_pages() -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> = std::fs::read_dir(repo().join("docs"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    pages.sort();
    pages
}

/// The documentation files, each with the directory its commands run from: README.md,
/// `docs/*.md` and `bench/README.md` from the repository's root (where a reader runs
/// them), every example's README.md from its own directory (beside its profiles).
fn documentation() -> Vec<(PathBuf, PathBuf)> {
    let mut files: Vec<(PathBuf, PathBuf)> = [repo().join("README.md")]
        .into_iter()
        .chain(docs_pages())
        .chain([repo().join("bench/README.md")])
        .map(|file| (file, repo()))
        .collect();
    let mut examples: Vec<PathBuf> = std::fs::read_dir(repo().join("examples"))
        .unwrap()
        .map(|entry| entry.unwrap().path().join("README.md"))
        .filter(|path| path.exists())
        .collect();
    examples.sort();
    files.extend(examples.into_iter().map(|file| {
        let dir = file.parent().unwrap().to_path_buf();
        (file, dir)
    }));
    files
}

/// The words to run: a comparison gets `--dry-run` (unless it shows one); output
/// files go to the sandbox, each command's under a name of its own (`number`), since
/// abtest keeps a saved run where one already is (a dry run checks that too).
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
    let dry = words.iter().any(|word| word == "--dry-run");
    if !dry && !subcommand.contains(&words[0].as_str()) {
        out.push("--dry-run".into());
    }
    out
}

#[test]
fn every_documented_command_line_works() {
    let sandbox = Sandbox::new();
    let mut count = 0;
    for (file, dir) in documentation() {
        for documented in documented_commands(&file, &dir) {
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

/// The sections of `docs/options.md` by the command they document (`None`: a run), each
/// with the long options in the first column of its tables.
fn documented_options() -> Vec<(Option<String>, BTreeSet<String>)> {
    let page = std::fs::read_to_string(repo().join("docs/options.md")).unwrap();
    let mut sections = Vec::new();
    for section in page.split("\n## ").skip(1) {
        let heading = section.lines().next().unwrap_or("");
        let command = match heading {
            "Contents" => continue,
            "A run" => None,
            _ => Some(
                heading
                    .strip_prefix("`abtest ")
                    .and_then(|h| h.strip_suffix('`'))
                    .unwrap_or_else(|| {
                        panic!("docs/options.md: a section `## {heading}` names no command")
                    })
                    .to_string(),
            ),
        };
        let options = section
            .lines()
            .filter(|l| l.starts_with("| `-"))
            .flat_map(|l| long_options(l.split('|').nth(1).unwrap()))
            .collect();
        sections.push((command, options));
    }
    sections
}

/// The long options a help text lists (`--help` and `--version` left out).
fn help_options(help: &str) -> BTreeSet<String> {
    help.lines()
        .filter(|l| l.trim_start().starts_with('-'))
        .flat_map(|l| long_options(l.split("  ").find(|p| p.contains("--")).unwrap_or("")))
        .filter(|o| o != "--help" && o != "--version")
        .collect()
}

/// The commands `abtest --help` lists (`help` left out).
fn help_commands(help: &str) -> Vec<String> {
    let block = &help[help.find("Commands:").unwrap()..];
    let block = &block[..block.find("\n\n").unwrap_or(block.len())];
    block
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(String::from)
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
    let sections = documented_options();
    let documented_commands: Vec<String> = sections.iter().filter_map(|(c, _)| c.clone()).collect();
    for command in help_commands(&help) {
        assert!(
            documented_commands.contains(&command),
            "`abtest {command}` has no section `## `abtest {command}`` in docs/options.md"
        );
    }
    for (command, documented) in sections {
        let (listed, name) = match &command {
            None => (help_options(&help), "abtest --help".to_string()),
            // `check` takes the run's options, as its section says: it lists them all.
            Some(command) if command == "check" => {
                let check = text(&sandbox.run(&["check", "--help"])).0;
                assert_eq!(
                    help_options(&check),
                    help_options(&help),
                    "abtest check --help"
                );
                (documented.clone(), "abtest check --help".to_string())
            }
            Some(command) => {
                let help = text(&sandbox.run(&[command.as_str(), "--help"])).0;
                // The terminal options are every command's; the run's table lists them.
                let mut listed = help_options(&help);
                listed.retain(|o| o != "--quiet" && o != "--color");
                (listed, format!("abtest {command} --help"))
            }
        };
        let undocumented: Vec<&String> = listed.difference(&documented).collect();
        let unknown: Vec<&String> = documented.difference(&listed).collect();
        assert!(
            undocumented.is_empty(),
            "in `{name}` but not in docs/options.md: {undocumented:?}"
        );
        assert!(
            unknown.is_empty(),
            "in docs/options.md but not in `{name}`: {unknown:?}"
        );
    }
}

/// The lines of a markdown text with whether each is code (fenced or indented).
fn lines_with_code(text: &str) -> Vec<(&str, bool)> {
    let mut fenced = false;
    text.lines()
        .map(|line| {
            if line.trim_start().starts_with("```") {
                fenced = !fenced;
                return (line, true);
            }
            (line, fenced || line.starts_with("    "))
        })
        .collect()
}

/// A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// Every anchor of a markdown text (a repeated heading gets `-1`, `-2`, … as on GitHub).
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen = std::collections::BTreeMap::<String, usize>::new();
    let mut out = BTreeSet::new();
    for (line, code) in lines_with_code(text) {
        let Some(heading) = line.trim_start_matches('#').strip_prefix(' ') else {
            continue;
        };
        if code || !line.starts_with('#') {
            continue;
        }
        let anchor = slug(heading);
        let count = seen.entry(anchor.clone()).or_default();
        out.insert(if *count == 0 {
            anchor.clone()
        } else {
            format!("{anchor}-{count}")
        });
        *count += 1;
    }
    out
}

/// The `##` headings of a markdown text, in order.
fn second_level_headings(text: &str) -> Vec<String> {
    lines_with_code(text)
        .into_iter()
        .filter(|(_, code)| !code)
        .filter_map(|(line, _)| line.strip_prefix("## "))
        .map(String::from)
        .collect()
}

#[test]
fn the_readme_is_a_short_guide_with_a_table_of_contents_of_its_sections() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(
        lines <= 450,
        "README.md has {lines} lines; depth belongs in docs/"
    );
    let contents = &readme[readme
        .find("\n## Contents\n")
        .expect("README.md has no `## Contents`")..];
    let contents = &contents["\n## Contents\n".len()..];
    let contents = &contents[..contents.find("\n## ").unwrap()];
    let entries: Vec<(String, String)> = contents
        .lines()
        .filter_map(|l| l.strip_prefix("- ["))
        .map(|l| {
            let (title, rest) = l.split_once("](#").unwrap();
            (title.to_string(), rest.trim_end_matches(')').to_string())
        })
        .collect();
    let headings: Vec<String> = second_level_headings(&readme)
        .into_iter()
        .filter(|h| h != "Contents")
        .collect();
    let titles: Vec<String> = entries.iter().map(|(t, _)| t.clone()).collect();
    assert_eq!(
        titles, headings,
        "README.md's table of contents and its `##` headings differ"
    );
    for (title, anchor) in entries {
        assert_eq!(
            anchor,
            slug(&title),
            "README.md's contents: the link of `{title}`"
        );
    }
}

/// The relative link targets of a markdown text (outside code), without web addresses.
fn relative_links(text: &str) -> Vec<String> {
    let mut links = Vec::new();
    for (line, code) in lines_with_code(text) {
        if code {
            continue;
        }
        for (i, _) in line.match_indices("](") {
            let target: String = line[i + 2..]
                .chars()
                .take_while(|c| *c != ')' && *c != ' ')
                .collect();
            let web = target.contains("://") || target.starts_with("mailto:");
            if !web && !target.is_empty() {
                links.push(target);
            }
        }
    }
    links
}

#[test]
fn every_relative_link_in_the_docs_reaches_a_file_and_heading() {
    let mut pages = vec![repo().join("README.md"), repo().join("bench/README.md")];
    pages.extend(docs_pages());
    let mut broken = Vec::new();
    for page in pages {
        let text = std::fs::read_to_string(&page).unwrap();
        for link in relative_links(&text) {
            let (path, anchor) = link.split_once('#').unwrap_or((&link, ""));
            let target = if path.is_empty() {
                page.clone()
            } else {
                page.parent().unwrap().join(path)
            };
            let name = page.strip_prefix(repo()).unwrap().display().to_string();
            if !target.exists() {
                broken.push(format!("{name}: {link}: no such file"));
            } else if !anchor.is_empty()
                && target.is_file()
                && !anchors(&std::fs::read_to_string(&target).unwrap()).contains(anchor)
            {
                broken.push(format!("{name}: {link}: no such heading"));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}
