//! How one sampled statement compares, from three answers: the first side's, the other
//! side's just after, and the first side's again just after that (which side goes first
//! alternates from one sample to the next). Both sides see the statement at nearly the
//! same moment, and the rerun tells a statement that answers differently on its own
//! (the time, a random value, a plan that picks any rows for a `LIMIT`) from one the
//! change made different: when the first side disagrees with itself, that part of the
//! answer is not comparable, never a difference.
//!
//! For such a statement, and for one whose code says it depends on the time, chance, the
//! session or the server ([`crate::db::nondeterministic`]), what can be compared is:
//! the error, the columns (their number and types), the row count when the reruns agree
//! on it, the warnings when the reruns agree on them, and the deterministic columns (the
//! ones the code does not name and the reruns agree on), as multisets of the rows
//! projected on them. The rest is reported as not comparable, with the reason.

use super::answer::{Agreement, Answer, row_text};
use super::rows::{FirstDifference, first_difference, shown, where_they_differ};
use super::ties;
use crate::db::nondeterministic::{self, Limit, Nondeterminism};
use crate::workload::check_sample::ReadSample;

/// The three answers to one sample.
#[derive(Debug, Clone)]
pub(crate) struct Triple {
    pub(crate) baseline: Answer,
    pub(crate) variant: Answer,
    /// The side that went first, asked again last.
    pub(crate) again: Answer,
    /// Whether the baseline went first.
    pub(crate) baseline_first: bool,
}

/// What a sample's answers say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Kind {
    Same,
    OrderOnly,
    BothFailed(String),
    Different,
    /// Part of the answer could not be compared; what was compared agreed.
    Partial,
}

/// How one sample compares, with what people need to see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Outcome {
    pub(crate) kind: Kind,
    /// For a partial answer: what was not compared, why, and what was.
    pub(crate) reason: Option<String>,
    /// For a difference: what differs, in words, when more than the rows show.
    pub(crate) detail: Option<String>,
    /// For a difference in the rows: the first differing row of each side.
    pub(crate) rows: Option<[Option<String>; 2]>,
}

/// The widest row text kept for people.
const ROW_WIDTH: usize = 400;

impl Outcome {
    fn of(kind: Kind) -> Outcome {
        Outcome {
            kind,
            reason: None,
            detail: None,
            rows: None,
        }
    }

    fn different(detail: String) -> Outcome {
        Outcome {
            detail: Some(detail),
            ..Outcome::of(Kind::Different)
        }
    }
}

/// How the sample's three answers compare; `marked` is a reason the workload file gives
/// for the class (`[nondeterministic]`), which leaves its rows uncompared.
pub(crate) fn judge(sample: &ReadSample, marked: Option<&str>, triple: &Triple) -> Outcome {
    let mut code = nondeterministic::classify(&sample.sql);
    if let Some(reason) = marked {
        let code = code.get_or_insert_with(Nondeterminism::default);
        code.reasons.insert(0, reason.to_string());
        code.rows = true;
    }
    let answers = [&triple.baseline, &triple.variant, &triple.again];
    let limit_cuts = code
        .as_ref()
        .and_then(|c| c.limit)
        .is_some_and(|limit| cuts(limit, sample, &answers));
    let excluded = code
        .as_ref()
        .is_some_and(|c| c.rows || !c.columns.is_empty() || limit_cuts);
    let first = if triple.baseline_first {
        &triple.baseline
    } else {
        &triple.variant
    };
    let rerun = first.agreement(&triple.again);
    let outcome = match rerun {
        Agreement::Same | Agreement::BothFailed(_) if !excluded => whole(triple, true),
        Agreement::OrderOnly if !excluded => whole(triple, false),
        _ => partial(triple, first, code.as_ref(), limit_cuts),
    };
    match outcome.kind {
        Kind::Different => tied(sample, triple, &answers).unwrap_or(outcome),
        _ => outcome,
    }
}

/// A difference that is only another choice among rows tied under the `ORDER BY` where
/// the `LIMIT` cuts, as a partial answer.
fn tied(sample: &ReadSample, triple: &Triple, answers: &[&Answer; 3]) -> Option<Outcome> {
    let (keys, limit) = nondeterministic::ordered_limit(&sample.sql)?;
    let cut = cuts(limit, sample, answers);
    let tie = ties::tie_at_cut(&triple.baseline, &triple.variant, &keys, cut)?;
    Some(partial_outcome(
        &[format!(
            "the LIMIT cuts through rows tied under the ORDER BY ({tie}): which of them \
             come back is the plan's choice"
        )],
        &[format!("the rows tied at {tie}")],
        &[
            "the columns and their types".into(),
            "the row count".into(),
            "every row's sort keys".into(),
            "every other row".into(),
        ],
    ))
}

/// Whether a `LIMIT` without `ORDER BY` cut an answer: some side returned as many rows
/// as it allows (or its count is not known).
fn cuts(limit: Limit, sample: &ReadSample, answers: &[&Answer; 3]) -> bool {
    let count = match limit {
        Limit::Count(n) => Some(n),
        Limit::Param(k) => sample
            .params
            .get(k)
            .and_then(|v| mysql::from_value_opt::<u64>(v.clone()).ok()),
        Limit::Unknown => None,
    };
    count.is_none_or(|n| answers.iter().any(|a| a.rows >= n))
}

/// The whole answers compared; `order_stable` says whether the first side gave its rows
/// in the same order twice (else another order is no finding).
fn whole(triple: &Triple, order_stable: bool) -> Outcome {
    match triple.baseline.agreement(&triple.variant) {
        Agreement::Same => Outcome::of(Kind::Same),
        Agreement::OrderOnly if order_stable => Outcome::of(Kind::OrderOnly),
        Agreement::OrderOnly => Outcome::of(Kind::Same),
        Agreement::BothFailed(error) => Outcome::of(Kind::BothFailed(error)),
        Agreement::Different => rows_differ(&triple.baseline, &triple.variant, None),
    }
}

/// A difference, with the first differing row of each side (of the rows projected on
/// `columns` when given) and, for a long value, where it differs.
fn rows_differ(baseline: &Answer, variant: &Answer, columns: Option<&[usize]>) -> Outcome {
    let mut outcome = Outcome::of(Kind::Different);
    if baseline.error.is_some() || variant.error.is_some() {
        return outcome;
    }
    let project = |a: &Answer| match columns {
        Some(columns) => projected(a, columns),
        None => a.kept.clone(),
    };
    let found = first_difference(
        &project(baseline),
        baseline.whole(),
        &project(variant),
        variant.whole(),
    );
    let names: Vec<String> = match columns {
        Some(columns) => columns
            .iter()
            .filter_map(|&k| baseline.columns.get(k))
            .map(|c| c.0.clone())
            .collect(),
        None => baseline.columns.iter().map(|c| c.0.clone()).collect(),
    };
    let FirstDifference {
        first,
        second,
        beyond_kept,
    } = found;
    let mut details = Vec::new();
    if baseline.rows != variant.rows {
        details.push(format!(
            "row counts differ: baseline {}, variant {}",
            baseline.rows, variant.rows
        ));
    }
    if let (Some(a), Some(b)) = (&first, &second) {
        details.extend(where_they_differ(&names, a, b, ["baseline", "variant"]));
    }
    if first.is_none() && second.is_none() && beyond_kept {
        details.push(format!(
            "the first differing row lies beyond the first {} rows kept of each side",
            super::answer::KEPT
        ));
    } else if first.is_none() && second.is_none() && baseline.codes() != variant.codes() {
        details.push("the same rows; the warnings differ".into());
    }
    if first.is_some() || second.is_some() {
        let text = |row: &Option<Vec<String>>| row.as_ref().map(|r| shown(&row_text(r), ROW_WIDTH));
        outcome.rows = Some([text(&first), text(&second)]);
    }
    if !details.is_empty() {
        outcome.detail = Some(details.join("; "));
    }
    outcome
}

/// An answer's kept rows projected on `columns`, sorted.
fn projected(answer: &Answer, columns: &[usize]) -> Vec<Vec<String>> {
    let mut rows: Vec<Vec<String>> = answer
        .kept
        .iter()
        .map(|row| {
            columns
                .iter()
                .filter_map(|&k| row.get(k).cloned())
                .collect()
        })
        .collect();
    rows.sort_unstable();
    rows
}

/// What can be compared of a statement whose answer depends on more than the data.
fn partial(
    triple: &Triple,
    first: &Answer,
    code: Option<&Nondeterminism>,
    limit_cuts: bool,
) -> Outcome {
    let (baseline, variant, again) = (&triple.baseline, &triple.variant, &triple.again);
    let side = if triple.baseline_first {
        "the baseline"
    } else {
        "the variant"
    };
    let mut why: Vec<String> = code.map(|c| c.reasons.clone()).unwrap_or_default();
    if code.is_none_or(|c| c.limit.is_some() && !limit_cuts && why.len() == 1) {
        why.retain(|r| !r.starts_with("LIMIT"));
        why.push(format!(
            "{side} answered differently when asked again just after"
        ));
    }
    if first.error != again.error {
        return partial_outcome(&why, &["the answer (it failed only once)".into()], &[]);
    }
    match (&baseline.error, &variant.error) {
        (Some(a), Some(b)) if a == b => return Outcome::of(Kind::BothFailed(a.clone())),
        (None, None) => {}
        _ => return Outcome::of(Kind::Different),
    }
    let mut compared = Vec::new();
    let mut not_compared = Vec::new();
    if first.columns == again.columns {
        if baseline.columns != variant.columns {
            return Outcome::different(format!(
                "the columns differ: baseline ({}), variant ({})",
                column_list(baseline),
                column_list(variant)
            ));
        }
        compared.push("the columns and their types".to_string());
    }
    if first.rows == again.rows {
        if baseline.rows != variant.rows {
            return Outcome::different(format!(
                "row counts differ: baseline {}, variant {}",
                baseline.rows, variant.rows
            ));
        }
        compared.push("the row count".to_string());
    } else {
        not_compared.push(format!(
            "the row count ({side} gave {} then {} rows)",
            first.rows, again.rows
        ));
    }
    if first.codes() == again.codes() {
        if baseline.codes() != variant.codes() {
            return Outcome::different("the warnings differ".into());
        }
    } else {
        not_compared.push("the warnings".into());
    }
    let rows_depend = code.is_some_and(|c| c.rows) || limit_cuts;
    let every_row = [baseline, variant, again].iter().all(|a| a.whole());
    if rows_depend {
        not_compared.push("which rows come back".into());
    } else if !every_row {
        not_compared.push(format!(
            "the values (more than {} rows)",
            super::answer::KEPT
        ));
    } else {
        let named = code.map(|c| c.columns.clone()).unwrap_or_default();
        let stable: Vec<usize> = (0..first.columns.len())
            .filter(|k| !named.contains(k) && projected(first, &[*k]) == projected(again, &[*k]))
            .collect();
        let others: Vec<usize> = (0..first.columns.len())
            .filter(|k| !stable.contains(k))
            .collect();
        if !others.is_empty() {
            not_compared.push(format!("column {}", column_names(first, &others)));
        }
        if projected(first, &stable) != projected(again, &stable) {
            not_compared.push("the rows' values".into());
        } else if !stable.is_empty() {
            if projected(baseline, &stable) != projected(variant, &stable) {
                let mut outcome = rows_differ(baseline, variant, Some(&stable));
                outcome.detail = Some(format!(
                    "{}in column {} (column {} not compared: {})",
                    outcome.detail.map_or(String::new(), |d| format!("{d}; ")),
                    column_names(first, &stable),
                    column_names(first, &others),
                    why.join("; ")
                ));
                return outcome;
            }
            compared.push(format!("column {}", column_names(first, &stable)));
        }
    }
    partial_outcome(&why, &not_compared, &compared)
}

/// `not comparable, because NOW() depends on the time of the call: column 2 (NOW(6));
/// compared: the columns and their types, the row count, column 1 (id)`.
fn partial_outcome(why: &[String], not_compared: &[String], compared: &[String]) -> Outcome {
    let mut reason = format!("not comparable, because {}", why.join("; "));
    if !not_compared.is_empty() {
        reason.push_str(&format!(": {}", not_compared.join(", ")));
    }
    if !compared.is_empty() {
        reason.push_str(&format!("; compared: {}", compared.join(", ")));
    }
    Outcome {
        reason: Some(reason),
        ..Outcome::of(Kind::Partial)
    }
}

/// `2 (NOW(6)), 3 (c)`: columns by number (from 1) and name.
fn column_names(answer: &Answer, columns: &[usize]) -> String {
    let names: Vec<String> = columns
        .iter()
        .map(|&k| match answer.columns.get(k) {
            Some((name, _)) => format!("{} ({name})", k + 1),
            None => (k + 1).to_string(),
        })
        .collect();
    names.join(", ")
}

/// `id longlong, c var_string`.
fn column_list(answer: &Answer) -> String {
    let columns: Vec<String> = answer
        .columns
        .iter()
        .map(|(name, kind)| format!("{name} {kind}"))
        .collect();
    columns.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use mysql::Value;

    fn table(rows: &[&[&str]]) -> Answer {
        let width = rows.first().map_or(2, |r| r.len());
        Answer::of_rows(
            (0..width)
                .map(|k| (format!("c{}", k + 1), "var_string".to_string()))
                .collect(),
            rows.iter()
                .map(|r| r.iter().map(|v| v.to_string()).collect())
                .collect(),
        )
    }

    fn sample(sql: &str) -> ReadSample {
        ReadSample {
            class: sql.into(),
            sql: sql.into(),
            params: vec![Value::from(3)],
        }
    }

    fn triple(baseline: Answer, variant: Answer, again: Answer) -> Triple {
        Triple {
            baseline,
            variant,
            again,
            baseline_first: true,
        }
    }

    #[test]
    fn a_deterministic_statement_is_compared_whole_and_shows_its_first_differing_rows() {
        let sql = sample("SELECT id, c FROM t WHERE id < ?");
        let same = triple(
            table(&[&["1", "a"], &["2", "b"]]),
            table(&[&["2", "b"], &["1", "a"]]),
            table(&[&["1", "a"], &["2", "b"]]),
        );
        assert_eq!(judge(&sql, None, &same).kind, Kind::OrderOnly);
        let changed = triple(
            table(&[&["1", "a"], &["2", "b"]]),
            table(&[&["1", "a"], &["2", "x"]]),
            table(&[&["1", "a"], &["2", "b"]]),
        );
        let outcome = judge(&sql, None, &changed);
        assert_eq!(outcome.kind, Kind::Different);
        assert_eq!(
            outcome.rows,
            Some([Some("2, b".to_string()), Some("2, x".to_string())])
        );
    }

    #[test]
    fn another_choice_among_rows_tied_at_the_limit_is_compared_in_part() {
        let sql = sample("SELECT c1, c2, c3 FROM t ORDER BY c3 DESC LIMIT 2");
        let tie = triple(
            table(&[&["1", "a", "30"], &["3", "c", "12"]]),
            table(&[&["1", "a", "30"], &["7", "g", "12"]]),
            table(&[&["1", "a", "30"], &["3", "c", "12"]]),
        );
        let outcome = judge(&sql, None, &tie);
        assert_eq!(outcome.kind, Kind::Partial, "{outcome:?}");
        let reason = outcome.reason.unwrap();
        assert!(
            reason.contains("the LIMIT cuts through rows tied under the ORDER BY (c3 = 12)")
                && reason.contains("every other row"),
            "{reason}"
        );
        let changed = triple(
            table(&[&["1", "a", "30"], &["3", "c", "12"]]),
            table(&[&["1", "x", "30"], &["7", "g", "12"]]),
            table(&[&["1", "a", "30"], &["3", "c", "12"]]),
        );
        assert_eq!(judge(&sql, None, &changed).kind, Kind::Different);
        let uncut = sample("SELECT c1, c2, c3 FROM t ORDER BY c3 DESC LIMIT 5");
        assert_eq!(judge(&uncut, None, &tie).kind, Kind::Different);
    }

    #[test]
    fn a_time_column_is_left_out_and_the_other_columns_are_compared() {
        let sql = sample("SELECT id, NOW() FROM t WHERE id = ?");
        let ticked = triple(
            table(&[&["3", "12:00:00"]]),
            table(&[&["3", "12:00:01"]]),
            table(&[&["3", "12:00:01"]]),
        );
        let outcome = judge(&sql, None, &ticked);
        assert_eq!(outcome.kind, Kind::Partial, "{outcome:?}");
        let reason = outcome.reason.unwrap();
        assert!(
            reason.starts_with("not comparable, because NOW() depends on the time of the call")
                && reason.contains("column 2 (c2)")
                && reason.contains(
                    "compared: the columns and their types, the row count, column 1 (c1)"
                ),
            "{reason}"
        );
        let changed = triple(
            table(&[&["3", "12:00:00"]]),
            table(&[&["4", "12:00:00"]]),
            table(&[&["3", "12:00:00"]]),
        );
        let outcome = judge(&sql, None, &changed);
        assert_eq!(outcome.kind, Kind::Different, "{outcome:?}");
        assert_eq!(
            outcome.rows,
            Some([Some("3".to_string()), Some("4".to_string())])
        );
    }

    #[test]
    fn a_first_side_that_disagrees_with_itself_is_not_comparable_never_different() {
        let sql = sample("SELECT id FROM t ORDER BY RAND() LIMIT 2");
        let random = triple(
            table(&[&["1"], &["5"]]),
            table(&[&["2"], &["7"]]),
            table(&[&["3"], &["4"]]),
        );
        let outcome = judge(&sql, None, &random);
        assert_eq!(outcome.kind, Kind::Partial);
        assert!(
            outcome
                .reason
                .as_deref()
                .unwrap()
                .contains("which rows come back"),
            "{outcome:?}"
        );
        let fewer = triple(
            table(&[&["1"], &["5"]]),
            table(&[&["2"]]),
            table(&[&["3"], &["4"]]),
        );
        assert_eq!(
            judge(&sql, None, &fewer).kind,
            Kind::Different,
            "the count is compared"
        );
        // No function named, but the rerun disagrees: a stored function, a clock.
        let plain = sample("SELECT f(id) FROM t WHERE id = ?");
        let drifting = triple(table(&[&["1"]]), table(&[&["2"]]), table(&[&["3"]]));
        let outcome = judge(&plain, None, &drifting);
        assert_eq!(outcome.kind, Kind::Partial);
        assert!(
            outcome
                .reason
                .unwrap()
                .contains("the baseline answered differently when asked again just after"),
        );
        let marked = judge(&plain, Some("f() reads the clock"), &drifting);
        assert!(
            marked
                .reason
                .unwrap()
                .contains("because f() reads the clock")
        );
    }

    #[test]
    fn a_limit_that_did_not_cut_is_compared_whole() {
        let sql = sample("SELECT c FROM t WHERE k = ? LIMIT 5");
        let few = triple(table(&[&["a"]]), table(&[&["b"]]), table(&[&["a"]]));
        assert_eq!(judge(&sql, None, &few).kind, Kind::Different);
        let sql = sample("SELECT c FROM t WHERE k = ? LIMIT 1");
        let outcome = judge(&sql, None, &few);
        assert_eq!(outcome.kind, Kind::Partial);
        assert!(outcome.reason.unwrap().contains("LIMIT without ORDER BY"));
    }
}
