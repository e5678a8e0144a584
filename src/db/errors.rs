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

/// A client error as a DBA reads it. The `mysql` crate's `Display` wraps its errors in
/// their Rust names (`MySqlError { ERROR 1045 … }`, `DriverError { … }`); this gives the
/// server's code and message, or the client's own words, and nothing else.
pub(crate) fn describe(error: &mysql::Error) -> String {
    let text = match error {
        mysql::Error::MySqlError(e) => {
            return format!("ERROR {} ({}): {}", e.code, e.state, e.message);
        }
        mysql::Error::DriverError(e) => e.to_string(),
        mysql::Error::IoError(e) => format!("I/O error: {e}"),
        mysql::Error::CodecError(e) => format!("the connection broke: {e}"),
        mysql::Error::UrlError(e) => e.to_string(),
        mysql::Error::TlsError(e) => format!("TLS: {e}"),
        other => other.to_string(),
    };
    match super::error_code(error) {
        2000 => text,
        code => format!("[{code}] {text}"),
    }
}

/// A client error in a round's short form, its code first as the counts show it:
/// `[1062] Duplicate entry '5' for key 'PRIMARY'`, `[2013] the connection broke: …`.
pub(crate) fn coded(error: &mysql::Error) -> String {
    match error {
        mysql::Error::MySqlError(e) => format!("[{}] {}", e.code, e.message),
        other => describe(other),
    }
}

/// What to check when a connection to a profile's server failed with `error`, naming the
/// profile setting; `None` when there is nothing more specific than the message.
pub(crate) fn connect_fix(error: &mysql::Error) -> Option<&'static str> {
    Some(match super::error_code(error) {
        1045 => {
            "check `user` and the password (`password_file`, `password_env` or `password`) in \
             the profile's [connection]"
        }
        1044 | 1049 => {
            "check `database` in the profile's [connection]: it must exist and the user needs \
             rights on it"
        }
        1130 => "the server refuses this user from the client's host: GRANT it for that host",
        1251 | 2059 => {
            "the server asks for an authentication plugin the client cannot use; for MySQL 8 \
             use caching_sha2_password or mysql_native_password"
        }
        2002 | 2003 => {
            "check `host` and `port` (or `socket`) in the profile's [connection], and that the \
             server is running"
        }
        2026 => "check `tls` and `tls_ca` in the profile's [connection]",
        _ if matches!(error, mysql::Error::TlsError(_)) => {
            "check `tls` and `tls_ca` in the profile's [connection]"
        }
        _ => return None,
    })
}

/// The message of an error chain as anyhow's `{:#}` gives it, causes joined by ": ",
/// with every `mysql` error in it told by [`describe`]: errors that reach the top
/// through `?` carry the crate's own wording otherwise.
pub(crate) fn chain_message(error: &anyhow::Error) -> String {
    error
        .chain()
        .map(|cause| match cause.downcast_ref::<mysql::Error>() {
            Some(e) => describe(e),
            None => cause.to_string(),
        })
        .collect::<Vec<_>>()
        .join(": ")
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
