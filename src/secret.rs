//! A password that cannot be printed by accident: `Debug` and `Display` redact it and it
//! has no `Serialize`, so it can never reach a log line, an error or a results file.

use std::fmt;

mod options;

pub(crate) use options::{
    MASK, is_secret_option, masked_options, serialize_masked_options, shown_arg, shown_option,
};

/// A secret string, redacted everywhere except where [`Secret::expose`] is called.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Secret(String);

impl Secret {
    /// Wraps a secret value.
    pub(crate) fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }

    /// The secret itself; call only where it is handed to the client library.
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }

    /// A random password of 24 alphanumeric characters for managed servers.
    pub(crate) fn random() -> Self {
        use rand::distr::{Alphanumeric, Distribution};
        use rand::{SeedableRng, rngs::StdRng};
        let mut seed = [0u8; 32];
        fill_from_os(&mut seed);
        let mut rng = StdRng::from_seed(seed);
        Secret(
            Alphanumeric
                .sample_iter(&mut rng)
                .take(24)
                .map(char::from)
                .collect(),
        )
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// Words that mark a statement as carrying a credential in its string literals:
/// `CREATE USER … IDENTIFIED BY '…'`, `SET PASSWORD = PASSWORD('…')`,
/// `CHANGE MASTER TO MASTER_PASSWORD = '…'`.
const CREDENTIAL_WORDS: &[&str] = &["IDENTIFIED", "PASSWORD"];

/// The statement as it may be shown or saved: when it carries a credential, every
/// string literal becomes `'***'`; any other statement is unchanged.
pub(crate) fn redact_sql(sql: &str) -> String {
    let literals = credential_literals(sql);
    if literals.is_empty() {
        return sql.to_string();
    }
    let mut shown = String::with_capacity(sql.len());
    let mut last = 0;
    for Literal { start, end, .. } in literals {
        shown.push_str(&sql[last..start]);
        shown.push_str("'***'");
        last = end;
    }
    shown.push_str(&sql[last..]);
    shown
}

/// `text` (a server's error message about `sql`, say) with the credential literals of
/// `sql` masked wherever they appear.
pub(crate) fn redact_sql_values(text: &str, sql: &str) -> String {
    credential_literals(sql)
        .into_iter()
        .map(|literal| &sql[literal.start + 1..literal.content_end])
        .filter(|value| !value.is_empty())
        .fold(text.to_string(), |text, value| text.replace(value, "***"))
}

/// A string literal of a statement, by byte offsets: `start` is its opening quote, its
/// content ends at `content_end` (the closing quote, or the end of an unclosed literal)
/// and the literal at `end`. All three fall on ASCII quotes or the end of the text, so
/// they are always character boundaries.
struct Literal {
    start: usize,
    content_end: usize,
    end: usize,
}

/// The string literals of a statement that carries a credential; none for any other.
fn credential_literals(sql: &str) -> Vec<Literal> {
    let upper = sql.to_ascii_uppercase();
    if !CREDENTIAL_WORDS.iter().any(|word| upper.contains(word)) {
        return Vec::new();
    }
    let bytes = sql.as_bytes();
    let mut ranges = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let quote = bytes[i];
        if quote != b'\'' && quote != b'"' {
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        while i < bytes.len() {
            match bytes[i] {
                b'\\' => i += 2,
                b if b == quote && bytes.get(i + 1) == Some(&quote) => i += 2,
                b if b == quote => break,
                _ => i += 1,
            }
        }
        // An unclosed literal runs to the end of the statement.
        let content_end = i.min(bytes.len());
        let end = (i + 1).min(bytes.len());
        ranges.push(Literal {
            start,
            content_end,
            end,
        });
        i = end;
    }
    ranges
}

/// Serialises hook statements with [`redact_sql`] applied: a results file never holds
/// a password that a hook set.
pub(crate) fn serialize_redacted_sql<S: serde::Serializer>(
    statements: &[String],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(statements.iter().map(|sql| redact_sql(sql)))
}

/// Fills `buffer` from the kernel's random source.
pub(crate) fn fill_from_os(buffer: &mut [u8]) {
    use std::io::Read;
    let filled = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(buffer));
    if filled.is_err() {
        // No /dev/urandom: fall back to the std hasher's per-process random keys.
        use std::hash::{BuildHasher, Hasher};
        for chunk in buffer.chunks_mut(8) {
            let value = std::collections::hash_map::RandomState::new()
                .build_hasher()
                .finish();
            chunk.copy_from_slice(&value.to_le_bytes()[..chunk.len()]);
        }
    }
}

/// A random 64-bit value from the kernel, used as the default seed.
pub(crate) fn random_u64() -> u64 {
    let mut bytes = [0u8; 8];
    fill_from_os(&mut bytes);
    u64::from_le_bytes(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credential_literals_are_masked() {
        assert_eq!(
            redact_sql("CREATE USER 'u'@'%' IDENTIFIED BY 'pa''ss\\'w'"),
            "CREATE USER '***'@'***' IDENTIFIED BY '***'"
        );
        assert_eq!(
            redact_sql("SET PASSWORD FOR x = PASSWORD(\"hunter2\")"),
            "SET PASSWORD FOR x = PASSWORD('***')"
        );
        assert_eq!(
            redact_sql("ALTER USER u IDENTIFIED BY 'open"),
            "ALTER USER u IDENTIFIED BY '***'"
        );
    }

    /// Unclosed literals, a trailing quote or backslash, and multi-byte text: the
    /// statement of a failing hook must never make abtest panic.
    #[test]
    fn unclosed_literals_never_panic() {
        for sql in [
            "ALTER USER x IDENTIFIED BY '",
            "ALTER USER x IDENTIFIED BY 'pässé",
            "ALTER USER x IDENTIFIED BY 'ab\\",
            "SET PASSWORD = \"é",
        ] {
            assert!(!redact_sql(sql).contains('é'), "{sql}");
            let shown = redact_sql_values("near 'pässé' at line 1", sql);
            assert!(
                !shown.contains("pässé") || !sql.contains("pässé"),
                "{shown}"
            );
        }
    }

    #[test]
    fn other_statements_are_kept_as_written() {
        let sql = "SET GLOBAL server_audit_events = 'CONNECT,QUERY'";
        assert_eq!(redact_sql(sql), sql);
    }

    #[test]
    fn error_messages_lose_the_values() {
        let sql = "CREATE USER x IDENTIFIED BY 'hunter2'";
        assert_eq!(
            redact_sql_values("syntax error near 'hunter2'", sql),
            "syntax error near '***'"
        );
    }
}
