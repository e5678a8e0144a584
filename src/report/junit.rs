//! JUnit XML of a run's verdicts (`--junit FILE`), so a CI system shows each tolerance
//! as a test: GitHub Actions, GitLab and Jenkins read this format natively. One test case
//! per tolerance and thread level: passed for GO, failed for NO-GO and for INCONCLUSIVE
//! (a change board cannot approve what the data could not decide; the failure's type
//! says which). Tolerances that could not be judged at all, answers that differ and a
//! run that did not finish its plan are test cases too, so the XML never says less than
//! the exit code. Only a run without any tolerance is skipped: there was nothing to test.

use std::fmt::Write as _;

use super::{ReportView, decision};
use crate::stats::verdict::Verdict;

/// One test case.
struct Case {
    name: String,
    outcome: Outcome,
}

enum Outcome {
    Passed,
    /// Failed, with the failure's type (NO-GO, INCONCLUSIVE, PARTIAL) and message.
    Failed(&'static str, String),
    Skipped(String),
}

/// The JUnit document of `view`.
pub(crate) fn render(view: &ReportView<'_>) -> String {
    let cases = cases(view);
    let count = |f: fn(&Outcome) -> bool| cases.iter().filter(|c| f(&c.outcome)).count();
    let failures = count(|o| matches!(o, Outcome::Failed(..)));
    let skipped = count(|o| matches!(o, Outcome::Skipped(_)));
    let suite = escape(&format!("abtest: {} vs {}", view.names[0], view.names[1]));
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        xml,
        "<testsuites name=\"abtest\" tests=\"{}\" failures=\"{failures}\" skipped=\"{skipped}\">",
        cases.len()
    );
    let _ = writeln!(
        xml,
        "  <testsuite name=\"{suite}\" tests=\"{}\" failures=\"{failures}\" skipped=\"{skipped}\">",
        cases.len()
    );
    for case in &cases {
        let name = escape(&case.name);
        match &case.outcome {
            Outcome::Passed => {
                let _ = writeln!(xml, "    <testcase classname=\"abtest\" name=\"{name}\"/>");
            }
            Outcome::Failed(kind, message) => {
                let _ = writeln!(
                    xml,
                    "    <testcase classname=\"abtest\" name=\"{name}\">\n      <failure message=\"{m}\" type=\"{kind}\">{m}</failure>\n    </testcase>",
                    m = escape(message)
                );
            }
            Outcome::Skipped(message) => {
                let _ = writeln!(
                    xml,
                    "    <testcase classname=\"abtest\" name=\"{name}\">\n      <skipped message=\"{}\"/>\n    </testcase>",
                    escape(message)
                );
            }
        }
    }
    xml.push_str("  </testsuite>\n</testsuites>\n");
    xml
}

fn cases(view: &ReportView<'_>) -> Vec<Case> {
    let label = view.bound_label();
    let mut cases: Vec<Case> = view
        .comparisons
        .iter()
        .filter_map(|c| {
            let tolerance = c.tolerance_pct?;
            let name = format!(
                "{} at {} threads within the {}",
                c.metric.spoken(),
                c.threads,
                decision::tolerance_name(c, tolerance)
            );
            let bound = decision::phrase(c).unwrap_or_default();
            let reason = view
                .unchecked
                .iter()
                .find(|r| r.starts_with(&reason_prefix(c)));
            let outcome = match (c.verdict, reason) {
                (Some(Verdict::Go), _) => Outcome::Passed,
                (Some(Verdict::NoGo), _) => {
                    Outcome::Failed("NO-GO", format!("NO-GO: {bound} ({label})"))
                }
                (_, Some(reason)) => inconclusive(reason),
                (None, None) if view.partial.is_some() => Outcome::Failed(
                    "PARTIAL",
                    "no verdict: the run did not finish its plan".into(),
                ),
                _ => inconclusive(&format!("{bound} ({label})")),
            };
            Some(Case { name, outcome })
        })
        .collect();
    for reason in view.unchecked {
        let has_case = view
            .comparisons
            .iter()
            .any(|c| c.tolerance_pct.is_some() && reason.starts_with(&reason_prefix(c)));
        if !has_case {
            cases.push(Case {
                name: format!("tolerance not judged: {reason}"),
                outcome: inconclusive(reason),
            });
        }
    }
    if let Some(check) = view.run.and_then(|r| r.record.result_check.as_ref()) {
        cases.push(Case {
            name: "both sides give the same answers".into(),
            outcome: if !check.answers_differ() {
                Outcome::Passed
            } else {
                Outcome::Failed("NO-GO", check.summary())
            },
        });
    }
    if let Some(why) = &view.partial {
        cases.push(Case {
            name: "the run finished its plan".into(),
            outcome: Outcome::Failed("PARTIAL", format!("PARTIAL: {why}")),
        });
    }
    if cases.is_empty() {
        cases.push(Case {
            name: "verdict".into(),
            outcome: Outcome::Skipped("no tolerance was given, so there is no verdict".into()),
        });
    }
    cases
}

/// A failed case for a tolerance the data could not decide.
fn inconclusive(why: &str) -> Outcome {
    Outcome::Failed("INCONCLUSIVE", format!("INCONCLUSIVE: {why}"))
}

/// How a reason for an unjudged tolerance starts when it is about comparison `c`.
fn reason_prefix(c: &crate::stats::compare::Comparison) -> String {
    format!("{} at {} threads:", c.metric.label(), c.threads)
}

/// Escapes text for an XML attribute or element.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if (c as u32) < 0x20 && !matches!(c, '\n' | '\t' | '\r') => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn escapes_markup_and_drops_control_characters() {
        assert_eq!(escape("a<b & \"c\"\u{1}"), "a&lt;b &amp; &quot;c&quot;");
    }
}
