//! The content every ticket report shares — results rows, the method paragraph, the
//! variables that differ, the environment, the reproduce command — as plain text, so
//! Markdown and HTML render the same facts and differ only in markup.

use super::{ReportView, decision, format, judgement};
use crate::results::RunRecord;
use crate::results::noise::NoiseBudget;
use crate::stats::blocked::{BlockEstimate, LoadAdjustment, LoadImbalance};
use crate::stats::compare::Comparison;
use crate::stats::compare::Family;
use crate::stats::metric::Metric;

/// The title of the explanatory block, which says how it differs from the main table.
pub(crate) const EXPLANATORY_TITLE: &str =
    "Explanatory metrics (not judged; Holm-adjusted among themselves)";

/// Whether a results table of `family` has the deciding-bound column: some metric of
/// the family has a tolerance.
pub(crate) fn has_decisions(view: &ReportView<'_>, family: Family) -> bool {
    view.comparisons
        .iter()
        .any(|c| c.family == family && c.tolerance_pct.is_some())
}

/// The header of the results table. With tolerances, the column before the verdict is
/// the bound the verdict reads; the change column is the estimate, labelled by its level.
/// What the headers leave out — the bound's level, the adjustment for looks — is in
/// [`super::answer::levels_note`], printed under the table.
pub(crate) fn header(view: &ReportView<'_>, family: Family) -> Vec<String> {
    let mut header: Vec<String> = vec![
        "threads".into(),
        "metric".into(),
        "baseline".into(),
        "variant".into(),
        format!("change [{} % CI]", format::confidence(view.alpha)),
        "p".into(),
        "Holm p".into(),
    ];
    if has_decisions(view, family) {
        // Its level, and the looks' adjustment, are in the note under the table
        // (`answer::levels_note`): a header that says it is 60 columns wide.
        header.push("verdict reads".into());
    }
    header.push("verdict".into());
    header
}

/// Which columns of [`header`] hold numbers, for right alignment.
pub(crate) fn numeric_columns(view: &ReportView<'_>, family: Family) -> Vec<bool> {
    let mut numeric = vec![true, false, true, true, false, true, true];
    if has_decisions(view, family) {
        numeric.push(false);
    }
    numeric.push(false);
    numeric
}

/// The rows of the results table for one family of metrics: threads, metric, baseline,
/// variant, change [CI], p, Holm p, the deciding bound (with tolerances), and the verdict
/// (or "significant").
pub(crate) fn rows(view: &ReportView<'_>, family: Family) -> Vec<Vec<String>> {
    let decisions = has_decisions(view, family);
    view.comparisons
        .iter()
        .filter(|c| c.family == family)
        .map(|c| {
            let mut row = vec![
                c.threads.to_string(),
                c.metric.label(),
                format::value(&c.metric, c.estimate_means[0]),
                format::value(&c.metric, c.estimate_means[1]),
                format::comparison_change(c),
                format::p_value(c.p),
                format::p_value(c.p_holm),
            ];
            if decisions {
                row.push(decision::cell(c));
            }
            row.push(judgement(c));
            row
        })
        .collect()
}

/// The method in one paragraph.
pub(crate) fn method(
    record: &RunRecord,
    comparisons: &[Comparison],
    alpha: f64,
    verdict_alpha: f64,
) -> String {
    let plan = &record.plan;
    let schedule = &plan.schedule;
    let workload = &plan.workload;
    let duration = |d: std::time::Duration| humantime::format_duration(d).to_string();
    let levels: Vec<String> = schedule.levels.iter().map(u32::to_string).collect();
    format!(
        "{} at each thread level ({} threads), in {} order (seed {}); each round \
         is a {} warm-up that is not counted and a {} measured period{}. Workload: {} on {} table(s) of {} rows. \
         {}; {}, p-values Holm-adjusted within \
         the confirmatory family (TPS and latency at every level) and, separately, among the explanatory \
         metrics (α = {}). Verdicts, where tolerances were given, are non-inferiority tests: \
         each reads the one-sided {} % bound of the change (a bound of the {} % two-sided \
         interval), shown in the column \"verdict reads\"; the {} % interval is the estimate.{}",
        rounds_run(record),
        levels.join(", "),
        schedule.order.as_str().to_uppercase(),
        plan.seed,
        duration(schedule.warmup),
        duration(schedule.round_time),
        match schedule.rewarm {
            Some(rewarm) => format!(
                "; each side keeps its connections from round to round, so its later rounds \
                 re-warm for {} only",
                duration(rewarm)
            ),
            None => String::new(),
        },
        workload.name(),
        workload.tables.count,
        workload.tables.rows,
        values_per_side(schedule.instances),
        comparison_method(comparisons, alpha),
        format::level(alpha),
        format::confidence(verdict_alpha),
        format::confidence(2.0 * verdict_alpha),
        format::confidence(alpha),
        load_adjustment(comparisons, alpha),
    )
}

/// "14 rounds per side", or for a run its looks stopped early "Up to 14 rounds per side
/// (the run stopped at look 3, after 10)".
fn rounds_run(record: &RunRecord) -> String {
    let planned = record.plan.schedule.rounds;
    match record.looks.last() {
        Some(look) if look.rounds_per_side < planned => format!(
            "Up to {planned} rounds per side (the run stopped at look {}, after {})",
            look.look, look.rounds_per_side
        ),
        _ => format!("{planned} rounds per side"),
    }
}

/// How the sides are compared: Welch and Fieller on independent values, or block by
/// block when the analysis followed the round order (`stats::blocked`) — read from the
/// comparisons themselves, so the paragraph says what was done.
fn comparison_method(comparisons: &[Comparison], alpha: f64) -> String {
    let blocking = comparisons
        .iter()
        .find_map(|c| c.blocks.map(|b| b.blocking));
    let confidence = format::confidence(alpha);
    let Some(blocking) = blocking else {
        return format!(
            "the sides are compared with Welch's t-test, the change with Fieller's \
             {confidence} % interval for the ratio of means"
        );
    };
    format!(
        "the sides are compared as the order was designed, over {}: each gives the ratio of \
         its side means, the change is their geometric mean with a paired t {confidence} % \
         interval over them (a run with fewer than two is compared with Welch and Fieller on \
         rounds). The baseline and variant figures in the tables are the geometric means of \
         each side's block means, so that their ratio is the change that decided",
        blocking.plural(),
    )
}

/// The TPS comparison whose asked-for adjustment was refused, with the imbalance.
fn refused_tps(comparisons: &[Comparison]) -> Option<(u32, LoadImbalance)> {
    comparisons
        .iter()
        .filter(|c| c.metric == Metric::Tps)
        .find_map(|c| Some((c.threads, c.blocks?.imbalance?)))
}

/// The TPS estimate adjusted for the host's load and the plain one beside it, when the
/// analysis adjusted.
fn adjusted_tps(
    comparisons: &[Comparison],
) -> Option<(BlockEstimate, LoadAdjustment, BlockEstimate)> {
    comparisons
        .iter()
        .filter(|c| c.metric == Metric::Tps)
        .find_map(|c| {
            let blocks = c.blocks?;
            Some((blocks, blocks.adjustment?, blocks.unadjusted()?))
        })
}

/// How the estimates were adjusted for the host's load, if they were, with TPS before
/// and after: the last sentences of the method paragraph.
fn load_adjustment(comparisons: &[Comparison], alpha: f64) -> String {
    let Some((adjusted, adjustment, plain)) = adjusted_tps(comparisons) else {
        return match refused_tps(comparisons) {
            Some((threads, imbalance)) => {
                let sentence = crate::analysis::imbalance_sentence(threads, &imbalance);
                format!(" The estimates were {sentence}.")
            }
            None => String::new(),
        };
    };
    format!(
        " Other processes on the machine varied in the CPU they used (--adjust host-load), \
         so each block's ratio is regressed on how much more of it they used during the \
         variant's rounds than during the baseline's, and every change is read at equal \
         load, on B − 2 degrees of freedom; the variant's figure in the tables is the \
         baseline's times that ratio. The blocks' load differences passed the balance check \
         (their mean is not distinguishable from zero), which the adjustment needs: it \
         assumes the variant does not move its neighbours' CPU. For TPS, each point of the machine's CPU moved \
         it by {:+.2} %, the load explains {:.0} % of the blocks' variance, and the variant's \
         rounds met {:+.1} points more of it on average: TPS {} at equal load, where the \
         blocks' plain mean says {}.",
        100.0 * adjustment.slope,
        100.0 * adjustment.explained,
        adjustment.mean_load_difference,
        format::change(adjusted.change_pct(), Some(adjusted.percent_bounds(alpha))),
        format::change(plain.change_pct(), Some(plain.percent_bounds(alpha))),
    )
}

/// One line for the terminal when the estimates were adjusted for the host's load.
pub(crate) fn adjustment_note(comparisons: &[Comparison], alpha: f64) -> Option<String> {
    let (_, adjustment, plain) = adjusted_tps(comparisons)?;
    Some(format!(
        "adjusted for the host's load: other processes' CPU explains {:.0} % of the blocks' \
         TPS variance; unadjusted TPS {} (--adjust none turns this off)",
        100.0 * adjustment.explained,
        format::change(plain.change_pct(), Some(plain.percent_bounds(alpha))),
    ))
}

/// What gives the values the sides are compared on: each round, or each of `instances`
/// server instances with the mean of its rounds.
fn values_per_side(instances: u32) -> String {
    if instances > 1 {
        format!(
            "Each side's rounds ran on {instances} fresh server instances in turn, and each \
             instance gives one value per metric, the mean of its rounds, so that the difference \
             between instances is in every interval"
        )
    } else {
        "Each round gives one value per metric".into()
    }
}

/// The variables that differ: (name, baseline, variant).
pub(crate) fn differences(results: &RunRecord) -> Vec<[String; 3]> {
    results
        .differences
        .iter()
        .map(|d| {
            let cell = |v: &Option<String>| {
                v.as_deref()
                    .map_or_else(|| "(absent)".into(), |v| format::variable_value(&d.name, v))
            };
            [d.name.clone(), cell(&d.baseline), cell(&d.variant)]
        })
        .collect()
}

/// Each side's my.cnf (`[server] defaults_file`): a title and one row per option with
/// what abtest did with it.
pub(crate) fn defaults_files(results: &RunRecord) -> Vec<(String, Vec<Vec<String>>)> {
    results
        .plan
        .sides
        .iter()
        .filter_map(|side| match &side.target {
            crate::plan::TargetSpec::Managed {
                defaults_file: Some(file),
                ..
            } => Some((
                format!("From {}'s defaults file {}", side.side, file.path.display()),
                file.options
                    .iter()
                    .map(crate::server::defaults_file::FileOption::shown)
                    .map(|o| {
                        vec![
                            o.name.clone(),
                            o.value.clone().unwrap_or_default(),
                            o.treatment.as_str().to_string(),
                        ]
                    })
                    .collect(),
            )),
            _ => None,
        })
        .collect()
}

/// Said when no variable differs.
pub(crate) const NO_DIFFERENCE: &str =
    "Nothing: same variables and same client TLS. This is an A/A comparison.";

/// Environment lines: the host, each side's server, abtest; with the run's `noise`, how
/// far apart its server instances were.
pub(crate) fn environment(results: &RunRecord, noise: Option<&NoiseBudget>) -> Vec<String> {
    let mut lines = vec![format!("host: {}", results.host.describe())];
    for (side, info) in &results.sides {
        if let Some(facts) = &info.facts {
            let variable = |name: &str| facts.variables.get(name).map_or("?", String::as_str);
            let thread_handling = variable("thread_handling");
            let pool = format::variable_value(
                "innodb_buffer_pool_size",
                variable("innodb_buffer_pool_size"),
            );
            let flush = variable("innodb_flush_log_at_trx_commit");
            let sync = variable("sync_binlog");
            // A server run from an install tree of its own says which.
            let from = results
                .plan
                .side(*side)
                .install_tree()
                .map(|tree| format!(" from {}", tree.basedir.display()))
                .unwrap_or_default();
            lines.push(format!(
                "{side} ({}): {} ({}){from}, client TLS {}, {thread_handling}, buffer pool {pool}, \
                 innodb_flush_log_at_trx_commit {flush}, sync_binlog {sync}",
                crate::terminal::escape_controls(&info.name),
                facts.version,
                facts.version_comment,
                if facts.tls_version == "none" {
                    "none".to_string()
                } else {
                    format!("{} {}", facts.tls_version, facts.tls_cipher)
                }
            ));
        }
    }
    if let Some(first) = results.started_first {
        lines.push(format!(
            "the {first} server was started first (the seed picks the order)"
        ));
    }
    lines.push(client_line(results));
    if !results.segments.is_empty() {
        lines.push(segments_line(results));
    }
    if let Some(line) = noise.and_then(instances_line) {
        lines.push(line);
    }
    if let Some(effect) = noise.and_then(|n| n.server_effect_pct) {
        lines.push(format!(
            "servers swapped halfway (--swap): with the same settings the baseline's server ran \
             {effect:+.1} % against the variant's; each setting ran half its rounds on each server"
        ));
    }
    lines.push(format!("abtest {}", results.abtest_version));
    lines
}

/// How far apart server instances of one configuration were (`--instances`).
fn instances_line(noise: &NoiseBudget) -> Option<String> {
    if noise.instances.is_empty() {
        return None;
    }
    let sides = noise.instances.iter().map(|v| {
        format!(
            "{} at {} threads: between instances {:.1} %, between rounds {:.1} % ({} instances)",
            v.side, v.threads, v.between_cv_pct, v.within_cv_pct, v.tps.instances
        )
    });
    let pairs = noise.instance_pairs.iter().map(|v| {
        format!(
            "at {} threads both sides' instances shared {:.1} % (started together, it cancels \
             in the comparison) and each had {:.1} % of its own",
            v.threads, v.shared_cv_pct, v.own_cv_pct
        )
    });
    let parts: Vec<String> = sides.chain(pairs).collect();
    Some(format!(
        "server instances (TPS SD in % of the mean; the comparison is on instance means): {}",
        parts.join("; ")
    ))
}

/// Where the client load of a merged run came from.
fn segments_line(results: &RunRecord) -> String {
    let parts: Vec<String> = results
        .segments
        .iter()
        .map(|s| {
            format!(
                "{}/{} on {} ({} transactions, measured periods at most {:.0} ms late)",
                s.index,
                results.segments.len(),
                if s.host.is_empty() { "?" } else { &s.host },
                s.transactions,
                s.max_start_offset_ms
            )
        })
        .collect();
    format!(
        "client load split into segments, merged: {}",
        parts.join("; ")
    )
}

/// How the client drove the servers: scheduling, connections, freezing, CPU placement.
fn client_line(results: &RunRecord) -> String {
    let plan = &results.plan;
    let client = &plan.client;
    let mut placement: Vec<String> = Vec::new();
    if let Some(cpus) = &client.cpus {
        placement.push(format!("client threads on CPU {cpus}"));
    }
    for side in &plan.sides {
        if let Some(cpus) = &side.cpus {
            placement.push(format!("{} server on CPU {cpus}", side.side));
        }
    }
    format!(
        "client: {} scheduling, connections {}, idle side {}, {}",
        client.client_sched.as_str(),
        client.connections.as_str(),
        if client.freeze_idle {
            "frozen"
        } else {
            "running"
        },
        if placement.is_empty() {
            "no CPU pinning".to_string()
        } else {
            placement.join(", ")
        }
    )
}

/// The command that reproduces the run.
pub(crate) fn reproduce(results: &RunRecord) -> Option<String> {
    Some(results.plan.command_line.clone()).filter(|line| !line.is_empty())
}

/// The header of the table of looks of a run with `--until`.
pub(crate) fn looks_header() -> [String; 7] {
    [
        "look",
        "rounds per side",
        "α at the look",
        "TPS change [CI at the look]",
        "± (half-width)",
        "verdict",
        "elapsed",
    ]
    .map(String::from)
}

/// One row per look.
pub(crate) fn looks_rows(results: &RunRecord) -> Vec<[String; 7]> {
    results
        .looks
        .iter()
        .map(|look| {
            [
                look.look.to_string(),
                look.rounds_per_side.to_string(),
                format::level(look.alpha),
                look.tps_change_pct
                    .map_or("-".into(), |c| format::ratio_change(c, look.tps_ci_pct)),
                look.tps_ci_pct.map_or("-".into(), format::half_width),
                look.verdict.map_or("", |v| v.as_str()).to_string(),
                humantime::format_duration(std::time::Duration::from_secs(look.elapsed_s as u64))
                    .to_string(),
            ]
        })
        .collect()
}

/// The header of the sweep summary.
pub(crate) fn sweep_header(alpha: f64) -> [String; 5] {
    let ci = format::confidence(alpha);
    [
        "threads".into(),
        "baseline TPS".into(),
        "variant TPS".into(),
        format!("TPS change [{ci} % CI]"),
        format!("p95 change [{ci} % CI]"),
    ]
}

/// One row per thread level: both sides' TPS and the TPS and p95 changes.
pub(crate) fn sweep_rows(view: &ReportView<'_>) -> Vec<[String; 5]> {
    view.levels()
        .into_iter()
        .map(|threads| {
            let find = |metric: Option<Metric>| {
                view.comparisons
                    .iter()
                    .find(|c| c.threads == threads && Some(&c.metric) == metric.as_ref())
            };
            let change = |c: Option<&crate::stats::compare::Comparison>| {
                c.map_or("-".to_string(), format::comparison_change)
            };
            let tps = find(Some(Metric::Tps));
            [
                threads.to_string(),
                tps.map_or("-".into(), |c| {
                    format::value(&Metric::Tps, c.estimate_means[0])
                }),
                tps.map_or("-".into(), |c| {
                    format::value(&Metric::Tps, c.estimate_means[1])
                }),
                change(tps),
                change(find(Metric::percentile(95.0))),
            ]
        })
        .collect()
}

/// The Answers table: one row per query class that answered differently, in another
/// order, could not be compared, or was compared in part; each side's cell holds its
/// answer, its first differing row and its warnings' texts, the last cell where the
/// answers differ, why part was not compared, or the advice.
pub(crate) fn answer_rows(check: &crate::answers::ResultCheck) -> Vec<Vec<String>> {
    let order_kind = if check.order_matters {
        "other order (--check-order)"
    } else {
        "same rows, other order"
    };
    let side = |answer: &str, row: &Option<String>, warnings: &[String]| {
        let mut cell = answer.to_string();
        if let Some(row) = row {
            cell.push_str(&format!("; first differing row ({row})"));
        }
        for warning in warnings {
            cell.push_str(&format!("; {warning}"));
        }
        cell
    };
    [
        ("differ", &check.differences),
        (order_kind, &check.order_only),
        ("not compared: same error", &check.not_compared),
        ("not comparable in part", &check.not_comparable),
    ]
    .into_iter()
    .flat_map(|(kind, list)| {
        list.iter().map(move |d| {
            let note = [&d.detail, &d.reason, &d.advice]
                .into_iter()
                .flatten()
                .cloned()
                .collect::<Vec<_>>()
                .join("; ");
            vec![
                kind.to_string(),
                d.class.clone(),
                d.count.to_string(),
                format!("{} [{}]", d.statement, d.params.join(", ")),
                side(&d.baseline, &d.baseline_row, &d.baseline_warnings),
                side(&d.variant, &d.variant_row, &d.variant_warnings),
                note,
            ]
        })
    })
    .collect()
}
