//! The option names the installed server knows, read from `mariadbd --verbose --help`,
//! so a misspelt `[server.options]` key is refused by the dry-run, with the file and
//! line, instead of stopping the server at start (or being ignored, under `loose_`).
//! Plugins the profile loads are loaded for the listing too, since their options exist
//! only then.

use std::collections::BTreeSet;
use std::path::Path;

/// The options `binary` accepts, lower case with `_` for `-`; `None` when the listing
/// could not be read (not a MariaDB/MySQL server binary, or it failed).
pub(crate) fn known_options(binary: &Path, plugin_options: &[String]) -> Option<BTreeSet<String>> {
    let output = super::process::help_output(binary, plugin_options)?;
    let text = String::from_utf8_lossy(&output.stdout);
    let names = option_names(&text);
    (output.status.success() && !names.is_empty()).then_some(names)
}

/// Every `--name` that begins an option line of the help text.
fn option_names(help: &str) -> BTreeSet<String> {
    help.lines()
        .filter(|line| line.starts_with("  -"))
        .filter_map(|line| {
            let start = line.find("--")? + 2;
            let name: String = line[start..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                .collect();
            (!name.is_empty()).then(|| name.replace('-', "_"))
        })
        .collect()
}

/// The prefixes mariadbd's option parser strips or interprets before it looks a name up.
const OPTION_PREFIXES: &[&str] = &["loose_", "maximum_", "skip_", "enable_", "disable_"];

/// An option name as mariadbd resolves it: lower case, `-` as `_`, without the
/// `loose-`, `maximum-`, `skip-`, `enable-` and `disable-` prefixes (in any number).
pub(crate) fn option_root(name: &str) -> String {
    let mut root = name.to_ascii_lowercase().replace('-', "_");
    while let Some(prefix) = OPTION_PREFIXES.iter().find(|p| root.starts_with(**p)) {
        root = root[prefix.len()..].to_string();
    }
    root
}

/// Whether mariadbd would accept `name`: it is known itself, or after the prefixes its
/// parser interprets (`loose_`, `skip_`, `enable_`, `disable_`, `maximum_`), or it is an
/// unambiguous abbreviation of a known name.
pub(crate) fn is_known(known: &BTreeSet<String>, name: &str) -> bool {
    let mut candidate = name.to_ascii_lowercase().replace('-', "_");
    loop {
        if known.contains(&candidate)
            || known
                .range(candidate.clone()..)
                .take_while(|k| k.starts_with(&candidate))
                .count()
                == 1
        {
            return true;
        }
        let prefix = ["loose_", "skip_", "enable_", "disable_", "maximum_"]
            .into_iter()
            .find(|p| candidate.starts_with(p));
        match prefix {
            Some(prefix) => candidate = candidate[prefix.len()..].to_string(),
            None => return false,
        }
    }
}

/// The known name closest to `name`, for the error message.
pub(crate) fn closest(known: &BTreeSet<String>, name: &str) -> Option<String> {
    let name = name.to_ascii_lowercase().replace('-', "_");
    known
        .iter()
        .map(|k| (strsim::jaro_winkler(k, &name), k))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, k)| k.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    const HELP: &str = "mariadbd  Ver 10.11\n\n  --innodb-buffer-pool-size=# \n  -h, --datadir=name  Path\n  \
                        --skip-name-resolve Only use IP\n  --thread-handling=name\n  --ssl  Enable\n";

    #[test]
    fn names_are_read_from_the_help_text() {
        let known = option_names(HELP);
        for name in [
            "innodb_buffer_pool_size",
            "datadir",
            "skip_name_resolve",
            "thread_handling",
        ] {
            assert!(known.contains(name), "{name}: {known:?}");
        }
    }

    #[test]
    fn spellings_mariadbd_accepts_are_known_and_typos_are_not() {
        let known = option_names(HELP);
        for name in [
            "innodb_buffer_pool_size",
            "innodb-buffer-pool-size",
            "loose_thread_handling",
            "skip_name_resolve",
            "skip_ssl",
            "thread_hand",
        ] {
            assert!(is_known(&known, name), "{name}");
        }
        assert!(!is_known(&known, "innodb_bufer_pool_size"));
        assert_eq!(
            closest(&known, "innodb_bufer_pool_size").as_deref(),
            Some("innodb_buffer_pool_size")
        );
    }
}
