//! The scheduling policy of the client threads.
//!
//! On a host shared with the server, a client thread that wakes up when its answer
//! arrives would, under the normal policy, preempt the server thread that is busy with
//! the next connection's statement. Under SCHED_BATCH the kernel never preempts on a
//! client's wake-up: the client runs when a core is free or the server blocks. The server
//! keeps the CPU it needs, and the client spends less of it on context switches.
//! SCHED_BATCH needs no privilege; `--client-sched normal` keeps sysbench's behaviour.

use serde::{Deserialize, Serialize};

use crate::named::Named;

/// The Linux scheduling policy of the client threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClientSched {
    /// SCHED_BATCH: a waking client thread does not preempt a running server thread.
    Batch,
    /// SCHED_OTHER, the default of every process, and what sysbench runs with.
    Normal,
}

impl Named for ClientSched {
    const NAMES: &'static [(ClientSched, &'static str, &'static str)] = &[
        (
            ClientSched::Batch,
            "batch",
            "SCHED_BATCH: a waking client thread does not preempt a running server thread",
        ),
        (
            ClientSched::Normal,
            "normal",
            "SCHED_OTHER, the default of every process, and what sysbench runs with",
        ),
    ];
}

crate::named::from_names!(ClientSched);

impl ClientSched {
    /// The name as the flag spells it.
    pub fn as_str(self) -> &'static str {
        self.name()
    }
}

/// Applies `policy` to the calling thread. Linux schedules threads one by one, so each
/// worker calls this for itself.
pub fn apply_to_current_thread(policy: ClientSched) -> std::io::Result<()> {
    let native = match policy {
        ClientSched::Batch => libc::SCHED_BATCH,
        ClientSched::Normal => libc::SCHED_OTHER,
    };
    let param = libc::sched_param { sched_priority: 0 };
    // SAFETY: pid 0 is the calling thread; param is a valid sched_param.
    if unsafe { libc::sched_setscheduler(0, native, &param) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn current_thread_policy() -> Option<ClientSched> {
        // SAFETY: pid 0 is the calling thread.
        match unsafe { libc::sched_getscheduler(0) } {
            libc::SCHED_BATCH => Some(ClientSched::Batch),
            libc::SCHED_OTHER => Some(ClientSched::Normal),
            _ => None,
        }
    }

    #[test]
    fn a_thread_switches_to_batch_and_back() {
        std::thread::spawn(|| {
            apply_to_current_thread(ClientSched::Batch).expect("SCHED_BATCH needs no privilege");
            assert_eq!(current_thread_policy(), Some(ClientSched::Batch));
            apply_to_current_thread(ClientSched::Normal).unwrap();
            assert_eq!(current_thread_policy(), Some(ClientSched::Normal));
        })
        .join()
        .unwrap();
    }
}
