//! Which code runs a workload, chosen once by its kind ([`Workload`]): a built-in
//! sysbench script (`oltp`) or the transactions of a workload file (`custom`). A
//! connection's session, the workload's query classes, its read samples for
//! `--check-results` and the statements a connection prepares all start here, so the
//! two kinds' own files never name each other.

use mysql::Conn;

use crate::workload::check_sample::{Coverage, Draw, ReadSample};
use crate::workload::custom::CustomSession;
use crate::workload::event_log::EventLog;
use crate::workload::oltp::{self, SessionContext, SysbenchSession};
use crate::workload::random::WorkloadRng;
use crate::workload::{PsMode, Workload, WorkloadSpec};

/// What a connection's events run, with everything they need prepared.
#[derive(Debug)]
enum Prepared {
    /// A sysbench script.
    Sysbench(SysbenchSession),
    /// The transactions of a workload file.
    File(CustomSession),
}

/// A connection's prepared workload, sysbench's or a workload file's.
#[derive(Debug)]
pub(crate) struct WorkloadSession {
    prepared: Prepared,
    rng: WorkloadRng,
}

impl WorkloadSession {
    /// Prepares every statement of the workload on `conn`.
    pub(crate) fn prepare(
        conn: &mut Conn,
        spec: &WorkloadSpec,
        context: SessionContext,
        seed: u64,
    ) -> Result<WorkloadSession, mysql::Error> {
        let prepared = match &spec.kind {
            Workload::Sysbench(name) => {
                Prepared::Sysbench(SysbenchSession::prepare(conn, *name, spec, context)?)
            }
            Workload::File(file) => {
                let mut session = CustomSession::prepare(
                    conn,
                    file,
                    spec.tables.count,
                    spec.tables.rows,
                    spec.ps_mode == PsMode::Auto,
                )?;
                for found in context.assigned.iter() {
                    session.leave_to_server(found.transaction, found.statement, found.slot);
                }
                Prepared::File(session)
            }
        };
        Ok(WorkloadSession {
            prepared,
            rng: WorkloadRng::with_spec(seed, spec.rand),
        })
    }

    /// Whether events run inside BEGIN/COMMIT (a failed one needs a ROLLBACK).
    pub(crate) fn uses_transactions(&self) -> bool {
        match &self.prepared {
            Prepared::Sysbench(session) => session.uses_transactions(),
            Prepared::File(session) => session.uses_transactions(),
        }
    }

    /// Runs one event; `log` receives every statement that completed.
    pub(crate) fn event(
        &mut self,
        conn: &mut Conn,
        log: &mut EventLog,
    ) -> Result<(), mysql::Error> {
        match &mut self.prepared {
            Prepared::Sysbench(session) => session.event(conn, &mut self.rng, log),
            Prepared::File(session) => session.event(conn, &mut self.rng, log),
        }
    }

    /// Ends the session: flushes what a sysbench script still holds.
    pub(crate) fn finish(&mut self, conn: &mut Conn) -> Result<(), mysql::Error> {
        match &mut self.prepared {
            Prepared::Sysbench(session) => session.finish(conn),
            Prepared::File(_) => Ok(()),
        }
    }
}

/// The workload's query classes, by `ClassId`: the sysbench statement kinds of a
/// built-in workload, each statement text of a workload file, with BEGIN and COMMIT
/// where the events use them.
pub(crate) fn query_classes(spec: &WorkloadSpec) -> Vec<String> {
    match &spec.kind {
        Workload::Sysbench(name) => oltp::query_classes(*name, &spec.sysbench),
        Workload::File(file) => file.class_names().into_names(),
    }
}

/// Read statements of this workload's events (sysbench's groups in turn, or the
/// workload file's reads), each with parameters drawn as an event would draw them.
/// Empty when the workload reads nothing that can be sampled.
pub(crate) fn sample_reads(spec: &WorkloadSpec, seed: u64, coverage: Coverage) -> Vec<ReadSample> {
    let mut rng = WorkloadRng::with_spec(seed, spec.rand);
    match &spec.kind {
        Workload::Sysbench(name) => oltp::sample_reads(*name, spec, &mut rng, coverage),
        Workload::File(file) => {
            let draw = Draw {
                rng: &mut rng,
                tables: spec.tables.count,
                table_size: spec.tables.rows,
            };
            file.sample_reads(draw, coverage)
        }
    }
}

/// How many server-side prepared statements one connection of this workload holds (0
/// in the text protocol), which times the connections must fit the server's
/// `max_prepared_stmt_count`.
pub(crate) fn prepared_per_connection(spec: &WorkloadSpec) -> u64 {
    if spec.ps_mode == PsMode::Disable {
        return 0;
    }
    match &spec.kind {
        Workload::Sysbench(name) => oltp::prepared_per_connection(*name, spec),
        Workload::File(file) => file.prepared_per_connection(spec.tables.count),
    }
}
