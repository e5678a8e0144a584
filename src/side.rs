//! The two sides of every comparison. The baseline and the variant are named by every
//! layer (the schedule orders them, the statistics pair them, the reports label them),
//! so they live at the foundation, apart from the TOML profiles a side is read from.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Which side of the comparison a profile or a result belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// The reference configuration.
    Baseline,
    /// The configuration whose cost is measured.
    Variant,
}

impl Side {
    /// Both sides, baseline first.
    pub(crate) const BOTH: [Side; 2] = [Side::Baseline, Side::Variant];

    /// Lower-case name used in messages and files.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Side::Baseline => "baseline",
            Side::Variant => "variant",
        }
    }

    /// The other side.
    pub(crate) fn other(self) -> Side {
        match self {
            Side::Baseline => Side::Variant,
            Side::Variant => Side::Baseline,
        }
    }

    /// The single-letter label used in schedules (A = baseline, B = variant).
    pub(crate) fn letter(self) -> char {
        match self {
            Side::Baseline => 'A',
            Side::Variant => 'B',
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
