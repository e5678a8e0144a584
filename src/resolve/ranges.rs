//! The range every typed percentage and probability must lie in, in one table and
//! checked in one place: the parsers in `cli` read a number (one percent parser, one
//! probability parser, `percent.rs`), and the resolving layer says whether it can be
//! meant. A TPS loss of 100 % or an α of 0.7 is not a typo abtest should run with.

use crate::cli::PlanRoundsArgs;
use crate::exit::UsageError;
use crate::percent;

/// How a range's ends count.
#[derive(Clone, Copy)]
enum Ends {
    /// Neither end is allowed.
    Open,
    /// The upper end is allowed (a share of 100 %).
    UpperIncluded,
    /// Both ends are allowed (an error rate of 0 % or 100 %).
    Closed,
}

/// Option, lowest, highest (as fractions), which ends count, a typical value.
const RANGES: &[(&str, f64, f64, Ends, &str)] = &[
    ("--alpha", 0.0, 0.5, Ends::Open, "0.05"),
    ("--power", 0.5, 1.0, Ends::Open, "80%"),
    ("--max-tps-loss", 0.0, 1.0, Ends::Open, "5%"),
    ("--max-error-rate", 0.0, 1.0, Ends::Closed, "1%"),
    ("--coverage", 0.0, 1.0, Ends::UpperIncluded, "95%"),
    ("--cv", 0.0, 10.0, Ends::Open, "3%"),
    ("--effect", 0.0, 1.0, Ends::Open, "2%"),
    ("--until precision", 0.0, 1.0, Ends::Open, "2%"),
];

/// `value` of `option` when it lies in the option's range; a usage error that names the
/// range and a typical value when it does not.
pub(crate) fn check(option: &str, value: f64) -> anyhow::Result<f64> {
    let Some(&(_, low, high, ends, example)) = RANGES.iter().find(|(name, ..)| *name == option)
    else {
        return Ok(value);
    };
    let inside = match ends {
        Ends::Open => value > low && value < high,
        Ends::UpperIncluded => value > low && value <= high,
        Ends::Closed => value >= low && value <= high,
    };
    if inside {
        return Ok(value);
    }
    let which = match ends {
        Ends::Open => "exclusive",
        Ends::UpperIncluded => "above the first, up to the second",
        Ends::Closed => "inclusive",
    };
    Err(UsageError::err(format!(
        "{option} {} % is impossible: it must lie between {} % and {} % ({which}), such as {example}",
        percent::trim_number(value * 100.0),
        percent::trim_number(low * 100.0),
        percent::trim_number(high * 100.0)
    )))
}

/// As [`check`], for an option that may be absent.
pub(crate) fn check_given(option: &str, value: Option<f64>) -> anyhow::Result<Option<f64>> {
    value.map(|v| check(option, v)).transpose()
}

/// The ranges of `abtest plan-rounds`' inputs.
pub(crate) fn check_plan_rounds(args: &PlanRoundsArgs) -> anyhow::Result<()> {
    check_given("--cv", args.cv)?;
    check("--effect", args.effect)?;
    check("--alpha", args.alpha)?;
    check("--power", args.power)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_option_keeps_its_own_ends() {
        assert!(check("--alpha", 0.05).is_ok());
        assert!(check("--alpha", 0.5).is_err());
        assert!(check("--max-tps-loss", 1.0).is_err());
        assert!(check("--max-error-rate", 0.0).is_ok());
        assert!(check("--max-error-rate", 1.0).is_ok());
        assert!(check("--max-error-rate", 1.01).is_err());
        assert!(check("--coverage", 1.0).is_ok());
        assert!(check("--coverage", 0.0).is_err());
        assert!(check("--power", 0.5).is_err());
        assert!(check("--cv", 10.0).is_err());
        let message = format!("{:#}", check("--max-tps-loss", 1.05).unwrap_err());
        assert!(
            message.starts_with("--max-tps-loss 105 % is impossible"),
            "{message}"
        );
        let message = format!("{:#}", check("--effect", 1.5).unwrap_err());
        assert!(
            message.contains("--effect 150 %") && message.contains("such as 2%"),
            "{message}"
        );
    }
}
