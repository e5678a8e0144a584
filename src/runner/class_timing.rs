//! `--class-timing`: every read query class timed on both sides on idle servers, before
//! the rounds, so a class ten times slower is found with an interval even when it is a
//! rare statement the load rounds run a few times each.
//!
//! Why it is built this way, from what the first design got wrong on this kind of host:
//! timing each class in one run of paired executions made an unchanged pair look 0.35×
//! [0.31, 0.39] for a class, because for the second a class took one side was slower
//! throughout (background flushing, where the scheduler put a server thread), and
//! alternating which side goes first within that second does not cancel it. So:
//!
//! - the servers settle first: both sides' dirty pages are flushed (bounded wait);
//! - the timing is [`BLOCKS`] blocks spread over the budget, each on fresh connections,
//!   with the classes in another order in each block; the block, not the execution, is
//!   the unit of the interval (`stats::block_ratio`), so a burst on one side widens the
//!   interval instead of biasing the estimate;
//! - within a block a class runs pair by pair, the side going first alternating, after
//!   one unmeasured execution on each side (its pages and its statement warmed);
//! - a class that fails on a side is left out with its error (it is a difference of the
//!   answers check, not a timing) and the others are timed;
//! - the budget sets the pairs per block from one timed execution of each class; the
//!   timing is cut short, saying so, when it runs far over its budget or is stopped.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use mysql::prelude::Queryable;
use mysql::{Conn, Params, Statement};

use super::backend::Servers;
use crate::results::class_timing::{ClassTiming, INTERRUPTED, TimedBlock, TimedClass};
use crate::side::Side;
use crate::stats::summary::{mean, median};
use crate::workload::check_sample::{Coverage, ReadSample};
use crate::workload::statement::{inline, split_at_placeholders};

/// Blocks of the timing: the interval's units (five degrees of freedom).
const BLOCKS: u32 = 6;

/// The fewest and the most executions per side of a class in one block.
const PAIRS: (u32, u32) = (3, 40);

/// The statements drawn, spread over the classes by weight (at least three a class).
const DRAWN: u32 = 400;

/// How long the servers are given to flush their dirty pages before the timing.
const SETTLE: Duration = Duration::from_secs(30);

/// How far past its budget the timing may run before it is cut short.
const OVERRUN: u32 = crate::plan::CLASS_TIMING_OVERRUN;

/// Times every read class of the plan's workload on both sides within `budget`.
pub(crate) fn time_classes(
    servers: &Servers<'_>,
    budget: Duration,
    stop: &AtomicBool,
) -> anyhow::Result<ClassTiming> {
    let plan = servers.plan;
    let samples = crate::workload::session::sample_reads(
        &plan.workload,
        plan.seed ^ 0x7133,
        Coverage::Spread(DRAWN),
    );
    anyhow::ensure!(
        !samples.is_empty(),
        "--class-timing: the workload has no read statement to time"
    );
    // The budget is the timing's: the flush before it has a limit of its own.
    settle(servers);
    let started = Instant::now();
    let classes = by_class(samples);
    crate::terminal::note(format_args!(
        "timing {} query classes on both sides: {BLOCKS} blocks on fresh connections, \
         within about {}",
        classes.len(),
        humantime::format_duration(budget)
    ));
    let per_block = budget / BLOCKS / classes.len().max(1) as u32;
    // The protocol the rounds use: text with --ps-mode disable, else prepared.
    let text = plan.workload.ps_mode == crate::workload::PsMode::Disable;
    let mut conns = connections(servers)?;
    let mut timed: Vec<TimedClass> = classes
        .iter()
        .map(|(class, samples)| calibrated(&mut conns, class, samples, per_block, text))
        .collect();
    let mut cut_short = None;
    for block in 0..BLOCKS {
        if let Some(reason) = cut_reason(started, budget, stop) {
            cut_short = Some(reason);
            break;
        }
        conns = connections(servers)?;
        let count = classes.len();
        for offset in 0..count {
            let at = (offset + block as usize * count / BLOCKS as usize) % count;
            if timed[at].left_out.is_some() {
                continue;
            }
            let first = Side::BOTH[(block as usize + offset) % 2];
            let class = (&classes[at].1[..], timed[at].pairs);
            match time_block(&mut conns, class, first, text, stop) {
                Ok(Some(times)) => timed[at].blocks.push(times),
                Ok(None) => break,
                Err(error) => quarantine(&mut timed[at], error),
            }
        }
    }
    Ok(ClassTiming {
        blocks: BLOCKS,
        budget_s: budget.as_secs_f64(),
        elapsed_s: started.elapsed().as_secs_f64(),
        cut_short: cut_short.or_else(|| stop.load(Ordering::SeqCst).then(interrupted)),
        classes: timed,
    })
}

/// Why the timing stops before its next block, if it does.
fn cut_reason(started: Instant, budget: Duration, stop: &AtomicBool) -> Option<String> {
    if stop.load(Ordering::SeqCst) {
        return Some(interrupted());
    }
    (started.elapsed() > budget * OVERRUN).then(|| {
        format!(
            "over its budget: {} past {} (a larger --class-timing BUDGET gives it more)",
            humantime::format_duration(Duration::from_secs(started.elapsed().as_secs())),
            humantime::format_duration(budget)
        )
    })
}

fn interrupted() -> String {
    INTERRUPTED.into()
}

/// A class left out of the timing with the side and error that put it out.
fn quarantine(class: &mut TimedClass, error: String) {
    class.blocks.clear();
    class.left_out = Some(error);
}

/// The samples grouped by class, in the order the classes first come.
fn by_class(samples: Vec<ReadSample>) -> Vec<(String, Vec<ReadSample>)> {
    let mut classes: Vec<(String, Vec<ReadSample>)> = Vec::new();
    for sample in samples {
        match classes.iter_mut().find(|(class, _)| *class == sample.class) {
            Some((_, list)) => list.push(sample),
            None => classes.push((sample.class.clone(), vec![sample])),
        }
    }
    classes
}

/// One connection to each side, baseline first.
fn connections(servers: &Servers<'_>) -> anyhow::Result<[Conn; 2]> {
    let purpose = "time the query classes";
    Ok([
        servers.connect(Side::Baseline, purpose)?,
        servers.connect(Side::Variant, purpose)?,
    ])
}

/// Waits, up to [`SETTLE`], until neither side has dirty pages left to flush, so the
/// timing does not meet one side's background writes after its data was loaded.
fn settle(servers: &Servers<'_>) {
    let Ok(mut conns) = connections(servers) else {
        return;
    };
    let deadline = Instant::now() + SETTLE;
    while Instant::now() < deadline {
        let dirty: u64 = conns.iter_mut().map(dirty_pages).sum();
        if dirty == 0 {
            return;
        }
        std::thread::sleep(Duration::from_millis(250));
    }
}

fn dirty_pages(conn: &mut Conn) -> u64 {
    conn.query_first::<(String, u64), _>("SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_dirty'")
        .ok()
        .flatten()
        .map_or(0, |(_, pages)| pages)
}

/// A class with its pairs per block set from one execution on each side; left out
/// when it fails on a side.
fn calibrated(
    conns: &mut [Conn; 2],
    class: &str,
    samples: &[ReadSample],
    per_block: Duration,
    text: bool,
) -> TimedClass {
    let mut timed = TimedClass {
        class: class.to_string(),
        statement: samples[0].sql.clone(),
        ..TimedClass::default()
    };
    let mut took = Duration::ZERO;
    for side in Side::BOTH {
        let conn = &mut conns[side as usize];
        let mut prepared = Prepared::new(conn, &samples[0], text);
        let ran = prepared.run(conn, &samples[0]);
        prepared.close(conn);
        match ran {
            Ok(elapsed) => took += elapsed,
            Err(error) => {
                quarantine(&mut timed, format!("{side}: {error}"));
                return timed;
            }
        }
    }
    let pairs = per_block.as_secs_f64() / took.as_secs_f64().max(1e-6);
    timed.pairs = (pairs as u32).clamp(PAIRS.0, PAIRS.1);
    timed
}

/// One block of one class (its samples and pairs): an unmeasured execution on each side,
/// then the pairs, `first` going first in the first pair and the sides alternating, in
/// the text protocol when `text`. `None` when the run was stopped; the error, with its
/// side, when a side failed.
fn time_block(
    conns: &mut [Conn; 2],
    (samples, pairs): (&[ReadSample], u32),
    first: Side,
    text: bool,
    stop: &AtomicBool,
) -> Result<Option<TimedBlock>, String> {
    let mut prepared = Vec::with_capacity(2);
    for side in Side::BOTH {
        let conn = &mut conns[side as usize];
        let mut p = Prepared::new(conn, &samples[0], text);
        p.run(conn, &samples[0])
            .map_err(|e| format!("{side}: {e}"))?;
        prepared.push(p);
    }
    let mut logs: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    let mut ms: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    for pair in 0..pairs as usize {
        if stop.load(Ordering::SeqCst) {
            return Ok(None);
        }
        let sample = &samples[pair % samples.len()];
        let lead = if pair % 2 == 0 { first } else { first.other() };
        for side in [lead, lead.other()] {
            let i = side as usize;
            let took = prepared[i]
                .run(&mut conns[i], sample)
                .map_err(|e| format!("{side}: {e}"))?;
            let millis = (took.as_secs_f64() * 1000.0).max(1e-6);
            logs[i].push(millis.ln());
            ms[i].push(millis);
        }
    }
    for (p, conn) in prepared.into_iter().zip(conns.iter_mut()) {
        p.close(conn);
    }
    let [baseline, variant] = ms.map(|ms| median(ms).unwrap_or(0.0));
    Ok(Some(TimedBlock {
        mean_log_ms: [mean(&logs[0]), mean(&logs[1])],
        median_ms: [baseline, variant],
    }))
}

/// A class's statements on one connection: prepared, or sent as text with `--ps-mode
/// disable` or when the server cannot prepare one (as the answers check and an
/// application would). One class can have several texts (an `IN` list of each captured
/// length): each is prepared once, the first time it runs, before its clock starts.
struct Prepared {
    text: bool,
    statements: Vec<(String, Option<Statement>)>,
}

impl Prepared {
    fn new(conn: &mut Conn, sample: &ReadSample, text: bool) -> Prepared {
        let mut prepared = Prepared {
            text,
            statements: Vec::new(),
        };
        prepared.statement(conn, sample);
        prepared
    }

    /// The prepared statement for `sample`'s text, prepared now if it is new; `None`
    /// in the text protocol.
    fn statement(&mut self, conn: &mut Conn, sample: &ReadSample) -> Option<Statement> {
        if self.text {
            return None;
        }
        if let Some((_, statement)) = self.statements.iter().find(|(sql, _)| *sql == sample.sql) {
            return statement.clone();
        }
        let statement = conn.prep(sample.sql.as_str()).ok();
        self.statements
            .push((sample.sql.clone(), statement.clone()));
        statement
    }

    /// Runs `sample` and reads every row; how long that took, or the error. Its
    /// statement, its parameters (or its text) are made before the clock starts.
    fn run(&mut self, conn: &mut Conn, sample: &ReadSample) -> Result<Duration, String> {
        let (started, read) = match self.statement(conn, sample) {
            Some(statement) => {
                let params = Params::from(sample.params.clone());
                let started = Instant::now();
                (started, conn.exec_drop(&statement, params))
            }
            None => {
                let text = inline(&split_at_placeholders(&sample.sql), &sample.params);
                let started = Instant::now();
                (started, conn.query_drop(text))
            }
        };
        let took = started.elapsed();
        read.map(|()| took)
            .map_err(|e| crate::db::errors::coded(&e))
    }

    fn close(self, conn: &mut Conn) {
        for statement in self.statements.into_iter().filter_map(|(_, s)| s) {
            let _ = conn.close(statement);
        }
    }
}
