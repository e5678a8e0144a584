//! What a managed server is started with: a value the plan builds and the sandbox and
//! the command line read. Kept apart from the sandbox, which starts servers, so the
//! files that turn a launch into options need not know how a server is started.

use std::path::Path;

use crate::placement::CpuList;
use crate::server::defaults_file::DefaultsFile;
use crate::server::install_tree::InstallTree;
use crate::side::Side;

/// What a managed server is started with.
#[derive(Debug, Clone)]
pub struct ServerLaunch<'a> {
    /// Side it serves, for messages.
    pub side: Side,
    /// Server binary.
    pub binary: &'a Path,
    /// The install tree it runs from; none for the system install.
    pub(crate) tree: Option<&'a InstallTree>,
    /// Profile options, `--key=value`.
    pub options: &'a std::collections::BTreeMap<String, String>,
    /// Largest number of client connections the experiment opens.
    pub max_threads: u32,
    /// Names in the generated server certificate.
    pub tls_names: &'a [&'a str],
    /// The CPUs the server may run on (`--cpus`), or any.
    pub(crate) cpus: Option<&'a CpuList>,
    /// The user's my.cnf it starts from, if any.
    pub(crate) defaults_file: Option<&'a DefaultsFile>,
    /// Profile options that name where the server writes, with the option each one
    /// reaches: pointed into the private directory.
    pub(crate) redirects: Option<&'a std::collections::BTreeMap<String, String>>,
}

impl<'a> ServerLaunch<'a> {
    /// A launch on any CPU.
    pub fn new(
        side: Side,
        binary: &'a Path,
        options: &'a std::collections::BTreeMap<String, String>,
        max_threads: u32,
        tls_names: &'a [&'a str],
    ) -> ServerLaunch<'a> {
        ServerLaunch {
            side,
            binary,
            tree: None,
            options,
            max_threads,
            tls_names,
            cpus: None,
            defaults_file: None,
            redirects: None,
        }
    }
}
