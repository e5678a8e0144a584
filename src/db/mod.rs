//! Client connections. Every connection uses the transport the profile chose: the
//! mysql crate's `prefer_socket` would otherwise silently move a loopback TCP connection
//! to the Unix socket, and a TLS comparison would measure nothing.

pub(crate) mod errors;
pub(crate) mod fingerprint;
pub(crate) mod lexer;
pub(crate) mod nondeterministic;
pub(crate) mod set_statement;
pub(crate) mod sql_text;
pub(crate) mod written_table;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use mysql::{Conn, Opts, OptsBuilder, SslOpts};
use serde::{Deserialize, Serialize};

use crate::profile::TlsMode;
use crate::secret::Secret;

/// A network address or a Unix socket.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Endpoint {
    /// TCP host and port.
    Tcp {
        /// Host name or address.
        host: String,
        /// Port.
        port: u16,
    },
    /// Unix socket path.
    Socket {
        /// Socket path.
        path: PathBuf,
    },
}

impl std::fmt::Display for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Endpoint::Tcp { host, port } => write!(f, "{host}:{port}"),
            Endpoint::Socket { path } => write!(f, "{}", path.display()),
        }
    }
}

/// Client-side settings applied to every connection of a side.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct ClientSpec {
    /// TLS mode.
    pub(crate) tls: TlsMode,
    /// CA certificate for verification.
    pub(crate) tls_ca: Option<PathBuf>,
    /// `SET SESSION` assignments, values already rendered as SQL literals.
    pub(crate) session: BTreeMap<String, String>,
}

/// Everything needed to open a connection to one side.
#[derive(Debug, Clone)]
pub struct ConnectSpec {
    /// Where the server listens.
    pub(crate) endpoint: Endpoint,
    /// Login name.
    pub user: String,
    /// Password.
    pub(crate) password: Option<Secret>,
    /// Default database.
    pub(crate) database: Option<String>,
    /// TLS mode.
    pub(crate) tls: TlsMode,
    /// CA certificate for verify modes.
    pub(crate) tls_ca: Option<PathBuf>,
    /// `SET SESSION` statements run on every (re)connect.
    pub(crate) init: Vec<String>,
    /// Connect timeout.
    pub(crate) connect_timeout: Duration,
    /// Read/write timeout of a statement, if any.
    pub(crate) io_timeout: Option<Duration>,
}

impl ConnectSpec {
    /// A spec with the client settings of a profile applied.
    pub(crate) fn new(
        endpoint: Endpoint,
        user: &str,
        password: Option<Secret>,
        database: Option<&str>,
        client: &ClientSpec,
    ) -> Self {
        ConnectSpec {
            endpoint,
            user: user.to_string(),
            password,
            database: database.map(str::to_string),
            tls: client.tls,
            tls_ca: client.tls_ca.clone(),
            init: client
                .session
                .iter()
                .map(|(key, value)| format!("SET SESSION {key} = {value}"))
                .collect(),
            connect_timeout: Duration::from_secs(5),
            io_timeout: None,
        }
    }

    /// Whether both specs reach the same server address.
    pub(crate) fn same_server(&self, other: &ConnectSpec) -> bool {
        self.endpoint == other.endpoint
    }

    /// Whether both specs reach the same database on the same server address.
    pub(crate) fn same_database(&self, other: &ConnectSpec) -> bool {
        self.same_server(other) && self.database == other.database
    }

    /// Opens a connection, honouring the TLS mode. `preferred` falls back to plain text
    /// only when the server does not offer TLS: after any other failure (a wrong
    /// password, a failed handshake) a second, unencrypted login would be a downgrade.
    pub(crate) fn connect(&self) -> Result<Conn, mysql::Error> {
        match self.tls {
            TlsMode::Preferred => match Conn::new(self.opts(true)) {
                Err(error) if server_lacks_tls(&error) => Conn::new(self.opts(false)),
                other => other,
            },
            TlsMode::Disabled => Conn::new(self.opts(false)),
            _ => Conn::new(self.opts(true)),
        }
    }

    /// For `tls = "preferred"`, the notice that `conn` fell back to plain text because
    /// the server offers no TLS; `None` when it is encrypted or TLS was not preferred.
    pub(crate) fn plain_text_notice(&self, conn: &mut Conn) -> Option<String> {
        use mysql::prelude::Queryable;
        if self.tls != TlsMode::Preferred {
            return None;
        }
        let cipher: Option<(String, String)> = conn
            .query_first("SHOW SESSION STATUS LIKE 'Ssl_cipher'")
            .ok()
            .flatten();
        self.fallback_notice(cipher.as_ref().map_or("", |(_, cipher)| cipher))
    }

    /// The plain-text notice for a connection whose session cipher is `cipher` (empty
    /// or "none" when unencrypted), as [`ConnectSpec::plain_text_notice`] gives it.
    pub(crate) fn fallback_notice(&self, cipher: &str) -> Option<String> {
        (self.tls == TlsMode::Preferred && (cipher.is_empty() || cipher == "none")).then(|| {
            format!(
                "tls = \"preferred\" and the server at {} offers no TLS: connected in plain text",
                self.endpoint
            )
        })
    }

    /// The client options, with or without TLS.
    pub(crate) fn opts(&self, with_tls: bool) -> Opts {
        let mut builder = OptsBuilder::new()
            .user(Some(&self.user))
            .pass(self.password.as_ref().map(|p| p.expose().to_string()))
            .db_name(self.database.clone())
            .prefer_socket(false)
            .tcp_nodelay(true)
            .tcp_connect_timeout(Some(self.connect_timeout))
            .read_timeout(self.io_timeout)
            .write_timeout(self.io_timeout)
            .stmt_cache_size(0)
            .init(self.init.clone());
        builder = match &self.endpoint {
            Endpoint::Tcp { host, port } => {
                builder.ip_or_hostname(Some(host.clone())).tcp_port(*port)
            }
            Endpoint::Socket { path } => builder.socket(Some(path.to_string_lossy().into_owned())),
        };
        if with_tls {
            builder = builder.ssl_opts(self.ssl_opts());
        }
        builder.into()
    }

    fn ssl_opts(&self) -> SslOpts {
        let opts = SslOpts::default();
        let opts = match &self.tls_ca {
            Some(ca) => opts.with_root_cert_path(Some(ca.clone())),
            None => opts,
        };
        match self.tls {
            TlsMode::VerifyIdentity => opts,
            TlsMode::VerifyCa => opts.with_danger_skip_domain_validation(true),
            _ => opts
                .with_danger_accept_invalid_certs(true)
                .with_danger_skip_domain_validation(true),
        }
    }
}

/// Whether a TLS connect failed only because the server does not offer TLS.
fn server_lacks_tls(error: &mysql::Error) -> bool {
    matches!(
        error,
        mysql::Error::DriverError(mysql::DriverError::TlsNotSupported)
    )
}

/// Whether `name` can be written into a statement as it is (letters, digits, `_`): a
/// variable, plugin or option name from a profile or a results file is checked first.
pub(crate) fn is_plain_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// `name` as a back-quoted identifier, any back quote in it doubled.
pub(crate) fn quoted_identifier(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// The MySQL error code of a client error, or a client-side code for transport failures
/// (2013 for a lost connection, 2003 for a refused one), as the C client reports them.
pub(crate) fn error_code(error: &mysql::Error) -> u16 {
    match error {
        mysql::Error::MySqlError(e) => e.code,
        mysql::Error::IoError(_) | mysql::Error::CodecError(_) => 2013,
        mysql::Error::DriverError(
            mysql::DriverError::ConnectTimeout | mysql::DriverError::CouldNotConnect(_),
        ) => 2003,
        _ => 2000,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(tls: TlsMode) -> ConnectSpec {
        let client = ClientSpec {
            tls,
            ..ClientSpec::default()
        };
        let endpoint = Endpoint::Tcp {
            host: "127.0.0.1".into(),
            port: 3306,
        };
        ConnectSpec::new(endpoint, "u", None, None, &client)
    }

    #[test]
    fn only_preferred_without_a_cipher_is_a_fallback() {
        let preferred = spec(TlsMode::Preferred);
        for plain in ["", "none"] {
            let notice = preferred.fallback_notice(plain).unwrap();
            assert!(notice.contains("127.0.0.1:3306 offers no TLS"), "{notice}");
        }
        assert_eq!(preferred.fallback_notice("TLS_AES_256_GCM_SHA384"), None);
        assert_eq!(spec(TlsMode::Disabled).fallback_notice("none"), None);
        assert_eq!(spec(TlsMode::Required).fallback_notice(""), None);
    }
}
