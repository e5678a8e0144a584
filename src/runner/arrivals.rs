//! Open-loop arrivals for `--rate`: one Poisson process shared by all workers. Each
//! event has an intended start time, and its latency counts from then, so time spent
//! waiting for a free connection is part of the latency — no coordinated omission.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng, rngs::SmallRng};

/// The shared arrival schedule of a round.
#[derive(Debug)]
pub(crate) struct Arrivals {
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
    pub(crate) fn new(rate: f64, seed: u64) -> Arrivals {
        Arrivals {
            rate,
            state: Mutex::new(ArrivalState {
                origin: None,
                next_offset: 0.0,
                rng: SmallRng::seed_from_u64(seed),
            }),
        }
    }

    /// The intended start of the next event. The clock starts at the first call.
    pub(crate) fn take(&self) -> Instant {
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

    /// Gaps between 20 000 consecutive intended starts at 1000 events/s.
    fn gaps() -> Vec<f64> {
        let arrivals = Arrivals::new(1000.0, 1);
        let starts: Vec<Instant> = (0..20_001).map(|_| arrivals.take()).collect();
        starts
            .windows(2)
            .map(|pair| (pair[1] - pair[0]).as_secs_f64())
            .collect()
    }

    #[test]
    fn interarrival_times_are_exponential() {
        let gaps = gaps();
        let n = gaps.len() as f64;
        let mean = gaps.iter().sum::<f64>() / n;
        let sd = (gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
        // Exponential(1000/s): mean 1 ms, CV 1; the mean within 5 standard errors, the CV
        // within 5 of its standard errors (≈ 1/√n for an exponential).
        assert!((mean - 0.001).abs() < 5.0 * 0.001 / n.sqrt(), "{mean}");
        assert!((sd / mean - 1.0).abs() < 5.0 / n.sqrt(), "CV {}", sd / mean);
        // Memoryless: P(gap > mean) = e⁻¹.
        let above = gaps.iter().filter(|&&g| g > 0.001).count() as f64 / n;
        let expected = (-1f64).exp();
        assert!(
            (above - expected).abs() < 5.0 * (expected * (1.0 - expected) / n).sqrt(),
            "{above}"
        );
    }
}
