//! Where the log lives: the `Storage` trait and the stores the core brings (none, all in
//! memory, compact in memory).
use crate::engine::log::LogRecord;
use crate::engine::snapshot::Snapshot;
use crate::ground::error::StorageError;

/// Where the log lives.
///
/// Contract: `append` is atomic — after `Ok` the record is durable and every later `load`
/// returns it after all earlier ones; after `Err` no part of it is stored, and the engine
/// leaves its state untouched. `load` returns the records in append order.
///
/// Snapshots are optional: a store that keeps them says how often it wants one
/// (`snapshot_every`), stores each it is given (`save_snapshot`, atomically: a torn snapshot
/// must never replace a whole one) and hands back the latest (`load_snapshot`). It may then
/// drop the records at or before the snapshot; `load` may still return them (they are
/// skipped) and must return every record after it.
pub trait Storage {
    /// Stores one record atomically.
    fn append(&mut self, record: &LogRecord) -> Result<(), StorageError>;
    /// Every stored record, oldest first (at least those after the latest snapshot).
    fn load(&self) -> Result<Vec<LogRecord>, StorageError>;
    /// The latest snapshot, if the store keeps them.
    fn load_snapshot(&self) -> Result<Option<Snapshot>, StorageError> {
        Ok(None)
    }
    /// Stores a snapshot of the state after record `snapshot.header.seq`.
    fn save_snapshot(&mut self, _snapshot: &Snapshot) -> Result<(), StorageError> {
        Ok(())
    }
    /// Records after the latest snapshot before the engine hands the store a new one
    /// (`None`: never). The engine also waits at least as many records as the state holds
    /// ([`crate::Engine::snapshot_due`]).
    fn snapshot_every(&self) -> Option<u64> {
        None
    }
}

/// A storage that keeps nothing: for hosts that store each prepared record themselves
/// (asynchronously, e.g. IndexedDB) and then commit it, and for engines rebuilt by `absorb`.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoStorage;

impl Storage for NoStorage {
    fn append(&mut self, _record: &LogRecord) -> Result<(), StorageError> {
        Ok(())
    }

    fn load(&self) -> Result<Vec<LogRecord>, StorageError> {
        Ok(Vec::new())
    }
}

/// The in-memory log, for tests, the CLI and hosts that persist elsewhere: every record it
/// is given, and optionally a snapshot it was opened from (an import).
#[derive(Clone, Debug, Default)]
pub struct MemoryStorage {
    snapshot: Option<Snapshot>,
    records: Vec<LogRecord>,
}

impl MemoryStorage {
    /// An empty log.
    pub fn new() -> Self {
        Self::default()
    }

    /// The records, for export (after the snapshot, if it was opened from one).
    pub fn records(&self) -> &[LogRecord] {
        &self.records
    }

    /// A log holding `records` (an import).
    pub fn from_records(records: Vec<LogRecord>) -> Self {
        MemoryStorage { snapshot: None, records }
    }

    /// A log holding a snapshot and the records after it (an import of an export).
    pub fn from_snapshot(snapshot: Option<Snapshot>, records: Vec<LogRecord>) -> Self {
        MemoryStorage { snapshot, records }
    }

    /// The snapshot it was opened from.
    pub fn snapshot(&self) -> Option<&Snapshot> {
        self.snapshot.as_ref()
    }
}

impl Storage for MemoryStorage {
    fn append(&mut self, record: &LogRecord) -> Result<(), StorageError> {
        self.records.push(record.clone());
        Ok(())
    }

    fn load(&self) -> Result<Vec<LogRecord>, StorageError> {
        Ok(self.records.clone())
    }

    fn load_snapshot(&self) -> Result<Option<Snapshot>, StorageError> {
        Ok(self.snapshot.clone())
    }
}

/// An in-memory store whose memory is bounded by the live state, not by history: it keeps the
/// latest records only (between `keep` and `2 × keep` of them, for hosts that read the last
/// record or a short tail) and lets older ones go. For hosts that keep a workspace in memory
/// for a long time (the npm package's default). Export with `Engine::snapshot`: the engine's
/// state is the whole workspace.
///
/// It cannot reopen what it let go: `load` refuses once records were dropped (open a
/// workspace from an export, or use a durable store).
#[derive(Clone, Debug)]
pub struct CompactStorage {
    tail: std::collections::VecDeque<LogRecord>,
    keep: usize,
    dropped: u64,
}

impl CompactStorage {
    /// Records kept by default.
    pub const DEFAULT_KEEP: usize = 256;

    /// An empty store that keeps the latest `keep` records (at least 1).
    pub fn new(keep: usize) -> Self {
        CompactStorage { tail: std::collections::VecDeque::new(), keep: keep.max(1), dropped: 0 }
    }

    /// The latest records, oldest first.
    pub fn records(&self) -> impl ExactSizeIterator<Item = &LogRecord> + '_ {
        self.tail.iter()
    }

    /// The latest record.
    pub fn last(&self) -> Option<&LogRecord> {
        self.tail.back()
    }
}

impl Default for CompactStorage {
    fn default() -> Self {
        CompactStorage::new(Self::DEFAULT_KEEP)
    }
}

impl Storage for CompactStorage {
    fn append(&mut self, record: &LogRecord) -> Result<(), StorageError> {
        if self.tail.len() >= 2 * self.keep {
            let drop = self.tail.len() - self.keep;
            self.tail.drain(..drop);
            self.dropped += drop as u64;
        }
        self.tail.push_back(record.clone());
        Ok(())
    }

    fn load(&self) -> Result<Vec<LogRecord>, StorageError> {
        if self.dropped > 0 {
            return Err(StorageError::Unavailable(format!(
                "a compact store keeps no history: it let {} records go; open from an export",
                self.dropped
            )));
        }
        Ok(self.tail.iter().cloned().collect())
    }
}
