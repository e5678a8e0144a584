//! Server-side measurements of a round: the deltas of selected `SHOW GLOBAL STATUS`
//! counters, `Threads_running` sampled during the measured period, and, for a managed
//! server, its CPU time per transaction from /proc. Server CPU per transaction is often a
//! steadier measure of an overhead than TPS on a noisy machine.

use std::collections::BTreeMap;
use std::time::Duration;

use mysql::prelude::Queryable;
use serde::{Deserialize, Serialize};

use crate::cpu;
use crate::db::ConnectSpec;

const STATUS_QUERY: &str = "SHOW GLOBAL STATUS WHERE Variable_name LIKE 'Com\\_%' \
     OR Variable_name LIKE 'Innodb\\_rows\\_%' \
     OR Variable_name IN ('Bytes_sent', 'Bytes_received', 'Questions')";

/// What the server did during one measured period.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct ServerRound {
    /// Server CPU time (user + system) per transaction, µs; managed servers only.
    pub(crate) cpu_us_per_tx: Option<f64>,
    /// Server CPU time during the period, seconds; managed servers only.
    pub(crate) cpu_seconds: Option<f64>,
    /// Mean of the `Threads_running` samples.
    pub(crate) threads_running: Option<f64>,
    /// Non-zero deltas of the selected status counters.
    pub(crate) status: BTreeMap<String, u64>,
}

/// Takes the snapshots of one round.
#[derive(Debug)]
pub(crate) struct ServerProbe {
    conn: Option<mysql::Conn>,
    pid: Option<u32>,
    status_before: BTreeMap<String, u64>,
    cpu_before: Option<Duration>,
    running: Vec<f64>,
}

impl ServerProbe {
    /// A probe over a fresh admin connection; without one it measures nothing.
    pub(crate) fn open(admin: &ConnectSpec, pid: Option<u32>) -> ServerProbe {
        ServerProbe {
            conn: admin.connect().ok(),
            pid,
            status_before: BTreeMap::new(),
            cpu_before: None,
            running: Vec::new(),
        }
    }

    /// Snapshot at the start of the measured period.
    pub(crate) fn start(&mut self) {
        self.status_before = self.status();
        self.cpu_before = self.pid.and_then(cpu::process_cpu);
    }

    /// One `Threads_running` sample.
    pub(crate) fn sample(&mut self) {
        let Some(conn) = self.conn.as_mut() else {
            return;
        };
        let value: Result<Option<(String, f64)>, _> =
            conn.query_first("SHOW GLOBAL STATUS LIKE 'Threads_running'");
        if let Ok(Some((_, running))) = value {
            // The probe's own statement is one of the running threads.
            self.running.push((running - 1.0).max(0.0));
        }
    }

    /// Snapshot at the end; the deltas since [`ServerProbe::start`].
    pub(crate) fn finish(&mut self, transactions: u64) -> Option<ServerRound> {
        self.conn.as_ref()?;
        let after = self.status();
        let status: BTreeMap<String, u64> = after
            .iter()
            .filter_map(|(name, value)| {
                let delta = value.saturating_sub(*self.status_before.get(name).unwrap_or(&0));
                (delta > 0).then(|| (name.clone(), delta))
            })
            .collect();
        let cpu = cpu::spent(self.cpu_before, self.pid.and_then(cpu::process_cpu));
        Some(ServerRound {
            cpu_us_per_tx: cpu::us_per_transaction(cpu, transactions),
            cpu_seconds: cpu.map(|spent| spent.as_secs_f64()),
            threads_running: (!self.running.is_empty())
                .then(|| self.running.iter().sum::<f64>() / self.running.len() as f64),
            status,
        })
    }

    fn status(&mut self) -> BTreeMap<String, u64> {
        let Some(conn) = self.conn.as_mut() else {
            return BTreeMap::new();
        };
        let rows: Vec<(String, String)> = conn.query(STATUS_QUERY).unwrap_or_default();
        rows.into_iter()
            .filter_map(|(name, value)| value.parse().ok().map(|v| (name, v)))
            .collect()
    }
}
