//! Servers on both sides: managed throwaway MariaDB instances, their TLS material, and
//! the facts read from any server so a report can prove what actually differed.

pub mod facts;
pub mod options;
pub mod probe;
pub mod sandbox;
pub mod tls;
