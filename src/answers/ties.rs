//! Rows tied under an `ORDER BY` that a `LIMIT` cuts through. `ORDER BY sold DESC LIMIT
//! 5` with three products tied in fifth place returns any one of the three: which one
//! is the plan's choice, and two servers with the same data choose differently (seen on
//! an unchanged pair). Each server repeats its own choice, so the rerun of the first
//! side does not reveal it; the sort keys do.
//!
//! Two answers differ only by such a tie when every row's sort keys agree (the same
//! key values, as many times on each side) and the rows differ within a single group of
//! equal keys. The rows outside it are compared whole, and the keys of every row; a
//! changed value anywhere else, a changed key, or two groups that differ stay a
//! difference. Which group sits at the cut is not read (the keys' collation and
//! direction would be needed): a change confined to the rows of one tied group further
//! up is taken for a tie too, and the report says which keys it was. Keys the answer's
//! columns cannot show (an expression, a column not selected) leave the difference as
//! it is.

use super::answer::Answer;
use crate::db::nondeterministic::OrderKey;
use std::collections::BTreeMap;

/// The keys of the tied group in which the answers differ, as `sold = 12`, when that is
/// all that differs between them; `cut` says whether the `LIMIT` was reached.
pub(crate) fn tie_at_cut(
    baseline: &Answer,
    variant: &Answer,
    keys: &[OrderKey],
    cut: bool,
) -> Option<String> {
    let sides = [baseline, variant];
    if !cut || sides.iter().any(|a| a.error.is_some() || !a.whole()) {
        return None;
    }
    if baseline.columns != variant.columns || baseline.rows != variant.rows {
        return None;
    }
    let columns = key_columns(baseline, keys)?;
    let [a, b] = sides.map(|answer| groups(answer, &columns));
    let key_counts = |g: &BTreeMap<Vec<String>, Vec<Vec<String>>>| {
        g.iter()
            .map(|(k, rows)| (k.clone(), rows.len()))
            .collect::<Vec<_>>()
    };
    if key_counts(&a) != key_counts(&b) {
        return None;
    }
    let mut differing = a.iter().filter(|(key, rows)| b.get(*key) != Some(rows));
    let (key, _) = differing.next()?;
    if differing.next().is_some() {
        return None;
    }
    let named: Vec<String> = columns
        .iter()
        .zip(key)
        .map(|(&k, value)| format!("{} = {value}", baseline.columns[k].0))
        .collect();
    Some(named.join(", "))
}

/// The output column of each key, when every key names one.
fn key_columns(answer: &Answer, keys: &[OrderKey]) -> Option<Vec<usize>> {
    keys.iter()
        .map(|key| match key {
            OrderKey::Position(k) => (*k < answer.columns.len()).then_some(*k),
            OrderKey::Name(name) => {
                let mut matching = answer
                    .columns
                    .iter()
                    .enumerate()
                    .filter(|(_, (column, _))| column.eq_ignore_ascii_case(name));
                let (k, _) = matching.next()?;
                matching.next().is_none().then_some(k)
            }
            OrderKey::Expression => None,
        })
        .collect()
}

/// The rows grouped by their key values, each group sorted.
fn groups(answer: &Answer, columns: &[usize]) -> BTreeMap<Vec<String>, Vec<Vec<String>>> {
    let mut groups: BTreeMap<Vec<String>, Vec<Vec<String>>> = BTreeMap::new();
    for row in &answer.kept {
        let key = columns
            .iter()
            .map(|&k| row.get(k).cloned().unwrap_or_default())
            .collect();
        groups.entry(key).or_default().push(row.clone());
    }
    for rows in groups.values_mut() {
        rows.sort_unstable();
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(rows: &[[&str; 3]]) -> Answer {
        Answer::of_rows(
            ["id", "name", "sold"]
                .map(|c| (c.to_string(), "var_string".to_string()))
                .to_vec(),
            rows.iter()
                .map(|r| r.iter().map(|v| v.to_string()).collect())
                .collect(),
        )
    }

    fn sold() -> Vec<OrderKey> {
        vec![OrderKey::Name("SOLD".into())]
    }

    #[test]
    fn another_row_of_the_tied_group_at_the_cut_is_a_tie() {
        let a = answer(&[["1", "a", "30"], ["2", "b", "20"], ["3", "c", "12"]]);
        let b = answer(&[["1", "a", "30"], ["2", "b", "20"], ["7", "g", "12"]]);
        assert_eq!(
            tie_at_cut(&a, &b, &sold(), true).as_deref(),
            Some("sold = 12")
        );
        assert_eq!(
            tie_at_cut(&a, &b, &sold(), false),
            None,
            "the LIMIT did not cut"
        );
        let by_position = [OrderKey::Position(2)];
        assert!(tie_at_cut(&a, &b, &by_position, true).is_some());
    }

    #[test]
    fn a_changed_key_a_change_outside_the_tie_or_an_expression_stays_a_difference() {
        let a = answer(&[["1", "a", "30"], ["2", "b", "20"], ["3", "c", "12"]]);
        let key = answer(&[["1", "a", "30"], ["2", "b", "21"], ["3", "c", "12"]]);
        assert_eq!(tie_at_cut(&a, &key, &sold(), true), None);
        let two = answer(&[["1", "x", "30"], ["2", "b", "20"], ["7", "g", "12"]]);
        assert_eq!(
            tie_at_cut(&a, &two, &sold(), true),
            None,
            "two groups differ"
        );
        let named = answer(&[["1", "a", "30"], ["2", "b", "20"], ["7", "g", "12"]]);
        assert_eq!(tie_at_cut(&a, &named, &[OrderKey::Expression], true), None);
        assert_eq!(
            tie_at_cut(&a, &named, &[OrderKey::Name("price".into())], true),
            None,
            "a key the answer does not show"
        );
    }
}
