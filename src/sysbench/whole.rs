//! The runnable whole `abtest from-sysbench` gives: the complete abtest command and the
//! two profiles it names, so that what a sysbench user pastes in comes back as
//! something to run, not a list of options to assemble. The profiles hold the
//! connection the command line gave; a password on it is never copied (the profile
//! reads it from ABTEST_PASSWORD).

use std::fmt::Write as _;

use super::translate::Translation;

/// A profile stub: its file name and its text.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Profile {
    pub(crate) file: &'static str,
    pub(crate) text: String,
}

/// The baseline's and the variant's profiles for `translation`'s connection.
pub(crate) fn profiles(translation: &Translation) -> [Profile; 2] {
    let connection = connection(translation);
    [
        Profile {
            file: "baseline.toml",
            text: format!(
                "# The baseline: the server sysbench ran against, from its connection options.\n\
                 name = \"baseline\"\n\n{connection}"
            ),
        },
        Profile {
            file: "variant.toml",
            text: format!(
                "# The variant: the server with the change. As written it is the baseline's\n\
                 # server: point host and port at the changed server, or give it a\n\
                 # [server.options] table instead for a server abtest starts (see profiles/).\n\
                 name = \"variant\"\n\n{connection}"
            ),
        },
    ]
}

/// The `[connection]` table, with how to give the password that was left out.
fn connection(translation: &Translation) -> String {
    let mut out = String::from("[connection]\n");
    for (key, value) in &translation.connection {
        let _ = writeln!(out, "{key} = {value}");
    }
    if translation
        .connection
        .iter()
        .any(|(k, _)| k == "password_env")
    {
        out.push_str("# the password on the command line was not copied: export ABTEST_PASSWORD\n");
    }
    out
}

/// The abtest command line of `translation` with the profiles at `baseline` and `variant`.
pub(crate) fn command(translation: &Translation, baseline: &str, variant: &str) -> String {
    let mut words = vec![
        "abtest".to_string(),
        "--baseline".into(),
        shlex::try_quote(baseline).map_or_else(|_| baseline.to_string(), Into::into),
        "--variant".into(),
        shlex::try_quote(variant).map_or_else(|_| variant.to_string(), Into::into),
    ];
    for (option, value) in &translation.options {
        words.push(format!("--{option}"));
        words.push(value.clone());
    }
    words.join(" ")
}

/// The text `abtest from-sysbench` prints: each command, the profiles (unless they were
/// written to files), then what was not mapped and the notes.
pub(crate) fn render(commands: &[(String, &Translation)], profiles: Option<&[Profile]>) -> String {
    let mut out = String::new();
    for (index, (command, _)) in commands.iter().enumerate() {
        let what = match (index, profiles.is_some()) {
            (0, true) => "# abtest: the whole comparison, with the profiles below",
            (0, false) => "# abtest: the whole comparison",
            _ => "# abtest: another run line of the script",
        };
        let _ = writeln!(out, "{what}\n{command}\n");
    }
    for profile in profiles.unwrap_or_default() {
        let _ = writeln!(out, "# file: {}\n{}", profile.file, profile.text);
    }
    for (index, (_, translation)) in commands.iter().enumerate() {
        let of = if commands.len() > 1 {
            format!(" (command {})", index + 1)
        } else {
            String::new()
        };
        if !translation.unmapped.is_empty() {
            let _ = writeln!(out, "# not mapped{of}");
            for (option, why) in &translation.unmapped {
                let _ = writeln!(out, "#   {option}: {why}");
            }
            out.push('\n');
        }
        if !translation.notes.is_empty() {
            let _ = writeln!(out, "# notes{of}");
            for note in &translation.notes {
                let _ = writeln!(out, "#   {note}");
            }
            out.push('\n');
        }
    }
    out.trim_end().to_string() + "\n"
}
