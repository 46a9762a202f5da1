//! What the server needs of its database, whichever keeps it — the interface SQLite
//! (`sqlite.rs`) and Postgres (`postgres.rs`) each implement in their own file: the handlers'
//! side ([`Store`]: keys, workspaces, paged reads), where a writer gets its log
//! ([`LogSource`]), and the log as the writer sees it ([`WriterLog`]: the engine's storage
//! plus a transaction per batch, effects and kept answers).
use crate::serve::keys::{Ending, StoredKey};
use baton_core::Storage;
use std::sync::Arc;

/// Which stored stream to read: the log's records or the effects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    /// Log records (`/events`).
    Log,
    /// Effects, the host's instructions (`/effects`).
    Effects,
}

/// What a store's method answers, later (SQLite answers at once; Postgres over its pool).
pub type Pending<'a, T> = futures_util::future::BoxFuture<'a, Result<T, String>>;

/// The handlers' side of the database.
pub trait Store: Send + Sync {
    /// Where a writer opens its workspace's log.
    fn logs(&self) -> Arc<dyn LogSource>;

    /// The workspaces this node opens when it starts, with their seeds (SQLite: every one;
    /// Postgres: none — a node writes what its leases give it).
    fn opened_at_start(&self) -> Result<Vec<(String, u64)>, String> {
        Ok(Vec::new())
    }

    /// The database's name when it can only be read (a read-only disk or file).
    fn read_only(&self) -> Option<String> {
        None
    }

    /// The stored key with this hash. Never cached: a revocation counts at once, on every node.
    fn key<'a>(&'a self, hash: &'a str) -> Pending<'a, Option<StoredKey>>;

    /// A workspace's keys, oldest first.
    fn keys<'a>(&'a self, workspace: &'a str) -> Pending<'a, Vec<StoredKey>>;

    /// Stores a key; with `ending`, ends another in the same transaction (a rotation).
    fn add_key<'a>(&'a self, k: &'a StoredKey, ending: Option<&'a Ending>) -> Pending<'a, ()>;

    /// Ends a key: revoked, or to expire.
    fn end_key<'a>(&'a self, e: &'a Ending) -> Pending<'a, ()>;

    /// Creates a workspace: `None` when one of that name exists, else the lease epoch this
    /// node holds it at (0 on SQLite, where there are no leases).
    fn create_workspace<'a>(&'a self, name: &'a str, seed: u64, now_ms: u64) -> Pending<'a, Option<i64>>;

    /// Whether a workspace exists that this node does not have open (on Postgres, written by
    /// another node); on SQLite every workspace is open on this node, so none.
    fn exists<'a>(&'a self, name: &'a str) -> Pending<'a, bool>;

    /// Stored rows after `after` (the log's records or the effects), oldest first.
    fn rows_after<'a>(
        &'a self,
        stream: Stream,
        workspace: &'a str,
        after: u64,
        limit: usize,
    ) -> Pending<'a, Vec<(u64, String)>>;
}

/// Where a writer opens its workspace's log.
pub trait LogSource: Send + Sync {
    /// The log of workspace `name`; on Postgres, written under this node's lease at `epoch`.
    fn open_log(&self, name: &str, epoch: i64) -> Result<Box<dyn WriterLog>, WriteError>;

    /// Whether a writer that cannot reopen its log steps down (the database is shared: another
    /// node that reaches it takes the workspace) rather than stopping the process.
    fn shared(&self) -> bool;
}

/// Why a writer's transaction did not commit.
#[derive(Debug)]
pub enum WriteError {
    /// Another node holds the workspace now: this writer steps down.
    Fenced(String),
    /// The database refused or could not be reached; nothing of the batch is kept.
    Failed(String),
}

impl WriteError {
    pub fn message(&self) -> &str {
        match self {
            WriteError::Fenced(m) | WriteError::Failed(m) => m,
        }
    }
}

/// A command's answer kept under its idempotency key, written with the command's records.
pub struct AnswerRow {
    /// Whose key (the principal, stored form): two principals' keys never meet.
    pub scope: String,
    pub key: String,
    /// The request's digest: the same key with another request is refused.
    pub fingerprint: String,
    /// The answer's JSON.
    pub answer: String,
}

/// The most text a snapshot part holds; a line longer than that is a part of its own.
pub const SNAPSHOT_PART_BYTES: usize = 256 * 1024;

/// One part of a workspace's snapshot: some of its lines, in order, joined by newlines. A
/// snapshot is stored part by part, each between two of the writer's batches, so that a large
/// state never holds the writer (or the database's write lock) for as long as writing all of
/// it takes; the last part makes it the workspace's snapshot. Readers join the parts of the
/// current snapshot with newlines; the header line counts the lines, so a missing part is
/// refused as a torn snapshot.
#[derive(Clone, Debug, PartialEq)]
pub struct SnapshotPart {
    /// The record the snapshot is after.
    pub seq: u64,
    /// Its place among the snapshot's parts, from 0.
    pub index: u32,
    pub body: String,
    /// Whether it is the snapshot's last part.
    pub last: bool,
}

/// A snapshot's lines in parts of at most [`SNAPSHOT_PART_BYTES`] (never splitting a line).
pub fn snapshot_parts(seq: u64, lines: impl Iterator<Item = String>) -> impl Iterator<Item = SnapshotPart> {
    let mut lines = lines.peekable();
    let mut index = 0;
    std::iter::from_fn(move || {
        let mut body = lines.next()?;
        while let Some(next) = lines.peek() {
            if body.len() + 1 + next.len() > SNAPSHOT_PART_BYTES {
                break;
            }
            body.push('\n');
            body.push_str(next);
            lines.next();
        }
        let part = SnapshotPart { seq, index, body, last: lines.peek().is_none() };
        index += 1;
        Some(part)
    })
}

/// A workspace's log as its writer sees it: the engine's [`Storage`], plus a transaction per
/// batch of commands and what is stored with the records (effects, kept answers).
pub trait WriterLog: Storage {
    /// Starts a batch.
    fn begin(&mut self) -> Result<(), WriteError>;
    /// Appends a record already encoded to its line.
    fn append_line(&mut self, seq: u64, line: &str) -> Result<(), baton_core::StorageError>;
    /// Stores effect `seq` with the batch.
    fn append_effect(&mut self, seq: u64, body: &str) -> Result<(), WriteError>;
    /// Stores a part of a snapshot in a transaction of its own, between batches (never in
    /// one: a part that does not fit — a full disk — fails alone, and no command with it); the
    /// last part makes that snapshot the workspace's and drops the parts of any other.
    fn store_snapshot_part(&mut self, part: &SnapshotPart) -> Result<(), WriteError>;
    /// Keeps an answer under its idempotency key, with the batch.
    fn put_answer(&mut self, row: AnswerRow) -> Result<(), WriteError>;
    /// The answer kept under an idempotency key (fingerprint, answer), if any.
    fn answer(&mut self, scope: &str, key: &str) -> Result<Option<(String, String)>, WriteError>;
    /// Makes the batch durable — or nothing of it.
    fn commit(&mut self) -> Result<(), WriteError>;
    /// Drops the batch.
    fn rollback(&mut self);
    /// The last effect number stored.
    fn last_effect(&mut self) -> Result<u64, String>;
    /// The last `callback` effect stored for a handoff (its JSON), if any.
    fn last_callback(&mut self, handoff_id: &str) -> Result<Option<String>, String>;
    /// The stored log lines after `seq`, oldest first, at most `limit`.
    fn lines_after(&self, seq: u64, limit: usize) -> Result<Vec<(u64, String)>, String>;
}

/// A writer's log as the engine's storage when it is opened on its own (an export reads a
/// workspace through the log a writer would open).
impl Storage for Box<dyn WriterLog> {
    fn append(&mut self, record: &baton_core::LogRecord) -> Result<(), baton_core::StorageError> {
        (**self).append(record)
    }
    fn load(&self) -> Result<Vec<baton_core::LogRecord>, baton_core::StorageError> {
        (**self).load()
    }
    fn load_snapshot(&self) -> Result<Option<baton_core::Snapshot>, baton_core::StorageError> {
        (**self).load_snapshot()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snapshot_is_cut_into_parts_between_its_lines() {
        let long = "x".repeat(SNAPSHOT_PART_BYTES + 10);
        let line = |n: usize| "y".repeat(n);
        let lines = vec![line(10), line(SNAPSHOT_PART_BYTES - 20), line(30), long.clone(), line(5)];
        let parts: Vec<SnapshotPart> = snapshot_parts(7, lines.clone().into_iter()).collect();
        let bodies: Vec<&str> = parts.iter().map(|p| p.body.as_str()).collect();
        // The first two fit together (10 + 1 + SNAPSHOT_PART_BYTES - 20); the long line is a
        // part of its own; joining the parts gives the lines back.
        assert_eq!(bodies.len(), 4, "{:?}", parts.iter().map(|p| p.body.len()).collect::<Vec<_>>());
        assert_eq!(bodies.join("\n"), lines.join("\n"));
        assert_eq!(
            parts.iter().map(|p| (p.seq, p.index, p.last)).collect::<Vec<_>>(),
            [(7, 0, false), (7, 1, false), (7, 2, false), (7, 3, true)]
        );
        assert!(parts.iter().all(|p| p.body.len() <= SNAPSHOT_PART_BYTES || p.body == long));
        let one: Vec<SnapshotPart> = snapshot_parts(1, vec![line(3)].into_iter()).collect();
        assert_eq!(one, [SnapshotPart { seq: 1, index: 0, body: line(3), last: true }]);
    }
}
