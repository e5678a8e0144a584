//! What else the machine was doing during a round, from /proc: the CPU time the
//! hypervisor took away (steal), how many threads were runnable, and the CPU used by
//! every other process. On a shared host these explain much of the round-to-round
//! noise, so every round records them.
//!
//! The other processes' CPU is summed process by process, leaving out abtest, its
//! managed servers and the kernel's own threads, from /proc/PID/stat at both ends of the
//! measured period. A process that ended in between is found through the parent that
//! reaped it: the parent's children's time grows by the child's whole life, of which the
//! part before the period (read at the start) is taken off; a process that started and
//! ended in between (a build's compilers) counts whole. The machine's totals would not do:
//! with tick accounting the interrupts a process took are in its system time and in the
//! machine's interrupt column, with interrupt-time accounting only in the latter, and our
//! own traffic's interrupts would then look like neighbours. The kernel's threads are
//! left out for the same reason: they work for our traffic too (a plugin's log written
//! back to disk, say), and a measure of the neighbours that moved with the side under
//! test could not be used to adjust for them.

use std::collections::HashMap;

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

/// The machine's ticks and, at the same moment, every other process's: its own user +
/// system ticks and those of the children it reaped.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct OthersCpu {
    machine: CpuTicks,
    processes: HashMap<u32, ProcessTicks>,
}

/// One process's CPU ticks so far.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct ProcessTicks {
    /// User + system.
    own: u64,
    /// User + system of the children it waited for, theirs included.
    reaped: u64,
}

impl OthersCpu {
    /// A reading now, leaving out `ours` and the kernel's threads, if /proc can be read.
    pub(crate) fn read(ours: &[u32]) -> Option<OthersCpu> {
        let machine = CpuTicks::read()?;
        let processes = std::fs::read_dir("/proc")
            .ok()?
            .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
            .filter(|pid| !ours.contains(pid))
            .filter_map(|pid| {
                let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
                Some((pid, user_process_ticks(&stat)?))
            })
            .collect();
        Some(OthersCpu { machine, processes })
    }

    /// The machine's ticks at this reading.
    pub(crate) fn machine(&self) -> &CpuTicks {
        &self.machine
    }

    /// The CPU the other processes used between `self` and `later`, in % of all the CPU
    /// time in between (every CPU).
    pub(crate) fn pct_until(&self, later: &OthersCpu) -> Option<f64> {
        let total = later.machine.total.checked_sub(self.machine.total)?;
        let mut used: u64 = 0;
        for (pid, end) in &later.processes {
            let start = self.processes.get(pid).copied().unwrap_or_default();
            used += end.own.saturating_sub(start.own) + end.reaped.saturating_sub(start.reaped);
        }
        // What the processes that are gone had used before the period is in their
        // parents' reaped time too.
        let before: u64 = self
            .processes
            .iter()
            .filter(|(pid, _)| !later.processes.contains_key(pid))
            .map(|(_, gone)| gone.own + gone.reaped)
            .sum();
        (total > 0).then(|| 100.0 * used.saturating_sub(before) as f64 / total as f64)
    }
}

/// A user-space process's ticks from its /proc/PID/stat line; `None` for a kernel thread
/// or a line that does not parse.
fn user_process_ticks(stat: &str) -> Option<ProcessTicks> {
    /// `PF_KTHREAD` in the flags field.
    const KERNEL_THREAD: u64 = 0x0020_0000;
    // The command name may contain spaces; fields resume after its closing parenthesis.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let field = |i: usize| fields.get(i)?.parse::<u64>().ok();
    if field(6)? & KERNEL_THREAD != 0 {
        return None;
    }
    Some(ProcessTicks {
        own: field(11)? + field(12)?,
        reaped: field(13)? + field(14)?,
    })
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

    #[test]
    fn kernel_threads_are_left_out_and_reaped_children_read() {
        let user = "42 (cargo build) S 1 42 42 0 -1 4194560 10 0 0 0 300 20 150 30 20 0";
        let ticks = ProcessTicks {
            own: 320,
            reaped: 180,
        };
        assert_eq!(user_process_ticks(user), Some(ticks));
        let kernel = "79 (kdamond.0) I 2 0 0 0 -1 2129984 0 0 0 0 0 17000 0 0 20 0";
        assert_eq!(user_process_ticks(kernel), None);
        assert_eq!(user_process_ticks("garbage"), None);
    }

    #[test]
    fn a_process_that_ended_counts_through_its_parent_for_its_last_part_only() {
        let ticks = |own, reaped| ProcessTicks { own, reaped };
        let machine = |total| CpuTicks { total, steal: 0 };
        let before = OthersCpu {
            machine: machine(1000),
            // The shell 1 runs a busy child 2 that has used 900 ticks so far.
            processes: HashMap::from([(1, ticks(10, 0)), (2, ticks(900, 0))]),
        };
        // Child 2 ran 50 more ticks and was reaped; child 3 started, used 30 and was
        // reaped; child 4 started and is still running with 20.
        let after = OthersCpu {
            machine: machine(1400),
            processes: HashMap::from([(1, ticks(10, 950 + 30)), (4, ticks(20, 0))]),
        };
        assert_eq!(before.pct_until(&after), Some(25.0));
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
