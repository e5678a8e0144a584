//! SQL as the server will execute it: one lexical reading, shared by every place that
//! reads statements (the classes of [`super::sql_text`], the `SET` reading of
//! [`super::set_statement`], capture's fingerprints). Comments go — `-- ` (two dashes
//! and a space, a control character or the end), `#`, `/* … */` — but executable
//! comments (`/*! … */`, `/*!NNNNN … */`, `/*M! … */`, `/*M!NNNNNN … */`) are code,
//! whatever their version number: MariaDB runs them. Quotes (`'…'`, `"…"`, `` `…` ``,
//! with doubled quotes and backslash escapes) are respected, so a `--` or a `/*` inside
//! a string is not a comment. The client sends several statements in one string (the
//! mysql crate asks for CLIENT_MULTI_STATEMENTS), so a string is split at its `;`.
//!
//! Whether a backslash escapes a quote depends on the server's `sql_mode`
//! (`NO_BACKSLASH_ESCAPES`), which abtest does not know in advance: a text with a
//! backslash is read both ways. What cannot be read (an unterminated quote or comment)
//! is an error.

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
