//! The ground every capability stands on: ids, time, errors and their codes, input limits,
//! the one lifecycle shape, deltas, configuration, record sealing and the maps that grow with
//! a workspace, and the stored form's mode. It names no capability.
pub(crate) mod case;
pub(crate) mod config;
pub(crate) mod delta;
pub(crate) mod error;
pub(crate) mod ids;
pub(crate) mod limits;
pub(crate) mod lists;
pub(crate) mod machine;
pub(crate) mod records;
pub(crate) mod sharded;
pub(crate) mod stored;
pub(crate) mod time;
