//! Open-loop arrivals for `--rate`: one Poisson process shared by all workers. Each
//! event has an intended start time, and its latency counts from then, so time spent
//! waiting for a free connection is part of the latency — no coordinated omission.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng, rngs::SmallRng};

/// The shared arrival schedule of a round.
#[derive(Debug)]
pub struct Arrivals {
    rate: f64,
    state: Mutex<ArrivalState>,
}

#[derive(Debug)]
struct ArrivalState {
    origin: Option<Instant>,
    next_offset: f64,
    rng: SmallRng,
}

impl Arrivals {
    /// A Poisson process of `rate` events per second.
    pub fn new(rate: f64, seed: u64) -> Arrivals {
        Arrivals {
            rate,
            state: Mutex::new(ArrivalState {
                origin: None,
                next_offset: 0.0,
                rng: SmallRng::seed_from_u64(seed),
            }),
        }
    }

    /// Events per second.
    pub fn rate(&self) -> f64 {
        self.rate
    }

    /// The intended start of the next event. The clock starts at the first call.
    pub fn take(&self) -> Instant {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let origin = *state.origin.get_or_insert_with(Instant::now);
        let offset = state.next_offset;
        let uniform: f64 = state.rng.random_range(f64::EPSILON..1.0);
        state.next_offset += -uniform.ln() / self.rate;
        origin + Duration::from_secs_f64(offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_interarrival_is_one_over_rate() {
        let arrivals = Arrivals::new(1000.0, 1);
        let first = arrivals.take();
        let mut last = first;
        for _ in 0..9999 {
            last = arrivals.take();
        }
        let mean = (last - first).as_secs_f64() / 9999.0;
        assert!((mean - 0.001).abs() < 0.00005, "{mean}");
    }
}
