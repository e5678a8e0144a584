//! The latency ratio of one query class from blocks of paired executions
//! (`--class-timing`). Within a block the two sides run the class's statements pair by
//! pair, alternating which goes first, on fresh connections; each block gives one value,
//! the difference of the sides' mean log latencies. The blocks, not the executions, are
//! the units: a burst that slows one side for a second (a flush, where the scheduler put
//! a thread) moves one block's value and widens the interval, where counting each
//! execution as independent would turn it into a tight, false difference. Log latencies
//! because a class's latencies are skewed and the question is a ratio ("ten times
//! slower"); the t interval on block means holds for them because a block's mean of logs
//! is close to normal whatever one execution's latency looks like.

use statrs::distribution::{ContinuousCDF, StudentsT};

use super::summary::{mean, variance};
use super::t_critical;

/// The ratio variant / baseline of one class's latency, from its blocks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct BlockRatio {
    /// exp of the mean block difference of log latencies.
    pub(crate) ratio: f64,
    /// Its two-sided 1 - α interval.
    pub(crate) ci: [f64; 2],
    /// One-sided p of "the variant is at most `tolerance` times slower".
    pub(crate) p_beyond: f64,
}

/// The ratio from `diffs`, each block's mean log latency of the variant minus the
/// baseline's, tested against `tolerance` (a ratio, such as 2.0). `None` with fewer than
/// two blocks or a value that is not finite.
pub(crate) fn block_ratio(diffs: &[f64], tolerance: f64, alpha: f64) -> Option<BlockRatio> {
    if diffs.len() < 2 || diffs.iter().any(|d| !d.is_finite()) {
        return None;
    }
    let n = diffs.len() as f64;
    let df = n - 1.0;
    let center = mean(diffs);
    let se = (variance(diffs) / n).sqrt();
    let half = t_critical(alpha, df) * se;
    let excess = center - tolerance.ln();
    let p_beyond = if se > 0.0 {
        StudentsT::new(0.0, 1.0, df)
            .expect("degrees of freedom are positive")
            .sf(excess / se)
    } else if excess > 0.0 {
        0.0
    } else {
        1.0
    };
    Some(BlockRatio {
        ratio: center.exp(),
        ci: [(center - half).exp(), (center + half).exp()],
        p_beyond,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_blocks_are_decided_by_where_they_lie() {
        let ten = [10f64.ln(); 4];
        let found = block_ratio(&ten, 2.0, 0.05).unwrap();
        assert!((found.ratio - 10.0).abs() < 1e-9 && found.p_beyond == 0.0);
        assert_eq!(block_ratio(&[0.0; 3], 2.0, 0.05).unwrap().p_beyond, 1.0);
    }

    #[test]
    fn too_few_or_broken_blocks_give_nothing() {
        assert!(block_ratio(&[1.0], 2.0, 0.05).is_none());
        assert!(block_ratio(&[1.0, f64::NAN], 2.0, 0.05).is_none());
    }
}
