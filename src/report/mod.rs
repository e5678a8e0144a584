//! Reports rendered from a results file. Each format owns one file; all of them read
//! the same [`crate::results::ResultsFile`], so `abtest report` can re-render any of them
//! from a saved run.

pub mod format;
pub mod table;
