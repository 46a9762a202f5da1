//! The SQLite file of `baton serve` on one node: workspaces (name, id seed, where their records
//! are), keys (hashed) and snapshots. A workspace's records, effects and kept answers are in a
//! file of their own (`records.rs`); the `log`, `effects` and `answers` tables hold those of a
//! database from before the files (or an import) until a writer moves them, and [`SqliteLog`]
//! reads and writes them there. WAL mode, so readers never block the writer.
use super::log::{AnswerRow, SnapshotPart, WriteError, WriterLog};
use crate::serve::keys::{Ending, StoredKey, COLUMNS as KEY_COLUMNS};
use baton_core::{LogRecord, Snapshot, Storage, StorageError};
use rusqlite::{params, Connection, OptionalExtension};
use std::cell::Cell;
use std::path::Path;

/// How durable a command is when it is answered (`--sync`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncMode {
    /// fsync at every commit: an answered command survives a power loss.
    Full,
    /// fsync at checkpoints only (WAL): an answered command survives a crash of the process,
    /// not of the machine.
    Normal,
}

impl SyncMode {
    fn pragma(self) -> &'static str {
        match self {
            SyncMode::Full => "FULL",
            SyncMode::Normal => "NORMAL",
        }
    }
}

/// How every connection to one database file is opened: what the command line chose, and
/// whether the file could be opened for writing at all. Held by the server, not the process:
/// two servers in one process may differ.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    pub sync: SyncMode,
    /// The largest the database may grow, in pages of 4 KiB (`--max-db-mb`; 0: no limit but
    /// the disk's). Past it, a command is refused with `storage_failed` and nothing of it is kept.
    pub max_pages: u64,
    /// The database could only be opened for reading (a read-only disk or file): every
    /// connection is opened read-only; reads and streams work, every write is refused.
    pub read_only: bool,
}

impl Settings {
    /// `sync`, no size limit, writable.
    pub fn new(sync: SyncMode) -> Settings {
        Settings { sync, max_pages: 0, read_only: false }
    }
}

/// Opens (creating if needed) the database at `path` with its schema — or, when
/// `settings.read_only`, opens the existing one for reading only (SQLite reads a WAL database
/// on read-only media when the connection is read-only, even without its `-shm` file).
pub fn open(path: &Path, settings: Settings) -> rusqlite::Result<Connection> {
    let Settings { sync, max_pages: max, read_only } = settings;
    if read_only {
        use rusqlite::OpenFlags;
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        // SQLite opens files lazily: a read proves the connection works.
        let readable = |c: Connection| c.query_row("SELECT count(*) FROM sqlite_master", [], |_| Ok(())).map(|()| c);
        let conn = match Connection::open_with_flags(path, flags).and_then(readable) {
            Ok(c) => c,
            // SQLite opens a WAL database read-only when its -wal and -shm files exist or can
            // be made. After a clean stop neither exists (everything is in the main file), and
            // on a read-only disk neither can be made: then the file is all there is, and
            // SQLite may treat it as immutable.
            Err(e) => {
                let mut wal = path.as_os_str().to_owned();
                wal.push("-wal");
                if std::fs::metadata(&wal).is_ok_and(|m| m.len() > 0) {
                    return Err(e);
                }
                let uri = format!("file:{}?immutable=1", path.display());
                Connection::open_with_flags(uri, flags | OpenFlags::SQLITE_OPEN_URI).and_then(readable)?
            }
        };
        conn.busy_timeout(std::time::Duration::from_secs(10))?;
        return Ok(conn);
    }
    let conn = Connection::open(path)?;
    conn.busy_timeout(std::time::Duration::from_secs(10))?;
    if max > 0 {
        conn.pragma_update(None, "page_size", 4096)?;
        conn.pragma_update(None, "max_page_count", max as i64)?;
    }
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", sync.pragma())?;
    conn.execute_batch(
        "CREATE TABLE IF NOT EXISTS workspaces (
            name TEXT PRIMARY KEY,
            seed INTEGER NOT NULL,
            created_at INTEGER NOT NULL
         );
         CREATE TABLE IF NOT EXISTS log (
            workspace TEXT NOT NULL,
            seq INTEGER NOT NULL,
            line TEXT NOT NULL,
            PRIMARY KEY (workspace, seq)
         ) WITHOUT ROWID;
         CREATE TABLE IF NOT EXISTS effects (
            workspace TEXT NOT NULL,
            seq INTEGER NOT NULL,
            body TEXT NOT NULL,
            PRIMARY KEY (workspace, seq)
         ) WITHOUT ROWID;
         CREATE TABLE IF NOT EXISTS snapshots (
            workspace TEXT PRIMARY KEY,
            seq INTEGER NOT NULL,
            body TEXT NOT NULL
         );
         CREATE TABLE IF NOT EXISTS snapshot_parts (
            workspace TEXT NOT NULL,
            seq INTEGER NOT NULL,
            part INTEGER NOT NULL,
            body TEXT NOT NULL,
            PRIMARY KEY (workspace, seq, part)
         ) WITHOUT ROWID;
         CREATE TABLE IF NOT EXISTS answers (
            workspace TEXT NOT NULL,
            scope TEXT NOT NULL,
            key TEXT NOT NULL,
            fingerprint TEXT NOT NULL,
            answer TEXT NOT NULL,
            PRIMARY KEY (workspace, scope, key)
         ) WITHOUT ROWID;
         CREATE TABLE IF NOT EXISTS keys (
            hash TEXT PRIMARY KEY,
            workspace TEXT NOT NULL,
            principal TEXT NOT NULL,
            created_at INTEGER NOT NULL
         );",
    )?;
    // Columns added after the first release, NULL in a database made before: keys' expiry and
    // revocation (never expires, not revoked), and where a workspace's records are
    // (`records.rs`: 'file', or NULL for the tables `log`, `effects` and `answers`).
    for (table, column, kind) in
        [("keys", "expires_at", "INTEGER"), ("keys", "revoked_at", "INTEGER"), ("workspaces", "records", "TEXT")]
    {
        if !has_column(&conn, table, column)? {
            conn.execute_batch(&format!("ALTER TABLE {table} ADD COLUMN {column} {kind}"))?;
        }
    }
    Ok(conn)
}

/// Whether `table` has `column` (a database opened read-only may be from before it).
pub fn has_column(conn: &Connection, table: &str, column: &str) -> rusqlite::Result<bool> {
    conn.query_row("SELECT count(*) > 0 FROM pragma_table_info(?1) WHERE name = ?2", params![table, column], |r| {
        r.get(0)
    })
}

/// Every workspace: name and id seed.
pub fn workspaces(conn: &Connection) -> rusqlite::Result<Vec<(String, u64)>> {
    let mut st = conn.prepare("SELECT name, seed FROM workspaces ORDER BY name")?;
    let rows = st.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as u64)))?;
    rows.collect()
}

/// Creates a workspace; false when one of that name exists.
pub fn create_workspace(conn: &Connection, name: &str, seed: u64, now_ms: u64) -> rusqlite::Result<bool> {
    let n = conn.execute(
        "INSERT OR IGNORE INTO workspaces (name, seed, created_at) VALUES (?1, ?2, ?3)",
        params![name, seed as i64, now_ms as i64],
    )?;
    Ok(n == 1)
}

/// Stores a key (its hash) for a principal of a workspace; with `ending`, ends another in the
/// same transaction (a rotation).
pub fn add_key(conn: &Connection, k: &StoredKey, ending: Option<&Ending>) -> rusqlite::Result<()> {
    let tx = conn.unchecked_transaction()?;
    tx.execute(
        "INSERT INTO keys (hash, workspace, principal, created_at, expires_at, revoked_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            k.hash,
            k.workspace,
            k.principal,
            k.created_at as i64,
            k.expires_at.map(|t| t as i64),
            k.revoked_at.map(|t| t as i64)
        ],
    )?;
    if let Some(e) = ending {
        end_key(&tx, e)?;
    }
    tx.commit()
}

fn stored_key(r: &rusqlite::Row<'_>) -> rusqlite::Result<StoredKey> {
    Ok(StoredKey {
        hash: r.get(0)?,
        workspace: r.get(1)?,
        principal: r.get(2)?,
        created_at: r.get::<_, i64>(3)? as u64,
        expires_at: r.get::<_, Option<i64>>(4)?.map(|t| t as u64),
        revoked_at: r.get::<_, Option<i64>>(5)?.map(|t| t as u64),
    })
}

/// The stored key with this hash.
pub fn key(conn: &Connection, hash: &str) -> rusqlite::Result<Option<StoredKey>> {
    conn.query_row(&format!("SELECT {KEY_COLUMNS} FROM keys WHERE hash = ?1"), params![hash], stored_key).optional()
}

/// A workspace's keys, oldest first.
pub fn keys(conn: &Connection, workspace: &str) -> rusqlite::Result<Vec<StoredKey>> {
    let mut st =
        conn.prepare(&format!("SELECT {KEY_COLUMNS} FROM keys WHERE workspace = ?1 ORDER BY created_at, hash"))?;
    let rows = st.query_map(params![workspace], stored_key)?;
    rows.collect()
}

/// Ends a key (see [`Ending`]).
pub fn end_key(conn: &Connection, e: &Ending) -> rusqlite::Result<()> {
    let column = e.how.column();
    conn.execute(
        &format!("UPDATE keys SET {column} = min(coalesce({column}, ?2), ?2) WHERE hash = ?1"),
        params![e.hash, e.at as i64],
    )?;
    Ok(())
}

/// The log lines of a workspace after `seq`, in order, at most `limit`.
pub fn lines_after(conn: &Connection, workspace: &str, seq: u64, limit: usize) -> rusqlite::Result<Vec<(u64, String)>> {
    let mut st =
        conn.prepare_cached("SELECT seq, line FROM log WHERE workspace = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3")?;
    let rows = st.query_map(params![workspace, seq as i64, limit as i64], |r| {
        Ok((r.get::<_, i64>(0)? as u64, r.get::<_, String>(1)?))
    })?;
    rows.collect()
}

/// Records between snapshots of a workspace by default (`--snapshot-every`; the engine also
/// waits as many as its state holds). Opening reads the latest snapshot and the records after it; the log keeps every
/// record (event streams resume from any of them).
pub const SNAPSHOT_EVERY: u64 = 10_000;

/// The latest snapshot of a workspace: its record number and lines. A snapshot row with an
/// empty body is stored in parts (`snapshot_parts`, see [`SnapshotPart`]); one written whole
/// (an import, or a file from before parts) holds its lines in the row.
pub fn snapshot(conn: &Connection, workspace: &str) -> rusqlite::Result<Option<(u64, String)>> {
    let row = conn
        .query_row("SELECT seq, body FROM snapshots WHERE workspace = ?1", params![workspace], |r| {
            Ok((r.get::<_, i64>(0)? as u64, r.get::<_, String>(1)?))
        })
        .optional()?;
    let Some((seq, body)) = row else { return Ok(None) };
    if !body.is_empty() {
        return Ok(Some((seq, body)));
    }
    let mut st = conn.prepare("SELECT body FROM snapshot_parts WHERE workspace = ?1 AND seq = ?2 ORDER BY part")?;
    let parts = st.query_map(params![workspace, seq as i64], |r| r.get::<_, String>(0))?;
    Ok(Some((seq, parts.collect::<rusqlite::Result<Vec<_>>>()?.join("\n"))))
}

/// The record a workspace's snapshot is after, if it has one (its body is not read).
pub fn snapshot_seq(conn: &Connection, workspace: &str) -> rusqlite::Result<Option<u64>> {
    conn.query_row("SELECT seq FROM snapshots WHERE workspace = ?1", params![workspace], |r| r.get::<_, i64>(0))
        .optional()
        .map(|seq| seq.map(|s| s as u64))
}

/// Stores a workspace's snapshot whole (replacing the one before, and its parts).
pub fn put_snapshot(conn: &Connection, workspace: &str, seq: u64, body: &str) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO snapshots (workspace, seq, body) VALUES (?1, ?2, ?3)
         ON CONFLICT (workspace) DO UPDATE SET seq = excluded.seq, body = excluded.body",
        params![workspace, seq as i64, body],
    )?;
    conn.execute("DELETE FROM snapshot_parts WHERE workspace = ?1", params![workspace])?;
    Ok(())
}

/// Stores one part of a snapshot (see [`SnapshotPart`]); the last makes the snapshot the
/// workspace's — unless it has a later one — and drops every other snapshot's parts.
pub fn put_snapshot_part(conn: &Connection, workspace: &str, part: &SnapshotPart) -> rusqlite::Result<()> {
    conn.prepare_cached("INSERT OR REPLACE INTO snapshot_parts (workspace, seq, part, body) VALUES (?1, ?2, ?3, ?4)")?
        .execute(params![workspace, part.seq as i64, part.index, part.body])?;
    if part.last {
        conn.execute(
            "INSERT INTO snapshots (workspace, seq, body) VALUES (?1, ?2, '')
             ON CONFLICT (workspace) DO UPDATE SET seq = excluded.seq, body = excluded.body
             WHERE snapshots.seq < excluded.seq",
            params![workspace, part.seq as i64],
        )?;
        conn.execute(
            "DELETE FROM snapshot_parts WHERE workspace = ?1
               AND seq <> coalesce((SELECT seq FROM snapshots WHERE workspace = ?1 AND body = ''), -1)",
            params![workspace],
        )?;
    }
    Ok(())
}

/// Appends one record's line to a workspace's log.
pub fn append(conn: &Connection, workspace: &str, seq: u64, line: &str) -> rusqlite::Result<()> {
    conn.prepare_cached("INSERT INTO log (workspace, seq, line) VALUES (?1, ?2, ?3)")?
        .execute(params![workspace, seq as i64, line])?;
    Ok(())
}

pub use super::log::Stream;

/// Rows of a workspace's stream after `seq`, in order, at most `limit`.
pub fn rows_after(
    conn: &Connection,
    stream: Stream,
    workspace: &str,
    seq: u64,
    limit: usize,
) -> rusqlite::Result<Vec<(u64, String)>> {
    match stream {
        Stream::Log => lines_after(conn, workspace, seq, limit),
        Stream::Effects => {
            let mut st = conn.prepare_cached(
                "SELECT seq, body FROM effects WHERE workspace = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3",
            )?;
            let rows = st.query_map(params![workspace, seq as i64, limit as i64], |r| {
                Ok((r.get::<_, i64>(0)? as u64, r.get::<_, String>(1)?))
            })?;
            rows.collect()
        }
    }
}

/// The last effect number of a workspace (0: none).
pub fn last_effect(conn: &Connection, workspace: &str) -> rusqlite::Result<u64> {
    conn.query_row("SELECT COALESCE(MAX(seq), 0) FROM effects WHERE workspace = ?1", params![workspace], |r| {
        r.get::<_, i64>(0)
    })
    .map(|n| n as u64)
}

/// The latest snapshot of a workspace as the engine opens it, noting in `loaded` the record it
/// is after (0: none), which [`snapshot_after`] then gives.
pub fn load_snapshot(
    conn: &Connection,
    workspace: &str,
    loaded: &Cell<Option<u64>>,
) -> Result<Option<Snapshot>, StorageError> {
    let found = snapshot(conn, workspace).map_err(|e| StorageError::Unavailable(e.to_string()))?;
    loaded.set(Some(found.as_ref().map_or(0, |(seq, _)| *seq)));
    match found {
        None => Ok(None),
        Some((_, body)) => Snapshot::from_lines(body.split('\n')).map(Some),
    }
}

/// The record the snapshot the engine opened from is after (`loaded`, set by
/// [`load_snapshot`]), or else the stored snapshot's: the engine's `load` reads the records
/// after it, whatever snapshot was stored in between.
pub fn snapshot_after(conn: &Connection, workspace: &str, loaded: &Cell<Option<u64>>) -> Result<u64, StorageError> {
    match loaded.get() {
        Some(seq) => Ok(seq),
        None => Ok(snapshot_seq(conn, workspace).map_err(|e| StorageError::Unavailable(e.to_string()))?.unwrap_or(0)),
    }
}

/// Stores a part of a snapshot in a transaction of its own (see
/// [`WriterLog::store_snapshot_part`]).
pub fn store_snapshot_part(conn: &Connection, workspace: &str, part: &SnapshotPart) -> rusqlite::Result<()> {
    conn.execute_batch("BEGIN IMMEDIATE")?;
    match put_snapshot_part(conn, workspace, part).and_then(|()| conn.execute_batch("COMMIT")) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = conn.execute_batch("ROLLBACK");
            Err(e)
        }
    }
}

/// One workspace's log as the engine's storage. Appends go into the transaction the
/// workspace's writer has open for the current batch of commands (group commit); the writer
/// commits it once for the batch.
pub struct SqliteLog {
    conn: Connection,
    workspace: String,
    /// The record the snapshot `load_snapshot` read is after (0: none): `load` reads the
    /// records after that one, whatever snapshot was stored in between.
    loaded: Cell<Option<u64>>,
}

impl SqliteLog {
    /// The log of `workspace` over its own connection.
    pub fn new(conn: Connection, workspace: &str) -> Self {
        SqliteLog { conn, workspace: workspace.to_string(), loaded: Cell::new(None) }
    }

    /// Starts the batch's transaction.
    pub fn begin(&self) -> rusqlite::Result<()> {
        self.conn.execute_batch("BEGIN IMMEDIATE")
    }

    /// Appends a record already encoded to its line (the writer keeps the line for the event
    /// streams, so the record is encoded once).
    pub fn append_line(&self, seq: u64, line: &str) -> Result<(), StorageError> {
        append(&self.conn, &self.workspace, seq, line).map_err(|e| StorageError::Unavailable(e.to_string()))
    }

    /// Stores effect `seq` of the workspace in the open transaction.
    pub fn append_effect(&self, seq: u64, body: &str) -> rusqlite::Result<()> {
        self.conn
            .prepare_cached("INSERT INTO effects (workspace, seq, body) VALUES (?1, ?2, ?3)")?
            .execute(params![self.workspace, seq as i64, body])?;
        Ok(())
    }

    /// Keeps a command's answer under its idempotency key, in the open transaction.
    pub fn put_answer(&self, scope: &str, key: &str, fingerprint: &str, answer: &str) -> rusqlite::Result<()> {
        self.conn
            .prepare_cached(
                "INSERT INTO answers (workspace, scope, key, fingerprint, answer) VALUES (?1, ?2, ?3, ?4, ?5)",
            )?
            .execute(params![self.workspace, scope, key, fingerprint, answer])?;
        Ok(())
    }

    /// The answer kept under an idempotency key: (fingerprint, answer).
    pub fn answer(&self, scope: &str, key: &str) -> rusqlite::Result<Option<(String, String)>> {
        self.conn
            .prepare_cached("SELECT fingerprint, answer FROM answers WHERE workspace = ?1 AND scope = ?2 AND key = ?3")?
            .query_row(params![self.workspace, scope, key], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()
    }

    /// Makes the batch durable (per the sync mode).
    pub fn commit(&self) -> rusqlite::Result<()> {
        self.conn.execute_batch("COMMIT")
    }

    /// Drops the batch.
    pub fn rollback(&self) {
        let _ = self.conn.execute_batch("ROLLBACK");
    }

    /// The last effect number stored.
    pub fn last_effect(&self) -> rusqlite::Result<u64> {
        last_effect(&self.conn, &self.workspace)
    }

    /// The log's lines after `seq` (those of the open transaction included), at most `limit`.
    pub fn lines_after(&self, seq: u64, limit: usize) -> rusqlite::Result<Vec<(u64, String)>> {
        lines_after(&self.conn, &self.workspace, seq, limit)
    }

    /// The last `callback` effect stored for a handoff (its JSON), if any.
    pub fn last_callback(&self, handoff_id: &str) -> rusqlite::Result<Option<String>> {
        self.conn
            .prepare_cached(
                "SELECT body FROM effects WHERE workspace = ?1 AND json_extract(body, '$.effect') = 'callback'
                   AND json_extract(body, '$.handoff_id') = ?2 ORDER BY seq DESC LIMIT 1",
            )?
            .query_row(params![self.workspace, handoff_id], |r| r.get(0))
            .optional()
    }
}

impl Storage for SqliteLog {
    fn append(&mut self, record: &LogRecord) -> Result<(), StorageError> {
        self.append_line(record.seq, &record.to_json_line())
    }

    fn load(&self) -> Result<Vec<LogRecord>, StorageError> {
        let after = snapshot_after(&self.conn, &self.workspace, &self.loaded)?;
        let lines = lines_after(&self.conn, &self.workspace, after, usize::MAX >> 2)
            .map_err(|e| StorageError::Unavailable(e.to_string()))?;
        lines.iter().enumerate().map(|(i, (_, l))| LogRecord::from_json_line(l, i)).collect()
    }

    fn load_snapshot(&self) -> Result<Option<Snapshot>, StorageError> {
        load_snapshot(&self.conn, &self.workspace, &self.loaded)
    }
}

impl WriterLog for SqliteLog {
    fn begin(&mut self) -> Result<(), WriteError> {
        SqliteLog::begin(self).map_err(failed)
    }
    fn append_line(&mut self, seq: u64, line: &str) -> Result<(), baton_core::StorageError> {
        SqliteLog::append_line(self, seq, line)
    }
    fn append_effect(&mut self, seq: u64, body: &str) -> Result<(), WriteError> {
        SqliteLog::append_effect(self, seq, body).map_err(failed)
    }
    fn store_snapshot_part(&mut self, part: &SnapshotPart) -> Result<(), WriteError> {
        store_snapshot_part(&self.conn, &self.workspace, part).map_err(failed)
    }
    fn put_answer(&mut self, row: AnswerRow) -> Result<(), WriteError> {
        SqliteLog::put_answer(self, &row.scope, &row.key, &row.fingerprint, &row.answer).map_err(failed)
    }
    fn answer(&mut self, scope: &str, key: &str) -> Result<Option<(String, String)>, WriteError> {
        SqliteLog::answer(self, scope, key).map_err(failed)
    }
    fn commit(&mut self) -> Result<(), WriteError> {
        SqliteLog::commit(self).map_err(failed)
    }
    fn rollback(&mut self) {
        SqliteLog::rollback(self)
    }
    fn last_effect(&mut self) -> Result<u64, String> {
        SqliteLog::last_effect(self).map_err(|e| e.to_string())
    }
    fn last_callback(&mut self, handoff_id: &str) -> Result<Option<String>, String> {
        SqliteLog::last_callback(self, handoff_id).map_err(|e| e.to_string())
    }
    fn lines_after(&self, seq: u64, limit: usize) -> Result<Vec<(u64, String)>, String> {
        SqliteLog::lines_after(self, seq, limit).map_err(|e| e.to_string())
    }
}

fn failed(e: rusqlite::Error) -> WriteError {
    WriteError::Failed(e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(seq: u64, index: u32, body: &str, last: bool) -> SnapshotPart {
        SnapshotPart { seq, index, body: body.to_string(), last }
    }

    #[test]
    fn a_snapshot_in_parts_counts_once_its_last_part_is_stored() {
        let dir = std::env::temp_dir().join(format!("baton-parts-{:x}", crate::serve::clock::random_seed()));
        std::fs::create_dir_all(&dir).unwrap();
        let conn = open(&dir.join("baton.db"), Settings::new(SyncMode::Normal)).unwrap();
        // A whole snapshot (an import) first.
        put_snapshot(&conn, "w", 3, "h3\nc").unwrap();
        assert_eq!(snapshot(&conn, "w").unwrap(), Some((3, "h3\nc".to_string())));
        // The first parts of a later one change nothing a reader sees.
        put_snapshot_part(&conn, "w", &part(9, 0, "h9\na", false)).unwrap();
        put_snapshot_part(&conn, "w", &part(9, 1, "b", false)).unwrap();
        assert_eq!(snapshot(&conn, "w").unwrap(), Some((3, "h3\nc".to_string())));
        // The last makes it the snapshot: its parts, joined by newlines.
        put_snapshot_part(&conn, "w", &part(9, 2, "c\nd", true)).unwrap();
        assert_eq!(snapshot(&conn, "w").unwrap(), Some((9, "h9\na\nb\nc\nd".to_string())));
        // A later one's parts replace them; an earlier one (a writer that lost the workspace)
        // never replaces a later one, and its parts are dropped.
        put_snapshot_part(&conn, "w", &part(12, 0, "h12", true)).unwrap();
        put_snapshot_part(&conn, "w", &part(10, 0, "h10", true)).unwrap();
        assert_eq!(snapshot(&conn, "w").unwrap(), Some((12, "h12".to_string())));
        let parts: Vec<(i64, i64)> = conn
            .prepare("SELECT seq, part FROM snapshot_parts WHERE workspace = 'w'")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert_eq!(parts, [(12, 0)], "only the current snapshot's parts are kept");
        // Another workspace's snapshot is its own.
        assert_eq!(snapshot(&conn, "other").unwrap(), None);
        std::fs::remove_dir_all(dir).ok();
    }
}
