//! What a worker does with a failed event. sysbench retries deadlocks and lock wait
//! timeouts; abtest does the same, rolls back first, counts every error by its code, and
//! re-opens lost connections with a count, so a run survives what a real client would.

use serde::{Deserialize, Serialize};

/// sysbench's default ignorable errors: deadlock, lock wait timeout, "record changed".
pub(crate) const DEFAULT_IGNORED: [u16; 3] = [1213, 1205, 1020];

/// Lost-connection errors that trigger a reconnect: server gone away, lost connection,
/// can't connect, connection killed (MariaDB 1927), shutdown in progress.
pub(crate) const CONNECTION_LOST: [u16; 6] = [2006, 2013, 2002, 2003, 1927, 1053];

/// Which server errors are counted and retried instead of ending the round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum IgnoreErrors {
    /// These codes.
    Codes(Vec<u16>),
    /// Every error.
    All,
}

impl Default for IgnoreErrors {
    fn default() -> Self {
        IgnoreErrors::Codes(DEFAULT_IGNORED.to_vec())
    }
}

impl IgnoreErrors {
    /// Parses `all` or a comma-separated list of codes (which replaces the default list).
    pub(crate) fn parse(text: &str) -> Result<IgnoreErrors, String> {
        if text.trim().eq_ignore_ascii_case("all") {
            return Ok(IgnoreErrors::All);
        }
        text.split(',')
            .map(|code| {
                code.trim().parse::<u16>().map_err(|_| {
                    format!(
                        "`{code}` is not a MySQL error code; use codes such as 1213,1205 or `all`"
                    )
                })
            })
            .collect::<Result<Vec<_>, _>>()
            .map(IgnoreErrors::Codes)
    }

    /// Whether `code` is counted and retried.
    pub(crate) fn ignores(&self, code: u16) -> bool {
        match self {
            IgnoreErrors::All => true,
            IgnoreErrors::Codes(codes) => codes.contains(&code),
        }
    }
}

/// What to do after an event failed with `code`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Recovery {
    /// Roll back and run the next event.
    Retry,
    /// Open a new connection, prepare again, run the next event.
    Reconnect,
    /// End the round.
    Fail,
}

/// The recovery for an error code under a policy.
pub(crate) fn recovery(code: u16, policy: &IgnoreErrors) -> Recovery {
    if CONNECTION_LOST.contains(&code) {
        Recovery::Reconnect
    } else if policy.ignores(code) {
        Recovery::Retry
    } else {
        Recovery::Fail
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policies() {
        let default = IgnoreErrors::default();
        assert_eq!(recovery(1213, &default), Recovery::Retry);
        assert_eq!(recovery(1062, &default), Recovery::Fail);
        assert_eq!(recovery(2013, &default), Recovery::Reconnect);
        assert_eq!(recovery(1062, &IgnoreErrors::All), Recovery::Retry);
        assert_eq!(
            IgnoreErrors::parse("1062, 1213").unwrap(),
            IgnoreErrors::Codes(vec![1062, 1213])
        );
        assert!(IgnoreErrors::parse("dup").is_err());
    }
}
