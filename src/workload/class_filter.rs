//! Leaving query classes of a workload file out: the user's choice before anything runs
//! (`--exclude-class`, `--only-class`), or a class that failed on one side, left out of
//! the timed rounds so that one stricter `sql_mode` does not end a whole replay.
//!
//! A class is one statement as the file writes it, numbered in file order as the dry
//! run lists them (BEGIN and COMMIT are not classes one can choose). A selector is that
//! number, or text: the statement's pt-query-digest fingerprint, or any part of the
//! statement (case and spacing ignored). A statement runs inside its transaction, so
//! leaving a class out leaves out every transaction that has it; what is left must still
//! run something.

use std::collections::BTreeSet;

use crate::exit::UsageError;
use crate::workload::custom::CustomWorkload;

/// The classes a user can choose among: every statement of the file, in file order,
/// each once.
pub(crate) fn numbered(workload: &CustomWorkload) -> Vec<&str> {
    let mut seen = BTreeSet::new();
    workload
        .transactions
        .iter()
        .flat_map(|t| &t.statements)
        .filter(|sql| seen.insert(sql.as_str()))
        .map(String::as_str)
        .collect()
}

/// `workload` with only the classes `only` selects (all when empty) and without those
/// `exclude` selects; a selector that matches no class, or a choice that leaves nothing
/// to run, is refused with the classes to choose from.
/// With the workload, the file's number of each class it keeps (empty when nothing
/// was chosen: then the numbers count from 1).
pub(crate) fn choose(
    workload: CustomWorkload,
    exclude: &[String],
    only: &[String],
) -> anyhow::Result<(CustomWorkload, Vec<u32>)> {
    if exclude.is_empty() && only.is_empty() {
        return Ok((workload, Vec::new()));
    }
    let classes = numbered(&workload);
    let chosen = |flag: &str, selectors: &[String]| -> anyhow::Result<BTreeSet<String>> {
        let mut found = BTreeSet::new();
        for selector in selectors {
            let hits = matching(&classes, selector);
            if hits.is_empty() {
                return Err(UsageError::err(format!(
                    "{flag} {selector:?} matches no query class of the workload file; give a \
                     number, a fingerprint or part of a statement. The classes:\n{}",
                    listing(&classes)
                )));
            }
            found.extend(hits);
        }
        Ok(found)
    };
    let excluded = chosen("--exclude-class", exclude)?;
    let kept = chosen("--only-class", only)?;
    let left_out: BTreeSet<String> = classes
        .iter()
        .filter(|c| excluded.contains(**c) || (!only.is_empty() && !kept.contains(**c)))
        .map(|c| c.to_string())
        .collect();
    let left = without(&workload, &left_out).ok_or_else(|| {
        UsageError::err(format!(
            "--exclude-class/--only-class leave no transaction to run: every transaction of \
             the workload file has a class left out. The classes:\n{}",
            listing(&classes)
        ))
    })?;
    let numbers = numbered(&left)
        .iter()
        .filter_map(|kept| classes.iter().position(|c| c == kept))
        .map(|at| at as u32 + 1)
        .collect();
    Ok((left, numbers))
}

/// `workload` without the transactions that run any of `classes`, its parameters and
/// marks of non-determinism kept only where a statement left uses them; `None` when no
/// transaction would be left.
pub(crate) fn without(
    workload: &CustomWorkload,
    classes: &BTreeSet<String>,
) -> Option<CustomWorkload> {
    let mut left = workload.clone();
    left.transactions
        .retain(|t| !t.statements.iter().any(|sql| classes.contains(sql)));
    if left.transactions.is_empty() {
        return None;
    }
    let statements: Vec<&String> = left
        .transactions
        .iter()
        .flat_map(|t| &t.statements)
        .collect();
    left.nondeterministic
        .retain(|sql, _| statements.contains(&sql));
    left.writes = workload.writes && statements.iter().any(|sql| CustomWorkload::is_write(sql));
    Some(left)
}

/// The names of the transactions `without` leaves out, for the note that says so.
pub(crate) fn transactions_left_out(
    workload: &CustomWorkload,
    classes: &BTreeSet<String>,
) -> Vec<String> {
    workload
        .transactions
        .iter()
        .filter(|t| t.statements.iter().any(|sql| classes.contains(sql)))
        .map(|t| t.name.clone())
        .collect()
}

/// The classes `selector` names: by number, by fingerprint, or containing its text.
fn matching(classes: &[&str], selector: &str) -> Vec<String> {
    let selector = selector.trim();
    if let Ok(n) = selector.parse::<usize>() {
        return classes
            .get(n.wrapping_sub(1))
            .map(|c| vec![c.to_string()])
            .unwrap_or_default();
    }
    let wanted = squeezed(selector);
    // A fingerprint as pasted from a report, spaced as the report spaced it or not.
    let unspaced = |text: &str| text.split_whitespace().collect::<String>();
    let print = unspaced(&crate::db::fingerprint::fingerprint(selector));
    classes
        .iter()
        .filter(|c| squeezed(c).contains(&wanted) || unspaced(&fingerprint(c)) == print)
        .map(|c| c.to_string())
        .collect()
}

/// The fingerprint of a class: its `{placeholders}` read as the literals they stand for.
fn fingerprint(class: &str) -> String {
    static PLACEHOLDER: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"\{[^{}]*\}").expect("a valid pattern"));
    crate::db::fingerprint::fingerprint(&PLACEHOLDER.replace_all(class, "0"))
}

/// Text in lower case with every run of white space one space.
fn squeezed(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// The classes numbered, one a line, as the dry run lists them.
pub(crate) fn listing(classes: &[&str]) -> String {
    numbered_listing(classes, &[])
}

/// The classes one a line, each with its number in the file (`numbers`, or from 1).
pub(crate) fn numbered_listing(classes: &[&str], numbers: &[u32]) -> String {
    classes
        .iter()
        .enumerate()
        .map(|(i, sql)| {
            let n = numbers.get(i).copied().unwrap_or(i as u32 + 1);
            format!("  {n:>3}  {sql}")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::custom::tests::load;

    const FILE: &str = r#"
sbtest = true
[params]
id = { type = "id" }
k = { type = "int", min = 1, max = 100 }
[[transaction]]
name = "lookup"
weight = 9
statements = ["SELECT c FROM sbtest1 WHERE id = {id}"]
[[transaction]]
name = "count"
statements = ["SELECT COUNT(*) FROM sbtest1 WHERE k = {k}", "SELECT NOW()"]
[[transaction]]
name = "touch"
statements = ["UPDATE sbtest1 SET k = k + 1 WHERE id = {id}"]
"#;

    fn names(w: &CustomWorkload) -> Vec<&str> {
        w.transactions.iter().map(|t| t.name.as_str()).collect()
    }

    #[test]
    fn a_class_is_chosen_by_number_fingerprint_or_text() {
        let w = load(FILE).unwrap();
        let (by_number, numbers) = choose(w.clone(), &["2".into()], &[]).unwrap();
        assert_eq!(numbers, [1, 4], "the file's numbers of the classes kept");
        assert_eq!(names(&by_number), ["lookup", "touch"]);
        let (by_print, _) = choose(
            w.clone(),
            &["select count(*) from sbtest? where k=?".into()],
            &[],
        )
        .unwrap();
        assert_eq!(names(&by_print), ["lookup", "touch"]);
        let (by_text, _) = choose(w.clone(), &[], &["select  c from".into()]).unwrap();
        assert_eq!(names(&by_text), ["lookup"]);
        assert!(!by_text.writes || !w.writes);
    }

    #[test]
    fn a_selector_that_matches_nothing_or_leaves_nothing_is_refused_with_the_list() {
        let w = load(FILE).unwrap();
        let none = choose(w.clone(), &["9".into()], &[])
            .unwrap_err()
            .to_string();
        assert!(
            none.contains("matches no query class") && none.contains("  1  SELECT c"),
            "{none}"
        );
        let zero = choose(w.clone(), &["0".into()], &[])
            .unwrap_err()
            .to_string();
        assert!(zero.contains("matches no query class"), "{zero}");
        let all = choose(w, &["sbtest1".into()], &[]).unwrap_err().to_string();
        assert!(all.contains("leave no transaction"), "{all}");
    }

    #[test]
    fn leaving_a_class_out_takes_its_transaction_and_its_marks() {
        let mut w = load(FILE).unwrap();
        w.nondeterministic
            .insert("SELECT NOW()".into(), "the time".into());
        let classes: BTreeSet<String> = ["SELECT NOW()".to_string()].into();
        assert_eq!(transactions_left_out(&w, &classes), ["count"]);
        let left = without(&w, &classes).unwrap();
        assert!(left.nondeterministic.is_empty());
        assert_eq!(numbered(&left).len(), 2);
    }
}
