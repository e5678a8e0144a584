//! One rule for the numbers a user types. Every percentage takes `5%` or `5` (both
//! 5 %). A bare number below 1 is refused, because `0.05` is far more often meant as
//! 5 % than as a twentieth of a percent, and guessing wrong would move a verdict by a
//! factor of 100. Probabilities (α, power) take `0.05` or `5%` alike. The range each
//! option allows (no TPS loss of 100 % or more) is checked where the plan is resolved,
//! `resolve/ranges.rs`.

/// A percentage as a fraction: `5%` and `5` give 0.05; `0.5%` gives 0.005; a bare `0.05`
/// is refused with the spelling that was probably meant.
pub(crate) fn parse_percent(text: &str) -> Result<f64, String> {
    let trimmed = text.trim();
    let (number, has_sign) = match trimmed.strip_suffix('%') {
        Some(number) => (number.trim(), true),
        None => (trimmed, false),
    };
    let value: f64 = number
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite() && *v >= 0.0)
        .ok_or_else(|| format!("`{text}` is not a percentage; write it as 5% or 5"))?;
    if !has_sign && value > 0.0 && value < 1.0 {
        return Err(format!(
            "`{text}` is ambiguous: did you mean {}%? A bare number is read as a percentage, \
             so write {}% for that, or {text}% for {text} percent",
            trim_number(value * 100.0),
            trim_number(value * 100.0),
        ));
    }
    Ok(value / 100.0)
}

/// A probability: `0.05` or `5%` give 0.05. A bare number of 1 or more is refused.
pub(crate) fn parse_probability(text: &str) -> Result<f64, String> {
    let trimmed = text.trim();
    if trimmed.ends_with('%') {
        return parse_percent(trimmed);
    }
    match trimmed.parse::<f64>() {
        Ok(value) if value.is_finite() && (0.0..1.0).contains(&value) => Ok(value),
        Ok(value) if value.is_finite() && value >= 1.0 => Err(format!(
            "`{text}` is not a probability; write {}% or {}",
            trim_number(value),
            trim_number(value / 100.0)
        )),
        _ => Err(format!(
            "`{text}` is not a probability; write it as 0.05 or 5%"
        )),
    }
}

/// A slowdown as a ratio: `2x`, `2×` and `2` give 2.0 (twice as slow). A ratio must be
/// more than 1; a percentage is refused with the ratio it would be.
pub(crate) fn parse_ratio(text: &str) -> Result<f64, String> {
    let trimmed = text.trim();
    if let Some(number) = trimmed.strip_suffix('%') {
        let hint = number
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v > 0.0)
            .map(|v| {
                format!(
                    ", such as {}x for {text} slower",
                    trim_number(1.0 + v / 100.0)
                )
            })
            .unwrap_or_default();
        return Err(format!(
            "`{text}` is a percentage; give the slowdown as a ratio{hint}"
        ));
    }
    let number = trimmed
        .strip_suffix(['x', 'X', '×'])
        .unwrap_or(trimmed)
        .trim();
    match number.parse::<f64>() {
        Ok(value) if value.is_finite() && value > 1.0 => Ok(value),
        _ => Err(format!(
            "`{text}` is not a slowdown; write a ratio above 1, such as 2x (twice as slow)"
        )),
    }
}

/// `5` for 5.0, `0.5` for 0.5: a number without trailing zeros; a number too large or
/// too small to read that way in scientific notation (`1e308`, `1e-300`).
pub(crate) fn trim_number(value: f64) -> String {
    if value != 0.0 && !(1e-4..1e9).contains(&value.abs()) {
        return format!("{value:e}");
    }
    let text = format!("{value:.6}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slowdown_is_a_ratio_above_one() {
        for text in ["2x", "2", "2×", " 2.0 X "] {
            assert_eq!(parse_ratio(text), Ok(2.0), "{text}");
        }
        assert_eq!(
            parse_ratio("100%").unwrap_err(),
            "`100%` is a percentage; give the slowdown as a ratio, such as 2x for 100% slower"
        );
        for bad in ["1", "0.5x", "x", "-3", "inf", "NaNx"] {
            assert!(
                parse_ratio(bad).unwrap_err().contains("ratio above 1"),
                "{bad}"
            );
        }
    }

    #[test]
    fn a_percentage_is_five_or_five_percent() {
        assert_eq!(parse_percent("5%"), Ok(0.05));
        assert_eq!(parse_percent("5"), Ok(0.05));
        assert_eq!(parse_percent(" 5.0 % "), Ok(0.05));
        assert_eq!(parse_percent("0.5%"), Ok(0.005));
        assert_eq!(parse_percent("0"), Ok(0.0));
        let error = parse_percent("0.05").unwrap_err();
        assert!(error.contains("did you mean 5%?"), "{error}");
        assert!(parse_percent("-5%").is_err());
        assert!(parse_percent("five").is_err());
        assert!(parse_percent("nan").is_err());
    }

    #[test]
    fn a_probability_is_a_fraction_or_a_percentage() {
        assert_eq!(parse_probability("0.05"), Ok(0.05));
        assert_eq!(parse_probability("5%"), Ok(0.05));
        assert_eq!(parse_probability("90%"), Ok(0.9));
        assert_eq!(parse_probability("0.9"), Ok(0.9));
        let error = parse_probability("90").unwrap_err();
        assert!(error.contains("90% or 0.9"), "{error}");
        assert!(parse_probability("x").is_err());
    }
}
