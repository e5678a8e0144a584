//! Checks every statistic against reference values computed by scipy/statsmodels
//! (tests/reference/make_stats_cases.py), plus the edge cases the references skip.

use serde::Deserialize;

use super::fieller::fieller;
use super::holm::holm;
use super::paired::paired_ratio_ci;
use super::summary::Summary;
use super::welch::welch;

#[derive(Deserialize)]
struct Reference {
    cases: Vec<Case>,
    holm: Vec<HolmCase>,
    nested: Vec<NestedCase>,
    power: PowerReference,
    adjusted: Vec<AdjustedCase>,
    block_ratio: Vec<BlockRatioCase>,
}

/// Blocks of a query class's log-latency differences, with scipy's one-sample t test
/// against the log of the tolerance and its interval, as ratios.
#[derive(Deserialize)]
struct BlockRatioCase {
    diffs: Vec<f64>,
    tolerance: f64,
    ratio: f64,
    ci: [f64; 2],
    p_beyond: f64,
}

/// ABBA blocks (two rounds per side each) with each round's load, and statsmodels OLS of
/// the blocks' log ratios on their load differences.
#[derive(Deserialize)]
struct AdjustedCase {
    x: Vec<f64>,
    y: Vec<f64>,
    load_x: Vec<f64>,
    load_y: Vec<f64>,
    intercept: f64,
    se: f64,
    p: f64,
    ci: [f64; 2],
    slope: f64,
    r2: f64,
}

/// scipy.stats.nct tail probabilities and the rounds per side its power plans.
#[derive(Deserialize)]
struct PowerReference {
    sf: Vec<NctCase>,
    plans: Vec<PlanCase>,
}

#[derive(Deserialize)]
struct NctCase {
    t: f64,
    df: f64,
    nc: f64,
    sf: f64,
}

#[derive(Deserialize)]
struct PlanCase {
    cv: f64,
    effect: f64,
    one_sided: bool,
    rounds: u32,
    power_at_2: f64,
}

/// Rounds grouped by server instance, with statsmodels' REML variance components.
#[derive(Deserialize)]
struct NestedCase {
    groups: Vec<Vec<f64>>,
    between_var: f64,
    within_var: f64,
}

#[derive(Deserialize)]
struct Case {
    name: String,
    alpha: f64,
    x: Vec<f64>,
    y: Vec<f64>,
    t: f64,
    df: f64,
    p: f64,
    ci_diff: [f64; 2],
    fieller: Option<[f64; 2]>,
    paired: Option<[f64; 2]>,
}

#[derive(Deserialize)]
struct HolmCase {
    p: Vec<f64>,
    holm: Vec<f64>,
}

fn reference() -> Reference {
    serde_json::from_str(include_str!("../../tests/reference/stats_cases.json"))
        .expect("reference file parses")
}

fn assert_close(name: &str, what: &str, actual: f64, expected: f64) {
    let scale = expected.abs().max(1e-300);
    let relative = (actual - expected).abs() / scale;
    assert!(
        relative < 1e-6 || (actual - expected).abs() < 1e-300,
        "{name}: {what} = {actual}, reference {expected} (relative error {relative:e})"
    );
}

#[test]
fn class_timing_block_ratios_match_scipy() {
    for (i, case) in reference().block_ratio.iter().enumerate() {
        let name = format!("block ratio case {i}");
        let found = super::block_ratio::block_ratio(&case.diffs, case.tolerance, 0.05).unwrap();
        assert_close(&name, "ratio", found.ratio, case.ratio);
        assert_close(&name, "ci low", found.ci[0], case.ci[0]);
        assert_close(&name, "ci high", found.ci[1], case.ci[1]);
        assert_close(&name, "p beyond", found.p_beyond, case.p_beyond);
    }
}

#[test]
fn blocks_adjusted_for_the_host_load_match_statsmodels_ols() {
    use super::blocked::{BlockEstimate, Blocking};
    let indexed = |values: &[f64]| -> Vec<(u32, f64)> {
        values
            .iter()
            .enumerate()
            .map(|(i, v)| (i as u32, *v))
            .collect()
    };
    for (i, case) in reference().adjusted.iter().enumerate() {
        let name = format!("adjusted case {i}");
        let [x, y, lx, ly] = [&case.x, &case.y, &case.load_x, &case.load_y].map(|v| indexed(v));
        let e = BlockEstimate::regressed(&x, &y, Blocking::Blocks, [&lx, &ly]).unwrap();
        let adjustment = e.adjustment.expect("four blocks or more are adjusted");
        assert_eq!(e.blocks, case.x.len() / 2, "{name}");
        assert_close(&name, "intercept", e.mean_log, case.intercept);
        assert_close(&name, "se", e.se_log, case.se);
        assert_close(&name, "p", e.p(), case.p);
        assert_close(&name, "slope", adjustment.slope, case.slope);
        assert_close(&name, "R²", adjustment.explained, case.r2);
        let [lo, hi] = e.bounds(0.05).map(f64::ln);
        assert_close(&name, "ci low", lo, case.ci[0]);
        assert_close(&name, "ci high", hi, case.ci[1]);
    }
}

#[test]
fn instance_variance_components_match_statsmodels_mixedlm() {
    for (i, case) in reference().nested.iter().enumerate() {
        let name = format!("nested case {i}");
        let components = super::components::Components::of(&case.groups).unwrap();
        // REML's optimiser stops near 1e-6 relative; the method of moments is exact.
        let close = |what: &str, actual: f64, expected: f64| {
            let relative = (actual - expected).abs() / expected.abs();
            assert!(
                relative < 1e-4,
                "{name}: {what} = {actual}, statsmodels {expected}"
            );
        };
        if case.between_var < 1e-3 * case.within_var {
            // At the boundary REML stops just above 0 where the moments estimate is
            // negative and truncated: both say there is no instance effect.
            // With (almost) no instance term, REML's two components add up to the
            // pooled variance of all rounds.
            assert_eq!(components.between_var, 0.0, "{name}");
            let pooled = Summary::of(&case.groups.concat()).sd.powi(2);
            let total = case.between_var + case.within_var;
            assert!(
                (pooled - total).abs() / total < 1e-3,
                "{name}: {pooled} vs {total}"
            );
        } else {
            close("between", components.between_var, case.between_var);
            close("within", components.within_var, case.within_var);
        }
        assert_eq!(components.instances as usize, case.groups.len());
    }
}

#[test]
fn welch_matches_scipy() {
    for case in reference().cases {
        let (x, y) = (Summary::of(&case.x), Summary::of(&case.y));
        let w = welch(&x, &y, case.alpha);
        assert_close(&case.name, "t", w.t.unwrap(), case.t);
        assert_close(&case.name, "df", w.df.unwrap(), case.df);
        assert_close(&case.name, "p", w.p, case.p);
        assert_close(&case.name, "ci low", w.ci[0], case.ci_diff[0]);
        assert_close(&case.name, "ci high", w.ci[1], case.ci_diff[1]);
    }
}

#[test]
fn fieller_matches_closed_form_and_inversion() {
    let cases = reference().cases;
    assert!(
        cases.iter().any(|c| c.fieller.is_none()),
        "the references include unbounded cases"
    );
    for case in cases {
        let r = fieller(&Summary::of(&case.x), &Summary::of(&case.y), case.alpha);
        match (r.bounds, case.fieller) {
            (Some(actual), Some(expected)) => {
                assert_close(&case.name, "fieller low", actual[0], expected[0]);
                assert_close(&case.name, "fieller high", actual[1], expected[1]);
            }
            (None, None) => {}
            (actual, expected) => {
                panic!("{}: fieller {actual:?}, reference {expected:?}", case.name)
            }
        }
    }
}

#[test]
fn paired_matches_reference() {
    for case in reference().cases {
        let actual = paired_ratio_ci(&case.x, &case.y, case.alpha);
        match (actual, case.paired) {
            (Some(a), Some(e)) => {
                assert_close(&case.name, "paired low", a[0], e[0]);
                assert_close(&case.name, "paired high", a[1], e[1]);
            }
            (a, e) => assert_eq!(a.is_some(), e.is_some(), "{}", case.name),
        }
    }
}

#[test]
fn holm_matches_statsmodels() {
    for case in reference().holm {
        let adjusted = holm(&case.p);
        assert_eq!(adjusted.len(), case.holm.len(), "one adjusted p per p");
        for (actual, expected) in adjusted.iter().zip(&case.holm) {
            assert_close("holm", "p", *actual, *expected);
        }
    }
}

#[test]
fn design_test_vector() {
    let case = &reference().cases[0];
    assert_eq!(case.name, "design-vector");
    let (x, y) = (Summary::of(&case.x), Summary::of(&case.y));
    let w = welch(&x, &y, 0.05);
    assert!((w.t.unwrap() - -11.4490).abs() < 1e-4);
    assert!((w.df.unwrap() - 17.978).abs() < 1e-3);
    let [lo, hi] = fieller(&x, &y, 0.05).percent_bounds().unwrap();
    assert!(
        (lo - -3.257).abs() < 1e-3 && (hi - -2.259).abs() < 1e-3,
        "{lo} {hi}"
    );
    let [plo, phi] = paired_ratio_ci(&case.x, &case.y, 0.05).unwrap();
    assert!(
        (100.0 * (plo - 1.0) - -2.868).abs() < 1e-3 && (100.0 * (phi - 1.0) - -2.650).abs() < 1e-3
    );
}

#[test]
fn zero_variance_on_both_sides_is_exact() {
    let x = Summary::of(&[100.0, 100.0, 100.0]);
    let y = Summary::of(&[90.0, 90.0, 90.0]);
    let w = welch(&x, &y, 0.05);
    assert_eq!((w.t, w.df, w.p, w.ci), (None, None, 0.0, [-10.0, -10.0]));
    let r = fieller(&x, &y, 0.05);
    assert_eq!(r.bounds, Some([0.9, 0.9]));
}

#[test]
fn identical_samples_give_no_difference() {
    let values = [10.0, 11.0, 12.0, 13.0];
    let s = Summary::of(&values);
    let w = welch(&s, &s, 0.05);
    assert_eq!(w.t, Some(0.0));
    assert!((w.p - 1.0).abs() < 1e-12);
    let [lo, hi] = fieller(&s, &s, 0.05).bounds.unwrap();
    assert!(lo < 1.0 && hi > 1.0);
    let [plo, phi] = paired_ratio_ci(&values, &values, 0.05).unwrap();
    assert_eq!((plo, phi), (1.0, 1.0));
}

#[test]
fn zero_variance_on_one_side_uses_the_other() {
    let x = Summary::of(&[100.0, 100.0, 100.0]);
    let y = Summary::of(&[90.0, 92.0, 94.0]);
    let w = welch(&x, &y, 0.05);
    assert!((w.df.unwrap() - 2.0).abs() < 1e-12);
    assert!(fieller(&x, &y, 0.05).bounds.is_some());
}

#[test]
fn baseline_mean_not_clearly_positive_is_unbounded() {
    let x = Summary::of(&[1.0, -1.0, 2.0, -2.0]);
    let y = Summary::of(&[5.0, 6.0, 7.0, 8.0]);
    let r = fieller(&x, &y, 0.05);
    assert!(r.bounds.is_none());
    assert!(r.percent_bounds().is_none());
    let small = Summary::of(&[1.0, -1.0, 2.0, -1.5]);
    assert!(fieller(&small, &y, 0.05).bounds.is_none());
}

#[test]
fn two_rounds_per_side_are_enough() {
    let x = Summary::of(&[100.0, 104.0]);
    let y = Summary::of(&[80.0, 83.0]);
    let w = welch(&x, &y, 0.05);
    assert!(w.df.unwrap() > 1.0 && w.p < 1.0);
}

/// The reproducer of 1e200 (a panic) and 1e-90 (p = 0, a zero-width interval): the
/// answers in relative terms are those of the same data near 1.
#[test]
fn huge_and_tiny_values_give_the_answers_of_values_near_one() {
    let (x, y) = ([1.0, 3.0], [2.0, 1.0]);
    let reference = (
        welch(&Summary::of(&x), &Summary::of(&y), 0.05),
        fieller(&Summary::of(&x), &Summary::of(&y), 0.05),
        paired_ratio_ci(&x, &y, 0.05),
    );
    for scale in [1e200, 1e-90, 1e-300, 1e300] {
        let (xs, ys) = (x.map(|v| v * scale), y.map(|v| v * scale));
        let (bx, by) = (Summary::of(&xs), Summary::of(&ys));
        let w = welch(&bx, &by, 0.05);
        assert!((w.p - reference.0.p).abs() < 1e-12, "{scale}: p {}", w.p);
        assert!(w.df.is_some(), "{scale}");
        assert!((w.df.unwrap() - reference.0.df.unwrap()).abs() < 1e-9);
        for (bound, expected) in w.ci.iter().zip(reference.0.ci) {
            assert!(
                (bound / scale - expected).abs() < 1e-9,
                "{scale}: {:?}",
                w.ci
            );
        }
        let r = fieller(&bx, &by, 0.05);
        assert!((r.ratio - reference.1.ratio).abs() < 1e-12);
        assert_eq!(r.bounds.is_some(), reference.1.bounds.is_some(), "{scale}");
        let p = paired_ratio_ci(&xs, &ys, 0.05);
        assert_eq!(p.is_some(), reference.2.is_some(), "{scale}");
        if let (Some(a), Some(b)) = (p, reference.2) {
            assert!((a[0] - b[0]).abs() < 1e-9 && (a[1] - b[1]).abs() < 1e-9);
        }
    }
}

#[test]
fn a_baseline_of_zero_gives_no_percent_change() {
    use crate::side::Side;
    use crate::stats::compare::{Sample, compare};
    use crate::stats::metric::Metric;
    let sample = |side, index, metric: Metric, value| Sample {
        side,
        threads: 2,
        index,
        metric,
        value,
        load: None,
    };
    let mut samples = Vec::new();
    for index in 0..3 {
        samples.push(sample(
            Side::Baseline,
            index,
            Metric::Tps,
            100.0 + f64::from(index),
        ));
        samples.push(sample(
            Side::Variant,
            index,
            Metric::Tps,
            99.0 + f64::from(index),
        ));
        samples.push(sample(Side::Baseline, index, Metric::ThreadsRunning, 0.0));
        samples.push(sample(
            Side::Variant,
            index,
            Metric::ThreadsRunning,
            f64::from(index),
        ));
    }
    let comparisons = compare(
        &samples,
        0.05,
        crate::stats::blocked::Blocking::Rounds,
        crate::stats::blocked::Adjust::None,
    );
    assert_eq!(comparisons.len(), 1, "{comparisons:?}");
    assert!(comparisons[0].change_pct.is_finite());
}

#[test]
fn t_power_matches_scipy_nct() {
    use super::power::{Test, noncentral_t_sf, rounds_needed, t_power};
    let reference = reference().power;
    for case in &reference.sf {
        let actual = noncentral_t_sf(case.t, case.df, case.nc);
        assert!(
            (actual - case.sf).abs() < 1e-7,
            "nct.sf({}, {}, {}) = {actual}, scipy {}",
            case.t,
            case.df,
            case.nc,
            case.sf
        );
    }
    for case in &reference.plans {
        let test = if case.one_sided {
            Test::Verdict
        } else {
            Test::Significance
        };
        let name = format!("cv {} effect {} {test:?}", case.cv, case.effect);
        assert_eq!(
            rounds_needed(case.cv, case.effect, 0.05, 0.8, test),
            Some(case.rounds),
            "{name}"
        );
        let at_2 = t_power(case.cv, 2, case.effect, 0.05, test);
        assert!(
            (at_2 - case.power_at_2).abs() < 1e-7,
            "{name}: {at_2} vs {}",
            case.power_at_2
        );
    }
}
