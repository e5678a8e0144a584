//! Running the experiment: rounds in schedule order, hooks at their points, results saved
//! after every round, and teardown no matter how the rounds ended.

pub mod arrivals;
pub mod control;
pub mod experiment;
pub mod hooks;
pub mod interrupt;
pub mod progress;
pub mod round;
pub mod rounds;
pub mod worker;
