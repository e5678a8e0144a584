//! Running the experiment: rounds in schedule order, hooks at their points, results saved
//! after every round, and teardown no matter how the rounds ended.

pub(crate) mod arrivals;
pub(crate) mod backend;
mod class_timing;
pub(crate) mod control;
mod data_copy;
pub(crate) mod experiment;
pub(crate) mod hooks;
mod insert_ids;
pub(crate) mod interrupt;
pub(crate) mod looks;
pub(crate) mod pool;
mod prepare;
mod prepare_check;
pub(crate) mod progress;
mod quarantine;
pub(crate) mod round;
pub(crate) mod round_loop;
pub(crate) mod segments;
pub(crate) mod shared;
mod swap;
pub(crate) mod worker;
