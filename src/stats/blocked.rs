//! The analysis that follows the design. Rounds run in an order that is chosen to cancel
//! the machine's drift: in ABBA order every block of four rounds (A B B A A B B A …)
//! has the same centre of time on both sides, so a linear trend inside the block drops
//! out of the ratio of the block's side means. Welch on rounds treats the rounds as
//! independent and pays for the drift in its variance; comparing the sides block by block
//! does not. The unit of the confirmatory analysis is therefore the block for `abba`, the
//! adjacent pair for `abab`, and the round (Welch/Fieller) for `random`. Which one is
//! fixed by the order before any data are seen, never by which interval is narrower.
//!
//! Each block b gives d_b = ln(ȳ_b / x̄_b), the log of the ratio of the side means within
//! it. The change is exp(d̄) − 1 and its interval exp(d̄ ± t(1 − α/2, B − 1)·s_d/√B): a
//! paired t interval over B blocks, on the log scale so that it is a ratio like
//! Fieller's. A run with fewer than two blocks with both sides has no block interval and
//! is analysed by rounds, a rule fixed by the count alone.
//!
//! On a shared host most of what is left is the neighbours: a block in which the
//! variant's rounds met busier neighbours than the baseline's comes out slower. Every
//! round records the CPU the machine's other processes used (`host_load::OthersCpu`), so
//! with `--adjust host-load` (opt-in) each block also gives c_b, the variant rounds' mean
//! of that CPU less the baseline rounds', and the estimate is the intercept of the
//! least-squares line d_b = δ + β·c_b: the change at equal load (CUPED-style regression
//! adjustment, t on B − 2 degrees of freedom). That is only honest when the side under
//! test does not move the neighbours' CPU, and it can: a slower variant leaves CPU idle
//! and a CPU-bound neighbour takes it, so the regression reads the variant's own
//! slowness as the neighbour's fault. The covariate is measured under treatment, which
//! is why it is not the default. An adjustment is made only after a balance check (the
//! mean of c_b indistinguishable from zero at `BALANCE_LEVEL`); when the check fails the
//! estimate carries the imbalance and decides nothing — falling back to the plain mean
//! exactly when the load happened to differ would pick the blocks where it is most off.
//! A shift smaller than the check can see still biases the adjusted estimate; the
//! simulation in `runner::simulation_tests` measures how much.

use serde::{Deserialize, Serialize};

use super::summary::{mean, variance};
use super::{t_critical, two_sided_p};

/// The unit of the confirmatory analysis.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Blocking {
    /// Rounds as independent values: Welch's test and Fieller's interval. Files saved
    /// before the analysis followed the design are read this way, as they were analysed.
    #[default]
    Rounds,
    /// Adjacent pairs of rounds (`abab`): round k of each side.
    Pairs,
    /// ABBA blocks: rounds 2j and 2j + 1 of each side.
    Blocks,
}

impl Blocking {
    /// Rounds per side in one unit of the analysis, `None` for independent rounds.
    pub(crate) fn rounds_per_block(self) -> Option<u32> {
        match self {
            Blocking::Rounds => None,
            Blocking::Pairs => Some(1),
            Blocking::Blocks => Some(2),
        }
    }

    /// The unit in words, plural: "ABBA blocks", "adjacent pairs".
    pub(crate) fn plural(self) -> &'static str {
        match self {
            Blocking::Rounds => "rounds",
            Blocking::Pairs => "adjacent pairs of rounds",
            Blocking::Blocks => "ABBA blocks",
        }
    }
}

/// Whether blocks are adjusted for the host's load. Fixed with the plan, before any data
/// are seen; files saved without it were not adjusted and are read that way.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Adjust {
    /// The blocks' log ratios as they are.
    #[default]
    None,
    /// Regressed on the other processes' CPU, when it varied (`MIN_LOAD_SPREAD`).
    HostLoad,
}

impl crate::named::Named for Adjust {
    const NAMES: &'static [(Adjust, &'static str, &'static str)] = &[
        (
            Adjust::HostLoad,
            "host-load",
            "The CPU the machine's other processes used in each round",
        ),
        (
            Adjust::None,
            "none",
            "Nothing: the blocks' log ratios as they are",
        ),
    ];
}

crate::named::from_names!(Adjust);

/// The change estimated block by block: the mean and standard error of the blocks' log
/// ratios, or the intercept and its standard error when adjusted for the host's load.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub(crate) struct BlockEstimate {
    /// The unit the blocks are.
    pub(crate) blocking: Blocking,
    /// Blocks with rounds of both sides.
    pub(crate) blocks: usize,
    /// Mean of ln(ȳ_b / x̄_b) (the intercept δ when adjusted).
    pub(crate) mean_log: f64,
    /// Its standard error, s_d / √B (the intercept's when adjusted).
    pub(crate) se_log: f64,
    /// Mean of ln x̄_b, the baseline's block means: exp of it is the baseline figure the
    /// change is computed from (the variant's is that times exp(mean_log)).
    #[serde(default)]
    pub(crate) baseline_log_mean: f64,
    /// The adjustment for the other processes' CPU, when the analysis made one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) adjustment: Option<LoadAdjustment>,
    /// Why an adjustment that was asked for was refused: the side moved the load.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) imbalance: Option<LoadImbalance>,
}

/// The balance check an adjustment for the host's load must pass: the blocks' load
/// differences c_b must be consistent with a mean of zero, since the adjustment reads
/// the change at c = 0 and a side that moves its neighbours' CPU would have part of its
/// own effect subtracted.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub(crate) struct LoadImbalance {
    /// The mean of c_b, points of the machine's CPU.
    pub(crate) mean_load_difference: f64,
    /// Its standard error.
    pub(crate) se: f64,
    /// The two-sided p-value of a mean of zero (t on B − 1 degrees of freedom).
    pub(crate) p: f64,
}

/// What adjusting for the host's load did to a block estimate.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub(crate) struct LoadAdjustment {
    /// Change of a block's log ratio per point (% of the machine's CPU) the other
    /// processes used more during its variant rounds than during its baseline rounds.
    pub(crate) slope: f64,
    /// The blocks' mean difference in the other processes' CPU, points: near zero
    /// unless the side under test moves its neighbours.
    pub(crate) mean_load_difference: f64,
    /// The share of the blocks' variance the load explains (R²).
    pub(crate) explained: f64,
    /// The unadjusted estimate: mean and standard error of the log ratios.
    pub(crate) unadjusted: [f64; 2],
}

/// Fewest blocks an adjusted estimate is made from (two degrees of freedom).
const MIN_ADJUSTED_BLOCKS: usize = 4;

/// The least standard deviation of the blocks' load differences, in points of the
/// machine's CPU, that an adjustment is made for. On a quiet host the other processes
/// use a fraction of a point and the regression would only cost a degree of freedom.
/// The rule reads the load alone, never the results: under no change, choosing the
/// model by the covariate leaves the t test conditional on it exact.
const MIN_LOAD_SPREAD: f64 = 1.0;

/// The balance check's level: an adjustment is refused when the blocks' mean load
/// difference is distinguishable from zero at p below it. Generous on purpose: a refusal
/// costs only the adjustment's narrower interval, an adjustment of a moved load costs
/// the truth.
const BALANCE_LEVEL: f64 = 0.2;

/// Whether an adjustment checks the balance of the load first (always, but in the test
/// of the regression against its reference).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Balance {
    Checked,
    #[cfg_attr(not(test), allow(dead_code))]
    Unchecked,
}

/// Each block's value: the ratio's log, the baseline's block mean's log and, if every
/// round has it, the load difference.
struct BlockValue {
    log_ratio: f64,
    baseline_log: f64,
    load_difference: Option<f64>,
}

impl BlockEstimate {
    /// The estimate from each side's (round index, value) pairs, or `None` when fewer
    /// than two blocks have rounds of both sides, a block's mean is not positive, or the
    /// block ratios do not vary at all (no interval is honest then). With `load`, each
    /// side's (round index, other processes' CPU %), it is adjusted for the host's load
    /// when every block has it, four blocks do and the load differences vary by at least
    /// `MIN_LOAD_SPREAD`.
    pub(crate) fn of(
        x: &[(u32, f64)],
        y: &[(u32, f64)],
        blocking: Blocking,
        load: Option<[&[(u32, f64)]; 2]>,
    ) -> Option<BlockEstimate> {
        Self::estimate(x, y, blocking, load, Balance::Checked)
    }

    /// [`BlockEstimate::of`] with the regression made whatever the balance, so that the
    /// regression itself can be checked against a reference.
    #[cfg(test)]
    pub(crate) fn regressed(
        x: &[(u32, f64)],
        y: &[(u32, f64)],
        blocking: Blocking,
        load: [&[(u32, f64)]; 2],
    ) -> Option<BlockEstimate> {
        Self::estimate(x, y, blocking, Some(load), Balance::Unchecked)
    }

    fn estimate(
        x: &[(u32, f64)],
        y: &[(u32, f64)],
        blocking: Blocking,
        load: Option<[&[(u32, f64)]; 2]>,
        balance: Balance,
    ) -> Option<BlockEstimate> {
        let values = block_values(x, y, blocking, load)?;
        let logs: Vec<f64> = values.iter().map(|b| b.log_ratio).collect();
        if logs.len() < 2 || logs.iter().any(|d| !d.is_finite()) {
            return None;
        }
        let se_log = (variance(&logs) / logs.len() as f64).sqrt();
        let baselines: Vec<f64> = values.iter().map(|b| b.baseline_log).collect();
        let plain = (se_log > 0.0).then(|| BlockEstimate {
            blocking,
            blocks: logs.len(),
            mean_log: mean(&logs),
            se_log,
            baseline_log_mean: mean(&baselines),
            adjustment: None,
            imbalance: None,
        })?;
        let loads: Option<Vec<f64>> = values.iter().map(|b| b.load_difference).collect();
        Some(match loads {
            Some(loads) => plain.adjusted(&logs, &loads, balance),
            None => plain,
        })
    }

    /// The baseline and variant figures the change is computed from: the geometric means
    /// of the side's block means, so that variant / baseline − 1 is the change exactly
    /// (with an adjustment, the variant's is the baseline's times the adjusted ratio).
    pub(crate) fn side_figures(&self) -> [f64; 2] {
        let baseline = self.baseline_log_mean.exp();
        [baseline, baseline * self.mean_log.exp()]
    }

    /// This estimate adjusted for the blocks' load differences `loads`: the intercept of
    /// the least-squares line of `logs` on them. Itself when there are too few blocks or
    /// nothing to regress on, and itself with the imbalance when the balance check fails.
    fn adjusted(self, logs: &[f64], loads: &[f64], balance: Balance) -> BlockEstimate {
        let n = logs.len();
        if n < MIN_ADJUSTED_BLOCKS || loads.iter().any(|c| !c.is_finite()) {
            return self;
        }
        let (mean_load, mean_log) = (mean(loads), mean(logs));
        let sxx: f64 = loads.iter().map(|c| (c - mean_load).powi(2)).sum();
        if sxx <= 0.0 || (sxx / (n - 1) as f64).sqrt() < MIN_LOAD_SPREAD {
            return self;
        }
        let balance_se = (sxx / (n - 1) as f64 / n as f64).sqrt();
        let balance_p = two_sided_p(mean_load / balance_se, (n - 1) as f64);
        if balance == Balance::Checked && balance_p < BALANCE_LEVEL {
            return BlockEstimate {
                imbalance: Some(LoadImbalance {
                    mean_load_difference: mean_load,
                    se: balance_se,
                    p: balance_p,
                }),
                ..self
            };
        }
        let sxy: f64 = loads
            .iter()
            .zip(logs)
            .map(|(c, d)| (c - mean_load) * (d - mean_log))
            .sum();
        let slope = sxy / sxx;
        let intercept = mean_log - slope * mean_load;
        let residual: f64 = loads
            .iter()
            .zip(logs)
            .map(|(c, d)| (d - intercept - slope * c).powi(2))
            .sum();
        let total = variance(logs) * (n - 1) as f64;
        let s2 = residual / (n - 2) as f64;
        let se_log = (s2 * (1.0 / n as f64 + mean_load * mean_load / sxx)).sqrt();
        if se_log <= 0.0 {
            return self;
        }
        BlockEstimate {
            mean_log: intercept,
            se_log,
            adjustment: Some(LoadAdjustment {
                slope,
                mean_load_difference: mean_load,
                explained: 1.0 - residual / total,
                unadjusted: [self.mean_log, self.se_log],
            }),
            ..self
        }
    }

    /// The estimate before its adjustment for the host's load, if it was adjusted.
    pub(crate) fn unadjusted(&self) -> Option<BlockEstimate> {
        let [mean_log, se_log] = self.adjustment?.unadjusted;
        Some(BlockEstimate {
            mean_log,
            se_log,
            adjustment: None,
            ..*self
        })
    }

    /// Degrees of freedom: B − 1, or B − 2 when adjusted.
    pub(crate) fn df(&self) -> f64 {
        let estimated = if self.adjustment.is_some() { 2.0 } else { 1.0 };
        self.blocks as f64 - estimated
    }

    /// The change in %, 100(exp(d̄) − 1).
    pub(crate) fn change_pct(&self) -> f64 {
        100.0 * (self.mean_log.exp() - 1.0)
    }

    /// The (1 − alpha) interval of the ratio.
    pub(crate) fn bounds(&self, alpha: f64) -> [f64; 2] {
        let half = t_critical(alpha, self.df()) * self.se_log;
        [(self.mean_log - half).exp(), (self.mean_log + half).exp()]
    }

    /// The (1 − alpha) interval of the change in %.
    pub(crate) fn percent_bounds(&self, alpha: f64) -> [f64; 2] {
        self.bounds(alpha).map(|r| 100.0 * (r - 1.0))
    }

    /// The two-sided p-value of no change.
    pub(crate) fn p(&self) -> f64 {
        two_sided_p(self.mean_log / self.se_log, self.df())
    }
}

/// The blocks that have rounds of both sides, in order, with their load differences when
/// `load` is given. `None` for independent rounds.
fn block_values(
    x: &[(u32, f64)],
    y: &[(u32, f64)],
    blocking: Blocking,
    load: Option<[&[(u32, f64)]; 2]>,
) -> Option<Vec<BlockValue>> {
    let size = blocking.rounds_per_block()?;
    let last = x.iter().chain(y).map(|(index, _)| index / size).max()?;
    let block_mean = |side: &[(u32, f64)], block: u32| {
        let values: Vec<f64> = side
            .iter()
            .filter(|(index, _)| index / size == block)
            .map(|(_, v)| *v)
            .collect();
        (!values.is_empty()).then(|| mean(&values))
    };
    let rounds_in = |side: &[(u32, f64)], block: u32| {
        side.iter()
            .filter(|(index, _)| index / size == block)
            .count()
    };
    let load_difference = |block: u32| {
        let [lx, ly] = load?;
        // The load must be known for every round the block's means are made of.
        let complete = rounds_in(lx, block) == rounds_in(x, block)
            && rounds_in(ly, block) == rounds_in(y, block);
        complete.then_some(block_mean(ly, block)? - block_mean(lx, block)?)
    };
    Some(
        (0..=last)
            .filter_map(|block| {
                let (a, b) = (block_mean(x, block)?, block_mean(y, block)?);
                Some(BlockValue {
                    log_ratio: (b / a).ln(),
                    baseline_log: a.ln(),
                    load_difference: load_difference(block),
                })
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn indexed(values: &[f64]) -> Vec<(u32, f64)> {
        values
            .iter()
            .enumerate()
            .map(|(i, v)| (i as u32, *v))
            .collect()
    }

    #[test]
    fn abba_blocks_pair_rounds_two_by_two() {
        // Blocks: x (100, 102) (104, 106), y (110, 112) (114, 118).
        let x = indexed(&[100.0, 102.0, 104.0, 106.0]);
        let y = indexed(&[110.0, 112.0, 114.0, 118.0]);
        let e = BlockEstimate::of(&x, &y, Blocking::Blocks, None).unwrap();
        assert_eq!(e.blocks, 2);
        let d = [(111.0f64 / 101.0).ln(), (116.0f64 / 105.0).ln()];
        assert!((e.mean_log - (d[0] + d[1]) / 2.0).abs() < 1e-15);
        assert!((e.se_log - (d[0] - d[1]).abs() / 2.0).abs() < 1e-15);
        // scipy.stats.ttest_1samp(d, 0): t = 37.1712, df 1, p = 0.0171226.
        assert!((e.p() - 0.017_122_56).abs() < 1e-8, "{}", e.p());
        assert!((e.mean_log / e.se_log - 37.171_208_6).abs() < 1e-6);
    }

    #[test]
    fn pairs_are_rounds_and_a_missing_round_leaves_its_block_out() {
        let x = vec![(0, 100.0), (1, 100.0), (2, 100.0)];
        let y = vec![(0, 105.0), (2, 110.0)];
        let e = BlockEstimate::of(&x, &y, Blocking::Pairs, None).unwrap();
        assert_eq!(e.blocks, 2);
        assert!(BlockEstimate::of(&x, &y, Blocking::Rounds, None).is_none());
        // One ABBA block only: no interval.
        assert!(BlockEstimate::of(&x[..2], &y[..1], Blocking::Blocks, None).is_none());
    }

    #[test]
    fn a_linear_drift_cancels_within_abba_blocks() {
        // Time runs A B B A A B B A; both sides drift by 10 per slot, the variant is 5 %
        // faster (with a little jitter). Welch on rounds sees the drift as noise; the blocks do not see it.
        let slots = ["A", "B", "B", "A", "A", "B", "B", "A", "A", "B", "B", "A"];
        let (mut x, mut y) = (Vec::new(), Vec::new());
        for (t, side) in slots.iter().enumerate() {
            let jitter = if t % 3 == 0 { 1.0 } else { -0.5 };
            let level = 1000.0 + 10.0 * t as f64 + jitter;
            if *side == "A" {
                x.push((x.len() as u32, level));
            } else {
                y.push((y.len() as u32, 1.05 * level));
            }
        }
        let e = BlockEstimate::of(&x, &y, Blocking::Blocks, None).unwrap();
        let [lo, hi] = e.percent_bounds(0.05);
        assert!(lo > 4.5 && hi < 5.5, "[{lo}, {hi}]");
        let rounds = |side: &[(u32, f64)]| {
            super::super::summary::Summary::of(&side.iter().map(|(_, v)| *v).collect::<Vec<_>>())
        };
        let welch = super::super::fieller::fieller(&rounds(&x), &rounds(&y), 0.05);
        let [wlo, whi] = welch.percent_bounds().unwrap();
        assert!(
            whi - wlo > 4.0 * (hi - lo),
            "[{wlo}, {whi}] against [{lo}, {hi}]"
        );
    }

    /// A seeded simulation of ABBA blocks on a shared host: each round meets a load L
    /// (points of the machine's CPU) drawn per round, and its TPS is
    /// exp(slope·L + noise). Returns (A/A significant, GO at exactly the tolerance,
    /// mean half-width in %, share adjusted) over `runs` runs of `blocks` blocks.
    fn simulate(runs: u32, blocks: u32, load_sd: f64, slope: f64, adjust: bool) -> [f64; 4] {
        use rand::{Rng, SeedableRng, rngs::SmallRng};
        let mut rng = SmallRng::seed_from_u64(20_261_202);
        let mut normal = |sd: f64| {
            let (u1, u2): (f64, f64) = (rng.random_range(f64::EPSILON..1.0), rng.random());
            sd * (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
        };
        let (mut significant, mut go, mut width, mut adjusted) = (0, 0, 0.0, 0);
        for _ in 0..runs {
            let mut rounds = |ratio: f64| {
                let (mut x, mut y, mut lx, mut ly) = (vec![], vec![], vec![], vec![]);
                for index in 0..2 * blocks {
                    for (values, loads, mean) in
                        [(&mut x, &mut lx, 1000.0), (&mut y, &mut ly, 1000.0 * ratio)]
                    {
                        let load = (20.0 + normal(load_sd)).max(0.0);
                        values.push((index, mean * (slope * load + normal(0.05)).exp()));
                        loads.push((index, load));
                    }
                }
                let loads = [lx.as_slice(), ly.as_slice()];
                BlockEstimate::of(&x, &y, Blocking::Blocks, adjust.then_some(loads)).unwrap()
            };
            // A refused adjustment decides nothing (`analysis::judge_ratio`).
            let aa = rounds(1.0);
            significant += usize::from(aa.p() < 0.05 && aa.imbalance.is_none());
            let [lo, hi] = aa.percent_bounds(0.05);
            width += (hi - lo) / 2.0;
            adjusted += usize::from(aa.adjustment.is_some());
            // A loss of exactly the 5 % tolerance: GO when the 90 % interval's lower
            // bound clears it.
            let at_tolerance = rounds(0.95);
            go += usize::from(
                at_tolerance.bounds(0.10)[0] > 0.95 && at_tolerance.imbalance.is_none(),
            );
        }
        let share = |count: usize| count as f64 / f64::from(runs);
        [
            share(significant),
            share(go),
            width / f64::from(runs),
            share(adjusted),
        ]
    }

    #[test]
    fn adjusting_for_the_host_load_keeps_alpha_and_narrows_under_a_busy_neighbour() {
        // α + 3 Monte Carlo standard errors at 10 000 runs.
        let bound = 0.05 + 3.0 * (0.05f64 * 0.95 / 10_000.0).sqrt();
        for (load_sd, slope, what) in [
            (8.0, -0.015, "a neighbour that slows the rounds"),
            (8.0, 0.0, "a neighbour that does not matter"),
        ] {
            let [aa, go, width, share] = simulate(10_000, 6, load_sd, slope, true);
            let [plain_aa, plain_go, plain_width, _] = simulate(10_000, 6, load_sd, slope, false);
            println!(
                "{what}: adjusted A/A {:.2} %, GO at tolerance {:.2} %, ±{width:.2} % ({:.0} % adjusted); \
                 plain {:.2} %, {:.2} %, ±{plain_width:.2} %",
                100.0 * aa,
                100.0 * go,
                100.0 * share,
                100.0 * plain_aa,
                100.0 * plain_go
            );
            assert!(aa <= bound && go <= bound, "{what}: {aa} {go}");
            // The balance check refuses about a fifth of them (its level is 0.2).
            assert!(
                share > 0.7,
                "{what}: the load varied and is balanced, so most blocks are adjusted"
            );
            if slope != 0.0 {
                assert!(
                    width < 0.75 * plain_width,
                    "{what}: ±{width} against ±{plain_width}"
                );
            }
        }
    }

    #[test]
    fn a_quiet_host_is_not_adjusted() {
        // The other processes' CPU varies by a fraction of a point: below the spread the
        // adjustment needs, so the estimate is the plain one.
        let [aa, _, width, share] = simulate(2_000, 6, 0.3, -0.015, true);
        let [plain_aa, _, plain_width, _] = simulate(2_000, 6, 0.3, -0.015, false);
        assert_eq!(share, 0.0);
        assert_eq!((aa, width), (plain_aa, plain_width));
    }

    #[test]
    fn too_few_blocks_or_a_missing_load_leave_the_estimate_plain() {
        let x = indexed(&[100.0, 101.0, 99.0, 100.0, 102.0, 98.0]);
        let y = indexed(&[95.0, 96.0, 97.0, 94.0, 96.0, 95.0]);
        let lx = indexed(&[10.0, 30.0, 5.0, 20.0, 40.0, 0.0]);
        let ly = indexed(&[20.0, 0.0, 30.0, 10.0, 15.0, 35.0]);
        // Three blocks.
        let e = BlockEstimate::of(&x, &y, Blocking::Blocks, Some([&lx, &ly])).unwrap();
        assert!(e.adjustment.is_none() && e.df() == 2.0);
        // Four blocks as pairs, but one round's load missing: its block has no load
        // difference, so nothing is adjusted.
        let e = BlockEstimate::of(&x, &y, Blocking::Pairs, Some([&lx[1..], &ly])).unwrap();
        assert!(e.adjustment.is_none());
        let e = BlockEstimate::of(&x, &y, Blocking::Pairs, Some([&lx, &ly])).unwrap();
        let adjustment = e.adjustment.expect("six pairs with loads that vary");
        assert_eq!(e.df(), 4.0);
        assert_eq!(e.unadjusted().unwrap().df(), 5.0);
        assert!(adjustment.explained >= 0.0 && adjustment.explained <= 1.0);
    }
}
