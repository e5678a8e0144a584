//! The values of flags that pick one of a list (`--workload`, `--order`, …), as clap
//! parses them. The domain has its own types and never sees clap: each value here is
//! converted into its domain type when the plan is resolved, so the spelling of a flag
//! can change without touching the code that runs it.

use clap::ValueEnum;

/// The sysbench workloads abtest can run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
#[value(rename_all = "snake_case")]
pub(crate) enum WorkloadNameValue {
    /// BEGIN, 10 point selects, 4 range selects, 2 updates, delete+insert, COMMIT.
    OltpReadWrite,
    /// BEGIN, 10 point selects, 4 range selects, COMMIT.
    OltpReadOnly,
    /// BEGIN, 2 updates, delete+insert, COMMIT.
    OltpWriteOnly,
    /// One primary-key SELECT per event, no transaction.
    OltpPointSelect,
    /// One UPDATE of the indexed column k per event.
    OltpUpdateIndex,
    /// One UPDATE of the non-indexed column c per event.
    OltpUpdateNonIndex,
    /// One DELETE by primary key per event.
    OltpDelete,
    /// One INSERT per event.
    OltpInsert,
    /// One SELECT with 10 random points in an IN() list on k.
    SelectRandomPoints,
    /// One SELECT COUNT(k) over 10 random BETWEEN ranges on k.
    SelectRandomRanges,
    /// Multi-row INSERTs of (id, k) into one table per thread; one row per event.
    BulkInsert,
}

impl From<WorkloadNameValue> for crate::workload::WorkloadName {
    fn from(value: WorkloadNameValue) -> Self {
        match value {
            WorkloadNameValue::OltpReadWrite => crate::workload::WorkloadName::OltpReadWrite,
            WorkloadNameValue::OltpReadOnly => crate::workload::WorkloadName::OltpReadOnly,
            WorkloadNameValue::OltpWriteOnly => crate::workload::WorkloadName::OltpWriteOnly,
            WorkloadNameValue::OltpPointSelect => crate::workload::WorkloadName::OltpPointSelect,
            WorkloadNameValue::OltpUpdateIndex => crate::workload::WorkloadName::OltpUpdateIndex,
            WorkloadNameValue::OltpUpdateNonIndex => {
                crate::workload::WorkloadName::OltpUpdateNonIndex
            }
            WorkloadNameValue::OltpDelete => crate::workload::WorkloadName::OltpDelete,
            WorkloadNameValue::OltpInsert => crate::workload::WorkloadName::OltpInsert,
            WorkloadNameValue::SelectRandomPoints => {
                crate::workload::WorkloadName::SelectRandomPoints
            }
            WorkloadNameValue::SelectRandomRanges => {
                crate::workload::WorkloadName::SelectRandomRanges
            }
            WorkloadNameValue::BulkInsert => crate::workload::WorkloadName::BulkInsert,
        }
    }
}

/// How the sbtest tables are made ready before the first round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum PrepareModeValue {
    /// Reuse tables whose shape and row count match; create them otherwise.
    Auto,
    /// Drop abtest's own tables and create them again.
    Always,
    /// Use the tables as they are; fail when they are missing.
    Never,
}

impl From<PrepareModeValue> for crate::workload::PrepareMode {
    fn from(value: PrepareModeValue) -> Self {
        match value {
            PrepareModeValue::Auto => crate::workload::PrepareMode::Auto,
            PrepareModeValue::Always => crate::workload::PrepareMode::Always,
            PrepareModeValue::Never => crate::workload::PrepareMode::Never,
        }
    }
}

/// Whether statements are prepared on the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum PsModeValue {
    /// Server-side prepared statements.
    Auto,
    /// Plain text queries.
    Disable,
}

impl From<PsModeValue> for crate::workload::PsMode {
    fn from(value: PsModeValue) -> Self {
        match value {
            PsModeValue::Auto => crate::workload::PsMode::Auto,
            PsModeValue::Disable => crate::workload::PsMode::Disable,
        }
    }
}

/// The distribution of row ids (`--rand-type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum RandTypeValue {
    /// Every row equally likely (abtest's default).
    Uniform,
    /// Sum of `rand_spec_iter` uniforms: bell-shaped around the middle.
    Gaussian,
    /// sysbench 1.0's default: mostly gaussian, `rand_spec_res` % of draws uniform over
    /// the middle `rand_spec_pct` % of the range.
    Special,
    /// Pareto with parameter `rand_pareto_h`.
    Pareto,
    /// Zipf with exponent `rand_zipfian_exp`.
    Zipfian,
}

impl From<RandTypeValue> for crate::workload::random::RandType {
    fn from(value: RandTypeValue) -> Self {
        match value {
            RandTypeValue::Uniform => crate::workload::random::RandType::Uniform,
            RandTypeValue::Gaussian => crate::workload::random::RandType::Gaussian,
            RandTypeValue::Special => crate::workload::random::RandType::Special,
            RandTypeValue::Pareto => crate::workload::random::RandType::Pareto,
            RandTypeValue::Zipfian => crate::workload::random::RandType::Zipfian,
        }
    }
}

/// The order in which the two sides take turns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum RoundOrderValue {
    /// A B B A A B B A ...: cancels linear drift.
    Abba,
    /// A B A B ...
    Abab,
    /// Each pair in a seeded random order (randomised interleaving).
    Random,
}

impl From<RoundOrderValue> for crate::schedule::RoundOrder {
    fn from(value: RoundOrderValue) -> Self {
        match value {
            RoundOrderValue::Abba => crate::schedule::RoundOrder::Abba,
            RoundOrderValue::Abab => crate::schedule::RoundOrder::Abab,
            RoundOrderValue::Random => crate::schedule::RoundOrder::Random,
        }
    }
}

/// What block estimates are adjusted for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum AdjustValue {
    /// The CPU the machine's other processes used in each round.
    HostLoad,
    /// Nothing: the blocks' log ratios as they are.
    None,
}

impl From<AdjustValue> for crate::stats::blocked::Adjust {
    fn from(value: AdjustValue) -> Self {
        match value {
            AdjustValue::HostLoad => crate::stats::blocked::Adjust::HostLoad,
            AdjustValue::None => crate::stats::blocked::Adjust::None,
        }
    }
}

/// The order in which the thread levels of a sweep run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum LevelOrderValue {
    /// Lowest first.
    Asc,
    /// Highest first.
    Desc,
    /// Seeded random order.
    Random,
}

impl From<LevelOrderValue> for crate::schedule::LevelOrder {
    fn from(value: LevelOrderValue) -> Self {
        match value {
            LevelOrderValue::Asc => crate::schedule::LevelOrder::Asc,
            LevelOrderValue::Desc => crate::schedule::LevelOrder::Desc,
            LevelOrderValue::Random => crate::schedule::LevelOrder::Random,
        }
    }
}

/// Whether a side's connections live for one round or for all its rounds at a level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ConnectionsValue {
    /// Opened at the side's first round of a level and kept: a round switch only hands
    /// the client threads over, and the round re-warms for `--rewarm`.
    Persistent,
    /// Opened at the start of every round and closed at its end, with the full warm-up.
    PerRound,
}

impl From<ConnectionsValue> for crate::schedule::Connections {
    fn from(value: ConnectionsValue) -> Self {
        match value {
            ConnectionsValue::Persistent => crate::schedule::Connections::Persistent,
            ConnectionsValue::PerRound => crate::schedule::Connections::PerRound,
        }
    }
}

/// What happens when a managed server dies during a round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum OnServerLossValue {
    /// Mark the round failed and stop (exit 1).
    Fail,
    /// Restart the managed server and run the lost round again.
    Retry,
}

impl From<OnServerLossValue> for crate::server::OnServerLoss {
    fn from(value: OnServerLossValue) -> Self {
        match value {
            OnServerLossValue::Fail => crate::server::OnServerLoss::Fail,
            OnServerLossValue::Retry => crate::server::OnServerLoss::Retry,
        }
    }
}

/// The Linux scheduling policy of the client threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ClientSchedValue {
    /// SCHED_BATCH: a waking client thread does not preempt a running server thread.
    Batch,
    /// SCHED_OTHER, the default of every process, and what sysbench runs with.
    Normal,
}

impl From<ClientSchedValue> for crate::thread_policy::ClientSched {
    fn from(value: ClientSchedValue) -> Self {
        match value {
            ClientSchedValue::Batch => crate::thread_policy::ClientSched::Batch,
            ClientSchedValue::Normal => crate::thread_policy::ClientSched::Normal,
        }
    }
}
