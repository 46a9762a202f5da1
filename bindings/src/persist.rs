//! A workspace persisted in IndexedDB. Each accepted command is one IndexedDB transaction, and
//! it is acknowledged only after that transaction commits: the engine prepares the command,
//! the record is added, then the engine commits it. A command that fails stores nothing.
//!
//! Two tabs (or two engines) on one workspace: records are added under their number with
//! `add`, so the second writer of a number is refused; it then reads the records it missed,
//! absorbs them, and prepares its command again (detect and reload). Nothing is lost and both
//! end with the same log.
//!
//! Commands on one `Persistent` run one at a time: a second `exec` while one is in flight is
//! refused with `stale_command` (the JS layer and the console queue theirs). The engine is
//! borrowed only between awaits, so a view can read it while a command's transaction is open.
//!
//! Snapshots: opening reads the newest snapshot and the records after it. A snapshot is
//! written after a command (or at open) when [`Engine::snapshot_due`] says so, in its own
//! transaction, in parts of [`PART_LINES`] lines; opening restores each part as it is read
//! and reads the next ones meanwhile. The log keeps every record regardless.
use crate::idb::{self, AddError, StoredSnapshot};
use baton_core::{
    read_export, CallError, Command, Engine, ErrorCode, LogRecord, MemoryStorage, NoStorage, Restore, SeededIds,
    Snapshot, Timestamp,
};
use serde_json::Value;
use std::cell::{Cell, Ref, RefCell, RefMut};
use web_sys::IdbDatabase;

/// How often a command is prepared again after other writers moved the log.
const MAX_RETRIES: usize = 8;

/// Records read per IndexedDB request when catching up.
const CATCH_UP_BATCH: u32 = 1000;

/// Records per cached chunk.
pub const CHUNK: u64 = 1000;

/// Chunks read per IndexedDB request when catching up.
const CHUNK_PAGE: u32 = 16;

/// The longest a catch-up works before the page gets its turn, in ms.
const SLICE_MS: f64 = 50.0;
/// The lines of a snapshot restored between two looks at the time (about 2 ms of them at
/// 100,000 handoffs).
const RESTORE_LINES: usize = 500;
/// A stored snapshot's lines a part (about 0.5 MB at the console's load shape).
const PART_LINES: usize = 2000;
/// Snapshot parts read per IndexedDB request while opening.
const PARTS_PAGE: u32 = 8;

/// Records between snapshots, at least (the engine also waits at least as many records as the
/// state holds, so writing a snapshot stays a bounded share of the commands' cost).
pub const SNAPSHOT_EVERY: u64 = 2000;

/// An engine over an IndexedDB workspace.
pub struct Persistent {
    /// The record of the snapshot it opened from (0: none).
    opened_from: u64,
    /// The engine (its own storage keeps nothing: IndexedDB holds the log).
    engine: RefCell<Engine<NoStorage>>,
    db: IdbDatabase,
    /// The workspace's id seed.
    pub seed: u64,
    /// Records committed or absorbed and not yet taken (for live views and timelines): on
    /// open, those after the snapshot it opened from (all of them without one).
    fresh: RefCell<Vec<LogRecord>>,
    /// The last record committed or absorbed, as its JSON line.
    last_line: RefCell<Option<String>>,
    in_flight: Cell<bool>,
}

fn storage_error(msg: String) -> CallError {
    CallError::new(ErrorCode::StorageFailed, msg)
}

impl Persistent {
    /// Opens a workspace, creating it with `seed` if new, and replays its log. `keep_hot`: how
    /// many recently written records of each kind stay plain values (`Engine::keep_hot_records`;
    /// a host that scans every record on each render, like the console, passes `usize::MAX`).
    pub async fn open(workspace: &str, seed: u64, keep_hot: usize) -> Result<Persistent, CallError> {
        Persistent::open_with(workspace, seed, keep_hot, false).await
    }

    /// As [`Persistent::open`], the engine's due index deferred while the snapshot and the log
    /// are read ([`Engine::open_from_due_later`]): for a host that draws the workspace before
    /// it runs its clock (the console), which builds it ([`Engine::build_due_index`]) when the
    /// clock first needs it. The console's first visit at 100,000 handoffs opened about a
    /// fifth sooner so.
    pub async fn open_due_later(workspace: &str, seed: u64, keep_hot: usize) -> Result<Persistent, CallError> {
        Persistent::open_with(workspace, seed, keep_hot, true).await
    }

    async fn open_with(workspace: &str, seed: u64, keep_hot: usize, due_later: bool) -> Result<Persistent, CallError> {
        let db = idb::open(workspace).await.map_err(storage_error)?;
        let seed = match idb::seed(&db).await.map_err(storage_error)? {
            Some(s) => s as u64,
            None => {
                idb::set_seed(&db, seed as f64).await.map_err(storage_error)?;
                seed
            }
        };
        // The newest snapshot, if any, restored a slice at a time; a snapshot that does not
        // read is passed over (the log still holds every record) and replaced by the next one.
        let restored = match idb::latest_snapshot(&db).await.map_err(storage_error)? {
            Some(stored) => restore(&db, stored, seed, keep_hot, due_later).await,
            None => None,
        };
        let opened_from = restored.as_ref().map_or(0, |(seq, _)| *seq);
        let engine = match restored {
            Some((_, engine)) => engine,
            None => {
                let ids = Box::new(SeededIds::new(seed));
                match due_later {
                    true => Engine::open_from_due_later(None, NoStorage, ids, Some(keep_hot)),
                    false => Engine::open_from_keeping_hot(None, NoStorage, ids, Some(keep_hot)),
                }
                .map_err(|e| storage_error(e.to_string()))?
            }
        };
        let p = Persistent {
            opened_from,
            engine: RefCell::new(engine),
            db,
            seed,
            fresh: RefCell::new(Vec::new()),
            last_line: RefCell::new(None),
            in_flight: Cell::new(false),
        };
        p.catch_up().await?;
        // A workspace written before snapshots (or long since its last one) gets one now: the
        // next open reads it instead of the history.
        p.maybe_snapshot().await;
        Ok(p)
    }

    /// Stores a snapshot if one is due ([`Engine::snapshot_due`]). Best effort: a snapshot
    /// that fails to store loses nothing (the log holds every record), and the next is tried
    /// after the next command.
    pub async fn maybe_snapshot(&self) {
        if !self.engine.borrow().snapshot_due(SNAPSHOT_EVERY) {
            return;
        }
        let s = self.engine.borrow().snapshot();
        let seq = s.header.seq;
        if idb::put_snapshot(&self.db, seq, &mut snapshot_parts(&s)).await.is_ok() {
            self.engine.borrow_mut().snapshot_stored(seq);
        }
    }

    /// The record the snapshot this engine opened from is after (0: it replayed the log).
    pub fn opened_from(&self) -> u64 {
        self.opened_from
    }

    /// Up to `count` stored records after record number `after`, in order (a history reader:
    /// the engine itself opened from a snapshot).
    pub async fn history(&self, after: u64, count: u32) -> Result<Vec<LogRecord>, CallError> {
        let req = idb::start_lines(&self.db, after, Some(count)).map_err(storage_error)?;
        let lines = idb::read_lines(&req).await.map_err(storage_error)?;
        lines
            .iter()
            .enumerate()
            .map(|(i, l)| LogRecord::from_json_line(l, after as usize + i).map_err(|e| storage_error(e.to_string())))
            .collect()
    }

    /// Creates a workspace from an export with its seed — a log of JSON lines (any version
    /// this build reads), or a snapshot followed by the records after it (`Baton.exportLog()`):
    /// it is checked by opening it, then stored in one transaction per store. Refused when the
    /// workspace has records. `keep_hot` as for `open`.
    pub async fn import(workspace: &str, log: &str, seed: u64, keep_hot: usize) -> Result<Persistent, CallError> {
        let (snapshot, records) = read_export(log).map_err(|e| storage_error(e.to_string()))?;
        let lines: Vec<(u64, String)> = records.iter().map(|r| (r.seq, r.to_json_line())).collect();
        let parts = snapshot.as_ref().map(|s| (s.header.seq, snapshot_parts(s).collect::<Vec<_>>()));
        Engine::open_from(snapshot, MemoryStorage::from_records(records), Box::new(SeededIds::new(seed)))
            .map_err(|e| storage_error(e.to_string()))?;
        let db = idb::open(workspace).await.map_err(storage_error)?;
        if !idb::lines_after(&db, 0).await.map_err(storage_error)?.is_empty()
            || idb::latest_snapshot(&db).await.map_err(storage_error)?.is_some()
        {
            return Err(storage_error(format!(
                "workspace '{workspace}' already has records; delete it before importing"
            )));
        }
        idb::set_seed(&db, seed as f64).await.map_err(storage_error)?;
        if let Some((seq, parts)) = parts {
            idb::put_snapshot(&db, seq, &mut parts.into_iter()).await.map_err(storage_error)?;
        }
        idb::add_all(&db, &lines).await.map_err(storage_error)?;
        db.close();
        Persistent::open(workspace, seed, keep_hot).await
    }

    /// The engine, read-only (views, previews). Not held across an await.
    pub fn engine(&self) -> Ref<'_, Engine<NoStorage>> {
        self.engine.borrow()
    }

    /// The engine, for what changes no log (taking effects).
    pub fn engine_mut(&self) -> RefMut<'_, Engine<NoStorage>> {
        self.engine.borrow_mut()
    }

    /// The last record committed or absorbed, as a JSON line.
    pub fn last_line(&self) -> Option<String> {
        self.last_line.borrow().clone()
    }

    /// Takes the records committed or absorbed since the last call, oldest first (on open:
    /// the records after its snapshot — the whole log without one).
    pub fn take_fresh(&self) -> Vec<LogRecord> {
        std::mem::take(&mut *self.fresh.borrow_mut())
    }

    fn note(&self, record: LogRecord, line: String) {
        self.fresh.borrow_mut().push(record);
        *self.last_line.borrow_mut() = Some(line);
    }

    /// Absorbs every record other writers stored since this engine's last one: first from
    /// the chunk cache while it continues the log, then from the log in batches (asking for
    /// the next batch before absorbing the last, so IndexedDB's reading overlaps the parse).
    /// Full runs of [`CHUNK`] records read from the log are then cached as chunks.
    pub async fn catch_up(&self) -> Result<usize, CallError> {
        let mut n = 0;
        let mut slice = js_sys::Date::now();
        // The chunks a page at a time, so JavaScript holds a few of them at once, not the
        // whole log (about 1.2 GB of text at 1,000,000 handoffs); the next page is asked for
        // before this one is absorbed, so IndexedDB reads it meanwhile.
        let after = self.engine.borrow().log_seq();
        let mut pending = Some(idb::start_chunks(&self.db, after, Some(CHUNK_PAGE)).map_err(storage_error)?);
        'chunks: while let Some(request) = pending.take() {
            let page = idb::read_chunks(request).await.map_err(storage_error)?;
            if page.len() == CHUNK_PAGE as usize {
                let next = page.last().map_or(after, |c| c.last);
                pending = Some(idb::start_chunks(&self.db, next, Some(CHUNK_PAGE)).map_err(storage_error)?);
            }
            for chunk in page {
                // Absorbing the chunks is most of a large workspace's opening, so the page
                // gets its turn between slices of it (to draw what it kept of the workspace,
                // and to take input).
                if js_sys::Date::now() - slice >= SLICE_MS {
                    idb::yield_to_page().await;
                    slice = js_sys::Date::now();
                }
                if chunk.first != self.engine.borrow().log_seq() + 1 {
                    break 'chunks; // not the continuation of what this engine has: read the log instead
                }
                let text = chunk.text().map_err(storage_error)?;
                let mut last = None;
                for line in text.split('\n') {
                    match self.absorb_line(line, n) {
                        Ok(Some(_)) => last = Some(line),
                        Ok(None) => {}
                        Err(e) => {
                            self.keep_last(last);
                            return Err(e);
                        }
                    }
                    n += 1;
                }
                self.keep_last(last);
                if self.engine.borrow().log_seq() != chunk.last {
                    return Err(storage_error(format!(
                        "chunk {}..{} does not match its records",
                        chunk.first, chunk.last
                    )));
                }
            }
        }
        let mut after = self.engine.borrow().log_seq();
        let mut pending = Some(idb::start_lines(&self.db, after, Some(CATCH_UP_BATCH)).map_err(storage_error)?);
        let mut uncached: Vec<(u64, String)> = Vec::new();
        while let Some(req) = pending.take() {
            let lines = idb::read_lines(&req).await.map_err(storage_error)?;
            if lines.len() as u32 == CATCH_UP_BATCH {
                // Records are stored under consecutive numbers, so the batch ends at `after + len`.
                after += lines.len() as u64;
                pending = Some(idb::start_lines(&self.db, after, Some(CATCH_UP_BATCH)).map_err(storage_error)?);
            }
            for line in lines {
                match self.absorb_line(&line, n) {
                    Ok(Some(seq)) => uncached.push((seq, line)),
                    Ok(None) => {}
                    Err(e) => {
                        self.keep_last(uncached.last().map(|(_, l)| l.as_str()));
                        return Err(e);
                    }
                }
                n += 1;
            }
        }
        self.keep_last(uncached.last().map(|(_, l)| l.as_str()));
        cache_chunks(&self.db, &uncached).await;
        Ok(n)
    }

    /// Keeps `line`, when there is one, as the last line absorbed ([`Persistent::last_line`]:
    /// one copy a catch-up, not one a line).
    fn keep_last(&self, line: Option<&str>) {
        if let Some(line) = line {
            *self.last_line.borrow_mut() = Some(line.to_string());
        }
    }

    /// Parses and absorbs one stored line; `None` when the engine had it already. The caller
    /// keeps the last line it absorbed ([`Persistent::keep_last`]).
    fn absorb_line(&self, line: &str, index: usize) -> Result<Option<u64>, CallError> {
        let record = LogRecord::from_json_line(line, index).map_err(|e| storage_error(e.to_string()))?;
        let seq = record.seq;
        if seq <= self.engine.borrow().log_seq() {
            return Ok(None); // absorbed meanwhile
        }
        self.engine.borrow_mut().absorb(&record)?;
        self.fresh.borrow_mut().push(record);
        Ok(Some(seq))
    }

    /// Runs one command at `now`: prepare, store in one IndexedDB transaction, then commit.
    /// Refused (`stale_command`) while another command on this object is in flight.
    pub async fn exec(&self, command: Command, now: Timestamp) -> Result<Value, CallError> {
        if self.in_flight.replace(true) {
            return Err(CallError::new(
                ErrorCode::StaleCommand,
                "another command on this workspace is in flight; await it first",
            ));
        }
        let r = self.exec_inner(&command, now).await;
        self.in_flight.set(false);
        r
    }

    async fn exec_inner(&self, command: &Command, now: Timestamp) -> Result<Value, CallError> {
        for _ in 0..MAX_RETRIES {
            let prepared = self.engine.borrow().prepare(command, now)?;
            if let Some(record) = prepared.record() {
                let line = record.to_json_line();
                match idb::add(&self.db, record.seq, &line).await {
                    Ok(()) => self.note(record.clone(), line),
                    Err(AddError::Taken) => {
                        self.catch_up().await?;
                        continue;
                    }
                    Err(AddError::Failed(msg)) => return Err(storage_error(msg)),
                }
            }
            let answer = self.engine.borrow_mut().commit(prepared);
            self.maybe_snapshot().await;
            return answer;
        }
        Err(CallError::new(ErrorCode::StaleCommand, "other writers kept moving the log; try again"))
    }

    /// The log as JSON lines, as stored — preceded by the snapshot when the log does not go
    /// back to the first record (a workspace imported from a snapshot).
    pub async fn export(&self) -> Result<String, CallError> {
        let lines = idb::lines_after(&self.db, 0).await.map_err(storage_error)?;
        let mut out = String::new();
        let from_first = lines.first().is_some_and(|l| LogRecord::from_json_line(l, 0).is_ok_and(|r| r.seq == 1));
        if !from_first {
            if let Some(text) = idb::snapshot_text(&self.db).await.map_err(storage_error)? {
                out.push_str(&text);
                out.push('\n');
            }
        }
        out.extend(lines.into_iter().map(|l| l + "\n"));
        Ok(out)
    }

    /// The first record the log holds (1, unless the workspace was imported from a snapshot).
    pub async fn history_starts_at(&self) -> Result<u64, CallError> {
        Ok(self.history(0, 1).await?.first().map_or(self.engine().log_seq() + 1, |r| r.seq))
    }

    /// A workspace setting kept beside the log (the console's name, clock, demo progress).
    pub async fn meta(&self, key: &str) -> Result<Option<String>, CallError> {
        idb::meta_get(&self.db, key).await.map_err(storage_error)
    }

    /// Stores a workspace setting.
    pub async fn set_meta(&self, key: &str, value: &str) -> Result<(), CallError> {
        idb::meta_put(&self.db, key, value).await.map_err(storage_error)
    }

    /// Keeps a view's bytes as of record `seq` ([`current_view`] gives them back while `seq`
    /// is still the log's last record).
    pub async fn keep_view(&self, name: &str, seq: u64, bytes: &[u8]) -> Result<(), CallError> {
        idb::put_view(&self.db, name, seq, bytes).await.map_err(storage_error)
    }

    /// Closes the database connection (before deleting the workspace).
    pub fn close(&self) {
        self.db.close();
    }
}

/// A new workspace written in batches of records, in order: the console's load generator,
/// where a whole log of 1,000,000 handoffs would not fit in one wasm memory beside the engine
/// that makes it. Each batch is one transaction; its full runs of [`CHUNK`] records are cached
/// as chunks, as a catch-up caches them, so the first opening reads chunks.
pub struct Writer {
    db: IdbDatabase,
    /// The number the next record must have.
    next: u64,
}

impl Writer {
    /// Starts workspace `workspace` with id seed `seed`; refused when it has records.
    pub async fn create(workspace: &str, seed: u64) -> Result<Writer, CallError> {
        let db = idb::open(workspace).await.map_err(storage_error)?;
        let empty = idb::last_seq(&db).await.map_err(storage_error)? == 0
            && idb::latest_snapshot(&db).await.map_err(storage_error)?.is_none();
        if !empty {
            db.close();
            return Err(storage_error(format!(
                "workspace '{workspace}' already has records; delete it before importing"
            )));
        }
        idb::set_seed(&db, seed as f64).await.map_err(storage_error)?;
        Ok(Writer { db, next: 1 })
    }

    /// Adds the next records, numbered on from the last ones added (the first is 1), in one
    /// transaction: all of them are stored, or none.
    pub async fn add(&mut self, lines: &[(u64, String)]) -> Result<(), CallError> {
        if let Some(((seq, _), want)) = lines.iter().zip(self.next..).find(|((seq, _), want)| seq != want) {
            return Err(storage_error(format!("record {seq} given where record {want} comes next")));
        }
        idb::add_all(&self.db, lines).await.map_err(storage_error)?;
        self.next += lines.len() as u64;
        cache_chunks(&self.db, lines).await;
        Ok(())
    }

    /// Stores a string setting (`Persistent::set_meta`).
    pub async fn set_meta(&self, key: &str, value: &str) -> Result<(), CallError> {
        idb::meta_put(&self.db, key, value).await.map_err(storage_error)
    }

    /// Stores `snapshot`, the state after the last record added, so that the workspace's
    /// first opening reads it instead of replaying the log (as an imported export's snapshot
    /// is read). A cache, as every snapshot is: the log holds every record all the same.
    pub async fn snapshot(&self, snapshot: &Snapshot) -> Result<(), CallError> {
        if snapshot.header.seq + 1 != self.next {
            return Err(storage_error(format!(
                "a snapshot after record {} given where the log ends at record {}",
                snapshot.header.seq,
                self.next - 1
            )));
        }
        idb::put_snapshot(&self.db, snapshot.header.seq, &mut snapshot_parts(snapshot)).await.map_err(storage_error)
    }

    /// Closes the database connection; the workspace is opened as any other.
    pub fn close(&self) {
        self.db.close();
    }
}

/// An engine opened from the stored snapshot ([`Restore`]), with the record it is after;
/// `None` when the snapshot does not read. Restoring is most of opening a large workspace
/// that has a snapshot, so the next parts are read while the ones in hand are restored, and the
/// page gets its turn between slices of them, as in a catch-up.
async fn restore(
    db: &IdbDatabase,
    stored: StoredSnapshot,
    seed: u64,
    keep_hot: usize,
    due_later: bool,
) -> Option<(u64, Engine<NoStorage>)> {
    let mut into = Restoring { restore: None, keep_hot, due_later, slice: js_sys::Date::now() };
    match stored {
        StoredSnapshot::Whole(text) => into.feed(&text).await?,
        StoredSnapshot::Parts { seq, parts } => {
            let mut next = 0;
            let mut pending = Some(idb::start_snapshot_parts(db, seq, 0, PARTS_PAGE).ok()?);
            while let Some(request) = pending.take() {
                let page = idb::read_snapshot_parts(request).await.ok()?;
                let after = next + page.len() as u32;
                if !page.is_empty() && after < parts {
                    pending = Some(idb::start_snapshot_parts(db, seq, after, PARTS_PAGE).ok()?);
                }
                for (part, text) in page {
                    if part != next {
                        return None; // a part is missing
                    }
                    next += 1;
                    into.feed(&text).await?;
                }
            }
            if next != parts {
                return None;
            }
        }
    }
    let r = into.restore?;
    let seq = r.seq();
    let engine = Engine::open_restored(r, NoStorage, Box::new(SeededIds::new(seed))).ok()?;
    Some((seq, engine))
}

/// A snapshot being restored from its stored text, a part at a time.
struct Restoring {
    restore: Option<Restore>,
    keep_hot: usize,
    due_later: bool,
    /// When the page last had its turn.
    slice: f64,
}

impl Restoring {
    /// Restores the lines of `text`, the first part's first line being the header.
    async fn feed(&mut self, text: &str) -> Option<()> {
        let mut lines = text.split('\n').filter(|l| !l.trim().is_empty());
        if self.restore.is_none() {
            self.restore = Some(Restore::begin(lines.next()?, Some(self.keep_hot), self.due_later).ok()?);
        }
        let r = self.restore.as_mut()?;
        loop {
            let mut slice = lines.by_ref().take(RESTORE_LINES).peekable();
            if slice.peek().is_none() {
                return Some(());
            }
            r.lines(slice).ok()?;
            if js_sys::Date::now() - self.slice >= SLICE_MS {
                idb::yield_to_page().await;
                self.slice = js_sys::Date::now();
            }
        }
    }
}

/// A snapshot's stored parts: its lines, [`PART_LINES`] to a part, joined by `\n`.
fn snapshot_parts(s: &Snapshot) -> impl Iterator<Item = String> + '_ {
    let mut lines = s.to_lines().peekable();
    std::iter::from_fn(move || {
        lines.peek()?;
        let mut text = String::new();
        for (i, line) in lines.by_ref().take(PART_LINES).enumerate() {
            if i > 0 {
                text.push('\n');
            }
            text.push_str(&line);
        }
        Some(text)
    })
}

/// Caches full runs of [`CHUNK`] records (aligned: chunk k holds records
/// `k*CHUNK+1 ..= (k+1)*CHUNK`). Best effort: the log stays the truth.
async fn cache_chunks(db: &IdbDatabase, lines: &[(u64, String)]) {
    let mut chunks = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let first = lines[i].0;
        let end = i + CHUNK as usize;
        let aligned = (first - 1).is_multiple_of(CHUNK);
        let contiguous = end <= lines.len() && lines[end - 1].0 == first + CHUNK - 1;
        if aligned && contiguous {
            let text = lines[i..end].iter().map(|(_, l)| l.as_str()).collect::<Vec<_>>().join("\n");
            chunks.push(idb::Chunk { first, last: first + CHUNK - 1, text });
            i = end;
        } else {
            i += 1;
        }
    }
    if !chunks.is_empty() {
        let _ = idb::put_chunks(db, &chunks).await;
    }
}

/// Deletes a workspace's database.
pub async fn delete(workspace: &str) -> Result<(), CallError> {
    idb::delete(workspace).await.map_err(storage_error)
}

/// The names of the workspaces stored in this browser profile.
pub async fn list() -> Result<Vec<String>, CallError> {
    idb::workspaces().await.map_err(storage_error)
}

/// The bytes a workspace keeps for view `name` ([`Persistent::keep_view`]), when they reflect
/// its log up to its last record; `None` when none are kept or records were stored since. Read
/// before the workspace is opened, to draw that view while the engine reads the log.
pub async fn current_view(workspace: &str, name: &str) -> Result<Option<Vec<u8>>, CallError> {
    let db = idb::open(workspace).await.map_err(storage_error)?;
    let kept = idb::view(&db, name).await;
    let last = idb::last_seq(&db).await;
    db.close();
    match (kept.map_err(storage_error)?, last.map_err(storage_error)?) {
        (Some((seq, bytes)), last) if seq == last => Ok(Some(bytes)),
        _ => Ok(None),
    }
}

/// Reads one setting of a workspace without replaying its log (the console's workspace list).
pub async fn read_meta(workspace: &str, key: &str) -> Result<Option<String>, CallError> {
    let db = idb::open(workspace).await.map_err(storage_error)?;
    let v = idb::meta_get(&db, key).await.map_err(storage_error);
    db.close();
    v
}
