//! CPU time of a process, from /proc: the managed server's, whose cost per transaction is
//! often a steadier measure of an overhead than TPS, and abtest's own, because a load
//! generator that shares the host takes every microsecond it spends from the server.

use std::time::Duration;

/// User plus system CPU time of process `pid` so far, if /proc tells. Linux counts it in
/// clock ticks (10 ms at the usual 100 Hz).
pub fn process_cpu(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may contain spaces; fields resume after its closing parenthesis.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some(Duration::from_secs_f64(
        (utime + stime) as f64 / ticks_per_second(),
    ))
}

/// CPU time spent between two readings, if both exist.
pub fn spent(before: Option<Duration>, after: Option<Duration>) -> Option<Duration> {
    after?.checked_sub(before?)
}

/// Microseconds of `spent` per transaction, if there were transactions.
pub fn us_per_transaction(spent: Option<Duration>, transactions: u64) -> Option<f64> {
    (transactions > 0).then_some(spent?.as_secs_f64() * 1e6 / transactions as f64)
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
    fn own_cpu_time_grows_with_work() {
        let me = std::process::id();
        let before = process_cpu(me).expect("/proc/self/stat is readable");
        let spin_until = std::time::Instant::now() + Duration::from_millis(50);
        let mut x = 0u64;
        while std::time::Instant::now() < spin_until {
            x = std::hint::black_box(x.wrapping_add(1));
        }
        let after = process_cpu(me).unwrap();
        assert!(after > before, "{after:?} <= {before:?} after {x} spins");
    }

    #[test]
    fn per_transaction_needs_both_readings_and_work() {
        let (a, b) = (Duration::from_millis(10), Duration::from_millis(30));
        let spent_20ms = spent(Some(a), Some(b));
        assert_eq!(us_per_transaction(spent_20ms, 1000), Some(20.0));
        assert_eq!(spent(None, Some(b)), None);
        assert_eq!(spent(Some(b), Some(a)), None);
        assert_eq!(us_per_transaction(spent_20ms, 0), None);
    }
}
