//! What else the machine was doing during a round, from /proc: the CPU time the
//! hypervisor took away (steal), how many threads were runnable, and the CPU used by
//! every other process. On a shared host these explain much of the round-to-round
//! noise, so every round records them.
//!
//! The other processes' CPU is the machine's user and system time less abtest's, its
//! managed servers' and the kernel's own threads'. Taking it from the machine's total
//! counts a process that started and ended inside the round (a build's compilers) once,
//! and a long-lived child reaped in the middle of a round is not charged to that round
//! (summing processes with their reaped children would do both wrong). The kernel's
//! threads are left out because they work for our traffic too (a plugin's log written
//! back to disk, say): a measure of the neighbours that moved with the side under test
//! could not be used to adjust for them.

use std::collections::HashMap;

/// One reading of /proc/stat.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct CpuTicks {
    /// Every tick of every state, all CPUs.
    total: u64,
    /// Ticks in user, nice and system mode, all CPUs.
    busy: u64,
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

/// The machine's ticks and, at the same moment, those of the processes that are not
/// the other processes: `ours` and the kernel's threads.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct OthersCpu {
    machine: CpuTicks,
    left_out: HashMap<u32, u64>,
}

impl OthersCpu {
    /// A reading now, leaving out `ours`, if /proc can be read.
    pub(crate) fn read(ours: &[u32]) -> Option<OthersCpu> {
        let machine = CpuTicks::read()?;
        let left_out = std::fs::read_dir("/proc")
            .ok()?
            .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
            .filter_map(|pid| {
                let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
                let (ticks, kernel_thread) = process_ticks(&stat)?;
                (kernel_thread || ours.contains(&pid)).then_some((pid, ticks))
            })
            .collect();
        Some(OthersCpu { machine, left_out })
    }

    /// The CPU the other processes used between `self` and `later`, in % of all the CPU
    /// time in between (every CPU).
    pub(crate) fn pct_until(&self, later: &OthersCpu) -> Option<f64> {
        let total = later.machine.total.checked_sub(self.machine.total)?;
        let busy = later.machine.busy.checked_sub(self.machine.busy)?;
        let left_out: u64 = later
            .left_out
            .iter()
            .filter_map(|(pid, &end)| end.checked_sub(*self.left_out.get(pid)?))
            .sum();
        (total > 0).then(|| 100.0 * busy.saturating_sub(left_out) as f64 / total as f64)
    }
}

/// A process's user + system ticks and whether it is a kernel thread, from its
/// /proc/PID/stat line.
fn process_ticks(stat: &str) -> Option<(u64, bool)> {
    /// `PF_KTHREAD` in the flags field.
    const KERNEL_THREAD: u64 = 0x0020_0000;
    // The command name may contain spaces; fields resume after its closing parenthesis.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let flags: u64 = fields.get(6)?.parse().ok()?;
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime, flags & KERNEL_THREAD != 0))
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
        busy: fields.iter().take(3).sum(),
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
                busy: 150,
                steal: 35
            }
        );
        let after = CpuTicks {
            total: 2000,
            busy: 300,
            steal: 135,
        };
        assert_eq!(before.steal_pct_until(&after), Some(10.0));
        assert_eq!(parse_runnable(STAT), Some(3));
        assert!(
            CpuTicks::read().is_some() && runnable().is_some(),
            "this machine has /proc/stat"
        );
    }

    #[test]
    fn kernel_threads_are_told_apart() {
        let user = "42 (cargo build) S 1 42 42 0 -1 4194560 10 0 0 0 300 20 150 30 20 0";
        assert_eq!(process_ticks(user), Some((320, false)));
        let kernel = "79 (kdamond.0) I 2 0 0 0 -1 2129984 0 0 0 0 0 17000 0 0 20 0";
        assert_eq!(process_ticks(kernel), Some((17000, true)));
        assert_eq!(process_ticks("garbage"), None);
    }

    #[test]
    fn the_others_are_the_machine_less_what_is_left_out() {
        let machine = |total, busy| CpuTicks {
            total,
            busy,
            steal: 0,
        };
        let before = OthersCpu {
            machine: machine(1000, 400),
            left_out: HashMap::from([(1, 100), (2, 50)]),
        };
        // Process 1 used 60 ticks; 2 ended and 3 started, so neither is taken off.
        let after = OthersCpu {
            machine: machine(1200, 500),
            left_out: HashMap::from([(1, 160), (3, 500)]),
        };
        assert_eq!(before.pct_until(&after), Some(20.0));
        let idle = OthersCpu {
            machine: machine(1200, 400),
            ..after
        };
        assert_eq!(before.pct_until(&idle), Some(0.0), "never below zero");
    }

    #[test]
    fn a_busy_neighbour_shows_and_our_own_process_does_not() {
        let me = std::process::id();
        let mut neighbour = std::process::Command::new("sh")
            .args(["-c", "while :; do :; done"])
            .spawn()
            .expect("sh runs");
        let spin = || {
            let until = std::time::Instant::now() + std::time::Duration::from_millis(300);
            while std::time::Instant::now() < until {
                std::hint::black_box(0);
            }
        };
        let start = OthersCpu::read(&[me]).unwrap();
        spin();
        let with_neighbour = start.pct_until(&OthersCpu::read(&[me]).unwrap()).unwrap();
        neighbour.kill().unwrap();
        neighbour.wait().unwrap();
        assert!(
            with_neighbour > 5.0,
            "a spinning shell used {with_neighbour:.1} % of the machine"
        );
        let start = OthersCpu::read(&[me]).unwrap();
        spin();
        let alone = start.pct_until(&OthersCpu::read(&[me]).unwrap()).unwrap();
        assert!(
            alone < with_neighbour,
            "spinning ourselves counted as others: {alone:.1} % against {with_neighbour:.1} %"
        );
    }
}
