//! The order of rounds. Alternating the sides is what separates a real difference from
//! the drift of a machine that warms up, fills its caches or gets a noisy neighbour:
//! ABBA cancels a linear trend, and the seeded random order (Abedi & Brecht's randomised
//! interleaving) guards against periodic interference.

use std::time::Duration;

use rand::seq::SliceRandom;
use rand::{SeedableRng, rngs::SmallRng};
use serde::{Deserialize, Serialize};

use crate::named::Named;
use crate::side::Side;

/// What a move of both sides to fresh server instances costs, for planning a budget:
/// a clean shutdown, a copy of the prepared datadir and a start with its buffer pool
/// loaded took 0.9–1.0 s on the reference host at 10 000 rows; a larger datadir copies
/// longer where the filesystem cannot reflink.
pub(crate) const INSTANCE_SWITCH_ESTIMATE: Duration = Duration::from_secs(2);

/// The order in which the two sides take turns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum RoundOrder {
    /// A B B A A B B A ...: cancels linear drift.
    Abba,
    /// A B A B ...
    Abab,
    /// Each pair in a seeded random order (randomised interleaving).
    Random,
}

impl Named for RoundOrder {
    const NAMES: &'static [(RoundOrder, &'static str, &'static str)] = &[
        (
            RoundOrder::Abba,
            "abba",
            "A B B A A B B A ...: cancels linear drift",
        ),
        (RoundOrder::Abab, "abab", "A B A B ..."),
        (
            RoundOrder::Random,
            "random",
            "Each pair in a seeded random order (randomised interleaving)",
        ),
    ];
}

crate::named::from_names!(RoundOrder);

impl RoundOrder {
    /// The name of the order as the flag spells it: `abba`, `abab`, `random`.
    pub(crate) fn as_str(self) -> &'static str {
        self.name()
    }
}

/// What `--rounds`, `--round-time` and `--rewarm` are when they are not given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RoundDefaults {
    /// A server per side (sysbench's 5 s reports, 30 rounds).
    Separate,
    /// One server shared by both sides, which keeps each side's sessions between its
    /// rounds. Adjacent rounds there are correlated (the host drifts over tens of
    /// seconds, and both sides drift together), so shorter rounds in the same measured
    /// time let the ABBA blocks cancel more of the drift: 1 s rounds held a 5-minute
    /// A/A within ±2 % where 5 s rounds gave ±2.7 %. The same measured time per side.
    Shared,
}

impl RoundDefaults {
    pub(crate) fn rounds(self) -> u32 {
        match self {
            RoundDefaults::Separate => 30,
            RoundDefaults::Shared => 150,
        }
    }

    pub(crate) fn round_time(self) -> Duration {
        match self {
            RoundDefaults::Separate => Duration::from_secs(5),
            RoundDefaults::Shared => Duration::from_secs(1),
        }
    }

    pub(crate) fn rewarm(self) -> Duration {
        match self {
            RoundDefaults::Separate => Duration::from_secs(1),
            RoundDefaults::Shared => Duration::from_millis(250),
        }
    }
}

impl RoundDefaults {
    /// The defaults as a plan line says them: "150 rounds of 1s, re-warm 250ms".
    pub(crate) fn summary(self) -> String {
        format!(
            "{} rounds of {}, re-warm {}",
            self.rounds(),
            humantime::format_duration(self.round_time()),
            humantime::format_duration(self.rewarm())
        )
    }
}

/// Whether a side's connections live for one round or for all its rounds at a level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Connections {
    /// Opened at the side's first round of a level and kept: a round switch only hands
    /// the client threads over, and the round re-warms for `--rewarm`.
    Persistent,
    /// Opened at the start of every round and closed at its end, with the full warm-up.
    PerRound,
}

impl Named for Connections {
    const NAMES: &'static [(Connections, &'static str, &'static str)] = &[
        (
            Connections::Persistent,
            "persistent",
            "Opened at the side's first round of a level and kept: a round switch only hands \
             the client threads over, and the round re-warms for `--rewarm`",
        ),
        (
            Connections::PerRound,
            "per-round",
            "Opened at the start of every round and closed at its end, with the full warm-up",
        ),
    ];
}

crate::named::from_names!(Connections);

impl Connections {
    /// The name as the flag spells it.
    pub(crate) fn as_str(self) -> &'static str {
        self.name()
    }
}

/// The order in which the thread levels of a sweep run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum LevelOrder {
    /// Lowest first.
    Asc,
    /// Highest first.
    Desc,
    /// Seeded random order.
    Random,
}

impl Named for LevelOrder {
    const NAMES: &'static [(LevelOrder, &'static str, &'static str)] = &[
        (LevelOrder::Asc, "asc", "Lowest first"),
        (LevelOrder::Desc, "desc", "Highest first"),
        (LevelOrder::Random, "random", "Seeded random order"),
    ];
}

crate::named::from_names!(LevelOrder);

/// The level order of files older than the option.
fn ascending() -> LevelOrder {
    LevelOrder::Asc
}

/// The schedule of an experiment: thread levels x rounds, and the timing of a round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Schedule {
    /// Thread levels, in the order they run.
    pub(crate) levels: Vec<u32>,
    /// Measured rounds per side and level.
    pub(crate) rounds: u32,
    /// Measured period of a round.
    #[serde(with = "crate::serde_secs")]
    pub(crate) round_time: Duration,
    /// Warm-up before each measured period, not counted.
    #[serde(with = "crate::serde_secs")]
    pub(crate) warmup: Duration,
    /// Warm-up of a round whose connections were kept from the side's previous round
    /// (none in files older than the option: every round had the full warm-up).
    #[serde(default, with = "crate::serde_secs::option")]
    pub(crate) rewarm: Option<Duration>,
    /// Pause between rounds.
    #[serde(with = "crate::serde_secs")]
    pub(crate) pause: Duration,
    /// How the sides alternate.
    pub(crate) order: RoundOrder,
    /// How the thread levels were ordered (already applied to `levels`).
    #[serde(default = "ascending")]
    pub(crate) level_order: LevelOrder,
    /// Server instances per side and level (`--instances`): the rounds of a level run in
    /// this many blocks, each on fresh server processes (1 in files older than the option).
    #[serde(default = "one_instance")]
    pub(crate) instances: u32,
    /// Whether the two external servers exchange the sides' settings halfway through each
    /// level (`--swap`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) swap: bool,
}

fn one_instance() -> u32 {
    1
}

/// One round in the schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Slot {
    /// Thread level of this round.
    pub(crate) threads: u32,
    /// Side that runs.
    pub(crate) side: Side,
    /// 0-based index of this round among the side's rounds at this level.
    pub(crate) index: u32,
    /// 0-based position in the whole run.
    pub(crate) position: u32,
}

impl Schedule {
    /// Puts `levels` in `order` (deduplicated); random uses `seed`.
    pub(crate) fn order_levels(levels: &[u32], order: LevelOrder, seed: u64) -> Vec<u32> {
        let mut sorted = levels.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        match order {
            LevelOrder::Asc => {}
            LevelOrder::Desc => sorted.reverse(),
            LevelOrder::Random => sorted.shuffle(&mut SmallRng::seed_from_u64(seed ^ 0x1e7e1)),
        }
        sorted
    }

    /// Every round in run order. The same seed always gives the same order.
    pub(crate) fn slots(&self, seed: u64) -> Vec<Slot> {
        let mut rng = SmallRng::seed_from_u64(seed ^ 0x0bba_0bba);
        let mut slots = Vec::new();
        for &threads in &self.levels {
            for pair in 0..self.rounds {
                for side in self.pair_order(pair, &mut rng) {
                    slots.push(Slot {
                        threads,
                        side,
                        index: pair,
                        position: slots.len() as u32,
                    });
                }
            }
        }
        slots
    }

    fn pair_order(&self, pair: u32, rng: &mut SmallRng) -> [Side; 2] {
        let ab = [Side::Baseline, Side::Variant];
        let ba = [Side::Variant, Side::Baseline];
        match self.order {
            RoundOrder::Abab => ab,
            RoundOrder::Abba if pair.is_multiple_of(2) => ab,
            RoundOrder::Abba => ba,
            RoundOrder::Random => {
                let mut order = ab;
                order.shuffle(rng);
                order
            }
        }
    }

    /// The instance block a side's round `index` at a level belongs to: the rounds split
    /// into `instances` consecutive blocks as even as they go.
    pub(crate) fn instance_of(&self, index: u32) -> u32 {
        (u64::from(index) * u64::from(self.instances.max(1)) / u64::from(self.rounds.max(1))) as u32
    }

    /// Whether a side's round `index` runs on the other side's server (`--swap`: the
    /// second half of every level).
    pub(crate) fn swapped_at(&self, index: u32) -> bool {
        self.swap && index >= self.rounds / 2
    }

    /// The warm-up of a round: the short re-warm when its connections were kept.
    pub(crate) fn warmup_of(&self, connections_kept: bool) -> Duration {
        match self.rewarm {
            Some(rewarm) if connections_kept => rewarm,
            _ => self.warmup,
        }
    }

    /// One round's wall time after each side's first round at a level.
    pub(crate) fn later_round_time(&self) -> Duration {
        self.warmup_of(true) + self.round_time + self.pause
    }

    /// Total number of rounds, both sides and all levels.
    pub(crate) fn total_rounds(&self) -> u32 {
        self.levels.len() as u32 * self.rounds * 2
    }

    /// Estimated wall time of all rounds, excluding server start and data preparation:
    /// every round takes [`Self::later_round_time`], plus [`Self::fixed_overhead`].
    pub(crate) fn estimated_time(&self) -> Duration {
        self.later_round_time() * self.total_rounds() + self.fixed_overhead()
    }

    /// The rounds per side and level a wall-clock `budget` holds, with the run's fixed
    /// overhead taken out first (rounded down).
    pub(crate) fn rounds_within(&self, budget: Duration) -> u32 {
        let per_round = self.later_round_time().as_secs_f64();
        let per_side = 2.0 * self.levels.len() as f64;
        (budget.saturating_sub(self.fixed_overhead()).as_secs_f64() / (per_round * per_side)) as u32
    }

    /// The wall-clock budget that holds `rounds` per side and level: the inverse of
    /// [`Self::rounds_within`].
    pub(crate) fn budget_for(&self, rounds: u32) -> Duration {
        self.later_round_time() * (2 * self.levels.len() as u32 * rounds) + self.fixed_overhead()
    }

    /// The wall time a run spends beyond its rounds' re-warm, measured period and pause,
    /// whatever the number of rounds: the full warm-up of every round that opens fresh
    /// connections, and the moves to fresh server instances.
    pub(crate) fn fixed_overhead(&self) -> Duration {
        self.warmup.saturating_sub(self.warmup_of(true)) * self.fresh_connection_rounds()
            + INSTANCE_SWITCH_ESTIMATE * self.instance_moves()
    }

    /// Rounds that open fresh connections: each side's first at a level, on each further
    /// server instance (`--instances`), and after the swap (`--swap`).
    fn fresh_connection_rounds(&self) -> u32 {
        let starts_per_level = self.instances.max(1) + u32::from(self.swap);
        2 * self.levels.len() as u32 * starts_per_level
    }

    /// Moves of both sides to fresh server instances: every instance but the first.
    fn instance_moves(&self) -> u32 {
        match self.instances {
            0 | 1 => 0,
            k => self.levels.len() as u32 * k - 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schedule(order: RoundOrder, rounds: u32) -> Schedule {
        Schedule {
            levels: vec![4],
            rounds,
            round_time: Duration::from_secs(1),
            warmup: Duration::ZERO,
            rewarm: None,
            pause: Duration::ZERO,
            order,
            level_order: LevelOrder::Asc,
            instances: 1,
            swap: false,
        }
    }

    fn letters(slots: &[Slot]) -> String {
        slots.iter().map(|s| s.side.letter()).collect()
    }

    #[test]
    fn abba_alternates_pairs() {
        assert_eq!(letters(&schedule(RoundOrder::Abba, 4).slots(1)), "ABBAABBA");
    }

    #[test]
    fn abab_keeps_order() {
        assert_eq!(letters(&schedule(RoundOrder::Abab, 3).slots(1)), "ABABAB");
    }

    #[test]
    fn random_is_seeded_and_balanced() {
        let plan = schedule(RoundOrder::Random, 20);
        let first = plan.slots(42);
        assert_eq!(first, plan.slots(42));
        assert_ne!(letters(&first), letters(&plan.slots(43)));
        for pair in first.chunks(2) {
            assert_ne!(pair[0].side, pair[1].side);
            assert_eq!(pair[0].index, pair[1].index);
        }
    }

    #[test]
    fn level_orders() {
        let levels = [64, 8, 256, 8];
        assert_eq!(
            Schedule::order_levels(&levels, LevelOrder::Asc, 0),
            vec![8, 64, 256]
        );
        assert_eq!(
            Schedule::order_levels(&levels, LevelOrder::Desc, 0),
            vec![256, 64, 8]
        );
        let random = Schedule::order_levels(&levels, LevelOrder::Random, 5);
        assert_eq!(
            random,
            Schedule::order_levels(&levels, LevelOrder::Random, 5)
        );
        let mut sorted = random.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, vec![8, 64, 256]);
    }

    #[test]
    fn kept_connections_shorten_every_round_but_each_sides_first() {
        let mut plan = schedule(RoundOrder::Abba, 4);
        plan.warmup = Duration::from_secs(5);
        plan.rewarm = Some(Duration::from_secs(1));
        // 2 first rounds of 5 + 1 s, 6 later ones of 1 + 1 s.
        assert_eq!(plan.estimated_time(), Duration::from_secs(2 * 6 + 6 * 2));
        assert_eq!(plan.warmup_of(true), Duration::from_secs(1));
        assert_eq!(plan.warmup_of(false), Duration::from_secs(5));
        plan.rewarm = None;
        assert_eq!(plan.estimated_time(), Duration::from_secs(8 * 6));
        assert_eq!(plan.warmup_of(true), Duration::from_secs(5));
    }

    /// A budget holds the rounds whose estimate fits in it, and the budget for that
    /// many rounds holds them again.
    #[test]
    fn a_budget_and_its_rounds_are_inverses() {
        let mut plan = schedule(RoundOrder::Abba, 4);
        plan.levels = vec![8, 16];
        plan.warmup = Duration::from_secs(5);
        plan.rewarm = Some(Duration::from_secs(1));
        plan.instances = 2;
        for rounds in [2, 7, 30] {
            plan.rounds = rounds;
            assert_eq!(plan.budget_for(rounds), plan.estimated_time());
            assert_eq!(plan.rounds_within(plan.budget_for(rounds)), rounds);
            assert_eq!(
                plan.rounds_within(plan.budget_for(rounds) - Duration::from_millis(1)),
                rounds - 1
            );
        }
    }

    /// Every instance but the first is a move of both sides and opens fresh
    /// connections, as does the swap; a budget counts both.
    #[test]
    fn instances_and_the_swap_add_full_warm_ups_and_moves() {
        let mut plan = schedule(RoundOrder::Abba, 6);
        plan.levels = vec![8, 16];
        plan.warmup = Duration::from_secs(5);
        plan.rewarm = Some(Duration::from_secs(1));
        let rounds_only = plan.later_round_time() * plan.total_rounds();
        assert_eq!(
            plan.estimated_time() - rounds_only,
            Duration::from_secs(4 * 4)
        );
        plan.instances = 3;
        // 2 sides × 2 levels × 3 instances open connections (4 s more each), and
        // 2 × 3 − 1 moves of 2 s.
        assert_eq!(
            plan.estimated_time() - rounds_only,
            Duration::from_secs(12 * 4) + INSTANCE_SWITCH_ESTIMATE * 5
        );
        plan.instances = 1;
        plan.swap = true;
        assert_eq!(
            plan.estimated_time() - rounds_only,
            Duration::from_secs(8 * 4)
        );
    }

    #[test]
    fn levels_run_in_blocks_with_positions() {
        let mut plan = schedule(RoundOrder::Abba, 2);
        plan.levels = vec![2, 8];
        let slots = plan.slots(0);
        assert_eq!(slots.len(), 8);
        assert!(slots[..4].iter().all(|s| s.threads == 2));
        assert!(
            slots
                .iter()
                .enumerate()
                .all(|(i, s)| s.position == i as u32)
        );
    }
}
