//! A SQLite database's records, effects and kept answers in files of their own beside it,
//! one `baton-filelog` file a workspace (`<db>.records/<workspace>.log`): a writer's batch is
//! one write and, under `--sync full`, one `fdatasync` (docs/DECISIONS.md, "A log of its own
//! for `baton serve`'s records"). SQLite keeps the rest: workspaces, keys, snapshots.
//!
//! [`Files`] is one database's set of them: the handlers' paged reads find a workspace's
//! committed records and effects through it. [`FileRecords`] is one workspace's file as its
//! writer sees it.
//!
//! A workspace's row in `workspaces` says where its records are: `records = 'file'`, or NULL for
//! the `log`, `effects` and `answers` tables (a database from before the files, or an import).
//! A writer that opens a workspace of the tables moves its rows into a file first, and only
//! then marks it, in the transaction that deletes the rows ([`Files::open_log`]).
use super::log::{AnswerRow, SnapshotPart, Stream, WriteError, WriterLog};
use super::sqlite::{self, Settings, SqliteLog, SyncMode};
use baton_core::{LogRecord, Snapshot, Storage, StorageError};
use baton_filelog::{sync_dir, Batch, Entry, FileLog, Reader};
use rusqlite::{params, Connection};
use std::cell::Cell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

/// The kinds of entries in a workspace's file (the frame's number is the record's or the
/// effect's; an answer's is 0).
const RECORD: u8 = 1;
const EFFECT: u8 = 2;
const ANSWER: u8 = 3;

/// Rows moved from the tables into a file per batch.
const MOVE_BATCH: usize = 4096;

/// One database's record files.
pub struct Files {
    dir: PathBuf,
    /// Commits wait for the disk (`--sync full`).
    sync: bool,
    read_only: bool,
    /// The most the database and its files may hold together, in bytes (`--max-db-mb`; 0: no
    /// limit but the disk's).
    limit: u64,
    open: Mutex<HashMap<String, Arc<Shared>>>,
    /// SQLite's own size in bytes, as a writer last read it (for the limit).
    sqlite_bytes: AtomicU64,
}

/// A workspace's file as every thread sees it: what is committed, and where each record and
/// effect is in it.
struct Shared {
    reader: Reader,
    index: RwLock<Index>,
}

/// Where each record and effect starts in the file, by number, in order.
#[derive(Default)]
struct Index {
    records: Vec<(u64, u64)>,
    effects: Vec<(u64, u64)>,
}

impl Files {
    /// The record files of the database at `db` (`<db>.records/`), opened as `settings` say.
    pub fn new(db: &Path, settings: Settings) -> Files {
        let mut dir = db.as_os_str().to_owned();
        dir.push(".records");
        Files {
            dir: PathBuf::from(dir),
            sync: settings.sync == SyncMode::Full,
            read_only: settings.read_only,
            limit: settings.max_pages * 4096,
            open: Mutex::new(HashMap::new()),
            sqlite_bytes: AtomicU64::new(0),
        }
    }

    fn path(&self, workspace: &str) -> PathBuf {
        self.dir.join(format!("{workspace}.log"))
    }

    /// A workspace's committed rows after `after` (records or effects), oldest first, at most
    /// `limit`; `None` when its records are not in a file open here.
    pub fn rows_after(
        &self,
        stream: Stream,
        workspace: &str,
        after: u64,
        limit: usize,
    ) -> Option<Result<Vec<(u64, String)>, String>> {
        let shared = self.open.lock().ok()?.get(workspace)?.clone();
        Some(shared.rows_after(stream, after, limit))
    }

    /// Opens workspace `name`'s records for its writer over `conn` (which keeps its
    /// snapshots): its file, moving its rows out of the tables first if they are there. A
    /// database that can only be read keeps a workspace of the tables there.
    pub fn open_log(self: &Arc<Self>, conn: Connection, name: &str) -> Result<Box<dyn WriterLog>, String> {
        let read_only = self.read_only || conn.is_readonly(rusqlite::MAIN_DB).unwrap_or(false);
        let path = self.path(name);
        if !in_file(&conn, name).map_err(|e| e.to_string())? {
            if read_only {
                return Ok(Box::new(SqliteLog::new(conn, name)));
            }
            self.move_rows(&conn, name)?;
        } else if !path.exists() {
            return Err(format!("the records of workspace '{name}' are missing: no file {}", path.display()));
        }
        Ok(Box::new(self.open_file(conn, name, read_only)?))
    }

    /// Opens workspace `name`'s file (its rows are not in the tables) and reads its index.
    fn open_file(self: &Arc<Self>, conn: Connection, name: &str, read_only: bool) -> Result<FileRecords, String> {
        let path = self.path(name);
        let (mut index, mut keyed) = (Index::default(), Keyed::default());
        let mut visit = |at, e: Entry| {
            // A kind a later version writes is not this version's to read.
            if let Some(what) = What::of(&e) {
                keyed.note(&mut index, at, what);
            }
        };
        let opened = match read_only {
            true => FileLog::open_read_only(&path, &mut visit),
            false => FileLog::open(&path, self.sync, &mut visit),
        };
        let (log, opened) = opened.map_err(|e| format!("cannot open {}: {e}", path.display()))?;
        if opened.cut > 0 {
            tracing::warn!(
                workspace = name,
                bytes = opened.cut,
                file = %path.display(),
                "the records file ended in a batch that was never committed (a crash while writing it, never answered); its bytes are kept beside the file as .cut-<offset>"
            );
        }
        let shared = Arc::new(Shared { reader: log.reader(), index: RwLock::new(index) });
        self.open
            .lock()
            .map_err(|_| "the record files' registry is poisoned")?
            .insert(name.to_string(), shared.clone());
        let records = FileRecords {
            conn,
            workspace: name.to_string(),
            files: self.clone(),
            shared,
            log,
            read_only,
            batch: Batch::new(),
            pending: Vec::new(),
            keyed,
            loaded: Cell::new(None),
        };
        records.note_sqlite_size();
        Ok(records)
    }

    /// Moves a workspace's rows out of the `log`, `effects` and `answers` tables into its file
    /// (a new one when it has none): written whole beside it, put in place by a rename, and
    /// only then is the workspace marked and are its rows deleted, in one transaction. A crash
    /// before that leaves the rows where they were, and the next opening moves them again.
    fn move_rows(&self, conn: &Connection, name: &str) -> Result<(), String> {
        let fail = |what: &str, e: &dyn std::fmt::Display| format!("moving workspace '{name}''s rows {what}: {e}");
        let new_dir = !self.dir.exists();
        std::fs::create_dir_all(&self.dir).map_err(|e| fail("(making the records directory)", &e))?;
        if new_dir && self.sync {
            sync_dir(&self.dir).map_err(|e| fail("(making the records directory)", &e))?;
        }
        let path = self.path(name);
        let mut fresh = path.as_os_str().to_owned();
        fresh.push(".new");
        let fresh = PathBuf::from(fresh);
        match std::fs::remove_file(&fresh) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(fail("(clearing an unfinished move)", &e))
            }
            _ => {}
        }
        let (mut log, _) = FileLog::open(&fresh, self.sync, |_, _| ()).map_err(|e| fail("(a new file)", &e))?;
        let mut batch = Batch::new();
        let mut moved = 0u64;
        let mut commit = |batch: &mut Batch, log: &mut FileLog| -> Result<(), String> {
            log.commit(batch).map_err(|e| fail("into the file", &e))?;
            moved += batch.len() as u64;
            batch.clear();
            Ok(())
        };
        // Records and effects a page at a time, through the paged read the handlers use.
        for (kind, stream) in [(RECORD, Stream::Log), (EFFECT, Stream::Effects)] {
            let mut after = 0;
            loop {
                let rows = sqlite::rows_after(conn, stream, name, after, MOVE_BATCH)
                    .map_err(|e| fail("(reading them)", &e))?;
                let Some(&(last, _)) = rows.last() else { break };
                for (seq, text) in &rows {
                    batch.push(kind, *seq, text.as_bytes());
                }
                commit(&mut batch, &mut log)?;
                after = last;
            }
        }
        let mut st = conn
            .prepare("SELECT scope, key, fingerprint, answer FROM answers WHERE workspace = ?1")
            .map_err(|e| fail("(reading them)", &e))?;
        let mut rows = st.query(params![name]).map_err(|e| fail("(reading them)", &e))?;
        while let Some(row) = rows.next().map_err(|e| fail("(reading them)", &e))? {
            let get = |i| row.get::<_, String>(i).map_err(|e| fail("(reading them)", &e));
            let answer = AnswerRow { scope: get(0)?, key: get(1)?, fingerprint: get(2)?, answer: get(3)? };
            batch.push(ANSWER, 0, &encode_answer(&answer));
            if batch.len() >= MOVE_BATCH {
                commit(&mut batch, &mut log)?;
            }
        }
        if !batch.is_empty() {
            commit(&mut batch, &mut log)?;
        }
        drop(log);
        std::fs::rename(&fresh, &path).map_err(|e| fail("(putting the file in place)", &e))?;
        if self.sync {
            sync_dir(&path).map_err(|e| fail("(putting the file in place)", &e))?;
        }
        let tx = conn.unchecked_transaction().map_err(|e| fail("(marking the workspace)", &e))?;
        for table in ["log", "effects", "answers"] {
            tx.execute(&format!("DELETE FROM {table} WHERE workspace = ?1"), params![name])
                .map_err(|e| fail("(deleting them)", &e))?;
        }
        tx.execute("UPDATE workspaces SET records = 'file' WHERE name = ?1", params![name])
            .map_err(|e| fail("(marking the workspace)", &e))?;
        tx.commit().map_err(|e| fail("(marking the workspace)", &e))?;
        if moved > 0 {
            tracing::info!(workspace = name, rows = moved, file = %path.display(), "moved the workspace's records from the database into their file");
        }
        Ok(())
    }

    /// Bytes committed in the files open here, all workspaces together.
    fn committed(&self) -> u64 {
        self.open.lock().map_or(0, |open| open.values().map(|s| s.reader.end()).sum())
    }
}

/// Whether a workspace's records are in a file (`records = 'file'`; a database from before the
/// column has none in a file).
fn in_file(conn: &Connection, name: &str) -> rusqlite::Result<bool> {
    if !sqlite::has_column(conn, "workspaces", "records")? {
        return Ok(false);
    }
    let marked: Option<Option<String>> = rusqlite::OptionalExtension::optional(conn.query_row(
        "SELECT records FROM workspaces WHERE name = ?1",
        params![name],
        |r| r.get(0),
    ))?;
    Ok(marked.flatten().as_deref() == Some("file"))
}

/// What an entry is, for the index and what the writer finds by key.
enum What {
    Record(u64),
    /// An effect, and the handoff it is a `callback` for.
    Effect(u64, Option<String>),
    /// A kept answer's (scope, key).
    Answer(String, String),
}

impl What {
    /// What an entry read back is; `None` for a kind this version does not write.
    fn of(e: &Entry) -> Option<What> {
        match e.kind {
            RECORD => Some(What::Record(e.number)),
            EFFECT => Some(What::Effect(e.number, callback_of(&e.bytes))),
            ANSWER => decode_answer(&e.bytes).map(|a| What::Answer(a.scope, a.key)),
            _ => None,
        }
    }
}

/// What the writer finds by key, and where in the file.
#[derive(Default)]
struct Keyed {
    /// Each kept answer, by (scope, key).
    answers: HashMap<(String, String), u64>,
    /// Each handoff's last `callback` effect.
    callbacks: HashMap<String, u64>,
    last_effect: u64,
}

impl Keyed {
    /// Notes the entry at `at`, at opening or once its batch is committed.
    fn note(&mut self, index: &mut Index, at: u64, what: What) {
        match what {
            What::Record(seq) => index.records.push((seq, at)),
            What::Effect(seq, callback) => {
                index.effects.push((seq, at));
                self.last_effect = self.last_effect.max(seq);
                if let Some(handoff) = callback {
                    self.callbacks.insert(handoff, at);
                }
            }
            What::Answer(scope, key) => {
                self.answers.insert((scope, key), at);
            }
        }
    }
}

/// The handoff a `callback` effect is for (effects are stored as JSON objects with keys
/// `effect` and, for a callback, `handoff_id`).
fn callback_of(body: &[u8]) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Probe {
        effect: String,
        handoff_id: Option<String>,
    }
    // Most effects are not callbacks: only those that name one are parsed.
    if !body.windows(10).any(|w| w == b"\"callback\"") {
        return None;
    }
    let probe: Probe = serde_json::from_slice(body).ok()?;
    (probe.effect == "callback").then_some(probe.handoff_id).flatten()
}

/// An answer's entry: its four texts, each after its length (4 bytes, little-endian).
fn encode_answer(a: &AnswerRow) -> Vec<u8> {
    let texts = [&a.scope, &a.key, &a.fingerprint, &a.answer];
    let mut out = Vec::with_capacity(16 + texts.iter().map(|t| t.len()).sum::<usize>());
    for t in texts {
        out.extend_from_slice(&(t.len() as u32).to_le_bytes());
        out.extend_from_slice(t.as_bytes());
    }
    out
}

fn decode_answer(mut bytes: &[u8]) -> Option<AnswerRow> {
    let mut next = || -> Option<String> {
        let len = u32::from_le_bytes(bytes.get(..4)?.try_into().ok()?) as usize;
        let text = std::str::from_utf8(bytes.get(4..4 + len)?).ok()?.to_string();
        bytes = &bytes[4 + len..];
        Some(text)
    };
    Some(AnswerRow { scope: next()?, key: next()?, fingerprint: next()?, answer: next()? })
}

impl Shared {
    fn rows_after(&self, stream: Stream, after: u64, limit: usize) -> Result<Vec<(u64, String)>, String> {
        let offsets: Vec<u64> = {
            let index = self.index.read().map_err(|_| "the records index is poisoned")?;
            let list = match stream {
                Stream::Log => &index.records,
                Stream::Effects => &index.effects,
            };
            let from = list.partition_point(|&(n, _)| n <= after);
            list[from..].iter().take(limit).map(|&(_, at)| at).collect()
        };
        offsets
            .into_iter()
            .map(|at| {
                let e = self.read(at)?;
                String::from_utf8(e.bytes).map(|text| (e.number, text)).map_err(|e| e.to_string())
            })
            .collect()
    }

    /// The entry at `at` (an offset the index or opening gave).
    fn read(&self, at: u64) -> Result<Entry, String> {
        match self.reader.next_entry(at) {
            Ok(Some((here, e, _))) if here == at => Ok(e),
            Ok(_) => Err(format!("the records file has no entry at offset {at}")),
            Err(e) => Err(format!("reading the records file: {e}")),
        }
    }
}

/// One workspace's file as its writer sees it, with the database connection that keeps its
/// snapshots.
pub struct FileRecords {
    conn: Connection,
    workspace: String,
    files: Arc<Files>,
    shared: Arc<Shared>,
    log: FileLog,
    read_only: bool,
    batch: Batch,
    /// What each entry of the batch is, in order.
    pending: Vec<What>,
    keyed: Keyed,
    /// The record the snapshot `load_snapshot` read is after (see [`sqlite::snapshot_after`]).
    loaded: Cell<Option<u64>>,
}

impl FileRecords {
    /// Reads SQLite's size for the limit (after the writer wrote to it).
    fn note_sqlite_size(&self) {
        if self.files.limit == 0 {
            return;
        }
        let size = self.conn.query_row(
            "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()",
            [],
            |r| r.get::<_, i64>(0),
        );
        if let Ok(size) = size {
            self.files.sqlite_bytes.store(size as u64, Ordering::Relaxed);
        }
    }

    fn refuse_read_only(&self) -> Result<(), WriteError> {
        match self.read_only {
            true => Err(WriteError::Failed(format!(
                "attempt to write a read-only database: the records of workspace '{}' are on a read-only disk or file",
                self.workspace
            ))),
            false => Ok(()),
        }
    }
}

impl Storage for FileRecords {
    fn append(&mut self, record: &LogRecord) -> Result<(), StorageError> {
        WriterLog::append_line(self, record.seq, &record.to_json_line())
    }

    fn load(&self) -> Result<Vec<LogRecord>, StorageError> {
        let after = sqlite::snapshot_after(&self.conn, &self.workspace, &self.loaded)?;
        let lines = self.shared.rows_after(Stream::Log, after, usize::MAX).map_err(StorageError::Unavailable)?;
        lines.iter().enumerate().map(|(i, (_, l))| LogRecord::from_json_line(l, i)).collect()
    }

    fn load_snapshot(&self) -> Result<Option<Snapshot>, StorageError> {
        sqlite::load_snapshot(&self.conn, &self.workspace, &self.loaded)
    }
}

impl WriterLog for FileRecords {
    fn begin(&mut self) -> Result<(), WriteError> {
        self.batch.clear();
        self.pending.clear();
        Ok(())
    }

    fn append_line(&mut self, seq: u64, line: &str) -> Result<(), StorageError> {
        self.batch.push(RECORD, seq, line.as_bytes());
        self.pending.push(What::Record(seq));
        Ok(())
    }

    fn append_effect(&mut self, seq: u64, body: &str) -> Result<(), WriteError> {
        self.batch.push(EFFECT, seq, body.as_bytes());
        self.pending.push(What::Effect(seq, callback_of(body.as_bytes())));
        Ok(())
    }

    fn store_snapshot_part(&mut self, part: &SnapshotPart) -> Result<(), WriteError> {
        self.refuse_read_only()?;
        if part.last {
            // The last part makes the snapshot the one opening starts from. Under `--sync
            // normal` the records it covers may still be only in the kernel's cache: they go
            // to the disk first, so that a machine's crash never leaves a snapshot ahead of
            // the file (opening would then start past records the file no longer has).
            self.log.sync().map_err(|e| WriteError::Failed(format!("syncing the records before a snapshot: {e}")))?;
        }
        let stored = sqlite::store_snapshot_part(&self.conn, &self.workspace, part);
        self.note_sqlite_size();
        stored.map_err(|e| WriteError::Failed(e.to_string()))
    }

    fn put_answer(&mut self, row: AnswerRow) -> Result<(), WriteError> {
        self.batch.push(ANSWER, 0, &encode_answer(&row));
        self.pending.push(What::Answer(row.scope, row.key));
        Ok(())
    }

    fn answer(&mut self, scope: &str, key: &str) -> Result<Option<(String, String)>, WriteError> {
        let Some(&at) = self.keyed.answers.get(&(scope.to_string(), key.to_string())) else { return Ok(None) };
        let entry = self.shared.read(at).map_err(WriteError::Failed)?;
        let row = decode_answer(&entry.bytes)
            .ok_or_else(|| WriteError::Failed(format!("the answer kept at offset {at} does not read back")))?;
        Ok(Some((row.fingerprint, row.answer)))
    }

    fn commit(&mut self) -> Result<(), WriteError> {
        // A batch that wrote nothing (reads, refused commands) commits on a read-only disk too.
        if self.batch.is_empty() {
            return Ok(());
        }
        self.refuse_read_only()?;
        let files = &self.files;
        if files.limit > 0 {
            let after = files.committed() + files.sqlite_bytes.load(Ordering::Relaxed) + self.batch.framed_len();
            if after > files.limit {
                // The writer opens the file again after a refused commit: no room may be being
                // written ahead by this one then.
                self.log.settle();
                return Err(WriteError::Failed(format!(
                    "database or disk is full: the database and its records would hold {after} bytes, more than --max-db-mb allows ({} MiB)",
                    files.limit >> 20
                )));
            }
        }
        let start = self.log.commit(&self.batch).map_err(|e| WriteError::Failed(e.to_string()))?;
        let mut index =
            self.shared.index.write().map_err(|_| WriteError::Failed("the records index is poisoned".into()))?;
        for (at, what) in self.batch.offsets(start).zip(self.pending.drain(..)) {
            self.keyed.note(&mut index, at, what);
        }
        drop(index);
        self.batch.clear();
        Ok(())
    }

    fn rollback(&mut self) {
        self.batch.clear();
        self.pending.clear();
    }

    fn last_effect(&mut self) -> Result<u64, String> {
        Ok(self.keyed.last_effect)
    }

    fn last_callback(&mut self, handoff_id: &str) -> Result<Option<String>, String> {
        let Some(&at) = self.keyed.callbacks.get(handoff_id) else { return Ok(None) };
        let entry = self.shared.read(at)?;
        String::from_utf8(entry.bytes).map(Some).map_err(|e| e.to_string())
    }

    fn lines_after(&self, seq: u64, limit: usize) -> Result<Vec<(u64, String)>, String> {
        self.shared.rows_after(Stream::Log, seq, limit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::serve::storage::sqlite::{append, create_workspace, open};

    /// A database in a scratch directory, removed when dropped (a failed test included).
    struct Db(PathBuf);

    impl Db {
        fn new() -> Db {
            let dir = std::env::temp_dir().join(format!("baton-records-{:x}", crate::serve::clock::random_seed()));
            std::fs::create_dir_all(&dir).unwrap();
            let db = Db(dir);
            create_workspace(&db.conn(Settings::new(SyncMode::Full)), "w", 7, 0).unwrap();
            db
        }
        fn path(&self) -> PathBuf {
            self.0.join("baton.db")
        }
        fn conn(&self, settings: Settings) -> Connection {
            open(&self.path(), settings).unwrap()
        }
        fn file(&self) -> PathBuf {
            self.0.join("baton.db.records").join("w.log")
        }
        /// Workspace `w`'s log as its writer opens it, over a set of files of its own.
        fn writer(&self, settings: Settings) -> Result<(Arc<Files>, Box<dyn WriterLog>), String> {
            let files = Arc::new(Files::new(&self.path(), settings));
            let log = files.open_log(self.conn(settings), "w")?;
            Ok((files, log))
        }
        /// How many rows workspace `w` has in each table: log, effects, answers.
        fn table_rows(&self) -> [i64; 3] {
            let conn = self.conn(Settings::new(SyncMode::Full));
            ["log", "effects", "answers"].map(|t| {
                conn.query_row(&format!("SELECT count(*) FROM {t} WHERE workspace = 'w'"), [], |r| r.get(0)).unwrap()
            })
        }
    }

    impl Drop for Db {
        fn drop(&mut self) {
            std::fs::remove_dir_all(&self.0).ok();
        }
    }

    fn full() -> Settings {
        Settings::new(SyncMode::Full)
    }

    fn answer(key: &str, text: &str) -> AnswerRow {
        AnswerRow { scope: "host".into(), key: key.into(), fingerprint: format!("fp-{key}"), answer: text.into() }
    }

    const CALLBACK: &str = r#"{"effect":"callback","handoff_id":"h1","url":"http://127.0.0.1:9/a"}"#;

    /// Commits one batch: records, effects, answers.
    fn commit(log: &mut dyn WriterLog, records: &[(u64, &str)], effects: &[(u64, &str)], answers: Vec<AnswerRow>) {
        log.begin().unwrap();
        for (seq, line) in records {
            log.append_line(*seq, line).unwrap();
        }
        for (seq, body) in effects {
            log.append_effect(*seq, body).unwrap();
        }
        for a in answers {
            log.put_answer(a).unwrap();
        }
        log.commit().unwrap();
    }

    fn rows(files: &Files, stream: Stream, after: u64) -> Vec<(u64, String)> {
        files.rows_after(stream, "w", after, 100).expect("w is open in a file").unwrap()
    }

    fn owned(rows: &[(u64, &str)]) -> Vec<(u64, String)> {
        rows.iter().map(|(n, t)| (*n, t.to_string())).collect()
    }

    #[test]
    fn a_batch_reads_back_once_committed_and_after_opening_again() {
        let db = Db::new();
        let (files, mut log) = db.writer(full()).unwrap();
        assert!(in_file(&db.conn(full()), "w").unwrap(), "a new workspace's records go to a file");
        assert_eq!(rows(&files, Stream::Log, 0), []);
        commit(
            &mut *log,
            &[(1, "one"), (2, "two")],
            &[(1, "{\"effect\":\"wake\"}"), (2, CALLBACK)],
            vec![answer("k1", "A1")],
        );
        // Begun and filled, not committed: no reader sees it; dropped, it never counts.
        log.begin().unwrap();
        log.append_line(3, "three").unwrap();
        log.put_answer(answer("k2", "A2")).unwrap();
        assert_eq!(rows(&files, Stream::Log, 0), owned(&[(1, "one"), (2, "two")]));
        log.rollback();
        commit(&mut *log, &[(3, "three")], &[(3, "{\"effect\":\"wake\"}")], vec![]);
        let check = |files: &Files, log: &mut dyn WriterLog| {
            assert_eq!(rows(files, Stream::Log, 1), owned(&[(2, "two"), (3, "three")]));
            assert_eq!(files.rows_after(Stream::Log, "w", 0, 1).unwrap().unwrap(), owned(&[(1, "one")]));
            assert_eq!(rows(files, Stream::Effects, 1).len(), 2);
            assert_eq!(log.lines_after(2, 10).unwrap(), owned(&[(3, "three")]));
            assert_eq!(log.answer("host", "k1").unwrap(), Some(("fp-k1".into(), "A1".into())));
            assert_eq!(log.answer("host", "k2").unwrap(), None, "a rolled-back answer is not kept");
            assert_eq!(log.answer("bot:x", "k1").unwrap(), None, "another principal's key is its own");
            assert_eq!(log.last_effect().unwrap(), 3);
            assert_eq!(log.last_callback("h1").unwrap().as_deref(), Some(CALLBACK));
            assert_eq!(log.last_callback("h2").unwrap(), None);
        };
        check(&files, &mut *log);
        drop(log);
        let (files, mut log) = db.writer(full()).unwrap();
        check(&files, &mut *log);
        assert_eq!(db.table_rows(), [0, 0, 0], "nothing went to the tables");
    }

    #[test]
    fn rows_in_the_tables_move_into_a_file_once_even_after_a_crash_in_the_middle() {
        let db = Db::new();
        {
            // A workspace from before the files: its rows in the tables, unmarked.
            let conn = db.conn(full());
            append(&conn, "w", 1, "one").unwrap();
            append(&conn, "w", 2, "two").unwrap();
            conn.execute("INSERT INTO effects (workspace, seq, body) VALUES ('w', 1, ?1)", [CALLBACK]).unwrap();
            conn.execute(
                "INSERT INTO answers (workspace, scope, key, fingerprint, answer) VALUES ('w', 'host', 'k1', 'fp-k1', 'A1')",
                [],
            )
            .unwrap();
            conn.execute("UPDATE workspaces SET records = NULL WHERE name = 'w'", []).unwrap();
        }
        // A move that crashed before the mark left a file (and an unfinished one) behind.
        std::fs::create_dir_all(db.file().parent().unwrap()).unwrap();
        std::fs::write(db.file(), b"left from a move that never finished").unwrap();
        std::fs::write(db.file().with_extension("log.new"), b"half").unwrap();
        // Read only, the rows are read where they are.
        let ro = Settings { read_only: true, ..full() };
        let (_, log) = db.writer(ro).unwrap();
        assert_eq!(log.lines_after(0, 10).unwrap(), owned(&[(1, "one"), (2, "two")]));
        drop(log);
        let (files, mut log) = db.writer(full()).unwrap();
        assert_eq!(db.table_rows(), [0, 0, 0], "the rows left the tables");
        assert!(in_file(&db.conn(full()), "w").unwrap());
        assert!(!db.file().with_extension("log.new").exists());
        assert_eq!(rows(&files, Stream::Log, 0), owned(&[(1, "one"), (2, "two")]));
        assert_eq!(rows(&files, Stream::Effects, 0), owned(&[(1, CALLBACK)]));
        assert_eq!(log.answer("host", "k1").unwrap(), Some(("fp-k1".into(), "A1".into())));
        assert_eq!(log.last_callback("h1").unwrap().as_deref(), Some(CALLBACK));
        // The log goes on in the file.
        commit(&mut *log, &[(3, "three")], &[], vec![]);
        drop(log);
        let (files, _log) = db.writer(full()).unwrap();
        assert_eq!(rows(&files, Stream::Log, 0), owned(&[(1, "one"), (2, "two"), (3, "three")]));
    }

    #[test]
    fn a_marked_workspace_whose_file_is_gone_does_not_open() {
        let db = Db::new();
        let (_, log) = db.writer(full()).unwrap();
        drop(log);
        std::fs::remove_file(db.file()).unwrap();
        let e = db.writer(full()).err().expect("refused");
        assert!(e.contains("missing") && e.contains("w.log"), "{e}");
        assert!(!db.file().exists(), "no empty file stands in for the lost one");
    }

    #[test]
    fn past_the_size_limit_a_batch_is_refused_whole_and_what_was_kept_stays() {
        let db = Db::new();
        let limited = Settings { max_pages: 64, ..full() }; // 256 KiB, SQLite's own pages included
        let (files, mut log) = db.writer(limited).unwrap();
        let line = "x".repeat(10_000);
        let mut seq = 0;
        let refused = loop {
            log.begin().unwrap();
            log.append_line(seq + 1, &line).unwrap();
            match log.commit() {
                Ok(()) => seq += 1,
                Err(e) => break e,
            }
            assert!(seq < 100, "the limit never came");
        };
        log.rollback();
        assert!(refused.message().contains("full"), "{}", refused.message());
        assert!(seq > 5, "{seq} batches fit");
        assert_eq!(rows(&files, Stream::Log, 0).len(), seq as usize);
        // A smaller batch still fits.
        commit(&mut *log, &[(seq + 1, "small")], &[], vec![]);
    }

    #[test]
    fn under_sync_normal_a_snapshot_is_stored_only_after_the_records_it_covers_are_on_the_disk() {
        let db = Db::new();
        let normal = Settings::new(SyncMode::Normal);
        let files = Arc::new(Files::new(&db.path(), normal));
        drop(files.open_log(db.conn(normal), "w").unwrap()); // makes the file
        let mut records = files.open_file(db.conn(normal), "w", false).unwrap();
        commit(&mut records, &[(1, "one"), (2, "two")], &[], vec![]);
        assert!(records.log.synced() < records.log.end(), "not synced a commit");
        let part = |index, last| SnapshotPart { seq: 2, index, body: "{}".into(), last };
        records.store_snapshot_part(&part(0, false)).unwrap();
        assert!(records.log.synced() < records.log.end(), "a part that is not the last changes nothing opening reads");
        records.store_snapshot_part(&part(1, true)).unwrap();
        assert_eq!(records.log.synced(), records.log.end(), "the records are on the disk before the snapshot counts");
        assert_eq!(sqlite::snapshot_seq(&db.conn(normal), "w").unwrap(), Some(2));
    }

    #[test]
    fn read_only_a_file_serves_reads_and_refuses_writes_but_not_empty_batches() {
        let db = Db::new();
        let (_, mut log) = db.writer(full()).unwrap();
        commit(&mut *log, &[(1, "one")], &[], vec![]);
        drop(log);
        let (files, mut log) = db.writer(Settings { read_only: true, ..full() }).unwrap();
        assert_eq!(rows(&files, Stream::Log, 0), owned(&[(1, "one")]));
        log.begin().unwrap();
        log.commit().expect("a batch that writes nothing commits");
        log.begin().unwrap();
        log.append_line(2, "two").unwrap();
        let e = log.commit().expect_err("refused");
        assert!(e.message().contains("read-only"), "{}", e.message());
        log.rollback();
        assert_eq!(rows(&files, Stream::Log, 0), owned(&[(1, "one")]));
    }
}
