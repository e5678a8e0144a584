//! Reading what a server logged: the slow log (MariaDB's and MySQL's formats, with
//! `long_query_time = 0` every statement is in it) and the general log. Both become one
//! stream of [`Logged`] statements, each with the connection that ran it, so the
//! capture can keep transactions together.
//!
//! A log that is not one of these, a binary file, or an entry cut off mid-header is an
//! error naming the file and the line, never a silent partial capture; a last statement
//! cut off mid-way (a log copied while the server wrote it) is left out, and said so.

use std::path::Path;

use crate::exit::UsageError;

/// One statement as the server ran it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Logged {
    /// The connection (thread id) that ran it.
    pub(crate) connection: u64,
    /// The statement text, without the trailing `;`.
    pub(crate) text: String,
    /// The line of the log where the statement starts.
    pub(crate) line: usize,
    /// When it ran, in whole seconds since 1970, when the log says.
    pub(crate) at: Option<u64>,
}

/// The log formats abtest reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LogFormat {
    /// `# Time:` / `# User@Host:` entries (MariaDB and MySQL).
    Slow,
    /// `Time Id Command Argument` lines.
    General,
}

impl LogFormat {
    /// What the user reads in messages.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            LogFormat::Slow => "slow log",
            LogFormat::General => "general log",
        }
    }
}

/// A log as read: its format, its statements, and the line of a last statement that was
/// cut off mid-way (a log copied while the server wrote it), which is left out.
pub(crate) struct ReadLog {
    pub(crate) format: LogFormat,
    pub(crate) statements: Vec<Logged>,
    pub(crate) cut_at: Option<usize>,
}

/// Reads `path`, recognising its format from its content.
pub(crate) fn read(path: &Path) -> anyhow::Result<ReadLog> {
    let bytes = std::fs::read(path)
        .map_err(|e| UsageError::err(format!("{}: cannot read the log: {e}", path.display())))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        let line = 1 + e.as_bytes()[..e.utf8_error().valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        UsageError::err(format!(
            "{}:{line}: not a text log (invalid UTF-8); give a slow log or a general log",
            path.display()
        ))
    })?;
    if text.contains('\0') {
        return Err(UsageError::err(format!(
            "{}: a binary file, not a slow log or a general log",
            path.display()
        )));
    }
    let format = detect(&text).ok_or_else(|| {
        UsageError::err(format!(
            "{}: unknown log format: neither a slow log (`# Time:`/`# User@Host:` entries) \
             nor a general log (`Time Id Command Argument`)",
            path.display()
        ))
    })?;
    let parsed = match format {
        LogFormat::Slow => parse_slow(&text),
        LogFormat::General => parse_general(&text),
    };
    let mut statements = parsed
        .map_err(|(line, what)| UsageError::err(format!("{}:{line}: {what}", path.display())))?;
    let cut_at = drop_cut_tail(format, &text, &mut statements);
    Ok(ReadLog {
        format,
        statements,
        cut_at,
    })
}

/// Leaves out the log's last statement when it was cut off mid-way, and says where it
/// was: a slow log's statement ends with `;` (the server writes it so), a general log's
/// with the line's newline. A cut statement (`SELECT c FROM sbtest1 WHE`) is no query.
fn drop_cut_tail(format: LogFormat, text: &str, statements: &mut Vec<Logged>) -> Option<usize> {
    let complete = match format {
        LogFormat::Slow => text.trim_end().ends_with(';'),
        LogFormat::General => text.ends_with('\n'),
    };
    if complete {
        return None;
    }
    statements.pop().map(|cut| cut.line)
}

fn detect(text: &str) -> Option<LogFormat> {
    let has = |prefix: &str| text.lines().any(|l| l.starts_with(prefix));
    if has("# User@Host:") || has("# Time:") {
        Some(LogFormat::Slow)
    } else if text.lines().any(|l| general_line(l).is_some()) {
        Some(LogFormat::General)
    } else {
        None
    }
}

/// A server's banner, written at the top of either log and again at every restart.
fn is_banner(line: &str) -> bool {
    line.contains(", Version: ")
        || line.starts_with("Tcp port:")
        || line.starts_with("Time ")
        || line.starts_with("Time\t")
}

/// A line-numbered error: (1-based line, what is wrong).
type ParseError = (usize, String);

/// The slow log: header lines (`# ...`) then the statement, up to the next header.
fn parse_slow(text: &str) -> Result<Vec<Logged>, ParseError> {
    let mut statements = Vec::new();
    let mut connection: Option<u64> = None;
    let mut body: Vec<&str> = Vec::new();
    let mut body_line = 0;
    let mut in_header = false;
    let lines: Vec<&str> = text.lines().collect();
    let flush =
        |body: &mut Vec<&str>, connection: Option<u64>, at: usize, out: &mut Vec<Logged>| {
            if let Some(connection) = connection {
                let time = body.iter().find_map(|line| slow_timestamp(line));
                out.extend(split_slow_body(body).map(|text| Logged {
                    connection,
                    text,
                    line: at,
                    at: time,
                }));
            }
            body.clear();
        };
    for (index, line) in lines.iter().enumerate() {
        let number = index + 1;
        if is_banner(line) {
            continue;
        }
        if line.starts_with("# administrator command:") {
            // The entry's statement: a protocol command (Prepare, Quit), not SQL.
            in_header = false;
            continue;
        }
        if let Some(header) = line.strip_prefix("# ") {
            if !in_header {
                flush(&mut body, connection, body_line, &mut statements);
                in_header = true;
            }
            if let Some(id) = thread_id(header) {
                connection = Some(id.map_err(|e| (number, e))?);
            }
            continue;
        }
        if in_header {
            in_header = false;
            body_line = number;
            if connection.is_none() {
                return Err((
                    number,
                    "an entry without a connection id (no `Thread_id:` or `Id:` in its header)"
                        .to_string(),
                ));
            }
        }
        body.push(line);
    }
    if in_header {
        return Err((
            lines.len(),
            "the log ends inside an entry's header: it was cut off; capture a complete log"
                .to_string(),
        ));
    }
    flush(&mut body, connection, body_line, &mut statements);
    Ok(statements)
}

/// The connection id of a slow-log header line: MariaDB's `Thread_id: 8`, MySQL's
/// `Id: 8` at the end of `User@Host:`.
fn thread_id(header: &str) -> Option<Result<u64, String>> {
    let value = header
        .split_once("Thread_id:")
        .or_else(|| {
            header
                .starts_with("User@Host:")
                .then(|| header.rsplit_once(" Id:"))
                .flatten()
        })?
        .1
        .split_whitespace()
        .next()?;
    Some(
        value
            .parse()
            .map_err(|_| format!("`{value}` is not a connection id")),
    )
}

/// The statement of one slow-log entry. The lines before it that set the session up
/// for the log's reader (`use db;`, `SET timestamp=N;`, `SET insert_id=N;`) are the
/// log's own bookkeeping; an entry with nothing else has no statement.
fn split_slow_body(body: &[&str]) -> Option<String> {
    let is_bookkeeping = |line: &&&str| {
        let lower = line.trim().to_ascii_lowercase();
        lower.ends_with(';')
            && [
                "use ",
                "set timestamp=",
                "set insert_id=",
                "set last_insert_id=",
            ]
            .iter()
            .any(|prefix| lower.starts_with(prefix))
    };
    let lines: Vec<&str> = body.iter().skip_while(is_bookkeeping).copied().collect();
    let joined = lines.join("\n");
    let statement = joined.trim();
    let statement = statement.strip_suffix(';').unwrap_or(statement).trim_end();
    (!statement.is_empty()).then(|| statement.to_string())
}

/// The `SET timestamp=N;` a slow-log entry starts with: when its statement ran.
fn slow_timestamp(line: &str) -> Option<u64> {
    let lower = line.trim().to_ascii_lowercase();
    let value = lower.strip_prefix("set timestamp=")?.strip_suffix(';')?;
    value.split('.').next()?.parse().ok()
}

/// The time a general-log line starts with: MariaDB's `251130 14:30:07`, or MySQL's
/// `2025-11-30T14:30:07.123456Z`; `None` for a line that carries none (the time of the
/// line before still holds).
fn general_timestamp(line: &str) -> Option<u64> {
    let first = line.split('\t').next()?.trim();
    let iso = match first.split_once(' ') {
        Some((date, time)) if date.len() == 6 && date.bytes().all(|b| b.is_ascii_digit()) => {
            let time = time.trim();
            let time = if time.len() == 7 {
                format!("0{time}")
            } else {
                time.to_string()
            };
            format!("20{}-{}-{}T{time}Z", &date[..2], &date[2..4], &date[4..6])
        }
        _ if first.contains('T') => first.to_string(),
        _ => return None,
    };
    let at = humantime::parse_rfc3339_weak(iso.trim_end_matches('Z')).ok()?;
    at.duration_since(std::time::UNIX_EPOCH)
        .ok()
        .map(|d| d.as_secs())
}

/// A general-log line that starts a command: (connection, command, argument).
fn general_line(line: &str) -> Option<(u64, &str, &str)> {
    // An optional timestamp (`251130 14:30:07` or an ISO time), then the id, the
    // command and its argument, separated by tabs.
    let fields: Vec<&str> = line.split('\t').collect();
    let mut rest = fields.iter().skip_while(|f| {
        let f = f.trim();
        f.is_empty() || f.contains(':') && !f.chars().all(|c| c.is_ascii_digit())
    });
    let first = rest.next()?.trim();
    let (id, command) = match first.split_once(' ') {
        Some((id, command)) => (id, command.trim()),
        None => (first, rest.next()?.trim()),
    };
    let id: u64 = id.trim().parse().ok()?;
    let argument_at = line.find(command)? + command.len();
    let argument = line[argument_at..].trim_start_matches('\t');
    Some((id, command, argument))
}

/// The general log: one command per line, a statement continuing on the following lines
/// until the next command.
fn parse_general(text: &str) -> Result<Vec<Logged>, ParseError> {
    let mut statements: Vec<Logged> = Vec::new();
    let mut open: Option<Logged> = None;
    let mut time: Option<u64> = None;
    for (index, line) in text.lines().enumerate() {
        if is_banner(line) {
            continue;
        }
        match general_line(line) {
            Some((connection, command, argument)) => {
                statements.extend(open.take());
                time = general_timestamp(line).or(time);
                if matches!(command, "Query" | "Execute") {
                    open = Some(Logged {
                        connection,
                        text: argument.to_string(),
                        line: index + 1,
                        at: time,
                    });
                }
            }
            None => match open.as_mut() {
                Some(statement) => {
                    statement.text.push('\n');
                    statement.text.push_str(line);
                }
                None if line.trim().is_empty() => {}
                None => {
                    return Err((
                        index + 1,
                        "not a general-log line (expected `[time] id command argument`)"
                            .to_string(),
                    ));
                }
            },
        }
    }
    statements.extend(open);
    for statement in &mut statements {
        let trimmed = statement.text.trim().trim_end_matches(';').trim_end();
        statement.text = trimmed.to_string();
    }
    statements.retain(|s| !s.text.is_empty());
    Ok(statements)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MARIADB_SLOW: &str = "\
/usr/sbin/mariadbd, Version: 10.11.19-MariaDB-0+deb12u1-log (Debian 12). started with:
Tcp port: 0  Unix socket: /tmp/s.sock
Time\t\t    Id Command\tArgument
# Time: 251130 14:30:07
# User@Host: sbtest[sbtest] @ localhost []
# Thread_id: 8  Schema: sbtest  QC_hit: No
# Query_time: 0.000123  Lock_time: 0.000040  Rows_sent: 1  Rows_examined: 1
# Rows_affected: 0  Bytes_sent: 190
use sbtest;
SET timestamp=1764513007;
SELECT c FROM sbtest1 WHERE id=5012;
# User@Host: sbtest[sbtest] @ localhost []
# Thread_id: 9  Schema: sbtest  QC_hit: No
# Query_time: 0.000100  Lock_time: 0.000000  Rows_sent: 0  Rows_examined: 0
SET timestamp=1764513007;
UPDATE sbtest1
   SET k=k+1 WHERE id=7;
# User@Host: sbtest[sbtest] @ localhost []
# Thread_id: 9  Schema: sbtest  QC_hit: No
# Query_time: 0.000010  Lock_time: 0.000000  Rows_sent: 0  Rows_examined: 0
SET timestamp=1764513008;
# administrator command: Quit;
";

    const MYSQL_SLOW: &str = "\
# Time: 2025-11-30T14:30:07.123456Z
# User@Host: root[root] @ localhost []  Id:    12
# Query_time: 0.000123  Lock_time: 0.000040 Rows_sent: 1  Rows_examined: 1
SET timestamp=1764513007;
BEGIN;
";

    const GENERAL: &str = "\
/usr/sbin/mariadbd, Version: 10.11.19-MariaDB-0+deb12u1-log (Debian 12). started with:
Tcp port: 0  Unix socket: /tmp/s.sock
Time\t\t    Id Command\tArgument
251130 14:30:07\t      8 Connect\tsbtest@localhost on sbtest using Socket
\t\t      8 Query\tBEGIN
\t\t      8 Prepare\tSELECT c FROM sbtest1 WHERE id=?
\t\t      8 Execute\tSELECT c FROM sbtest1 WHERE id=5012
\t\t      9 Query\tSELECT a
FROM t
\t\t      8 Query\tCOMMIT
\t\t      8 Quit\t
";

    #[test]
    fn mariadb_and_mysql_slow_logs_give_statements_by_connection() {
        let statements = parse_slow(MARIADB_SLOW).unwrap();
        let seen: Vec<(u64, &str)> = statements
            .iter()
            .map(|s| (s.connection, s.text.as_str()))
            .collect();
        assert_eq!(
            seen,
            [
                (8, "SELECT c FROM sbtest1 WHERE id=5012"),
                (9, "UPDATE sbtest1\n   SET k=k+1 WHERE id=7"),
            ]
        );
        assert_eq!(statements[0].line, 9);
        assert_eq!(statements[0].at, Some(1_764_513_007), "from SET timestamp");
        let mysql = parse_slow(MYSQL_SLOW).unwrap();
        assert_eq!((mysql[0].connection, mysql[0].text.as_str()), (12, "BEGIN"));
        assert_eq!(detect(MARIADB_SLOW), Some(LogFormat::Slow));
        assert_eq!(detect(MYSQL_SLOW), Some(LogFormat::Slow));
    }

    #[test]
    fn a_general_log_keeps_queries_and_executions() {
        assert_eq!(detect(GENERAL), Some(LogFormat::General));
        let statements = parse_general(GENERAL).unwrap();
        let seen: Vec<(u64, &str)> = statements
            .iter()
            .map(|s| (s.connection, s.text.as_str()))
            .collect();
        assert_eq!(
            seen,
            [
                (8, "BEGIN"),
                (8, "SELECT c FROM sbtest1 WHERE id=5012"),
                (9, "SELECT a\nFROM t"),
                (8, "COMMIT"),
            ]
        );
        // 2025-11-30 14:30:07 UTC, carried to the lines that do not repeat it.
        assert!(
            statements.iter().all(|s| s.at == Some(1_764_513_007)),
            "{statements:?}"
        );
        assert_eq!(
            general_timestamp("2025-11-30T14:30:07.123456Z\t   12 Query\tSELECT 1"),
            Some(1_764_513_007)
        );
    }

    #[test]
    fn a_cut_off_or_foreign_log_is_refused_with_its_line() {
        let cut = "# Time: 251130 14:30:07\n# User@Host: a[a] @ localhost []\n# Thread_id: 3";
        assert!(parse_slow(cut).unwrap_err().1.contains("cut off"));
        let no_id = "# Time: 251130 14:30:07\nSELECT 1;\n";
        assert_eq!(parse_slow(no_id).unwrap_err().0, 2);
        assert_eq!(detect("hello\nworld\n"), None);
    }
}
