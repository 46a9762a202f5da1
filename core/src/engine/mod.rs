//! The engine: runs one command at a time as a transaction — stage, append, apply, emit.
pub(crate) mod config;
pub(crate) mod ctx;
pub(crate) mod delta;
pub(crate) mod dispatch;
pub(crate) mod effect;
pub(crate) mod error;
pub(crate) mod ids;
pub(crate) mod limits;
pub(crate) mod log;
pub(crate) mod machine;
pub(crate) mod records;
pub(crate) mod snapshot;
pub(crate) mod state;
pub(crate) mod storage;
pub(crate) mod time;
pub(crate) mod timers;
pub(crate) mod tx;

use tx::Tx;

use crate::engine::effect::Effect;
use crate::engine::error::{CallError, ErrorCode, LoadError, StorageError};
use crate::engine::ids::IdSource;
use crate::engine::log::{LogRecord, LOG_FORMAT_OLDEST, LOG_FORMAT_VERSION};
use crate::engine::snapshot::Snapshot;
use crate::engine::state::State;
use crate::engine::storage::{MemoryStorage, Storage};
use crate::engine::time::Timestamp;
use crate::handoff::thread::Thread;
use crate::surface::Output;
use serde::Deserialize;
use serde_json::Value;
use std::sync::Arc;

/// Who makes a tool call: the calling thread, and the bot when the call runs with agent
/// context. Without `bot`, the call still acts for the thread's bot, but rule B1 treats it
/// as having no agent context.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Caller {
    /// Calling thread (required by the handoff tools).
    #[serde(default)]
    pub thread: Option<crate::engine::ids::ThreadId>,
    /// Calling bot (must own the thread when given).
    #[serde(default)]
    pub bot: Option<String>,
    /// Teammate handle (the relay tools act as a teammate; default: the teammate whose
    /// `bot_id` is the calling bot).
    #[serde(default)]
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
        let mut engine = Engine {
            state: State::default(),
            storage,
            ids,
            effects: Vec::new(),
            trace: None,
            last_at: Timestamp(0),
            snapshot_seq: 0,
        };
        if let Some(snapshot) = snapshot {
            engine.last_at = snapshot.header.at;
            engine.snapshot_seq = snapshot.header.seq;
            engine.state = snapshot.restore()?;
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

    /// Hands the storage a snapshot of the state now. A failed snapshot loses nothing: the
    /// log still holds every record.
    pub fn checkpoint(&mut self) -> Result<(), StorageError> {
        let snapshot = self.snapshot();
        self.storage.save_snapshot(&snapshot)?;
        self.snapshot_seq = self.state.log_seq;
        Ok(())
    }

    /// How many of the most recently written handoffs, threads, activity records and messages
    /// stay plain values (each kind apart); older ones are held sealed (see `Records`). More
    /// is faster to read and costs memory; `usize::MAX` never seals. Not part of the state.
    pub fn keep_hot_records(&mut self, keep: usize) {
        self.state.keep_hot(keep);
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
        self.state.log_seq = record.seq;
        self.state.id_seq = record.id_seq;
        self.last_at = record.at;
        for change in record.changes {
            self.state.apply(change)?;
        }
        Ok(())
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
    /// Nothing is appended here. Refused unless it is the next record.
    pub fn absorb(&mut self, record: LogRecord) -> Result<(), CallError> {
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
        let seq = record.seq;
        self.apply_record(record)
            .map_err(|reason| CallError::new(ErrorCode::StorageFailed, format!("record {seq} is damaged: {reason}")))
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

impl<S: Storage> Engine<S> {
    /// The JSON entry point: `args_json` exactly as a model sent it; answers the tool's
    /// result or `{"error": {...}}`. Never panics on any input.
    /// The answer is serialized straight from the tool's result type (no JSON value between).
    pub fn call(&mut self, tool: &str, args_json: &str, caller: &Caller, now: Timestamp) -> String {
        let answer = serde_json::from_str::<Value>(args_json)
            .map_err(|e| CallError::new(ErrorCode::ParseError, format!("arguments are not valid JSON: {e}")))
            .and_then(|args| self.prepare_call_as(tool, args, caller, now, crate::surface::Form::Text))
            .and_then(|prepared| self.commit(prepared));
        match answer {
            Ok(out) => out.into_text(),
            Err(e) => e.to_json().to_string(),
        }
    }

    /// Runs a tool on the raw argument text, typed: [`Engine::call`] without the final JSON.
    pub fn call_text(
        &mut self,
        tool: &str,
        args_json: &str,
        caller: &Caller,
        now: Timestamp,
    ) -> Result<Value, CallError> {
        let args = serde_json::from_str::<Value>(args_json)
            .map_err(|e| CallError::new(ErrorCode::ParseError, format!("arguments are not valid JSON: {e}")))?;
        self.call_value(tool, args, caller, now)
    }

    /// Runs a tool with already-parsed arguments.
    pub fn call_value(&mut self, tool: &str, args: Value, caller: &Caller, now: Timestamp) -> Result<Value, CallError> {
        let prepared = self.prepare_call(tool, args, caller, now)?;
        self.commit(prepared)
    }

    /// Stages a tool call without changing anything (see [`Prepared`]).
    pub fn prepare_call(
        &self,
        tool: &str,
        args: Value,
        caller: &Caller,
        now: Timestamp,
    ) -> Result<Prepared, CallError> {
        self.prepare_call_as(tool, args, caller, now, crate::surface::Form::Value).map(|p| p.map(Output::into_value))
    }

    /// Stages a tool call whose answer comes in `form`.
    fn prepare_call_as(
        &self,
        tool: &str,
        args: Value,
        caller: &Caller,
        now: Timestamp,
        form: crate::surface::Form,
    ) -> Result<Prepared<Output>, CallError> {
        let def = crate::surface::find(tool).ok_or_else(|| {
            CallError::new(ErrorCode::UnknownTool, format!("no tool named '{tool}'; `baton tools` lists them"))
        })?;
        self.stage(tool, now, |tx| match &def.run {
            crate::surface::Handler::Thread(run) => {
                run(tx, &thread_caller(tx, def.name, def.exists_for, caller)?, args, form)
            }
            crate::surface::Handler::Relay(run) => run(tx, &relay_caller(tx, def.name, caller)?, args, form),
        })
    }

    /// Runs a tool call against the current state and answers what it would answer, changing
    /// nothing (a view's read: `handoff_status`, `check_inbox`, … exactly as the tool sees it).
    pub fn preview(&self, tool: &str, args: Value, caller: &Caller, now: Timestamp) -> Result<Value, CallError> {
        self.prepare_call(tool, args, caller, now).map(|p| p.output)
    }

    /// Runs every time rule due at or before `now`. Appends one record if anything was due.
    pub fn tick(&mut self, now: Timestamp) -> Result<(), CallError> {
        let prepared = self.prepare_tick(now)?;
        self.commit(prepared)?;
        // Every timed part moved past what was due (else a host would tick forever).
        debug_assert!(
            self.next_deadline().is_none_or(|d| d > now),
            "after tick({now:?}) a time rule is still due: {:?}",
            crate::surface::TIMED
                .iter()
                .filter(|p| (p.deadline)(&self.state).is_some_and(|d| d <= now))
                .map(|p| p.name)
                .collect::<Vec<_>>()
        );
        Ok(())
    }

    /// Stages a tick without changing anything (see [`Prepared`]).
    pub fn prepare_tick(&self, now: Timestamp) -> Result<Prepared, CallError> {
        self.stage("tick", now, |tx| timers::tick(crate::surface::TIMED, tx).map(|()| Value::Null))
    }

    /// When `tick` next has something to do.
    pub fn next_deadline(&self) -> Option<Timestamp> {
        timers::next_deadline(crate::surface::TIMED, &self.state)
    }
}

/// A tool's caller checked against the state (X1, X5, G13): the calling thread, if one was
/// named. Nothing is staged yet, so the records are read straight from the state.
fn caller_thread<'s>(
    st: &'s State,
    tool: &str,
    exists_for: Option<ExistsFor>,
    caller: &Caller,
) -> Result<Option<&'s Arc<Thread>>, CallError> {
    Ok(match &caller.thread {
        Some(id) => {
            let thread = st.threads.get(id).filter(|t| t.deleted_at.is_none()).ok_or_else(|| {
                CallError::new(ErrorCode::NotFound, format!("caller.thread: no thread '{id}'")).field("caller.thread")
            })?;
            if let Some(bot) = &caller.bot {
                if *bot != thread.bot_id {
                    return Err(CallError::new(
                        ErrorCode::Forbidden,
                        format!(
                            "caller.bot: thread '{}' belongs to bot '{}', not '{bot}'",
                            thread.thread_id, thread.bot_id
                        ),
                    )
                    .field("caller.bot"));
                }
            }
            let agent = st.agents.get(&thread.bot_id).ok_or_else(|| {
                CallError::new(ErrorCode::NotFound, format!("caller.bot: no agent '{}'", thread.bot_id))
                    .field("caller.bot")
            })?;
            // X1: a tool that does not exist for this thread is unknown, not refused.
            if exists_for.is_some_and(|exists| !exists(st, thread)) {
                return Err(CallError::new(
                    ErrorCode::UnknownTool,
                    format!("`{tool}` does not exist here: this thread is not the receiving side of a sibling handoff"),
                )
                .rule("X1"));
            }
            // X5: a bypassed originator does not act until the sibling releases.
            if let Some(s) = &thread.bypassed_by {
                return Err(tx::bypassed(s, &thread.thread_id));
            }
            // G13: the calling thread may use only its tools; refused calls do not run.
            crate::engine::dispatch::check(agent, thread, tool)?;
            Some(thread)
        }
        None => None,
    })
}

/// The caller of a thread tool: its thread and bot (shared by the JSON and typed entry points).
pub(crate) fn thread_caller(
    tx: &Tx<'_>,
    tool: &str,
    exists_for: Option<ExistsFor>,
    caller: &Caller,
) -> Result<crate::engine::ctx::Ctx, CallError> {
    let thread = caller_thread(tx.st, tool, exists_for, caller)?;
    let thread = thread.ok_or_else(|| {
        CallError::new(ErrorCode::InvalidParams, format!("caller.thread: `{tool}` is called from a thread"))
            .field("caller.thread")
    })?;
    let ctx = crate::engine::ctx::Ctx {
        thread_id: thread.thread_id.clone(),
        bot_id: thread.bot_id.clone(),
        agent_context: caller.bot.is_some(),
        thread: Arc::clone(thread),
    };
    Ok(ctx)
}

/// The caller of a relay tool: the teammate it acts as (by handle, or the calling bot's).
pub(crate) fn relay_caller(
    tx: &Tx<'_>,
    tool: &str,
    caller: &Caller,
) -> Result<crate::engine::ctx::RelayCtx, CallError> {
    let st = tx.st;
    let thread = caller_thread(st, tool, None, caller)?;
    let bot = caller.bot.as_deref().or(thread.map(|t| t.bot_id.as_str()));
    let handle = match (&caller.handle, bot) {
        (Some(h), _) => st.teammates.get(h).map(|t| t.handle.clone()).ok_or_else(|| {
            CallError::new(ErrorCode::NotFound, format!("caller.handle: no teammate '{h}'")).field("caller.handle")
        })?,
        (None, Some(b)) => st.teammate_of_bot(b).map(str::to_string).ok_or_else(|| {
            CallError::new(
                ErrorCode::InvalidParams,
                format!("caller.handle: bot '{b}' acts as no teammate; pass a handle"),
            )
            .field("caller.handle")
        })?,
        (None, None) => {
            return Err(CallError::new(
                ErrorCode::InvalidParams,
                format!("caller.handle: `{tool}` acts as a teammate; pass a handle"),
            )
            .field("caller.handle"))
        }
    };
    Ok(crate::engine::ctx::RelayCtx { handle })
}

/// Where a tool exists at all (X1).
pub(crate) type ExistsFor = fn(&State, &Thread) -> bool;
