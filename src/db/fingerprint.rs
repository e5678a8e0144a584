//! Query fingerprints as pt-query-digest computes them (Percona Toolkit's
//! `QueryRewriter::fingerprint`), so a class in abtest's capture is the class a DBA sees
//! in their pt-query-digest report: literals become `?`, IN and VALUES lists `(?+)`,
//! comments go, whitespace and case are folded. The rules are re-stated here from the
//! tool's documented behaviour and checked against pt-query-digest's own output on a
//! fixture log (tests/integration/capture.rs).
//!
//! One rule is left out: pt folds `SELECT … UNION SELECT …` repeats of the same SELECT
//! into one, which needs a back-reference; such queries keep every branch here.

use std::sync::LazyLock;

use regex::Regex;

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).unwrap_or_else(|e| panic!("fingerprint pattern {pattern}: {e}"))
}

static PT_CHECKSUM: LazyLock<Regex> = LazyLock::new(|| re(r"/\*\w+\.\w+:[0-9]/[0-9]\*/"));
static CALL: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)\A\s*(call\s+\S+)\("));
static MULTI_ROW_INSERT: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?is)\A((?:INSERT|REPLACE)(?: IGNORE)?\s+INTO.+?VALUES\s*\(.*?\))\s*,\s*\(")
});
static BLOCK_COMMENT: LazyLock<Regex> = LazyLock::new(|| re(r"(?s)/\*[^!].*?\*/"));
static LINE_COMMENT: LazyLock<Regex> = LazyLock::new(|| re(r#"(?:--|#)[^'"\r\n]*"#));
static USE: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)\Ause \S+\n?\z"));
static ESCAPED_QUOTE: LazyLock<Regex> = LazyLock::new(|| re(r#"\\["']"#));
static DOUBLE_QUOTED: LazyLock<Regex> = LazyLock::new(|| re(r#"(?s)".*?""#));
static SINGLE_QUOTED: LazyLock<Regex> = LazyLock::new(|| re(r"(?s)'.*?'"));
static BOOLEAN: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)\bfalse\b|\btrue\b"));
static NUMBER: LazyLock<Regex> = LazyLock::new(|| re(r"[0-9+-][0-9a-f.xb+-]*"));
static NUMBER_PREFIX: LazyLock<Regex> = LazyLock::new(|| re(r"[xb.+-]\?"));
static WHITESPACE: LazyLock<Regex> = LazyLock::new(|| re(r"[ \n\t\r\x0c]+"));
static NULL: LazyLock<Regex> = LazyLock::new(|| re(r"\bnull\b"));
static LISTS: LazyLock<Regex> = LazyLock::new(|| re(r"\b(in|values?)(?:[\s,]*\([\s?,]*\))+"));
static LIMIT: LazyLock<Regex> = LazyLock::new(|| re(r"\blimit \?(?:, ?\?| offset \?)?"));
static ASC: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)\s+ASC"));

/// The pt-query-digest fingerprint of `query`.
pub(crate) fn fingerprint(query: &str) -> String {
    if query.starts_with("SELECT /*!40001 SQL_NO_CACHE */ * FROM `") {
        return "mysqldump".to_string();
    }
    if PT_CHECKSUM.is_match(query) {
        return "percona-toolkit".to_string();
    }
    if query.starts_with("administrator command: ") {
        return query.to_string();
    }
    if let Some(call) = CALL.captures(query) {
        return call[1].to_lowercase();
    }
    let mut q = match MULTI_ROW_INSERT.captures(query) {
        Some(first_row) => first_row[1].to_string(),
        None => query.to_string(),
    };
    q = BLOCK_COMMENT.replace_all(&q, "").into_owned();
    q = strip_line_comments(&q);
    if USE.is_match(&q) {
        return "use ?".to_string();
    }
    q = ESCAPED_QUOTE.replace_all(&q, "").into_owned();
    q = DOUBLE_QUOTED.replace_all(&q, "?").into_owned();
    q = SINGLE_QUOTED.replace_all(&q, "?").into_owned();
    q = BOOLEAN.replace_all(&q, "?").into_owned();
    q = NUMBER.replace_all(&q, "?").into_owned();
    q = NUMBER_PREFIX.replace_all(&q, "?").into_owned();
    q = q.trim_start().to_string();
    if q.ends_with('\n') {
        q.pop();
    }
    q = WHITESPACE.replace_all(&q, " ").to_lowercase();
    q = NULL.replace_all(&q, "?").into_owned();
    q = LISTS.replace_all(&q, "$1(?+)").into_owned();
    q = LIMIT.replacen(&q, 1, "limit ?").into_owned();
    drop_asc_after_order_by(&q)
}

/// Removes `--` and `#` comments that run to the end of a line (or of the text); one
/// that meets a quote first is not a comment and stays.
fn strip_line_comments(q: &str) -> String {
    let mut out = String::with_capacity(q.len());
    let mut rest = 0;
    for found in LINE_COMMENT.find_iter(q) {
        let after = q[found.end()..].chars().next();
        if matches!(after, None | Some('\r' | '\n')) {
            out.push_str(&q[rest..found.start()]);
            rest = found.end();
        }
    }
    out.push_str(&q[rest..]);
    out
}

/// `ASC` is the default order: after the first ORDER BY, every ` asc` goes.
fn drop_asc_after_order_by(q: &str) -> String {
    match q.to_ascii_lowercase().find("order by ") {
        Some(at) => format!("{}{}", &q[..at], ASC.replace_all(&q[at..], "")),
        None => q.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::fingerprint;

    #[test]
    fn literals_lists_comments_and_case_fold_as_pt_query_digest_does() {
        let cases = [
            (
                "SELECT c FROM sbtest1 WHERE id=5012",
                "select c from sbtest? where id=?",
            ),
            (
                "SELECT name, password FROM user WHERE id='12823';",
                "select name, password from user where id=?;",
            ),
            (
                "select * from t where a in (1, 2, 3) and b = 'x''y'",
                "select * from t where a in(?+) and b = ??",
            ),
            (
                "INSERT INTO t (a,b) VALUES (1,'x'),(2,'y')",
                "insert into t (a,b) values(?+)",
            ),
            ("SELECT /* hint */ 1 -- trailing\n", "select ? "),
            ("use sbtest", "use ?"),
            (
                "SELECT * FROM t WHERE x IS NULL LIMIT 10, 20",
                "select * from t where x is ? limit ?",
            ),
            (
                "SELECT a FROM t ORDER BY a ASC, b ASC",
                "select a from t order by a, b",
            ),
            ("CALL proc(1, 2)", "call proc"),
            ("SELECT   TRUE,\n\tfalse", "select ?, ?"),
            (
                "SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN 10 AND 109 ORDER BY c",
                "select distinct c from sbtest? where id between ? and ? order by c",
            ),
        ];
        for (query, expected) in cases {
            assert_eq!(fingerprint(query), expected, "{query}");
        }
    }

    #[test]
    fn a_hash_inside_a_string_is_not_a_comment() {
        assert_eq!(
            fingerprint("SELECT '#1' FROM t WHERE a = 1"),
            "select ? from t where a = ?"
        );
    }
}
