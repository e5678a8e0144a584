//! sysbench habits on abtest's command line. A DBA's fingers type `--time 60`,
//! `--mysql-host`, `--threads 8 16`, `--max-tps-loss -5%` or `… oltp_read_write run`
//! (sysbench puts the test and the verb last); clap can only say "unexpected argument",
//! and its "similar argument" (`--mysql-storage-engine` for `--mysql-host`, `--segment`
//! for `--events`) leads further astray. This module reads the refused command line and
//! says what abtest does instead, with the abtest spelling of what was typed, and the
//! way to translate a whole sysbench command: `abtest from-sysbench '…'`. Its hint takes
//! the place of clap's suggestions, so the sysbench answer is the one read first.

use std::ffi::OsString;

use super::translate::SCRIPTS;

/// What abtest offers for each sysbench option it does not take.
const OPTIONS: &[(&str, &str)] = &[
    (
        "--time",
        "sysbench's --time is one run's length; abtest alternates rounds: --round-time for \
         one round, --rounds per side, or --max-time for the whole comparison's budget",
    ),
    (
        "--events",
        "abtest measures rounds of fixed time, not a count of events: --round-time and --rounds",
    ),
    (
        "--mysql-",
        "connection settings live in each side's profile: [connection] host, port, user, \
         password_file or password_env, database, socket (see profiles/)",
    ),
    (
        "--db-driver",
        "abtest talks to MySQL and MariaDB only; the server is in each side's profile",
    ),
];

/// The `[connection]` key of each sysbench connection option, for the profile line.
const CONNECTION_KEYS: &[(&str, &str)] = &[
    ("--mysql-host", "host"),
    ("--mysql-port", "port"),
    ("--mysql-user", "user"),
    ("--mysql-db", "database"),
    ("--mysql-socket", "socket"),
];

/// The verbs sysbench takes and what abtest does instead.
const VERBS: &[(&str, &str)] = &[
    (
        "prepare",
        "abtest prepares the sbtest data itself before the rounds (--prepare decides how)",
    ),
    (
        "run",
        "abtest runs without a verb: abtest --baseline A.toml --variant B.toml [options]",
    ),
    (
        "cleanup",
        "abtest drops its tables from an external server with `abtest cleanup --profile X.toml`; \
         managed servers are thrown away",
    ),
];

/// Tolerances, which abtest reads as the positive size of the loss accepted.
const TOLERANCES: &[&str] = &["--max-tps-loss", "--max-latency-inflation"];

/// Hints for the sysbench habits in `args` (the whole command line, program first), or
/// `None` when there are none. `known` lists abtest's own long options (`--threads`):
/// a line with any other option is not respelled whole, since it could not run (and the
/// option could carry a secret, as `--password=…` does).
pub(crate) fn hints(args: &[OsString], known: &[String]) -> Option<String> {
    let words: Vec<String> = args
        .iter()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let mut lines: Vec<String> = Vec::new();
    let mut push = |line: String| {
        if !lines.contains(&line) {
            lines.push(line);
        }
    };
    for (at, word) in words.iter().enumerate() {
        let name = word.split('=').next().unwrap_or_default();
        for (option, hint) in OPTIONS {
            let matches = if option.ends_with('-') {
                name.starts_with(option)
            } else {
                name == *option
            };
            if matches {
                push(format!("{name}: {hint}{}", profile_line(&words, at)));
            }
        }
    }
    let rewrite = Rewrite::of(&words, known);
    for line in &rewrite.lines {
        push(line.clone());
    }
    let verb = rewrite
        .positional
        .iter()
        .find_map(|w| VERBS.iter().find(|(v, _)| v == w));
    if let Some((verb, hint)) = verb {
        push(format!("`{verb}`: {hint}"));
    }
    if lines.is_empty() {
        return None;
    }
    if rewrite.changed && rewrite.complete {
        lines.push(format!("in abtest: abtest {}", rewrite.words.join(" ")));
    }
    lines.push(
        "to translate a whole sysbench command line: abtest from-sysbench 'sysbench oltp_read_write --time=60 …'"
            .into(),
    );
    Some(format!("hint (from sysbench):\n  {}", lines.join("\n  ")))
}

/// clap's refusal with `hints` in the place of its suggestions: its first paragraph
/// (what was refused), the hints, then its last line (where to read more). clap's
/// "similar argument" tip and the usage line built on it are dropped, since for a
/// sysbench option they point at an unrelated abtest option.
pub(crate) fn with_hints(clap_text: &str, hints: &str) -> String {
    let text = clap_text.trim_end();
    let refused = text.split("\n\n").next().unwrap_or(text);
    let last = text.lines().last().filter(|l| !refused.ends_with(l));
    match last {
        Some(last) => format!("{refused}\n\n{hints}\n\n{last}\n"),
        None => format!("{refused}\n\n{hints}\n"),
    }
}

/// For a connection option with its value (`--mysql-host=db1`, `--mysql-host db1`), the
/// profile line it becomes; the password never appears.
fn profile_line(words: &[String], at: usize) -> String {
    let word = &words[at];
    let (name, value) = match word.split_once('=') {
        Some((name, value)) => (name, Some(value)),
        None => (
            word.as_str(),
            words
                .get(at + 1)
                .filter(|w| !w.starts_with('-'))
                .map(String::as_str),
        ),
    };
    if name.contains("password") {
        return "; the password goes in the profile as password_env = \"VARIABLE\" or \
                password_file, never on the command line"
            .into();
    }
    let key = CONNECTION_KEYS.iter().find(|(option, _)| *option == name);
    match (key, value) {
        (Some((_, "port")), Some(value)) => format!("; here: [connection] port = {value}"),
        (Some((_, key)), Some(value)) => format!("; here: [connection] {key} = \"{value}\""),
        _ => String::new(),
    }
}

/// The command line respelled in abtest's words, as far as the habits go.
#[derive(Debug, Default)]
struct Rewrite {
    /// The words, respelled.
    words: Vec<String>,
    /// One hint per respelled habit.
    lines: Vec<String>,
    /// Words that are neither options nor their values, as typed.
    positional: Vec<String>,
    /// Whether a habit was respelled.
    changed: bool,
    /// Whether every habit in the line has an abtest spelling (no `--time`, no verb
    /// abtest has no counterpart for), so the respelled line is worth showing.
    complete: bool,
}

impl Rewrite {
    fn of(words: &[String], known: &[String]) -> Rewrite {
        let mut out = Rewrite {
            complete: true,
            ..Rewrite::default()
        };
        let mut i = 0;
        while i < words.len() {
            let word = &words[i];
            i += 1;
            let (name, inline) = match word.split_once('=') {
                Some((name, value)) if name.starts_with("--") => (name, Some(value)),
                _ => (word.as_str(), None),
            };
            if name == "--threads" {
                i = out.threads(words, i, inline);
            } else if TOLERANCES.contains(&name) {
                i = out.tolerance(name, words, i, inline);
            } else if word.starts_with('-') {
                out.complete &= !OPTIONS.iter().any(|(o, _)| name.starts_with(o));
                out.complete &= known.iter().any(|k| k == name);
                out.words.push(word.clone());
                // A value in the next word stays with its option.
                if inline.is_none()
                    && words.get(i).is_some_and(|w| !w.starts_with('-'))
                    && (name == "--workload" || !is_habit_word(&words[i]))
                {
                    out.words.push(words[i].clone());
                    i += 1;
                }
            } else {
                out.positional(word);
            }
        }
        out
    }

    /// `--threads 8 16 32` → `--threads 8,16,32`; returns the next word's index.
    fn threads(&mut self, words: &[String], mut i: usize, inline: Option<&str>) -> usize {
        let mut levels: Vec<String> = inline.map(String::from).into_iter().collect();
        if inline.is_none()
            && let Some(first) = words.get(i)
        {
            levels.push(first.clone());
            i += 1;
        }
        let typed = levels.len();
        while let Some(next) = words.get(i).filter(|w| is_level_list(w)) {
            levels.push(next.clone());
            i += 1;
        }
        let list = levels.join(",");
        if levels.len() > typed {
            let as_typed = levels.join(" ");
            self.lines.push(format!(
                "--threads {as_typed}: abtest reads the thread levels as one list, separated \
                 by commas: --threads {list}"
            ));
            self.changed = true;
        }
        self.words.push(format!("--threads {list}"));
        i
    }

    /// `--max-tps-loss -5%` → `--max-tps-loss 5%`; returns the next word's index.
    fn tolerance(
        &mut self,
        name: &str,
        words: &[String],
        mut i: usize,
        inline: Option<&str>,
    ) -> usize {
        let value = match inline {
            Some(value) => value.to_string(),
            None => match words.get(i) {
                Some(value) => {
                    i += 1;
                    value.clone()
                }
                None => {
                    self.words.push(name.to_string());
                    return i;
                }
            },
        };
        let Some(positive) = value.strip_prefix('-').filter(|v| !v.starts_with('-')) else {
            self.words.push(format!("{name} {value}"));
            return i;
        };
        let separator = if inline.is_some() { "=" } else { " " };
        self.lines.push(format!(
            "{name}{separator}{value}: a tolerance is the size of the loss you accept, \
             written positive: {name} {positive}"
        ));
        self.changed = true;
        self.words.push(format!("{name} {positive}"));
        i
    }

    /// A word that is no option: sysbench's verb or test name, or something else.
    fn positional(&mut self, word: &str) {
        self.positional.push(word.to_string());
        if SCRIPTS.contains(&word) {
            self.lines.push(format!(
                "`{word}`: abtest names the workload with an option: --workload {word}"
            ));
            self.words.push(format!("--workload {word}"));
            self.changed = true;
        } else if word == "run" || word == "prepare" {
            self.changed = true;
        } else {
            self.complete = false;
            self.words.push(word.to_string());
        }
    }
}

/// A sysbench test name or verb, which is never an option's value.
fn is_habit_word(word: &str) -> bool {
    SCRIPTS.contains(&word) || VERBS.iter().any(|(v, _)| *v == word)
}

/// `16` or `16,32`: more thread levels typed after the first.
fn is_level_list(word: &str) -> bool {
    !word.is_empty()
        && word
            .split(',')
            .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::hints;

    /// The abtest options these tests use (the binary passes all of its own).
    const KNOWN: &[&str] = &[
        "--baseline",
        "--variant",
        "--threads",
        "--max-tps-loss",
        "--max-latency-inflation",
        "--workload",
        "--dry-run",
    ];

    fn hint_for(line: &str) -> Option<String> {
        let args: Vec<std::ffi::OsString> = line.split(' ').map(Into::into).collect();
        let known: Vec<String> = KNOWN.iter().map(|k| k.to_string()).collect();
        hints(&args, &known)
    }

    #[test]
    fn a_line_with_an_option_abtest_lacks_is_not_respelled_and_no_secret_is_echoed() {
        for line in [
            "abtest --baseline a.toml --variant b.toml --threads 8 16 --password=secret",
            "abtest --baseline a.toml --variant b.toml --threads 8 16 -psecret",
            "abtest --baseline a.toml --variant b.toml --threads 8 16 --pgsql-password secret",
        ] {
            let hint = hint_for(line).unwrap();
            assert!(hint.contains("--threads 8,16"), "{hint}");
            assert!(!hint.contains("in abtest:"), "{hint}");
            assert!(!hint.contains("secret"), "{hint}");
        }
    }

    #[test]
    fn sysbench_options_and_verbs_get_their_abtest_way() {
        let time = hint_for("abtest --baseline a.toml --time 60").unwrap();
        assert!(time.contains("--time: sysbench's --time"), "{time}");
        assert!(time.contains("--max-time"), "{time}");
        assert!(time.contains("abtest from-sysbench"), "{time}");
        let host = hint_for("abtest --mysql-host=db1 --mysql-user=sb").unwrap();
        assert!(host.contains("--mysql-host: connection settings"), "{host}");
        assert!(host.contains("--mysql-user: connection settings"), "{host}");
        assert!(
            hint_for("abtest run --threads 8")
                .unwrap()
                .contains("`run`")
        );
        assert!(
            hint_for("abtest --events=1000")
                .unwrap()
                .contains("--events")
        );
        assert!(hint_for("abtest --thread 8").is_none());
    }

    #[test]
    fn trailing_verbs_thread_lists_and_negative_tolerances_are_respelled() {
        let trailing =
            hint_for("abtest --baseline a.toml --variant b.toml oltp_read_write run").unwrap();
        assert!(
            trailing.contains("`oltp_read_write`: abtest names the workload with an option: --workload oltp_read_write"),
            "{trailing}"
        );
        assert!(
            trailing.contains("`run`: abtest runs without a verb"),
            "{trailing}"
        );
        assert!(
            trailing.contains(
                "in abtest: abtest --baseline a.toml --variant b.toml --workload oltp_read_write\n"
            ),
            "{trailing}"
        );
        let threads =
            hint_for("abtest --baseline a.toml --variant b.toml --threads 8 16 32").unwrap();
        assert!(
            threads.contains("--threads 8 16 32: abtest reads the thread levels as one list, separated by commas: --threads 8,16,32"),
            "{threads}"
        );
        assert!(
            threads
                .contains("in abtest: abtest --baseline a.toml --variant b.toml --threads 8,16,32"),
            "{threads}"
        );
        let loss =
            hint_for("abtest --baseline a.toml --variant b.toml --max-tps-loss -5%").unwrap();
        assert!(
            loss.contains("--max-tps-loss -5%: a tolerance is the size of the loss you accept, written positive: --max-tps-loss 5%"),
            "{loss}"
        );
        let inline = hint_for("abtest --max-tps-loss=-5% --max-latency-inflation -10%").unwrap();
        assert!(inline.contains("--max-tps-loss=-5%: "), "{inline}");
        assert!(inline.contains("--max-latency-inflation 10%"), "{inline}");
        let host = hint_for(
            "abtest --baseline a.toml --mysql-host=db1 --mysql-port 3307 --mysql-password=x",
        )
        .unwrap();
        assert!(host.contains("here: [connection] host = \"db1\""), "{host}");
        assert!(host.contains("here: [connection] port = 3307"), "{host}");
        assert!(
            !host.contains("=x") && !host.contains("in abtest:"),
            "{host}"
        );
        // What is no habit gets no hint.
        assert!(hint_for("abtest --baseline a.toml --threads 8,16 --max-tps-loss 5%").is_none());
        assert!(hint_for("abtest --workload oltp_read_only --threads 8").is_none());
    }

    #[test]
    fn the_hint_takes_the_place_of_clap_suggestions() {
        let clap = "error: unexpected argument '--mysql-host' found\n\n  tip: a similar argument exists: '--mysql-storage-engine'\n\nUsage: abtest --mysql-storage-engine <E>\n\nFor more information, try '--help'.\n";
        let shown = super::with_hints(clap, "hint (from sysbench):\n  --mysql-host: …");
        assert_eq!(
            shown,
            "error: unexpected argument '--mysql-host' found\n\nhint (from sysbench):\n  --mysql-host: …\n\nFor more information, try '--help'.\n"
        );
    }
}
