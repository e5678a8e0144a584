//! The read statements `--check-results` runs on both sides: what a sample is
//! ([`ReadSample`], as both kinds of workload draw it) and how many of each class are
//! drawn ([`Coverage`]), and the sampling of a workload file: every read class (each
//! distinct statement) with its parameters drawn and its table inlined. A built-in
//! workload draws its own samples (`oltp`).
//!
//! A single changed row is found only if some statement reads it, so the captured values
//! are walked, not drawn: the j-th statement of a class takes the j-th value of each of
//! its `choice` (and captured table) parameters, most frequent first, and an `int`
//! range is walked from its low end in even steps. `--check-results N` spreads N over
//! the classes by how often the workload runs them, with a floor of [`MIN_PER_CLASS`];
//! `--check-results all` runs each class once per value of its parameter with the most
//! values (a range of up to [`MAX_WALKED_RANGE`] values counts whole), so every captured
//! value is read once, as pt-upgrade reads every logged statement.

use std::collections::BTreeMap;

use mysql::Value;

use super::custom::{CustomWorkload, Param, Sums, Variants, bind, bound, draw, render};
use super::event_log::StatementKind;
use super::placeholder::{Placeholder, placeholders};
use super::random::WorkloadRng;

/// A read statement with its parameters drawn, for comparing the sides' answers.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ReadSample {
    /// Its query class: the statement's template, tables folded (`sbtestN`, `{t}`).
    pub(crate) class: String,
    /// The statement, with `?` for each parameter.
    pub(crate) sql: String,
    /// The parameters, in order.
    pub(crate) params: Vec<Value>,
}

/// The fewest statements of a read class that `--check-results` compares.
pub(crate) const MIN_PER_CLASS: u32 = 3;

/// The widest `int` range `--check-results all` walks whole; a wider one counts as
/// drawn (it was a row id over a big table, not a list of values).
pub(crate) const MAX_WALKED_RANGE: i64 = 10_000;

/// How many statements of each read class are compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Coverage {
    /// About this many in all, spread by weight, at least [`MIN_PER_CLASS`] a class.
    Spread(u32),
    /// Each class once per value of its parameter with the most captured values.
    EveryValue,
}

/// Where a sample of a workload file draws from.
pub(crate) struct Draw<'a> {
    /// The generator of the values that are not walked.
    pub(crate) rng: &'a mut WorkloadRng,
    /// `--tables`.
    pub(crate) tables: u32,
    /// `--table-size`.
    pub(crate) table_size: u32,
}

impl CustomWorkload {
    /// The read statements to compare, by `coverage`, classes in file order.
    pub(crate) fn sample_reads(&self, from: Draw<'_>, coverage: Coverage) -> Vec<ReadSample> {
        let sums: BTreeMap<&String, Sums> = self
            .params
            .iter()
            .filter_map(|(name, param)| Some((name, param.cumulative()?)))
            .collect();
        let Draw {
            rng,
            tables,
            table_size,
        } = from;
        let mut samples = Vec::new();
        for (sql, count) in self.read_class_counts(coverage) {
            let found = placeholders(sql).unwrap_or_default();
            let bound = bound(self, sql);
            let variants = Variants::of(self, sql, tables);
            for nth in 0..count as usize {
                let mut values: BTreeMap<String, Vec<Value>> = BTreeMap::new();
                for Placeholder { name, .. } in &found {
                    if values.contains_key(*name) {
                        continue;
                    }
                    let param = &self.params[*name];
                    let value = walked(param, nth, count as usize).unwrap_or_else(|| {
                        draw(param, sums.get(&name.to_string()), rng, tables, table_size)
                    });
                    values.insert(name.to_string(), value);
                }
                let (table, lengths) = variants.nth(variants.index(&values));
                samples.push(ReadSample {
                    class: sql.clone(),
                    sql: render(sql, self, tables, table, &lengths),
                    params: bind(&bound, &values),
                });
            }
        }
        samples
    }

    /// Each read class with how many of its statements are compared, in file order.
    pub(crate) fn read_class_counts(&self, coverage: Coverage) -> Vec<(&String, u32)> {
        let mut weights: Vec<(&String, u64)> = Vec::new();
        for transaction in &self.transactions {
            for sql in &transaction.statements {
                if Self::kind(sql) != StatementKind::Read {
                    continue;
                }
                match weights.iter_mut().find(|(s, _)| *s == sql) {
                    Some((_, weight)) => *weight += u64::from(transaction.weight),
                    None => weights.push((sql, u64::from(transaction.weight))),
                }
            }
        }
        let total: u64 = weights.iter().map(|(_, w)| w).sum::<u64>().max(1);
        weights
            .into_iter()
            .map(|(sql, weight)| {
                let count = match coverage {
                    Coverage::Spread(n) => (u64::from(n) * weight).div_ceil(total) as u32,
                    Coverage::EveryValue => self.captured_values(sql),
                };
                (sql, count.max(MIN_PER_CLASS))
            })
            .collect()
    }

    /// The most captured values among a statement's parameters.
    fn captured_values(&self, sql: &str) -> u32 {
        placeholders(sql)
            .unwrap_or_default()
            .iter()
            .filter_map(|p| match &self.params[p.name] {
                Param::Choice { values, .. } => Some(values.len()),
                Param::Pair { values, .. } => Some(values.len()),
                Param::Table { values, .. } => Some(values.len()),
                Param::Int { min, max } => {
                    let span = max.saturating_sub(*min).saturating_add(1);
                    (span <= MAX_WALKED_RANGE).then_some(span as usize)
                }
                _ => None,
            })
            .max()
            .unwrap_or(0) as u32
    }
}

/// The `nth` of `count` values of a parameter that is walked: a `choice`, `pair` or
/// captured table in turn, an `int` range in even steps from its low end (every value
/// when `count` reaches its width); `None` for a parameter that is drawn (a list too).
fn walked(param: &Param, nth: usize, count: usize) -> Option<Vec<Value>> {
    if let Param::Pair { values, .. } = param {
        let (low, high) = values.get(nth % values.len().max(1))?;
        return Some(vec![low.to_value(), high.to_value()]);
    }
    walked_one(param, nth, count).map(|value| vec![value])
}

fn walked_one(param: &Param, nth: usize, count: usize) -> Option<Value> {
    match param {
        Param::Int { min, max } => {
            let span = i128::from(*max) - i128::from(*min) + 1;
            let step = if count as i128 >= span {
                nth as i128 % span
            } else {
                nth as i128 * span / count as i128
            };
            Some(Value::from((i128::from(*min) + step) as i64))
        }
        Param::Choice { values, .. } if !values.is_empty() => {
            Some(values[nth % values.len()].to_value())
        }
        Param::Table { values, .. } if !values.is_empty() => {
            Some(Value::from(nth % values.len() + 1))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::custom::tests::{SAMPLE, load};

    #[test]
    fn every_read_class_gets_at_least_the_floor() {
        let workload = load(&format!(
            "{SAMPLE}\n[[transaction]]\nname = \"again\"\nstatements = [\"SELECT c FROM sbtest{{t}} WHERE id = {{id}}\", \"SELECT 1\"]\n"
        ))
        .unwrap();
        let counts = workload.read_class_counts(Coverage::Spread(2));
        let rare = counts.iter().find(|(sql, _)| sql.as_str() == "SELECT 1");
        assert_eq!(
            rare.map(|(_, n)| *n),
            Some(MIN_PER_CLASS),
            "a rare class still gets the floor"
        );
        assert!(counts.iter().map(|(_, n)| n).sum::<u32>() >= 6);
    }

    #[test]
    fn captured_values_are_walked_so_every_one_is_read() {
        let workload = load(
            "[params]\nid = { type = \"choice\", values = [5, 6, 7, 8, 9], weights = [9, 1, 1, 1, 1] }\n\
             [[transaction]]\nname = \"x\"\nstatements = [\"SELECT c FROM items WHERE id = {id}\"]\n",
        )
        .unwrap();
        let mut rng = WorkloadRng::seeded(3);
        let draw = Draw {
            rng: &mut rng,
            tables: 1,
            table_size: 10,
        };
        let every = workload.sample_reads(draw, Coverage::EveryValue);
        let ids: Vec<Value> = every.iter().map(|s| s.params[0].clone()).collect();
        assert_eq!(ids, [5, 6, 7, 8, 9].map(Value::from));
        let mut rng = WorkloadRng::seeded(3);
        let draw = Draw {
            rng: &mut rng,
            tables: 1,
            table_size: 10,
        };
        assert_eq!(workload.sample_reads(draw, Coverage::Spread(3)).len(), 3);
    }

    #[test]
    fn a_range_is_walked_whole_or_in_even_steps() {
        let range = Param::Int { min: 1, max: 50 };
        let whole: Vec<Value> = (0..60).filter_map(|n| walked_one(&range, n, 60)).collect();
        assert_eq!(
            whole[..50],
            (1..=50).map(Value::from).collect::<Vec<_>>()[..]
        );
        let steps: Vec<Value> = (0..5).filter_map(|n| walked_one(&range, n, 5)).collect();
        assert_eq!(steps, [1, 11, 21, 31, 41].map(Value::from));
        assert_eq!(walked(&Param::Id, 0, 5), None);
    }
}
