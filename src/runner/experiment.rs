//! The experiment from start to end: open both targets, read their facts, prepare the
//! data, run the hooks and the rounds in schedule order, and always tear down.

use anyhow::Context;
use mysql::prelude::Queryable;

use super::backend::{Backend, HookPoint, Servers};
use super::prepare;
use super::swap::{Swap, Undone};
use super::{interrupt, segments};
use crate::answers::ResultCheck;
use crate::exit::Interrupted;
use crate::host::HostFacts;
use crate::plan::Plan;
use crate::report;
use crate::report::files::Outputs;
use crate::report::formats::Moment;
use crate::results::{
    self, Judgement, ResultsFile, RoundStatus, RunRecord, RunStatus, SideInfo, Stage,
};
use crate::server::facts::{self, ServerFacts};
use crate::server::switches::Switches;
use crate::side::Side;
use crate::target::Target;

/// Runs the whole experiment. The results are returned (and saved) even when the run
/// stopped early; the error says why it did.
pub(crate) fn run(plan: &Plan, previous: Option<ResultsFile>) -> (ResultsFile, anyhow::Result<()>) {
    let resuming = previous.is_some();
    let mut results = previous.map_or_else(|| new_results(plan), resumed);
    let mut started = false;
    let outcome = run_with_results(plan, &mut results, resuming, &mut started);
    if resuming && !started {
        // A resume refused before it began (a server changed, a server would not
        // start) leaves the saved run exactly as it was: its unfinished round included.
        results.record.status = RunStatus::Failed;
        results.judgement = results::nothing_judged(std::mem::take(&mut results.judgement));
        return (results, outcome);
    }
    finish(plan, &mut results, &outcome);
    (results, outcome)
}

pub(super) fn new_results(plan: &Plan) -> ResultsFile {
    ResultsFile {
        record: RunRecord {
            schema_version: results::SCHEMA_VERSION,
            abtest_version: env!("CARGO_PKG_VERSION").to_string(),
            status: RunStatus::Running,
            plan: plan.clone(),
            host: HostFacts::read(),
            sides: plan
                .sides
                .iter()
                .map(|s| {
                    (
                        s.side,
                        SideInfo {
                            name: s.name.clone(),
                            facts: None,
                            globals: None,
                            not_restored: Vec::new(),
                        },
                    )
                })
                .collect(),
            differences: Vec::new(),
            rounds: Vec::new(),
            warnings: plan.warnings.clone(),
            error: None,
            looks: Vec::new(),
            stopped: None,
            started_first: None,
            segments: Vec::new(),
            instance_switches_s: Vec::new(),
            data_restore: None,
            assigned_ids: Vec::new(),
            servers: None,
            result_check: None,
            prepare_check: None,
            class_timing: None,
        },
        judgement: Judgement::default(),
    }
}

/// A saved run, ready to continue: unfinished rounds are dropped (they run again).
pub(super) fn resumed(mut previous: ResultsFile) -> ResultsFile {
    let dropped = previous
        .record
        .rounds
        .iter()
        .filter(|r| r.status != RoundStatus::Completed)
        .count();
    previous
        .record
        .rounds
        .retain(|r| r.status == RoundStatus::Completed);
    previous.record.status = RunStatus::Running;
    previous.record.error = None;
    previous.record.warnings.push(format!(
        "resumed at {} after {} finished round(s); {dropped} unfinished round(s) run again",
        humantime::format_rfc3339_seconds(std::time::SystemTime::now()),
        previous.record.rounds.len()
    ));
    previous
}

/// The run itself; `started` says whether it got as far as saving the results (before
/// that, a refused resume has changed nothing).
fn run_with_results(
    plan: &Plan,
    results: &mut ResultsFile,
    resuming: bool,
    started: &mut bool,
) -> anyhow::Result<()> {
    segments::check_not_late(plan)?;
    let super::shared::Opened {
        mut targets,
        shared,
        arrangement,
    } = open_targets(plan)?;
    let switches = shared.as_ref().map(|s| &s.switches);
    if targets.iter().all(|t| t.server.is_some()) {
        results.record.started_first = Some(first_started(plan.seed));
    }
    if resuming {
        check_same_arrangement(results.record.servers.as_ref(), arrangement.as_ref())?;
    }
    results.record.servers = arrangement;
    if resuming {
        check_same_servers(&targets, switches, &results.record)?;
    } else {
        read_facts(&targets, switches, &mut results.record);
    }
    let per_connection = crate::workload::session::prepared_per_connection(&plan.workload);
    // A shared server holds both sides' sessions.
    let connections = super::shared::server_threads(plan, shared.is_some());
    for target in targets.iter().filter(|t| !t.borrowed) {
        crate::target::check_prepared_statements(target, per_connection, connections)?;
    }
    warn_if_same(plan, &mut results.record);
    warn_if_instance_confounded(plan, &mut results.record);
    *started = true;
    let snapshots = super::swap::snapshots(plan, &targets, results)?;
    save(plan, results)?;
    if let Some(file) = plan
        .outputs
        .json
        .as_deref()
        .filter(|_| snapshots.iter().any(Option::is_some))
    {
        interrupt::restore_from(file);
    }
    let swap = Swap::new(&snapshots);
    let rounds = prepare_and_run(plan, &mut targets, results, &swap, switches);
    warn_if_data_changed(plan, &mut results.record);
    let undone = if segments::leads(plan) {
        swap.undo_settings(plan, &targets)
    } else {
        Undone::default()
    };
    for message in &undone.warnings {
        crate::terminal::warning(message);
    }
    results.record.warnings.extend(undone.warnings);
    for (side, left) in undone.left {
        if let Some(info) = results.record.sides.get_mut(&side) {
            info.not_restored.push(left);
        }
    }
    if let Some(shared) = &shared {
        end_shared(&targets[0], shared, &mut results.record);
    }
    let confined = targets
        .iter()
        .try_for_each(|t| t.check_confined("the teardown hooks, at the end of the run"));
    drop(targets);
    rounds.and(confined)
}

/// Refuses to resume on one shared server a run that started on two, or the reverse:
/// their rounds could not be compared.
fn check_same_arrangement(
    before: Option<&crate::results::servers::ServerArrangement>,
    now: Option<&crate::results::servers::ServerArrangement>,
) -> anyhow::Result<()> {
    let shared =
        |a: Option<&crate::results::servers::ServerArrangement>| a.is_some_and(|a| a.shared);
    if shared(before) == shared(now) {
        return Ok(());
    }
    let words = |shared: bool| {
        if shared {
            "one shared server"
        } else {
            "a server per side"
        }
    };
    Err(crate::exit::UsageError::err(format!(
        "--resume: the run started on {}, and would go on on {}; rounds of the two cannot \
         be compared. Start a new run instead",
        words(shared(before)),
        words(shared(now))
    )))
}

/// Refuses to resume against servers whose configuration changed since the run started.
fn check_same_servers(
    targets: &[Target; 2],
    switches: Option<&Switches>,
    record: &RunRecord,
) -> anyhow::Result<()> {
    for target in targets {
        let now = server_facts(target, switches)
            .with_context(|| format!("{}: reading server facts to resume", target.side))?;
        let Some(before) = record
            .sides
            .get(&target.side)
            .and_then(|s| s.facts.as_ref())
        else {
            continue;
        };
        // Variables that move by themselves, or that the restore leaves alone for that
        // reason (`innodb_monitor_enable`), are no change of configuration.
        let changes: Vec<_> = facts::differences(before, &now)
            .into_iter()
            .filter(|d| !crate::server::globals::moves_by_itself(&d.name))
            .collect();
        if before.version != now.version || !changes.is_empty() {
            let names: Vec<&str> = changes.iter().map(|d| d.name.as_str()).take(8).collect();
            return Err(crate::exit::UsageError::err(format!(
                "--resume: the {} server changed since the run started ({}; variables: {}); \
                 rounds against a different server cannot be compared. Start a new run instead",
                target.side,
                if before.version == now.version {
                    format!("version {} unchanged", now.version)
                } else {
                    format!("version {} -> {}", before.version, now.version)
                },
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            )));
        }
    }
    Ok(())
}

/// What a side's server is: read over an administrator and a client connection (the
/// client's, for the TLS it really uses); on a shared server, with the side's settings
/// put in place first.
fn server_facts(target: &Target, switches: Option<&Switches>) -> anyhow::Result<ServerFacts> {
    let mut admin = target.admin.connect()?;
    if let Some(switches) = switches {
        switches.put_in_place(&mut admin, target.side)?;
    }
    let mut client = target.client.connect()?;
    Ok(ServerFacts::read(&mut admin, &mut client)?)
}

/// Puts the shared server back as it was before anything was switched, and records
/// whether it ended as it began; what is left is a warning.
fn end_shared(server: &Target, shared: &super::shared::Shared, record: &mut RunRecord) {
    let outcome = crate::server::restore::restore_server(&server.admin, &shared.snapshot);
    for left in &outcome.left {
        let warning = format!("the shared server did not end as it began: {left}");
        crate::terminal::warning(&warning);
        record.warnings.push(warning);
    }
    if let Some(servers) = record.servers.as_mut() {
        servers.ended_as_began = Some(outcome.left.is_empty());
    }
}

/// The side whose managed server starts first: chosen by the seed, so that whatever a
/// first start brings (memory placed first, an earlier port) favours neither side.
fn first_started(seed: u64) -> Side {
    if (seed >> 7) & 1 == 0 {
        Side::Baseline
    } else {
        Side::Variant
    }
}

/// Starts (or connects to) both sides, on one shared server where it serves both; if
/// either fails, the other is stopped.
fn open_targets(plan: &Plan) -> anyhow::Result<super::shared::Opened> {
    let mut opened = super::shared::open(plan, first_started(plan.seed))?;
    for target in &mut opened.targets {
        target.client.io_timeout = plan.client.query_timeout;
        target.admin.io_timeout = plan.client.query_timeout;
    }
    Ok(opened)
}

fn read_facts(targets: &[Target; 2], switches: Option<&Switches>, record: &mut RunRecord) {
    for target in targets {
        match server_facts(target, switches) {
            Ok(found) => {
                if let Some(notice) = target.client.fallback_notice(&found.tls_cipher) {
                    let message = format!("{}: {notice}", target.side);
                    crate::terminal::warning(&message);
                    record.warnings.push(message);
                }
                if let Some(info) = record.sides.get_mut(&target.side) {
                    info.facts = Some(found);
                }
            }
            Err(e) => record.warnings.push(format!(
                "{}: could not read server facts: {e:#}",
                target.side
            )),
        }
    }
    // A shared server goes on from the baseline's settings, as it started: the data is
    // prepared with them.
    if let Some(switches) = switches
        && let Err(e) = switches.put_in_place_at(&targets[0].admin, Side::Baseline)
    {
        record
            .warnings
            .push(format!("baseline: putting its settings back: {e:#}"));
    }
    let facts_of = |side: Side| record.sides.get(&side).and_then(|s| s.facts.clone());
    if let (Some(a), Some(b)) = (facts_of(Side::Baseline), facts_of(Side::Variant)) {
        record.differences = facts::differences(&a, &b);
    }
}

/// Says plainly when a side is an external server: abtest cannot start fresh instances
/// of it, so whatever distinguishes the two servers themselves (memory layout, file
/// placement, hardware, uptime) is part of the measured change.
fn warn_if_instance_confounded(plan: &Plan, record: &mut RunRecord) {
    let external: Vec<String> = plan
        .sides
        .iter()
        .filter(|s| matches!(s.target, crate::plan::TargetSpec::External { .. }))
        .map(|s| s.side.to_string())
        .collect();
    if external.is_empty() || crate::plan::one_external_server(&plan.sides) || plan.is_aa() {
        return;
    }
    let warning = format!(
        "the {} side(s) run on an external server, which abtest cannot replace with fresh \
         instances: the configuration is confounded with the server instance, and two servers \
         configured alike can differ by a few percent. Run an A/A on the same pair first (both \
         profiles with the same settings) to see how far apart they are",
        external.join(" and ")
    );
    crate::terminal::warning(&warning);
    record.warnings.push(warning);
}

/// A write workload on external servers leaves their data changed, and each changed
/// differently (the rounds wrote different rows): a later `--check-results` on the pair
/// would compare different data, and an A/A would no longer be one.
fn warn_if_data_changed(plan: &Plan, record: &mut RunRecord) {
    let external = plan
        .sides
        .iter()
        .any(|s| matches!(s.target, crate::plan::TargetSpec::External { .. }));
    let put_back = record
        .data_restore
        .as_ref()
        .is_some_and(|r| r.checked && r.changed.is_empty());
    if !external || !plan.workload.writes() || record.rounds.is_empty() || put_back {
        return;
    }
    let warning = "this run wrote to the external server(s): their tables now differ from \
                   before and from each other; load the same data on both (--prepare always) \
                   before comparing answers or running an A/A on this pair"
        .to_string();
    crate::terminal::warning(&warning);
    record.warnings.push(warning);
}

/// Warns when nothing distinguishes the sides: no differing variable, the same client
/// TLS and no hooks. That is an A/A comparison, which is fine when intended.
fn warn_if_same(plan: &Plan, record: &mut RunRecord) {
    let facts_known = record.sides.values().all(|s| s.facts.is_some());
    let hooks = |side: Side| {
        let h = &plan.side(side).hooks;
        h.setup.len() + h.before_round.len() + h.after_round.len() + h.teardown.len()
    };
    // A plan that is an A/A by construction (one profile on both sides, `calibrate`)
    // was announced before it started; this is for sides that only turn out alike.
    if facts_known
        && !plan.is_aa()
        && record.differences.is_empty()
        && hooks(Side::Baseline) + hooks(Side::Variant) == 0
    {
        let warning = "the two sides show no difference (same variables, same client TLS, no hooks): this is an A/A comparison".to_string();
        crate::terminal::warning(&warning);
        record.warnings.push(warning);
    }
}

fn prepare_and_run(
    plan: &Plan,
    targets: &mut [Target; 2],
    results: &mut ResultsFile,
    swap: &Swap<'_>,
    switches: Option<&Switches>,
) -> anyhow::Result<()> {
    let leads = segments::leads(plan);
    if leads {
        prepare::prepare_data(plan, targets)?;
        prepare::keep_prepared(plan, targets)?;
    } else {
        segments::wait_for_data(plan, targets)?;
    }
    let stop = crate::stop::flag();
    let mut servers = Servers::new(plan, targets, swap, stop);
    if let Some(switches) = switches {
        servers.share(switches);
    }
    for side in Side::BOTH.into_iter().filter(|_| leads) {
        servers.hooks(side, HookPoint::Setup)?;
    }
    if leads && results.record.prepare_check.is_none() {
        results.record.prepare_check = super::prepare_check::check(&servers)?;
        save(plan, results)?;
    }
    if leads && plan.client.check_results > 0 && results.record.result_check.is_none() {
        results.record.result_check = Some(check_results(plan, &mut servers)?);
        save(plan, results)?;
    }
    if let Some(budget) = plan.client.class_timing.filter(|_| leads)
        && (results.record.class_timing.as_ref()).is_none_or(|t| t.interrupted())
    {
        let timing = super::class_timing::time_classes(&servers, budget, stop)?;
        results.record.class_timing = Some(timing);
        save(plan, results)?;
    }
    if let Some(reason) = stop_for_answers(plan, &results.record) {
        crate::terminal::note(&reason);
        results.record.stopped = Some(reason);
        return Ok(());
    }
    if plan.client.check_only {
        crate::terminal::note(check_only_note(plan));
        return Ok(());
    }
    if let Some(left) = super::quarantine::rounds_workload(plan, &results.record) {
        let (workload, note) = left;
        crate::terminal::warning(&note);
        if !results.record.warnings.contains(&note) {
            results.record.warnings.push(note);
        }
        if let Some(workload) = workload {
            servers.run_rounds_of(workload);
        }
    }
    segments::check_not_late(plan)?;
    super::insert_ids::record(&mut servers, &mut results.record)?;
    keep_data(plan, &mut servers, results)?;
    let rounds =
        super::round_loop::run_rounds(plan, &mut servers, results, &mut |r| save(plan, r), stop);
    let ended = end_data(&mut servers, results);
    rounds.and(ended)
}

/// A workload file that writes: its tables copied on each server before the first
/// round, to be put back before every round ([`super::data_copy`]).
fn keep_data(
    plan: &Plan,
    servers: &mut Servers<'_>,
    results: &mut ResultsFile,
) -> anyhow::Result<()> {
    let tables = super::data_copy::written_tables(plan);
    if tables.is_empty() {
        return Ok(());
    }
    if let Some(why) = super::data_copy::why_not(plan) {
        let warning = format!(
            "the tables the workload writes are not put back between rounds ({why}): each \
             round runs on the data the last one left"
        );
        crate::terminal::warning(&warning);
        results.record.warnings.push(warning);
        return Ok(());
    }
    servers.keep_data(&tables)?;
    let Some(kept) = super::data_copy::record(servers.kept()) else {
        return Ok(());
    };
    crate::terminal::note(format_args!(
        "copied {} table(s) the workload writes ({}); they are put back before every round \
         and at the end",
        kept.tables.len(),
        kept.tables
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    ));
    results.record.data_restore = Some(kept);
    save(plan, results)
}

/// The tables put back a last time and checked; what was done said and saved.
fn end_data(servers: &mut Servers<'_>, results: &mut ResultsFile) -> anyhow::Result<()> {
    let Some(restore) = results.record.data_restore.as_mut() else {
        return Ok(());
    };
    let ended = servers.end_data();
    restore.restores_s.append(&mut servers.restores_s);
    let changed = ended?;
    restore.checked = true;
    restore.changed = changed;
    let sentence = restore.sentence();
    if restore.changed.is_empty() {
        crate::terminal::note(&sentence);
    } else {
        crate::terminal::warning(&sentence);
        results.record.warnings.push(sentence);
    }
    Ok(())
}

/// What a `--check-only` run did not do: the timed rounds, and the workload's writes.
fn check_only_note(plan: &Plan) -> String {
    let writes = plan.workload.file().map_or(0, |file| {
        crate::workload::class_filter::numbered(file)
            .into_iter()
            .filter(|sql| crate::workload::custom::CustomWorkload::is_write(sql))
            .count()
    });
    format!(
        "--check-only: no timed round runs; {writes} write query class(es) of the workload \
         were counted and skipped, not replayed"
    )
}

/// Why the timed rounds do not start: the sides answered differently, and nobody asked
/// to time them anyway (`--continue-after-differences`, or `--allow-result-diff`).
fn stop_for_answers(plan: &Plan, record: &RunRecord) -> Option<String> {
    let check = record.result_check.as_ref()?;
    let go_on = plan.client.continue_after_differences || plan.analysis.allow_result_diff;
    (check.answers_differ() && !go_on).then(|| {
        "the sides answered differently, so the timed rounds did not run \
         (--continue-after-differences runs them anyway)"
            .to_string()
    })
}

/// `--check-results`: the same sampled reads on both sides, their answers compared.
/// Each statement runs on both sides back to back, then again on the side that went
/// first (alternating which), so both answer at nearly the same moment and a statement
/// that changes its answer on its own is told from one the change made different.
/// When both sides are one server set apart by hooks, each side's round hooks run
/// around a pass of all its statements instead (baseline, variant, baseline again), so
/// each side is checked with its own settings.
fn check_results(plan: &Plan, servers: &mut Servers<'_>) -> anyhow::Result<ResultCheck> {
    let coverage = plan.client.check_coverage();
    let samples =
        crate::workload::session::sample_reads(&plan.workload, plan.seed ^ 0xc4ec, coverage);
    // The plan refuses a workload without reads; an empty sample would pass unchecked.
    anyhow::ensure!(
        !samples.is_empty(),
        "--check-results: the workload has no read statement to compare"
    );
    // One server, external or shared: each side's pass runs after its settings.
    let one_server = servers.targets[0]
        .client
        .same_server(&servers.targets[1].client);
    let before = servers.targets.each_ref().map(|t| checksums(plan, t));
    let marked = plan
        .workload
        .file()
        .map(|f| f.nondeterministic.clone())
        .unwrap_or_default();
    let mut comparing = crate::answers::Comparing::new(plan.client.check_order, marked);
    if one_server {
        compare_in_passes(servers, &samples, &mut comparing)?;
    } else {
        compare_back_to_back(servers, &samples, &mut comparing)?;
    }
    let after = servers.targets.each_ref().map(|t| checksums(plan, t));
    let mut check = comparing.finish();
    check.data_differs = data_note(&before, &after, one_server);
    crate::terminal::note(format_args!("{}", check.summary()));
    for line in check.listing(crate::answers::LISTED, &listed_in(plan)) {
        crate::terminal::note(line);
    }
    Ok(check)
}

/// Where the classes the terminal does not list can be read.
fn listed_in(plan: &Plan) -> String {
    ["markdown", "html", "json"]
        .iter()
        .find_map(|key| plan.outputs.path(key))
        .map_or_else(
            || "the report (--markdown FILE or --json FILE keeps them)".to_string(),
            |path| path.display().to_string(),
        )
}

/// Each sample on the first side, the other, and the first again, alternating sides.
fn compare_back_to_back(
    servers: &Servers<'_>,
    samples: &[crate::workload::check_sample::ReadSample],
    comparing: &mut crate::answers::Comparing,
) -> anyhow::Result<()> {
    let mut conns = [
        servers.connect(Side::Baseline, "compare answers")?,
        servers.connect(Side::Variant, "compare answers")?,
    ];
    for (nth, sample) in samples.iter().enumerate() {
        let first = nth % 2;
        let one = crate::answers::answer(&mut conns[first], sample);
        let other = crate::answers::answer(&mut conns[1 - first], sample);
        let again = crate::answers::answer(&mut conns[first], sample);
        let (baseline, variant) = if first == 0 {
            (one, other)
        } else {
            (other, one)
        };
        let triple = crate::answers::Triple {
            baseline,
            variant,
            again,
            baseline_first: first == 0,
        };
        comparing.add(sample, &triple);
    }
    Ok(())
}

/// One server set apart by hooks: a pass of every sample on the baseline, one on the
/// variant and one on the baseline again, each between its side's round hooks.
fn compare_in_passes(
    servers: &mut Servers<'_>,
    samples: &[crate::workload::check_sample::ReadSample],
    comparing: &mut crate::answers::Comparing,
) -> anyhow::Result<()> {
    let mut passes = Vec::new();
    for side in [Side::Baseline, Side::Variant, Side::Baseline] {
        servers.hooks(side, HookPoint::BeforeRound)?;
        let mut conn = servers.connect(side, "compare answers")?;
        let answers: Vec<_> = samples
            .iter()
            .map(|s| crate::answers::answer(&mut conn, s))
            .collect();
        passes.push(answers.into_iter());
        drop(conn);
        servers.hooks(side, HookPoint::AfterRound)?;
    }
    let [mut baseline, mut variant, mut again] = <[_; 3]>::try_from(passes)
        .map_err(|_| anyhow::anyhow!("three passes of the answers check"))?;
    for sample in samples {
        let (Some(baseline), Some(variant), Some(again)) =
            (baseline.next(), variant.next(), again.next())
        else {
            break;
        };
        let triple = crate::answers::Triple {
            baseline,
            variant,
            again,
            baseline_first: true,
        };
        comparing.add(sample, &triple);
    }
    Ok(())
}

/// Whether the two sides' sbtest tables hold different data (`CHECKSUM TABLE`), said in
/// words: then different answers may come from the data, not from the change.
/// The checksums of the workload's sbtest tables on one side (`CHECKSUM TABLE`), when
/// it uses them and the server answers.
type Checksums = Option<Vec<(String, Option<u64>)>>;

fn checksums(plan: &Plan, target: &Target) -> Checksums {
    if !plan.workload.uses_sbtest() {
        return None;
    }
    let tables: Vec<String> = (1..=plan.workload.tables.count)
        .map(|i| format!("sbtest{i}"))
        .collect();
    let mut conn = target.client.connect().ok()?;
    conn.query(format!("CHECKSUM TABLE {}", tables.join(", ")))
        .ok()
}

/// Why answers may differ for a reason other than the change: the two sides' data
/// differed before the check (two servers), or a side's data changed while the answers
/// were compared (another client writes).
fn data_note(before: &[Checksums; 2], after: &[Checksums; 2], one_server: bool) -> Option<String> {
    let differing = |a: &Checksums, b: &Checksums| -> Vec<String> {
        match (a, b) {
            (Some(a), Some(b)) => a
                .iter()
                .zip(b)
                .filter(|(x, y)| x.1 != y.1)
                .map(|(x, _)| x.0.clone())
                .collect(),
            _ => Vec::new(),
        }
    };
    let mut notes = Vec::new();
    let apart = differing(&before[0], &before[1]);
    if !one_server && !apart.is_empty() {
        notes.push(format!(
            "the two sides' data differed before the check (CHECKSUM TABLE {}): answers may \
             differ because of the data, not the change — load the same data on both",
            apart.join(", ")
        ));
    }
    for (side, (b, a)) in Side::BOTH.into_iter().zip(before.iter().zip(after)) {
        let moved = differing(b, a);
        if !moved.is_empty() {
            notes.push(format!(
                "the {side}'s data changed while the answers were compared (CHECKSUM TABLE {} \
                 before and after): another client writes, and answers may differ because of \
                 its writes, not the change — compare on a quiet pair",
                moved.join(", ")
            ));
        }
        if one_server {
            break;
        }
    }
    (!notes.is_empty()).then(|| notes.join("; "))
}

fn finish(plan: &Plan, results: &mut ResultsFile, outcome: &anyhow::Result<()>) {
    results.record.status = match outcome {
        Ok(()) => RunStatus::Completed,
        Err(e) if e.chain().any(|c| c.is::<Interrupted>()) => RunStatus::Interrupted,
        Err(_) => RunStatus::Failed,
    };
    if let Err(e) = outcome {
        results.record.error = Some(crate::db::errors::chain_message(e));
    }
    // A segment's rounds hold only its share of the load: the verdict is the merge's.
    if !plan.segment.as_ref().is_some_and(|s| s.is_split()) {
        let options = super::looks::final_analysis(plan, &results.record);
        results.judgement = results::judge(&results.record, &options, Stage::AsItStands);
    }
    if let Err(e) = write(plan, results, Moment::End) {
        crate::terminal::error(format_args!("could not save the results: {e:#}"));
    }
}

fn save(plan: &Plan, results: &ResultsFile) -> anyhow::Result<()> {
    write(plan, results, Moment::EveryRound)
}

/// Writes the plan's outputs due at `moment`.
fn write(plan: &Plan, results: &ResultsFile, moment: Moment) -> anyhow::Result<()> {
    Outputs::of_plan(&plan.outputs).write(moment, &report::ReportView::of_results(results))
}
