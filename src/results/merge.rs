//! `abtest merge`: the results of a run's segments joined into one run. Segments never
//! talked to each other, so the merge is where their agreement is checked: one plan (apart
//! from the segment index and the output files), one seed, the same servers, every
//! segment once, and round starts within the guard gap. Then each round's counts are
//! summed and its latency histograms added (HDR histograms merge without loss), and every
//! round metric is computed again from the sums. Anything that does not add up is
//! refused with the segment and the round that broke it, never silently averaged.

use std::collections::BTreeMap;
use std::time::SystemTime;

use serde_json::Value;

use super::record::{RunRecord, RunStatus, SegmentSource};
use super::round::{LatencyMs, OpenLoop, RoundRecord, RoundStatus};
use crate::histogram;
use crate::plan::Plan;
use crate::segment::Segment;
use crate::server::facts;

/// One segment's results and the file they came from.
pub(crate) struct SegmentFile {
    /// The file, as given.
    pub(crate) file: String,
    /// What the segment recorded.
    pub(crate) record: RunRecord,
}

impl SegmentFile {
    fn segment(&self) -> &Segment {
        self.record
            .plan
            .segment
            .as_ref()
            .expect("checked to be a segment")
    }
}

/// Joins the segments of one run; an error says which segment or round is wrong.
pub(crate) fn merge(mut files: Vec<SegmentFile>) -> Result<RunRecord, String> {
    check_set(&mut files)?;
    check_same_plan(&files)?;
    check_same_servers(&files)?;
    let positions = common_positions(&files);
    let mut merged = files[0].record.clone();
    merged.rounds = Vec::with_capacity(positions.len());
    for position in &positions {
        let rounds: Vec<&RoundRecord> = files.iter().map(|f| round_at(f, *position)).collect();
        check_skew(&files, &rounds)?;
        merged.rounds.push(merge_round(&rounds)?);
    }
    merged.warnings = warnings(&files, &positions);
    merged.segments = files.iter().map(|f| source(f, &positions)).collect();
    merged.status = files
        .iter()
        .map(|f| f.record.status)
        .find(|s| *s != RunStatus::Completed)
        .unwrap_or(RunStatus::Completed);
    merged.error = files.iter().find_map(|f| f.record.error.clone());
    merged.plan.segment = None;
    merged.plan.outputs = Default::default();
    Ok(merged)
}

/// Every file is a segment of the same count, and every index is there exactly once.
fn check_set(files: &mut [SegmentFile]) -> Result<(), String> {
    if let Some(plain) = files.iter().find(|f| f.record.plan.segment.is_none()) {
        return Err(format!(
            "{} is not a segment's results (it was run without --segment)",
            plain.file
        ));
    }
    files.sort_by_key(|f| f.segment().index);
    let count = files[0].segment().count;
    if let Some(other) = files.iter().find(|f| f.segment().count != count) {
        return Err(format!(
            "{} is segment {}/{} but {} is segment {}/{}: they are not parts of one run",
            other.file,
            other.segment().index,
            other.segment().count,
            files[0].file,
            files[0].segment().index,
            count
        ));
    }
    for pair in files.windows(2) {
        if pair[0].segment().index == pair[1].segment().index {
            return Err(format!(
                "segment {}/{count} is given twice: {} and {}",
                pair[0].segment().index,
                pair[0].file,
                pair[1].file
            ));
        }
    }
    let present: Vec<u32> = files.iter().map(|f| f.segment().index).collect();
    let missing: Vec<String> = (1..=count)
        .filter(|i| !present.contains(i))
        .map(|i| format!("{i}/{count}"))
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "segment {} missing: a merge needs every segment of the run, each once",
            if missing.len() == 1 {
                format!("{} is", missing[0])
            } else {
                format!("{} are", missing.join(", "))
            }
        ));
    }
    Ok(())
}

/// The plan as every segment must hold it: without what may differ per segment (its
/// index, its output files, its command line and its client CPUs).
fn shared_plan(results: &RunRecord) -> Plan {
    let mut plan = results.plan.clone();
    if let Some(segment) = plan.segment.as_mut() {
        segment.index = 0;
    }
    plan.outputs = Default::default();
    plan.command_line.clear();
    plan.client.cpus = None;
    plan
}

fn check_same_plan(files: &[SegmentFile]) -> Result<(), String> {
    let first = shared_plan(&files[0].record);
    for file in &files[1..] {
        let plan = shared_plan(&file.record);
        if plan == first {
            continue;
        }
        // The plans differ; their saved forms name where, for the message.
        let saved = |plan: &Plan| serde_json::to_value(plan).unwrap_or_default();
        let (path, a, b) = first_difference("plan", &saved(&first), &saved(&plan))
            .unwrap_or_else(|| ("plan".into(), "one setting".into(), "another".into()));
        return Err(format!(
            "the plans differ at {path}: {a} in {}, {b} in {}; every segment must run the same \
             command apart from --segment and its output files",
            files[0].file, file.file
        ));
    }
    Ok(())
}

/// The first place where two JSON values differ: its path and both values.
fn first_difference(path: &str, a: &Value, b: &Value) -> Option<(String, String, String)> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            keys.into_iter().find_map(|key| {
                let null = Value::Null;
                let (u, v) = (x.get(key).unwrap_or(&null), y.get(key).unwrap_or(&null));
                first_difference(&format!("{path}.{key}"), u, v)
            })
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (u, v))| first_difference(&format!("{path}[{i}]"), u, v)),
        _ if a == b => None,
        _ => Some((path.to_string(), a.to_string(), b.to_string())),
    }
}

/// Every segment saw the same servers: the same versions and variables on each side.
fn check_same_servers(files: &[SegmentFile]) -> Result<(), String> {
    let first = &files[0];
    for file in &files[1..] {
        for (side, info) in &first.record.sides {
            let (Some(a), Some(b)) = (
                info.facts.as_ref(),
                file.record.sides.get(side).and_then(|s| s.facts.as_ref()),
            ) else {
                continue;
            };
            let changed: Vec<String> = facts::differences(a, b)
                .into_iter()
                .map(|d| d.name)
                .take(5)
                .collect();
            if a.version != b.version || !changed.is_empty() {
                return Err(format!(
                    "the {side} server differs between {} and {} (version {} / {}; variables: {}): \
                     the segments did not measure the same servers",
                    first.file,
                    file.file,
                    a.version,
                    b.version,
                    if changed.is_empty() {
                        "none".to_string()
                    } else {
                        changed.join(", ")
                    }
                ));
            }
        }
    }
    Ok(())
}

/// The positions every segment completed.
fn common_positions(files: &[SegmentFile]) -> Vec<u32> {
    let completed = |f: &SegmentFile| -> Vec<u32> {
        f.record
            .rounds
            .iter()
            .filter(|r| r.status == RoundStatus::Completed)
            .map(|r| r.position)
            .collect()
    };
    let mut common = completed(&files[0]);
    for file in &files[1..] {
        let theirs = completed(file);
        common.retain(|p| theirs.contains(p));
    }
    common.sort_unstable();
    common.dedup();
    common
}

fn round_at(file: &SegmentFile, position: u32) -> &RoundRecord {
    file.record
        .rounds
        .iter()
        .rev()
        .find(|r| r.position == position && r.status == RoundStatus::Completed)
        .expect("a common position")
}

/// The measured periods of one round began within the guard gap of each other.
fn check_skew(files: &[SegmentFile], rounds: &[&RoundRecord]) -> Result<(), String> {
    let guard = files[0].segment().guard;
    let starts: Vec<SystemTime> = rounds
        .iter()
        .zip(files)
        .map(|(r, f)| {
            humantime::parse_rfc3339_weak(&r.started_at)
                .map_err(|e| format!("{}: round start `{}`: {e}", f.file, r.started_at))
        })
        .collect::<Result<_, _>>()?;
    let earliest = *starts.iter().min().expect("at least one segment");
    let latest = *starts.iter().max().expect("at least one segment");
    let spread = latest.duration_since(earliest).unwrap_or_default();
    if spread <= guard {
        return Ok(());
    }
    let mut sorted = starts.clone();
    sorted.sort_unstable();
    let median = sorted[sorted.len() / 2];
    let apart = |t: &SystemTime| match t.duration_since(median) {
        Ok(d) => d,
        Err(e) => e.duration(),
    };
    let (worst, _) = starts
        .iter()
        .enumerate()
        .max_by_key(|(_, t)| apart(t))
        .expect("at least one segment");
    let round = rounds[0];
    Err(format!(
        "{} round {} at {} threads: the segments' measured periods began {:.3} s apart, more than \
         the {} guard gap; segment {} ({}) is furthest off ({} against the others' median). Its \
         clock or its start was off: synchronise the clocks (chrony) or give a larger --guard-gap",
        round.side,
        round.index + 1,
        round.threads,
        spread.as_secs_f64(),
        humantime::format_duration(guard),
        files[worst].segment().index,
        files[worst].file,
        rounds[worst].started_at
    ))
}

/// One round of the whole run: the segments' counts summed, their histograms added, and
/// every rate and latency computed again from the sums.
fn merge_round(rounds: &[&RoundRecord]) -> Result<RoundRecord, String> {
    let mut merged = rounds[0].clone();
    // The other processes' CPU is one host's: the first segment's says nothing of the
    // others', so a merged run is never adjusted for it.
    if let Some(load) = merged.host_load.as_mut() {
        load.other_cpu_pct = None;
    }
    let mut latencies = histogram::merged(3);
    for round in rounds {
        let part = histogram::decode(&round.histogram).ok_or_else(|| {
            format!(
                "{} round {}: its latency histogram cannot be read",
                round.side,
                round.index + 1
            )
        })?;
        latencies
            .add(&part)
            .map_err(|e| format!("adding latency histograms: {e:?}"))?;
    }
    let sum = |f: &dyn Fn(&RoundRecord) -> u64| rounds.iter().map(|r| f(r)).sum::<u64>();
    let transactions = sum(&|r| r.transactions);
    merged.started_at = rounds
        .iter()
        .map(|r| r.started_at.clone())
        .min()
        .unwrap_or_default();
    merged.duration_s = rounds.iter().map(|r| r.duration_s).sum::<f64>() / rounds.len() as f64;
    merged.transactions = transactions;
    merged.reconnects = sum(&|r| r.reconnects);
    merged.latency_saturated = sum(&|r| r.latency_saturated);
    merged.queries = Default::default();
    merged.errors = BTreeMap::new();
    for round in rounds {
        merged.queries.add(&round.queries);
        for (code, count) in &round.errors {
            *merged.errors.entry(code.clone()).or_default() += count;
        }
    }
    // Each segment's rate over its own measured period; the run's rate is their sum.
    merged.tps = rounds.iter().map(|r| r.tps).sum();
    merged.qps = rounds.iter().map(|r| r.qps).sum();
    merged.latency_ms = LatencyMs::of(&latencies);
    merged.histogram = histogram::encode(&latencies);
    let classes: Vec<&[_]> = rounds.iter().map(|r| r.classes.as_slice()).collect();
    merged.classes = super::classes::merge(&classes)
        .map_err(|e| format!("{} round {}: {e}", merged.side, merged.index + 1))?;
    merged.client_cpu_us_per_tx = client_cpu(rounds, transactions);
    merged.server = rounds[0].server.clone().map(|mut server| {
        // Server figures are server-wide: every segment saw the whole load.
        server.cpu_us_per_tx = server
            .cpu_seconds
            .filter(|_| transactions > 0)
            .map(|s| s * 1e6 / transactions as f64);
        server
    });
    merged.per_second_tps = per_second_sum(rounds);
    merged.switch_ms = rounds.iter().filter_map(|r| r.switch_ms).reduce(f64::max);
    merged.connections_opened = rounds.iter().map(|r| r.connections_opened).sum();
    merged.start_offset_ms = rounds
        .iter()
        .filter_map(|r| r.start_offset_ms)
        .reduce(f64::max);
    merged.open_loop = open_loop(rounds);
    Ok(merged)
}

/// Client CPU per transaction over all client hosts: total CPU over total transactions.
fn client_cpu(rounds: &[&RoundRecord], transactions: u64) -> Option<f64> {
    let total: Option<f64> = rounds
        .iter()
        .map(|r| r.client_cpu_us_per_tx.map(|us| us * r.transactions as f64))
        .sum();
    total
        .filter(|_| transactions > 0)
        .map(|us| us / transactions as f64)
}

fn per_second_sum(rounds: &[&RoundRecord]) -> Vec<f64> {
    let seconds = rounds
        .iter()
        .map(|r| r.per_second_tps.len())
        .min()
        .unwrap_or(0);
    (0..seconds)
        .map(|i| rounds.iter().map(|r| r.per_second_tps[i]).sum())
        .collect()
}

fn open_loop(rounds: &[&RoundRecord]) -> Option<OpenLoop> {
    let parts: Option<Vec<OpenLoop>> = rounds.iter().map(|r| r.open_loop).collect();
    parts.map(|parts| OpenLoop {
        rate: parts.iter().map(|p| p.rate).sum(),
        late_events: parts.iter().map(|p| p.late_events).sum(),
        max_lag_ms: parts.iter().map(|p| p.max_lag_ms).fold(0.0, f64::max),
        max_queue_depth: parts.iter().map(|p| p.max_queue_depth).sum(),
    })
}

/// Every segment's warnings once, and a word on rounds some segment did not complete.
fn warnings(files: &[SegmentFile], positions: &[u32]) -> Vec<String> {
    let mut all: Vec<String> = Vec::new();
    for file in files {
        for warning in &file.record.warnings {
            if !all.contains(warning) {
                all.push(warning.clone());
            }
        }
        let dropped = file
            .record
            .rounds
            .iter()
            .filter(|r| r.status == RoundStatus::Completed && !positions.contains(&r.position))
            .count();
        if dropped > 0 {
            all.push(format!(
                "{}: {dropped} round(s) left out, since another segment did not complete them",
                file.file
            ));
        }
    }
    all
}

fn source(file: &SegmentFile, positions: &[u32]) -> SegmentSource {
    let rounds: Vec<&RoundRecord> = positions.iter().map(|p| round_at(file, *p)).collect();
    SegmentSource {
        index: file.segment().index,
        file: file.file.clone(),
        host: file.record.host.hostname.clone(),
        transactions: rounds.iter().map(|r| r.transactions).sum(),
        max_start_offset_ms: rounds
            .iter()
            .filter_map(|r| r.start_offset_ms)
            .fold(0.0, f64::max),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_the_first_difference() {
        let a = json!({"seed": 1, "schedule": {"levels": [8], "rounds": 4}});
        let b = json!({"seed": 1, "schedule": {"levels": [8], "rounds": 5}});
        assert_eq!(
            first_difference("plan", &a, &b),
            Some(("plan.schedule.rounds".into(), "4".into(), "5".into()))
        );
        assert_eq!(first_difference("plan", &a, &a), None);
        let c = json!({"seed": 2, "schedule": {"levels": [8, 16], "rounds": 4}});
        assert_eq!(
            first_difference("plan", &a, &c).unwrap().0,
            "plan.schedule.levels"
        );
    }
}
