//! Server options that hold a credential or a key are known by their name, not their
//! value: `password`, `wsrep_sst_auth`, `file_key_management_filekey`,
//! `hashicorp_key_management_token`. The rule reads the name's last word (after `-` and
//! `_`), which says what the value is: a password, an auth string, a secret, a token, a
//! credential, or a key. `key_buffer_size` and `innodb_default_encryption_key_id` end
//! in a size and an id, so they stay visible; `ssl_key` ends in a key but is a path, so
//! a short list of exceptions ([`NOT_SECRET`]) keeps it visible. Such a value is shown
//! as `***` wherever abtest writes an option down: the dry run, the saved plan, the
//! servers' facts and every report.

use std::borrow::Cow;
use std::collections::BTreeMap;

/// What a masked value is shown as.
pub(crate) const MASK: &str = "***";

/// Options whose name reads like a key's but whose value is a path, shown as written:
/// the server's TLS key file (abtest's own sits in the server's private directory).
const NOT_SECRET: &[&str] = &["ssl_key"];

/// Words a name's last word contains when its value is a credential.
const CREDENTIAL_PARTS: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "secret",
    "token",
    "credential",
    "auth",
];

/// Whether option `name` (as written in a my.cnf, a profile or `SHOW VARIABLES`) holds
/// a credential or a key.
pub(crate) fn is_secret_option(name: &str) -> bool {
    let name = name.to_ascii_lowercase().replace('-', "_");
    if NOT_SECRET.contains(&name.as_str()) {
        return false;
    }
    let last = name.rsplit(['_', '-', '.']).next().unwrap_or_default();
    CREDENTIAL_PARTS.iter().any(|part| last.contains(part))
        || last.ends_with("key")
        || last.ends_with("keys")
        || last == "pw"
        || abbreviates_a_secret_word(last)
}

/// Whether `last` is an abbreviation of a credential's last word: mariadbd takes any
/// unambiguous prefix of an option's name (`wsrep_sst_au`, `..._filek`), and such a
/// spelling holds the same secret. Masking an unrelated short word is harmless.
fn abbreviates_a_secret_word(last: &str) -> bool {
    // `file` abbreviates `filekey` but is a whole word of its own (`general_log_file`,
    // `defaults_file`): only a prefix past it reads as the key.
    (last.len() >= 2
        && CREDENTIAL_PARTS
            .iter()
            .chain(&["key", "keys"])
            .any(|word| word.starts_with(last)))
        || (last.len() > "file".len() && "filekey".starts_with(last))
}

/// The value of option `name` as it may be shown or saved.
/// An empty value is no secret and stays empty, so that one side setting a credential
/// and the other not is still a difference between them.
pub(crate) fn shown_option<'a>(name: &str, value: &'a str) -> Cow<'a, str> {
    if is_secret_option(name) && !value.is_empty() {
        Cow::Borrowed(MASK)
    } else {
        Cow::Borrowed(value)
    }
}

/// A command-line word as it may be shown: `--name=value` with the value masked when
/// `name` holds a credential; any other word unchanged.
pub(crate) fn shown_arg(word: &str) -> Cow<'_, str> {
    match word
        .strip_prefix("--")
        .and_then(|option| option.split_once('='))
    {
        Some((name, _)) if is_secret_option(name) => Cow::Owned(format!("--{name}={MASK}")),
        _ => Cow::Borrowed(word),
    }
}

/// Options with every credential's value masked.
pub(crate) fn masked_options(options: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    options
        .iter()
        .map(|(name, value)| (name.clone(), shown_option(name, value).into_owned()))
        .collect()
}

/// Serialises a name → value map of options with [`masked_options`] applied.
pub(crate) fn serialize_masked_options<S: serde::Serializer>(
    options: &BTreeMap<String, String>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serde::Serialize::serialize(&masked_options(options), serializer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_and_keys_are_known_by_name() {
        for name in [
            "password",
            "wsrep_sst_auth",
            "wsrep-sst-auth",
            "file_key_management_filekey",
            "loose_file_key_management_filekey",
            "hashicorp_key_management_token",
            "aws_key_management_secret_access_key",
            "ssl_passphrase",
            "rpl_password",
            "Master_Passwd",
            "loose_wsrep_sst_au",
            "wsrep_sst_aut",
            "loose_hashicorp_key_management_toke",
            "loose_file_key_management_filek",
        ] {
            assert!(is_secret_option(name), "{name}");
        }
    }

    #[test]
    fn sizes_ids_and_switches_around_keys_and_passwords_stay_visible() {
        for name in [
            "key_buffer_size",
            "key_cache_block_size",
            "innodb_default_encryption_key_id",
            "innodb_encryption_rotate_key_age",
            "file_key_management_filename",
            "general_log_file",
            "defaults_file",
            "defaults-file",
            "file_key_management_encryption_algorithm",
            "strict_password_validation",
            "password_reuse_check_interval",
            "default_authentication_plugin",
            "caching_sha2_password_private_key_path",
            "innodb_buffer_pool_size",
            "ssl_key",
            "ssl-key",
        ] {
            assert!(!is_secret_option(name), "{name}");
        }
        assert_eq!(shown_option("key_buffer_size", "64M"), "64M");
        assert_eq!(shown_option("wsrep_sst_auth", "user:pw"), MASK);
        assert_eq!(shown_option("wsrep_sst_auth", ""), "", "unset is no secret");
        assert_eq!(shown_arg("--wsrep-sst-auth=u:p"), "--wsrep-sst-auth=***");
        assert_eq!(shown_arg("--key_buffer_size=8M"), "--key_buffer_size=8M");
        assert_eq!(shown_arg("--skip-grant-tables"), "--skip-grant-tables");
    }
}
