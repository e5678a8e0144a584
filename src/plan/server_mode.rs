//! What `--servers` asks for: one managed server shared by both sides, one each, or
//! whichever the profiles and the server allow ([`super::arrangement`]).

use serde::{Deserialize, Serialize};

/// What `--servers` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ServerMode {
    /// One shared managed server when every difference can change at runtime.
    #[default]
    Auto,
    /// One shared managed server, or a refusal that says why not.
    Shared,
    /// A managed server per side.
    Separate,
}

impl crate::named::Named for ServerMode {
    const NAMES: &'static [(ServerMode, &'static str, &'static str)] = &[
        (
            ServerMode::Auto,
            "auto",
            "One managed server for both sides when the server can change every difference \
             while it runs; two otherwise, and the dry run says which difference needs them",
        ),
        (
            ServerMode::Shared,
            "shared",
            "One managed server for both sides, each side's settings put in place before \
             its rounds; refused, with the reason, when a difference needs a restart",
        ),
        (
            ServerMode::Separate,
            "separate",
            "A managed server per side",
        ),
    ];
}

crate::named::from_names!(ServerMode);
