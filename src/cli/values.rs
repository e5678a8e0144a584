//! The values of flags that pick one of a list (`--workload`, `--order`, …), as clap
//! parses them. The domain never sees clap: an enum that lists its names
//! ([`Named`]) is parsed straight into the domain type by [`choice`]; the workload's
//! enums, which list none, are still copied here and converted when the plan is
//! resolved.

use clap::ValueEnum;
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};

use crate::named::Named;

/// The parser of a flag whose value is one of `T`'s names: `--help` lists each with its
/// help, and a wrong one is refused with the list.
pub(crate) fn choice<T: Named + Send + Sync>() -> impl TypedValueParser<Value = T> {
    let names = T::NAMES
        .iter()
        .map(|(_, name, help)| PossibleValue::new(name).help(help));
    PossibleValuesParser::new(names)
        .map(|name: String| crate::named::parse::<T>(&name).expect("a listed name"))
}

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
