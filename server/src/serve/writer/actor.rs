//! One workspace's writer: a thread that owns its engine and its log. Commands arrive on a
//! channel; the ones waiting together are run in order as one batch of the log (one write to
//! the workspace's records file, or one Postgres transaction), committed once (one fsync with
//! `--sync full`), and answered only after that commit (group commit). The thread also owns
//! time: when the engine's next deadline comes due on the wall clock it runs `tick`. The
//! effects a batch emits are stored in the same batch (numbered per workspace), so they are
//! exactly as durable as the records that caused them. Committed records and effects go out
//! on broadcast channels to the streams.
//!
//! Snapshots stay off the commit path: when one is due the writer copies the state out
//! ([`Engine::freeze`]) and goes on; a thread of the snapshot's own builds it and cuts its
//! lines into parts, and the writer stores one part after each batch (and on its own when no
//! command waits), each in a small transaction of its own, so no batch waits for a whole
//! snapshot to be encoded and written, and a part that cannot be stored fails no command.
use crate::serve::clock::now_ms;
use crate::serve::storage::log::{snapshot_parts, AnswerRow, LogSource, SnapshotPart, WriteError, WriterLog};
use baton_core::{CallError, Caller, Command, Engine, ErrorCode, SeededIds, Timestamp};
use serde_json::{json, Value};
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{broadcast, oneshot, watch};

/// Commands waiting together that go into one transaction, at most.
const BATCH: usize = 256;

/// What a request asks of a workspace.
pub enum Op {
    /// A command for the engine — a tool call, a host input, a tick — the one type every host
    /// hands it. `agent`: sent with an agent's key, so it may act only as that agent (a host
    /// input only about that agent's own threads; checked before it runs). `text`: answered as
    /// the JSON text the engine serialized once ([`Answer::Text`]: a JSON-RPC envelope takes
    /// it as it is).
    Command { command: Command, agent: Option<String>, text: bool },
    /// A tool call from a thread, as the agent that owns it (an MCP session bound to the
    /// thread with a host key: the writer names the owner, which only it knows for certain).
    ThreadCall { tool: String, args: Value, thread: String },
    /// The state now, copied out ([`Engine::freeze`]: sealed records stay sealed) and handed
    /// to the closure, so that what is built from it — an export — is built off the writer.
    Freeze(Box<dyn FnOnce(baton_core::Frozen) + Send>),
    /// The callbacks posted and not answered yet (the handoffs with `callback_pending`): the
    /// last stored `callback` effect of each, to post again after a restart.
    PendingCallbacks,
    /// Stop writing (another node holds the workspace now): what is queued is refused.
    Retire,
    /// A protocol's own command (an A2A method, the body of an A2A push, a fixture's step):
    /// it runs on the writer, in the batch, and what it writes commits with the batch. The
    /// writer knows no protocol; the job brings what it does.
    Run(Job),
    /// A look at the engine's state between commands (it writes nothing); what it finds goes
    /// back through the closure's own channel, typed ([`Workspace::read`]).
    Read(Box<dyn FnOnce(&baton_core::State) + Send>),
}

impl Op {
    /// A tool call as `caller`, answered as a value.
    pub fn call(tool: impl Into<String>, args: Value, caller: Caller) -> Op {
        Op::Command { command: Command::Call { tool: tool.into(), args, caller }, agent: None, text: false }
    }

    /// A host input sent with an admin's or a host's key, answered as a value.
    pub fn host(input: impl Into<String>, args: Value) -> Op {
        Op::Command { command: Command::Host { input: input.into(), args }, agent: None, text: false }
    }
}

/// A command's answer: a JSON value, or JSON text serialized once by the engine (a tool's
/// answer for a protocol that writes it out as it is).
#[derive(Debug)]
pub enum Answer {
    Value(Value),
    Text(String),
}

impl Answer {
    /// As a JSON value (text is parsed: for a caller that takes values).
    pub fn into_value(self) -> Value {
        match self {
            Answer::Value(v) => v,
            Answer::Text(t) => serde_json::from_str(&t).unwrap_or(Value::String(t)),
        }
    }

    /// As JSON text (a value is serialized).
    pub fn text(&self) -> String {
        match self {
            Answer::Value(v) => v.to_string(),
            Answer::Text(t) => t.clone(),
        }
    }
}

/// A job run on the writer: the engine and the time of the command.
pub type Job = Box<dyn FnOnce(&mut Engine<Log>, Timestamp) -> Result<Value, CallError> + Send>;

struct Cmd {
    op: Op,
    /// The W3C trace context the request came with: kept on the records the command makes.
    trace: Option<baton_core::TraceContext>,
    /// The client's idempotency key: a command whose key has an answer kept gets that answer
    /// and is not run again.
    idem: Option<Idem>,
    reply: oneshot::Sender<Result<Answer, CallError>>,
}

/// An idempotency key with whose it is and what it was for.
pub struct Idem {
    /// The principal (stored form).
    pub scope: String,
    pub key: String,
    /// The request's digest (method, tool or input, arguments, caller).
    pub fingerprint: String,
}

/// A committed log record: its sequence number and JSON line.
pub type Line = (u64, Arc<str>);

/// A running workspace.
#[derive(Clone)]
pub struct Workspace {
    /// Commands that arrive together (one request, or a batch's run of commands) come as one
    /// message, so they go into one transaction.
    tx: mpsc::Sender<Vec<Cmd>>,
    /// Committed records, as they commit.
    pub events: broadcast::Sender<Line>,
    /// Committed effects (number, JSON), as they commit.
    pub effects: broadcast::Sender<Line>,
    /// The committed effects that are callbacks (G14), for the follower that posts them: told
    /// apart here, by type, so a batch without one wakes no follower and no JSON is read.
    pub callbacks: broadcast::Sender<Line>,
    /// Becomes true when the writer has stopped (on Postgres: another node took the workspace)
    /// and closed its database connection (SQLite checkpoints its WAL then): a clean stop
    /// waits for it.
    pub stopped: watch::Receiver<bool>,
    /// Set once the writer takes no more commands, before it refuses any for a retry (a
    /// fenced commit, a retire): the node forgets it then ([`super::registry::Writers::get`]),
    /// so a client's retry is forwarded to the workspace's new writer, not refused again by
    /// this one while it closes.
    refusing: Arc<AtomicBool>,
    /// The lease epoch this node writes the workspace at (0 on SQLite).
    pub epoch: i64,
}

impl Workspace {
    /// Whether the writer takes no more commands (it is stepping down, or stopped: every way
    /// out of the writer's loop sets it before `stopped` is sent).
    pub fn refusing(&self) -> bool {
        self.refusing.load(Ordering::Acquire)
    }

    /// Runs `op` and waits for its answer (after its commit).
    pub async fn run(&self, op: Op) -> Result<Value, CallError> {
        self.run_keyed(op, None).await
    }

    /// Runs `op` under an idempotency key (or none).
    pub async fn run_keyed(&self, op: Op, idem: Option<Idem>) -> Result<Value, CallError> {
        self.send(op, idem, None).await.map(Answer::into_value)
    }

    /// Runs `op` under an idempotency key (or none); its answer as the writer made it.
    pub async fn run_answer(&self, op: Op, idem: Option<Idem>) -> Result<Answer, CallError> {
        self.send(op, idem, None).await
    }

    /// Runs `op`, its records keeping the trace context the request came with.
    pub async fn run_traced(&self, op: Op, trace: Option<baton_core::TraceContext>) -> Result<Value, CallError> {
        self.send(op, None, trace).await.map(Answer::into_value)
    }

    async fn send(
        &self,
        op: Op,
        idem: Option<Idem>,
        trace: Option<baton_core::TraceContext>,
    ) -> Result<Answer, CallError> {
        let (reply, answer) = oneshot::channel();
        self.tx.send(vec![Cmd { op, idem, trace, reply }]).map_err(|_| stopped())?;
        answer.await.map_err(|_| stopped())?
    }

    /// What `look` finds in the engine's state, on the writer between two commands: reads
    /// that no tool answers, typed as their caller wants them.
    pub async fn read<T: Send + 'static>(
        &self,
        look: impl FnOnce(&baton_core::State) -> T + Send + 'static,
    ) -> Result<T, CallError> {
        let (tx, found) = oneshot::channel();
        self.run(Op::Read(Box::new(move |state| {
            let _ = tx.send(look(state));
        })))
        .await?;
        found.await.map_err(|_| stopped())
    }

    /// The workspace as a snapshot export (what `Baton.fromLog` and the console import): the
    /// writer only copies its state out; the snapshot is built and encoded on a blocking
    /// thread, so the commands behind an export of a large workspace do not wait for it.
    pub async fn export(&self) -> Result<String, CallError> {
        let (tx, frozen) = oneshot::channel();
        self.run(Op::Freeze(Box::new(move |f| {
            let _ = tx.send(f);
        })))
        .await?;
        let frozen = frozen.await.map_err(|_| stopped())?;
        tokio::task::spawn_blocking(move || frozen.snapshot().to_lines().collect::<Vec<_>>().join("\n"))
            .await
            .map_err(|e| CallError::new(ErrorCode::StorageFailed, format!("building the export failed: {e}")))
    }

    /// Runs `ops` in order, handed to the writer together (one transaction, unless the writer
    /// splits a very long run); answers each, in order, as the writer made it.
    pub async fn run_all(&self, ops: Vec<(Op, Option<Idem>)>) -> Vec<Result<Answer, CallError>> {
        let (cmds, answers): (Vec<Cmd>, Vec<_>) = ops
            .into_iter()
            .map(|(op, idem)| {
                let (reply, answer) = oneshot::channel();
                (Cmd { op, idem, trace: None, reply }, answer)
            })
            .unzip();
        if self.tx.send(cmds).is_err() {
            return answers.iter().map(|_| Err(stopped())).collect();
        }
        let mut out = Vec::with_capacity(answers.len());
        for a in answers {
            out.push(a.await.map_err(|_| stopped()).and_then(|r| r));
        }
        out
    }
}

impl Workspace {
    /// Stops the writer: commands queued or sent later are refused (to be retried where the
    /// workspace is written now).
    pub fn retire(&self) {
        let (reply, _) = oneshot::channel();
        let _ = self.tx.send(vec![Cmd { op: Op::Retire, idem: None, trace: None, reply }]);
    }
}

/// An effect as it is stored (its JSON value), and whether it is a callback.
fn effect_of(effect: &baton_core::Effect) -> (Value, bool) {
    (json!(effect), matches!(effect, baton_core::Effect::Callback { .. }))
}

fn stopped() -> CallError {
    let mut e = CallError::new(ErrorCode::StorageFailed, "the workspace's writer stopped on this node; retry");
    e.data = Some(json!({"retry": true}));
    e
}

/// A fold of the log a protocol keeps beside it (A2A's task generations): built from the
/// whole log the first time a job asks for it ([`Log::index`]), then folded as each record is
/// appended, so it stands at the engine's last record even inside a batch.
pub trait Index: std::any::Any {
    /// Folds record `seq`; `false` when it does not follow the last one folded (the index is
    /// then dropped and built again when next asked for).
    fn fold(&mut self, seq: u64, line: &str) -> bool;
    /// The last record folded.
    fn upto(&self) -> u64;
}

/// The workspace's log plus the lines appended in the open transaction, and the indexes kept
/// beside it.
pub struct Log {
    inner: RefCell<Box<dyn WriterLog>>,
    pending: RefCell<Vec<Line>>,
    indexes: RefCell<Vec<Box<dyn Index>>>,
}

impl Log {
    /// The index of type `T`, built from the whole log if it is not kept yet (`engine_seq`:
    /// the engine's last record, which a whole build must reach). `None` when the log cannot
    /// be read or has a gap (said in the server's log).
    pub fn index<T: Index + Default>(&self, engine_seq: u64) -> Option<std::cell::Ref<'_, T>> {
        if self.kept::<T>().is_none() {
            let built = self.build::<T>(engine_seq)?;
            self.indexes.borrow_mut().push(Box::new(built));
        }
        self.kept::<T>()
    }

    /// The index of type `T` if it is kept (built by an earlier [`Log::index`]).
    pub fn kept<T: Index>(&self) -> Option<std::cell::Ref<'_, T>> {
        std::cell::Ref::filter_map(self.indexes.borrow(), |all| {
            all.iter().find_map(|i| (&**i as &dyn std::any::Any).downcast_ref::<T>())
        })
        .ok()
    }

    fn build<T: Index + Default>(&self, engine_seq: u64) -> Option<T> {
        let what = std::any::type_name::<T>();
        let mut index = T::default();
        loop {
            let rows = match self.inner.borrow().lines_after(index.upto(), 10_000) {
                Ok(rows) => rows,
                Err(e) => {
                    tracing::warn!(index = what, error = %e, "the log cannot be read to build an index");
                    return None;
                }
            };
            let Some(&(last, _)) = rows.last() else { break };
            for (seq, line) in &rows {
                index.fold(*seq, line);
            }
            if index.upto() != last {
                tracing::warn!(index = what, "the log has a gap; no index is built");
                return None;
            }
        }
        for (seq, line) in self.pending.borrow().iter() {
            index.fold(*seq, line);
        }
        if index.upto() != engine_seq {
            tracing::warn!(index = what, "the log ends before the engine's last record; no index is built");
            return None;
        }
        Some(index)
    }
}

impl baton_core::Storage for Log {
    fn append(&mut self, record: &baton_core::LogRecord) -> Result<(), baton_core::StorageError> {
        let line = record.to_json_line();
        self.inner.get_mut().append_line(record.seq, &line)?;
        // out of order (cannot happen while appends are in order): built again when next asked for
        self.indexes.get_mut().retain_mut(|i| i.fold(record.seq, &line));
        self.pending.get_mut().push((record.seq, line.into()));
        Ok(())
    }
    fn load(&self) -> Result<Vec<baton_core::LogRecord>, baton_core::StorageError> {
        self.inner.borrow().load()
    }
    fn load_snapshot(&self) -> Result<Option<baton_core::Snapshot>, baton_core::StorageError> {
        self.inner.borrow().load_snapshot()
    }
    // No `snapshot_every`: the engine never snapshots inside a commit here; the writer takes
    // snapshots itself, off the commit path (`Writer::snapshot_if_due`).
}

fn open_engine(backend: &dyn LogSource, name: &str, seed: u64, epoch: i64) -> Result<Engine<Log>, WriteError> {
    let inner = backend.open_log(name, epoch)?;
    let log = Log { inner: RefCell::new(inner), pending: RefCell::new(Vec::new()), indexes: RefCell::new(Vec::new()) };
    Engine::open(log, Box::new(SeededIds::new(seed))).map_err(|e| WriteError::Failed(e.to_string()))
}

/// Opens workspace `name` (replaying its log) on its writer thread, and returns once it is
/// open. (The engine stays on that thread: its log is not `Send`.) On
/// Postgres, `epoch` is the lease this node holds the workspace at; a snapshot is stored every
/// `snapshot_every` records.
pub fn start(
    backend: Arc<dyn LogSource>,
    name: String,
    seed: u64,
    epoch: i64,
    snapshot_every: u64,
) -> Result<Workspace, WriteError> {
    let (tx, rx) = mpsc::channel::<Vec<Cmd>>();
    let (events, _) = broadcast::channel(4096);
    let (effects, _) = broadcast::channel(4096);
    let (callbacks, _) = broadcast::channel(4096);
    let (stop, stopped) = watch::channel(false);
    let refusing = Arc::new(AtomicBool::new(false));
    let refuses = refusing.clone();
    let (out, effects_out, callbacks_out) = (events.clone(), effects.clone(), callbacks.clone());
    let (ready, opened) = mpsc::channel::<Result<(), WriteError>>();
    std::thread::Builder::new()
        .name(format!("ws-{name}"))
        .spawn(move || {
            let opened = open_engine(&*backend, &name, seed, epoch).and_then(|engine| {
                let last = engine.storage().inner.borrow_mut().last_effect().map_err(WriteError::Failed)?;
                Ok((engine, last))
            });
            match opened {
                Ok((engine, effect_seq)) => {
                    let _ = ready.send(Ok(()));
                    let mut writer = Writer {
                        engine,
                        backend,
                        name,
                        seed,
                        epoch,
                        snapshot_every,
                        rx,
                        events: out,
                        effects: effects_out,
                        callbacks: callbacks_out,
                        effect_seq,
                        retry: None,
                        snapshotting: None,
                        refusing: refuses,
                    };
                    writer.run();
                    drop(writer);
                    // The writer, its engine and its connection are dropped by now.
                    let _ = stop.send(true);
                }
                Err(e) => {
                    let _ = ready.send(Err(e));
                }
            }
        })
        .map_err(|e| WriteError::Failed(e.to_string()))?;
    opened.recv().map_err(|_| WriteError::Failed("the writer thread ended while opening".to_string()))??;
    Ok(Workspace { tx, events, effects, callbacks, stopped, refusing, epoch })
}

struct Writer {
    engine: Engine<Log>,
    backend: Arc<dyn LogSource>,
    name: String,
    seed: u64,
    epoch: i64,
    /// Records between snapshots (`--snapshot-every`).
    snapshot_every: u64,
    rx: mpsc::Receiver<Vec<Cmd>>,
    events: broadcast::Sender<Line>,
    effects: broadcast::Sender<Line>,
    callbacks: broadcast::Sender<Line>,
    /// The last effect number stored.
    effect_seq: u64,
    /// After a failed write (a read-only or full disk), when a due tick is tried again and the
    /// wait after that: a tick that cannot be stored is not retried in a busy loop.
    retry: Option<(std::time::Instant, Duration)>,
    /// The snapshot being stored, if one is.
    snapshotting: Option<Snapshotting>,
    /// [`Workspace::refusing`]: set before the first refusal for a retry.
    refusing: Arc<AtomicBool>,
}

/// A snapshot on its way to the database: built and cut into parts on a thread of its own,
/// stored a part at a time between the writer's batches.
struct Snapshotting {
    /// The record it is after.
    seq: u64,
    parts: mpsc::Receiver<SnapshotPart>,
}

/// Parts built ahead of the writer storing them, at most: what a snapshot holds in memory
/// beyond its copy of the state.
const PARTS_AHEAD: usize = 2;

/// How long an idle writer waits for the next part of a snapshot being built before it looks
/// again (commands and due ticks still wake it at once).
const PART_POLL: Duration = Duration::from_millis(2);

/// The first wait before a due tick is tried again after a failed write; it doubles up to
/// [`MAX_RETRY`].
const FIRST_RETRY: Duration = Duration::from_secs(1);
const MAX_RETRY: Duration = Duration::from_secs(30);

/// What the writer does after a batch.
enum Next {
    Go,
    /// Another node holds the workspace: stop.
    StepDown,
    /// Every handle on the workspace is gone: stop.
    Closed,
}

impl Writer {
    /// Marks the writer as taking no more commands ([`Workspace::refusing`]); before any
    /// refusal for a retry is sent, so the client's retry already finds it so.
    fn refuse_from_now(&self) {
        self.refusing.store(true, Ordering::Release);
    }

    /// Runs the writer's turns until it stops. A turn that panics (a bug) loses its batch and
    /// nothing else: see [`Writer::after_panic`].
    fn run(&mut self) {
        loop {
            let next = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.turn())) {
                Ok(next) => next,
                Err(_) => self.after_panic(),
            };
            match next {
                Next::Go => {}
                Next::Closed => return,
                Next::StepDown => {
                    // Commands already queued are refused (to be retried on the node that holds
                    // the workspace now).
                    tracing::warn!(workspace = %self.name, epoch = self.epoch, "this writer steps down (another node holds the workspace, or the server stops)");
                    self.refuse_from_now();
                    while let Ok(cmds) = self.rx.try_recv() {
                        for cmd in cmds {
                            let _ = cmd.reply.send(Err(stopped()));
                        }
                    }
                    return;
                }
            }
        }
    }

    /// After a turn panicked: nothing it had not committed is kept, and the engine, which may
    /// have stopped half way through a change, is rebuilt from the database (as after a failed
    /// commit). The batch's commands lost their answers with the turn, so each is refused for
    /// a retry. Writers of other workspaces, and this one's later commands, are not touched.
    fn after_panic(&mut self) -> Next {
        tracing::error!(workspace = %self.name, "the writer panicked; its batch is dropped and it reopens from the log");
        self.log().rollback();
        // A snapshot being stored was of the engine given up (see the failed commit).
        self.snapshotting = None;
        // A due tick that panics would panic again at once: it waits, as after a failed write.
        self.write_failed();
        self.reopen()
    }

    /// Waits for the next batch (or a due tick, or the next part of a snapshot) and runs it.
    fn turn(&mut self) -> Next {
        let mut wait = self.engine.next_deadline().map(|d| Duration::from_millis(d.0.saturating_sub(now_ms())));
        if let (Some(w), Some((at, _))) = (wait, self.retry) {
            wait = Some(w.max(at.saturating_duration_since(std::time::Instant::now())));
        }
        if self.snapshotting.is_some() {
            // A part being built is looked for again soon.
            wait = Some(wait.map_or(PART_POLL, |w| w.min(PART_POLL)));
        }
        let first = match wait {
            Some(w) => self.rx.recv_timeout(w),
            None => self.rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
        };
        let mut batch = match first {
            Ok(cmds) => cmds,
            Err(RecvTimeoutError::Timeout) => {
                if self.engine.next_deadline().is_none_or(|d| d > self.now()) {
                    self.store_part();
                    return Next::Go;
                }
                Vec::new()
            }
            Err(RecvTimeoutError::Disconnected) => {
                self.refuse_from_now();
                return Next::Closed;
            }
        };
        while batch.len() < BATCH {
            match self.rx.try_recv() {
                Ok(cmds) => batch.extend(cmds),
                Err(_) => break,
            }
        }
        if batch.iter().any(|c| matches!(c.op, Op::Retire)) {
            self.refuse_from_now();
            for cmd in batch {
                let _ = cmd.reply.send(Err(stopped()));
            }
            Next::StepDown
        } else {
            let next = self.run_batch(batch);
            self.store_part();
            self.snapshot_if_due();
            next
        }
    }

    /// Starts a snapshot when one is due and none is being stored: the state is copied out
    /// here and the snapshot built, encoded and cut into parts on a thread of its own. Not
    /// while writes fail (a full or read-only disk): the first batch that commits again ends
    /// the wait.
    fn snapshot_if_due(&mut self) {
        if self.snapshotting.is_some() || self.retry.is_some() || !self.engine.snapshot_due(self.snapshot_every) {
            return;
        }
        let frozen = self.engine.freeze();
        let seq = frozen.seq();
        let (parts, rx) = mpsc::sync_channel(PARTS_AHEAD);
        let built = std::thread::Builder::new().name(format!("snap-{}", self.name)).spawn(move || {
            let snapshot = frozen.snapshot();
            drop(frozen);
            for part in snapshot_parts(seq, snapshot.to_lines()) {
                if parts.send(part).is_err() {
                    return; // the writer gave the snapshot up
                }
            }
        });
        match built {
            Ok(_) => self.snapshotting = Some(Snapshotting { seq, parts: rx }),
            Err(e) => {
                tracing::warn!(workspace = %self.name, error = %e, "no thread for a snapshot; tried again after another interval");
                self.end_snapshot(seq);
            }
        }
    }

    /// Stores the next part of the snapshot being stored, if the thread has built it, in a
    /// transaction of its own; the last part ends the snapshot. A part that cannot be stored
    /// ends it too: the log still holds every record, and the next snapshot comes an interval
    /// later.
    fn store_part(&mut self) {
        let Some(s) = &mut self.snapshotting else { return };
        let part = match s.parts.try_recv() {
            Ok(part) => part,
            Err(mpsc::TryRecvError::Empty) => return,
            Err(mpsc::TryRecvError::Disconnected) => {
                // The thread ended before its last part (it cannot, short of a panic).
                let seq = s.seq;
                tracing::warn!(workspace = %self.name, seq, "a snapshot was not finished; tried again after another interval");
                self.end_snapshot(seq);
                return;
            }
        };
        let stored = self.log().store_snapshot_part(&part);
        match stored {
            Ok(()) if part.last => self.end_snapshot(part.seq),
            Ok(()) => {}
            Err(e) => {
                tracing::warn!(workspace = %self.name, seq = part.seq, error = %e.message(), "a snapshot's part was not stored; tried again after another interval");
                self.end_snapshot(part.seq);
            }
        }
    }

    /// Ends the snapshot after record `seq`, stored or given up: the next one is due an
    /// interval after it either way (the log holds every record meanwhile).
    fn end_snapshot(&mut self, seq: u64) {
        self.snapshotting = None;
        self.engine.snapshot_stored(seq);
    }

    fn log(&self) -> std::cell::RefMut<'_, Box<dyn WriterLog>> {
        self.engine.storage().inner.borrow_mut()
    }

    fn pending_callbacks(&self) -> Result<Value, CallError> {
        let mut out = Vec::new();
        for h in self.engine.state().handoffs.values().filter(|h| h.callback_pending) {
            let body = self.log().last_callback(h.handoff_id.as_str()).map_err(|e| {
                CallError::new(ErrorCode::StorageFailed, format!("reading the callbacks in flight: {e}"))
            })?;
            out.extend(body.and_then(|b| serde_json::from_str::<Value>(&b).ok()));
        }
        Ok(Value::Array(out))
    }

    /// A write failed: a due tick waits before it is tried again (doubling, at most
    /// [`MAX_RETRY`]); commands that arrive are still tried at once.
    fn write_failed(&mut self) {
        let wait = self.retry.map_or(FIRST_RETRY, |(_, w)| (w * 2).min(MAX_RETRY));
        self.retry = Some((std::time::Instant::now() + wait, wait));
        tracing::warn!(workspace = %self.name, retry_in_ms = wait.as_millis() as u64, "a write failed; a due tick waits before it is tried again");
    }

    fn now(&self) -> Timestamp {
        Timestamp(now_ms().max(self.engine.last_at().0))
    }

    /// The answer kept under a command's idempotency key: `Some` answers the command without
    /// running it (the kept answer, or a refusal when the key was used for another request).
    fn kept(&self, idem: &Idem, batch: &[AnswerRow]) -> Option<Result<Answer, CallError>> {
        let found = match batch.iter().find(|row| row.scope == idem.scope && row.key == idem.key) {
            Some(row) => Some((row.fingerprint.clone(), row.answer.clone())),
            None => match self.log().answer(&idem.scope, &idem.key) {
                Ok(found) => found,
                Err(e) => {
                    let msg = format!("reading the answers kept by idempotency key: {}", e.message());
                    return Some(Err(CallError::new(ErrorCode::StorageFailed, msg)));
                }
            },
        }?;
        if found.0 != idem.fingerprint {
            let mut e = CallError::new(
                ErrorCode::InvalidParams,
                "idempotency_key was used before for a different request; use a fresh key for a new request",
            );
            e.field = Some("idempotency_key".into());
            return Some(Err(e));
        }
        // Kept as the JSON text it was answered with: answered so again, not parsed here.
        Some(Ok(Answer::Text(found.1)))
    }

    /// Whether a command sent with `agent`'s key (`None`: an admin's or a host's) acts only as
    /// that agent: a host input about its own threads, a tool call as itself, no tick.
    fn may_send(&self, command: &Command, agent: Option<&str>) -> Result<(), CallError> {
        let Some(bot) = agent else { return Ok(()) };
        match command {
            Command::Host { input, args } => self.engine.may_send_as_agent(input, args, bot),
            Command::Call { caller, .. } if caller.bot.as_deref() == Some(bot) => Ok(()),
            Command::Call { .. } | Command::Tick => {
                Err(CallError::new(ErrorCode::Forbidden, format!("an agent's key acts only as that agent ('{bot}')")))
            }
        }
    }

    /// Runs the batch (and any tick due) in one transaction; answers after the commit.
    fn run_batch(&mut self, batch: Vec<Cmd>) -> Next {
        let begun = self.log().begin();
        if let Err(e) = begun {
            let err = CallError::new(
                ErrorCode::StorageFailed,
                format!("the database refused a transaction: {}", e.message()),
            );
            for cmd in batch {
                let _ = cmd.reply.send(Err(err.clone()));
            }
            self.write_failed();
            return Next::Go;
        }
        let mut answers = Vec::with_capacity(batch.len());
        let mut effects = Vec::new();
        let mut keep: Vec<AnswerRow> = Vec::new();
        for cmd in batch {
            if let Some(answer) = cmd.idem.as_ref().and_then(|i| self.kept(i, &keep)) {
                answers.push((cmd.reply, answer));
                continue;
            }
            let now = self.now();
            self.engine.set_trace(cmd.trace);
            let answer = match cmd.op {
                Op::Command { command, agent, text } => {
                    self.may_send(&command, agent.as_deref()).and_then(|()| match text {
                        true => self.engine.run_to_text(command, now).map(Answer::Text),
                        false => self.engine.run(command, now).map(Answer::Value),
                    })
                }
                Op::ThreadCall { tool, args, thread } => {
                    let bot = self.engine.state().threads.get(thread.as_str()).map(|t| t.bot_id.as_str().to_owned());
                    let caller = Caller { thread: Some(thread.as_str().into()), bot, handle: None };
                    self.engine.call_value(&tool, args, &caller, now).map(Answer::Value)
                }
                Op::Freeze(take) => {
                    take(self.engine.freeze());
                    Ok(Answer::Value(Value::Null))
                }
                Op::PendingCallbacks => self.pending_callbacks().map(Answer::Value),
                Op::Retire => Err(stopped()),
                Op::Run(job) => job(&mut self.engine, now).map(Answer::Value),
                Op::Read(look) => {
                    look(self.engine.state());
                    Ok(Answer::Value(Value::Null))
                }
            };
            self.engine.set_trace(None);
            effects.extend(self.engine.take_effects().iter().map(effect_of));
            // Only answers that changed something are kept: a refused command changed nothing,
            // and running it again is harmless.
            if let (Some(idem), Ok(value)) = (cmd.idem, &answer) {
                let row =
                    AnswerRow { scope: idem.scope, key: idem.key, fingerprint: idem.fingerprint, answer: value.text() };
                keep.push(row);
            }
            answers.push((cmd.reply, answer));
        }
        let now = self.now();
        let mut tick_failed = false;
        if self.engine.next_deadline().is_some_and(|d| d <= now) {
            if let Err(e) = self.engine.tick(now) {
                tracing::warn!(workspace = %self.name, error = %e.message, "tick refused");
                tick_failed = true;
            }
            effects.extend(self.engine.take_effects().iter().map(effect_of));
        }
        let lines = std::mem::take(&mut *self.engine.storage().pending.borrow_mut());
        let first_effect = self.effect_seq;
        let mut stored = Vec::with_capacity(effects.len());
        let mut result = Ok(());
        for (k, (e, callback)) in effects.iter().enumerate() {
            let seq = first_effect + 1 + k as u64;
            let body = e.to_string();
            result = result.and_then(|()| self.log().append_effect(seq, &body));
            stored.push(((seq, Arc::<str>::from(body)), *callback));
        }
        for row in keep {
            result = result.and_then(|()| self.log().put_answer(row));
        }
        match result.and_then(|()| self.log().commit()) {
            Ok(()) => {
                if tick_failed {
                    self.write_failed();
                } else {
                    self.retry = None;
                }
                self.effect_seq += stored.len() as u64;
                for line in lines {
                    let _ = self.events.send(line);
                }
                for (effect, callback) in stored {
                    if callback {
                        let _ = self.callbacks.send(effect.clone());
                    }
                    let _ = self.effects.send(effect);
                }
                for (reply, answer) in answers {
                    let _ = reply.send(answer);
                }
                Next::Go
            }
            Err(e) => {
                // Nothing of the batch is durable: refuse every command of it, and rebuild the
                // engine from what the database holds (the state before the batch) — unless
                // another node holds the workspace now.
                self.log().rollback();
                // The snapshot being stored is given up with the engine it was of (its thread
                // stops; parts already stored are dropped with the next snapshot's last).
                self.snapshotting = None;
                let fenced = matches!(e, WriteError::Fenced(_));
                let err = if fenced {
                    self.refuse_from_now();
                    stopped()
                } else {
                    tracing::error!(workspace = %self.name, error = %e.message(), "commit failed; reopening from the log");
                    CallError::new(
                        ErrorCode::StorageFailed,
                        format!("the database refused the commit: {}", e.message()),
                    )
                };
                for (reply, answer) in answers {
                    let _ = reply.send(answer.and(Err(err.clone())));
                }
                if fenced {
                    return Next::StepDown;
                }
                self.write_failed();
                self.reopen()
            }
        }
    }

    /// Rebuilds the engine from what the database holds.
    fn reopen(&mut self) -> Next {
        match open_engine(&*self.backend, &self.name, self.seed, self.epoch) {
            Ok(engine) => {
                self.effect_seq = engine.storage().inner.borrow_mut().last_effect().unwrap_or(self.effect_seq);
                self.engine = engine;
                Next::Go
            }
            Err(WriteError::Fenced(_)) => Next::StepDown,
            Err(e) if self.backend.shared() => {
                // The database is out of reach: stop writing here; the lease runs out
                // and a node that reaches the database takes the workspace.
                tracing::error!(workspace = %self.name, error = %e.message(), "cannot reopen; the writer steps down");
                Next::StepDown
            }
            Err(e) => {
                tracing::error!(workspace = %self.name, error = %e.message(), "cannot reopen; the writer stops");
                std::process::exit(70);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::serve::storage::local::SqliteStore;
    use crate::serve::storage::log::Store;
    use crate::serve::storage::sqlite::{self, Settings, SyncMode};

    /// A writer over a fresh SQLite file, with workspace `w` made; removes its directory when
    /// dropped, a failed test included.
    struct Fresh(Workspace, std::path::PathBuf);

    impl Drop for Fresh {
        fn drop(&mut self) {
            std::fs::remove_dir_all(&self.1).ok();
        }
    }

    fn fresh() -> Fresh {
        fresh_over(|logs| logs)
    }

    /// As [`fresh`], the writer's logs opened through `wrap`.
    fn fresh_over(wrap: impl FnOnce(Arc<dyn LogSource>) -> Arc<dyn LogSource>) -> Fresh {
        let dir = std::env::temp_dir().join(format!("baton-writer-{:x}", crate::serve::clock::random_seed()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("baton.db");
        let settings = Settings::new(SyncMode::Normal);
        let conn = sqlite::open(&path, settings).unwrap();
        sqlite::create_workspace(&conn, "w", 7, 0).unwrap();
        let store = SqliteStore::new(path, settings, conn);
        Fresh(start(wrap(store.logs()), "w".into(), 7, 0, 10_000).unwrap(), dir)
    }

    /// Logs whose commits are refused as fenced (another node took the workspace) once
    /// `fence` is set: what a Postgres writer meets when it wakes after its lease ran out.
    /// With `closing`, a log being dropped (its connection closed) says so and then waits to
    /// be let go on.
    struct Fencing {
        logs: Arc<dyn LogSource>,
        fence: Arc<AtomicBool>,
        closing: Arc<std::sync::Mutex<Option<Closing>>>,
    }

    /// (says the drop began, lets it go on)
    type Closing = (mpsc::Sender<()>, mpsc::Receiver<()>);

    struct FencedLog(Box<dyn WriterLog>, Arc<AtomicBool>, Arc<std::sync::Mutex<Option<Closing>>>);

    impl Drop for FencedLog {
        fn drop(&mut self) {
            if let Some((began, go_on)) = self.2.lock().unwrap().take() {
                let _ = began.send(());
                let _ = go_on.recv_timeout(Duration::from_secs(10));
            }
        }
    }

    impl LogSource for Fencing {
        fn open_log(&self, name: &str, epoch: i64) -> Result<Box<dyn WriterLog>, WriteError> {
            let log = self.logs.open_log(name, epoch)?;
            Ok(Box::new(FencedLog(log, self.fence.clone(), self.closing.clone())))
        }
        fn shared(&self) -> bool {
            true
        }
    }

    impl baton_core::Storage for FencedLog {
        fn append(&mut self, record: &baton_core::LogRecord) -> Result<(), baton_core::StorageError> {
            self.0.append(record)
        }
        fn load(&self) -> Result<Vec<baton_core::LogRecord>, baton_core::StorageError> {
            self.0.load()
        }
        fn load_snapshot(&self) -> Result<Option<baton_core::Snapshot>, baton_core::StorageError> {
            self.0.load_snapshot()
        }
    }

    impl WriterLog for FencedLog {
        fn begin(&mut self) -> Result<(), WriteError> {
            self.0.begin()
        }
        fn append_line(&mut self, seq: u64, line: &str) -> Result<(), baton_core::StorageError> {
            self.0.append_line(seq, line)
        }
        fn append_effect(&mut self, seq: u64, body: &str) -> Result<(), WriteError> {
            self.0.append_effect(seq, body)
        }
        fn store_snapshot_part(&mut self, part: &SnapshotPart) -> Result<(), WriteError> {
            self.0.store_snapshot_part(part)
        }
        fn put_answer(&mut self, row: AnswerRow) -> Result<(), WriteError> {
            self.0.put_answer(row)
        }
        fn answer(&mut self, scope: &str, key: &str) -> Result<Option<(String, String)>, WriteError> {
            self.0.answer(scope, key)
        }
        fn commit(&mut self) -> Result<(), WriteError> {
            if self.1.load(Ordering::SeqCst) {
                return Err(WriteError::Fenced("taken by another node".into()));
            }
            self.0.commit()
        }
        fn rollback(&mut self) {
            self.0.rollback()
        }
        fn last_effect(&mut self) -> Result<u64, String> {
            self.0.last_effect()
        }
        fn last_callback(&mut self, handoff_id: &str) -> Result<Option<String>, String> {
            self.0.last_callback(handoff_id)
        }
        fn lines_after(&self, seq: u64, limit: usize) -> Result<Vec<(u64, String)>, String> {
            self.0.lines_after(seq, limit)
        }
    }

    #[tokio::test]
    async fn a_fenced_writer_is_marked_refusing_before_its_refusal_is_answered_so_a_retry_is_forwarded() {
        let fence = Arc::new(AtomicBool::new(false));
        let ws = fresh_over(|logs| Arc::new(Fencing { logs, fence: fence.clone(), closing: Arc::default() }));
        ws.0.run(Op::host("register_agent", json!({"bot_id": "lead"}))).await.unwrap();
        assert!(!ws.0.refusing());
        fence.store(true, Ordering::SeqCst);
        let refused = ws.0.run(Op::host("register_agent", json!({"bot_id": "adam"}))).await.unwrap_err();
        assert_eq!(
            refused.data,
            Some(json!({"retry": true})),
            "refused for a retry where the workspace is written now"
        );
        // The router (`Writers::get`) forgets a refusing writer: a client that retries at once
        // must find this one refusing already, not send its retry into the writer's last drain.
        assert!(ws.0.refusing(), "marked refusing before the refusal was sent");
        let again = ws.0.run(Op::host("register_agent", json!({"bot_id": "adam"}))).await.unwrap_err();
        assert_eq!(again.data, Some(json!({"retry": true})));
    }

    #[tokio::test]
    async fn a_retired_writer_is_marked_refusing_before_its_refusal_is_answered() {
        let ws = fresh();
        let refused = ws.0.run(Op::Retire).await.unwrap_err();
        assert_eq!(refused.data, Some(json!({"retry": true})));
        assert!(ws.0.refusing(), "marked refusing before the refusal was sent");
    }

    #[tokio::test]
    async fn a_writer_is_stopped_only_once_its_log_is_closed_so_a_clean_stop_leaves_no_wal() {
        // A clean stop waits for `stopped` and then ends the process: a connection still open
        // then leaves SQLite's -wal file behind, and a read-only disk cannot open it.
        let ((began, began_rx), (go_on_tx, go_on)) = (mpsc::channel(), mpsc::channel());
        let closing = Arc::new(std::sync::Mutex::new(Some((began, go_on))));
        let ws = fresh_over(|logs| Arc::new(Fencing { logs, fence: Arc::default(), closing }));
        ws.0.retire();
        // The writer's log is being closed, and held there: the writer has not stopped yet.
        began_rx.recv_timeout(Duration::from_secs(10)).expect("the writer's log is dropped once it retires");
        assert!(ws.0.refusing());
        assert!(!*ws.0.stopped.borrow(), "stopped said while the log was still being closed");
        go_on_tx.send(()).unwrap();
        let mut stopped = ws.0.stopped.clone();
        tokio::time::timeout(Duration::from_secs(10), stopped.wait_for(|s| *s)).await.unwrap().unwrap();
    }

    #[tokio::test]
    async fn a_writer_whose_turn_panics_keeps_nothing_of_that_batch_and_goes_on_from_its_log() {
        let ws = fresh();
        ws.0.run(Op::host("register_agent", json!({"bot_id": "lead"}))).await.unwrap();
        // A bug: a command panics on the writer, after another command of its batch ran.
        let bug: Job = Box::new(|_, _| panic!("a bug in a command"));
        let answers =
            ws.0.run_all(vec![(Op::host("register_agent", json!({"bot_id": "adam"})), None), (Op::Run(bug), None)])
                .await;
        for answer in answers {
            assert_eq!(answer.unwrap_err().data, Some(json!({"retry": true})), "each refused for a retry");
        }
        // The writer went on: the node keeps it, and it has neither said it stopped nor refuses.
        assert!(!ws.0.refusing(), "a panic is not a step down");
        assert!(!*ws.0.stopped.borrow());
        // What was committed before the batch is there; what the batch did before the panic is
        // not (the engine was rebuilt from the log); and the next commands run.
        ws.0.run(Op::host("open_thread", json!({"thread_id": "t_lead", "bot_id": "lead"}))).await.unwrap();
        let adam = ws.0.run(Op::host("open_thread", json!({"thread_id": "t_adam", "bot_id": "adam"}))).await;
        assert_eq!(adam.unwrap_err().code, ErrorCode::NotFound, "adam's registration was not kept");
        ws.0.run(Op::host("register_agent", json!({"bot_id": "adam"}))).await.unwrap();
        ws.0.run(Op::host("open_thread", json!({"thread_id": "t_adam", "bot_id": "adam"}))).await.unwrap();
    }

    fn as_agent(command: Command, bot: &str) -> Op {
        Op::Command { command, agent: Some(bot.into()), text: false }
    }

    #[tokio::test]
    async fn an_agents_key_sends_only_what_that_agent_may_its_own_threads_activity_and_calls_as_itself() {
        let ws = fresh();
        for bot in ["lead", "adam"] {
            ws.0.run(Op::host("register_agent", json!({"bot_id": bot}))).await.unwrap();
        }
        ws.0.run(Op::host("open_thread", json!({"thread_id": "chat_main", "bot_id": "lead"}))).await.unwrap();
        let own = json!({"thread_id": "chat_main"});
        let host = |input: &str| Command::Host { input: input.into(), args: own.clone() };

        // Its own thread's activity, and a call as itself: run.
        ws.0.run(as_agent(host("turn_started"), "lead")).await.unwrap();
        let list =
            Command::Call { tool: "handoff_list".into(), args: json!({}), caller: Caller::new("chat_main", "lead") };
        ws.0.run(as_agent(list.clone(), "lead")).await.unwrap();

        // Another agent's thread, a host-only input, a call as another agent, a tick: refused.
        let refused = [
            as_agent(host("turn_ended"), "adam"),
            as_agent(Command::Host { input: "register_agent".into(), args: json!({"bot_id": "eve"}) }, "lead"),
            as_agent(list, "adam"),
            as_agent(Command::Tick, "lead"),
        ];
        for op in refused {
            let e = ws.0.run(op).await.expect_err("refused");
            assert_eq!(e.code, ErrorCode::Forbidden, "{}", e.message);
        }
        // Nothing a refused command sent was kept: no agent 'eve' was registered.
        let eve = ws.0.run(Op::host("open_thread", json!({"thread_id": "t_eve", "bot_id": "eve"}))).await;
        assert!(eve.is_err(), "{eve:?}");
    }
}
