//! Values the user picks by name (`--order abba`, `--connections per-round`). Each such
//! enum lists its values once, with the name and a line of help, and everything that
//! reads or shows a name — parsing, `as_str`, the possible values in `--help` — reads
//! that list. So a flag needs no copy of the enum to parse it, and the domain never sees
//! the flag parser.

/// An enum whose values have names.
pub(crate) trait Named: Copy + PartialEq + 'static {
    /// Every value, with its name and a line of help, in the order `--help` shows them.
    const NAMES: &'static [(Self, &'static str, &'static str)];

    /// The name of this value.
    fn name(self) -> &'static str {
        Self::NAMES
            .iter()
            .find(|(value, _, _)| *value == self)
            .map(|(_, name, _)| *name)
            .expect("every value is listed in NAMES")
    }
}

/// The value `text` names, or why it names none.
pub(crate) fn parse<T: Named>(text: &str) -> Result<T, String> {
    T::NAMES
        .iter()
        .find(|(_, name, _)| *name == text)
        .map(|(value, _, _)| *value)
        .ok_or_else(|| {
            let names: Vec<&str> = T::NAMES.iter().map(|(_, name, _)| *name).collect();
            format!("`{text}` is not one of {}", names.join(", "))
        })
}

/// `FromStr` for a [`Named`] enum, by its names: `from_names!(RoundOrder);`.
macro_rules! from_names {
    ($type:ty) => {
        impl std::str::FromStr for $type {
            type Err = String;
            fn from_str(text: &str) -> Result<$type, String> {
                $crate::named::parse(text)
            }
        }
    };
}
pub(crate) use from_names;

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, Copy, PartialEq)]
    enum Side {
        Left,
        Right,
    }

    impl Named for Side {
        const NAMES: &'static [(Side, &'static str, &'static str)] = &[
            (Side::Left, "left", "The left."),
            (Side::Right, "right", "The right."),
        ];
    }

    #[test]
    fn a_name_parses_back_to_its_value() {
        for (value, name, _) in Side::NAMES {
            assert_eq!(value.name(), *name);
            assert_eq!(parse::<Side>(name), Ok(*value));
        }
        assert_eq!(
            parse::<Side>("up"),
            Err::<Side, _>("`up` is not one of left, right".to_string())
        );
    }
}
