//! The workers' latency histograms, in µs. They grow with the largest latency they see,
//! up to a fixed ceiling, instead of reserving the whole range up front: a thousand
//! workers answered in a millisecond then hold a few KB each, not 70.

use hdrhistogram::Histogram;

/// Highest latency a histogram holds, in µs (100 s); longer events are clamped to it.
pub const MAX_LATENCY_US: u64 = 100_000_000;

/// An empty histogram with `sigfig` significant digits.
pub fn histogram(sigfig: u8) -> Histogram<u32> {
    Histogram::new(sigfig).expect("valid histogram precision")
}

/// Records `micros`, clamped to 1..=MAX_LATENCY_US; false when it had to be clamped
/// from above (or, impossibly, did not fit).
pub fn record(histogram: &mut Histogram<u32>, micros: u64) -> bool {
    // `record` grows the histogram to fit (`saturating_record` would clamp to its
    // current range instead); the clamp bounds that growth.
    let fits = histogram.record(micros.clamp(1, MAX_LATENCY_US)).is_ok();
    fits && micros <= MAX_LATENCY_US
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grows_only_as_far_as_latencies_reach() {
        let mut latencies = histogram(3);
        assert!(record(&mut latencies, 250));
        assert!(record(&mut latencies, 2_500));
        let small = latencies.distinct_values();
        assert!(!record(&mut latencies, MAX_LATENCY_US * 10));
        assert!(latencies.distinct_values() > small);
        assert_eq!(latencies.len(), 3);
        assert!(latencies.equivalent(latencies.value_at_quantile(0.5), 2_500));
        assert!(latencies.equivalent(latencies.max(), MAX_LATENCY_US));
        assert!(latencies.equivalent(latencies.min(), 250));
    }
}
