//! Writing a captured mix as a `--workload-file`: one `[[transaction]]` per class,
//! weighted by how often it ran, one parameter per drawn slot, and a header that says
//! where it came from, what it covers and what was left out. A parameter is named by
//! the column it binds to (`customer_id`), so the file reads as the application's
//! queries; a column bound in several classes gets its class in front (`t2_id`), one
//! bound twice in a statement a number behind (`k_1`, `k_2`), and a slot with no column
//! next to it keeps its class and number (`t1_3`). The file is built as the
//! workload type itself and serialised, so what `capture` writes is exactly what
//! `--workload-file` reads.

use std::collections::{BTreeMap, BTreeSet};

use super::columns::columns;
use super::mix::{Class, MIN_TIE_EXECUTIONS, Mix, SlotSource};
use super::template::{Literal, SLOT};
use crate::workload::custom::{CapturedLoad, ChoiceValue, CustomWorkload, Param, Transaction};

/// Where a capture came from, for the header.
#[derive(Debug, Clone)]
pub(crate) struct Source {
    /// The file or server it was read from.
    pub(crate) name: String,
    /// What kind of source it is (slow log, general log, digest table).
    pub(crate) kind: String,
    /// Whether string literals were replaced by made-up ones.
    pub(crate) anonymized: bool,
}

/// The workload file's text.
pub(crate) fn workload_file(mix: &Mix, source: &Source) -> anyhow::Result<String> {
    let workload = workload(mix);
    let body = toml::to_string(&workload)?;
    Ok(format!("{}\n{body}", header(mix, source, &workload)))
}

fn workload(mix: &Mix) -> CustomWorkload {
    let mut params = BTreeMap::new();
    let mut transactions = Vec::new();
    for (index, (class, names)) in mix.classes.iter().zip(param_names(mix)).enumerate() {
        for (slot, source) in class.slots.iter().enumerate() {
            if let (Some(param), Some(name)) = (param_of(source), names.get(&slot)) {
                params.insert(name.clone(), param);
            }
        }
        transactions.push(Transaction {
            name: format!("t{}", index + 1),
            weight: u32::try_from(class.count).unwrap_or(u32::MAX),
            begin: class.shape.explicit,
            statements: statements(class, &names),
        });
    }
    let writes = transactions
        .iter()
        .flat_map(|t| &t.statements)
        .any(|sql| CustomWorkload::is_write(sql));
    let nondeterministic = nondeterministic(&transactions);
    CustomWorkload {
        sbtest: mix
            .classes
            .iter()
            .flat_map(|c| &c.shape.templates)
            .any(|t| mentions_sbtest(t)),
        setup: Vec::new(),
        tables: Vec::new(),
        writes,
        params,
        captured: mix.load.map(|load| CapturedLoad {
            sessions: load.sessions,
            transactions_per_second: mix.classes.iter().map(|c| c.count).sum::<u64>() as f64
                / load.seconds as f64,
            seconds: load.seconds,
        }),
        nondeterministic,
        transactions,
    }
}

/// The read statements whose answers change on their own, with the reason, for the
/// answers check and for whoever reviews the file.
fn nondeterministic(transactions: &[Transaction]) -> BTreeMap<String, String> {
    transactions
        .iter()
        .flat_map(|t| &t.statements)
        .filter(|sql| !CustomWorkload::is_write(sql))
        .filter_map(|sql| {
            Some((
                sql.clone(),
                crate::db::nondeterministic::classify(sql)?.reason(),
            ))
        })
        .collect()
}

/// Whether a slot has a parameter of its own (it is drawn, not tied to another).
fn owns_param(source: &SlotSource) -> bool {
    !matches!(
        source,
        SlotSource::Tied { .. } | SlotSource::PairHigh { .. }
    )
}

/// The parameter name of each slot that has one, by class: the column it binds to,
/// made unique as the module says.
fn param_names(mix: &Mix) -> Vec<BTreeMap<usize, String>> {
    let bound: Vec<Vec<(usize, Option<String>)>> = mix
        .classes
        .iter()
        .map(|class| {
            let columns = columns(&class.shape.templates);
            (0..class.slots.len())
                .filter(|&slot| owns_param(&class.slots[slot]))
                .map(|slot| (slot, columns.get(slot).cloned().flatten()))
                .collect()
        })
        .collect();
    let mut classes_of: BTreeMap<&str, BTreeSet<usize>> = BTreeMap::new();
    for (class, slots) in bound.iter().enumerate() {
        for column in slots.iter().filter_map(|(_, c)| c.as_deref()) {
            classes_of.entry(column).or_default().insert(class);
        }
    }
    let mut taken = BTreeSet::new();
    bound
        .iter()
        .enumerate()
        .map(|(class, slots)| {
            let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
            slots
                .iter()
                .map(|(slot, column)| {
                    let mut name = match column.as_deref() {
                        None => format!("t{}_{slot}", class + 1),
                        Some(column) => {
                            let shared = classes_of[column].len() > 1;
                            let times = slots
                                .iter()
                                .filter(|(_, c)| c.as_deref() == Some(column))
                                .count();
                            let nth = seen.entry(column).or_default();
                            *nth += 1;
                            let base = match shared {
                                true => format!("t{}_{column}", class + 1),
                                false => column.to_string(),
                            };
                            match times {
                                1 => base,
                                _ => format!("{base}_{nth}"),
                            }
                        }
                    };
                    while !taken.insert(name.clone()) {
                        name.push_str(&format!("_{slot}"));
                    }
                    (*slot, name)
                })
                .collect()
        })
        .collect()
}

/// The parameter a drawn slot becomes; a tied slot, or a pair's high end, has none of
/// its own.
fn param_of(source: &SlotSource) -> Option<Param> {
    match source {
        SlotSource::Range { min, max } => Some(Param::Int {
            min: *min,
            max: *max,
        }),
        SlotSource::Choice(values)
            if values.iter().all(|(v, _)| matches!(v, Literal::Table(_))) =>
        {
            Some(Param::Table {
                values: values.iter().map(|(v, _)| table_number(v)).collect(),
                weights: weights_of(values),
            })
        }
        SlotSource::Choice(values) => Some(Param::Choice {
            values: values.iter().map(|(v, _)| choice_value(v)).collect(),
            weights: weights_of(values),
        }),
        SlotSource::List { lengths, elements } => {
            let (values, weights, min, max) = match param_of(elements) {
                Some(Param::Choice { values, weights }) => (values, weights, None, None),
                Some(Param::Int { min, max }) => (Vec::new(), Vec::new(), Some(min), Some(max)),
                _ => (Vec::new(), Vec::new(), None, None),
            };
            Some(Param::List {
                lengths: lengths
                    .iter()
                    .map(|(n, _)| u32::try_from(*n).unwrap_or(u32::MAX))
                    .collect(),
                length_weights: weights_of(lengths),
                values,
                weights,
                min,
                max,
            })
        }
        SlotSource::Pair(values) => Some(Param::Pair {
            values: values
                .iter()
                .map(|((low, high), _)| (choice_value(low), choice_value(high)))
                .collect(),
            weights: weights_of(values),
        }),
        SlotSource::Tied { .. } | SlotSource::PairHigh { .. } => None,
    }
}

/// The observed frequencies as weights; none when every value was seen as often.
fn weights_of<T>(values: &[(T, u64)]) -> Vec<u64> {
    if values.iter().all(|(_, n)| *n == values[0].1) {
        Vec::new()
    } else {
        values.iter().map(|(_, n)| *n).collect()
    }
}

fn table_number(literal: &Literal) -> String {
    match literal {
        Literal::Table(number) => number.clone(),
        other => format!("{other:?}"),
    }
}

fn choice_value(literal: &Literal) -> ChoiceValue {
    match literal {
        Literal::Int(n) => ChoiceValue::Int(*n),
        Literal::Decimal(text) | Literal::Text(text) | Literal::Table(text) => {
            ChoiceValue::Text(text.clone())
        }
        Literal::List(list) => ChoiceValue::Text(format!("{list:?}")),
    }
}

/// The class's statements with each slot written as its parameter.
fn statements(class: &Class, names: &BTreeMap<usize, String>) -> Vec<String> {
    let mut slot = 0;
    class
        .shape
        .templates
        .iter()
        .map(|template| {
            let pieces: Vec<&str> = template.split(SLOT).collect();
            let mut sql = pieces[0].to_string();
            for piece in &pieces[1..] {
                sql.push_str(&placeholder(&class.slots, slot, names));
                sql.push_str(piece);
                slot += 1;
            }
            sql
        })
        .collect()
}

/// `{id}`, or for a tied slot the slot it follows, with its offset (`{id + 99}`,
/// computed by the client, so the server runs the statement as the application did);
/// a pair's ends `{d.low}` and `{d.high}`.
fn placeholder(slots: &[SlotSource], slot: usize, names: &BTreeMap<usize, String>) -> String {
    let (mut root, mut offset) = (slot, 0i64);
    while let SlotSource::Tied {
        slot: earlier,
        offset: by,
    } = slots[root]
    {
        root = earlier;
        offset = offset.saturating_add(by);
    }
    let name = match slots[root] {
        SlotSource::Pair(_) => format!("{}.low", names[&root]),
        SlotSource::PairHigh { low } => format!("{}.high", names[&low]),
        _ => names[&root].clone(),
    };
    match offset {
        0 => format!("{{{name}}}"),
        o if o > 0 => format!("{{{name} + {o}}}"),
        o => format!("{{{name} - {}}}", o.unsigned_abs()),
    }
}

/// Whether a template reads or writes a sysbench table (`sbtest` and a number, or a
/// table parameter).
fn mentions_sbtest(template: &str) -> bool {
    template
        .to_ascii_lowercase()
        .match_indices("sbtest")
        .any(|(at, _)| {
            template[at + 6..]
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_digit() || c == '{')
        })
}

fn header(mix: &Mix, source: &Source, workload: &CustomWorkload) -> String {
    let transactions: u64 = mix.classes.iter().map(|c| c.count).sum();
    let mut lines = vec![
        format!(
            "Captured by abtest capture from {} ({}).",
            source.name, source.kind
        ),
        format!(
            "{} statements read; {transactions} transactions in {} classes.",
            mix.statements,
            mix.classes.len()
        ),
        format!(
            "coverage: the replayed statements make up {:.1} % of executions ({} fingerprints seen).",
            100.0 * mix.coverage,
            mix.fingerprints.len()
        ),
    ];
    lines.push(
        "classes: statements fold as pt-query-digest folds them, and the table names that differ only by their number (sbtest1..N) fold into one class; the table is a parameter drawn from the captured ones by frequency."
            .to_string(),
    );
    lines.push(
        "lists: an IN (…) list of literals is one slot whatever its length, as pt-query-digest's in(?+); a type = \"list\" parameter draws its length from the captured lengths and its elements from the captured elements, by frequency."
            .to_string(),
    );
    lines.push(
        "ranges: the two ends of BETWEEN {a} AND {b} (or x >= {a} AND x < {b}) whose width varied are one type = \"pair\" parameter, {name.low} and {name.high}, drawn as one of the captured (low, high) pairs, so every replayed range is one production ran."
            .to_string(),
    );
    lines.push(
        "names: a parameter is named by the column it binds to (t2_id when several classes bind id, k_1 and k_2 when one binds k twice); one with no column next to it by its class and slot (t1_3)."
            .to_string(),
    );
    lines.push(format!(
        "ties: a value follows an earlier one of its transaction only when it equalled it (or it plus one constant, where the earlier value varied) in every one of at least {MIN_TIE_EXECUTIONS} executions; every other value is drawn on its own from the captured ones."
    ));
    for (reason, count) in &mix.skipped {
        lines.push(format!("left out: {count} statement(s), {reason}."));
    }
    if mix.unfinished > 0 {
        lines.push(format!(
            "left out: {} transaction(s) still open when the log ended.",
            mix.unfinished
        ));
    }
    lines.push(if source.anonymized {
        "string literals were replaced by made-up ones of the same length and character kinds."
            .to_string()
    } else {
        "string literals are kept as observed (use --anonymize for logs with personal data)."
            .to_string()
    });
    if workload.writes {
        lines.push(
            "writes = true: the mix writes; replaying it against an external server needs --allow-writes."
                .to_string(),
        );
    }
    if !workload.nondeterministic.is_empty() {
        lines.push(format!(
            "nondeterministic: {} read statement(s) answer differently on their own (the time, chance, the session, the server, a LIMIT without ORDER BY); --check-results compares only what does not depend on it.",
            workload.nondeterministic.len()
        ));
    }
    if workload.sbtest {
        lines.push(
            "sbtest = true: abtest prepares the sbtestN tables; match --tables and --table-size to the captured server."
                .to_string(),
        );
    }
    lines.push("fingerprints (pt-query-digest), by executions:".to_string());
    let mut ranked: Vec<(&String, &u64)> = mix.fingerprints.iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
    for (fingerprint, count) in ranked {
        lines.push(format!("  {count:>9}  {fingerprint}"));
    }
    lines
        .iter()
        .map(|line| format!("# {}\n", line.replace('\n', " ")))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::log::Logged;
    use crate::capture::mix::{Keep, Mix, build};

    fn logged(connection: u64, text: String) -> Logged {
        Logged {
            connection,
            text,
            line: 1,
            at: None,
        }
    }

    /// The workload file of `mix`, as captured from a slow log, and the file read back.
    fn written(mix: &Mix) -> (String, CustomWorkload) {
        let source = Source {
            name: "slow.log".into(),
            kind: "slow log".into(),
            anonymized: false,
        };
        let text = workload_file(mix, &source).unwrap();
        let workload = CustomWorkload::parse(&text, std::path::Path::new("captured.toml")).unwrap();
        (text, workload)
    }

    /// sqlcommenter, marginalia and line comments: each statement is the statement its
    /// code is — a class of the mix, a BEGIN, a write — never "DDL".
    #[test]
    fn statements_behind_comments_are_captured_as_their_code() {
        let mut statements = Vec::new();
        for i in 1..=10i64 {
            for sql in [
                "/* controller='orders',framework='django' */ BEGIN".to_string(),
                format!("/* controller='orders' */ SELECT c FROM sbtest1 WHERE id = {i}"),
                format!("SELECT c FROM sbtest1 WHERE id = {i} /*application:App,action:show*/"),
                format!("-- purge\nDELETE FROM orders WHERE id = {i}"),
                "/*!COMMIT*/".to_string(),
            ] {
                statements.push(logged(1, sql));
            }
        }
        let mix = build(&statements, Keep::All);
        assert!(mix.skipped.is_empty(), "{:?}", mix.skipped);
        assert_eq!(mix.coverage, 1.0);
        let (text, workload) = written(&mix);
        assert!(workload.writes, "{text}");
        assert_eq!(workload.transactions.len(), 1, "{text}");
        let tx = &workload.transactions[0];
        assert_eq!((tx.weight, tx.begin), (10, true), "{text}");
        assert_eq!(tx.statements.len(), 3, "{text}");
        assert!(tx.statements[2].starts_with("DELETE FROM orders"), "{text}");
    }

    #[test]
    fn a_capture_reads_back_as_a_workload_file() {
        let mut statements = Vec::new();
        for i in 1..=30i64 {
            for (sql, conn) in [
                ("BEGIN".to_string(), 1),
                (
                    format!("SELECT c FROM sbtest1 WHERE id BETWEEN {i} AND {}", i + 99),
                    1,
                ),
                (
                    format!("UPDATE sbtest1 SET c = 'v{}' WHERE id = {i}", i % 3),
                    1,
                ),
                ("COMMIT".to_string(), 1),
                (
                    format!("SELECT name FROM users WHERE id = {} LIMIT 5", i % 2),
                    2,
                ),
            ] {
                if conn == 2 && i > 20 {
                    continue;
                }
                statements.push(logged(conn, sql));
            }
        }
        let mix = build(&statements, Keep::All);
        let (text, workload) = written(&mix);
        assert!(workload.writes && workload.sbtest, "{text}");
        assert_eq!(workload.transactions.len(), 2, "{text}");
        assert_eq!(workload.transactions[1].weight, 20);
        let tx = &workload.transactions[0];
        assert_eq!((tx.weight, tx.begin), (30, true));
        assert_eq!(
            tx.statements,
            [
                "SELECT c FROM sbtest{t1_0} WHERE id BETWEEN {t1_id} AND {t1_id + 99}",
                "UPDATE sbtest{t1_0} SET c = {c} WHERE id = {t1_id}",
            ]
        );
        assert_eq!(
            workload.transactions[1].statements,
            ["SELECT name FROM users WHERE id = {t2_id} LIMIT {t2_1}"],
            "a column of two classes is named with its class; LIMIT has no column"
        );
        assert!(
            text.contains("# coverage: the replayed statements make up 100.0 %"),
            "{text}"
        );
        assert!(
            text.contains("select c from sbtest? where id between ? and ?"),
            "{text}"
        );
    }

    /// IN lists of 2 to 5 values are one class whose list length is drawn from the
    /// captured ones; a BETWEEN on dates is one captured pair; parameters are named by
    /// their column.
    #[test]
    fn lists_pairs_and_column_names_are_written_and_read_back() {
        let mut statements = Vec::new();
        for i in 0..40i64 {
            let length = 2 + (i % 4) as usize;
            let ids: Vec<String> = (0..length as i64)
                .map(|k| (i * 7 + k).to_string())
                .collect();
            let month = 1 + i % 9;
            for sql in [
                format!(
                    "SELECT name FROM customers WHERE customer_id IN ({})",
                    ids.join(", ")
                ),
                format!(
                    "SELECT COUNT(*) FROM orders WHERE created_at BETWEEN '2024-{month:02}-01' AND '2024-{:02}-01' AND status = 'open'",
                    month + 3
                ),
            ] {
                statements.push(logged(1, sql));
            }
        }
        let mix = build(&statements, Keep::All);
        let (text, workload) = written(&mix);
        assert_eq!(workload.transactions.len(), 2, "{text}");
        let all: Vec<&String> = workload
            .transactions
            .iter()
            .flat_map(|t| &t.statements)
            .collect();
        assert!(
            all.contains(
                &&"SELECT name FROM customers WHERE customer_id IN ({customer_id})".to_string()
            ),
            "{text}"
        );
        assert!(
            all.contains(
                &&"SELECT COUNT(*) FROM orders WHERE created_at BETWEEN {created_at.low} AND {created_at.high} AND status = {status}"
                    .to_string()
            ),
            "{text}"
        );
        let Param::List {
            lengths,
            length_weights,
            min,
            max,
            ..
        } = &workload.params["customer_id"]
        else {
            panic!("{text}");
        };
        assert_eq!(lengths, &[2, 3, 4, 5], "{text}");
        assert!(
            length_weights.is_empty(),
            "each length seen 10 times: {text}"
        );
        assert_eq!(
            (*min, *max),
            (Some(0), Some(277)),
            "many values: a range: {text}"
        );
        let Param::Pair { values, .. } = &workload.params["created_at"] else {
            panic!("{text}");
        };
        assert_eq!(values.len(), 9, "{text}");
        assert!(
            values.iter().all(|(low, high)| {
                let (ChoiceValue::Text(low), ChoiceValue::Text(high)) = (low, high) else {
                    return false;
                };
                low < high
            }),
            "{text}"
        );
    }
}
