//! The Markdown report, the attachment of a change ticket: a one-line verdict, the
//! results table, the method in one paragraph, what differs between the sides, the
//! environment, and the command that reproduces the run. Plain pipe tables and fenced
//! code only, so it renders on GitHub and in Jira alike.

use std::fmt::Write as _;

use serde_json::Value;

use super::{ReportView, format, judgement};
use crate::results::ResultsFile;

/// Renders the Markdown report.
pub fn render(view: &ReportView<'_>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# abtest: {} vs {}\n", view.names[0], view.names[1]);
    let _ = writeln!(out, "**Result:** {}\n", view.headline());
    results_table(view, &mut out);
    let notes = view.power_notes();
    if !notes.is_empty() {
        let _ = writeln!(out, "\n**Power:**\n");
        for note in notes {
            let _ = writeln!(out, "- {note}");
        }
    }
    if let Some(results) = view.results {
        method(results, view.alpha, &mut out);
        differences(results, &mut out);
        environment(results, &mut out);
    }
    if !view.warnings.is_empty() {
        let _ = writeln!(out, "\n## Warnings\n");
        for warning in &view.warnings {
            let _ = writeln!(out, "- {}", escape(warning));
        }
    }
    if let Some(command) = view
        .results
        .and_then(|r| r.plan.get("command_line"))
        .and_then(Value::as_str)
    {
        let _ = writeln!(out, "\n## Reproduce\n\n```\n{command}\n```");
    }
    out
}

fn results_table(view: &ReportView<'_>, out: &mut String) {
    let _ = writeln!(
        out,
        "| threads | metric | baseline | variant | change [{} % CI] | p | Holm p | verdict |",
        format::confidence(view.alpha)
    );
    let _ = writeln!(out, "|---:|---|---:|---:|---|---:|---:|---|");
    for c in view.comparisons {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            c.threads,
            c.metric,
            format::value(&c.metric, c.baseline.mean),
            format::value(&c.metric, c.variant.mean),
            format::change(c.change_pct, c.ci_pct),
            format::p_value(c.p),
            format::p_value(c.p_holm),
            judgement(c)
        );
    }
}

fn method(results: &ResultsFile, alpha: f64, out: &mut String) {
    let plan = &results.plan;
    let schedule = &plan["schedule"];
    let workload = &plan["workload"];
    let secs = |v: &Value| {
        v.as_f64().map_or("?".to_string(), |s| {
            humantime::format_duration(std::time::Duration::from_secs_f64(s)).to_string()
        })
    };
    let _ = writeln!(
        out,
        "\n## Method\n\n{} rounds per side at each thread level ({}), in {} order (seed {}); each round \
         is a {} warm-up that is not counted and a {} measured period. Workload: {} on {} table(s) of {} rows. \
         Each round gives one value per metric; the sides are compared with Welch's t-test, the change \
         with Fieller's {} % interval for the ratio of means, p-values Holm-adjusted across all \
         comparisons (α = {alpha}). Verdicts, where tolerances were given, are non-inferiority tests \
         on the {} % interval.",
        schedule["rounds"],
        join_levels(&schedule["levels"]),
        schedule["order"].as_str().unwrap_or("?").to_uppercase(),
        plan["seed"],
        secs(&schedule["warmup"]),
        secs(&schedule["round_time"]),
        workload["name"].as_str().unwrap_or("?"),
        workload["tables"],
        workload["table_size"],
        format::confidence(alpha),
        format::confidence(2.0 * alpha),
    );
}

fn join_levels(levels: &Value) -> String {
    levels
        .as_array()
        .map(|l| {
            l.iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default()
        + " threads"
}

fn differences(results: &ResultsFile, out: &mut String) {
    let _ = writeln!(out, "\n## What differs between the sides\n");
    if results.differences.is_empty() {
        let _ = writeln!(
            out,
            "Nothing: same variables and same client TLS. This is an A/A comparison."
        );
        return;
    }
    let _ = writeln!(out, "| variable | baseline | variant |\n|---|---|---|");
    for d in &results.differences {
        let cell = |v: &Option<String>| v.as_deref().map_or("(absent)".to_string(), escape);
        let _ = writeln!(
            out,
            "| {} | {} | {} |",
            d.name,
            cell(&d.baseline),
            cell(&d.variant)
        );
    }
}

fn environment(results: &ResultsFile, out: &mut String) {
    let _ = writeln!(
        out,
        "\n## Environment\n\n- host: {}",
        escape(&results.host.describe())
    );
    for (side, info) in &results.sides {
        if let Some(facts) = &info.facts {
            let _ = writeln!(
                out,
                "- {side} ({}): {} ({}), client TLS {} {}",
                escape(&info.name),
                facts.version,
                escape(&facts.version_comment),
                facts.tls_version,
                facts.tls_cipher
            );
        }
    }
    let _ = writeln!(out, "- abtest {}", results.abtest_version);
}

/// Escapes the characters that would break a pipe table.
fn escape(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}
