//! One server or two (`--servers`). Two server processes each drift on their own, and no
//! ABBA block cancels that; one process shared by both sides drifts for both, so the
//! blocks cancel it and the interval narrows several-fold. Sharing is possible only when
//! every difference between the profiles can be changed while the server runs. What
//! can be told from the plan alone is told here (another binary, another my.cnf, other
//! CPUs); whether each differing option can be set at runtime is the server's own answer,
//! read from its metadata ([`crate::server::switches`]).

use std::collections::{BTreeMap, BTreeSet};

use super::{Plan, ServerMode, SidePlan, TargetSpec};
use crate::server::switches::OptionDifference;

/// What the plan alone says about sharing one server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Layout {
    /// Not a pair of managed servers: external servers keep their own rules (one
    /// server when both profiles name it).
    NotManaged,
    /// One managed server can serve both sides if the server can change each of these
    /// options at runtime (none: the sides differ only on the client side, or not at all).
    Shareable(Vec<OptionDifference>),
    /// Each side needs its own server, for this reason.
    Separate(String),
}

impl Plan {
    /// Whether the two sides may share one managed server, from the plan alone.
    pub(crate) fn layout(&self) -> Layout {
        let [a, b] = &self.sides;
        let both_managed = [a, b]
            .iter()
            .all(|s| matches!(s.target, TargetSpec::Managed { .. }));
        if !both_managed {
            return Layout::NotManaged;
        }
        if self.servers == ServerMode::Separate {
            return Layout::Separate("--servers separate".into());
        }
        if let Some(reason) = self.restart_reason() {
            return Layout::Separate(reason);
        }
        match option_differences(self) {
            Ok(differences) => Layout::Shareable(differences),
            Err(reason) => Layout::Separate(reason),
        }
    }

    /// What in the plan needs a server per side, in words, if anything does.
    fn restart_reason(&self) -> Option<String> {
        let [a, b] = &self.sides;
        let (
            TargetSpec::Managed {
                binary,
                tree,
                redirects,
                defaults_file,
                ..
            },
            TargetSpec::Managed {
                binary: binary_b,
                tree: tree_b,
                redirects: redirects_b,
                defaults_file: defaults_file_b,
                ..
            },
        ) = (&a.target, &b.target)
        else {
            return None;
        };
        if binary == binary_b && tree != tree_b {
            return Some(
                "the sides run from different install trees ([server] basedir), which change \
                 only with a restart"
                    .into(),
            );
        }
        if binary != binary_b {
            return Some(format!(
                "the sides run different server binaries ({} and {}), and a binary changes \
                 only with a restart",
                binary.display(),
                binary_b.display()
            ));
        }
        if defaults_file != defaults_file_b {
            return Some(
                "the sides start from different my.cnf files ([server] defaults_file), which \
                 the server reads only at start-up"
                    .into(),
            );
        }
        if redirects != redirects_b {
            return Some(
                "the sides point the server's files to different places (log, data or \
                 socket options), which are set at start-up"
                    .into(),
            );
        }
        if a.cpus != b.cpus {
            return Some("--cpus gives each side's server its own CPUs".into());
        }
        if a.hooks != b.hooks {
            return Some(
                "the profiles' hooks differ, and on one server what one side's hooks set \
                 would reach the other side's rounds too"
                    .into(),
            );
        }
        if self.client.class_timing.is_some() {
            return Some(
                "--class-timing times both sides pair by pair, which needs a server for each"
                    .into(),
            );
        }
        if self.client.freeze_idle {
            return Some("--freeze-idle stops the idle side's server while the other runs".into());
        }
        None
    }
}

/// `--servers shared` where the plan alone rules it out: refused before anything starts.
pub(super) fn check_shared(plan: &Plan) -> anyhow::Result<()> {
    if plan.servers != ServerMode::Shared {
        return Ok(());
    }
    let why = match plan.layout() {
        Layout::NotManaged => "applies to managed [server] sides; two profiles that name the same \
             [connection] server already share it"
            .to_string(),
        Layout::Separate(reason) => format!("one server cannot serve both sides: {reason}"),
        Layout::Shareable(_) => return Ok(()),
    };
    Err(crate::exit::UsageError::err(format!(
        "--servers shared {why}; run with --servers separate (or auto)"
    )))
}

/// What a side's server is started with, by resolved name (the last of a name wins, as
/// in mariadbd), and every plugin library its `plugin_load` options load.
fn started_with(side: &SidePlan, max_threads: u32) -> (BTreeMap<String, String>, BTreeSet<String>) {
    let (mut options, mut plugins) = (BTreeMap::new(), BTreeSet::new());
    let args = side
        .server_launch(max_threads)
        .map(|launch| crate::server::command_line::preview_args(&launch))
        .unwrap_or_default();
    for arg in &args {
        let word = arg.trim_start_matches('-');
        let (name, value) = word.split_once('=').unwrap_or((word, ""));
        let name = resolved_name(name);
        if name == "plugin_load_add" || name == "plugin_load" {
            plugins.extend(
                value
                    .split(';')
                    .map(str::trim)
                    .filter(|p| !p.is_empty())
                    .map(String::from),
            );
        } else {
            options.insert(name, value.to_string());
        }
    }
    (options, plugins)
}

/// The options the two managed sides' servers start with differently, or the
/// difference that only a start-up can make. The comparison is of the command lines
/// abtest would run (its own floors on `max_connections` and the like included), so a
/// value is switched as the server would have started with it.
fn option_differences(plan: &Plan) -> Result<Vec<OptionDifference>, String> {
    let threads = plan.max_threads();
    let [(ours, our_plugins), (theirs, their_plugins)] =
        [&plan.sides[0], &plan.sides[1]].map(|s| started_with(s, threads));
    let mut differences = Vec::new();
    if our_plugins != their_plugins {
        let one_sided: Vec<&String> = our_plugins.symmetric_difference(&their_plugins).collect();
        if let Some(named) = one_sided.iter().find(|p| p.contains('=')) {
            return Err(format!(
                "one side loads the plugin `{named}` by name, which abtest loads only at start-up"
            ));
        }
        let joined = |set: &BTreeSet<String>| {
            (!set.is_empty()).then(|| set.iter().cloned().collect::<Vec<_>>().join(";"))
        };
        differences.push(OptionDifference {
            name: "plugin_load_add".into(),
            values: [joined(&our_plugins), joined(&their_plugins)],
        });
    }
    let names: BTreeSet<&String> = ours.keys().chain(theirs.keys()).collect();
    for name in names {
        let values = [ours.get(name).cloned(), theirs.get(name).cloned()];
        if values[0] == values[1] {
            continue;
        }
        let private = crate::server::command_line::PRIVATE_DIR;
        if values.iter().flatten().any(|v| v.contains(private)) {
            return Err(format!(
                "`{name}` names where the server writes, which abtest points into the \
                 server's private directory only at start-up"
            ));
        }
        if crate::secret::is_secret_option(name) {
            return Err(format!(
                "`{name}` holds a credential, which abtest passes only at start-up"
            ));
        }
        differences.push(OptionDifference {
            name: name.clone(),
            values,
        });
    }
    Ok(differences)
}

/// An option's name as the server resolves it, with `loose_` (which only asks the
/// server not to fail on an unknown name) dropped; `skip_` and the others are kept, so
/// that a flag such as `skip_log_bin` is no variable and needs a restart.
fn resolved_name(name: &str) -> String {
    let lower = name.to_ascii_lowercase().replace('-', "_");
    let mut name = lower.as_str();
    while let Some(rest) = name.strip_prefix("loose_") {
        name = rest;
    }
    name.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn managed(options: &[(&str, &str)]) -> Plan {
        let mut plan = super::super::example::managed(2, &[8]);
        for side in &mut plan.sides {
            if let TargetSpec::Managed { options: o, .. } = &mut side.target {
                o.clear();
                o.insert("innodb_buffer_pool_size".into(), "256M".into());
            }
        }
        if let TargetSpec::Managed { options: o, .. } = &mut plan.sides[1].target {
            for (k, v) in options {
                o.insert((*k).into(), (*v).into());
            }
        }
        plan
    }

    #[test]
    fn the_differing_options_are_named_with_each_sides_value() {
        let plan = managed(&[
            ("plugin-load-add", "server_audit"),
            ("loose-server_audit_logging", "ON"),
            ("innodb_buffer_pool_size", "256M"),
        ]);
        let Layout::Shareable(differences) = plan.layout() else {
            panic!("{:?}", plan.layout());
        };
        let named: Vec<_> = differences
            .iter()
            .map(|d| (d.name.as_str(), d.values.clone(), d.is_plugin_load()))
            .collect();
        assert_eq!(
            named,
            [
                ("plugin_load_add", [None, Some("server_audit".into())], true),
                ("server_audit_logging", [None, Some("ON".into())], false),
            ]
        );
    }

    #[test]
    fn a_write_path_a_credential_or_a_named_plugin_needs_a_start_up() {
        for (option, value, said) in [
            (
                "general_log_file",
                "queries.log",
                "names where the server writes",
            ),
            ("wsrep_sst_auth", "u:p", "credential"),
            (
                "plugin_load_add",
                "QUERY_RESPONSE_TIME=query_response_time",
                "by name",
            ),
        ] {
            let mut plan = managed(&[(option, value)]);
            // Both sides name a log file, each its own: as the profiles resolve them, each
            // reaches the private directory.
            for side in &mut plan.sides {
                if let TargetSpec::Managed {
                    redirects, options, ..
                } = &mut side.target
                {
                    redirects.insert("general_log_file".into(), "general_log_file".into());
                    options
                        .entry("general_log_file".into())
                        .or_insert("other.log".into());
                }
            }
            let Layout::Separate(reason) = plan.layout() else {
                panic!("{option}: {:?}", plan.layout());
            };
            assert!(reason.contains(said), "{option}: {reason}");
        }
    }

    #[test]
    fn abtests_own_floors_are_part_of_what_differs() {
        // Below the floor on one side, above it on the other: the server would start
        // with the floor on the first, and that is the value switched to.
        let plan = managed(&[("max_connections", "5000")]);
        let Layout::Shareable(differences) = plan.layout() else {
            panic!("{:?}", plan.layout());
        };
        assert_eq!(differences[0].name, "max_connections");
        assert_eq!(
            differences[0].values,
            [Some("24".into()), Some("5000".into())]
        );
    }

    #[test]
    fn an_aa_pair_or_a_client_change_shares_with_nothing_to_switch() {
        let plan = managed(&[]);
        assert_eq!(plan.layout(), Layout::Shareable(vec![]));
    }

    #[test]
    fn what_only_a_restart_changes_keeps_two_servers_and_says_why() {
        let mut plan = managed(&[]);
        if let TargetSpec::Managed { binary, .. } = &mut plan.sides[1].target {
            *binary = "/opt/mysql-8.0/bin/mysqld".into();
        }
        let Layout::Separate(reason) = plan.layout() else {
            panic!("{:?}", plan.layout());
        };
        assert!(reason.contains("different server binaries"), "{reason}");
        assert!(reason.contains("/opt/mysql-8.0/bin/mysqld"), "{reason}");

        let mut plan = managed(&[]);
        plan.sides[1].hooks.before_round = vec!["SET GLOBAL sync_binlog = 1".into()];
        assert!(matches!(plan.layout(), Layout::Separate(r) if r.contains("hooks differ")));

        let mut plan = managed(&[]);
        plan.client.freeze_idle = true;
        assert!(matches!(plan.layout(), Layout::Separate(r) if r.contains("--freeze-idle")));

        let mut plan = managed(&[("sync_binlog", "1")]);
        plan.servers = ServerMode::Separate;
        assert_eq!(plan.layout(), Layout::Separate("--servers separate".into()));
    }

    #[test]
    fn external_servers_keep_their_own_rules() {
        let mut plan = super::super::example::external(2, &[8]);
        assert_eq!(plan.layout(), Layout::NotManaged);
        assert!(check_shared(&plan).is_ok());
        plan.servers = ServerMode::Shared;
        let error = check_shared(&plan).unwrap_err().to_string();
        assert!(error.contains("managed [server] sides"), "{error}");
    }

    #[test]
    fn shared_is_refused_where_the_plan_needs_two_servers() {
        let mut plan = managed(&[("sync_binlog", "1")]);
        plan.servers = ServerMode::Shared;
        assert!(check_shared(&plan).is_ok());
        plan.client.class_timing = Some(std::time::Duration::from_secs(60));
        let error = check_shared(&plan).unwrap_err().to_string();
        assert!(error.contains("--class-timing"), "{error}");
        assert!(error.contains("--servers separate"), "{error}");
    }
}
