//! Latency histograms, in µs: the workers' own, which grow with the largest latency they
//! see up to a fixed ceiling instead of reserving the whole range up front (a thousand
//! workers answered in a millisecond then hold a few KB each, not 70); their merge into
//! one per round or per progress interval; and the encoding the results file keeps, from
//! which any percentile can be recomputed later.

use base64::Engine as _;
use hdrhistogram::Histogram;
use hdrhistogram::serialization::{Serializer as _, V2DeflateSerializer};

/// Highest latency a histogram holds, in µs (100 s); longer events are clamped to it.
pub(crate) const MAX_LATENCY_US: u64 = 100_000_000;

/// An empty histogram with `sigfig` significant digits.
pub(crate) fn worker(sigfig: u8) -> Histogram<u32> {
    Histogram::new(sigfig).expect("valid histogram precision")
}

/// Records `micros`, clamped to 1..=MAX_LATENCY_US; false when it had to be clamped
/// from above (or, impossibly, did not fit).
pub(crate) fn record(histogram: &mut Histogram<u32>, micros: u64) -> bool {
    // `record` grows the histogram to fit (`saturating_record` would clamp to its
    // current range instead); the clamp bounds that growth.
    let fits = histogram.record(micros.clamp(1, MAX_LATENCY_US)).is_ok();
    fits && micros <= MAX_LATENCY_US
}

/// An empty merge target for the whole latency range with `sigfig` significant digits.
pub(crate) fn merged(sigfig: u8) -> Histogram<u64> {
    Histogram::new_with_bounds(1, MAX_LATENCY_US, sigfig).expect("valid histogram bounds")
}

/// Adds every value of a worker's histogram to `merged`.
pub(crate) fn merge_into(merged: &mut Histogram<u64>, worker: &Histogram<u32>) {
    for value in worker.iter_recorded() {
        merged.saturating_record_n(value.value_iterated_to(), u64::from(value.count_at_value()));
    }
}

/// Serialises a histogram as HdrHistogram V2 deflate, base64.
pub(crate) fn encode(histogram: &Histogram<u64>) -> String {
    let mut bytes = Vec::new();
    match V2DeflateSerializer::new().serialize(histogram, &mut bytes) {
        Ok(_) => base64::engine::general_purpose::STANDARD.encode(bytes),
        Err(_) => String::new(),
    }
}

/// Reads a histogram written by [`encode`].
pub(crate) fn decode(encoded: &str) -> Option<Histogram<u64>> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .ok()?;
    hdrhistogram::serialization::Deserializer::new()
        .deserialize(&mut bytes.as_slice())
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grows_only_as_far_as_latencies_reach() {
        let mut latencies = worker(3);
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
