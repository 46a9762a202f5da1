//! The engine: runs one command at a time as a transaction — stage, append, apply, emit.
use crate::effect::Effect;
use crate::error::{CallError, ErrorCode, LoadError};
use crate::handoff::Handoff;
use crate::ids::{IdKind, IdSource};
use crate::log::{Change, LogRecord, MemoryStorage, Storage, LOG_FORMAT_VERSION};
use crate::mailbox::Message;
use crate::state::State;
use crate::thread::{Activity, Thread};
use crate::time::Timestamp;
use serde::Deserialize;
use serde_json::Value;
use std::sync::Arc;

/// Who makes a tool call: the calling thread, and the bot when the call runs with agent
/// context. Without `bot`, the call still acts for the thread's bot, but rule B1 treats it
/// as having no agent context.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Caller {
    /// Calling thread.
    pub thread: String,
    /// Calling bot (must own the thread when given).
    #[serde(default)]
    pub bot: Option<String>,
}

impl Caller {
    /// A caller with agent context.
    pub fn new(thread: &str, bot: &str) -> Self {
        Caller { thread: thread.to_string(), bot: Some(bot.to_string()) }
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
}

impl<S: Storage> Engine<S> {
    /// Opens an engine over `storage`, replaying whatever it holds.
    pub fn open(storage: S, ids: Box<dyn IdSource>) -> Result<Self, LoadError> {
        let mut engine = Engine { state: State::default(), storage, ids, effects: Vec::new(), last_at: Timestamp(0) };
        for (index, record) in engine.storage.load()?.into_iter().enumerate() {
            if record.v != LOG_FORMAT_VERSION {
                return Err(LoadError::UnsupportedVersion { index, found: record.v, supported: LOG_FORMAT_VERSION });
            }
            engine.apply_record(record);
        }
        Ok(engine)
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

    fn apply_record(&mut self, record: LogRecord) {
        self.state.log_seq = record.seq;
        self.state.id_seq = record.id_seq;
        self.last_at = record.at;
        for change in record.changes {
            self.state.apply(change);
        }
    }

    /// Runs one command as a transaction: `f` stages changes against the current state; on
    /// `Ok` the record is appended (one atomic append) and only then applied. On any error —
    /// from `f` or from storage — state, log and effects are untouched.
    pub(crate) fn run(
        &mut self,
        command: &str,
        now: Timestamp,
        f: impl FnOnce(&mut Tx<'_>) -> Result<Value, CallError>,
    ) -> Result<Value, CallError> {
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
        let mut tx = Tx {
            st: &self.state,
            ids: &*self.ids,
            id_seq: self.state.id_seq,
            now,
            changes: Vec::new(),
            effects: Vec::new(),
        };
        let out = f(&mut tx)?;
        let Tx { changes, effects, id_seq, .. } = tx;
        if !changes.is_empty() {
            let record = LogRecord {
                v: LOG_FORMAT_VERSION,
                seq: self.state.log_seq + 1,
                at: now,
                command: command.to_string(),
                id_seq,
                changes,
            };
            self.storage.append(&record).map_err(|e| CallError::new(ErrorCode::StorageFailed, e.to_string()))?;
            self.apply_record(record);
        }
        self.effects.extend(effects);
        Ok(out)
    }
}

/// One command in flight: reads see the state plus this command's own staged changes.
pub(crate) struct Tx<'a> {
    pub st: &'a State,
    ids: &'a dyn IdSource,
    id_seq: u64,
    pub now: Timestamp,
    changes: Vec<Change>,
    pub effects: Vec<Effect>,
}

impl<'a> Tx<'a> {
    /// Draws a new id, with its sequence number (a creation order across all records).
    pub(crate) fn new_seq_id(&mut self, kind: IdKind) -> (String, u64) {
        self.id_seq += 1;
        (self.ids.id(kind, self.id_seq), self.id_seq)
    }

    /// Stages a change.
    pub(crate) fn put(&mut self, change: Change) {
        self.changes.push(change);
    }

    /// Stages a handoff.
    pub(crate) fn put_handoff(&mut self, h: Handoff) {
        self.put(Change::Handoff(Arc::new(h)));
    }

    /// Stages a thread.
    pub(crate) fn put_thread(&mut self, t: Thread) {
        self.put(Change::Thread(Arc::new(t)));
    }

    /// Stages a message.
    pub(crate) fn put_message(&mut self, m: Message) {
        self.put(Change::Message(Arc::new(m)));
    }

    /// Stages an activity record.
    pub(crate) fn put_activity(&mut self, thread_id: &str, activity: Activity) {
        self.put(Change::Activity { thread_id: thread_id.to_string(), activity: Arc::new(activity) });
    }

    /// Emits an effect (kept only if the command commits).
    pub(crate) fn emit(&mut self, e: Effect) {
        self.effects.push(e);
    }

    /// A handoff as this command sees it.
    pub(crate) fn handoff(&self, id: &str) -> Option<&Handoff> {
        self.changes
            .iter()
            .rev()
            .find_map(|c| match c {
                Change::Handoff(h) if h.handoff_id == id => Some(&**h),
                _ => None,
            })
            .or_else(|| self.st.handoffs.get(id).map(|h| &**h))
    }

    /// A handoff as this command sees it, shared (cheap to hold while staging more changes).
    pub(crate) fn handoff_arc(&self, id: &str) -> Option<Arc<Handoff>> {
        self.changes
            .iter()
            .rev()
            .find_map(|c| match c {
                Change::Handoff(h) if h.handoff_id == id => Some(h.clone()),
                _ => None,
            })
            .or_else(|| self.st.handoffs.get(id).cloned())
    }

    /// A thread as this command sees it.
    pub(crate) fn thread(&self, id: &str) -> Option<&Thread> {
        self.changes
            .iter()
            .rev()
            .find_map(|c| match c {
                Change::Thread(t) if t.thread_id == id => Some(&**t),
                _ => None,
            })
            .or_else(|| self.st.threads.get(id).map(|t| &**t))
    }

    /// A thread's activity as this command sees it (default when none reported yet).
    pub(crate) fn activity(&self, id: &str) -> Activity {
        self.changes
            .iter()
            .rev()
            .find_map(|c| match c {
                Change::Activity { thread_id, activity } if thread_id == id => Some(&**activity),
                _ => None,
            })
            .or_else(|| self.st.activity.get(id).map(|a| &**a))
            .cloned()
            .unwrap_or_default()
    }

    /// The delivery sweep's due time as this command sees it.
    pub(crate) fn sweep_due(&self) -> Option<Timestamp> {
        self.changes
            .iter()
            .rev()
            .find_map(|c| match c {
                Change::Sweep { due } => Some(*due),
                _ => None,
            })
            .unwrap_or(self.st.sweep_due)
    }

    /// The handoff whose child is `thread_id`, as this command sees it.
    pub(crate) fn handoff_of_child(&self, thread_id: &str) -> Option<&Handoff> {
        let id = self.st.idx.by_child.get(thread_id)?;
        self.handoff(id)
    }
}

impl<S: Storage> Engine<S> {
    /// The JSON entry point: `args_json` exactly as a model sent it; answers the tool's
    /// result or `{"error": {...}}`. Never panics on any input.
    pub fn call(&mut self, tool: &str, args_json: &str, caller: &Caller, now: Timestamp) -> String {
        let result = match serde_json::from_str::<Value>(args_json) {
            Ok(args) => self.call_value(tool, args, caller, now),
            Err(e) => Err(CallError::new(ErrorCode::ParseError, format!("arguments are not valid JSON: {e}"))),
        };
        match result {
            Ok(v) => v.to_string(),
            Err(e) => e.to_json().to_string(),
        }
    }

    /// Runs a tool with already-parsed arguments.
    pub fn call_value(&mut self, tool: &str, args: Value, caller: &Caller, now: Timestamp) -> Result<Value, CallError> {
        let def = crate::tools::find(tool).ok_or_else(|| {
            CallError::new(ErrorCode::UnknownTool, format!("no tool named '{tool}'; `baton tools` lists them"))
        })?;
        self.run(tool, now, |tx| {
            // Nothing is staged yet: the caller's records are read straight from the state.
            let st = tx.st;
            let thread = st.threads.get(&caller.thread).filter(|t| t.deleted_at.is_none()).ok_or_else(|| {
                CallError::new(ErrorCode::NotFound, format!("caller.thread: no thread '{}'", caller.thread))
                    .field("caller.thread")
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
            crate::dispatch::check(agent, thread, tool)?;
            let ctx = crate::tools::Ctx {
                thread_id: thread.thread_id.clone(),
                bot_id: thread.bot_id.clone(),
                agent_context: caller.bot.is_some(),
            };
            (def.run)(tx, &ctx, args)
        })
    }

    /// A host input (see [`crate::HOST_INPUTS`]).
    pub fn host(&mut self, input: &str, args: Value, now: Timestamp) -> Result<Value, CallError> {
        let def = crate::host::find_host(input)
            .ok_or_else(|| CallError::new(ErrorCode::UnknownTool, format!("no host input named '{input}'")))?;
        self.run(input, now, |tx| (def.run)(tx, args))
    }

    /// Runs every time rule due at or before `now`. Appends one record if anything was due.
    pub fn tick(&mut self, now: Timestamp) -> Result<(), CallError> {
        self.run("tick", now, |tx| crate::timers::tick(tx).map(|()| Value::Null)).map(|_| ())
    }

    /// When `tick` next has something to do.
    pub fn next_deadline(&self) -> Option<Timestamp> {
        crate::timers::next_deadline(&self.state)
    }
}
