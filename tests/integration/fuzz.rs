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
