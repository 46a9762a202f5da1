//! The ground every capability stands on: ids, time, errors and their codes, input limits,
//! the one lifecycle shape, deltas, configuration and record sealing. It names no capability.
pub(crate) mod config;
pub(crate) mod delta;
pub(crate) mod error;
pub(crate) mod ids;
pub(crate) mod limits;
pub(crate) mod machine;
pub(crate) mod records;
pub(crate) mod time;
