//! SQL as the server will execute it: one lexical reading, shared by every place that
//! decides what a statement does (the foreign-table guard, a workload's `writes`,
//! capture's classes, the hook checks).
//!
//! Deciding by the first word of the text as written let `/* purge */ DELETE FROM
//! orders` pass as harmless, and `/*!SET GLOBAL x=1*/` as no SET at all. Here comments
//! go — `-- ` (two dashes and a space, a control character or the end), `#`, `/* … */` —
//! but executable comments (`/*! … */`, `/*!NNNNN … */`, `/*M! … */`, `/*M!NNNNNN … */`)
//! are code, whatever their version number: MariaDB runs them. Quotes (`'…'`, `"…"`,
//! `` `…` ``, with doubled quotes and backslash escapes) are respected, so a `--` or a
//! `/*` inside a string is not a comment. The client sends several statements in one
//! string (the mysql crate asks for CLIENT_MULTI_STATEMENTS), so a string is split at
//! its `;` and judged by its most dangerous part.
//!
//! Whether a backslash escapes a quote depends on the server's `sql_mode`
//! (`NO_BACKSLASH_ESCAPES`), which abtest does not know in advance: a text with a
//! backslash is read both ways, and a statement is only as safe as its worse reading.
//! What cannot be read (an unterminated quote or comment) is an error; the classification
//! then calls it a write.

use super::set_statement::{SetEffect, global_effect};

/// How a quote's backslash is read: escaping (the server's default) or plain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reading {
    /// A backslash escapes the next character inside `'…'` and `"…"`.
    BackslashEscapes,
    /// `sql_mode` holds `NO_BACKSLASH_ESCAPES`: a backslash is a character.
    NoBackslashEscapes,
}

/// One statement's code: its text with comments gone (each replaced by a space) and
/// executable comments unwrapped, and its tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Code {
    /// The code, trimmed.
    pub(crate) text: String,
    /// Bare words lower case; a quoted string `'`, a quoted name `` ` ``, any other
    /// character itself.
    pub(crate) tokens: Vec<String>,
}

/// What a statement does, for the guards and the counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Action {
    /// Provably reads only: SELECT (not INTO OUTFILE/DUMPFILE), WITH … SELECT, SHOW,
    /// EXPLAIN/DESCRIBE, VALUES, TABLE, HANDLER.
    Read,
    /// BEGIN, START TRANSACTION.
    Begin,
    /// COMMIT, ROLLBACK.
    End,
    /// A session setting that changes no data: USE, SET of session or user variables,
    /// SAVEPOINT.
    Session,
    /// Nothing but comments.
    Empty,
    /// Anything else: row changes, DDL, CALL, EXECUTE, DO, SET GLOBAL, what cannot be
    /// read. Whatever is not provably harmless is a write.
    Write,
}

/// The statements of `sql` as the server executes them, read one way; `Err` says what
/// cannot be read. Statements that are only whitespace are left out.
pub(crate) fn statements(sql: &str, reading: Reading) -> Result<Vec<Code>, String> {
    let chars: Vec<char> = sql.chars().collect();
    let mut lexer = Lexer {
        chars: &chars,
        reading,
        done: Vec::new(),
        current: Code {
            text: String::new(),
            tokens: Vec::new(),
        },
    };
    lexer.run()?;
    Ok(lexer.done)
}

/// The code of `sql` under every reading it has (one without a backslash, two with);
/// `Err` when one of them cannot be read, naming the reading.
pub(crate) fn readings(sql: &str) -> Result<Vec<Vec<Code>>, String> {
    let mut all = vec![statements(sql, Reading::BackslashEscapes)?];
    if sql.contains('\\') {
        let plain = statements(sql, Reading::NoBackslashEscapes)
            .map_err(|e| format!("{e} when a backslash is not an escape (NO_BACKSLASH_ESCAPES)"))?;
        if plain != all[0] {
            all.push(plain);
        }
    }
    Ok(all)
}

/// What `sql` does: the most dangerous of its statements under its worse reading.
/// Several statements that are not all reads, or readings that disagree, are a write.
pub(crate) fn classify(sql: &str) -> Action {
    let Ok(readings) = readings(sql) else {
        return Action::Write;
    };
    let classes: Vec<Action> = readings.iter().map(|codes| combine(codes)).collect();
    if classes.windows(2).any(|pair| pair[0] != pair[1]) {
        return Action::Write;
    }
    classes[0]
}

/// Whether `sql` is not provably free of changes (see [`Action::Write`]).
pub(crate) fn is_write(sql: &str) -> bool {
    classify(sql) == Action::Write
}

/// The first token of the code of `sql` (a keyword lower case, or `(`), under the
/// server's default reading; none when it is only comments or cannot be read.
pub(crate) fn first_keyword(sql: &str) -> Option<String> {
    statements(sql, Reading::BackslashEscapes)
        .ok()?
        .into_iter()
        .next()?
        .tokens
        .into_iter()
        .next()
}

fn combine(codes: &[Code]) -> Action {
    match codes {
        [] => Action::Empty,
        [one] => of_statement(one),
        many if many.iter().all(|c| of_statement(c) == Action::Read) => Action::Read,
        _ => Action::Write,
    }
}

/// The class of one statement's code, by its first keywords.
fn of_statement(code: &Code) -> Action {
    let t = &code.tokens;
    let word = |i: usize| t.get(i).map_or("", String::as_str);
    let has = |w: &str| t.iter().any(|x| x == w);
    let writes_a_file = has("outfile") || has("dumpfile");
    let lead = t.iter().take_while(|x| *x == "(").count();
    match word(lead) {
        "select" | "values" | "table" if !writes_a_file => Action::Read,
        "with" if !writes_a_file && !changes_rows(&t[lead..]) => Action::Read,
        _ if lead > 0 => Action::Write,
        "show" | "handler" => Action::Read,
        "explain" | "describe" | "desc" if word(1) != "analyze" => Action::Read,
        "begin" if matches!(word(1), "" | "work") => Action::Begin,
        "start" if word(1) == "transaction" => Action::Begin,
        "commit" => Action::End,
        "rollback" if has("to") => Action::Session,
        "rollback" => Action::End,
        "savepoint" | "release" | "use" => Action::Session,
        "set" => set_class(code),
        _ => Action::Write,
    }
}

/// Whether a WITH statement's main part changes rows (MySQL runs `WITH … DELETE`).
fn changes_rows(tokens: &[String]) -> bool {
    tokens.iter().enumerate().any(|(i, w)| match w.as_str() {
        "insert" | "delete" | "replace" => true,
        "update" => i == 0 || tokens[i - 1] != "for",
        _ => false,
    })
}

/// A SET that changes only this session's or user variables is a session setting; a
/// global, a password, a default role or `SET STATEMENT … FOR` (which runs a statement)
/// is a write.
fn set_class(code: &Code) -> Action {
    if matches!(
        code.tokens.get(1).map(String::as_str),
        Some("password" | "default" | "statement")
    ) {
        return Action::Write;
    }
    match global_effect(&code.text) {
        Ok(SetEffect::NotSet) => Action::Session,
        Ok(SetEffect::Globals(names)) if names.is_empty() => Action::Session,
        _ => Action::Write,
    }
}

struct Lexer<'a> {
    chars: &'a [char],
    reading: Reading,
    done: Vec<Code>,
    current: Code,
}

impl Lexer<'_> {
    fn run(&mut self) -> Result<(), String> {
        let chars = self.chars;
        let mut executable = false;
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            let at = |k: usize| chars.get(i + k).copied();
            match c {
                '\'' | '"' | '`' => {
                    let end = quote_end(chars, i, self.reading)?;
                    self.current.text.extend(&chars[i..end]);
                    self.token(if c == '`' { "`" } else { "'" });
                    i = end;
                }
                '/' if at(1) == Some('*') => {
                    if let Some(code_at) = executable_start(chars, i) {
                        if executable {
                            return Err("an executable comment inside another".into());
                        }
                        executable = true;
                        i = code_at;
                    } else {
                        i = block_comment_end(chars, i)?;
                    }
                    self.current.text.push(' ');
                }
                '*' if executable && at(1) == Some('/') => {
                    executable = false;
                    self.current.text.push(' ');
                    i += 2;
                }
                '-' if at(1) == Some('-')
                    && at(2).is_none_or(|c| c.is_whitespace() || c.is_control()) =>
                {
                    i = line_end(chars, i);
                    self.current.text.push(' ');
                }
                '#' => {
                    i = line_end(chars, i);
                    self.current.text.push(' ');
                }
                ';' => {
                    self.finish();
                    i += 1;
                }
                _ if is_word_char(c) => {
                    let end = word_end(chars, i);
                    let word: String = chars[i..end].iter().collect();
                    self.current.text.push_str(&word);
                    self.token(&word.to_lowercase());
                    i = end;
                }
                _ => {
                    self.current.text.push(c);
                    if !c.is_whitespace() {
                        self.token(&c.to_string());
                    }
                    i += 1;
                }
            }
        }
        if executable {
            return Err("an executable comment `/*!` that does not end".into());
        }
        self.finish();
        Ok(())
    }

    fn token(&mut self, token: &str) {
        self.current.tokens.push(token.to_string());
    }

    fn finish(&mut self) {
        let mut code = std::mem::replace(
            &mut self.current,
            Code {
                text: String::new(),
                tokens: Vec::new(),
            },
        );
        code.text = code.text.trim().to_string();
        if !code.tokens.is_empty() {
            self.done.push(code);
        }
    }
}

/// Letters, digits, `_` and `$`: what a bare word is made of.
pub(crate) fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// Where the bare word starting at `start` ends.
pub(crate) fn word_end(chars: &[char], start: usize) -> usize {
    (start..chars.len())
        .find(|&i| !is_word_char(chars[i]))
        .unwrap_or(chars.len())
}

/// Whether the `/*` at `start` opens an executable comment (`/*!`, `/*M!`).
pub(crate) fn is_executable_comment(chars: &[char], start: usize) -> bool {
    executable_start(chars, start).is_some()
}

/// Where the code of an executable comment starting at `start` (`/*!`, `/*M!`, with an
/// optional version of 5 or 6 digits) begins; none for a plain comment.
fn executable_start(chars: &[char], start: usize) -> Option<usize> {
    let bang = match (chars.get(start + 2), chars.get(start + 3)) {
        (Some('!'), _) => start + 2,
        (Some('M'), Some('!')) => start + 3,
        _ => return None,
    };
    let digits = chars[bang + 1..]
        .iter()
        .take_while(|c| c.is_ascii_digit())
        .count();
    Some(if matches!(digits, 5 | 6) {
        bang + 1 + digits
    } else {
        bang + 1
    })
}

/// The end of the `/* … */` comment starting at `start` (the first `*/`: comments do
/// not nest).
fn block_comment_end(chars: &[char], start: usize) -> Result<usize, String> {
    (start + 2..chars.len().saturating_sub(1))
        .find(|&i| chars[i] == '*' && chars[i + 1] == '/')
        .map(|i| i + 2)
        .ok_or_else(|| "a `/*` comment that does not end".to_string())
}

/// The index of the newline that ends the line comment at `start` (or the end).
fn line_end(chars: &[char], start: usize) -> usize {
    (start..chars.len())
        .find(|&i| chars[i] == '\n')
        .unwrap_or(chars.len())
}

/// The end of the quoted text starting at `start`: its quote doubled inside, or (in
/// `'…'` and `"…"` under the default reading) escaped with a backslash.
pub(crate) fn quote_end(chars: &[char], start: usize, reading: Reading) -> Result<usize, String> {
    let quote = chars[start];
    let escapes = quote != '`' && reading == Reading::BackslashEscapes;
    let mut i = start + 1;
    while i < chars.len() {
        match chars[i] {
            '\\' if escapes => i += 2,
            c if c == quote && chars.get(i + 1) == Some(&quote) => i += 2,
            c if c == quote => return Ok(i + 1),
            _ => i += 1,
        }
    }
    Err(format!("a {quote} quote that does not end"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(sql: &str) -> Vec<String> {
        statements(sql, Reading::BackslashEscapes)
            .unwrap()
            .into_iter()
            .map(|c| c.text)
            .collect()
    }

    #[test]
    fn comments_go_and_executable_comments_stay_as_code() {
        assert_eq!(
            code("/* purge */ DELETE FROM orders"),
            ["DELETE FROM orders"]
        );
        assert_eq!(code("-- x\nDELETE FROM t"), ["DELETE FROM t"]);
        assert_eq!(code("#x\nDELETE FROM t"), ["DELETE FROM t"]);
        assert_eq!(code("/*!DELETE FROM t*/"), ["DELETE FROM t"]);
        assert_eq!(code("/*!50000 DELETE FROM t */"), ["DELETE FROM t"]);
        assert_eq!(code("/*M!100000 DELETE FROM t */"), ["DELETE FROM t"]);
        assert_eq!(code("/*M!DELETE FROM t*/"), ["DELETE FROM t"]);
        assert_eq!(code("SET /*!GLOBAL*/ x=1"), ["SET  GLOBAL  x=1"]);
        assert_eq!(
            code("SELECT 1 --x"),
            ["SELECT 1 --x"],
            "`--x` is no comment"
        );
        assert_eq!(code("SELECT 1 --"), ["SELECT 1"]);
        assert_eq!(code("SELECT 1 --\tx\n+2"), ["SELECT 1  \n+2"]);
        assert_eq!(code("/* only a comment */"), Vec::<String>::new());
    }

    #[test]
    fn quotes_hide_comment_markers_and_semicolons() {
        assert_eq!(
            code("SELECT '-- x', \"/* y */\", `#z`"),
            ["SELECT '-- x', \"/* y */\", `#z`"]
        );
        assert_eq!(code("SELECT 'a''b -- c'"), ["SELECT 'a''b -- c'"]);
        assert_eq!(code("SELECT 'a\\' ; DELETE'"), ["SELECT 'a\\' ; DELETE'"]);
        assert_eq!(code("/*! SELECT '*/' */"), ["SELECT '*/'"]);
        assert_eq!(
            code("SELECT 1; DELETE FROM t;"),
            ["SELECT 1", "DELETE FROM t"]
        );
    }

    #[test]
    fn comments_do_not_nest() {
        assert_eq!(code("/* a /* b */ DELETE FROM t"), ["DELETE FROM t"]);
        assert_eq!(classify("/* a /* b */ DELETE FROM t */"), Action::Write);
    }

    #[test]
    fn what_cannot_be_read_is_an_error_and_a_write() {
        for bad in [
            "/* open",
            "SELECT 1 /* open",
            "/*! DELETE FROM t",
            "/*!",
            "/*",
            "SELECT 'open",
            "SELECT \"open",
            "SELECT `open",
            "SELECT 'a\\'",
            "/*! /*! x */ */",
        ] {
            assert!(statements(bad, Reading::BackslashEscapes).is_err(), "{bad}");
            assert_eq!(classify(bad), Action::Write, "{bad}");
        }
    }

    #[test]
    fn statements_are_classified_by_their_code() {
        for (sql, class) in [
            ("SELECT 1", Action::Read),
            ("  select 1", Action::Read),
            ("/* controller='x' */ SELECT c FROM t", Action::Read),
            ("SELECT c FROM t /*application:App*/", Action::Read),
            ("-- x\nSELECT 1", Action::Read),
            ("(SELECT 1) UNION (SELECT 2)", Action::Read),
            ("WITH a AS (SELECT 1) SELECT * FROM a", Action::Read),
            ("WITH a AS (SELECT 1) DELETE FROM t", Action::Write),
            ("SELECT * FROM t FOR UPDATE", Action::Read),
            ("SELECT * FROM t INTO OUTFILE '/tmp/x'", Action::Write),
            ("SHOW TABLES", Action::Read),
            ("EXPLAIN DELETE FROM t", Action::Read),
            ("EXPLAIN ANALYZE SELECT 1", Action::Write),
            ("ANALYZE DELETE FROM t", Action::Write),
            ("VALUES (1)", Action::Read),
            ("TABLE t", Action::Read),
            ("/* purge */ DELETE FROM orders", Action::Write),
            ("-- x\nDELETE FROM orders", Action::Write),
            ("#x\nDELETE FROM orders", Action::Write),
            ("/*!DELETE FROM orders*/", Action::Write),
            ("/*!99999 DELETE FROM orders*/", Action::Write),
            ("/*M!100000 DELETE FROM orders*/", Action::Write),
            ("INSERT INTO t VALUES (1)", Action::Write),
            ("TRUNCATE t", Action::Write),
            ("DROP TABLE t", Action::Write),
            ("CALL p()", Action::Write),
            ("EXECUTE IMMEDIATE 'DELETE FROM t'", Action::Write),
            ("DO 1", Action::Write),
            ("LOAD DATA INFILE 'x' INTO TABLE t", Action::Write),
            ("BEGIN", Action::Begin),
            ("begin work", Action::Begin),
            ("BEGIN NOT ATOMIC DELETE FROM t; END", Action::Write),
            ("START TRANSACTION", Action::Begin),
            ("/* x */ COMMIT", Action::End),
            ("ROLLBACK", Action::End),
            ("ROLLBACK TO SAVEPOINT a", Action::Session),
            ("SET autocommit = 0", Action::Session),
            ("SET SESSION sql_mode = ''", Action::Session),
            ("SET GLOBAL x = 1", Action::Write),
            ("/*!SET GLOBAL x=1*/", Action::Write),
            ("SET /*!GLOBAL*/ x=1", Action::Write),
            (
                "SET STATEMENT max_statement_time=1 FOR DELETE FROM t",
                Action::Write,
            ),
            ("SET PASSWORD = PASSWORD('x')", Action::Write),
            ("USE db", Action::Session),
            ("SELECT 1; SELECT 2", Action::Read),
            ("SELECT 1; DELETE FROM t", Action::Write),
            ("SELECT '; DELETE FROM t'", Action::Read),
            ("/* */", Action::Empty),
            ("", Action::Empty),
        ] {
            assert_eq!(classify(sql), class, "{sql}");
        }
    }

    #[test]
    fn a_backslash_is_read_both_ways() {
        // With NO_BACKSLASH_ESCAPES the string ends at the backslash and DELETE runs.
        let sql = "SELECT 'a\\'; DELETE FROM t; SELECT '";
        assert_eq!(statements(sql, Reading::BackslashEscapes).unwrap().len(), 1);
        assert_eq!(classify(sql), Action::Write);
        assert_eq!(
            classify("SELECT 'it\\'s'"),
            Action::Write,
            "unreadable one way"
        );
        assert_eq!(classify("SELECT 'a\\\\b'"), Action::Read);
    }

    #[test]
    fn the_first_keyword_is_the_codes() {
        assert_eq!(first_keyword("/* x */ SELECT 1").as_deref(), Some("select"));
        assert_eq!(
            first_keyword("/*!INSERT*/ INTO t").as_deref(),
            Some("insert")
        );
        assert_eq!(first_keyword("(SELECT 1)").as_deref(), Some("("));
        assert_eq!(first_keyword("-- only"), None);
    }

    mod generated {
        use super::super::*;
        use proptest::prelude::*;

        proptest! {
            /// No input panics; what is read is read the same way twice.
            #[test]
            fn any_text_is_read_without_a_panic(sql in "[ -~\n\t]{0,40}|(/\\*|\\*/|--|#|'|\"|`|!|M|;|\\\\| |DELETE|SELECT|\n|[0-9]){0,20}") {
                let _ = classify(&sql);
                let _ = first_keyword(&sql);
                prop_assert_eq!(
                    statements(&sql, Reading::BackslashEscapes),
                    statements(&sql, Reading::BackslashEscapes)
                );
            }

            /// A write behind any comment, executable comment or line comment is a write.
            #[test]
            fn a_write_behind_comments_is_a_write(
                lead in prop_oneof![
                    Just("/* purge */ "), Just("-- x\n"), Just("#x\n"), Just("/* a /* b */"),
                    Just("/*!"), Just("/*!50000 "), Just("/*M!100000 "), Just("--\t\n"),
                    Just("/* '*/ "), Just(""),
                ],
                verb in prop_oneof![
                    Just("DELETE FROM orders"), Just("UPDATE orders SET a = 1"),
                    Just("TRUNCATE orders"), Just("DROP TABLE orders"),
                    Just("INSERT INTO orders VALUES (1)"), Just("REPLACE INTO orders VALUES (1)"),
                ],
            ) {
                let close = if lead.starts_with("/*!") || lead.starts_with("/*M!") { " */" } else { "" };
                let sql = format!("{lead}{verb}{close}");
                prop_assert_eq!(classify(&sql), Action::Write, "{}", sql);
            }
        }
    }
}
