//! The table a write statement changes, read from its code (comments gone, executable
//! comments unwrapped, as [`super::lexer`] reads it): the table after `INSERT … INTO`,
//! `REPLACE … INTO`, `UPDATE` and `DELETE … FROM`, with its schema when it is written
//! with one. A replay that keeps its data puts these tables back; what a trigger or a
//! multi-table statement also changes is found by comparing every table's checksum.

use super::lexer::{self, Reading};

/// A plain single-row INSERT with a column list (`INSERT INTO t (a, b) VALUES (?, ?)`,
/// no `SELECT`, no `ON DUPLICATE KEY UPDATE`, no second row): the table it writes and,
/// for each column of its list, the number of the `?` that is the column's whole value
/// (none where the value is an expression or a constant), `?` counted through the
/// statement's code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PlainInsert {
    /// The table, as [`written_table`] reads it.
    pub(crate) table: String,
    /// Each listed column with the `?` it is bound to alone.
    pub(crate) columns: Vec<(String, Option<usize>)>,
}

/// `sql` read as a [`PlainInsert`]; none for any other statement.
pub(crate) fn plain_insert(sql: &str) -> Option<PlainInsert> {
    let code = lexer::statements(sql, Reading::BackslashEscapes).ok()?;
    let [code] = code.as_slice() else {
        return None;
    };
    let words = words(&code.text);
    let mut rest = words.iter().map(String::as_str).peekable();
    if !rest.next()?.eq_ignore_ascii_case("insert") {
        return None;
    }
    let mut rest = rest.skip_while(|w| MODIFIERS.contains(&w.to_ascii_lowercase().as_str()));
    let mut table = rest.next()?;
    if table.eq_ignore_ascii_case("into") {
        table = rest.next()?;
    }
    if rest.next()? != "(" {
        return None;
    }
    let mut names = Vec::new();
    loop {
        names.push(rest.next()?.to_string());
        match rest.next()? {
            "," => continue,
            ")" => break,
            _ => return None,
        }
    }
    let slots = row_slots(&code.tokens)?;
    (slots.len() == names.len()).then(|| PlainInsert {
        table: table.to_string(),
        columns: names.into_iter().zip(slots).collect(),
    })
}

/// For each value of the one row after `VALUES` (the first `)` closes the column
/// list), the number of its `?` when it is nothing else; none when the statement goes
/// on after the row.
fn row_slots(tokens: &[String]) -> Option<Vec<Option<usize>>> {
    let close = tokens.iter().position(|t| t == ")")?;
    let mut rest = tokens[close + 1..].iter().map(String::as_str);
    if !matches!(rest.next()?, "values" | "value") || rest.next()? != "(" {
        return None;
    }
    let (mut slots, mut item, mut depth, mut marks) = (Vec::new(), Vec::new(), 0usize, 0);
    for token in rest.by_ref() {
        match (token, depth) {
            (")" | ",", 0) => {
                let alone = (item.as_slice() == ["?"]).then(|| marks - 1);
                slots.push(alone);
                item.clear();
                if token == ")" {
                    return rest.next().is_none().then_some(slots);
                }
                continue;
            }
            ("(", _) => depth += 1,
            (")", _) => depth -= 1,
            ("?", _) => marks += 1,
            _ => {}
        }
        item.push(token);
    }
    None
}

/// Words between a statement's first keyword and the table it writes.
const MODIFIERS: &[&str] = &[
    "low_priority",
    "delayed",
    "high_priority",
    "ignore",
    "quick",
];

/// The table `sql` writes (`db.t` when qualified), as written with quotes removed;
/// `None` for a statement that is not an INSERT, REPLACE, UPDATE or DELETE.
pub(crate) fn written_table(sql: &str) -> Option<String> {
    let code = lexer::statements(sql, Reading::BackslashEscapes).ok()?;
    let words = words(&code.first()?.text);
    let mut rest = words.iter().map(String::as_str);
    let first = rest.next()?.to_ascii_lowercase();
    let mut rest = rest.skip_while(|w| MODIFIERS.contains(&w.to_ascii_lowercase().as_str()));
    let name = match first.as_str() {
        "insert" | "replace" => rest
            .find(|w| !w.eq_ignore_ascii_case("into"))
            .map(str::to_string),
        "update" => rest.next().map(str::to_string),
        "delete" => {
            let words: Vec<&str> = rest.collect();
            let from = words.iter().position(|w| w.eq_ignore_ascii_case("from"));
            match from {
                Some(0) => words.get(1).map(|w| w.to_string()),
                Some(_) => words.first().map(|w| w.to_string()),
                None => None,
            }
        }
        _ => None,
    }?;
    (!name.is_empty() && !name.starts_with('(')).then_some(name)
}

/// The words of `code`: bare words, quoted names with their quotes gone and a dotted
/// name (`db`.`t`) joined; any other character ends a word and is a word of its own.
fn words(code: &str) -> Vec<String> {
    let chars: Vec<char> = code.chars().collect();
    let mut words = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let (word, next) = name_at(&chars, i).unwrap_or_else(|| (c.to_string(), i + 1));
        words.push(word);
        i = next;
    }
    words
}

/// A name starting at `i` (`t`, `` `t` ``, `db.t`, `` `db`.`t` ``) and where it ends.
fn name_at(chars: &[char], start: usize) -> Option<(String, usize)> {
    let mut name = String::new();
    let mut i = start;
    loop {
        let (part, next) = if chars.get(i) == Some(&'`') {
            let end = lexer::quote_end(chars, i, Reading::NoBackslashEscapes).ok()?;
            let inner: String = chars[i + 1..end - 1].iter().collect();
            (inner.replace("``", "`"), end)
        } else {
            let end = lexer::word_end(chars, i);
            if end == i {
                return None;
            }
            (chars[i..end].iter().collect(), end)
        };
        name.push_str(&part);
        if chars.get(next) == Some(&'.') && chars.get(next + 1).is_some_and(|c| !c.is_whitespace())
        {
            name.push('.');
            i = next + 1;
        } else {
            return Some((name, next));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{PlainInsert, plain_insert, written_table};

    #[test]
    fn a_plain_insert_names_the_placeholder_each_column_is_bound_to() {
        let columns = |pairs: &[(&str, Option<usize>)]| {
            pairs
                .iter()
                .map(|(c, s)| (c.to_string(), *s))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            plain_insert(
                "INSERT INTO shop.orders (`id`, c, d, e) VALUES (?, CONCAT(?, '?,'), 5, ?)"
            ),
            Some(PlainInsert {
                table: "shop.orders".into(),
                columns: columns(&[("id", Some(0)), ("c", None), ("d", None), ("e", Some(2))]),
            })
        );
        assert_eq!(
            plain_insert("insert ignore orders (id) value (?)").map(|p| p.columns),
            Some(columns(&[("id", Some(0))]))
        );
        for other in [
            "INSERT INTO t VALUES (?)",
            "INSERT INTO t (id) VALUES (?), (?)",
            "INSERT INTO t (id) VALUES (?) ON DUPLICATE KEY UPDATE id = id",
            "INSERT INTO t (id) SELECT ?",
            "INSERT INTO t (id, k) VALUES (?)",
            "REPLACE INTO t (id) VALUES (?)",
            "INSERT INTO t SET id = ?",
            "INSERT INTO t (id) VALUES (?); DELETE FROM t",
            "UPDATE t SET id = ?",
        ] {
            assert_eq!(plain_insert(other), None, "{other}");
        }
    }

    #[test]
    fn the_table_a_write_changes_is_read_from_its_code() {
        for (sql, table) in [
            ("INSERT INTO orders (id) VALUES (?)", Some("orders")),
            (
                "insert low_priority ignore into `Order Items` VALUES (?)",
                Some("Order Items"),
            ),
            ("REPLACE shop.orders SET id = ?", Some("shop.orders")),
            (
                "/* app */ UPDATE `shop`.`orders` SET n = n + 1",
                Some("shop.orders"),
            ),
            ("UPDATE LOW_PRIORITY IGNORE t1 SET k = 1", Some("t1")),
            ("DELETE FROM sbtest3 WHERE id = ?", Some("sbtest3")),
            ("DELETE QUICK IGNORE FROM t WHERE id = 1", Some("t")),
            ("DELETE t1 FROM t1 JOIN t2 USING (id)", Some("t1")),
            ("SELECT * FROM orders", None),
            ("DELETE", None),
            ("INSERT INTO", None),
        ] {
            assert_eq!(written_table(sql).as_deref(), table, "{sql}");
        }
    }
}
