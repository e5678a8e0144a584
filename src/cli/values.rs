//! The values of flags that pick one of a list (`--workload`, `--order`, …), as clap
//! parses them. The domain never sees clap: an enum that lists its names
//! ([`Named`]) is parsed straight into the domain type by [`choice`], so no enum is
//! copied here.

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
