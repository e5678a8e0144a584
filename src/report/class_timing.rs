//! The class timing table (`--class-timing`) as plain text for every format: one row
//! per read query class, the slowest first, with each side's median latency, the
//! latency ratio and its interval from the blocks, the Holm p the verdict used and the
//! class's verdict; a class left out says why.

use super::classes::shown;
use super::format;
use crate::results::class_slowdown::{ClassSlowdown, times};
use crate::stats::verdict::Verdict;

/// The table's title.
pub(crate) const TITLE: &str = "Query classes timed on idle servers, slowest first (each \
     class in blocks of paired executions on fresh connections; the ratio is variant / \
     baseline)";

/// The column titles; the Holm p is tested against `tolerance` when one was given. The
/// interval is at the verdicts' level (1 - 2α): a GO is its upper bound within the
/// tolerance, a NO-GO the Holm p below α.
pub(crate) fn header(alpha: f64, tolerance: Option<f64>) -> Vec<String> {
    let p = match tolerance {
        Some(t) => format!("Holm p (beyond {})", times(t)),
        None => "Holm p (beyond 2×)".into(),
    };
    vec![
        "query class".into(),
        "blocks × runs".into(),
        "median ms, baseline → variant".into(),
        format!("ratio [{} % CI]", format::confidence(2.0 * alpha)),
        p,
        "verdict".into(),
    ]
}

/// Which columns hold numbers.
pub(crate) fn numeric() -> Vec<bool> {
    vec![false, true, true, true, true, false]
}

/// One row per class, in the judgement's order.
pub(crate) fn rows(classes: &[ClassSlowdown]) -> Vec<Vec<String>> {
    classes.iter().map(row).collect()
}

fn row(c: &ClassSlowdown) -> Vec<String> {
    if let Some(why) = &c.left_out {
        return vec![
            shown(&c.class),
            "—".into(),
            "—".into(),
            format!("left out: {why}"),
            String::new(),
            String::new(),
        ];
    }
    let [baseline, variant] = c.median_ms;
    let ratio = match (c.ratio, c.ci) {
        (Some(r), Some([low, high])) => format!("{} [{}, {}]", times(r), times(low), times(high)),
        _ => "—".into(),
    };
    vec![
        shown(&c.class),
        format!("{} × {}", c.blocks, c.pairs),
        format!("{baseline:.3} → {variant:.3}"),
        ratio,
        c.p_holm.map_or_else(|| "—".into(), format::p_value),
        c.verdict
            .map_or_else(String::new, |v| v.as_str().to_string()),
    ]
}

/// The headline's words for the timed classes that made `verdict`: the slowest class
/// too slow with its ratio and interval (and how many more), how many classes could not
/// be told, or how many were within; nothing when no class made it.
pub(crate) fn headline(classes: &[ClassSlowdown], verdict: Verdict) -> Option<String> {
    let made: Vec<&ClassSlowdown> = classes
        .iter()
        .filter(|c| c.verdict == Some(verdict))
        .collect();
    let first = made.first()?;
    match verdict {
        Verdict::NoGo => {
            let [low, high] = first.ci.unwrap_or([f64::NAN; 2]);
            let more = match made.len() {
                1 => String::new(),
                n => format!(" (and {} more class(es))", n - 1),
            };
            Some(format!(
                "query class {} is {} slower on idle servers [{}, {}]{more}",
                super::classes::shown_in(&first.class, 60),
                times(first.ratio.unwrap_or(f64::NAN)),
                times(low),
                times(high)
            ))
        }
        Verdict::Inconclusive => Some(format!(
            "{} timed query class(es) not told within or beyond the slowdown allowed",
            made.len()
        )),
        Verdict::Go => Some(format!(
            "{} timed query class(es) within the slowdown allowed",
            made.len()
        )),
    }
}

/// The line under the table: how long the timing took and why it stopped short.
pub(crate) fn footnote(timing: &crate::results::class_timing::ClassTiming) -> String {
    let mut text = format!(
        "{} blocks planned, {:.0} s of a {:.0} s budget",
        timing.blocks, timing.elapsed_s, timing.budget_s
    );
    if let Some(why) = &timing.cut_short {
        text.push_str(&format!("; cut short: {why}"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_shows_the_numbers_that_decided_and_a_left_out_class_why() {
        let judged = ClassSlowdown {
            class: "SELECT c FROM t WHERE k = {k}".into(),
            statement: String::new(),
            blocks: 6,
            pairs: 12,
            median_ms: [0.2, 2.1],
            ratio: Some(10.4),
            ci: Some([8.0, 13.5]),
            p_holm: Some(0.0004),
            verdict: Some(Verdict::NoGo),
            left_out: None,
        };
        let shown = rows(std::slice::from_ref(&judged));
        assert_eq!(
            shown[0][1..],
            [
                "6 × 12",
                "0.200 → 2.100",
                "10× [8.0×, 14×]",
                &format::p_value(0.0004),
                "NO-GO"
            ]
        );
        let failed = ClassSlowdown {
            left_out: Some("variant: 1055 (42000): …".into()),
            verdict: None,
            ..judged.clone()
        };
        assert_eq!(rows(&[failed])[0][3], "left out: variant: 1055 (42000): …");
        assert_eq!(header(0.05, Some(3.0))[4], "Holm p (beyond 3.0×)");
        assert_eq!(
            headline(std::slice::from_ref(&judged), Verdict::NoGo).unwrap(),
            "query class SELECT c FROM t WHERE k = {k} is 10× slower on idle servers [8.0×, 14×]"
        );
        assert_eq!(headline(std::slice::from_ref(&judged), Verdict::Go), None);
        let within = ClassSlowdown {
            verdict: Some(Verdict::Go),
            ..judged
        };
        assert_eq!(
            headline(&[within], Verdict::Go).unwrap(),
            "1 timed query class(es) within the slowdown allowed"
        );
    }
}
