//! Where `baton serve` keeps things, whichever database it is. `log.rs` is the interface —
//! the handlers' side ([`log::Store`]), where a writer gets its log ([`log::LogSource`]), the
//! log as the writer sees it ([`log::WriterLog`]). One node keeps a SQLite file (`sqlite.rs`)
//! and its workspaces' records files (`records.rs`), the store over both in `local.rs`;
//! several nodes share Postgres (`postgres.rs`). This file only assembles.
pub mod local;
pub mod log;
pub mod postgres;
pub mod records;
pub mod sqlite;
