//! Property-based fuzzing of everything that parses user input: profiles, workload files
//! and the CSV of `abtest analyze`. Inputs start from the corpus in tests/fuzz_corpus/
//! (valid files) and are mutated byte by byte, plus fully random text; no input may
//! panic, every rejection must be an error.

use std::path::{Path, PathBuf};

use abtest::profile::Side;
use abtest::workload::custom::CustomWorkload;
use proptest::prelude::*;

fn corpus(kind: &str) -> Vec<Vec<u8>> {
    let dir = crate::support::repo().join("tests/fuzz_corpus").join(kind);
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| std::fs::read(p).unwrap())
        .collect()
}

/// A corpus entry with up to 8 random byte edits (insert, delete, replace).
fn mutated(kind: &'static str) -> impl Strategy<Value = Vec<u8>> {
    let seeds = corpus(kind);
    let edits = prop::collection::vec((any::<u8>(), any::<prop::sample::Index>(), 0u8..3), 0..8);
    (prop::sample::select(seeds), edits).prop_map(|(mut bytes, edits)| {
        for (byte, at, op) in edits {
            let i = if bytes.is_empty() {
                0
            } else {
                at.index(bytes.len())
            };
            match op {
                0 => bytes.insert(i, byte),
                1 if !bytes.is_empty() => {
                    bytes.remove(i);
                }
                _ if !bytes.is_empty() => bytes[i] = byte,
                _ => bytes.push(byte),
            }
        }
        bytes
    })
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn profiles_never_panic(bytes in prop_oneof![mutated("profile"), prop::collection::vec(any::<u8>(), 0..300)]) {
        let _ = abtest::profile::parse(text(&bytes), Path::new("fuzz.toml"), Side::Variant);
    }

    #[test]
    fn workload_files_never_panic(bytes in prop_oneof![mutated("workload"), prop::collection::vec(any::<u8>(), 0..300)]) {
        let _ = CustomWorkload::parse(&text(&bytes), Path::new("fuzz.toml"));
    }

    #[test]
    fn analyze_csv_never_panics(bytes in prop_oneof![mutated("csv"), prop::collection::vec(any::<u8>(), 0..300)]) {
        let _ = abtest::roundcsv::parse(bytes.as_slice(), "fuzz.csv");
    }
}

/// A value for a numeric or duration flag: ordinary, huge, zero, negative, fractional,
/// with every unit, or not a number at all.
fn flag_value() -> impl Strategy<Value = String> {
    prop_oneof![
        (0u64..100_000).prop_map(|n| n.to_string()),
        any::<u64>().prop_map(|n| n.to_string()),
        Just("18446744073709551616".to_string()),
        Just("-1".to_string()),
        Just("1e308".to_string()),
        Just("NaN".to_string()),
        Just("".to_string()),
        (
            any::<u64>(),
            prop::sample::select(vec!["ns", "ms", "s", "m", "h", "d", "w", "y", "%"])
        )
            .prop_map(|(n, unit)| format!("{n}{unit}")),
        (0u32..1000, prop::sample::select(vec!["s", "m", "h", "%"]))
            .prop_map(|(n, unit)| format!("{n}{unit}")),
        "[ -~]{0,12}",
    ]
}

/// Every flag of a run that takes a number or a duration.
const NUMERIC_FLAGS: &[&str] = &[
    "--threads",
    "--rounds",
    "--round-time",
    "--warmup",
    "--rewarm",
    "--pause",
    "--max-time",
    "--looks",
    "--instances",
    "--tables",
    "--table-size",
    "--range-size",
    "--point-selects",
    "--rate",
    "--report-interval",
    "--query-timeout",
    "--alpha",
    "--max-tps-loss",
    "--max-latency-inflation",
    "--max-error-rate",
    "--percentiles",
    "--seed",
    "--check-results",
    "--guard-gap",
    "--rand-spec-pct",
    "--random-points",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]

    /// Random values for the numeric and duration flags of a dry run never panic or hang:
    /// the plan is made (exit 0) or refused (exit 2).
    #[test]
    fn flags_never_panic(
        values in prop::collection::vec((prop::sample::select(NUMERIC_FLAGS.to_vec()), flag_value()), 1..4),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let profile = dir.path().join("external.toml");
        std::fs::write(
            &profile,
            "[connection]\nhost = \"127.0.0.1\"\nport = 3306\nuser = \"sb\"\ndatabase = \"sbtest\"\n",
        )
        .unwrap();
        let profile = profile.to_str().unwrap().to_string();
        let mut args: Vec<String> = ["abtest", "--baseline", &profile, "--variant", &profile, "--dry-run"]
            .map(String::from)
            .to_vec();
        for (flag, value) in &values {
            args.push(format!("{flag}={value}"));
        }
        let code = abtest::main_with_args(args.iter().map(std::ffi::OsString::from));
        prop_assert!(code == 0 || code == 2, "{args:?} exited {code}");
    }
}
