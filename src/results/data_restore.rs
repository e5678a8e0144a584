//! What a replay that writes did to keep both sides' data equal: the tables it copied
//! before the first round, how often and how fast it put them back (before every round
//! of each side, and once more at the end), and whether each server's tables ended as
//! they began (`CHECKSUM TABLE` before and after). Facts only; the sentence the report
//! and the terminal print is [`DataRestore::sentence`].

use serde::{Deserialize, Serialize};

/// The tables a replay put back, and what that took.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct DataRestore {
    /// Each table copied before the first round, with its rows then.
    pub(crate) tables: Vec<KeptTable>,
    /// Seconds each putting back took, in run order (both sides; outside the rounds).
    pub(crate) restores_s: Vec<f64>,
    /// Tables whose checksum at the end is not the one they had before the first round,
    /// on either side: put back wrongly, or changed by something the replay does not
    /// put back (a trigger).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) changed: Vec<String>,
    /// Whether the end of the run was reached and the tables were checked there.
    pub(crate) checked: bool,
}

/// A table the replay copied and put back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct KeptTable {
    /// The table, as the statements name it.
    pub(crate) name: String,
    /// Its rows before the first round, on the baseline.
    pub(crate) rows: u64,
}

impl DataRestore {
    /// What the replay did, in one sentence.
    pub(crate) fn sentence(&self) -> String {
        let tables: Vec<String> = self
            .tables
            .iter()
            .map(|t| format!("{}: {} rows", t.name, t.rows))
            .collect();
        let mean = if self.restores_s.is_empty() {
            0.0
        } else {
            self.restores_s.iter().sum::<f64>() / self.restores_s.len() as f64
        };
        let end = match (self.checked, self.changed.is_empty()) {
            (false, _) => "the run did not reach its end, so the tables were not checked".into(),
            (true, true) => "both servers' tables ended as they began (CHECKSUM TABLE)".into(),
            (true, false) => format!(
                "these tables did not end as they began: {} (a trigger or a statement that \
                 writes another table changed them; load the data again before comparing answers)",
                self.changed.join(", ")
            ),
        };
        format!(
            "Writes replayed on kept data: {} table(s) the workload writes were copied before \
             the first round ({}) and put back before every round of each side and at the \
             end, {} time(s), {mean:.2} s each on average, outside the measured time; {end}",
            self.tables.len(),
            tables.join(", "),
            self.restores_s.len()
        )
    }
}

/// What the replay does with captured INSERT ids, in one sentence.
pub(crate) fn rebased_sentence(columns: &[String]) -> String {
    let is = if columns.len() == 1 {
        "is its table's AUTO_INCREMENT column"
    } else {
        "are their tables' AUTO_INCREMENT columns"
    };
    format!(
        "Captured INSERT ids re-based: {} {is}, so the replayed INSERTs send NULL there \
         and the server assigns the id, as it did for the application (a value another \
         statement of the transaction also uses is kept)",
        listed(columns)
    )
}

/// `columns` joined, or "none".
pub(crate) fn listed(columns: &[String]) -> String {
    if columns.is_empty() {
        "none".into()
    } else {
        columns.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::{DataRestore, KeptTable};

    #[test]
    fn the_sentence_says_what_was_kept_and_how_the_tables_ended() {
        let mut restore = DataRestore {
            tables: vec![KeptTable {
                name: "orders".into(),
                rows: 12,
            }],
            restores_s: vec![0.5, 1.5],
            changed: Vec::new(),
            checked: true,
        };
        let text = restore.sentence();
        assert!(
            text.contains("1 table(s)") && text.contains("(orders: 12 rows)"),
            "{text}"
        );
        assert!(
            text.contains("2 time(s), 1.00 s each") && text.contains("ended as they began"),
            "{text}"
        );
        restore.changed = vec!["audit_log".into()];
        assert!(
            restore
                .sentence()
                .contains("did not end as they began: audit_log")
        );
        restore.checked = false;
        assert!(restore.sentence().contains("not checked"));
    }

    #[test]
    fn the_rebased_sentence_names_each_column_in_agreement() {
        let one = super::rebased_sentence(&["orders.id".into()]);
        assert!(
            one.contains("orders.id is its table's AUTO_INCREMENT column"),
            "{one}"
        );
        let two = super::rebased_sentence(&["items.id".into(), "orders.id".into()]);
        assert!(
            two.contains("items.id, orders.id are their tables' AUTO_INCREMENT columns"),
            "{two}"
        );
    }
}
