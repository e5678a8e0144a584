//! What a statement does, decided from SQL as the server will execute it (the reading
//! of [`super::lexer`]), shared by every place that decides it (the foreign-table
//! guard, a workload's `writes`, capture's classes, the hook checks).
//!
//! Deciding by the first word of the text as written let `/* purge */ DELETE FROM
//! orders` pass as harmless, and `/*!SET GLOBAL x=1*/` as no SET at all. Here the code
//! is judged without its comments and with its executable comments, a string of
//! several statements by its most dangerous part, and a text with a backslash is only
//! as safe as its worse reading. What cannot be read is a write.

use super::lexer::{Code, readings};
use super::set_statement::{SetEffect, global_effect};

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::lexer::{Reading, first_keyword, statements};

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
        use crate::db::lexer::{Reading, first_keyword, statements};
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
