//! One node's storage: the handlers' side of the SQLite file ([`SqliteStore`]) and where its
//! writers open their workspaces' logs — the record files beside it (`records.rs`).
use super::log::{LogSource, Pending, Store, WriteError, WriterLog};
use super::records::Files;
use super::sqlite::{add_key, create_workspace, end_key, key, keys, open, rows_after, workspaces, Settings, Stream};
use crate::serve::keys::{Ending, StoredKey};
use rusqlite::Connection;
use std::sync::Arc;

/// The handlers' side of a SQLite file: one control connection (workspaces, keys, paged reads).
pub struct SqliteStore {
    path: std::path::PathBuf,
    settings: Settings,
    control: std::sync::Mutex<Connection>,
    /// The workspaces' records, effects and answers (`records.rs`).
    files: Arc<Files>,
}

impl SqliteStore {
    pub fn new(path: std::path::PathBuf, settings: Settings, control: Connection) -> SqliteStore {
        let files = Arc::new(Files::new(&path, settings));
        SqliteStore { path, settings, control: std::sync::Mutex::new(control), files }
    }

    fn control(&self) -> Result<std::sync::MutexGuard<'_, Connection>, String> {
        self.control.lock().map_err(|_| "the control connection is poisoned".into())
    }

    /// What the control connection answers, as the store's future (SQLite answers at once).
    fn now<'a, T: Send + 'a>(&self, f: impl FnOnce(&Connection) -> rusqlite::Result<T>) -> Pending<'a, T> {
        let answer = self.control().and_then(|c| f(&c).map_err(|e| e.to_string()));
        Box::pin(std::future::ready(answer))
    }
}

impl Store for SqliteStore {
    fn logs(&self) -> Arc<dyn LogSource> {
        Arc::new(SqliteLogs { path: self.path.clone(), settings: self.settings, files: self.files.clone() })
    }

    fn opened_at_start(&self) -> Result<Vec<(String, u64)>, String> {
        workspaces(&*self.control()?).map_err(|e| e.to_string())
    }

    fn read_only(&self) -> Option<String> {
        let readonly =
            self.settings.read_only || self.control().is_ok_and(|c| c.is_readonly(rusqlite::MAIN_DB).unwrap_or(false));
        readonly.then(|| self.path.display().to_string())
    }

    fn key<'a>(&'a self, hash: &'a str) -> Pending<'a, Option<StoredKey>> {
        self.now(|c| key(c, hash))
    }

    fn keys<'a>(&'a self, workspace: &'a str) -> Pending<'a, Vec<StoredKey>> {
        self.now(|c| keys(c, workspace))
    }

    fn add_key<'a>(&'a self, k: &'a StoredKey, ending: Option<&'a Ending>) -> Pending<'a, ()> {
        self.now(|c| add_key(c, k, ending))
    }

    fn end_key<'a>(&'a self, e: &'a Ending) -> Pending<'a, ()> {
        self.now(|c| end_key(c, e))
    }

    fn create_workspace<'a>(&'a self, name: &'a str, seed: u64, now_ms: u64) -> Pending<'a, Option<i64>> {
        self.now(|c| create_workspace(c, name, seed, now_ms).map(|created| created.then_some(0)))
    }

    fn exists<'a>(&'a self, _name: &'a str) -> Pending<'a, bool> {
        Box::pin(std::future::ready(Ok(false)))
    }

    fn rows_after<'a>(
        &'a self,
        stream: Stream,
        workspace: &'a str,
        after: u64,
        limit: usize,
    ) -> Pending<'a, Vec<(u64, String)>> {
        if let Some(rows) = self.files.rows_after(stream, workspace, after, limit) {
            return Box::pin(std::future::ready(rows));
        }
        self.now(|c| rows_after(c, stream, workspace, after, limit))
    }
}

/// Where a writer opens a workspace's log: its records' file (`records.rs`), with a connection
/// of its own to the SQLite file for its snapshots.
struct SqliteLogs {
    path: std::path::PathBuf,
    settings: Settings,
    files: Arc<Files>,
}

impl LogSource for SqliteLogs {
    fn open_log(&self, name: &str, _epoch: i64) -> Result<Box<dyn WriterLog>, WriteError> {
        let conn = open(&self.path, self.settings).map_err(|e| WriteError::Failed(e.to_string()))?;
        self.files.open_log(conn, name).map_err(WriteError::Failed)
    }

    fn shared(&self) -> bool {
        false
    }
}
