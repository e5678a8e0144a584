//! What one event did, statement by statement: the statements it completed by kind
//! (sysbench's reads/writes/other, [`QueryCounts`]) and how long each took, by query
//! class. Both kinds of workload log through it, so it names no other workload file.
//!
//! A plan change after an upgrade slows one query class; inside a transaction of
//! eighteen statements that is lost in the transaction's latency. Timing every
//! statement costs two clock reads, and the worker keeps the times only of events it
//! measures, so the warm-up and failed events never reach a class's histogram.

use std::time::Instant;

/// Statements executed by kind, as sysbench reports reads/writes/other.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct QueryCounts {
    /// SELECT statements.
    pub(crate) read: u64,
    /// UPDATE, DELETE and INSERT statements.
    pub(crate) write: u64,
    /// BEGIN and COMMIT.
    pub(crate) other: u64,
}

impl QueryCounts {
    /// Adds another set of counts.
    pub(crate) fn add(&mut self, other: &QueryCounts) {
        self.read += other.read;
        self.write += other.write;
        self.other += other.other;
    }

    /// All statements.
    pub(crate) fn total(&self) -> u64 {
        self.read + self.write + self.other
    }
}

/// How a statement is counted, as sysbench counts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StatementKind {
    /// SELECT and other statements that return rows.
    Read,
    /// INSERT, UPDATE, DELETE, REPLACE.
    Write,
    /// BEGIN, COMMIT and everything else.
    Other,
}

/// A query class: its index in the workload's list of classes (`query_classes`).
pub(crate) type ClassId = u16;

/// The statements of one event.
#[derive(Debug, Default)]
pub(crate) struct EventLog {
    /// Statements completed, by kind.
    pub(crate) counts: QueryCounts,
    /// Each completed statement's class and latency in µs, in the order they ran.
    times: Vec<(ClassId, u64)>,
}

impl EventLog {
    /// Forgets the previous event, keeping the buffer.
    pub(crate) fn clear(&mut self) {
        self.counts = QueryCounts::default();
        self.times.clear();
    }

    /// Runs one statement of `class` and, when it completes, counts it as `kind` and
    /// keeps its latency.
    pub(crate) fn statement<T, E>(
        &mut self,
        class: ClassId,
        kind: StatementKind,
        run: impl FnOnce() -> Result<T, E>,
    ) -> Result<T, E> {
        let started = Instant::now();
        let outcome = run()?;
        self.times
            .push((class, started.elapsed().as_micros() as u64));
        match kind {
            StatementKind::Read => self.counts.read += 1,
            StatementKind::Write => self.counts.write += 1,
            StatementKind::Other => self.counts.other += 1,
        }
        Ok(outcome)
    }

    /// Each completed statement's class and latency in µs, in the order they ran.
    pub(crate) fn times(&self) -> &[(ClassId, u64)] {
        &self.times
    }
}

/// Names query classes and hands out their ids, each name once, in order of first use.
#[derive(Debug, Default)]
pub(crate) struct ClassNames(Vec<String>);

impl ClassNames {
    /// The id of `name`, added if new.
    pub(crate) fn id(&mut self, name: &str) -> ClassId {
        let index = match self.0.iter().position(|known| known == name) {
            Some(index) => index,
            None => {
                self.0.push(name.to_string());
                self.0.len() - 1
            }
        };
        ClassId::try_from(index).unwrap_or(ClassId::MAX)
    }

    /// The names, by id.
    pub(crate) fn into_names(self) -> Vec<String> {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_statement_is_counted_and_timed_only_when_it_completes() {
        let mut log = EventLog::default();
        log.statement(0, StatementKind::Read, || Ok::<_, ()>(()))
            .unwrap();
        log.statement(1, StatementKind::Write, || Err::<(), _>(()))
            .unwrap_err();
        log.statement(2, StatementKind::Other, || Ok::<_, ()>(()))
            .unwrap();
        assert_eq!(
            log.counts,
            QueryCounts {
                read: 1,
                write: 0,
                other: 1
            }
        );
        let classes: Vec<ClassId> = log.times().iter().map(|(class, _)| *class).collect();
        assert_eq!(classes, [0, 2]);
        log.clear();
        assert!(log.times().is_empty() && log.counts.total() == 0);
    }

    #[test]
    fn a_name_gets_one_id() {
        let mut names = ClassNames::default();
        assert_eq!(names.id("BEGIN"), 0);
        assert_eq!(names.id("point select"), 1);
        assert_eq!(names.id("BEGIN"), 0);
        assert_eq!(names.into_names(), ["BEGIN", "point select"]);
    }
}
