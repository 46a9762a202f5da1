//! Where a workspace lives, as a session asks of it: [`Workspace`], implemented by a browser
//! workspace over IndexedDB ([`Persistent`]) and by a `baton serve` workspace attached live
//! ([`Remote`], in `remote.rs`). The session holds one and never asks which it is, except for
//! what only one of them has (a browser workspace's demo and seed, a server's link).
use crate::remote::Remote;
use baton_core::{CallError, Command, Effect, Engine, LogRecord, NoStorage, Timestamp};
use baton_wasm::persist::Persistent;
use futures::future::LocalBoxFuture;
use serde_json::Value;
use std::cell::Ref;
use std::rc::Rc;

/// A workspace's engine and log, wherever they are kept.
pub trait Workspace {
    /// The engine, read-only (views, previews). Not held across an await.
    fn engine(&self) -> Ref<'_, Engine<NoStorage>>;
    /// The effects the engine asked a host to carry out since the last call.
    fn take_effects(&self) -> Vec<Effect>;
    /// The records committed since the last call, oldest first.
    fn take_fresh(&self) -> Vec<LogRecord>;
    /// The record the engine was opened from (its snapshot's; 0 when replayed from the first).
    fn opened_from(&self) -> u64;
    /// Up to `count` records after `after`, oldest first.
    fn history(&self, after: u64, count: u32) -> LocalBoxFuture<'_, Result<Vec<LogRecord>, CallError>>;
    /// The first record the log holds (1, unless it starts from an imported snapshot).
    fn history_starts_at(&self) -> LocalBoxFuture<'_, Result<u64, CallError>>;
    /// Reads what another tab or client committed; answers how many records arrived.
    fn catch_up(&self) -> LocalBoxFuture<'_, Result<usize, CallError>>;
    /// Runs one command at `now` and answers as the engine did.
    fn exec(&self, command: Command, now: Timestamp) -> LocalBoxFuture<'_, Result<Value, CallError>>;
    /// Lets go of it (a database connection, an event stream).
    fn close(&self);
    /// The browser workspace, when this is one.
    fn local(&self) -> Option<&Persistent> {
        None
    }
    /// The server workspace, when this is one.
    fn remote(&self) -> Option<&Rc<Remote>> {
        None
    }
}

/// A browser workspace: its engine over IndexedDB, on this tab's clock.
impl Workspace for Persistent {
    fn engine(&self) -> Ref<'_, Engine<NoStorage>> {
        Persistent::engine(self)
    }

    fn take_effects(&self) -> Vec<Effect> {
        self.engine_mut().take_effects()
    }

    fn take_fresh(&self) -> Vec<LogRecord> {
        Persistent::take_fresh(self)
    }

    fn opened_from(&self) -> u64 {
        Persistent::opened_from(self)
    }

    fn history(&self, after: u64, count: u32) -> LocalBoxFuture<'_, Result<Vec<LogRecord>, CallError>> {
        Box::pin(Persistent::history(self, after, count))
    }

    fn history_starts_at(&self) -> LocalBoxFuture<'_, Result<u64, CallError>> {
        Box::pin(Persistent::history_starts_at(self))
    }

    fn catch_up(&self) -> LocalBoxFuture<'_, Result<usize, CallError>> {
        Box::pin(Persistent::catch_up(self))
    }

    fn exec(&self, command: Command, now: Timestamp) -> LocalBoxFuture<'_, Result<Value, CallError>> {
        Box::pin(Persistent::exec(self, command, now))
    }

    fn close(&self) {
        Persistent::close(self)
    }

    fn local(&self) -> Option<&Persistent> {
        Some(self)
    }
}

/// A server workspace: the server runs every command at its own time and ticks itself, so a
/// tick here does nothing.
impl Workspace for Rc<Remote> {
    fn engine(&self) -> Ref<'_, Engine<NoStorage>> {
        Remote::engine(self)
    }

    fn take_effects(&self) -> Vec<Effect> {
        self.engine_mut().take_effects()
    }

    fn take_fresh(&self) -> Vec<LogRecord> {
        Remote::take_fresh(self)
    }

    fn opened_from(&self) -> u64 {
        Remote::opened_from(self)
    }

    fn history(&self, after: u64, count: u32) -> LocalBoxFuture<'_, Result<Vec<LogRecord>, CallError>> {
        Box::pin(Remote::history(self, after, count))
    }

    fn history_starts_at(&self) -> LocalBoxFuture<'_, Result<u64, CallError>> {
        Box::pin(Remote::history_starts_at(self))
    }

    fn catch_up(&self) -> LocalBoxFuture<'_, Result<usize, CallError>> {
        Box::pin(Remote::catch_up(self))
    }

    fn exec(&self, command: Command, _now: Timestamp) -> LocalBoxFuture<'_, Result<Value, CallError>> {
        Box::pin(async move {
            match command {
                Command::Call { tool, args, caller } => self.call(&tool, args, &caller).await,
                Command::Host { input, args } => self.host(&input, args).await,
                Command::Tick => Ok(Value::Null),
            }
        })
    }

    fn close(&self) {
        Remote::close(self)
    }

    fn remote(&self) -> Option<&Rc<Remote>> {
        Some(self)
    }
}
