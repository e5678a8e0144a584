//! How the sides' servers were arranged: one managed server shared by both sides, with
//! what was switched between them, or a server per side and why. A reader of the
//! results must know whether the variant's rounds ran on the baseline's process, and
//! what the baseline ran with that its profile does not name (a plugin kept loaded).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The servers of a run of two managed sides.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ServerArrangement {
    /// Whether both sides ran on one server.
    pub(crate) shared: bool,
    /// Why each side had its own server (`--servers separate`, or the difference that
    /// needs a restart).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) separate_because: Option<String>,
    /// What was put in place before each round of a side, one line each.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) switched: Vec<String>,
    /// What a side ran with that its profile does not name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) notes: Vec<String>,
    /// Whether the shared server's globals and plugins were as at its start when the
    /// run ended (after the restore); what was left otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) ended_as_began: Option<bool>,
}

/// What was read back on the shared server before a round, and what putting the side's
/// settings in place took.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct RoundSettings {
    /// Milliseconds to set, install or uninstall and read back.
    pub(crate) put_in_place_ms: f64,
    /// Each switched variable (and `plugin <library>`) as the server read it back.
    pub(crate) read_back: BTreeMap<String, String>,
}

impl ServerArrangement {
    /// The report's paragraph on the servers; what was switched follows it as a list
    /// ([`ServerArrangement::switched`]).
    pub(crate) fn sentence(&self) -> String {
        if !self.shared {
            return match &self.separate_because {
                Some(why) => format!("Each side ran on its own managed server: {why}"),
                None => "Each side ran on its own managed server".to_string(),
            };
        }
        let mut text = if self.switched.is_empty() {
            "Both sides ran on one managed server; their server settings are the same, and \
             each side connected with its own client settings"
                .to_string()
        } else {
            "Both sides ran on one managed server. Before each round abtest put the side's \
             settings in place and read them back, as listed below; the warm-up after each \
             switch is not measured"
                .to_string()
        };
        match self.ended_as_began {
            Some(true) => text.push_str(". The server ended as it began"),
            Some(false) => text.push_str(". The server did not end as it began (see the warnings)"),
            None => {}
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sentence_says_one_server_or_two_and_how_the_shared_one_ended() {
        let mut servers = ServerArrangement {
            shared: true,
            separate_because: None,
            switched: vec!["sync_binlog: baseline 0, variant 1".into()],
            notes: vec!["the baseline ran with server_audit.so loaded and switched off".into()],
            ended_as_began: Some(true),
        };
        let text = servers.sentence();
        assert!(
            text.starts_with("Both sides ran on one managed server."),
            "{text}"
        );
        // What was switched is listed apart, below the paragraph.
        assert!(text.contains("as listed below"), "{text}");
        assert!(text.ends_with("ended as it began"), "{text}");
        servers.switched.clear();
        assert!(
            servers
                .sentence()
                .contains("their server settings are the same"),
            "{}",
            servers.sentence()
        );
        servers.shared = false;
        servers.separate_because = Some("`thread_handling` is read-only".into());
        assert_eq!(
            servers.sentence(),
            "Each side ran on its own managed server: `thread_handling` is read-only"
        );
    }
}
