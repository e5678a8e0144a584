//! Where two answers differ, for people: the first row in sorted order that one side's
//! multiset has and the other's lacks, for each side, and for a long value (a
//! GROUP_CONCAT cut short, a JSON document) the character where the two first differ,
//! with the text around it and both lengths, since both rows may print the same prefix
//! for as long as a terminal line.

use std::cmp::Ordering;

/// The first differing row of each side.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct FirstDifference {
    /// The first row (in sorted order) the first side has more often than the other.
    pub(crate) first: Option<Vec<String>>,
    /// The same for the other side.
    pub(crate) second: Option<Vec<String>>,
    /// Whether the search stopped at the end of the rows kept of a side that has more.
    pub(crate) beyond_kept: bool,
}

/// The first row of each sorted multiset that the other lacks; `*_whole` says whether a
/// list holds every row of its answer (else only its smallest ones).
pub(crate) fn first_difference(
    first: &[Vec<String>],
    first_whole: bool,
    second: &[Vec<String>],
    second_whole: bool,
) -> FirstDifference {
    let mut found = FirstDifference::default();
    let (mut i, mut j) = (0, 0);
    while found.first.is_none() || found.second.is_none() {
        let order = match (first.get(i), second.get(j)) {
            (Some(a), Some(b)) => a.cmp(b),
            (Some(_), None) if second_whole => Ordering::Less,
            (None, Some(_)) if first_whole => Ordering::Greater,
            (None, None) => {
                found.beyond_kept = !(first_whole && second_whole);
                break;
            }
            _ => {
                found.beyond_kept = true;
                break;
            }
        };
        match order {
            Ordering::Equal => (i, j) = (i + 1, j + 1),
            Ordering::Less => {
                found.first.get_or_insert_with(|| first[i].clone());
                i += 1;
            }
            Ordering::Greater => {
                found.second.get_or_insert_with(|| second[j].clone());
                j += 1;
            }
        }
    }
    found
}

/// The shortest value whose difference is described by position: shorter ones are read
/// whole in the rows shown.
const LONG: usize = 60;

/// Characters shown on each side of the first differing one.
const AROUND: usize = 24;

/// Where two rows first differ, when the differing value is long: `column 2 (g)
/// differs at character 1025: baseline "…abc|def…" (1100 characters), variant "…abc|"
/// (1024 characters)`. `names` are the columns' names.
pub(crate) fn where_they_differ(
    names: &[String],
    first: &[String],
    second: &[String],
    sides: [&str; 2],
) -> Option<String> {
    let column = (0..first.len().min(second.len())).find(|&k| first[k] != second[k])?;
    let (a, b): (Vec<char>, Vec<char>) = (
        first[column].chars().collect(),
        second[column].chars().collect(),
    );
    if a.len().max(b.len()) < LONG {
        return None;
    }
    let at = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let name = names
        .get(column)
        .map_or(String::new(), |n| format!(" ({n})"));
    Some(format!(
        "column {}{name} differs at character {}: {} \"{}\" ({} characters), {} \"{}\" ({} \
         characters)",
        column + 1,
        at + 1,
        sides[0],
        around(&a, at),
        a.len(),
        sides[1],
        around(&b, at),
        b.len()
    ))
}

/// The text around position `at`, the position marked `|`, cut ends marked `…`.
fn around(text: &[char], at: usize) -> String {
    let start = at.saturating_sub(AROUND);
    let end = (at + AROUND).min(text.len());
    let before: String = text[start..at.min(text.len())].iter().collect();
    let after: String = text[at.min(text.len())..end].iter().collect();
    format!(
        "{}{before}|{after}{}",
        if start > 0 { "…" } else { "" },
        if end < text.len() { "…" } else { "" }
    )
}

/// A row's text cut to `width` characters, its length said when cut.
pub(crate) fn shown(row: &str, width: usize) -> String {
    let length = row.chars().count();
    if length <= width {
        return row.to_string();
    }
    let cut: String = row.chars().take(width).collect();
    format!("{cut}… ({length} characters)")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(rows: &[&str]) -> Vec<Vec<String>> {
        let mut rows: Vec<Vec<String>> = rows.iter().map(|r| vec![r.to_string()]).collect();
        rows.sort();
        rows
    }

    #[test]
    fn the_first_row_each_side_lacks_is_found_as_a_multiset() {
        let found = first_difference(
            &sorted(&["a", "b", "b", "d"]),
            true,
            &sorted(&["a", "b", "c", "d"]),
            true,
        );
        assert_eq!(found.first, Some(vec!["b".to_string()]));
        assert_eq!(found.second, Some(vec!["c".to_string()]));
        assert!(!found.beyond_kept);
        let fewer = first_difference(&sorted(&["a", "b"]), true, &sorted(&["a"]), true);
        assert_eq!((fewer.first.is_some(), fewer.second), (true, None));
        let cut = first_difference(&sorted(&["a", "b"]), false, &sorted(&["a", "b"]), false);
        assert!(cut.beyond_kept && cut.first.is_none());
    }

    #[test]
    fn a_long_value_says_where_it_differs_and_both_lengths() {
        let full = format!("{}xyz", "ab,".repeat(30));
        let cut = "ab,".repeat(30);
        let text = where_they_differ(
            &["id".into(), "g".into()],
            &["1".into(), full.clone()],
            &["1".into(), cut],
            ["baseline", "variant"],
        )
        .unwrap();
        assert!(
            text.starts_with("column 2 (g) differs at character 91: baseline \"…")
                && text.contains("ab,|xyz\" (93 characters)")
                && text.contains("variant \"…ab,ab,ab,ab,ab,ab,ab,ab,|\" (90 characters)"),
            "{text}"
        );
        assert_eq!(
            where_they_differ(&[], &["a".into()], &["b".into()], ["x", "y"]),
            None,
            "short values are read whole"
        );
        assert_eq!(shown("abcdef", 3), "abc… (6 characters)");
    }
}
