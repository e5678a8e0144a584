//! CPU placement (`--cpus client=LIST,baseline=LIST,variant=LIST`): which cores the
//! client threads and each managed server may run on.
//!
//! On a small host the client and both servers compete for the same cores, and which
//! one the kernel runs next is a source of round-to-round noise. Pinning trades
//! throughput for a steadier share: each process keeps its cores, and the idle side's
//! server cannot take the measured side's. The lists use the kernel's own syntax
//! (`0`, `0-3`, `0,2-3`), as `taskset -c` and `/sys/devices/system/cpu/online` do.
//! A server is placed between fork and exec, so every thread it ever starts inherits the
//! mask; a client thread places itself when it starts.

use std::collections::BTreeSet;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::side::Side;

/// A set of CPU numbers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub(crate) struct CpuList(BTreeSet<usize>);

/// Where the client threads and each side's managed server run; `None` is unpinned.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Placement {
    /// The client's worker threads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) client: Option<CpuList>,
    /// The baseline's managed server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) baseline: Option<CpuList>,
    /// The variant's managed server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) variant: Option<CpuList>,
}

impl CpuList {
    /// Parses `0`, `0-3` or `0,2-3`.
    pub(crate) fn parse(text: &str) -> Result<CpuList, String> {
        let mut cpus = BTreeSet::new();
        for part in text.split(',') {
            let number = |s: &str| {
                s.trim()
                    .parse::<usize>()
                    .map_err(|_| format!("`{part}` is not a CPU number or a range such as 0-3"))
            };
            match part.split_once('-') {
                Some((first, last)) => {
                    let (first, last) = (number(first)?, number(last)?);
                    if first > last {
                        return Err(format!("the range `{part}` runs backwards"));
                    }
                    cpus.extend(first..=within_mask(last)?);
                }
                None => {
                    cpus.insert(within_mask(number(part)?)?);
                }
            }
        }
        Ok(CpuList(cpus))
    }

    /// The CPUs, lowest first.
    pub(crate) fn cpus(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().copied()
    }

    /// The kernel's affinity mask of this list.
    fn mask(&self) -> libc::cpu_set_t {
        // SAFETY: cpu_set_t is plain data; CPU_ZERO/CPU_SET only write inside it, and
        // CPU_SET ignores numbers beyond the set's size (checked by `check_available`).
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_ZERO(&mut set);
            for cpu in self.cpus().filter(|&cpu| cpu < libc::CPU_SETSIZE as usize) {
                libc::CPU_SET(cpu, &mut set);
            }
            set
        }
    }

    /// Restricts the calling thread (or, between fork and exec, the new process) to
    /// these CPUs. Async-signal-safe: one system call on a mask built beforehand.
    pub(crate) fn apply_to_current_thread(&self) -> std::io::Result<()> {
        apply_mask(&self.mask())
    }

    /// A closure for `pre_exec`: the mask is built before the fork.
    pub(crate) fn pre_exec_placer(&self) -> impl Fn() -> std::io::Result<()> + Send + Sync + use<> {
        let mask = self.mask();
        move || apply_mask(&mask)
    }
}

fn apply_mask(mask: &libc::cpu_set_t) -> std::io::Result<()> {
    // SAFETY: pid 0 is the calling thread; the mask is a valid cpu_set_t.
    let done = unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), mask) };
    if done == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

impl fmt::Display for CpuList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut ranges: Vec<String> = Vec::new();
        let mut cpus = self.cpus().peekable();
        while let Some(first) = cpus.next() {
            let mut last = first;
            while cpus.peek() == Some(&(last + 1)) {
                last = cpus.next().unwrap_or(last);
            }
            ranges.push(if first == last {
                first.to_string()
            } else {
                format!("{first}-{last}")
            });
        }
        f.write_str(&ranges.join(","))
    }
}

impl TryFrom<String> for CpuList {
    type Error = String;
    fn try_from(text: String) -> Result<CpuList, String> {
        CpuList::parse(&text)
    }
}

impl From<CpuList> for String {
    fn from(list: CpuList) -> String {
        list.to_string()
    }
}

/// `cpu` when a Linux CPU mask can hold it (below `CPU_SETSIZE`, 1024): checked before
/// a range is expanded, so `0-4294967295` is refused instead of filling memory.
fn within_mask(cpu: usize) -> Result<usize, String> {
    let most = libc::CPU_SETSIZE as usize;
    if cpu < most {
        Ok(cpu)
    } else {
        Err(format!(
            "CPU {cpu} is beyond what a Linux CPU mask holds (0 to {}); list this machine's \
             CPUs, which /sys/devices/system/cpu/online shows, such as 0-3",
            most - 1
        ))
    }
}

impl Placement {
    /// Parses `client=LIST,baseline=LIST,variant=LIST` (any of the three, in any order;
    /// the lists' own commas are told apart by the `name=` that starts each part).
    pub(crate) fn parse(text: &str) -> Result<Placement, String> {
        let mut placement = Placement::default();
        let mut parts: Vec<(String, String)> = Vec::new();
        for piece in text.split(',') {
            match piece.split_once('=') {
                Some((name, list)) => parts.push((name.trim().to_string(), list.to_string())),
                None => match parts.last_mut() {
                    Some((_, list)) => {
                        list.push(',');
                        list.push_str(piece);
                    }
                    None => {
                        return Err(format!(
                            "`{piece}` needs a name: client=, baseline= or variant="
                        ));
                    }
                },
            }
        }
        for (name, list) in parts {
            let cpus = CpuList::parse(&list).map_err(|e| format!("{name}: {e}"))?;
            let slot = match name.as_str() {
                "client" => &mut placement.client,
                "baseline" => &mut placement.baseline,
                "variant" => &mut placement.variant,
                other => {
                    return Err(format!(
                        "`{other}` is not a part of the placement; use client=, baseline= or variant="
                    ));
                }
            };
            if slot.replace(cpus).is_some() {
                return Err(format!("{name}= is given twice"));
            }
        }
        Ok(placement)
    }

    /// The CPUs of `side`'s managed server.
    pub(crate) fn server(&self, side: Side) -> Option<&CpuList> {
        match side {
            Side::Baseline => self.baseline.as_ref(),
            Side::Variant => self.variant.as_ref(),
        }
    }

    /// Whether anything is pinned.
    pub(crate) fn is_set(&self) -> bool {
        self != &Placement::default()
    }

    /// Refuses a CPU this process may not run on (offline, or outside its own mask).
    pub(crate) fn check_available(&self) -> Result<(), String> {
        let available = available_cpus()?;
        for (name, list) in self.named() {
            if let Some(cpu) = list.cpus().find(|cpu| !available.0.contains(cpu)) {
                return Err(format!(
                    "{name}={list}: CPU {cpu} is not available to abtest (available: {available})"
                ));
            }
        }
        Ok(())
    }

    fn named(&self) -> impl Iterator<Item = (&'static str, &CpuList)> {
        [
            ("client", &self.client),
            ("baseline", &self.baseline),
            ("variant", &self.variant),
        ]
        .into_iter()
        .filter_map(|(name, list)| list.as_ref().map(|list| (name, list)))
    }
}

impl fmt::Display for Placement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.is_set() {
            return f.write_str("unpinned");
        }
        let parts: Vec<String> = self
            .named()
            .map(|(name, list)| format!("{name} on CPU {list}"))
            .collect();
        f.write_str(&parts.join(", "))
    }
}

/// The CPUs this process may run on.
fn available_cpus() -> Result<CpuList, String> {
    // SAFETY: pid 0 is this thread; the mask is written by the kernel.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Err(format!(
                "cannot read the CPUs available: {}",
                std::io::Error::last_os_error()
            ));
        }
        let cpus = (0..libc::CPU_SETSIZE as usize)
            .filter(|&cpu| libc::CPU_ISSET(cpu, &set))
            .collect();
        Ok(CpuList(cpus))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_parse_and_print_in_the_kernels_syntax() {
        let list = CpuList::parse("3,0-1,5-7").unwrap();
        assert_eq!(list.cpus().collect::<Vec<_>>(), [0, 1, 3, 5, 6, 7]);
        assert_eq!(list.to_string(), "0-1,3,5-7");
        for bad in ["", "a", "3-1", "1-", "-1", "1,,2"] {
            assert!(CpuList::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_placement_names_its_parts() {
        let placement = Placement::parse("client=1,baseline=0,2-3,variant=0").unwrap();
        assert_eq!(placement.client, Some(CpuList::parse("1").unwrap()));
        assert_eq!(placement.baseline, Some(CpuList::parse("0,2-3").unwrap()));
        assert_eq!(placement.server(Side::Variant).unwrap().to_string(), "0");
        assert_eq!(
            placement.to_string(),
            "client on CPU 1, baseline on CPU 0,2-3, variant on CPU 0"
        );
        for bad in ["1", "server=0", "client=0,client=1", "client=x"] {
            assert!(Placement::parse(bad).is_err(), "{bad}");
        }
        let json = serde_json::to_string(&placement).unwrap();
        assert_eq!(serde_json::from_str::<Placement>(&json).unwrap(), placement);
    }

    #[test]
    fn a_cpu_beyond_the_host_is_refused() {
        let far = Placement::parse(&format!("client={}", libc::CPU_SETSIZE - 1)).unwrap();
        assert!(far.check_available().unwrap_err().contains("not available"));
        assert!(
            Placement::parse("client=0")
                .unwrap()
                .check_available()
                .is_ok()
        );
    }

    #[test]
    fn a_thread_placed_on_one_cpu_runs_there() {
        let handle = std::thread::spawn(|| {
            CpuList::parse("0")
                .unwrap()
                .apply_to_current_thread()
                .unwrap();
            available_cpus().unwrap().to_string()
        });
        assert_eq!(handle.join().unwrap(), "0");
    }
}
