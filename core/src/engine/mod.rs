//! The engine: runs one command at a time as a transaction — stage, append, apply, emit.
pub(crate) mod log;
pub(crate) mod snapshot;
pub(crate) mod state;
pub(crate) mod storage;
pub(crate) mod timers;
pub(crate) mod tx;

use tx::Tx;

use crate::engine::log::{Change, LogRecord, LOG_FORMAT_OLDEST, LOG_FORMAT_VERSION};
use crate::engine::snapshot::{Frozen, Restore, Snapshot};
use crate::engine::state::State;
use crate::engine::storage::{MemoryStorage, Storage};
use crate::ground::error::{CallError, ErrorCode, LoadError, StorageError};
use crate::ground::ids::IdSource;
use crate::ground::time::Timestamp;
use crate::handoff::effect::Effect;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Who makes a tool call: the calling thread, and the bot when the call runs with agent
/// context. Without `bot`, the call still acts for the thread's bot, but rule B1 treats it
/// as having no agent context.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Caller {
    /// Calling thread (required by the handoff tools).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread: Option<crate::ground::ids::ThreadId>,
    /// Calling bot (must own the thread when given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bot: Option<String>,
    /// Teammate handle (the relay tools act as a teammate; default: the teammate whose
    /// `bot_id` is the calling bot).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handle: Option<String>,
}

impl Caller {
    /// A caller with agent context.
    pub fn new(thread: &str, bot: &str) -> Self {
        Caller { thread: Some(thread.into()), bot: Some(bot.to_string()), handle: None }
    }

    /// A caller acting as a teammate, with no thread.
    pub fn teammate(handle: &str) -> Self {
        Caller { thread: None, bot: None, handle: Some(handle.to_string()) }
    }
}

/// The Baton engine over a storage. Sans-IO: every command takes `now`; nothing here reads
/// a clock, a random source, the network or a file.
pub struct Engine<S: Storage = MemoryStorage> {
    state: State,
    storage: S,
    ids: Box<dyn IdSource>,
    effects: Vec<Effect>,
    last_at: Timestamp,
    /// The record the storage's latest snapshot is of (0: none).
    snapshot_seq: u64,
    /// The trace context the next commands came with, kept on their records.
    trace: Option<crate::engine::log::TraceContext>,
}

impl<S: Storage> Engine<S> {
    /// Opens an engine over `storage`: its latest snapshot, if it keeps them, then every
    /// record after it (the whole log when there is no snapshot).
    pub fn open(storage: S, ids: Box<dyn IdSource>) -> Result<Self, LoadError> {
        let snapshot = storage.load_snapshot()?;
        Engine::open_from(snapshot, storage, ids)
    }

    /// Opens an engine from a snapshot the host read itself (an asynchronous store), then the
    /// records `storage.load()` gives after it.
    pub fn open_from(snapshot: Option<Snapshot>, storage: S, ids: Box<dyn IdSource>) -> Result<Self, LoadError> {
        Engine::open_from_keeping_hot(snapshot, storage, ids, None)
    }

    /// [`Engine::open_from`] with [`Engine::keep_hot_records`] set before anything is read, so
    /// no record outside the default window is sealed on the way in (a host that keeps every
    /// record plain — the console — would otherwise decode the snapshot's records on every read).
    pub fn open_from_keeping_hot(
        snapshot: Option<Snapshot>,
        storage: S,
        ids: Box<dyn IdSource>,
        keep_hot: Option<usize>,
    ) -> Result<Self, LoadError> {
        Engine::open_with(snapshot, storage, ids, keep_hot, false)
    }

    /// [`Engine::open_from_keeping_hot`] with the due index deferred from the start
    /// ([`Engine::defer_due_index`]): the snapshot is restored and the records after it applied
    /// without it. For a host that draws a workspace before it runs its clock, or never runs
    /// it (the console).
    pub fn open_from_due_later(
        snapshot: Option<Snapshot>,
        storage: S,
        ids: Box<dyn IdSource>,
        keep_hot: Option<usize>,
    ) -> Result<Self, LoadError> {
        Engine::open_with(snapshot, storage, ids, keep_hot, true)
    }

    /// Opens an engine from a snapshot restored a part at a time ([`Restore`]), then the
    /// records `storage.load()` gives after it. The window of records kept plain and the due
    /// index's deferral are the ones the restore began with. Refuses a restore that has not
    /// read every line its snapshot's header counts.
    pub fn open_restored(restore: Restore, storage: S, ids: Box<dyn IdSource>) -> Result<Self, LoadError> {
        Engine::open_state(Some(restore.finish()?), storage, ids, None, false)
    }

    fn open_with(
        snapshot: Option<Snapshot>,
        storage: S,
        ids: Box<dyn IdSource>,
        keep_hot: Option<usize>,
        due_later: bool,
    ) -> Result<Self, LoadError> {
        let restored = match snapshot {
            Some(s) => {
                let at = s.header.at;
                Some((s.restore(keep_hot, due_later)?, at))
            }
            None => None,
        };
        Engine::open_state(restored, storage, ids, keep_hot, due_later)
    }

    /// Opens an engine from a restored state and the time of its last record (or from the
    /// start), then the records `storage.load()` gives after it.
    fn open_state(
        restored: Option<(State, Timestamp)>,
        storage: S,
        ids: Box<dyn IdSource>,
        keep_hot: Option<usize>,
        due_later: bool,
    ) -> Result<Self, LoadError> {
        let mut engine = Engine {
            state: State::default(),
            storage,
            ids,
            effects: Vec::new(),
            trace: None,
            last_at: Timestamp(0),
            snapshot_seq: 0,
        };
        if let Some((state, at)) = restored {
            engine.last_at = at;
            engine.snapshot_seq = state.log_seq;
            engine.state = state;
        } else {
            if let Some(keep) = keep_hot {
                engine.state.keep_hot(keep);
            }
            if due_later {
                engine.state.defer_due();
            }
        }
        for (index, record) in engine.storage.load()?.into_iter().enumerate() {
            if !(LOG_FORMAT_OLDEST..=LOG_FORMAT_VERSION).contains(&record.v) {
                return Err(LoadError::UnsupportedVersion { index, found: record.v, supported: LOG_FORMAT_VERSION });
            }
            if record.seq <= engine.state.log_seq && engine.snapshot_seq > 0 {
                continue; // already in the snapshot
            }
            if record.seq != engine.state.log_seq + 1 {
                let reason = format!("record {} where record {} was due", record.seq, engine.state.log_seq + 1);
                return Err(StorageError::Corrupt { index, reason }.into());
            }
            engine.apply_record(record).map_err(|reason| StorageError::Corrupt { index, reason })?;
        }
        Ok(engine)
    }

    /// Whether a snapshot is due by the rule the engine applies to stores that keep them:
    /// at least `every` records since the last one, and at least as many as the state holds
    /// (so a snapshot's cost stays a bounded share of the commands').
    pub fn snapshot_due(&self, every: u64) -> bool {
        let since = self.state.log_seq - self.snapshot_seq;
        since >= every.max(1) && since >= self.state.record_count()
    }

    /// Notes that the host stored a snapshot of the state after record `seq` itself.
    pub fn snapshot_stored(&mut self, seq: u64) {
        self.snapshot_seq = self.snapshot_seq.max(seq);
    }

    /// A snapshot of the state now (after record [`Engine::log_seq`]). Opening from it plus
    /// the records after it gives this engine's state exactly.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot::of(&self.state, self.last_at)
    }

    /// The state now, copied out so that a host can build and store its snapshot on another
    /// thread ([`Frozen::snapshot`]) and say when it is stored ([`Engine::snapshot_stored`]).
    pub fn freeze(&self) -> Frozen {
        Frozen::of(&self.state, self.last_at)
    }

    /// Hands the storage a snapshot of the state now. A failed snapshot loses nothing: the
    /// log still holds every record.
    pub fn checkpoint(&mut self) -> Result<(), StorageError> {
        let snapshot = self.snapshot();
        self.storage.save_snapshot(&snapshot)?;
        self.snapshot_seq = self.state.log_seq;
        Ok(())
    }

    /// How many of the most recently written handoffs, threads, activity records, messages and
    /// turn calls stay plain values (each kind apart); older ones are held sealed (see
    /// `Records`), and so are records at rest (a closed handoff) [`crate::AT_REST_WRITES`]
    /// writes of their kind after their last write. More is faster to read and costs memory;
    /// `usize::MAX` never seals, and a window set after it seals the older records at the
    /// next write of their kind. Not part of the state.
    pub fn keep_hot_records(&mut self, keep: usize) {
        self.state.keep_hot(keep);
    }

    /// Stops keeping the index of when each open handoff is next due, until
    /// [`Engine::build_due_index`]: for a host that reads a long log before its first picture
    /// and needs no deadline before it (the console). Meanwhile records apply without it, and
    /// `next_deadline` and `tick` find what is due by looking at every open handoff (the same
    /// answers, at a cost that grows with the open handoffs). Not part of the state.
    pub fn defer_due_index(&mut self) {
        self.state.defer_due();
    }

    /// Builds the due index whole after [`Engine::defer_due_index`], in one pass over the open
    /// handoffs, and keeps it from then on. Nothing to do when it is kept.
    pub fn build_due_index(&mut self) {
        if self.state.idx.due_deferred {
            self.state.build_due();
        }
    }

    /// Whether the due index waits for [`Engine::build_due_index`].
    pub fn due_index_deferred(&self) -> bool {
        self.state.idx.due_deferred
    }

    /// The state, read-only.
    pub fn state(&self) -> &State {
        &self.state
    }

    /// The storage, read-only (export).
    pub fn storage(&self) -> &S {
        &self.storage
    }

    /// Takes the effects emitted since the last call. The host acts on them in order.
    pub fn take_effects(&mut self) -> Vec<Effect> {
        std::mem::take(&mut self.effects)
    }

    /// The time of the last accepted command.
    pub fn last_at(&self) -> Timestamp {
        self.last_at
    }

    /// Applies one record read from a store or another writer, whole or not at all: a delta
    /// naming a record that neither the state nor an earlier change of the record holds is
    /// refused before anything moves.
    fn apply_record(&mut self, record: LogRecord) -> Result<(), String> {
        self.state.check_targets(&record.changes)?;
        self.apply_own(record)
    }

    /// Applies a record this engine staged from its current state (its deltas always name
    /// records that exist: no check).
    fn apply_own(&mut self, record: LogRecord) -> Result<(), String> {
        let LogRecord { seq, id_seq, at, changes, .. } = record;
        self.apply_changes((seq, id_seq, at), &mut changes.into_iter())
    }

    /// Moves the state to record `seq` (its id sequence and time) with its `changes` (not
    /// generic: one copy of the applying loop, where the console counts its bytes).
    fn apply_changes(
        &mut self,
        (seq, id_seq, at): (u64, u64, Timestamp),
        changes: &mut dyn Iterator<Item = Change>,
    ) -> Result<(), String> {
        self.state.log_seq = seq;
        self.state.id_seq = id_seq;
        self.last_at = at;
        let mut applied = Ok(());
        for change in changes {
            applied = self.state.apply(change);
            if applied.is_err() {
                break;
            }
        }
        self.state.settle_due();
        applied
    }

    /// Stages one command against the current state without changing anything: `f` stages
    /// changes; the result holds the log record to store (if anything changed), the answer
    /// and the effects. On error nothing was staged.
    pub(crate) fn stage<T>(
        &self,
        command: &str,
        now: Timestamp,
        f: impl FnOnce(&mut Tx<'_>) -> Result<T, CallError>,
    ) -> Result<Prepared<T>, CallError> {
        if now > Timestamp::MAX {
            return Err(CallError::new(
                ErrorCode::InvalidParams,
                format!("now: {} ms is past the latest time Baton accepts ({})", now.0, Timestamp::MAX.to_iso()),
            )
            .field("now"));
        }
        if now < self.last_at {
            return Err(CallError::new(
                ErrorCode::InvalidParams,
                format!(
                    "now: {} is earlier than the last accepted command ({}); time never goes back",
                    now.to_iso(),
                    self.last_at.to_iso()
                ),
            )
            .field("now"));
        }
        let mut tx = Tx::new(&self.state, &*self.ids, now);
        let output = f(&mut tx)?;
        let (changes, effects, id_seq) = tx.into_parts();
        // Debug builds keep the whole versions the handlers staged, to check after the commit
        // that applying the stored form (deltas) gave exactly those records.
        #[cfg(debug_assertions)]
        let staged = changes.clone();
        let changes = tx::stored_form(&self.state, changes);
        let record = (!changes.is_empty()).then(|| LogRecord {
            v: LOG_FORMAT_VERSION,
            seq: self.state.log_seq + 1,
            at: now,
            command: command.to_string(),
            id_seq,
            changes,
            trace: self.trace.clone(),
        });
        Ok(Prepared {
            base_seq: self.state.log_seq,
            record,
            output,
            effects,
            #[cfg(debug_assertions)]
            staged,
        })
    }

    /// Commits a prepared command: one atomic append to the storage, then the state moves and
    /// the effects are released. Refused (`stale_command`) when another command was committed
    /// since it was prepared — prepare it again. On any error nothing changes.
    pub fn commit<T>(&mut self, prepared: Prepared<T>) -> Result<T, CallError> {
        if prepared.base_seq != self.state.log_seq {
            return Err(CallError::new(
                ErrorCode::StaleCommand,
                format!(
                    "the state moved from record {} to {} since this command was prepared; prepare it again",
                    prepared.base_seq, self.state.log_seq
                ),
            ));
        }
        if let Some(record) = prepared.record {
            self.storage.append(&record).map_err(|e| CallError::new(ErrorCode::StorageFailed, e.to_string()))?;
            self.apply_own(record).expect("a record staged from this state applies to it");
            #[cfg(debug_assertions)]
            self.state.assert_holds(&prepared.staged);
            // The storage's snapshot policy. A snapshot that fails is tried again after the
            // next record; the command itself is already durable.
            // At least as many records as the state holds: a snapshot costs about what writing
            // the state's records once does, so this keeps its share of a command's cost bounded.
            if self.storage.snapshot_every().is_some_and(|every| self.snapshot_due(every)) {
                let _ = self.checkpoint();
            }
        }
        self.effects.extend(prepared.effects);
        Ok(prepared.output)
    }

    /// Applies a record another writer already stored (a second engine on the same workspace).
    /// Nothing is appended here. Refused unless it is the next record. The host keeps the
    /// record (a console's history, a past state replayed); only its list of changes is
    /// copied (a whole record in it by its reference count). Cloning the changes one at a
    /// time would save that list, but brings a second copy of `Change::clone` into the
    /// console's wasm (6 KB).
    pub fn absorb(&mut self, record: &LogRecord) -> Result<(), CallError> {
        if !(LOG_FORMAT_OLDEST..=LOG_FORMAT_VERSION).contains(&record.v) {
            return Err(CallError::new(
                ErrorCode::StorageFailed,
                format!(
                    "record {} has format version {}; this build reads versions {LOG_FORMAT_OLDEST} to {LOG_FORMAT_VERSION}",
                    record.seq, record.v
                ),
            ));
        }
        if record.seq != self.state.log_seq + 1 {
            return Err(CallError::new(
                ErrorCode::StaleCommand,
                format!("record {} does not follow record {}", record.seq, self.state.log_seq),
            ));
        }
        self.state
            .check_targets(&record.changes)
            .and_then(|()| {
                self.apply_changes((record.seq, record.id_seq, record.at), &mut record.changes.clone().into_iter())
            })
            .map_err(|reason| {
                CallError::new(ErrorCode::StorageFailed, format!("record {} is damaged: {reason}", record.seq))
            })
    }

    /// The W3C trace context the commands from now on came with (`None`: none); each record
    /// they make keeps it. The host sets it before a traced command and clears it after.
    pub fn set_trace(&mut self, trace: Option<crate::engine::log::TraceContext>) {
        self.trace = trace;
    }

    /// Records applied so far (the log's length).
    pub fn log_seq(&self) -> u64 {
        self.state.log_seq
    }
}

/// A command staged by `prepare_*` and not yet committed: hosts whose storage is
/// asynchronous (IndexedDB) store [`Prepared::record`] themselves, then call
/// [`Engine::commit`] on an engine whose own `Storage` keeps nothing.
/// `T` is the answer: JSON for the JSON entry points, the result type for the typed ones.
#[derive(Debug)]
pub struct Prepared<T = Value> {
    base_seq: u64,
    record: Option<LogRecord>,
    output: T,
    effects: Vec<Effect>,
    /// The whole versions the handlers staged (debug builds: checked against the state after
    /// the commit applied the stored form).
    #[cfg(debug_assertions)]
    staged: Vec<crate::engine::log::Change>,
}

impl<T> Prepared<T> {
    /// The answer, for a preview that is never committed.
    pub(crate) fn into_output(self) -> T {
        self.output
    }

    /// The same command with its answer changed by `f`.
    pub(crate) fn map<U>(self, f: impl FnOnce(T) -> U) -> Prepared<U> {
        Prepared {
            base_seq: self.base_seq,
            record: self.record,
            output: f(self.output),
            effects: self.effects,
            #[cfg(debug_assertions)]
            staged: self.staged,
        }
    }

    /// The record to store, or `None` when the command changed nothing (a query).
    pub fn record(&self) -> Option<&LogRecord> {
        self.record.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn a_caller_is_written_as_it_is_read() {
        let callers = [
            Caller::new("chat_main", "lead"),
            Caller::teammate("alice@acme"),
            Caller { thread: Some("chat_7".into()), bot: None, handle: None },
        ];
        for c in callers {
            let text = serde_json::to_string(&c).unwrap();
            assert!(!text.contains("null"), "omitted parts are left out: {text}");
            assert_eq!(serde_json::from_str::<Caller>(&text).unwrap(), c);
        }
        assert_eq!(
            serde_json::to_value(Caller::new("t", "b")).unwrap(),
            serde_json::json!({"thread": "t", "bot": "b"})
        );
    }
}
