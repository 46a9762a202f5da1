//! What a workspace's writer needs of its log, whichever database keeps it: the engine's
//! storage plus a transaction per batch, effects and kept answers ([`WriterLog`]).
use baton_core::Storage;

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

/// A workspace's log as its writer sees it: the engine's [`Storage`], plus a transaction per
/// batch of commands and what is stored with the records (effects, kept answers).
pub trait WriterLog: Storage {
    /// Starts a batch.
    fn begin(&mut self) -> Result<(), WriteError>;
    /// Appends a record already encoded to its line.
    fn append_line(&mut self, seq: u64, line: &str) -> Result<(), baton_core::StorageError>;
    /// Stores effect `seq` with the batch.
    fn append_effect(&mut self, seq: u64, body: &str) -> Result<(), WriteError>;
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
