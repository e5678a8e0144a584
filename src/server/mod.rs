//! Servers on both sides: managed throwaway MariaDB instances, their TLS material, and
//! the facts read from any server so a report can prove what actually differed.

pub mod binary;
pub(crate) mod command_line;
pub(crate) mod confinement;
pub(crate) mod defaults_file;
pub(crate) mod facts;
pub(crate) mod globals;
pub(crate) mod includes;
pub(crate) mod install_tree;
pub mod launch;
pub(crate) mod option_values;
pub(crate) mod options;
pub(crate) mod os_user;
pub(crate) mod probe;
pub mod process;
pub(crate) mod restore;
pub mod sandbox;
pub(crate) mod switches;
pub mod tls;
pub(crate) mod write_paths;

use serde::{Deserialize, Serialize};

/// What happens when a managed server dies during a round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum OnServerLoss {
    /// Mark the round failed and stop (exit 1).
    Fail,
    /// Restart the managed server and run the lost round again.
    Retry,
}

impl crate::named::Named for OnServerLoss {
    const NAMES: &'static [(OnServerLoss, &'static str, &'static str)] = &[
        (
            OnServerLoss::Fail,
            "fail",
            "Mark the round failed and stop (exit 1)",
        ),
        (
            OnServerLoss::Retry,
            "retry",
            "Restart the managed server and run the lost round again",
        ),
    ];
}

crate::named::from_names!(OnServerLoss);
