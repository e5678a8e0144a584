//! A password that cannot be printed by accident: `Debug` and `Display` redact it and it
//! has no `Serialize`, so it can never reach a log line, an error or a results file.

use std::fmt;

/// A secret string, redacted everywhere except where [`Secret::expose`] is called.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret value.
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }

    /// The secret itself; call only where it is handed to the client library.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// A random password of 24 alphanumeric characters for managed servers.
    pub fn random() -> Self {
        use rand::distr::{Alphanumeric, Distribution};
        use rand::{SeedableRng, rngs::StdRng};
        let mut seed = [0u8; 32];
        fill_from_os(&mut seed);
        let mut rng = StdRng::from_seed(seed);
        Secret(
            Alphanumeric
                .sample_iter(&mut rng)
                .take(24)
                .map(char::from)
                .collect(),
        )
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// Fills `buffer` from the kernel's random source.
pub fn fill_from_os(buffer: &mut [u8]) {
    use std::io::Read;
    let filled = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(buffer));
    if filled.is_err() {
        // No /dev/urandom: fall back to the std hasher's per-process random keys.
        use std::hash::{BuildHasher, Hasher};
        for chunk in buffer.chunks_mut(8) {
            let value = std::collections::hash_map::RandomState::new()
                .build_hasher()
                .finish();
            chunk.copy_from_slice(&value.to_le_bytes()[..chunk.len()]);
        }
    }
}

/// A random 64-bit value from the kernel, used as the default seed.
pub fn random_u64() -> u64 {
    let mut bytes = [0u8; 8];
    fill_from_os(&mut bytes);
    u64::from_le_bytes(bytes)
}
