//! The results of a run, in two parts. The [`RunRecord`] is what happened: every round
//! raw, the facts of both sides and the host, the looks, why the run stopped. The runner,
//! `abtest merge` and `--resume` only ever add to it. The [`Judgement`] is what the
//! analysis made of it — comparisons, verdicts, warnings about the data — and only
//! [`judge`] makes one, from the record, so a saved run read with other settings is
//! judged again exactly as the run was.
//!
//! The results file ([`ResultsFile`]) holds both as one JSON object. It is rewritten
//! (temp file, then rename) after every round, so a crash or Ctrl-C never loses a
//! finished round and never leaves a half-written file.
//!
//! The files here depend on each other in one direction only: `round` (one round),
//! `class_timing`, `prepare_check` and `data_restore` ← `record` (the run) ← `partial`, and the rounds' `sampling`,
//! `classes`, `class_slowdown` and `noise` ← `rate` ← `judgement` ← `judge`; `file`, `checks`, `storage` and `merge` read and write the
//! record. This file only names them.

mod checks;
pub(crate) mod class_slowdown;
pub(crate) mod class_timing;
pub(crate) mod classes;
pub(crate) mod data_restore;
mod figures;
mod file;
mod judge;
mod judgement;
pub(crate) mod merge;
pub(crate) mod noise;
mod partial;
pub(crate) mod prepare_check;
mod rate;
mod record;
mod round;
mod sampling;
mod schema;
pub(crate) mod servers;
mod storage;

pub(crate) use file::{ResultsFile, ResultsOf};
pub(crate) use judge::{Stage, as_it_stands, judge, nothing_judged};
pub(crate) use judgement::Judgement;
pub(crate) use record::{Look, RunRecord, RunStatus, SideInfo};
pub(crate) use round::{
    ClassRound, HostLoad, LatencyMs, OpenLoop, RoundRecord, RoundStatus, ThreadSetup,
};
pub(crate) use sampling::{sample_unit, samples};
pub(crate) use schema::SCHEMA_VERSION;
pub(crate) use storage::{check_writable, load, save, write_atomic};
