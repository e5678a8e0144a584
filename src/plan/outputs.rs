//! Where a run's files go, as the plan saves them: `{"json": …, "markdown": …, …}`, one
//! key a file format, null when the run writes none. The plan itself needs only the
//! results file (a resumed run writes on to it, `abtest restore` reads it back); the
//! other files are kept by their format's key, so the formats — what each holds, when it
//! is written, how it renders — stay in one list in `report::formats`, and a new one
//! changes nothing here.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The key of the results file.
const RESULTS: &str = "json";

/// The files a run writes.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Outputs {
    /// The results JSON, rewritten after every round.
    pub(crate) json: Option<PathBuf>,
    /// Every other file format's key with its file, if the run writes one, in the order
    /// of the formats.
    pub(crate) files: Vec<(String, Option<PathBuf>)>,
}

impl Outputs {
    /// The file saved under `key`.
    pub(crate) fn path(&self, key: &str) -> Option<&Path> {
        if key == RESULTS {
            return self.json.as_deref();
        }
        self.files
            .iter()
            .find(|(k, _)| k == key)
            .and_then(|(_, path)| path.as_deref())
    }

    /// Sets the file of `key`, keeping the keys' order.
    pub(crate) fn set(&mut self, key: &str, path: Option<PathBuf>) {
        if key == RESULTS {
            self.json = path;
        } else if let Some((_, at)) = self.files.iter_mut().find(|(k, _)| k == key) {
            *at = path;
        } else {
            self.files.push((key.to_string(), path));
        }
    }
}

impl Serialize for Outputs {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(1 + self.files.len()))?;
        map.serialize_entry(RESULTS, &self.json)?;
        for (key, path) in &self.files {
            map.serialize_entry(key, path)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Outputs {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Outputs, D::Error> {
        struct Keys;
        impl<'de> Visitor<'de> for Keys {
            type Value = Outputs;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map from output format to file")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Outputs, A::Error> {
                let mut outputs = Outputs::default();
                while let Some((key, path)) = map.next_entry::<String, Option<PathBuf>>()? {
                    outputs.set(&key, path);
                }
                Ok(outputs)
            }
        }
        deserializer.deserialize_map(Keys)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_are_saved_by_key_in_order_and_read_back() {
        let mut outputs = Outputs::default();
        for key in ["json", "markdown", "html", "csv", "junit"] {
            outputs.set(key, None);
        }
        outputs.set("json", Some("r.json".into()));
        outputs.set("csv", Some("r.csv".into()));
        let text = serde_json::to_string(&outputs).unwrap();
        assert_eq!(
            text,
            r#"{"json":"r.json","markdown":null,"html":null,"csv":"r.csv","junit":null}"#
        );
        let back: Outputs = serde_json::from_str(&text).unwrap();
        assert_eq!(back, outputs);
        let old: Outputs =
            serde_json::from_str(r#"{"json":null,"markdown":"r.md","html":null,"csv":null}"#)
                .unwrap();
        assert_eq!(old.path("markdown"), Some(Path::new("r.md")));
        assert_eq!(old.path("junit"), None);
    }
}
