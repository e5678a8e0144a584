//! One integration-test binary (faster to link than one per file). Tests that start
//! servers run real MariaDB instances that they start themselves.

mod support;
