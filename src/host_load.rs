//! What else the machine was doing during a round, from /proc/stat: the CPU time the
//! hypervisor took away (steal) and how many threads were runnable. On a shared host
//! these explain much of the round-to-round noise, so every round records them.

/// One reading of /proc/stat.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct CpuTicks {
    /// Every tick of every state, all CPUs.
    total: u64,
    /// Ticks stolen by the hypervisor.
    steal: u64,
}

impl CpuTicks {
    /// The machine's CPU ticks now, if /proc/stat says.
    pub(crate) fn read() -> Option<CpuTicks> {
        parse_ticks(&std::fs::read_to_string("/proc/stat").ok()?)
    }

    /// The share of CPU time stolen between `self` and `later`, in %.
    pub(crate) fn steal_pct_until(&self, later: &CpuTicks) -> Option<f64> {
        let total = later.total.checked_sub(self.total)?;
        let steal = later.steal.checked_sub(self.steal)?;
        (total > 0).then(|| 100.0 * steal as f64 / total as f64)
    }
}

/// The threads runnable right now (`procs_running`), if /proc/stat says.
pub(crate) fn runnable() -> Option<u32> {
    parse_runnable(&std::fs::read_to_string("/proc/stat").ok()?)
}

fn parse_ticks(stat: &str) -> Option<CpuTicks> {
    let fields: Vec<u64> = stat
        .lines()
        .find(|l| l.starts_with("cpu "))?
        .split_whitespace()
        .skip(1)
        .filter_map(|v| v.parse().ok())
        .collect();
    // user nice system idle iowait irq softirq steal guest guest_nice; guests are
    // already counted in user and nice.
    Some(CpuTicks {
        total: fields.iter().take(8).sum(),
        steal: *fields.get(7).unwrap_or(&0),
    })
}

fn parse_runnable(stat: &str) -> Option<u32> {
    stat.lines()
        .find_map(|l| l.strip_prefix("procs_running "))?
        .trim()
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const STAT: &str =
        "cpu  100 0 50 800 10 0 5 35 0 0\ncpu0 50 0 25 400 5 0 2 18 0 0\nprocs_running 3\n";

    #[test]
    fn reads_steal_and_runnable_threads() {
        let before = parse_ticks(STAT).unwrap();
        assert_eq!(
            before,
            CpuTicks {
                total: 1000,
                steal: 35
            }
        );
        let after = CpuTicks {
            total: 2000,
            steal: 135,
        };
        assert_eq!(before.steal_pct_until(&after), Some(10.0));
        assert_eq!(parse_runnable(STAT), Some(3));
        assert!(
            CpuTicks::read().is_some() && runnable().is_some(),
            "this machine has /proc/stat"
        );
    }
}
