//! A logged statement split into its template and its literals: `SELECT c FROM t WHERE
//! id = 42 AND name = 'x'` becomes `SELECT c FROM t WHERE id = {} AND name = {}` with
//! the literals 42 and "x". Statements with the same template are one class of the
//! replayed mix; the literals seen in each slot become that slot's parameter.
//!
//! A literal is a quoted string or a number that is not part of a name (`sbtest1` and
//! `t2.c3` stay as they are). An `IN (…)` list of literals alone is one slot holding
//! the whole list, whatever its length: pt-query-digest folds `IN (1,2)` and
//! `IN (1,2,3)` into one class, `in(?+)`, and so does the capture. Comments go. What is
//! left of the text must be safe to replay as written: a template with a brace is
//! refused, since braces mark parameters in a workload file.

/// A literal value seen in a statement.
#[derive(Debug, Clone, PartialEq, PartialOrd)]
pub(crate) enum Literal {
    /// A whole number.
    Int(i64),
    /// A number with a fraction or an exponent, kept as written.
    Decimal(String),
    /// A quoted string, unescaped.
    Text(String),
    /// The number that ends a table's name (`sbtest12`, `t_2024_01`), as written.
    Table(String),
    /// The literals of an `IN (…)` list, in order.
    List(Vec<Literal>),
}

use crate::db::lexer;

/// The slot marker inside a template.
pub(crate) const SLOT: &str = "{}";

/// The statements whose literals may become parameters of a prepared statement; in any
/// other (`SHOW … LIKE 'x'`, DDL) a `?` is a syntax error, so their text is replayed as
/// written.
const PARAMETERIZABLE: &[&str] = &[
    "select", "insert", "update", "delete", "replace", "with", "call", "(",
];

/// Splits `sql` into its template (slots written `{}`) and its literals, or says why it
/// cannot be replayed.
pub(crate) fn split(sql: &str) -> Result<(String, Vec<Literal>), String> {
    let first = lexer::first_keyword(sql).unwrap_or_default();
    if !PARAMETERIZABLE.contains(&first.as_str()) {
        if sql.contains(['{', '}']) {
            return Err("a brace in a statement replayed as written".to_string());
        }
        return Ok((sql.trim().to_string(), Vec::new()));
    }
    let chars: Vec<char> = sql.chars().collect();
    let mut template = String::with_capacity(sql.len());
    let mut literals = Vec::new();
    let mut table_folded = false;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '('
            && ends_with_in(&template)
            && let Some((list, end)) = in_list(&chars, i)
        {
            template.push('(');
            template.push_str(SLOT);
            template.push(')');
            literals.push(Literal::List(list));
            i = end;
            continue;
        }
        match c {
            '\'' | '"' => {
                let (text, end) = quoted(&chars, i)?;
                if literal_stays_as_written(&template) {
                    let raw: String = chars[i..end].iter().collect();
                    if raw.contains(['{', '}']) {
                        return Err("a brace inside a literal replayed as written".to_string());
                    }
                    template.push_str(&raw);
                } else {
                    template.push_str(SLOT);
                    literals.push(Literal::Text(text));
                }
                i = end;
            }
            '.' if next.is_some_and(|d| d.is_ascii_digit()) && !part_of_number(&chars, i) => {
                let end = number_end(&chars, i);
                template.push_str(SLOT);
                literals.push(Literal::Decimal(chars[i..end].iter().collect()));
                i = end;
            }
            '`' => {
                let end = chars[i + 1..]
                    .iter()
                    .position(|&c| c == '`')
                    .map(|p| i + p + 2)
                    .ok_or("an unclosed `quoted name`")?;
                template.extend(&chars[i..end]);
                i = end;
            }
            '/' if next == Some('*') && !lexer::is_executable_comment(&chars, i) => {
                let end = (i + 2..chars.len().saturating_sub(1))
                    .find(|&j| chars[j] == '*' && chars[j + 1] == '/')
                    .ok_or("an unclosed /* comment */")?;
                i = end + 2;
            }
            '#' => i = line_end(&chars, i),
            '-' if next == Some('-') && chars.get(i + 2).is_none_or(|c| c.is_whitespace()) => {
                i = line_end(&chars, i)
            }
            c if c.is_ascii_digit() && !table_folded && ends_table_name(&chars, i, &template) => {
                // The first table of the statement: sbtest1..N are one class, the table
                // a parameter drawn from the captured ones.
                let end = number_end(&chars, i);
                template.push_str(SLOT);
                literals.push(Literal::Table(chars[i..end].iter().collect()));
                table_folded = true;
                i = end;
            }
            c if c.is_ascii_digit() && !part_of_name(&chars, i) => {
                let end = number_end(&chars, i);
                let text: String = chars[i..end].iter().collect();
                if text.starts_with("0x") || text.starts_with("0b") {
                    template.push_str(&text);
                } else {
                    template.push_str(SLOT);
                    literals.push(number(text));
                }
                i = end;
            }
            '{' | '}' => return Err("a brace outside a string".to_string()),
            c => {
                template.push(c);
                i += 1;
            }
        }
    }
    Ok((template.trim().to_string(), literals))
}

/// Whether `template` ends with the keyword IN (and blanks): a `(` after it opens a list.
fn ends_with_in(template: &str) -> bool {
    let trimmed = template.trim_end();
    let lower = trimmed.to_ascii_lowercase();
    lower.ends_with("in")
        && !trimmed[..trimmed.len() - 2]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || matches!(c, '_' | '$' | '`' | '.'))
}

/// The list of literals in the parentheses opened at `open`, and the index after them;
/// `None` when anything but literals (a name, an expression, a subquery, a literal form
/// kept as written) stands in them.
fn in_list(chars: &[char], open: usize) -> Option<(Vec<Literal>, usize)> {
    let blank = |mut i: usize| {
        while chars.get(i).is_some_and(|c| c.is_whitespace()) {
            i += 1;
        }
        i
    };
    let mut list = Vec::new();
    let mut i = blank(open + 1);
    loop {
        let (literal, end) = list_element(chars, i)?;
        list.push(literal);
        i = blank(end);
        match chars.get(i)? {
            ',' => i = blank(i + 1),
            ')' => return Some((list, i + 1)),
            _ => return None,
        }
    }
}

/// One literal of an IN list at `i`: a quoted string, or a number with its sign.
fn list_element(chars: &[char], i: usize) -> Option<(Literal, usize)> {
    match *chars.get(i)? {
        '\'' | '"' => {
            let (text, end) = quoted(chars, i).ok()?;
            Some((Literal::Text(text), end))
        }
        c if c == '-' || c.is_ascii_digit() || c == '.' => {
            let start = usize::from(c == '-') + i;
            let digit = |j: usize| chars.get(j).is_some_and(char::is_ascii_digit);
            if !(digit(start) || (chars.get(start) == Some(&'.') && digit(start + 1))) {
                return None;
            }
            let end = number_end(chars, start);
            let text: String = chars[i..end].iter().collect();
            if text.contains(['x', 'b']) {
                return None;
            }
            Some((number(text), end))
        }
        _ => None,
    }
}

/// A number as written: a whole number when it fits an i64, else a decimal kept as text.
fn number(text: String) -> Literal {
    match text.parse::<i64>() {
        Ok(n) => Literal::Int(n),
        Err(_) => Literal::Decimal(text),
    }
}

/// A quoted string starting at `start`: its unescaped text and the index after it.
/// `''` inside single quotes and a backslash escape are read as MySQL reads them.
fn quoted(chars: &[char], start: usize) -> Result<(String, usize), String> {
    let quote = chars[start];
    let mut text = String::new();
    let mut i = start + 1;
    while i < chars.len() {
        match chars[i] {
            '\\' if i + 1 < chars.len() => {
                text.push(match chars[i + 1] {
                    'n' => '\n',
                    't' => '\t',
                    'r' => '\r',
                    '0' => '\0',
                    other => other,
                });
                i += 2;
            }
            c if c == quote && chars.get(i + 1) == Some(&quote) => {
                text.push(quote);
                i += 2;
            }
            c if c == quote => return Ok((text, i + 1)),
            c => {
                text.push(c);
                i += 1;
            }
        }
    }
    Err("an unclosed quoted string".to_string())
}

fn line_end(chars: &[char], from: usize) -> usize {
    chars[from..]
        .iter()
        .position(|&c| c == '\n')
        .map_or(chars.len(), |p| from + p)
}

/// Whether the quoted literal that follows `template` is part of a literal form a `?`
/// cannot stand for: a hex, bit or national string (`X'78'`, `b'101'`, `N'x'`), a
/// character set introducer (`_utf8mb4'x'`), or a temporal literal (`DATE '2020-01-01'`,
/// `TIME`, `TIMESTAMP`). Such a literal is replayed as written.
fn literal_stays_as_written(template: &str) -> bool {
    let word = |text: &str| -> String {
        text.chars()
            .rev()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect()
    };
    let prefix = word(template).to_ascii_lowercase();
    if matches!(prefix.as_str(), "x" | "b" | "n") || prefix.starts_with('_') {
        return true;
    }
    let trimmed = template.trim_end();
    trimmed.len() < template.len()
        && matches!(
            word(trimmed).to_ascii_lowercase().as_str(),
            "date" | "time" | "timestamp"
        )
}

/// Whether the `.` at `i` belongs to a number or a name before it (`1.5`, `t.c`), not
/// the start of a number of its own (`.5`).
fn part_of_number(chars: &[char], i: usize) -> bool {
    i > 0 && {
        let before = chars[i - 1];
        before.is_alphanumeric() || matches!(before, '_' | '$' | '`' | ')' | '"' | '\'')
    }
}

/// Whether the digits at `i` end a table's name: they continue a name (`sbtest` of
/// `sbtest12`), nothing of the name follows them, and the name stands where a table
/// does — after FROM, JOIN, UPDATE or INTO, with or without a schema (`db.sbtest1`).
fn ends_table_name(chars: &[char], i: usize, template: &str) -> bool {
    let name_char = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let digits_end = (i..chars.len())
        .find(|&j| !chars[j].is_ascii_digit())
        .unwrap_or(chars.len());
    if !part_of_name(chars, i)
        || chars
            .get(digits_end)
            .is_some_and(|&c| name_char(c) || c == '.')
    {
        return false;
    }
    let before_name = template.trim_end_matches(name_char);
    let before_name = match before_name.strip_suffix('.') {
        Some(schema) => schema.trim_end_matches(name_char),
        None => before_name,
    };
    let keyword: String = before_name
        .trim_end()
        .chars()
        .rev()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    before_name.len() > before_name.trim_end().len()
        && matches!(
            keyword.to_ascii_lowercase().as_str(),
            "from" | "join" | "update" | "into"
        )
}

/// Whether the digit at `i` continues a name (`sbtest1`, `t2`, `$3`).
fn part_of_name(chars: &[char], i: usize) -> bool {
    i > 0 && {
        let before = chars[i - 1];
        before.is_alphanumeric() || before == '_' || before == '$'
    }
}

/// The end of the number starting at `i`: digits, one fraction, an exponent, or a hex
/// or binary literal.
fn number_end(chars: &[char], i: usize) -> usize {
    let mut j = i;
    if chars[i] == '0' && matches!(chars.get(i + 1), Some('x' | 'b')) {
        j += 2;
        while j < chars.len() && chars[j].is_ascii_hexdigit() {
            j += 1;
        }
        return j;
    }
    while j < chars.len() && chars[j].is_ascii_digit() {
        j += 1;
    }
    if chars.get(j) == Some(&'.') && chars.get(j + 1).is_some_and(char::is_ascii_digit) {
        j += 1;
        while j < chars.len() && chars[j].is_ascii_digit() {
            j += 1;
        }
    }
    if matches!(chars.get(j), Some('e' | 'E')) {
        let mut k = j + 1;
        if matches!(chars.get(k), Some('+' | '-')) {
            k += 1;
        }
        if chars.get(k).is_some_and(char::is_ascii_digit) {
            j = k;
            while j < chars.len() && chars[j].is_ascii_digit() {
                j += 1;
            }
        }
    }
    j
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_number_ending_the_first_tables_name_is_a_table_literal() {
        let cases = [
            (
                "SELECT a FROM db.t_2024_01 WHERE c3 = 1",
                "SELECT a FROM db.t_2024_{} WHERE c3 = {}",
                "01",
            ),
            (
                "UPDATE sbtest2 SET k = k + 1",
                "UPDATE sbtest{} SET k = k + {}",
                "2",
            ),
            (
                "INSERT INTO sbtest3 (id) VALUES (4)",
                "INSERT INTO sbtest{} (id) VALUES ({})",
                "3",
            ),
            (
                "SELECT x FROM a JOIN b7 ON a.id = b7.id",
                "SELECT x FROM a JOIN b{} ON a.id = b7.id",
                "7",
            ),
        ];
        for (sql, expected, table) in cases {
            let (template, literals) = split(sql).unwrap();
            assert_eq!(template, expected);
            assert_eq!(literals[0], Literal::Table(table.into()), "{sql}");
        }
        // Only the first table folds; names elsewhere (columns, indexes) never do.
        let (template, literals) =
            split("SELECT k_1, c2 FROM sbtest1 JOIN sbtest2 USING (id)").unwrap();
        assert_eq!(
            template,
            "SELECT k_1, c2 FROM sbtest{} JOIN sbtest2 USING (id)"
        );
        assert_eq!(literals, [Literal::Table("1".into())]);
        let (template, _) = split("SELECT 1 FROM `sbtest1`").unwrap();
        assert_eq!(template, "SELECT {} FROM `sbtest1`");
    }

    #[test]
    fn literals_leave_names_and_keywords_alone() {
        let (template, literals) =
            split("SELECT c FROM sbtest12 WHERE id BETWEEN 5 AND 104 AND pad = 'a''b\\'c'")
                .unwrap();
        assert_eq!(
            template,
            "SELECT c FROM sbtest{} WHERE id BETWEEN {} AND {} AND pad = {}"
        );
        assert_eq!(
            literals,
            [
                Literal::Table("12".into()),
                Literal::Int(5),
                Literal::Int(104),
                Literal::Text("a'b'c".into())
            ]
        );
    }

    #[test]
    fn decimals_comments_and_hex_are_read_as_mysql_reads_them() {
        let (template, literals) =
            split("UPDATE t /* why */ SET x = 1.5e3, y = 0xFF -- done\n WHERE `a1` = 2").unwrap();
        assert_eq!(
            template,
            "UPDATE t  SET x = {}, y = 0xFF \n WHERE `a1` = {}"
        );
        assert_eq!(
            literals,
            [Literal::Decimal("1.5e3".into()), Literal::Int(2)]
        );
        assert!(split("SELECT '{unclosed").is_err());
        assert_eq!(
            split("SHOW GLOBAL STATUS LIKE 'Com\\_%'").unwrap(),
            ("SHOW GLOBAL STATUS LIKE 'Com\\_%'".to_string(), vec![])
        );
        assert!(split("SELECT {fn NOW()}").is_err());
        assert_eq!(split("SELECT .5 + t.c1").unwrap().0, "SELECT {} + t.c1");
        assert_eq!(split("SELECT '{}'").unwrap().0, "SELECT {}");
    }

    #[test]
    fn literal_forms_a_parameter_cannot_hold_stay_as_written() {
        for (sql, template) in [
            ("SELECT X'78', x'7a'", "SELECT X'78', x'7a'"),
            ("SELECT b'101' = 5", "SELECT b'101' = {}"),
            ("SELECT _utf8mb4'x' = c", "SELECT _utf8mb4'x' = c"),
            ("SELECT N'x'", "SELECT N'x'"),
            (
                "SELECT c FROM t WHERE d > DATE '2020-01-01' AND e < TIMESTAMP '2021-01-01 00:00:00'",
                "SELECT c FROM t WHERE d > DATE '2020-01-01' AND e < TIMESTAMP '2021-01-01 00:00:00'",
            ),
            ("SELECT -5, 1e3, .5", "SELECT -{}, {}, {}"),
            (
                "SELECT c FROM t WHERE name = 'x'",
                "SELECT c FROM t WHERE name = {}",
            ),
        ] {
            assert_eq!(split(sql).unwrap().0, template, "{sql}");
        }
        assert!(split("SELECT _utf8mb4'{x}'").is_err());
    }

    #[test]
    fn an_in_list_of_any_length_is_one_slot() {
        let ints = |ns: &[i64]| Literal::List(ns.iter().map(|&n| Literal::Int(n)).collect());
        for (sql, list) in [
            ("SELECT c FROM t WHERE k IN (1, 2)", ints(&[1, 2])),
            ("SELECT c FROM t WHERE k IN(1,2,3)", ints(&[1, 2, 3])),
            ("SELECT c FROM t WHERE k in ( -4 , 5 )", ints(&[-4, 5])),
            ("SELECT c FROM t WHERE k IN (7)", ints(&[7])),
        ] {
            let (template, literals) = split(sql).unwrap();
            assert!(
                template.ends_with("IN ({})")
                    || template.ends_with("in ({})")
                    || template.ends_with("IN({})"),
                "{template}"
            );
            assert_eq!(literals, [list], "{sql}");
        }
        let (template, literals) =
            split("SELECT c FROM t WHERE name NOT IN ('a', \"b\", 'c''d') AND x = 1.5").unwrap();
        assert_eq!(
            template,
            "SELECT c FROM t WHERE name NOT IN ({}) AND x = {}"
        );
        assert_eq!(
            literals,
            [
                Literal::List(vec![
                    Literal::Text("a".into()),
                    Literal::Text("b".into()),
                    Literal::Text("c'd".into())
                ]),
                Literal::Decimal("1.5".into())
            ]
        );
        // Anything but literals keeps its slots one by one, as before.
        for (sql, template) in [
            (
                "SELECT c FROM t WHERE k IN (1, k + 2)",
                "SELECT c FROM t WHERE k IN ({}, k + {})",
            ),
            (
                "SELECT c FROM t WHERE k IN (SELECT 1)",
                "SELECT c FROM t WHERE k IN (SELECT {})",
            ),
            (
                "SELECT c FROM t WHERE k IN (0x1F, 2)",
                "SELECT c FROM t WHERE k IN (0x1F, {})",
            ),
            (
                "SELECT c FROM t WHERE k = min(1, 2)",
                "SELECT c FROM t WHERE k = min({}, {})",
            ),
            (
                "SELECT c FROM t WHERE login(1)",
                "SELECT c FROM t WHERE login({})",
            ),
        ] {
            assert_eq!(split(sql).unwrap().0, template, "{sql}");
        }
    }
}
