//! Behaviour of the whole analysis on simulated experiments drawn from known
//! distributions: the false-positive rate of A/A runs and the GO rate of the
//! non-inferiority verdict must be what theory says.

use rand::{Rng, SeedableRng, rngs::SmallRng};

use super::{AnalysisOptions, analyze};
use crate::side::Side;
use crate::stats::compare::{Sample, Unit};
use crate::stats::metric::Metric;
use crate::stats::verdict::Verdict;

fn options(max_tps_loss: Option<f64>) -> AnalysisOptions {
    AnalysisOptions {
        alpha: 0.05,
        max_tps_loss,
        max_latency_inflation: Default::default(),
        max_latency_inflation_all: None,
        max_error_rate: None,
        percentiles: vec![95.0],
        allow_result_diff: false,
        max_class_slowdown: None,
        blocking: Default::default(),
        adjust: Default::default(),
        verdict_alpha: None,
    }
}

/// Box–Muller normal draw.
fn normal(rng: &mut SmallRng, mean: f64, sd: f64) -> f64 {
    let (u1, u2): (f64, f64) = (rng.random_range(f64::EPSILON..1.0), rng.random());
    mean + sd * (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

/// One simulated experiment: `n` rounds per side of TPS with CV `cv`, variant mean
/// `ratio` times the baseline's.
fn experiment(rng: &mut SmallRng, n: u32, cv: f64, ratio: f64) -> Vec<Sample> {
    let mut samples = Vec::new();
    for index in 0..n {
        for (side, mean) in [(Side::Baseline, 5000.0), (Side::Variant, 5000.0 * ratio)] {
            samples.push(Sample {
                side,
                threads: 8,
                index,
                metric: Metric::Tps,
                value: normal(rng, mean, cv * mean),
                load: None,
            });
        }
    }
    samples
}

fn rate(runs: u32, mut hit: impl FnMut() -> bool) -> f64 {
    (0..runs).filter(|_| hit()).count() as f64 / f64::from(runs)
}

#[test]
fn aa_false_positive_rate_is_alpha() {
    let mut rng = SmallRng::seed_from_u64(2026);
    let opts = options(None);
    let fp = rate(1000, || {
        analyze(&experiment(&mut rng, 10, 0.03, 1.0), Unit::Round, &opts).comparisons[0].significant
    });
    assert!((0.03..=0.07).contains(&fp), "A/A false-positive rate {fp}");
}

#[test]
fn go_rate_follows_theory() {
    let mut rng = SmallRng::seed_from_u64(7);
    let opts = options(Some(0.05));
    // True change exactly at the 5 % margin: GO must be as rare as alpha (test size).
    let at_margin = rate(1000, || {
        analyze(&experiment(&mut rng, 10, 0.03, 0.95), Unit::Round, &opts).verdict
            == Some(Verdict::Go)
    });
    assert!(
        (0.03..=0.07).contains(&at_margin),
        "GO rate at the margin {at_margin}"
    );
    // No change, CV 3 %, 10 rounds: power ≈ Φ(0.05/(0.03·√0.2) − t₀.₉₅) ≈ 0.97.
    let no_change = rate(1000, || {
        analyze(&experiment(&mut rng, 10, 0.03, 1.0), Unit::Round, &opts).verdict
            == Some(Verdict::Go)
    });
    assert!(no_change > 0.93, "GO rate without change {no_change}");
    // A 10 % loss is NO-GO nearly always, never GO.
    let mut verdicts = (0..200)
        .map(|_| analyze(&experiment(&mut rng, 10, 0.03, 0.90), Unit::Round, &opts).verdict);
    assert!(verdicts.all(|v| v != Some(Verdict::Go)));
}

#[test]
fn not_significant_is_never_go() {
    // Noisy data with no visible change: INCONCLUSIVE, not GO.
    let mut rng = SmallRng::seed_from_u64(3);
    let opts = options(Some(0.05));
    let analysis = analyze(&experiment(&mut rng, 3, 0.30, 1.0), Unit::Round, &opts);
    assert_eq!(analysis.verdict, Some(Verdict::Inconclusive));
    assert!(
        analysis.comparisons[0]
            .power
            .unwrap()
            .rounds_needed
            .unwrap()
            > 3
    );
}

/// Rounds of TPS and error rate at 8 threads: (baseline tps, baseline rate, variant tps,
/// variant rate) per round.
fn rounds(values: &[(f64, f64, f64, f64)]) -> Vec<Sample> {
    let mut samples = Vec::new();
    for (index, &(bt, be, vt, ve)) in values.iter().enumerate() {
        for (side, metric, value) in [
            (Side::Baseline, Metric::Tps, bt),
            (Side::Baseline, Metric::ErrorRate, be),
            (Side::Variant, Metric::Tps, vt),
            (Side::Variant, Metric::ErrorRate, ve),
        ] {
            samples.push(Sample {
                side,
                threads: 8,
                index: index as u32,
                metric,
                value,
                load: None,
            });
        }
    }
    samples
}

fn with_error_limit(max_tps_loss: Option<f64>, limit: f64) -> AnalysisOptions {
    AnalysisOptions {
        max_error_rate: Some(limit),
        ..options(max_tps_loss)
    }
}

#[test]
fn an_error_rate_limit_is_judged_when_the_baseline_has_no_errors() {
    // The variant fails 44–46 % of its transactions; the baseline none.
    let data: Vec<_> = (1..=5)
        .map(|i| {
            let tps = 4990.0 + 3.0 * f64::from(i);
            (tps, 0.0, tps, 44.0 + f64::from(i % 3))
        })
        .collect();
    let samples = rounds(&data);
    let with_tps = analyze(&samples, Unit::Round, &with_error_limit(Some(0.05), 1.0));
    assert_eq!(with_tps.verdict, Some(Verdict::NoGo));
    let alone = analyze(&samples, Unit::Round, &with_error_limit(None, 1.0));
    assert_eq!(alone.verdict, Some(Verdict::NoGo));
    let rate = alone
        .comparisons
        .iter()
        .find(|c| c.metric == Metric::ErrorRate)
        .expect("the error rate is compared from a baseline of 0 %");
    assert!(
        (rate.change_pct - 45.2).abs() < 1e-9,
        "points: {}",
        rate.change_pct
    );
    // No errors at all on the variant is within any limit.
    let clean: Vec<_> = data.iter().map(|&(b, _, v, _)| (b, 0.0, v, 0.0)).collect();
    let clean = analyze(&rounds(&clean), Unit::Round, &with_error_limit(None, 1.0));
    assert_eq!(clean.verdict, Some(Verdict::Go));
}

#[test]
fn an_error_rate_without_variation_is_named_not_judged() {
    let data: Vec<_> = (1..=5)
        .map(|i| (4990.0 + f64::from(i), 0.0, 4990.0 + f64::from(i), 45.0))
        .collect();
    let analysis = analyze(
        &rounds(&data),
        Unit::Round,
        &with_error_limit(Some(0.05), 1.0),
    );
    assert_eq!(analysis.verdict, Some(Verdict::Inconclusive));
    assert!(
        analysis.unchecked[0].contains("no variation between rounds"),
        "{:?}",
        analysis.unchecked
    );
}

#[test]
fn zero_variance_is_never_certain() {
    let data = [(100.0, 0.0, 96.0, 0.0), (100.0, 0.0, 96.0, 0.0)];
    let analysis = analyze(&rounds(&data), Unit::Round, &options(Some(0.05)));
    assert_eq!(analysis.verdict, Some(Verdict::Inconclusive));
    assert!(
        analysis.unchecked[0]
            .contains("no variation between rounds on the baseline and the variant"),
        "{:?}",
        analysis.unchecked
    );
    // One flat side is enough to refuse a verdict.
    let data = [
        (100.0, 0.0, 96.0, 0.0),
        (100.0, 0.0, 97.0, 0.0),
        (100.0, 0.0, 95.0, 0.0),
    ];
    let analysis = analyze(&rounds(&data), Unit::Round, &options(Some(0.05)));
    assert_eq!(analysis.verdict, Some(Verdict::Inconclusive));
}
