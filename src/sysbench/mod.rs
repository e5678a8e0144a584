//! Bridges from sysbench: translating a sysbench 0.4 or 1.0 command line into abtest
//! options, and importing sysbench result logs as per-round values for `abtest analyze`.
//! Users arrive with years of sysbench habits and logs; both should carry over.

pub(crate) mod habits;
pub(crate) mod log;
pub(crate) mod script;
pub(crate) mod translate;
pub(crate) mod whole;
