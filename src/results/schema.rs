//! The results file's version. A file says which `schema_version` wrote it; abtest reads
//! its own version and every older one, each older one brought forward by one function
//! per version step, and refuses a newer one with both numbers, instead of reading a
//! file it does not understand as if it did.
//!
//! Version 1 is the only version so far: fields added since it began have defaults that
//! say what an older run did, so no step exists yet. The next change that cannot be
//! said by a default adds version 2 and its step here, with a kept file of version 1
//! under `tests/fixtures/` to test it on.

use serde_json::Value;

/// The version this abtest writes.
pub(crate) const SCHEMA_VERSION: u32 = 1;

/// The steps from each older version to the next: `STEPS[0]` turns version 1 into 2.
const STEPS: &[fn(&mut Value)] = &[];

/// Brings a results file's JSON to [`SCHEMA_VERSION`], or says why it cannot.
pub(crate) fn migrate(mut file: Value) -> Result<Value, String> {
    let version = file
        .get("schema_version")
        .and_then(Value::as_u64)
        .and_then(|v| u32::try_from(v).ok())
        .ok_or("it has no schema_version")?;
    if version > SCHEMA_VERSION {
        return Err(format!(
            "it is of schema version {version}, written by a newer abtest; this one reads \
             versions 1 to {SCHEMA_VERSION}: upgrade abtest to read it"
        ));
    }
    if version == 0 {
        return Err("schema version 0 does not exist".into());
    }
    for step in &STEPS[(version - 1) as usize..] {
        step(&mut file);
    }
    file["schema_version"] = Value::from(SCHEMA_VERSION);
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_version_step_is_there() {
        assert_eq!(STEPS.len() as u32, SCHEMA_VERSION - 1);
    }

    #[test]
    fn a_newer_or_unknown_version_is_refused_with_both_numbers() {
        let newer = migrate(serde_json::json!({"schema_version": SCHEMA_VERSION + 1})).unwrap_err();
        assert!(
            newer.contains(&format!("schema version {}", SCHEMA_VERSION + 1))
                && newer.contains("versions 1 to"),
            "{newer}"
        );
        assert!(migrate(serde_json::json!({"schema_version": 0})).is_err());
        assert!(
            migrate(serde_json::json!({"status": "completed"}))
                .unwrap_err()
                .contains("no schema_version")
        );
    }

    #[test]
    fn the_kept_version_1_file_reads() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/audit-point-select.json");
        let text = std::fs::read_to_string(path).unwrap();
        let file: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(file["schema_version"], 1);
        let migrated = migrate(file).unwrap();
        let _: crate::results::file::ResultsFile = serde_json::from_value(migrated).unwrap();
    }
}
