//! `abtest from-sysbench '<command line>'`: a sysbench 0.4 or 1.0 command line turned
//! into abtest workload options and a `[connection]` profile stub. Every option that
//! cannot be mapped is listed with the reason — never dropped silently — and a password
//! on the command line is replaced by `password_env`.
//!
//! Command lines copied from blog posts are often mangled (`-- mysql-port=3306`,
//! `--max-time= $time`, `Oltp-test-mode`); they are normalised first.

use std::collections::BTreeMap;

/// The result of a translation.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Translation {
    /// abtest options, in a stable order.
    pub(crate) options: Vec<(String, String)>,
    /// `[connection]` keys and TOML values.
    pub(crate) connection: Vec<(String, String)>,
    /// Options that were not mapped, with the reason.
    pub(crate) unmapped: Vec<(String, String)>,
    /// Remarks about how the meaning changes.
    pub(crate) notes: Vec<String>,
    /// sysbench's run time and the rounds and round time it became, for the time note.
    timed: Option<(u64, u64, u64)>,
    /// Whether the line is a `prepare` (and no `run`).
    pub(crate) preparing: bool,
    /// Options of a `prepare` line that only change how the prepare runs.
    pub(crate) prepare_only: Vec<String>,
}

/// Options whose abtest name is the sysbench 1.0 name (0.4 adds an `oltp-` prefix).
const SAME_NAME: &[&str] = &[
    "range-size",
    "point-selects",
    "simple-ranges",
    "sum-ranges",
    "order-ranges",
    "distinct-ranges",
    "index-updates",
    "non-index-updates",
    "delete-inserts",
    "range-selects",
    "skip-trx",
    "auto-inc",
    "secondary",
    "create-secondary",
    "rand-type",
    "rand-spec-iter",
    "rand-spec-pct",
    "rand-spec-res",
    "rand-pareto-h",
    "rand-zipfian-exp",
    "random-points",
    "number-of-ranges",
    "delta",
    "tables",
    "table-size",
];

/// Options that need no counterpart, with the reason.
const NOT_NEEDED: &[(&str, &str)] = &[
    ("db-driver", "abtest speaks the MySQL protocol only"),
    (
        "max-requests",
        "abtest rounds are timed, not counted (0 means unlimited in sysbench anyway)",
    ),
    (
        "events",
        "abtest rounds are timed, not counted (0 means unlimited in sysbench anyway)",
    ),
    (
        "mysql-engine-trx",
        "transactions follow the storage engine, as in sysbench 1.0",
    ),
    (
        "oltp-read-only",
        "read-only is chosen by the workload (oltp_read_only)",
    ),
    ("oltp-nontrx-mode", "folded into the workload name"),
    ("oltp-test-mode", "folded into the workload name"),
    ("test", "folded into the workload name"),
    ("verbosity", "abtest's output is fixed"),
    (
        "rand-seed",
        "use --seed, which also seeds the data and the round order",
    ),
    ("threads-distribution", "not supported"),
];

/// The sysbench 1.0 test scripts abtest runs, by their script names.
pub(crate) const SCRIPTS: &[&str] = &[
    "oltp_read_write",
    "oltp_read_only",
    "oltp_write_only",
    "oltp_point_select",
    "oltp_update_index",
    "oltp_update_non_index",
    "oltp_delete",
    "oltp_insert",
    "select_random_points",
    "select_random_ranges",
    "bulk_insert",
];

/// sysbench's own defaults for what abtest sets differently or must not leave implicit:
/// a translation says them out loud, so the run does what the sysbench run did.
const SYSBENCH_DEFAULTS: &[(&str, &str)] = &[
    ("threads", "1"),
    ("tables", "1"),
    ("table-size", "10000"),
    ("rand-type", "special"),
];

/// Options that shape the data or the connection: what a `prepare` line sets for the run.
/// Everything else on a prepare line (its --time, --threads, the query mix) only changes
/// how sysbench's prepare runs, which measures nothing.
const DATA_OPTIONS: &[&str] = &[
    "tables",
    "table-size",
    "num-tables",
    "tables-count",
    "auto-inc",
    "secondary",
    "create-secondary",
    "mysql-storage-engine",
    "mysql-table-engine",
    "db-driver",
    "test",
    "oltp-test-mode",
    "oltp-nontrx-mode",
    "oltp-read-only",
];

/// Values of shell variables a command line uses: `$thread` of a `for thread in …` loop
/// (several values) or of an assignment `time=3600` (one).
pub(crate) type Variables = BTreeMap<String, Vec<String>>;

/// Translates a sysbench command line; what is not one is an error.
#[cfg(test)]
fn translate(command_line: &str) -> Result<Translation, String> {
    let mut out = translate_with(command_line, &Variables::new())?;
    out.finish();
    Ok(out)
}

/// Translates one sysbench command line with the shell variables known around it,
/// without sysbench's defaults (see [`Translation::finish`]).
pub(crate) fn translate_with(
    command_line: &str,
    variables: &Variables,
) -> Result<Translation, String> {
    let words = shlex::split(command_line).ok_or("the command line has an unclosed quote")?;
    check_is_sysbench(&words)?;
    let (options, positional) = normalise(&words);
    let mut out = Translation {
        preparing: positional.iter().any(|w| w == "prepare")
            && !positional.iter().any(|w| w == "run"),
        ..Translation::default()
    };
    let workload = workload(&options, &positional, &mut out)?;
    out.options.push(("workload".into(), workload));
    for (name, value) in &options {
        if out.preparing && !prepare_sets(name) {
            out.prepare_only.push(format!("--{name}={value}"));
            continue;
        }
        let value = resolve(name, value, variables, &mut out);
        translate_option(name, &value, &mut out);
    }
    if let Some((seconds, rounds, round)) = out.timed {
        let warmup = options
            .get("warmup-time")
            .and_then(|w| w.parse::<u64>().ok());
        out.notes.push(time_note(seconds, rounds, round, warmup));
    }
    for word in positional
        .iter()
        .skip_while(|w| script_name(w) == "sysbench")
    {
        match word.as_str() {
            "prepare" | "run" | "cleanup" => out.notes.push(format!(
                "`{word}`: abtest prepares the tables itself (--prepare auto) and runs both sides"
            )),
            w if SCRIPTS.contains(&script_name(w).as_str()) => {}
            other => out
                .unmapped
                .push((other.to_string(), "unknown argument".into())),
        }
    }
    Ok(out)
}

/// Whether option `name` on a `prepare` line sets something the run uses: the data, the
/// connection, the workload's name. A password is kept, to be masked as on any line.
fn prepare_sets(name: &str) -> bool {
    let stripped = name.strip_prefix("oltp-").unwrap_or(name);
    DATA_OPTIONS.contains(&name)
        || DATA_OPTIONS.contains(&stripped)
        || name.starts_with("mysql-")
        || is_secret(name)
}

/// `value` with a shell variable replaced by what the script gives it: a loop's values
/// become a thread list (`--threads 16,32,64`), an assignment its one value. A variable
/// with several values anywhere but the threads stays unresolved.
fn resolve(name: &str, value: &str, variables: &Variables, out: &mut Translation) -> String {
    let variable = value
        .strip_prefix("${")
        .and_then(|v| v.strip_suffix('}'))
        .or_else(|| value.strip_prefix('$'));
    let Some(values) = variable.and_then(|v| variables.get(v)) else {
        return value.to_string();
    };
    let threads = matches!(name, "threads" | "num-threads");
    match values.as_slice() {
        [one] => one.clone(),
        many if threads => {
            out.notes.push(format!(
                "--threads {}: the shell loop over {} ({}) becomes one run that sweeps the levels, each level compared on both sides",
                many.join(","),
                value,
                many.join(" ")
            ));
            many.join(",")
        }
        _ => value.to_string(),
    }
}

impl Translation {
    /// Adds what a translation says out loud when the command lines leave it implicit:
    /// sysbench's defaults, and a host.
    pub(crate) fn finish(&mut self) {
        let out = self;
        for (option, value) in SYSBENCH_DEFAULTS {
            if !out.options.iter().any(|(name, _)| name == option) && !out.mentions(option) {
                out.options.push((option.to_string(), value.to_string()));
                out.notes.push(format!(
                    "--{option} {value}: sysbench's default, since the command line does not set it"
                ));
            }
        }
        if !out
            .connection
            .iter()
            .any(|(key, _)| key == "host" || key == "socket")
        {
            out.connection
                .insert(0, ("host".into(), quote("127.0.0.1")));
            out.notes.push(
            "host = \"127.0.0.1\": the command line names no host; sysbench's default, localhost, \
             is the server's Unix socket, so set socket = \"/path/mysqld.sock\" instead to match it"
                .into(),
        );
        }
        if !out.prepare_only.is_empty() {
            out.notes.push(format!(
                "{}: on the prepare line, these only change how sysbench's prepare runs (it \
             loads the data and measures nothing); they are not measured settings and are \
             not carried over",
                out.prepare_only.join(" ")
            ));
        }
    }
}

/// Refuses what is not a sysbench command line: nothing at all, or another program.
fn check_is_sysbench(words: &[String]) -> Result<(), String> {
    let Some(first) = words.first() else {
        return Err(
            "nothing to translate; give a sysbench command line, such as \
             'sysbench oltp_read_write --threads=8 --time=60 run'"
                .into(),
        );
    };
    let program = script_name(first);
    if program == "sysbench" || first.starts_with('-') || SCRIPTS.contains(&program.as_str()) {
        return Ok(());
    }
    Err(format!(
        "`{first}` is not sysbench; from-sysbench translates sysbench 0.4 and 1.0 command lines"
    ))
}

/// `oltp_point_select` for `/usr/share/sysbench/oltp_point_select.lua`.
fn script_name(word: &str) -> String {
    word.rsplit('/')
        .next()
        .unwrap_or("")
        .trim_end_matches(".lua")
        .to_string()
}

/// Whether a positional word is meant as a test script: a path, a `.lua` file, or a
/// name shaped like sysbench's.
fn looks_like_script(word: &str) -> bool {
    let name = script_name(word);
    word.contains('/')
        || word.ends_with(".lua")
        || ["oltp", "select_", "bulk"]
            .iter()
            .any(|p| name.starts_with(p))
}

/// Splits words into `--name=value` options (names lower-cased, `_` as `-`) and the
/// other words, repairing the usual copy-and-paste damage.
fn normalise(words: &[String]) -> (BTreeMap<String, String>, Vec<String>) {
    let mut options = BTreeMap::new();
    let mut positional = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let mut word = words[i].clone();
        i += 1;
        if (word == "--" || word == "-")
            && let Some(next) = words.get(i)
        {
            word = format!("--{next}");
            i += 1;
        }
        let Some(option) = word.strip_prefix("--") else {
            // The mysql client's `-pSECRET`: a password, never echoed.
            if word.starts_with("-p") && word.len() > 2 {
                options.insert("p".to_string(), word[2..].to_string());
            } else {
                positional.push(word);
            }
            continue;
        };
        let (name, value) = match option.split_once('=') {
            Some((name, value)) => (name, Some(value.to_string())),
            None => (option, None),
        };
        let name = name.trim().to_lowercase().replace('_', "-");
        // A password glued to its option by copy and paste (`--mysql-password123456`):
        // the name ends at the secret's word, the rest is the value, never echoed.
        let (name, value) = match (value, glued_secret(&name)) {
            (None, Some((secret, rest))) => (secret, Some(rest)),
            (value, _) => (name, value),
        };
        let mut value = value;
        // `--name = value`, `--name= value` and `--name =value`
        if value.is_none() && words.get(i).is_some_and(|w| w.starts_with('=')) {
            let rest = words[i].trim_start_matches('=').to_string();
            i += 1;
            value = Some(rest);
        }
        // The value in the next word: after `--name= ` (copy and paste), and after a
        // password option written `--mysql-password secret`, so that the password is
        // never echoed back as an unknown argument.
        let command = |w: &str| matches!(w, "prepare" | "run" | "cleanup" | "help");
        let password_without_value = is_secret(&name) && value.is_none();
        if (value.as_deref() == Some("") || password_without_value)
            && words
                .get(i)
                .is_some_and(|w| !w.starts_with('-') && !command(w))
        {
            value = Some(words[i].clone());
            i += 1;
        }
        options.insert(name, value.unwrap_or_else(|| "on".into()));
    }
    (options, positional)
}

/// The abtest workload of a 0.4 `--test=oltp` mode or a 1.0 script name or path. A
/// script abtest does not know is an error naming the closest one.
fn workload(
    options: &BTreeMap<String, String>,
    positional: &[String],
    out: &mut Translation,
) -> Result<String, String> {
    let script = options
        .get("test")
        .cloned()
        .or_else(|| {
            positional
                .iter()
                .find(|w| script_name(w) != "sysbench" && looks_like_script(w))
                .cloned()
        })
        .ok_or(
            "the command line names no test: give a script such as oltp_read_write \
             (sysbench 1.0) or --test=oltp (sysbench 0.4)",
        )?;
    let script = script_name(&script);
    if script != "oltp" {
        if SCRIPTS.contains(&script.as_str()) {
            return Ok(script);
        }
        let closest = SCRIPTS
            .iter()
            .max_by(|a, b| {
                strsim::jaro_winkler(a, &script).total_cmp(&strsim::jaro_winkler(b, &script))
            })
            .unwrap_or(&"oltp_read_write");
        return Err(format!(
            "unknown sysbench test `{script}`; did you mean `{closest}`? abtest runs {}",
            SCRIPTS.join(", ")
        ));
    }
    let mode = options
        .get("oltp-test-mode")
        .map_or("complex", String::as_str)
        .to_lowercase();
    let read_only = options
        .get("oltp-read-only")
        .is_some_and(|v| matches!(v.as_str(), "on" | "1" | "true"));
    let name = match mode.as_str() {
        "simple" => "oltp_point_select",
        "nontrx" => match options
            .get("oltp-nontrx-mode")
            .map_or("select", String::as_str)
        {
            "update_key" => "oltp_update_index",
            "update_nokey" => "oltp_update_non_index",
            "insert" => "oltp_insert",
            "delete" => "oltp_delete",
            _ => "oltp_point_select",
        },
        _ if read_only => "oltp_read_only",
        _ => "oltp_read_write",
    };
    out.notes.push(format!(
        "sysbench 0.4 `--test=oltp` in {mode} mode is abtest's {name}"
    ));
    Ok(name.into())
}

fn translate_option(name: &str, value: &str, out: &mut Translation) {
    let unresolved = value.contains('$');
    let stripped = name.strip_prefix("oltp-").unwrap_or(name);
    let raw = value;
    let push = |out: &mut Translation, option: &str, value: String| {
        if unresolved {
            out.unmapped.push((
                format!("--{name}={raw}"),
                format!("the value is a shell variable; give --{option} a value"),
            ));
        } else {
            out.options.push((option.to_string(), value));
        }
    };
    match name {
        "oltp-num-tables" | "oltp-tables-count" => push(out, "tables", value.into()),
        "num-threads" | "threads" => push(out, "threads", value.into()),
        "max-time" | "time" => {
            let seconds = value.parse::<u64>().ok().filter(|s| *s > 0);
            let (rounds, round) = seconds.map_or((ROUNDS, 60), rounds_for);
            push(out, "rounds", rounds.to_string());
            push(out, "round-time", format!("{round}s"));
            // Pinned, so the run takes what the note says on one server or two (their
            // default re-warms differ).
            push(out, "rewarm", rewarm_text());
            if let Some(seconds) = seconds.filter(|_| !unresolved) {
                out.timed = Some((seconds, rounds, round));
            }
        }
        "oltp-dist-type" => push(out, "rand-type", value.into()),
        "oltp-dist-pct" => push(out, "rand-spec-pct", value.into()),
        "oltp-dist-res" => push(out, "rand-spec-res", value.into()),
        "oltp-dist-iter" => push(out, "rand-spec-iter", value.into()),
        "mysql-table-engine" | "mysql-storage-engine" => {
            push(out, "mysql-storage-engine", value.into())
        }
        "report-interval" => push(out, "report-interval", format!("{value}s")),
        "percentile" => push(out, "percentiles", value.into()),
        "tx-rate" | "rate" => push(out, "rate", value.into()),
        "warmup-time" => push(out, "warmup", format!("{value}s")),
        "db-ps-mode" => push(out, "ps-mode", value.into()),
        "mysql-ignore-errors" => push(out, "ignore-errors", value.into()),
        "mysql-host" => out.connection.push(("host".into(), quote(value))),
        "mysql-port" => out.connection.push(("port".into(), value.into())),
        "mysql-socket" => out.connection.push(("socket".into(), quote(value))),
        "mysql-user" => out.connection.push(("user".into(), quote(value))),
        "mysql-db" => out.connection.push(("database".into(), quote(value))),
        "mysql-password" => out
            .connection
            .push(("password_env".into(), quote("ABTEST_PASSWORD"))),
        "mysql-ssl" if matches!(value, "on" | "1" | "true" | "required") => {
            out.connection.push(("tls".into(), quote("required")))
        }
        "mysql-ssl" if matches!(value, "off" | "0" | "false" | "disabled") => {
            out.connection.push(("tls".into(), quote("disabled")))
        }
        _ if SAME_NAME.contains(&stripped) => push(out, stripped, value.into()),
        _ if is_secret(name) => out.unmapped.push((
            if name == "p" {
                "-p…".into()
            } else {
                format!("--{name}=…")
            },
            "a password, not copied: give it to the profile as password_env or password_file"
                .into(),
        )),
        _ => match NOT_NEEDED.iter().find(|(n, _)| *n == name) {
            Some((_, why)) => out
                .unmapped
                .push((format!("--{name}={value}"), (*why).into())),
            None => out
                .unmapped
                .push((format!("--{name}={value}"), "no abtest equivalent".into())),
        },
    }
}

/// `(option, value)` of a secret option with its value glued on (`mysql-password123456`
/// is `mysql-password` and `123456`); `None` for a name that is only the option.
fn glued_secret(name: &str) -> Option<(String, String)> {
    ["password", "passwd"].into_iter().find_map(|word| {
        let end = name.find(word)? + word.len();
        let rest = &name[end..];
        (!rest.is_empty() && !rest.starts_with('-'))
            .then(|| (name[..end].to_string(), rest.to_string()))
    })
}

/// Whether an option holds a secret whatever its driver or spelling: `--pgsql-password`,
/// `--password`, `--mysql-passwd`, the client's `-p`.
fn is_secret(name: &str) -> bool {
    name == "p" || name.contains("password") || name.contains("passwd") || name.contains("secret")
}

/// Rounds per side a sysbench run's time is divided into.
const ROUNDS: u64 = 10;

/// Rounds per side and seconds per round that measure each side for `seconds` in all, as
/// the sysbench run measured its one configuration: 10 rounds of at least 5 s, fewer
/// rounds of 5 s for a shorter run.
fn rounds_for(seconds: u64) -> (u64, u64) {
    if seconds >= 5 * ROUNDS {
        (ROUNDS, seconds / ROUNDS)
    } else {
        ((seconds / 5).max(2), 5)
    }
}

/// The note on a translated run time: what each side measures, and what the whole run
/// takes, the figure `--dry-run` gives.
fn time_note(seconds: u64, rounds: u64, round: u64, warmup: Option<u64>) -> String {
    let per_side = rounds * round;
    let schedule = crate::schedule::Schedule {
        levels: vec![1],
        rounds: rounds as u32,
        round_time: std::time::Duration::from_secs(round),
        warmup: std::time::Duration::from_secs(warmup.unwrap_or(DEFAULT_WARMUP_S)),
        rewarm: Some(REWARM.rewarm()),
        pause: std::time::Duration::ZERO,
        order: crate::schedule::RoundOrder::Abba,
        level_order: crate::schedule::LevelOrder::Asc,
        instances: 1,
        swap: false,
    };
    let total = humantime::format_duration(schedule.estimated_time());
    let exact = if per_side == seconds {
        String::new()
    } else {
        format!(" (sysbench's {seconds} s rounded to whole rounds)")
    };
    format!(
        "--rounds {rounds} --round-time {round}s --rewarm {}: sysbench measured one configuration once for \
         {seconds} s; abtest measures each side for {per_side} s{exact}, in {rounds} rounds of \
         {round} s taking turns, so the rounds of both sides take {total} with their warm-ups \
         (the estimate --dry-run gives)",
        rewarm_text()
    )
}

/// abtest's default warm-up (`--warmup`), for the time note.
const DEFAULT_WARMUP_S: u64 = 5;
/// Whose re-warm a translated run is given (`--rewarm`): a server per side's default,
/// written out so the run takes what the note says on one server or two.
const REWARM: crate::schedule::RoundDefaults = crate::schedule::RoundDefaults::Separate;

/// The `--rewarm` value a translation writes, such as `1s`.
fn rewarm_text() -> String {
    humantime::format_duration(REWARM.rewarm()).to_string()
}

fn quote(value: &str) -> String {
    format!("\"{}\"", value.replace('\\', "\\\\").replace('"', "\\\""))
}

impl Translation {
    /// Whether the source set `option` in a way that could not be mapped.
    fn mentions(&self, option: &str) -> bool {
        let source_names: &[&str] = match option {
            "threads" => &["--threads=", "--num-threads="],
            "tables" => &["--tables=", "--oltp-tables-count=", "--oltp-num-tables="],
            "table-size" => &["--table-size=", "--oltp-table-size="],
            _ => &[],
        };
        self.unmapped
            .iter()
            .any(|(text, _)| source_names.iter().any(|n| text.starts_with(n)))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// What `abtest from-sysbench` prints for one translation.
    fn render(t: &Translation) -> String {
        let command = crate::sysbench::whole::command(t, "baseline.toml", "variant.toml");
        let profiles = crate::sysbench::whole::profiles(t);
        crate::sysbench::whole::render(&[(command, t)], Some(&profiles))
    }

    /// The options of a translation as they are typed.
    pub(crate) fn options(t: &Translation) -> String {
        t.options
            .iter()
            .map(|(k, v)| format!("--{k} {v}"))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// shared/seeds/000: sysbench 0.4, nontrx select, mangled spacing and shell variables.
    #[test]
    fn seed_000_audit_loop() {
        let line = "sysbench --test=oltp --mysql-host=192.168.110.100 -- mysql-port=3306 --mysql-user=root \
            --mysql-password=root --mysql-db=sbtest1 -- oltp-num-tables=10 --oltp-table-size=500000 \
            --report-interval=10 --max-requests=0 -- Oltp-test-mode=nontrx --oltp-nontrx-mode=select \
            --oltp-read-only=off --max-time= $time -- num-threads= $thread run";
        let t = translate(line).unwrap();
        assert_eq!(
            options(&t),
            "--workload oltp_point_select --tables 10 --table-size 500000 --report-interval 10s --rand-type special"
        );
        assert!(t.connection.contains(&("port".into(), "3306".into())));
        assert!(
            t.connection
                .contains(&("password_env".into(), "\"ABTEST_PASSWORD\"".into()))
        );
        assert!(!render(&t).contains("=root --") && !render(&t).contains("\"root\"\npassword"));
        let unmapped: Vec<&str> = t.unmapped.iter().map(|(o, _)| o.as_str()).collect();
        assert!(
            unmapped.contains(&"--max-time=$time") && unmapped.contains(&"--num-threads=$thread"),
            "{unmapped:?}"
        );
        assert!(unmapped.contains(&"--max-requests=0"));
    }

    /// shared/seeds/002: sysbench 1.0 oltp_read_write, prepare and run.
    #[test]
    fn seed_002_ssl_study() {
        let prepare = "sysbench --db-driver=mysql --mysql-host=172.16.1.10 --mysql-port=3306 --mysql-user=root \
            --mysql-password=123456 --mysql-db=sbtest --table_size=25000 --tables=250 --events=0 --time=600 oltp_read_write prepare";
        let t = translate(prepare).unwrap();
        // The prepare line's --time=600 measures nothing: no rounds come of it.
        assert_eq!(
            options(&t),
            "--workload oltp_read_write --table-size 25000 --tables 250 --threads 1 --rand-type special"
        );
        assert!(
            t.notes
                .iter()
                .any(|n| n.starts_with("--events=0 --time=600: on the prepare line")),
            "{:?}",
            t.notes
        );
        assert!(!render(&t).contains("123456"));
        let run = "sysbench --db-driver=mysql  --mysql-host=172.16.1.10 --mysql-port=3306 --mysql-user=root \
            --mysql-password=123456 --mysql-db=sbtest --table_size=25000 --tables=250 --events=0 --time=120 \
            --threads=8 --percentile=95 --report-interval=1 oltp_read_write run";
        let t = translate(run).unwrap();
        let o = options(&t);
        for expected in [
            "--threads 8",
            "--percentiles 95",
            "--report-interval 1s",
            "--round-time 12s",
        ] {
            assert!(o.contains(expected), "{o}");
        }
    }

    #[test]
    fn a_password_glued_to_its_option_is_never_echoed() {
        let t =
            translate("sysbench --test=oltp --mysql-password123456 --num-threads=8 run").unwrap();
        let shown = render(&t);
        assert!(!shown.contains("123456"), "{shown}");
        assert!(
            t.connection
                .contains(&("password_env".into(), "\"ABTEST_PASSWORD\"".into())),
            "{shown}"
        );
    }

    #[test]
    fn a_password_written_with_a_space_is_never_echoed() {
        let t =
            translate("sysbench oltp_point_select --mysql-password s3cr3t-value --threads=4 run")
                .unwrap();
        let shown = format!("{}{:?}{:?}", render(&t), t.unmapped, t.notes);
        assert!(!shown.contains("s3cr3t-value"), "{shown}");
        assert!(
            t.connection
                .contains(&("password_env".into(), "\"ABTEST_PASSWORD\"".into()))
        );
    }

    /// shared/seeds/003: sysbench 0.4 complex mode with an empty password before the command.
    #[test]
    fn seed_003_hosting_comparison() {
        let prepare = "sysbench --test=oltp --oltp-table-size=25000000 --mysql-user=root --db-driver=mysql --mysql-password= prepare";
        let t = translate(prepare).unwrap();
        assert_eq!(
            options(&t),
            "--workload oltp_read_write --table-size 25000000 --threads 1 --tables 1 --rand-type special"
        );
        assert!(t.notes.iter().any(|n| n.contains("`prepare`")));
        let run = "sysbench --db-driver=mysql --num-threads=64 --max-requests=0 --db-driver=mysql --test=oltp \
            --mysql-table-engine=innodb --oltp-table-size=25000000 --max-time=300 --mysql-engine-trx=yes \
            --mysql-user=root --mysql-password= run";
        let t = translate(run).unwrap();
        assert_eq!(
            options(&t),
            "--workload oltp_read_write --rounds 10 --round-time 30s --rewarm 1s --mysql-storage-engine innodb --threads 64 --table-size 25000000 --tables 1 --rand-type special"
        );
        assert!(
            t.unmapped
                .iter()
                .any(|(o, _)| o == "--mysql-engine-trx=yes")
        );
    }

    /// shared/seeds/004: sysbench 0.4 with spaced `-- test = oltp` style and 512 threads.
    #[test]
    fn seed_004_thread_pool() {
        let mangled = "sysbench -- test = oltp -- mysql-table-engine = innodb -- oltp-table-size = 10000000 \
            -- max-requests = 0 -- max-time = 900 -- num-threads = 512";
        let t = translate(mangled).unwrap();
        let o = options(&t);
        for expected in [
            "--workload oltp_read_write",
            "--threads 512",
            "--round-time 90s",
            "--table-size 10000000",
        ] {
            assert!(o.contains(expected), "{o}");
        }
        let clean = "sysbench  --test=oltp --mysql-table-engine=innodb --oltp-table-size=10000000 --max-requests=0 \
            --max-time=900 --num-threads=512 --mysql-host=10.8.8.100 --mysql-port=3308 --mysql-user=admin \
            --mysql-password=123456  --mysql-db=test run";
        let t = translate(clean).unwrap();
        assert!(t.connection.contains(&("port".into(), "3308".into())));
        assert!(
            t.connection
                .contains(&("database".into(), "\"test\"".into()))
        );
        assert!(!render(&t).contains("123456"));
    }

    #[test]
    fn other_modes_and_unknown_options() {
        let t = translate(
            "sysbench --test=oltp --oltp-test-mode=complex --oltp-read-only=on --frobnicate=3 run",
        )
        .unwrap();
        assert_eq!(t.options[0].1, "oltp_read_only");
        assert!(
            t.unmapped
                .iter()
                .any(|(o, why)| o == "--frobnicate=3" && why == "no abtest equivalent")
        );
        let t = translate(
            "sysbench /usr/share/sysbench/select_random_points.lua --rand-type=pareto run",
        )
        .unwrap();
        assert_eq!(
            options(&t),
            "--workload select_random_points --rand-type pareto --threads 1 --tables 1 --table-size 10000"
        );
        for not_sysbench in [
            "",
            "mysqlslap --concurrency=8",
            "sysbench oltp_read_writ run",
        ] {
            assert!(translate(not_sysbench).is_err(), "{not_sysbench:?}");
        }
        let typo = translate("sysbench oltp_read_writ run").unwrap_err();
        assert!(typo.contains("did you mean `oltp_read_write`?"), "{typo}");
        let ssl_off = translate("sysbench oltp_read_only --mysql-ssl=off run").unwrap();
        assert!(
            ssl_off
                .connection
                .contains(&("tls".into(), "\"disabled\"".into()))
        );
        assert!(translate("sysbench 'unclosed").is_err());
    }
}
