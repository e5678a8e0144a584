//! Running the experiment: rounds in schedule order, hooks at their points, results saved
//! after every round, and teardown no matter how the rounds ended.

pub mod experiment;
pub mod hooks;
pub mod interrupt;
pub mod round;
pub mod schedule;
pub mod worker;
