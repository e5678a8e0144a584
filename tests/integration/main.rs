//! One integration-test binary (faster to link than one per file). Tests that start
//! servers run real MariaDB instances that they start themselves, never one that happens
//! to be running.

mod analyze;
mod answers;
mod bad_input;
mod capture;
mod client_behaviour;
mod confinement;
mod custom_workload;
mod defaults_file;
mod docs;
mod faults;
mod fuzz;
mod managed_run;
mod outputs;
mod parity;
mod planted;
mod preflight;
mod query_classes;
mod reports;
mod restore;
mod safety;
mod scripts;
mod secrets;
mod security;
mod segments;
mod shared_server;
mod support;
mod sweep;
mod sysbench_bridge;
mod tampered;
mod upgrade;
mod verdicts;
