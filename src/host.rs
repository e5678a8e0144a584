//! Facts about the machine abtest ran on: a reviewer needs them to judge whether a
//! result transfers to production hardware.

use serde::{Deserialize, Serialize};

/// CPU, memory and kernel of the client machine.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct HostFacts {
    /// CPU model name.
    pub(crate) cpu_model: String,
    /// Logical cores.
    pub(crate) cores: usize,
    /// Total memory in MiB.
    pub(crate) memory_mib: u64,
    /// Kernel release.
    pub(crate) kernel: String,
    /// abtest version.
    pub(crate) abtest_version: String,
    /// The host's name (empty in files older than the field).
    #[serde(default)]
    pub(crate) hostname: String,
}

impl HostFacts {
    /// Reads the facts from /proc.
    pub(crate) fn read() -> HostFacts {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let cpu_model = cpuinfo
            .lines()
            .find_map(|l| {
                l.strip_prefix("model name")
                    .and_then(|r| r.split_once(':'))
                    .map(|(_, v)| v.trim().to_string())
            })
            .unwrap_or_else(|| "unknown".into());
        let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
        let memory_kib: u64 = meminfo
            .lines()
            .find_map(|l| l.strip_prefix("MemTotal:"))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        HostFacts {
            cpu_model,
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            memory_mib: memory_kib / 1024,
            kernel: std::fs::read_to_string("/proc/sys/kernel/osrelease")
                .map(|s| s.trim().to_string())
                .unwrap_or_default(),
            abtest_version: env!("CARGO_PKG_VERSION").to_string(),
            hostname: std::fs::read_to_string("/proc/sys/kernel/hostname")
                .map(|s| s.trim().to_string())
                .unwrap_or_default(),
        }
    }

    /// One-line description.
    pub(crate) fn describe(&self) -> String {
        format!(
            "{}, {} cores, {} MiB, Linux {}",
            self.cpu_model, self.cores, self.memory_mib, self.kernel
        )
    }
}
