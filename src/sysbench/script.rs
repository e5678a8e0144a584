//! What users paste into `abtest from-sysbench` is often more than one command line: the
//! `prepare` and `run` lines of a write-up, or the shell script that ran them,
//! `for thread in 16 32 64; do sysbench … --threads=$thread run; done`. abtest does in
//! one run what such a loop does in many: the loop's values become `--threads 16,32,64`.
//! This module finds the sysbench command lines in such text, the values of the shell
//! variables they use, and joins a `prepare` line's data options to its `run` line.
//! It reads text, not a shell: loops and assignments of plain values are understood,
//! anything else stays as typed and is reported unresolved.

use std::sync::LazyLock;

use regex::Regex;

use super::translate::{Translation, Variables, translate_with};

/// `for thread in …; do` (also glued, as pasted: `for thread in {16,32}doecho`).
static LOOP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:^|[^A-Za-z_])for\s+([A-Za-z_]\w*)\s+in\s+(.*?)\s*;?\s*do")
        .expect("a valid pattern")
});
/// `time=3600` as a shell assignment of a plain value.
static ASSIGNMENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:^|[\s;])([A-Za-z_]\w*)=([0-9]+[smh]?)(?:[\s;#]|$)").expect("a valid pattern")
});
/// Where one shell command ends and the next begins.
static SEPARATOR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r";|&&|\|\||\||>>?").expect("a valid pattern"));
/// A sysbench invocation: the program, by name or path (also glued to the end of the
/// line before, `sleep 30sysbench`, as pasted).
static SYSBENCH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:^|[^A-Za-z_.-])((?:\S*/)?sysbench)(?:\s|$)").expect("a valid pattern")
});
/// sysbench's verb, which ends its command line even when text is glued to it
/// (`runecho` in a paste that lost its line breaks).
static VERB: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\s(run|prepare|cleanup)(?:\s|$|echo|done|sleep|fi\b)").expect("a valid pattern")
});
/// A `#!/bin/sh` line, also when the next line is glued to it.
static SHEBANG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*#!\S*?/(?:env\s+)?(?:ba|da|k|z)?sh").expect("a valid pattern")
});

/// The translations of the `run` lines in `text` (one per distinct translation), each
/// with the data options of the `prepare` line before it; a text with only a prepare
/// line gives that line's.
pub(crate) fn translate_text(text: &str) -> Result<Vec<Translation>, String> {
    let text = SHEBANG.replace(text, "");
    let commands = commands(&text);
    if commands.len() <= 1 {
        let (at, line) = commands
            .first()
            .map_or((text.len(), text.as_ref()), |(at, line)| {
                (*at, line.as_str())
            });
        let mut one = translate_with(line, &variables(&text[..at]))?;
        one.finish();
        return Ok(vec![one]);
    }
    let mut prepared: Option<Translation> = None;
    let mut runs: Vec<Translation> = Vec::new();
    for (at, command) in &commands {
        // The loop around a command is the last one that begins before it.
        let translation = translate_with(command, &variables(&text[..*at]))?;
        if translation.preparing {
            prepared = Some(translation);
            continue;
        }
        let mut run = translation;
        if let Some(prepare) = &prepared {
            run.take_prepared(prepare);
        }
        run.finish();
        if !runs.iter().any(|r| r.options == run.options) {
            runs.push(run);
        }
    }
    match (runs.is_empty(), prepared) {
        (true, Some(mut prepare)) => {
            prepare.finish();
            Ok(vec![prepare])
        }
        _ => Ok(runs),
    }
}

/// The sysbench command lines in `text`, each from the program to its verb, with where
/// it begins; commented-out lines are skipped.
fn commands(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut line_start = 0;
    for line in text.split_inclusive('\n') {
        if !line.trim_start().starts_with('#') {
            let mut segment_start = line_start;
            let mut ends: Vec<(usize, usize)> = SEPARATOR
                .find_iter(line)
                .map(|m| (m.start(), m.end()))
                .collect();
            ends.push((line.len(), line.len()));
            for (end, next) in ends {
                let segment = &text[segment_start..line_start + end];
                if let Some((offset, command)) = command_in(segment) {
                    found.push((segment_start + offset, command));
                }
                segment_start = line_start + next;
            }
        }
        line_start += line.len();
    }
    found
}

/// The sysbench command in one shell command, from the program to its verb, and where
/// in the segment it begins.
fn command_in(segment: &str) -> Option<(usize, String)> {
    let start = SYSBENCH.captures(segment)?.get(1)?.start();
    let command = &segment[start..];
    let end = VERB
        .captures(command)
        .and_then(|c| c.get(1))
        .map_or(command.len(), |verb| verb.end());
    Some((start, command[..end].trim().to_string()))
}

/// The shell variables `text` gives values: loops and plain assignments.
fn variables(text: &str) -> Variables {
    let mut variables = Variables::new();
    for captures in ASSIGNMENT.captures_iter(text) {
        variables.insert(captures[1].to_string(), vec![captures[2].to_string()]);
    }
    for captures in LOOP.captures_iter(text) {
        if let Some(values) = loop_values(&captures[2]) {
            variables.insert(captures[1].to_string(), values);
        }
    }
    variables
}

/// The values of a loop's list: `16 32 64`, `{16,32,64}`, `{1..4}`, `$(seq 16 16 64)`;
/// `None` when they are not plain numbers.
fn loop_values(list: &str) -> Option<Vec<String>> {
    let list = list.trim();
    let values: Vec<String> =
        if let Some(inner) = list.strip_prefix('{').and_then(|l| l.strip_suffix('}')) {
            match inner.split_once("..") {
                Some((from, to)) => range(from, "1", to)?,
                None => inner.split(',').map(|v| v.trim().to_string()).collect(),
            }
        } else if let Some(seq) = list
            .strip_prefix("$(")
            .and_then(|l| l.strip_suffix(')'))
            .or_else(|| list.strip_prefix('`').and_then(|l| l.strip_suffix('`')))
        {
            match seq.split_whitespace().collect::<Vec<_>>().as_slice() {
                ["seq", to] => range("1", "1", to)?,
                ["seq", from, to] => range(from, "1", to)?,
                ["seq", from, step, to] => range(from, step, to)?,
                _ => return None,
            }
        } else {
            list.split_whitespace().map(String::from).collect()
        };
    let numbers = values
        .iter()
        .all(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()));
    (numbers && !values.is_empty()).then_some(values)
}

/// `seq FROM STEP TO`, at most 1 000 values.
fn range(from: &str, step: &str, to: &str) -> Option<Vec<String>> {
    let (from, step, to) = (
        from.parse::<u64>().ok()?,
        step.parse::<u64>().ok().filter(|s| *s > 0)?,
        to.parse::<u64>().ok()?,
    );
    let values: Vec<String> = (from..=to)
        .step_by(step as usize)
        .take(1001)
        .map(|v| v.to_string())
        .collect();
    (values.len() <= 1000).then_some(values)
}

impl Translation {
    /// Takes the data and connection options of the `prepare` line that this run line
    /// does not set, and says where they differ.
    fn take_prepared(&mut self, prepare: &Translation) {
        for (option, value) in &prepare.options {
            match self.options.iter().find(|(o, _)| o == option) {
                None => {
                    self.options.push((option.clone(), value.clone()));
                    self.notes.push(format!(
                        "--{option} {value}: from the prepare line (the run line does not set it)"
                    ));
                }
                Some((_, ran)) if ran != value => self.notes.push(format!(
                    "--{option}: the prepare line says {value}, the run line {ran}; \
                     abtest uses the run line's"
                )),
                Some(_) => {}
            }
        }
        for (key, value) in &prepare.connection {
            if !self.connection.iter().any(|(k, _)| k == key) {
                self.connection.push((key.clone(), value.clone()));
            }
        }
        self.prepare_only
            .extend(prepare.prepare_only.iter().cloned());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sysbench::translate::tests::options;

    #[test]
    fn a_loop_over_threads_becomes_a_thread_list() {
        for script in [
            "for thread in 16 32 64; do sysbench oltp_read_write --threads=$thread --time=60 run; done",
            "for t in {16,32,64}\ndo\n  sysbench oltp_read_write --threads=${t} --time=60 run\ndone",
            "for t in $(seq 16 16 64); do sysbench oltp_read_write --threads=$t --time=60 run > log.$t; done",
        ] {
            let runs = translate_text(script).unwrap();
            assert_eq!(runs.len(), 1, "{script}");
            let o = options(&runs[0]);
            let expected = if script.contains("seq") {
                "--threads 16,32,48,64"
            } else {
                "--threads 16,32,64"
            };
            assert!(o.contains(expected), "{script}: {o}");
            assert!(
                runs[0]
                    .notes
                    .iter()
                    .any(|n| n.contains("becomes one run that sweeps the levels, each level")),
                "{script}"
            );
        }
    }

    /// shared/seeds/000 as pasted: line breaks lost, `time=3600` glued to the shebang,
    /// the verb glued to the next `echo`, three loops for three configurations.
    #[test]
    fn seed_000_script_as_pasted() {
        let pasted = "#!/bin/shtime=3600#0.0for thread in {16,32,64,128,256}doecho \"Now the number of theads is $thread \"echo \" ===== \"/bin/sh /home/linzj/ shell/mysql.sh restartsleep 30sysbench --test=oltp --mysql-host=192.168.110.100 -- mysql-port=3306 --mysql-user=root --mysql-password=root --mysql-db=sbtest1 -- oltp-num-tables=10 --oltp-table-size=500000 --report-interval=10 --max-requests=0 -- Oltp-test-mode=nontrx --oltp-nontrx-mode=select --oltp-read-only=off --max-time= $time -- num-threads= $thread runecho \"=====\"done >> /tmp/ sysbench.log.0.0";
        let runs = translate_text(pasted).unwrap();
        assert_eq!(runs.len(), 1);
        let o = options(&runs[0]);
        assert!(o.contains("--threads 16,32,64,128,256"), "{o}");
        assert!(o.contains("--rounds 10 --round-time 360s"), "{o}");
        assert!(!format!("{runs:?}").contains("\"root\"\n"));
    }

    /// shared/seeds/002: the prepare line's --time=600 is no measured time.
    #[test]
    fn a_prepare_line_lends_its_data_options_and_names_the_rest() {
        let text = "sysbench --db-driver=mysql --mysql-host=172.16.1.10 --mysql-user=root --mysql-password=123456 \
            --table_size=25000 --tables=250 --events=0 --time=600 oltp_read_write prepare\n\
            sysbench --db-driver=mysql --mysql-host=172.16.1.10 --mysql-user=root --mysql-password=123456 \
            --time=120 --threads=8 oltp_read_write run";
        let runs = translate_text(text).unwrap();
        assert_eq!(runs.len(), 1);
        let o = options(&runs[0]);
        assert!(
            o.contains("--tables 250") && o.contains("--table-size 25000"),
            "{o}"
        );
        assert!(o.contains("--round-time 12s") && !o.contains("60s"), "{o}");
        let notes = runs[0].notes.join("\n");
        assert!(
            notes.contains("--events=0 --time=600: on the prepare line, these only change how sysbench's prepare runs"),
            "{notes}"
        );
        assert!(!notes.contains("600 s"), "{notes}");
    }

    #[test]
    fn loop_lists_that_are_not_plain_numbers_stay_unresolved() {
        assert_eq!(loop_values("a b"), None);
        assert_eq!(loop_values("$(seq 1 0 4)"), None);
        assert_eq!(loop_values("{1..3}").unwrap(), ["1", "2", "3"]);
        assert_eq!(loop_values("`seq 2`").unwrap(), ["1", "2"]);
        assert_eq!(loop_values("$(seq 1 100000)"), None);
    }
}
