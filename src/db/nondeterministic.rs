//! Statements whose answers change on their own, read from their code: functions whose
//! value depends on the time, on randomness, on the session or on the server (`NOW()`,
//! `RAND()`, `UUID()`, `CONNECTION_ID()`, `VERSION()`, …), user and system variables
//! (`@x`, `@@version`), sequences (`NEXTVAL`, `NEXT VALUE FOR`), locks and sleeps, and
//! a `LIMIT` without an `ORDER BY` (any N of the matching rows).
//!
//! Two servers asked such a statement answer differently even when nothing changed
//! between them, so the answers check must not call that a difference: this reading
//! says which output columns hold such a value (only those are left out), or that the
//! rows themselves depend on it (then only their count and the columns are compared).
//! A time function outside the select list (`WHERE created > NOW() - INTERVAL 1 DAY`)
//! leaves the rows to the check's own test: the same statement run again on the first
//! side, just after the other side, agrees with its first answer when the moment did
//! not matter. It also reads the outer `ORDER BY` keys of a statement with a `LIMIT`,
//! for the rows tied where the `LIMIT` cuts (`crate::answers::ties` compares them).
//! The reading uses the project's lexer, so a name in a string, a quoted
//! name or a comment is not taken for a function.

use super::lexer::{self, Reading};

/// What in a statement's answer depends on more than the data.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Nondeterminism {
    /// Why, for people: `NOW() depends on the time of the call`, one per cause.
    pub(crate) reasons: Vec<String>,
    /// The output columns (from 0) whose values depend on it.
    pub(crate) columns: Vec<usize>,
    /// Whether which rows come back depends on it (a session's or a random value outside
    /// the select list, or in a list whose columns cannot be told apart).
    pub(crate) rows: bool,
    /// A `LIMIT` without an `ORDER BY`: the rows depend on the plan when it cuts.
    pub(crate) limit: Option<Limit>,
}

/// The row count of a `LIMIT` without `ORDER BY`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Limit {
    /// Written in the statement.
    Count(u64),
    /// The statement's `?` parameter with this index (from 0).
    Param(usize),
    /// Not known (a placeholder of a template, an expression).
    Unknown,
}

impl Nondeterminism {
    /// The reasons in one line.
    pub(crate) fn reason(&self) -> String {
        self.reasons.join("; ")
    }
}

/// What kind of value a function gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Time,
    Random,
    Session,
    Server,
    Sequence,
    Lock,
}

/// The functions, lower case, with their kind and whether they may be written without
/// parentheses (`CURRENT_DATE`).
const FUNCTIONS: &[(&str, Kind, bool)] = &[
    ("now", Kind::Time, false),
    ("sysdate", Kind::Time, false),
    ("curdate", Kind::Time, false),
    ("curtime", Kind::Time, false),
    ("current_date", Kind::Time, true),
    ("current_time", Kind::Time, true),
    ("current_timestamp", Kind::Time, true),
    ("localtime", Kind::Time, true),
    ("localtimestamp", Kind::Time, true),
    ("utc_date", Kind::Time, true),
    ("utc_time", Kind::Time, true),
    ("utc_timestamp", Kind::Time, true),
    ("rand", Kind::Random, false),
    ("uuid", Kind::Random, false),
    ("uuid_short", Kind::Random, false),
    ("sys_guid", Kind::Random, false),
    ("random_bytes", Kind::Random, false),
    ("connection_id", Kind::Session, false),
    ("last_insert_id", Kind::Session, false),
    ("found_rows", Kind::Session, false),
    ("row_count", Kind::Session, false),
    ("user", Kind::Session, false),
    ("current_user", Kind::Session, true),
    ("current_role", Kind::Session, true),
    ("session_user", Kind::Session, false),
    ("system_user", Kind::Session, false),
    ("database", Kind::Session, false),
    ("schema", Kind::Session, false),
    ("version", Kind::Server, false),
    ("nextval", Kind::Sequence, false),
    ("lastval", Kind::Sequence, false),
    ("setval", Kind::Sequence, false),
    ("sleep", Kind::Lock, false),
    ("benchmark", Kind::Lock, false),
    ("get_lock", Kind::Lock, false),
    ("release_lock", Kind::Lock, false),
    ("release_all_locks", Kind::Lock, false),
    ("is_free_lock", Kind::Lock, false),
    ("is_used_lock", Kind::Lock, false),
    ("master_pos_wait", Kind::Lock, false),
];

/// What in `sql`'s answer depends on more than the data; `None` when nothing does (or
/// the text cannot be read: then the check's own test still applies).
pub(crate) fn classify(sql: &str) -> Option<Nondeterminism> {
    let statements = lexer::statements(sql, Reading::BackslashEscapes).ok()?;
    let tokens = &statements.first()?.tokens;
    let list = select_list(tokens);
    let mut found = Nondeterminism::default();
    for (at, kind, reason) in hits(tokens) {
        if !found.reasons.contains(&reason) {
            found.reasons.push(reason);
        }
        match list.as_ref().and_then(|l| l.item_at(at)) {
            Some(column) if !found.columns.contains(&column) => found.columns.push(column),
            Some(_) => {}
            None if list.as_ref().is_some_and(|l| l.covers(at)) => found.rows = true,
            None => found.rows |= kind != Kind::Time,
        }
    }
    found.limit = limit_without_order(tokens);
    if found.limit.is_some() {
        found
            .reasons
            .push("LIMIT without ORDER BY returns any rows that match, up to its count".into());
    }
    found.columns.sort_unstable();
    (!found.reasons.is_empty()).then_some(found)
}

/// Whether the outer query of `sql` has an `ORDER BY` (a subquery's does not count).
pub(crate) fn orders(sql: &str) -> bool {
    let Ok(statements) = lexer::statements(sql, Reading::BackslashEscapes) else {
        return false;
    };
    let Some(tokens) = statements.first().map(|s| &s.tokens) else {
        return false;
    };
    let depths = depths(tokens);
    (0..tokens.len().saturating_sub(1))
        .any(|i| depths[i] == 0 && tokens[i] == "order" && tokens[i + 1] == "by")
}

/// Every function call or variable whose value depends on more than the data, with its
/// token index, kind and reason.
fn hits(tokens: &[String]) -> Vec<(usize, Kind, String)> {
    let at = |i: usize| tokens.get(i).map_or("", String::as_str);
    let mut found = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let after_dot = i > 0 && at(i - 1) == ".";
        match at(i) {
            "@" if at(i + 1) == "@" => {
                let name = system_variable(tokens, i + 2);
                found.push((i, Kind::Server, format!("@@{name} is the server's setting")));
                i += 2;
            }
            "@" if i > 0 && at(i - 1) == "'" => {}
            "@" if !at(i + 1).is_empty() => {
                let name = if at(i + 1) == "'" || at(i + 1) == "`" {
                    "…".to_string()
                } else {
                    at(i + 1).to_string()
                };
                found.push((
                    i,
                    Kind::Session,
                    format!("@{name} (a user variable) depends on the session"),
                ));
                i += 1;
            }
            "next" | "previous" if at(i + 1) == "value" && at(i + 2) == "for" => {
                let words = format!("{} VALUE FOR", at(i).to_uppercase());
                found.push((i, Kind::Sequence, format!("{words} reads a sequence")));
                i += 2;
            }
            "unix_timestamp" if !after_dot && at(i + 1) == "(" && at(i + 2) == ")" => {
                found.push((i, Kind::Time, reason("unix_timestamp", Kind::Time, true)));
            }
            word if !after_dot => {
                let call = at(i + 1) == "(";
                if let Some((_, kind, _)) = FUNCTIONS
                    .iter()
                    .find(|(name, _, bare)| *name == word && (call || *bare))
                {
                    found.push((i, *kind, reason(word, *kind, call)));
                }
            }
            _ => {}
        }
        i += 1;
    }
    found
}

/// The name of the system variable whose tokens start at `from`: `version`,
/// `session.sql_mode`.
fn system_variable(tokens: &[String], from: usize) -> String {
    let at = |i: usize| tokens.get(i).map_or("", String::as_str);
    if matches!(at(from), "global" | "session" | "local") && at(from + 1) == "." {
        format!("{}.{}", at(from), at(from + 2))
    } else {
        at(from).to_string()
    }
}

/// Why a function's value changes, in words.
fn reason(name: &str, kind: Kind, call: bool) -> String {
    let name = if call {
        format!("{}()", name.to_uppercase())
    } else {
        name.to_uppercase()
    };
    let why = match kind {
        Kind::Time => "depends on the time of the call",
        Kind::Random => "is random",
        Kind::Session => "depends on the session",
        Kind::Server => "depends on the server",
        Kind::Sequence => "reads a sequence",
        Kind::Lock => "depends on locks and timing",
    };
    format!("{name} {why}")
}

/// The outer statement's select list: each item's tokens, and whether its columns can be
/// told apart (no `*`, no `UNION`).
struct SelectList {
    items: Vec<(usize, usize)>,
    countable: bool,
}

impl SelectList {
    /// The output column whose item holds the token at `at`, when columns can be told
    /// apart.
    fn item_at(&self, at: usize) -> Option<usize> {
        if !self.countable {
            return None;
        }
        self.items
            .iter()
            .position(|&(start, end)| (start..end).contains(&at))
    }

    /// Whether the token at `at` lies in the select list.
    fn covers(&self, at: usize) -> bool {
        let (Some(first), Some(last)) = (self.items.first(), self.items.last()) else {
            return false;
        };
        (first.0..last.1).contains(&at)
    }
}

/// The words that end a select list.
const LIST_ENDS: &[&str] = &[
    "from",
    "into",
    "where",
    "group",
    "having",
    "window",
    "order",
    "limit",
    "union",
    "except",
    "intersect",
    "for",
    "lock",
    "procedure",
];

/// The select list of the outer `SELECT` (the first one at depth 0).
fn select_list(tokens: &[String]) -> Option<SelectList> {
    let depths = depths(tokens);
    let start = (0..tokens.len()).find(|&i| tokens[i] == "select" && depths[i] == 0)? + 1;
    let end = (start..tokens.len())
        .find(|&i| depths[i] == 0 && LIST_ENDS.contains(&tokens[i].as_str()))
        .unwrap_or(tokens.len());
    let mut items = Vec::new();
    let mut item_start = start;
    for i in start..=end {
        if i == end || (depths[i] == 0 && tokens[i] == ",") {
            items.push((item_start, i));
            item_start = i + 1;
        }
    }
    let star = items
        .iter()
        .any(|&(s, e)| e > s && tokens[e - 1] == "*" && (e - s == 1 || tokens[e - 2] == "."));
    let union = (0..tokens.len())
        .any(|i| depths[i] == 0 && matches!(tokens[i].as_str(), "union" | "except" | "intersect"));
    Some(SelectList {
        items,
        countable: !star && !union,
    })
}

/// Each token's parenthesis depth (a `(` is at the depth it opens from).
fn depths(tokens: &[String]) -> Vec<usize> {
    let mut depth = 0usize;
    tokens
        .iter()
        .map(|t| match t.as_str() {
            "(" => {
                depth += 1;
                depth - 1
            }
            ")" => {
                depth = depth.saturating_sub(1);
                depth
            }
            _ => depth,
        })
        .collect()
}

/// The count of the first `LIMIT` that follows no `ORDER BY` of its own query.
fn limit_without_order(tokens: &[String]) -> Option<Limit> {
    let depths = depths(tokens);
    let at = |i: usize| tokens.get(i).map_or("", String::as_str);
    let mut ordered: Vec<bool> = Vec::new();
    for (i, &depth) in depths.iter().enumerate() {
        ordered.resize(depth + 1, false);
        match at(i) {
            "select" => ordered[depth] = false,
            "order" if at(i + 1) == "by" => ordered[depth] = true,
            "limit" if !ordered[depth] => return Some(limit_count(tokens, i + 1)),
            _ => {}
        }
    }
    None
}

/// A key of an outer `ORDER BY`: an output column by position (from 0) or a name (a
/// column or an alias, its table qualifier dropped), or an expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum OrderKey {
    Position(usize),
    Name(String),
    Expression,
}

/// The outer query's `ORDER BY` keys and its `LIMIT`'s count, when it has both: the
/// rows tied on the keys at the cut are any of the tied rows, as the plan meets them.
pub(crate) fn ordered_limit(sql: &str) -> Option<(Vec<OrderKey>, Limit)> {
    let statements = lexer::statements(sql, Reading::BackslashEscapes).ok()?;
    let tokens = &statements.first()?.tokens;
    let depths = depths(tokens);
    let outer = |i: usize| depths[i] == 0;
    let by = (0..tokens.len().saturating_sub(1))
        .find(|&i| outer(i) && tokens[i] == "order" && tokens[i + 1] == "by")?
        + 2;
    let limit = (by..tokens.len()).find(|&i| outer(i) && tokens[i] == "limit")?;
    let mut keys = Vec::new();
    let mut start = by;
    for i in by..=limit {
        if i == limit || (outer(i) && tokens[i] == ",") {
            keys.push(order_key(&tokens[start..i]));
            start = i + 1;
        }
    }
    Some((keys, limit_count(tokens, limit + 1)))
}

/// One `ORDER BY` key from its tokens (`sold desc`, `p . price`, `2`); a quoted name,
/// which the lexer keeps as one mark, is an expression here.
fn order_key(tokens: &[String]) -> OrderKey {
    let mut words: Vec<&str> = tokens.iter().map(String::as_str).collect();
    if matches!(words.last(), Some(&"asc" | &"desc")) {
        words.pop();
    }
    let name = |w: &str| {
        !w.is_empty()
            && w.chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
    };
    match words.as_slice() {
        [n] if n.chars().all(|c| c.is_ascii_digit()) => n
            .parse::<usize>()
            .ok()
            .and_then(|n| n.checked_sub(1))
            .map_or(OrderKey::Expression, OrderKey::Position),
        [n] if name(n) => OrderKey::Name(n.to_string()),
        [t, ".", n] if name(t) && name(n) => OrderKey::Name(n.to_string()),
        _ => OrderKey::Expression,
    }
}

/// The row count of the `LIMIT` whose arguments start at `from`: `n`, `offset, n`,
/// `n OFFSET offset`.
fn limit_count(tokens: &[String], from: usize) -> Limit {
    let at = |i: usize| tokens.get(i).map_or("", String::as_str);
    let count_at = if at(from + 1) == "," { from + 2 } else { from };
    match at(count_at) {
        "?" => Limit::Param(tokens[..count_at].iter().filter(|t| *t == "?").count()),
        word => word.parse().map_or(Limit::Unknown, Limit::Count),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(sql: &str) -> Nondeterminism {
        classify(sql).unwrap_or_else(|| panic!("{sql} should be non-deterministic"))
    }

    #[test]
    fn the_outer_order_by_keys_and_limit_are_read() {
        let (keys, limit) = ordered_limit(
            "SELECT p.id, SUM(o.qty) AS sold FROM o JOIN p ON p.id = o.p \
             GROUP BY p.id ORDER BY sold DESC, p.id, 1, LENGTH(c) LIMIT 5",
        )
        .unwrap();
        assert_eq!(
            keys,
            [
                OrderKey::Name("sold".into()),
                OrderKey::Name("id".into()),
                OrderKey::Position(0),
                OrderKey::Expression
            ]
        );
        assert_eq!(limit, Limit::Count(5));
        assert_eq!(ordered_limit("SELECT c FROM t ORDER BY c"), None);
        assert_eq!(
            ordered_limit("SELECT c FROM (SELECT c FROM t ORDER BY c LIMIT 3) x"),
            None,
            "the subquery's ORDER BY is not the answer's"
        );
        assert_eq!(
            ordered_limit("SELECT c FROM t ORDER BY c ASC LIMIT ?").unwrap(),
            (vec![OrderKey::Name("c".into())], Limit::Param(0))
        );
    }

    #[test]
    fn functions_of_time_chance_session_and_server_are_found_in_their_column() {
        let found = of("SELECT id, NOW(6), c FROM t WHERE id = ?");
        assert_eq!(found.columns, [1]);
        assert!(!found.rows);
        assert_eq!(found.reason(), "NOW() depends on the time of the call");
        let found = of("select uuid() as u, connection_id(), @@version, current_date from dual");
        assert_eq!(found.columns, [0, 1, 2, 3]);
        assert!(found.reason().contains("@@version is the server's setting"));
        assert!(found.reason().contains("CURRENT_DATE depends"));
        assert_eq!(
            of("SELECT @@session.sql_mode").reasons[0],
            "@@session.sql_mode is the server's setting"
        );
        assert_eq!(of("SELECT UNIX_TIMESTAMP()").columns, [0]);
        assert_eq!(
            of("SELECT NEXT VALUE FOR s").reasons,
            ["NEXT VALUE FOR reads a sequence"]
        );
    }

    #[test]
    fn what_decides_the_rows_leaves_only_their_count_to_compare() {
        let random = of("SELECT id FROM t ORDER BY RAND() LIMIT 3");
        assert!(random.rows && random.columns.is_empty(), "{random:?}");
        assert_eq!(random.limit, None, "ORDER BY RAND() is an order");
        assert!(of("SELECT id FROM t WHERE owner = CURRENT_USER()").rows);
        assert!(of("SELECT id FROM t WHERE x = @x").rows);
        assert!(of("SELECT *, NOW() FROM t").rows, "columns not told apart");
        assert!(of("SELECT NOW() UNION SELECT 1").rows);
        let time = of("SELECT id FROM t WHERE created > NOW() - INTERVAL 1 DAY");
        assert!(
            !time.rows && time.columns.is_empty(),
            "the time outside the list is left to the rerun: {time:?}"
        );
    }

    #[test]
    fn a_limit_without_order_is_found_with_its_count() {
        assert_eq!(of("SELECT c FROM t LIMIT 5").limit, Some(Limit::Count(5)));
        assert_eq!(
            of("SELECT c FROM t LIMIT 10, 5").limit,
            Some(Limit::Count(5))
        );
        assert_eq!(
            of("SELECT c FROM t WHERE a = ? AND b = ? LIMIT ?").limit,
            Some(Limit::Param(2))
        );
        assert_eq!(of("SELECT c FROM t LIMIT {n}").limit, Some(Limit::Unknown));
        assert_eq!(
            of("SELECT c FROM t WHERE id IN (SELECT id FROM u LIMIT 1) ORDER BY c").limit,
            Some(Limit::Count(1)),
            "the subquery's own LIMIT has no ORDER BY"
        );
        assert_eq!(classify("SELECT c FROM t ORDER BY c LIMIT 5"), None);
        assert_eq!(
            classify("SELECT c FROM (SELECT c FROM t ORDER BY c LIMIT 5) AS x"),
            None
        );
    }

    #[test]
    fn an_order_by_of_the_outer_query_is_told_from_a_subquerys() {
        assert!(orders("SELECT id FROM t ORDER BY k"));
        assert!(!orders(
            "SELECT id FROM (SELECT id FROM t ORDER BY k LIMIT 3) AS x"
        ));
        assert!(!orders("SELECT id FROM t -- ORDER BY k"));
    }

    #[test]
    fn names_strings_comments_and_columns_are_not_functions() {
        for sql in [
            "SELECT now, user, `rand`() FROM t",
            "SELECT t.now() FROM t",
            "SELECT 'NOW()', \"rand()\" FROM t -- NOW()",
            "SELECT c FROM t /* RAND() */ WHERE id = ?",
            "SELECT unix_timestamp(created) FROM t",
            "SELECT c FROM sbtest1 WHERE id = {id}",
            "SELECT 'a'@'b'",
        ] {
            assert_eq!(classify(sql), None, "{sql}");
        }
    }
}
