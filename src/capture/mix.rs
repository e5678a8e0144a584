//! From logged statements to the mix a replay runs: statements grouped into
//! transactions by connection, transactions of the same shape (the same templates in the
//! same order) counted together, and each literal slot turned into a parameter drawn
//! from what was observed.
//!
//! Two things keep a replay honest about what the application did. A slot that always
//! held the same value as an earlier slot of its transaction, or that value plus a
//! constant (sysbench's `DELETE … id = N` then `INSERT … (N, …)`, or `BETWEEN N AND
//! N + 99`), stays tied to it instead of being drawn on its own. And numbers seen in
//! many distinct values are drawn from their observed range, strings and numbers with
//! few values from their observed frequencies. An `IN (…)` list is one slot: its length
//! drawn from the captured lengths, its elements from the captured elements. And the two
//! ends of a range (`BETWEEN {} AND {}`, `d >= {} AND d < {}`) that are not tied by a
//! constant width are drawn together, as one of the captured (low, high) pairs, so the
//! replay never sends an inverted or empty range production did not.

use std::collections::BTreeMap;

use super::columns::range_pairs;
use super::log::Logged;
use super::template::{self, Literal};
use crate::db::fingerprint::fingerprint;
use crate::db::lexer;
use crate::db::sql_text::{self, Action};

/// Distinct values kept for a slot drawn from observed frequencies; a number seen in
/// more distinct values is drawn from its observed range instead.
pub(crate) const MAX_CHOICES: usize = 1000;

/// A transaction's statements in order, with their templates.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Shape {
    /// Whether it ran between BEGIN/START TRANSACTION and COMMIT/ROLLBACK.
    pub(crate) explicit: bool,
    /// The statements' templates (slots written `{}`).
    pub(crate) templates: Vec<String>,
}

/// How a slot gets its value in the replay.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum SlotSource {
    /// Drawn: a uniform whole number in the observed range.
    Range { min: i64, max: i64 },
    /// Drawn: one of the observed values, by observed frequency.
    Choice(Vec<(Literal, u64)>),
    /// The value of an earlier slot of the transaction, plus `offset`.
    Tied { slot: usize, offset: i64 },
    /// Drawn: an IN list, its length one of the observed lengths by frequency, its
    /// elements drawn as `elements` says (a range or a choice).
    List {
        lengths: Vec<(usize, u64)>,
        elements: Box<SlotSource>,
    },
    /// Drawn: the low end of a range, as one of the observed (low, high) pairs by
    /// frequency; the next slot is its high end.
    Pair(Vec<((Literal, Literal), u64)>),
    /// The high end of the pair drawn at slot `low`.
    PairHigh { low: usize },
}

/// One transaction class of the mix.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Class {
    /// What it runs.
    pub(crate) shape: Shape,
    /// How often it ran.
    pub(crate) count: u64,
    /// Where each slot's value comes from, slots numbered through the transaction.
    pub(crate) slots: Vec<SlotSource>,
}

/// What the capture found, before it is written.
#[derive(Debug, Clone, Default)]
pub(crate) struct Mix {
    /// Transaction classes, most frequent first.
    pub(crate) classes: Vec<Class>,
    /// Executions per pt-query-digest fingerprint, over every statement read.
    pub(crate) fingerprints: BTreeMap<String, u64>,
    /// Statements read.
    pub(crate) statements: u64,
    /// Statements left out, by reason.
    pub(crate) skipped: BTreeMap<String, u64>,
    /// The share of executions that are replayed: kept by --top/--coverage and neither
    /// left out as DDL nor unreadable (1.0 when every statement is replayed).
    pub(crate) coverage: f64,
    /// Transactions that were still open when the log ended.
    pub(crate) unfinished: u64,
    /// The concurrency and span of the log, when its statements carry timestamps.
    pub(crate) load: Option<super::load::Load>,
}

/// Which fingerprints a capture keeps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Keep {
    /// Every one.
    All,
    /// The N most executed.
    Top(usize),
    /// The most executed, until they make up this share of executions (0..=1).
    Coverage(f64),
}

/// A transaction in the making, on one connection.
#[derive(Default)]
struct Open {
    explicit: bool,
    templates: Vec<String>,
    literals: Vec<Literal>,
}

/// Builds the mix of `statements`.
pub(crate) fn build(statements: &[Logged], keep: Keep) -> Mix {
    let mut mix = Mix {
        statements: statements.len() as u64,
        ..Mix::default()
    };
    // Each statement's fingerprint, computed once (None for transaction control and
    // session settings, which are not classes of the mix).
    let prints: Vec<Option<String>> = statements
        .iter()
        .map(|s| (role(&s.text) == Role::Statement).then(|| fingerprint(&s.text)))
        .collect();
    for print in prints.iter().flatten() {
        *mix.fingerprints.entry(print.clone()).or_default() += 1;
    }
    let kept = kept_fingerprints(&mix.fingerprints, keep);
    // Executions that end up in a class of the mix: a statement left out for any reason
    // (not replayed, unreadable) is not covered, even when its fingerprint is kept.
    let mut covered: u64 = 0;
    let mut open: BTreeMap<u64, Open> = BTreeMap::new();
    let mut seen: BTreeMap<Shape, Vec<Vec<Literal>>> = BTreeMap::new();
    let finish = |tx: Open, seen: &mut BTreeMap<Shape, Vec<Vec<Literal>>>| {
        if !tx.templates.is_empty() {
            let shape = Shape {
                explicit: tx.explicit,
                templates: tx.templates,
            };
            seen.entry(shape).or_default().push(tx.literals);
        }
    };
    for (statement, print) in statements.iter().zip(&prints) {
        let text = statement.text.as_str();
        match role(text) {
            Role::Begin => {
                if let Some(previous) = open.remove(&statement.connection) {
                    finish(previous, &mut seen);
                }
                open.insert(
                    statement.connection,
                    Open {
                        explicit: true,
                        ..Open::default()
                    },
                );
            }
            Role::End => {
                if let Some(tx) = open.remove(&statement.connection) {
                    finish(tx, &mut seen);
                }
            }
            Role::Session => {
                *mix.skipped
                    .entry("session settings (SET, USE)".into())
                    .or_default() += 1
            }
            Role::Statement if !replayed(text) => {
                *mix.skipped.entry(NOT_REPLAYED.into()).or_default() += 1;
            }
            Role::Statement => {
                if !print.as_ref().is_some_and(|p| kept.contains(p)) {
                    *mix.skipped
                        .entry("outside --top/--coverage".into())
                        .or_default() += 1;
                    continue;
                }
                let (template, literals) = match template::split(text) {
                    Ok(split) => split,
                    Err(why) => {
                        *mix.skipped
                            .entry(format!("cannot be replayed: {why}"))
                            .or_default() += 1;
                        continue;
                    }
                };
                covered += 1;
                match open.get_mut(&statement.connection) {
                    Some(tx) => {
                        tx.templates.push(template);
                        tx.literals.extend(literals);
                    }
                    None => finish(
                        Open {
                            explicit: false,
                            templates: vec![template],
                            literals,
                        },
                        &mut seen,
                    ),
                }
            }
        }
    }
    let total: u64 = mix.fingerprints.values().sum();
    mix.coverage = if total == 0 {
        1.0
    } else {
        covered as f64 / total as f64
    };
    mix.unfinished = open.len() as u64;
    mix.classes = seen
        .into_iter()
        .map(|(shape, instances)| Class {
            count: instances.len() as u64,
            slots: slot_sources(&instances, &shape),
            shape,
        })
        .collect();
    mix.classes
        .sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.shape.cmp(&b.shape)));
    mix
}

#[derive(Debug, PartialEq, Eq)]
enum Role {
    Begin,
    End,
    Session,
    Statement,
}

/// A logged statement's part in its connection's transactions, read as the server
/// executes it: a comment in front (sqlcommenter's `/* controller='x' */ SELECT …`)
/// changes nothing. A SET (of any scope) or USE is the session's set-up, as is a
/// statement of comments alone: none is a class of the mix.
fn role(text: &str) -> Role {
    if matches!(lexer::first_keyword(text).as_deref(), Some("set" | "use")) {
        return Role::Session;
    }
    match sql_text::classify(text) {
        Action::Begin => Role::Begin,
        Action::End => Role::End,
        Action::Session | Action::Empty => Role::Session,
        Action::Read | Action::Write => Role::Statement,
    }
}

/// Why a statement that is neither a query nor a change of rows is left out: replaying
/// `CREATE TABLE t` or `GRANT …` again and again would fail or change the schema.
pub(crate) const NOT_REPLAYED: &str =
    "not replayed: DDL and administration (CREATE, ALTER, DROP, GRANT, …)";

/// Whether a statement is replayed: queries, row changes, calls and SHOW, known by the
/// first keyword of its code (comments gone, executable comments kept), in a text that
/// holds one statement.
pub(crate) fn replayed(text: &str) -> bool {
    let single = lexer::statements(text, lexer::Reading::BackslashEscapes)
        .is_ok_and(|codes| codes.len() == 1);
    single
        && matches!(
            lexer::first_keyword(text).as_deref(),
            Some(
                "select"
                    | "insert"
                    | "update"
                    | "delete"
                    | "replace"
                    | "with"
                    | "call"
                    | "show"
                    | "values"
                    | "table"
                    | "do"
                    | "handler"
                    | "("
            )
        )
}

/// The fingerprints `keep` keeps, most executed first.
pub(crate) fn kept_fingerprints(counts: &BTreeMap<String, u64>, keep: Keep) -> Vec<String> {
    let mut ranked: Vec<(&String, &u64)> = counts.iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
    let total: u64 = counts.values().sum();
    let mut kept = Vec::new();
    let mut covered = 0;
    for (fingerprint, &count) in ranked {
        let enough = match keep {
            Keep::All => false,
            Keep::Top(n) => kept.len() >= n,
            Keep::Coverage(share) => covered as f64 >= share * total as f64,
        };
        if enough {
            break;
        }
        kept.push(fingerprint.clone());
        covered += count;
    }
    kept
}

/// Whether each slot of a shape may be written as an expression (`{p} + 99`): not
/// where MySQL takes only a plain value, after LIMIT or OFFSET.
fn offset_allowed(shape: &Shape) -> Vec<bool> {
    let mut allowed = Vec::new();
    for template in &shape.templates {
        let pieces: Vec<&str> = template.split(template::SLOT).collect();
        for (index, before) in pieces.iter().enumerate().take(pieces.len() - 1) {
            let before = before.trim_end().to_ascii_lowercase();
            let after_limit = before.ends_with("limit")
                || before.ends_with("offset")
                || (before.ends_with(',')
                    && index > 0
                    && pieces[index - 1]
                        .trim_end()
                        .to_ascii_lowercase()
                        .ends_with("limit"));
            allowed.push(!after_limit);
        }
    }
    allowed
}

/// Where each slot of `shape` gets its value, from every instance's literals: tied to
/// an earlier slot where offsets are allowed, the two ends of a range of its templates
/// drawn as a pair, else drawn on its own.
pub(crate) fn slot_sources(instances: &[Vec<Literal>], shape: &Shape) -> Vec<SlotSource> {
    let offset_allowed = offset_allowed(shape);
    let pairs = range_pairs(&shape.templates);
    let slots = instances.first().map_or(0, Vec::len);
    let ties: Vec<Option<SlotSource>> = (0..slots)
        .map(|slot| {
            let allowed = offset_allowed.get(slot).copied().unwrap_or(false);
            tie(instances, slot, allowed)
        })
        .collect();
    // A range is drawn as a pair when neither end follows an earlier value: a width
    // that never changed stays a tie (`BETWEEN {id} AND {id + 99}`).
    let drawn_pairs: Vec<(usize, usize)> = pairs
        .into_iter()
        .filter(|&(low, high)| high < slots && ties[low].is_none() && ties[high].is_none())
        .collect();
    let mut sources: Vec<SlotSource> = Vec::with_capacity(slots);
    for (slot, tied) in ties.into_iter().enumerate() {
        let source = if let Some(&(_, high)) = drawn_pairs.iter().find(|p| p.0 == slot) {
            SlotSource::Pair(pairs_of(instances, slot, high))
        } else if let Some(&(low, _)) = drawn_pairs.iter().find(|p| p.1 == slot) {
            SlotSource::PairHigh { low }
        } else {
            tied.unwrap_or_else(|| {
                let column: Vec<&Literal> = instances.iter().map(|i| &i[slot]).collect();
                drawn(&column)
            })
        };
        sources.push(source);
    }
    sources
}

/// The observed (low, high) pairs of slots `low` and `high`, most frequent first (the
/// first [`MAX_CHOICES`]).
fn pairs_of(instances: &[Vec<Literal>], low: usize, high: usize) -> Vec<((Literal, Literal), u64)> {
    let pairs: Vec<(Literal, Literal)> = instances
        .iter()
        .map(|i| (i[low].clone(), i[high].clone()))
        .collect();
    most_frequent(counted(pairs.iter()))
}

/// Each distinct value with how often it was seen, most frequent first, then in value
/// order.
fn counted<'a, T: PartialOrd + Clone + 'a>(values: impl Iterator<Item = &'a T>) -> Vec<(T, u64)> {
    let mut sorted: Vec<&T> = values.collect();
    sorted.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    let mut counts: Vec<(T, u64)> = Vec::new();
    for value in sorted {
        match counts.last_mut() {
            Some((last, n)) if last == value => *n += 1,
            _ => counts.push((value.clone(), 1)),
        }
    }
    counts.sort_by_key(|c| std::cmp::Reverse(c.1));
    counts
}

/// The first [`MAX_CHOICES`] of `counts`.
fn most_frequent<T>(mut counts: Vec<(T, u64)>) -> Vec<(T, u64)> {
    counts.truncate(MAX_CHOICES);
    counts
}

/// The fewest executions of a transaction class that can tie one slot to another.
pub(crate) const MIN_TIE_EXECUTIONS: usize = 2;

/// An earlier slot this one always equals, or (where an expression may stand) always
/// exceeds by the same whole number. One execution proves nothing, so a tie needs
/// [`MIN_TIE_EXECUTIONS`]; and a tie by an offset needs the earlier slot to have held
/// different values, or two constants that happen to differ by 1003 would look linked.
fn tie(instances: &[Vec<Literal>], slot: usize, offset_allowed: bool) -> Option<SlotSource> {
    if instances.len() < MIN_TIE_EXECUTIONS {
        return None;
    }
    (0..slot).find_map(|earlier| {
        let offsets: Vec<Option<i64>> = instances
            .iter()
            .map(|i| match (&i[earlier], &i[slot]) {
                (Literal::Int(a), Literal::Int(b)) => b.checked_sub(*a),
                (a, b) if a == b => Some(0),
                _ => None,
            })
            .collect();
        let first = offsets[0].filter(|&o| o == 0 || offset_allowed)?;
        let varied = instances
            .iter()
            .any(|i| i[earlier] != instances[0][earlier]);
        (offsets.iter().all(|&o| o == Some(first)) && (first == 0 || varied)).then_some(
            SlotSource::Tied {
                slot: earlier,
                offset: first,
            },
        )
    })
}

/// A drawn slot: the observed range of whole numbers with many distinct values, else
/// the observed values by frequency (the most frequent [`MAX_CHOICES`]); an IN list's
/// length by frequency, its elements drawn so from every element seen.
fn drawn(column: &[&Literal]) -> SlotSource {
    let lists: Option<Vec<&Vec<Literal>>> = column
        .iter()
        .map(|l| match l {
            Literal::List(list) => Some(list),
            _ => None,
        })
        .collect();
    if let Some(lists) = lists.filter(|l| !l.is_empty()) {
        let lengths: Vec<usize> = lists.iter().map(|l| l.len()).collect();
        let elements: Vec<&Literal> = lists.iter().flat_map(|l| l.iter()).collect();
        return SlotSource::List {
            lengths: counted(lengths.iter()),
            elements: Box::new(drawn(&elements)),
        };
    }
    let counts = counted(column.iter().copied());
    let ints: Option<Vec<i64>> = column
        .iter()
        .map(|l| match l {
            Literal::Int(n) => Some(*n),
            _ => None,
        })
        .collect();
    match ints {
        Some(ints) if counts.len() > MAX_CHOICES.min(column.len() / 2).max(16) => {
            SlotSource::Range {
                min: ints.iter().copied().min().unwrap_or_default(),
                max: ints.iter().copied().max().unwrap_or_default(),
            }
        }
        _ => SlotSource::Choice(most_frequent(counts)),
    }
}

/// Replaces every captured string with a made-up one of the same length and the same
/// kind of character in each place (digit for digit, lower case for lower case, upper
/// for upper); other characters stay. The same string always becomes the same one, so
/// equal values stay equal.
pub(crate) fn anonymize(mix: &mut Mix, seed: u64) {
    for class in &mut mix.classes {
        for slot in &mut class.slots {
            anonymize_slot(slot, seed);
        }
    }
}

fn anonymize_slot(slot: &mut SlotSource, seed: u64) {
    let text = |value: &mut Literal| {
        if let Literal::Text(text) = value {
            *text = scramble(text, seed);
        }
    };
    match slot {
        SlotSource::Choice(values) => values.iter_mut().for_each(|(v, _)| text(v)),
        SlotSource::Pair(values) => values.iter_mut().for_each(|((low, high), _)| {
            text(low);
            text(high);
        }),
        SlotSource::List { elements, .. } => anonymize_slot(elements, seed),
        SlotSource::Range { .. } | SlotSource::Tied { .. } | SlotSource::PairHigh { .. } => {}
    }
}

fn scramble(text: &str, seed: u64) -> String {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    (seed, text).hash(&mut hasher);
    let mut state = hasher.finish() | 1;
    let mut next = |n: u32| {
        // xorshift64: cheap, and only the shape of the data matters here.
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % u64::from(n)) as u8
    };
    text.chars()
        .map(|c| match c {
            '0'..='9' => char::from(b'0' + next(10)),
            'a'..='z' => char::from(b'a' + next(26)),
            'A'..='Z' => char::from(b'A' + next(26)),
            c if c.is_alphanumeric() => 'x',
            c => c,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn logged(connection: u64, text: &str) -> Logged {
        Logged {
            connection,
            text: text.to_string(),
            line: 1,
            at: None,
        }
    }

    fn sysbench_like(id: i64, connection: u64) -> Vec<Logged> {
        vec![
            logged(connection, "BEGIN"),
            logged(connection, &format!("SELECT c FROM sbtest1 WHERE id={id}")),
            logged(
                connection,
                &format!(
                    "SELECT c FROM sbtest1 WHERE id BETWEEN {id} AND {}",
                    id + 99
                ),
            ),
            logged(
                connection,
                &format!("DELETE FROM sbtest1 WHERE id={}", id * 3),
            ),
            logged(
                connection,
                &format!(
                    "INSERT INTO sbtest1 (id, k, c, pad) VALUES ({}, {}, 'c{id}', 'p')",
                    id * 3,
                    id % 7
                ),
            ),
            logged(connection, "COMMIT"),
        ]
    }

    #[test]
    fn transactions_are_kept_together_and_tied_slots_stay_tied() {
        // Two connections interleaved, statement by statement.
        let a: Vec<Logged> = (1..=40).flat_map(|i| sysbench_like(i * 11, 1)).collect();
        let b: Vec<Logged> = (1..=40)
            .flat_map(|i| sysbench_like(i * 13 + 5, 2))
            .collect();
        let mut statements = Vec::new();
        for (x, y) in a.into_iter().zip(b) {
            statements.push(x);
            statements.push(y);
        }
        statements.push(logged(3, "SELECT 1"));
        let mix = build(&statements, Keep::All);
        assert_eq!(mix.classes.len(), 2, "{:#?}", mix.classes);
        let tx = &mix.classes[0];
        assert_eq!(tx.count, 80);
        assert!(tx.shape.explicit);
        assert_eq!(tx.shape.templates.len(), 4);
        // Each statement's table is a slot of its own, tied to the first.
        assert_eq!(
            tx.slots[0],
            SlotSource::Choice(vec![(Literal::Table("1".into()), 80)])
        );
        assert_eq!(tx.slots[1], SlotSource::Range { min: 11, max: 525 });
        assert_eq!(tx.slots[2], SlotSource::Tied { slot: 0, offset: 0 });
        assert_eq!(tx.slots[3], SlotSource::Tied { slot: 1, offset: 0 });
        assert_eq!(
            tx.slots[4],
            SlotSource::Tied {
                slot: 1,
                offset: 99
            }
        );
        assert!(matches!(tx.slots[6], SlotSource::Range { .. }));
        assert_eq!(tx.slots[8], SlotSource::Tied { slot: 6, offset: 0 });
        assert!(matches!(&tx.slots[9], SlotSource::Choice(v) if v.len() == 7));
        assert_eq!(mix.classes[1].count, 1);
        assert!(!mix.classes[1].shape.explicit);
        assert_eq!(mix.unfinished, 0);
        assert_eq!(mix.coverage, 1.0);
    }

    #[test]
    fn numbered_tables_fold_into_one_class_drawn_by_their_frequencies() {
        // sysbench with 3 tables: each statement on its own random table.
        let statements: Vec<Logged> = (0..30)
            .flat_map(|i: i64| {
                let (a, b) = (1 + i % 3, 1 + (i / 3) % 3);
                [
                    logged(1, "BEGIN"),
                    logged(1, &format!("SELECT c FROM sbtest{a} WHERE id={}", i * 7)),
                    logged(
                        1,
                        &format!("UPDATE sbtest{b} SET k=k+1 WHERE id={}", 1000 - i),
                    ),
                    logged(1, "COMMIT"),
                ]
            })
            .collect();
        let mix = build(&statements, Keep::All);
        assert_eq!(mix.classes.len(), 1, "{:#?}", mix.classes);
        let slots = &mix.classes[0].slots;
        let SlotSource::Choice(tables) = &slots[0] else {
            panic!("{slots:?}");
        };
        assert_eq!(tables.len(), 3);
        assert!(
            tables
                .iter()
                .all(|(t, n)| matches!(t, Literal::Table(_)) && *n == 10)
        );
        assert!(
            matches!(&slots[2], SlotSource::Choice(t) if t.len() == 3),
            "the second table is drawn on its own: {slots:?}"
        );
        // `k=k+1`: a constant is never tied to a constant of another slot by an offset.
        assert_eq!(slots[3], SlotSource::Choice(vec![(Literal::Int(1), 30)]));
    }

    #[test]
    fn top_and_coverage_keep_the_most_executed_fingerprints() {
        let mut statements: Vec<Logged> =
            (0..90).map(|i| logged(1, &format!("SELECT {i}"))).collect();
        statements.extend((0..10).map(|i| logged(1, &format!("DELETE FROM t WHERE a = {i}"))));
        let top = build(&statements, Keep::Top(1));
        assert_eq!(top.classes.len(), 1);
        assert!((top.coverage - 0.9).abs() < 1e-12);
        assert_eq!(top.skipped["outside --top/--coverage"], 10);
        let all = build(&statements, Keep::Coverage(0.95));
        assert_eq!(all.classes.len(), 2);
    }

    #[test]
    fn anonymized_strings_keep_their_length_and_character_kinds() {
        let scrambled = scramble("Ab-12 x", 7);
        assert_eq!(scrambled.len(), 7);
        let kinds = |s: &str| -> Vec<u8> {
            s.chars()
                .map(|c| {
                    if c.is_ascii_digit() {
                        0
                    } else if c.is_ascii_lowercase() {
                        1
                    } else if c.is_ascii_uppercase() {
                        2
                    } else {
                        3
                    }
                })
                .collect()
        };
        assert_eq!(kinds(&scrambled), kinds("Ab-12 x"));
        assert_ne!(scrambled, "Ab-12 x");
        assert_eq!(scramble("Ab-12 x", 7), scrambled);
    }
}
