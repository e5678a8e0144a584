//! A side's client threads, kept from round to round with their sessions. Starting a
//! thread per connection for every round cost about 35 ms at 512 connections and 70 ms
//! at 900 on a 2-core host (spawning alone, measured), most of a round switch; a pool
//! only hands each of its threads the next round's job. Each thread owns its session, so
//! a session never crosses threads, and it applies the scheduling policy and the CPU
//! list once, when it starts.
//!
//! A job always answers, even when the worker panics (caught and reported as a failed
//! worker), and a pool that is dropped tells its threads to quit and joins them, which
//! closes their sessions.

use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, Sender};
use std::thread::JoinHandle;

use super::arrivals::Arrivals;
use super::control::RoundControl;
use super::worker::{self, Session, WorkerSetup, WorkerStats};
use crate::db::ConnectSpec;
use crate::db::errors::IgnoreErrors;
use crate::placement::CpuList;
use crate::results::ThreadSetup;
use crate::thread_policy::{self, ClientSched};
use crate::workload::WorkloadSpec;
use crate::workload::oltp::SessionContext;

/// Stack size of a worker thread: small, so a thousand connections stay cheap.
const WORKER_STACK: usize = 512 * 1024;

/// What every worker of a round shares.
pub(crate) struct RoundJob {
    /// How to connect.
    pub(crate) connect: Arc<ConnectSpec>,
    /// What to run.
    pub(crate) workload: Arc<WorkloadSpec>,
    /// Which errors are counted and retried.
    pub(crate) ignore: Arc<IgnoreErrors>,
    /// Open-loop arrivals, when `--rate` is set.
    pub(crate) arrivals: Option<Arc<Arrivals>>,
    /// The round's phase and counters.
    pub(crate) control: Arc<RoundControl>,
    /// Whether sessions are kept for the next round (else closed after this one, and
    /// any kept one closed before it).
    pub(crate) keep_sessions: bool,
}

/// One worker's part of a round.
struct Job {
    round: Arc<RoundJob>,
    id: usize,
    context: SessionContext,
    seed: u64,
    done: Sender<Answer>,
}

/// A worker's answer: its index, its statistics, and whether it holds a session now.
pub(crate) type Answer = (usize, WorkerStats, bool);

/// The client threads of one side at one level.
pub(crate) struct WorkerPool {
    jobs: Vec<Sender<Job>>,
    handles: Vec<JoinHandle<()>>,
    with_session: Vec<bool>,
    setup: Option<ThreadSetup>,
}

impl WorkerPool {
    /// Starts `threads` idle threads with `policy`, on `cpus` if given.
    pub(crate) fn start(
        threads: usize,
        policy: ClientSched,
        cpus: Option<&CpuList>,
    ) -> Result<WorkerPool, String> {
        let mut pool = WorkerPool {
            jobs: Vec::with_capacity(threads),
            handles: Vec::with_capacity(threads),
            with_session: vec![false; threads],
            setup: None,
        };
        let (report, reports) = mpsc::channel::<Option<String>>();
        for id in 0..threads {
            let (send, receive) = mpsc::channel::<Job>();
            let cpus = cpus.cloned();
            let report = report.clone();
            let handle = std::thread::Builder::new()
                .name(format!("worker-{id}"))
                .stack_size(WORKER_STACK)
                .spawn(move || {
                    let _ = report.send(place_current_thread(policy, cpus.as_ref()));
                    serve(receive);
                })
                .map_err(|e| format!("cannot start worker thread {id}: {e}"))?;
            pool.jobs.push(send);
            pool.handles.push(handle);
        }
        drop(report);
        let asked = policy != ClientSched::Normal || cpus.is_some();
        let first_error = reports.iter().take(threads).flatten().next();
        pool.setup = asked.then(|| ThreadSetup {
            applied: first_error.is_none(),
            error: first_error,
        });
        Ok(pool)
    }

    /// Whether the threads run under the planned policy and CPUs; `None` when the plan
    /// asked for neither.
    pub(crate) fn setup(&self) -> Option<&ThreadSetup> {
        self.setup.as_ref()
    }

    /// How many threads the pool has.
    pub(crate) fn len(&self) -> usize {
        self.jobs.len()
    }

    /// Threads that hold no session (and will connect at their next job).
    pub(crate) fn without_session(&self) -> usize {
        self.with_session.iter().filter(|held| !**held).count()
    }

    /// Hands every thread its part of a round: `context` and `seed` give each worker's
    /// place and random seed. Returns the channel the answers come on and how many jobs
    /// went out (a thread that is gone cannot take one).
    pub(crate) fn dispatch(
        &mut self,
        round: &Arc<RoundJob>,
        mut place: impl FnMut(usize) -> (SessionContext, u64),
    ) -> (Receiver<Answer>, usize) {
        let (done, answers) = mpsc::channel();
        let mut sent = 0;
        for (id, jobs) in self.jobs.iter().enumerate() {
            let (context, seed) = place(id);
            let job = Job {
                round: Arc::clone(round),
                id,
                context,
                seed,
                done: done.clone(),
            };
            if jobs.send(job).is_ok() {
                sent += 1;
            }
        }
        (answers, sent)
    }

    /// Notes which threads hold a session after a round.
    pub(crate) fn record(&mut self, answers: &[Answer]) {
        self.with_session.iter_mut().for_each(|held| *held = false);
        for (id, _, held) in answers {
            if let Some(slot) = self.with_session.get_mut(*id) {
                *slot = *held;
            }
        }
    }
}

impl Drop for WorkerPool {
    fn drop(&mut self) {
        // Closing the job channels ends every thread's loop; each closes its session.
        self.jobs.clear();
        for handle in self.handles.drain(..) {
            let _ = handle.join();
        }
    }
}

/// A pool thread: runs jobs until its channel closes, keeping its session in between.
fn serve(jobs: Receiver<Job>) {
    let mut session: Option<Session> = None;
    while let Ok(job) = jobs.recv() {
        let round = &job.round;
        if !round.keep_sessions {
            session = None;
        }
        let setup = WorkerSetup {
            id: job.id,
            connect: &round.connect,
            workload: &round.workload,
            context: job.context.clone(),
            seed: job.seed,
            ignore: &round.ignore,
            arrivals: round.arrivals.as_deref(),
        };
        let kept = session.take();
        let run = std::panic::AssertUnwindSafe(|| worker::run(setup, &round.control, kept));
        let (stats, after) = std::panic::catch_unwind(run).unwrap_or_else(|panic| {
            round.control.abandon();
            (WorkerStats::failed(panic_message(job.id, &*panic)), None)
        });
        session = after.filter(|_| round.keep_sessions);
        let _ = job.done.send((job.id, stats, session.is_some()));
    }
}

/// What a worker thread's panic said, for the round's failure reason.
fn panic_message(id: usize, panic: &(dyn std::any::Any + Send)) -> String {
    let message = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".to_string());
    format!("worker thread {id} panicked ({message}); this is a bug in abtest, please report it")
}

/// Puts the calling worker under `policy` and on `cpus`; the OS's refusal, in words,
/// if it refused either.
fn place_current_thread(policy: ClientSched, cpus: Option<&CpuList>) -> Option<String> {
    if let Err(e) = thread_policy::apply_to_current_thread(policy) {
        return Some(format!("scheduling policy {}: {e}", policy.as_str()));
    }
    let cpus = cpus?;
    cpus.apply_to_current_thread()
        .err()
        .map(|e| format!("CPUs {cpus}: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_the_os_refuses_is_recorded_not_claimed() {
        let pool = WorkerPool::start(2, ClientSched::Normal, None).unwrap();
        assert_eq!(pool.setup(), None, "nothing asked, nothing recorded");
        let pool = WorkerPool::start(2, ClientSched::Batch, None).unwrap();
        assert_eq!(
            pool.setup(),
            Some(&ThreadSetup {
                applied: true,
                error: None
            })
        );
        let nowhere = CpuList::parse("1000").unwrap();
        let pool = WorkerPool::start(2, ClientSched::Batch, Some(&nowhere)).unwrap();
        let setup = pool.setup().unwrap();
        assert!(!setup.applied);
        assert!(
            setup.error.as_deref().unwrap().starts_with("CPUs 1000: "),
            "{setup:?}"
        );
    }
}
