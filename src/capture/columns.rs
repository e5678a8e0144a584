//! What a captured slot stands for, read from the text around it: the column it binds
//! to (`customer_id = {}`, `c IN ({})`, `d BETWEEN {} AND {}`, an INSERT's column list),
//! so its parameter gets the column's name instead of a number; and which two slots are
//! the ends of one range (`BETWEEN {} AND {}`, `d >= {} AND d < {}`), so they are drawn
//! together and the replay keeps the width and the order production sent.
//!
//! Slots are numbered through a transaction's templates, as the mix numbers them. A
//! slot with no column next to it (in the select list, after LIMIT, in `k + {}`) has no
//! name here; the file then names it by its class and number.

use super::template::SLOT;

/// Comparison operators a column stands before, longest first.
const OPERATORS: &[&str] = &["<=>", ">=", "<=", "<>", "!=", "=", "<", ">"];

/// The column each slot binds to, slots numbered through `templates`.
pub(crate) fn columns(templates: &[String]) -> Vec<Option<String>> {
    let mut found = Vec::new();
    for template in templates {
        let pieces: Vec<&str> = template.split(SLOT).collect();
        let inserted = inserted_columns(&pieces);
        for (slot, before) in pieces.iter().enumerate().take(pieces.len() - 1) {
            let named = column_before(before).or_else(|| inserted[slot].clone());
            found.push(named);
        }
    }
    found
}

/// The slots that are the low and the high end of one range, as (low, high).
pub(crate) fn range_pairs(templates: &[String]) -> Vec<(usize, usize)> {
    let mut pairs = Vec::new();
    let mut first = 0;
    for template in templates {
        let pieces: Vec<&str> = template.split(SLOT).collect();
        let slots = pieces.len() - 1;
        for slot in 0..slots.saturating_sub(1) {
            if ends_a_range(pieces[slot], pieces[slot + 1]) {
                pairs.push((first + slot, first + slot + 1));
            }
        }
        first += slots;
    }
    pairs
}

/// Whether the slot after `before` and the one after `between` are one range's ends:
/// `x BETWEEN {} AND {}`, or `x >(=) {} AND x <(=) {}` on the same `x`.
fn ends_a_range(before: &str, between: &str) -> bool {
    let Some(rest) = strip_word(between.trim(), "and") else {
        return false;
    };
    if rest.is_empty() {
        return strip_word_at_end(before.trim_end(), "between").is_some();
    }
    let low = operator_at_end(before).filter(|(_, op)| matches!(*op, ">" | ">="));
    let high = operator_at_end(rest).filter(|(_, op)| matches!(*op, "<" | "<="));
    match (low, high) {
        (Some((low_side, _)), Some((high_side, _))) => {
            let column = trailing_name(low_side.trim_end());
            !column.is_empty() && high_side.trim().eq_ignore_ascii_case(column)
        }
        _ => false,
    }
}

/// The column the slot after `before` binds to: the name before a comparison, LIKE,
/// BETWEEN or `IN (`.
fn column_before(before: &str) -> Option<String> {
    let text = before.trim_end();
    let side = match operator_at_end(text) {
        Some((side, _)) => side,
        None => {
            let text = text.strip_suffix('(').map_or(text, str::trim_end);
            ["in", "like", "between"]
                .iter()
                .find_map(|word| strip_word_at_end(text, word))?
        }
    };
    let side = side.trim_end();
    let side = strip_word_at_end(side, "not").unwrap_or(side);
    name_of(trailing_name(side.trim_end()))
}

/// The columns of an INSERT's (or REPLACE's) column list for the slots that are the
/// plain values of its first row, by slot of the template.
fn inserted_columns(pieces: &[&str]) -> Vec<Option<String>> {
    let mut named = vec![None; pieces.len()];
    let mut list: Vec<String> = Vec::new();
    let mut position = None;
    for (slot, before) in pieces.iter().enumerate().take(pieces.len() - 1) {
        let lower = before.trim_end().to_ascii_lowercase();
        position = if let Some(head) = lower
            .strip_suffix('(')
            .map(str::trim_end)
            .and_then(|t| t.strip_suffix("values"))
        {
            list = column_list(&before[..head.len()]);
            Some(0)
        } else if before.trim() == "," {
            position.map(|p| p + 1)
        } else {
            None
        };
        named[slot] = position.and_then(|p| list.get(p).cloned());
    }
    named
}

/// The names of the parenthesised list that ends `text` (`t (a, `b`, c)`).
fn column_list(text: &str) -> Vec<String> {
    let text = text.trim_end();
    let Some(inside) = text
        .strip_suffix(')')
        .and_then(|t| t.rfind('(').map(|at| &t[at + 1..]))
    else {
        return Vec::new();
    };
    inside
        .split(',')
        .map(|name| name_of(trailing_name(name.trim())).unwrap_or_default())
        .collect()
}

/// `text` without the comparison operator it ends with, and that operator.
fn operator_at_end(text: &str) -> Option<(&str, &'static str)> {
    let text = text.trim_end();
    OPERATORS
        .iter()
        .find_map(|op| Some((text.strip_suffix(op)?, *op)))
}

/// `text` without the keyword `word` it ends with (a whole word, any case).
fn strip_word_at_end<'a>(text: &'a str, word: &str) -> Option<&'a str> {
    let cut = text.len().checked_sub(word.len())?;
    let (head, tail) = (text.get(..cut)?, &text[cut..]);
    let whole = !head.ends_with(|c: char| c.is_alphanumeric() || c == '_');
    (tail.eq_ignore_ascii_case(word) && whole).then_some(head)
}

/// `text` without the keyword `word` it starts with (a whole word, any case), trimmed.
fn strip_word<'a>(text: &'a str, word: &str) -> Option<&'a str> {
    let (head, tail) = (text.get(..word.len())?, &text[word.len()..]);
    let whole = !tail.starts_with(|c: char| c.is_alphanumeric() || c == '_');
    (head.eq_ignore_ascii_case(word) && whole).then(|| tail.trim())
}

/// The name `text` ends with, qualifiers and back quotes included (`o.`created_at``).
fn trailing_name(text: &str) -> &str {
    let name_char = |c: char| c.is_alphanumeric() || matches!(c, '_' | '$' | '.' | '`');
    let start = text
        .char_indices()
        .rev()
        .take_while(|&(_, c)| name_char(c))
        .last()
        .map_or(text.len(), |(at, _)| at);
    &text[start..]
}

/// A parameter name for the column written `name`: its last part, back quotes gone, only
/// letters, digits and `_`; none for a keyword-less blank or a number.
fn name_of(name: &str) -> Option<String> {
    let last = name
        .rsplit('.')
        .next()
        .unwrap_or_default()
        .trim_matches('`');
    let clean: String = last
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    let keyword = matches!(
        clean.to_ascii_lowercase().as_str(),
        "and" | "or" | "not" | "where" | "on" | "set" | "select" | "having" | "when" | "then"
    );
    (!clean.is_empty() && !clean.starts_with(|c: char| c.is_ascii_digit()) && !keyword)
        .then_some(clean)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn templates(sql: &[&str]) -> Vec<String> {
        sql.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_slot_is_named_by_the_column_next_to_it() {
        let found = columns(&templates(&[
            "SELECT {} FROM orders o WHERE o.customer_id = {} AND `status` <> {} AND name NOT LIKE {}",
            "SELECT c FROM t WHERE k IN ({}) AND d BETWEEN {} AND {} AND x >= {} LIMIT {}",
            "INSERT INTO sbtest{} (id, `k`, c) VALUES ({}, {}, {})",
            "UPDATE t SET k = k + {}, c = {} WHERE id={}",
        ]));
        let names: Vec<Option<&str>> = found.iter().map(Option::as_deref).collect();
        assert_eq!(
            names,
            [
                None,
                Some("customer_id"),
                Some("status"),
                Some("name"),
                Some("k"),
                Some("d"),
                None,
                Some("x"),
                None,
                None,
                Some("id"),
                Some("k"),
                Some("c"),
                None,
                Some("c"),
                Some("id"),
            ]
        );
    }

    #[test]
    fn the_ends_of_a_range_are_found_as_a_pair() {
        let pairs = range_pairs(&templates(&[
            "SELECT c FROM t WHERE id BETWEEN {} AND {}",
            "SELECT c FROM t WHERE k = {} AND d >= {} AND d < {} AND e > {} AND f < {}",
            "SELECT c FROM t WHERE a = {} AND b = {}",
            "SELECT c FROM t WHERE o.d > {} and o.d <= {}",
        ]));
        assert_eq!(pairs, [(0, 1), (3, 4), (9, 10)]);
    }
}
