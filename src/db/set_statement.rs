//! Which global variables a hook's `SET` statement changes, read the way the server
//! reads it, so that what abtest cannot allow (`SET PERSIST`, a place a managed server
//! writes) is refused before the run with the hook's line. (Putting the server back does
//! not depend on this reading: every global is snapshotted and compared.) Splitting on `,` and `=` missed `SET GLOBAL a=3, b=77` (the scope carries to
//! `b`), comments, tabs and newlines, `:=`, quoted lists with commas and `@@GLOBAL.x`;
//! this tokenizer knows them all, and says so when it cannot read a statement, so that
//! the run is refused instead of leaving a variable behind. It reads the code the server
//! executes ([`super::lexer`]): `/*!SET GLOBAL x=1*/` and `SET /*!GLOBAL*/ x=1` are
//! the SET GLOBAL they run as.

use super::lexer::{self, Reading, is_word_char, quote_end, word_end};

/// A `SET` statement's effect on global variables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SetEffect {
    /// Not a `SET` statement (or one that changes no system variable).
    NotSet,
    /// The global variables it assigns, lower case, in order, each once.
    Globals(Vec<String>),
}

/// One token of SQL: what the SET grammar needs to tell apart.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    /// A bare word or a back-quoted identifier (`global`, `sql_mode`, `` `x` ``).
    Word(String),
    /// `@@` followed by a dotted name (`@@global.x`, `@@x`).
    SystemVariable(String),
    /// `@name`: a user variable.
    UserVariable,
    /// `=` or `:=`.
    Assign,
    /// `,`.
    Comma,
    /// `(` or `)`.
    Open,
    Close,
    /// Anything else: literals, operators.
    Other,
}

/// What a hook's statement does to global variables; `Err` with the reason when it is a
/// `SET` abtest cannot read, or one whose change it could not put back.
pub(crate) fn global_effect(sql: &str) -> Result<SetEffect, String> {
    let mut globals: Option<Vec<String>> = None;
    for (statements, reading) in lexer::readings(sql)?.iter().zip(READINGS) {
        let code = match statements.as_slice() {
            [] => continue,
            [one] => one,
            _ => return Err("more than one statement in one hook entry".into()),
        };
        if let SetEffect::Globals(names) = effect_of_code(&code.text, reading)? {
            let known = globals.get_or_insert_with(Vec::new);
            for name in names {
                if !known.contains(&name) {
                    known.push(name);
                }
            }
        }
    }
    Ok(globals.map_or(SetEffect::NotSet, SetEffect::Globals))
}

/// The readings [`lexer::readings`] returns, in its order.
const READINGS: [Reading; 2] = [Reading::BackslashEscapes, Reading::NoBackslashEscapes];

/// The effect of one statement's code (comments gone), read one way.
fn effect_of_code(code: &str, reading: Reading) -> Result<SetEffect, String> {
    let tokens = tokenize(code, reading)?;
    match tokens.first() {
        Some(Token::Word(word)) if word == "set" => {}
        _ => return Ok(SetEffect::NotSet),
    }
    let mut names: Vec<String> = Vec::new();
    let mut scope = Scope::Session;
    for assignment in split_assignments(&tokens[1..])? {
        let (target, name) = assignment_target(assignment, &mut scope)?;
        if target == Scope::Persist {
            return Err(format!(
                "`SET PERSIST` of {name} is written to the server's mysqld-auto.cnf, which \
                 abtest cannot put back; use SET GLOBAL"
            ));
        }
        if target == Scope::Global && !names.contains(&name) {
            names.push(name);
        }
    }
    Ok(SetEffect::Globals(names))
}

/// The scope of an assignment; a modifier carries to the assignments after it that have
/// none, as the server reads a multiple `SET`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    Session,
    Global,
    Persist,
    /// A user variable (`@x`), which no one else sees.
    User,
}

fn scope_word(word: &str) -> Option<Scope> {
    match word {
        "global" => Some(Scope::Global),
        "session" | "local" => Some(Scope::Session),
        "persist" | "persist_only" => Some(Scope::Persist),
        _ => None,
    }
}

/// The assignments of a SET's token list, split at top-level commas.
fn split_assignments(tokens: &[Token]) -> Result<Vec<&[Token]>, String> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for (i, token) in tokens.iter().enumerate() {
        match token {
            Token::Open => depth += 1,
            Token::Close => depth = depth.checked_sub(1).ok_or("a `)` without its `(`")?,
            Token::Comma if depth == 0 => {
                parts.push(&tokens[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&tokens[start..]);
    if parts.iter().any(|p| p.is_empty()) {
        return Err("an empty assignment".into());
    }
    Ok(parts)
}

/// The scope and variable name an assignment sets; `scope` carries a modifier on.
fn assignment_target(tokens: &[Token], scope: &mut Scope) -> Result<(Scope, String), String> {
    let mut rest = tokens;
    if let Some(Token::Word(word)) = rest.first()
        && let Some(modifier) = scope_word(word)
        && rest.len() > 1
        && !matches!(rest[1], Token::Assign)
    {
        *scope = modifier;
        rest = &rest[1..];
    }
    let (target, name) = match rest.first() {
        Some(Token::Word(name)) => (*scope, name.clone()),
        Some(Token::SystemVariable(dotted)) => system_variable(dotted, *scope),
        Some(Token::UserVariable) => (Scope::User, String::new()),
        // `SET NAMES …`, `SET CHARACTER SET …`, `SET PASSWORD …`, `SET ROLE …` and the
        // like start with a word too and end up here only if malformed.
        _ => return Err("an assignment that does not start with a variable".into()),
    };
    let assigns = matches!(rest.get(1), Some(Token::Assign));
    let special = matches!(
        name.as_str(),
        "names" | "character" | "charset" | "password" | "role" | "default" | "transaction"
    );
    if !(assigns || (special && target != Scope::Global)) {
        return Err(format!("`{name}` is not followed by `=` or `:=`"));
    }
    Ok((target, name))
}

/// The scope and name of `@@global.x`, `@@session.x`, `@@x` (the current scope).
fn system_variable(dotted: &str, current: Scope) -> (Scope, String) {
    match dotted.split_once('.') {
        Some((prefix, name)) => match scope_word(prefix) {
            Some(scope) => (scope, name.to_string()),
            None => (current, dotted.to_string()),
        },
        None => (current, dotted.to_string()),
    }
}

/// Splits a statement's code (comments already gone) into tokens, dropping whitespace;
/// names are lower case.
fn tokenize(code: &str, reading: Reading) -> Result<Vec<Token>, String> {
    let chars: Vec<char> = code.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match c {
            _ if c.is_whitespace() => i += 1,
            '\'' | '"' => {
                i = quote_end(&chars, i, reading)?;
                tokens.push(Token::Other);
            }
            '`' => {
                let end = quote_end(&chars, i, reading)?;
                let name: String = chars[i + 1..end - 1].iter().collect();
                tokens.push(Token::Word(name.replace("``", "`").to_lowercase()));
                i = end;
            }
            '@' if next == Some('@') => {
                let (name, end) = dotted_name(&chars, i + 2)?;
                tokens.push(Token::SystemVariable(name));
                i = end;
            }
            '@' => {
                i = if matches!(next, Some('\'' | '"' | '`')) {
                    quote_end(&chars, i + 1, reading)?
                } else {
                    dotted_name(&chars, i + 1)?.1
                };
                tokens.push(Token::UserVariable);
            }
            ':' if next == Some('=') => {
                tokens.push(Token::Assign);
                i += 2;
            }
            '=' => {
                tokens.push(Token::Assign);
                i += 1;
            }
            ',' => {
                tokens.push(Token::Comma);
                i += 1;
            }
            '(' => {
                tokens.push(Token::Open);
                i += 1;
            }
            ')' => {
                tokens.push(Token::Close);
                i += 1;
            }
            _ if is_word_char(c) => {
                let end = word_end(&chars, i);
                let word: String = chars[i..end].iter().collect();
                tokens.push(Token::Word(word.to_lowercase()));
                i = end;
            }
            _ => {
                tokens.push(Token::Other);
                i += 1;
            }
        }
    }
    Ok(tokens)
}

/// A dotted name (`global.x`, `` `x` ``) from `start`, lower case, and where it ends.
fn dotted_name(chars: &[char], start: usize) -> Result<(String, usize), String> {
    let mut name = String::new();
    let mut i = start;
    loop {
        if chars.get(i) == Some(&'`') {
            let end = quote_end(chars, i, Reading::BackslashEscapes)?;
            name.extend(&chars[i + 1..end - 1]);
            i = end;
        } else {
            let from = i;
            i = word_end(chars, i);
            if i == from {
                return Err("a variable without a name after `@`".into());
            }
            name.extend(&chars[from..i]);
        }
        if chars.get(i) == Some(&'.') {
            name.push('.');
            i += 1;
        } else {
            return Ok((name.to_lowercase(), i));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn globals(sql: &str) -> Vec<String> {
        match global_effect(sql).unwrap() {
            SetEffect::Globals(names) => names,
            SetEffect::NotSet => Vec::new(),
        }
    }

    #[test]
    fn every_spelling_of_a_global_assignment() {
        assert_eq!(globals("SET GLOBAL a=3, b=77"), ["a", "b"]);
        assert_eq!(globals("/* c */ SET GLOBAL x = 1"), ["x"]);
        assert_eq!(globals("SET\tGLOBAL x=1"), ["x"]);
        assert_eq!(globals("SET\nGLOBAL x=1"), ["x"]);
        assert_eq!(globals("SET GLOBAL x := 55"), ["x"]);
        assert_eq!(
            globals("SET GLOBAL sql_mode='A,B', long_query_time=4"),
            ["sql_mode", "long_query_time"]
        );
        assert_eq!(
            globals("SET @@GLOBAL.max_connect_errors = 77"),
            ["max_connect_errors"]
        );
        assert_eq!(globals("set @@global.`x` = 1; "), ["x"]);
        assert_eq!(
            globals("SET GLOBAL a = 1, SESSION b = 2, c = 3, GLOBAL d = 4"),
            ["a", "d"]
        );
        assert_eq!(
            globals("SET SESSION a = 1, @@global.b = IF(1, 2, 3)"),
            ["b"]
        );
        assert_eq!(
            globals("SET @x = 1, GLOBAL `long_query_time` = 2"),
            ["long_query_time"]
        );
        assert_eq!(globals("-- note\nSET GLOBAL a = 1 # trailing"), ["a"]);
        assert_eq!(globals("SET a = 1"), Vec::<String>::new());
        assert_eq!(global_effect("SELECT 1").unwrap(), SetEffect::NotSet);
        assert_eq!(global_effect("FLUSH STATUS").unwrap(), SetEffect::NotSet);
        assert_eq!(globals("SET NAMES utf8mb4"), Vec::<String>::new());
    }

    #[test]
    fn executable_comments_are_read_as_the_code_they_are() {
        assert_eq!(globals("/*!SET GLOBAL x=1*/"), ["x"]);
        assert_eq!(globals("SET /*!GLOBAL*/ x=1"), ["x"]);
        assert_eq!(globals("/*M!100000 SET GLOBAL x=1 */"), ["x"]);
        assert_eq!(globals("SET SESSION a=1, /*!50000 GLOBAL b=2 */"), ["b"]);
        assert_eq!(globals("SET /* GLOBAL */ x=1"), Vec::<String>::new());
        assert_eq!(globals("SET GLOBAL x = '-- /* */', y = 2"), ["x", "y"]);
        // Read both ways: with NO_BACKSLASH_ESCAPES the string ends at the backslash.
        assert_eq!(
            globals("SET GLOBAL x = 'a\\\\', y = 2"),
            ["x", "y"],
            "an escaped backslash"
        );
        for bad in [
            "SET /*!PERSIST*/ x=1",
            "/*!SET GLOBAL x=1",
            "SET GLOBAL x=1 /*! , y=2",
            "SET @@/*!global.*/x = 1",
            "SET GLOBAL x = 'a\\', y = 2",
            "/*!SET GLOBAL x=1*/; /*!SET GLOBAL y=2*/",
        ] {
            assert!(global_effect(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn what_cannot_be_read_or_put_back_is_said() {
        for bad in [
            "SET PERSIST max_connections = 10",
            "SET PERSIST_ONLY x = 1",
            "SET @@persist.x = 1",
            "SET GLOBAL x = 'unterminated",
            "SET GLOBAL x = 1; SET GLOBAL y = 2",
            "SET GLOBAL x = 1, ",
            "SET GLOBAL /* open",
        ] {
            assert!(global_effect(bad).is_err(), "{bad}");
        }
    }

    /// SET statements in every form the server takes: modifiers that carry on, `@@`
    /// spellings, `=` or `:=`, any whitespace or comment between tokens, values with
    /// commas and parentheses. The globals read are exactly those the statement sets.
    mod generated {
        use super::super::*;
        use proptest::prelude::*;

        fn gap() -> impl Strategy<Value = String> {
            prop_oneof![
                Just(" ".to_string()),
                Just("\t".to_string()),
                Just("\n".to_string()),
                Just(" /* c, d = 1 */ ".to_string()),
                Just(" -- note\n".to_string()),
            ]
        }

        fn value() -> impl Strategy<Value = String> {
            prop_oneof![
                Just("3".to_string()),
                Just("'A,B'".to_string()),
                Just("IF(1, 2, 3)".to_string()),
                Just("\"x = y\"".to_string()),
                Just("@@global.other".to_string()),
            ]
        }

        /// (how the target is written, its scope after this assignment) for `name`.
        fn target(name: String) -> impl Strategy<Value = (String, Option<Scope>, String)> {
            prop_oneof![
                Just((name.clone(), None, name.clone())),
                Just((format!("GLOBAL {name}"), Some(Scope::Global), name.clone())),
                Just((
                    format!("global `{name}`"),
                    Some(Scope::Global),
                    name.clone()
                )),
                Just((
                    format!("SESSION {name}"),
                    Some(Scope::Session),
                    name.clone()
                )),
                Just((format!("LOCAL {name}"), Some(Scope::Session), name.clone())),
                Just((
                    format!("@@GLOBAL.{name}"),
                    Some(Scope::Global),
                    name.clone()
                )),
                Just((
                    format!("@@session.{name}"),
                    Some(Scope::Session),
                    name.clone()
                )),
            ]
        }

        proptest! {
            #[test]
            fn the_globals_read_are_the_globals_set(
                parts in proptest::collection::vec(
                    (0u8..6).prop_flat_map(|n| {
                        (target(format!("v{n}")), gap(), value(), any::<bool>())
                    }),
                    1..6,
                ),
                lead in gap(),
            ) {
                let mut sql = format!("{lead}SET");
                let mut expected: Vec<String> = Vec::new();
                let mut carried = Scope::Session;
                for (i, ((written, scope, name), gap, value, colon)) in parts.iter().enumerate() {
                    let assign = if *colon { ":=" } else { "=" };
                    let comma = if i == 0 { "" } else { "," };
                    sql.push_str(&format!("{comma}{gap}{written}{gap}{assign}{gap}{value}"));
                    // `@@scope.x` sets that scope for x only; a word modifier carries on.
                    let effective = match scope {
                        Some(s) if written.starts_with("@@") => *s,
                        Some(s) => { carried = *s; *s }
                        None => carried,
                    };
                    if effective == Scope::Global && !expected.contains(name) {
                        expected.push(name.clone());
                    }
                }
                prop_assert_eq!(global_effect(&sql), Ok(SetEffect::Globals(expected)), "{}", sql);
            }
        }
    }
}
