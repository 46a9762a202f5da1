//! Where `baton serve` keeps things, whichever database it is. `log.rs` is the interface —
//! the handlers' side ([`log::Store`]), where a writer gets its log ([`log::LogSource`]), the
//! log as the writer sees it ([`log::WriterLog`]); SQLite (`sqlite.rs`, one node) and Postgres
//! (`postgres.rs`, several on one database) each implement it in their own file. This file
//! only assembles.
pub mod local;
pub mod log;
pub mod postgres;
pub mod records;
pub mod sqlite;
