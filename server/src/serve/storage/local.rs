//! One node's storage: the handlers' side of the SQLite file ([`SqliteStore`]) and where its
//! writers open their workspaces' logs.
use super::log::{LogSource, Pending, Store, WriteError, WriterLog};
use super::sqlite::{
    add_key, create_workspace, end_key, key, keys, open, rows_after, workspaces, Settings, SqliteLog, Stream,
};
use crate::serve::keys::{Ending, StoredKey};
use rusqlite::Connection;

/// The handlers' side of a SQLite file: one control connection (workspaces, keys, paged reads).
pub struct SqliteStore {
    path: std::path::PathBuf,
    settings: Settings,
    control: std::sync::Mutex<Connection>,
}

impl SqliteStore {
    pub fn new(path: std::path::PathBuf, settings: Settings, control: Connection) -> SqliteStore {
        SqliteStore { path, settings, control: std::sync::Mutex::new(control) }
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
    fn logs(&self) -> std::sync::Arc<dyn LogSource> {
        std::sync::Arc::new(SqliteLogs { path: self.path.clone(), settings: self.settings })
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
        self.now(|c| rows_after(c, stream, workspace, after, limit))
    }
}

/// Where a writer opens a workspace's log in the SQLite file: a connection of its own.
struct SqliteLogs {
    path: std::path::PathBuf,
    settings: Settings,
}

impl LogSource for SqliteLogs {
    fn open_log(&self, name: &str, _epoch: i64) -> Result<Box<dyn WriterLog>, WriteError> {
        let conn = open(&self.path, self.settings).map_err(|e| WriteError::Failed(e.to_string()))?;
        Ok(Box::new(SqliteLog::new(conn, name)))
    }

    fn shared(&self) -> bool {
        false
    }
}
