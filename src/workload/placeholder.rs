//! The `{…}` placeholders of a workload file's statement: `{id}` is a parameter's value,
//! `{id + 99}` (or `{id - 5}`) that value plus a whole number, computed by the client and
//! bound like any value. A range that keeps its width is then `BETWEEN {id} AND
//! {id + 99}`: the server receives two values, so the statement it runs — and logs — is
//! the statement the application ran (`BETWEEN 5 AND 104`), not an expression
//! (`BETWEEN 5 AND 5 + 99`) that pt-query-digest counts as another query class.
//!
//! A `pair` parameter is two values drawn together, the ends of a captured range:
//! `{created_at.low}` is its first, `{created_at.high}` its second, so a replay never
//! pairs a low end with a high end production did not send with it.

use mysql::Value;

/// One placeholder: a parameter and a constant added to its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Placeholder<'a> {
    /// The parameter.
    pub(crate) name: &'a str,
    /// Which of its values: all of them, or one end of a pair.
    pub(crate) part: Part,
    /// Added to its value (0 for `{name}`).
    pub(crate) offset: i64,
}

/// Which of a parameter's drawn values a placeholder stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Part {
    /// Every value: one for most parameters, each element of a list.
    Whole,
    /// A pair's first value (`{name.low}`).
    Low,
    /// A pair's second value (`{name.high}`).
    High,
}

impl Part {
    /// The drawn values this part binds, from all of a parameter's drawn values.
    pub(crate) fn of(self, drawn: &[Value]) -> &[Value] {
        match self {
            Part::Whole => drawn,
            Part::Low => &drawn[..drawn.len().min(1)],
            Part::High => drawn.get(1..2).unwrap_or_default(),
        }
    }
}

/// The placeholders of `sql`, in order, or what is wrong with one.
pub(crate) fn placeholders(sql: &str) -> Result<Vec<Placeholder<'_>>, String> {
    let mut found = Vec::new();
    let mut rest = sql;
    while let Some(start) = rest.find('{') {
        let after = &rest[start + 1..];
        let end = after
            .find('}')
            .ok_or_else(|| format!("unclosed `{{` in `{sql}`"))?;
        found.push(parse(after[..end].trim())?);
        rest = &after[end + 1..];
    }
    Ok(found)
}

/// The placeholder written `{inside}`.
pub(crate) fn parse(inside: &str) -> Result<Placeholder<'_>, String> {
    let whole = |name| Placeholder {
        name,
        part: Part::Whole,
        offset: 0,
    };
    let Some(at) = inside.find(['+', '-']) else {
        return Ok(with_part(whole(inside)));
    };
    let (name, by) = (inside[..at].trim(), inside[at + 1..].trim());
    let Ok(magnitude) = by.parse::<i64>() else {
        // Not an offset: a name with a dash, checked against the parameters as it is.
        return Ok(whole(inside));
    };
    let offset = if inside.as_bytes()[at] == b'-' {
        -magnitude
    } else {
        magnitude
    };
    Ok(with_part(Placeholder {
        offset,
        ..whole(name)
    }))
}

/// `name.low` and `name.high` name an end of the pair `name`.
fn with_part(placeholder: Placeholder<'_>) -> Placeholder<'_> {
    let name = placeholder.name;
    let (base, part) = match name.rsplit_once('.') {
        Some((base, "low")) => (base, Part::Low),
        Some((base, "high")) => (base, Part::High),
        _ => (name, Part::Whole),
    };
    Placeholder {
        name: base.trim_end(),
        part,
        ..placeholder
    }
}

/// `value` plus `offset`: a whole number moved by it, anything else (a string, or
/// an offset of 0) as it is.
pub(crate) fn offset(value: &Value, offset: i64) -> Value {
    if offset == 0 {
        return value.clone();
    }
    match value {
        Value::Int(n) => Value::Int(n.saturating_add(offset)),
        Value::UInt(n) => Value::Int(i64::try_from(*n).unwrap_or(i64::MAX).saturating_add(offset)),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_placeholder_is_a_name_and_an_offset() {
        let found =
            placeholders("SELECT c FROM t WHERE id BETWEEN {id} AND { id + 99 } OR k = {k-5}")
                .unwrap();
        let pairs: Vec<(&str, i64)> = found.iter().map(|p| (p.name, p.offset)).collect();
        assert_eq!(pairs, [("id", 0), ("id", 99), ("k", -5)]);
        assert_eq!(placeholders("SELECT {id + x}").unwrap()[0].name, "id + x");
        assert!(placeholders("SELECT {id").is_err());
        let ends: Vec<(&str, Part, i64)> =
            placeholders("WHERE d BETWEEN {d.low} AND {d.high - 1} AND x = {a.b}")
                .unwrap()
                .iter()
                .map(|p| (p.name, p.part, p.offset))
                .collect();
        assert_eq!(
            ends,
            [
                ("d", Part::Low, 0),
                ("d", Part::High, -1),
                ("a.b", Part::Whole, 0)
            ]
        );
    }

    #[test]
    fn an_offset_moves_whole_numbers_only() {
        assert_eq!(offset(&Value::Int(5), 99), Value::Int(104));
        assert_eq!(offset(&Value::UInt(5), -6), Value::Int(-1));
        assert_eq!(offset(&Value::from("x"), 3), Value::from("x"));
    }
}
