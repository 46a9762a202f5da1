//! The append-only log: what each accepted command changed, behind a narrow storage trait.
use crate::agent::Agent;
use crate::ask::{Ask, CallSnapshot};
use crate::blueprint::BlueprintManifest;
use crate::config::Config;
use crate::error::StorageError;
use crate::handoff::Handoff;
use crate::leg::{Leg, LegGroup, LegSession};
use crate::mailbox::Message;
use crate::relay::{RelayMessage, RelayThread, Teammate};
use crate::schedule::{Schedule, Skill};
use crate::sibling::{AuditEntry, SiblingSession};
use crate::thread::{Activity, Thread};
use crate::time::Timestamp;
use crate::todo::TodoPlan;
use crate::trust::TrustPolicy;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The stored format's version. A compatibility boundary: bump it when a record's shape
/// changes, and teach `Engine::open` to read the old one.
pub const LOG_FORMAT_VERSION: u32 = 1;

/// One thing a command changed: the new version of a record (an upsert). Replaying the
/// changes in order rebuilds the state exactly, because `apply` is the only writer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Change {
    /// New configuration.
    Configured(Config),
    /// Agent registered or changed.
    Agent(Agent),
    /// Blueprint manifest registered or changed.
    Blueprint(BlueprintManifest),
    /// Thread created or changed.
    Thread(Arc<Thread>),
    /// A thread's activity record changed.
    Activity {
        /// Thread.
        thread_id: String,
        /// Its new activity record.
        activity: Arc<Activity>,
    },
    /// Handoff created or changed.
    Handoff(Arc<Handoff>),
    /// Message created or changed.
    Message(Arc<Message>),
    /// Teammate registered or changed.
    Teammate(Teammate),
    /// A recipient's trust policy.
    Trust {
        /// Recipient handle.
        handle: String,
        /// The policy.
        policy: TrustPolicy,
    },
    /// Relay thread created or changed.
    RelayThread(Arc<RelayThread>),
    /// Relay message created.
    RelayMessage(Arc<RelayMessage>),
    /// The recipient has seen the sender's messages up to this count (I2).
    RelaySeen {
        /// Thread.
        thread_id: String,
        /// `sender_messages` at the time.
        seen: u64,
    },
    /// Sibling session created or changed.
    Session(Arc<SiblingSession>),
    /// An audit log entry (X5).
    Audit(AuditEntry),
    /// Schedule created or changed.
    Schedule(Arc<Schedule>),
    /// Scheduler skill created or trashed.
    Skill(Skill),
    /// A task's checklist.
    Todo(TodoPlan),
    /// A report file written in a task (A7).
    Report {
        /// Task.
        task_id: String,
        /// Path.
        path: String,
    },
    /// Question to the user asked or answered.
    Ask(Arc<Ask>),
    /// Leg created or changed.
    Leg(Arc<Leg>),
    /// Named leg session registered.
    LegSession(LegSession),
    /// Background group created or changed.
    LegGroup(LegGroup),
    /// A leg's stored report.
    LegReport {
        /// `temp-<name>.md`.
        path: String,
        /// The report text, whole.
        text: String,
    },
    /// A tool call of the thread's current turn, kept for an `ask_user` snapshot (A8).
    TurnCall {
        /// Thread.
        thread_id: String,
        /// The call, clamped.
        call: CallSnapshot,
    },
    /// A new turn started: the previous turn's calls are dropped.
    TurnReset {
        /// Thread.
        thread_id: String,
    },
    /// The delivery sweep's next run.
    Sweep {
        /// When, or `None` when no mail waits.
        due: Option<Timestamp>,
    },
}

/// One accepted command: one atomic append.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LogRecord {
    /// Format version ([`LOG_FORMAT_VERSION`]).
    pub v: u32,
    /// Position in the log, from 1.
    pub seq: u64,
    /// The command's `now`.
    pub at: Timestamp,
    /// Tool or host input name (`handoff`, `turn_ended`, `tick`).
    pub command: String,
    /// The id sequence after the command, so a reloaded engine never reissues an id.
    pub id_seq: u64,
    /// What changed, in order.
    pub changes: Vec<Change>,
}

impl LogRecord {
    /// The record as one JSON line (the portable stored form).
    pub fn to_json_line(&self) -> String {
        serde_json::to_string(self).expect("log records always serialize")
    }

    /// Reads one JSON line.
    pub fn from_json_line(line: &str, index: usize) -> Result<LogRecord, StorageError> {
        serde_json::from_str(line).map_err(|e| StorageError::Corrupt { index, reason: e.to_string() })
    }
}

/// Where the log lives.
///
/// Contract: `append` is atomic — after `Ok` the record is durable and every later `load`
/// returns it after all earlier ones; after `Err` no part of it is stored, and the engine
/// leaves its state untouched. `load` returns the records in append order.
pub trait Storage {
    /// Stores one record atomically.
    fn append(&mut self, record: &LogRecord) -> Result<(), StorageError>;
    /// Every stored record, oldest first.
    fn load(&self) -> Result<Vec<LogRecord>, StorageError>;
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

/// The in-memory log, for tests, the CLI and hosts that persist elsewhere.
#[derive(Clone, Debug, Default)]
pub struct MemoryStorage {
    records: Vec<LogRecord>,
}

impl MemoryStorage {
    /// An empty log.
    pub fn new() -> Self {
        Self::default()
    }

    /// The records, for export.
    pub fn records(&self) -> &[LogRecord] {
        &self.records
    }

    /// A log holding `records` (an import).
    pub fn from_records(records: Vec<LogRecord>) -> Self {
        MemoryStorage { records }
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
}
