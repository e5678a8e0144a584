//! What the prepare check found, as facts: every statement of a workload file prepared
//! on both sides before the timed rounds (`runner::prepare_check` says how). A class the
//! server of one side refuses to prepare (a stricter `sql_mode`, a removed function or
//! syntax) is a difference between the sides even when no answer was compared; whether
//! it decides the verdict is the judge's.

use serde::{Deserialize, Serialize};

use crate::side::Side;

/// The prepare check of a run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct PrepareCheck {
    /// Statement texts prepared on each side.
    pub(crate) statements: u32,
    /// The classes one side prepared and the other refused, in the workload's order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) one_sided: Vec<OneSided>,
}

/// A query class that prepared on one side only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct OneSided {
    /// The query class: the statement as the workload file writes it.
    pub(crate) class: String,
    /// The side that refused it.
    pub(crate) failed_on: Side,
    /// That side's error.
    pub(crate) error: String,
}

impl OneSided {
    /// The sentence that names the class, the side and the error.
    pub(crate) fn sentence(&self) -> String {
        format!(
            "query class `{}` cannot be prepared on the {} ({}), the {} prepares it",
            self.class,
            self.failed_on,
            self.error,
            self.failed_on.other()
        )
    }
}

/// The verdict's first words when refused classes decided it: how many, and which side.
pub(crate) fn headline(refused: &[&OneSided]) -> Option<String> {
    let first = refused.first()?;
    let sides = if refused.iter().all(|o| o.failed_on == first.failed_on) {
        format!("the {} refuses to prepare", first.failed_on)
    } else {
        "one side or the other refuses to prepare".to_string()
    };
    Some(format!(
        "{sides} {} query class(es) the other side runs (first: `{}`)",
        refused.len(),
        first.class
    ))
}
