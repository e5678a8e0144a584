//! Server-side measurements of a round: the deltas of selected `SHOW GLOBAL STATUS`
//! counters, `Threads_running` sampled during the measured period, and, for a managed
//! server, its CPU time per transaction from /proc. Server CPU per transaction is often a
//! steadier measure of an overhead than TPS on a noisy machine.

use std::collections::BTreeMap;

use mysql::prelude::Queryable;
use serde::{Deserialize, Serialize};

use crate::db::ConnectSpec;

const STATUS_QUERY: &str = "SHOW GLOBAL STATUS WHERE Variable_name LIKE 'Com\\_%' \
     OR Variable_name LIKE 'Innodb\\_rows\\_%' \
     OR Variable_name IN ('Bytes_sent', 'Bytes_received', 'Questions')";

/// What the server did during one measured period.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerRound {
    /// Server CPU time (user + system) per transaction, µs; managed servers only.
    pub cpu_us_per_tx: Option<f64>,
    /// Server CPU time during the period, seconds; managed servers only.
    pub cpu_seconds: Option<f64>,
    /// Mean of the `Threads_running` samples.
    pub threads_running: Option<f64>,
    /// Non-zero deltas of the selected status counters.
    pub status: BTreeMap<String, u64>,
}

/// Takes the snapshots of one round.
#[derive(Debug)]
pub struct ServerProbe {
    conn: Option<mysql::Conn>,
    pid: Option<u32>,
    status_before: BTreeMap<String, u64>,
    cpu_before: Option<u64>,
    running: Vec<f64>,
}

impl ServerProbe {
    /// A probe over a fresh admin connection; without one it measures nothing.
    pub fn open(admin: &ConnectSpec, pid: Option<u32>) -> ServerProbe {
        ServerProbe {
            conn: admin.connect().ok(),
            pid,
            status_before: BTreeMap::new(),
            cpu_before: None,
            running: Vec::new(),
        }
    }

    /// A probe that measures nothing.
    pub fn disabled() -> ServerProbe {
        ServerProbe {
            conn: None,
            pid: None,
            status_before: BTreeMap::new(),
            cpu_before: None,
            running: Vec::new(),
        }
    }

    /// Snapshot at the start of the measured period.
    pub fn start(&mut self) {
        self.status_before = self.status();
        self.cpu_before = self.pid.and_then(cpu_ticks);
    }

    /// One `Threads_running` sample.
    pub fn sample(&mut self) {
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
    pub fn finish(&mut self, transactions: u64) -> Option<ServerRound> {
        self.conn.as_ref()?;
        let after = self.status();
        let status: BTreeMap<String, u64> = after
            .iter()
            .filter_map(|(name, value)| {
                let delta = value.saturating_sub(*self.status_before.get(name).unwrap_or(&0));
                (delta > 0).then(|| (name.clone(), delta))
            })
            .collect();
        let cpu_seconds = match (self.cpu_before, self.pid.and_then(cpu_ticks)) {
            (Some(before), Some(after)) => {
                Some(after.saturating_sub(before) as f64 / ticks_per_second())
            }
            _ => None,
        };
        Some(ServerRound {
            cpu_us_per_tx: cpu_seconds
                .filter(|_| transactions > 0)
                .map(|s| s * 1e6 / transactions as f64),
            cpu_seconds,
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

/// utime + stime of a process, in clock ticks.
fn cpu_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may contain spaces; fields resume after its closing parenthesis.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some(utime + stime)
}

fn ticks_per_second() -> f64 {
    // SAFETY: sysconf has no preconditions.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if ticks > 0 { ticks as f64 } else { 100.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_own_cpu_ticks() {
        let mut x = 0u64;
        for i in 0..20_000_000u64 {
            x = x.wrapping_add(i * i);
        }
        assert!(x > 0);
        assert!(cpu_ticks(std::process::id()).is_some());
        assert!(ticks_per_second() >= 1.0);
    }
}
