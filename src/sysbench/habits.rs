//! sysbench habits on abtest's command line. A DBA's fingers type `--time 60`,
//! `--mysql-host` or `sysbench … run` (`--threads` and `--report-interval` are abtest's
//! options too); clap can only say "unexpected argument". This
//! module reads the refused command line and says what abtest does instead, with the
//! way to translate a whole sysbench command: `abtest from-sysbench '…'`.

use std::ffi::OsString;

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

/// Hints for the sysbench habits in `args` (the whole command line, program first), or
/// `None` when there are none.
pub(crate) fn hints(args: &[OsString]) -> Option<String> {
    let words: Vec<String> = args
        .iter()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let mut lines: Vec<String> = Vec::new();
    for word in &words {
        let name = word.split('=').next().unwrap_or_default();
        for (option, hint) in OPTIONS {
            let matches = if option.ends_with('-') {
                name.starts_with(option)
            } else {
                name == *option
            };
            let line = format!("{name}: {hint}");
            if matches && !lines.contains(&line) {
                lines.push(line);
            }
        }
    }
    let verb = words.iter().find(|w| !w.starts_with('-'));
    if let Some((verb, hint)) = verb.and_then(|w| VERBS.iter().find(|(v, _)| v == w)) {
        lines.push(format!("`{verb}`: {hint}"));
    }
    if lines.is_empty() {
        return None;
    }
    lines.push(
        "to translate a whole sysbench command line: abtest from-sysbench 'sysbench oltp_read_write --time=60 …'"
            .into(),
    );
    Some(format!("hint (from sysbench):\n  {}", lines.join("\n  ")))
}

#[cfg(test)]
mod tests {
    use super::hints;

    fn hint_for(line: &str) -> Option<String> {
        let args: Vec<std::ffi::OsString> = line.split(' ').map(Into::into).collect();
        hints(&args)
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
}
