//! The client's own CPU time. A load generator shares the host with the server it
//! measures, so every microsecond it spends is taken from the server; each round records
//! what abtest itself cost per transaction over the measured period, apart from
//! connection set-up and warm-up.

use std::time::Duration;

/// User plus system CPU time of this process so far, or `None` if the kernel will not say.
pub fn process_cpu() -> Option<Duration> {
    // SAFETY: getrusage only writes into the zeroed struct we pass.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return None;
    }
    Some(timeval(usage.ru_utime) + timeval(usage.ru_stime))
}

fn timeval(t: libc::timeval) -> Duration {
    Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
}

/// CPU microseconds per transaction between two readings, if both exist and work was done.
pub fn us_per_transaction(
    before: Option<Duration>,
    after: Option<Duration>,
    transactions: u64,
) -> Option<f64> {
    let spent = after?.checked_sub(before?)?;
    (transactions > 0).then(|| spent.as_secs_f64() * 1e6 / transactions as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn process_cpu_grows_with_work() {
        let before = process_cpu().expect("getrusage works");
        let mut x = 0u64;
        let spin_until = std::time::Instant::now() + Duration::from_millis(30);
        while std::time::Instant::now() < spin_until {
            x = std::hint::black_box(x.wrapping_add(1));
        }
        let after = process_cpu().unwrap();
        assert!(after > before, "{after:?} <= {before:?} after {x} spins");
    }

    #[test]
    fn per_transaction_needs_both_readings_and_work() {
        let (a, b) = (Duration::from_millis(10), Duration::from_millis(30));
        assert_eq!(us_per_transaction(Some(a), Some(b), 1000), Some(20.0));
        assert_eq!(us_per_transaction(None, Some(b), 1000), None);
        assert_eq!(us_per_transaction(Some(a), Some(b), 0), None);
        assert_eq!(us_per_transaction(Some(b), Some(a), 10), None);
    }
}
