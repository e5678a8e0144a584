//! Durations in results files are plain seconds (a float), which every consumer can read.

use std::time::Duration;

use serde::{Deserialize, Deserializer, Serializer};

/// Serialises a duration as seconds.
pub(crate) fn serialize<S: Serializer>(value: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_f64(value.as_secs_f64())
}

/// Reads a duration written as seconds.
pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Duration, D::Error> {
    let seconds = f64::deserialize(deserializer)?;
    Duration::try_from_secs_f64(seconds).map_err(serde::de::Error::custom)
}

/// The same for optional durations.
pub(crate) mod option {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    /// Serialises an optional duration as seconds or null.
    pub(crate) fn serialize<S: Serializer>(
        value: &Option<Duration>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match value {
            Some(d) => serializer.serialize_f64(d.as_secs_f64()),
            None => serializer.serialize_none(),
        }
    }

    /// Reads an optional duration written as seconds.
    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<Duration>, D::Error> {
        Option::<f64>::deserialize(deserializer)?
            .map(|s| Duration::try_from_secs_f64(s).map_err(serde::de::Error::custom))
            .transpose()
    }
}
