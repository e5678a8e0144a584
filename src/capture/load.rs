//! How hard the captured server was driven: the most sessions at work at once and the
//! span of the log, from the statements' timestamps (whole seconds, as the logs keep
//! them). `--threads captured` replays with that many client threads and `--rate
//! captured` at the log's transactions per second, so the replay is concurrent the way
//! production was, which pt-upgrade's one-statement-at-a-time replay is not.

use super::log::Logged;

/// The load a log shows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Load {
    /// The most connections whose first and last statements enclose one second.
    pub(crate) sessions: u32,
    /// From the first statement's second to the last one's, inclusive.
    pub(crate) seconds: u64,
}

/// The load of `statements`, when they carry timestamps.
pub(crate) fn of(statements: &[Logged]) -> Option<Load> {
    let mut spans: std::collections::BTreeMap<u64, (u64, u64)> = Default::default();
    for statement in statements {
        let Some(at) = statement.at else { continue };
        let span = spans.entry(statement.connection).or_insert((at, at));
        span.0 = span.0.min(at);
        span.1 = span.1.max(at);
    }
    let first = spans.values().map(|s| s.0).min()?;
    let last = spans.values().map(|s| s.1).max()?;
    // A session counts from its first second to its last, inclusive: it leaves at the
    // second after, which sorts before any arrival at that second.
    let mut changes: Vec<(u64, i64)> = spans
        .values()
        .flat_map(|&(from, to)| [(from, 1), (to + 1, -1)])
        .collect();
    changes.sort();
    let (mut now, mut most) = (0_i64, 0_i64);
    for (_, change) in changes {
        now += change;
        most = most.max(now);
    }
    Some(Load {
        sessions: u32::try_from(most).unwrap_or(u32::MAX),
        seconds: last - first + 1,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(connection: u64, second: u64) -> Logged {
        Logged {
            connection,
            text: "SELECT 1".into(),
            line: 1,
            at: Some(second),
        }
    }

    #[test]
    fn sessions_are_counted_while_they_overlap() {
        // 1 runs 10..=14, 2 runs 12..=20, 3 runs 15..=16: at most two at once.
        let log = [
            at(1, 10),
            at(1, 14),
            at(2, 12),
            at(2, 20),
            at(3, 15),
            at(3, 16),
        ];
        assert_eq!(
            of(&log),
            Some(Load {
                sessions: 2,
                seconds: 11
            })
        );
        let untimed = Logged {
            at: None,
            ..at(1, 0)
        };
        assert_eq!(of(&[untimed]), None);
    }
}
