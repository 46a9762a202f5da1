//! Where `baton serve` keeps things, whichever database it is: the control operations the
//! handlers need (keys, workspaces, paged reads of the log and the effects) and the log a
//! workspace's writer appends to ([`WriterLog`]). SQLite (`sqlite.rs`) serves one node;
//! Postgres (`postgres.rs`) serves several on one database.
pub mod log;
pub mod postgres;
pub mod sqlite;

use crate::serve::keys::{Ending, StoredKey};
use log::{WriteError, WriterLog};
use postgres::{Pg, PgLog};
use sqlite::Settings;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// How a writer opens its workspace's log.
#[derive(Clone)]
pub enum Backend {
    Sqlite { path: PathBuf, settings: Settings },
    Postgres { pg: Arc<Pg>, rt: tokio::runtime::Handle },
}

impl Backend {
    /// The log of workspace `name`; on Postgres, written under this node's lease at `epoch`.
    pub fn open_log(&self, name: &str, epoch: i64, snapshot_every: u64) -> Result<Box<dyn WriterLog>, WriteError> {
        match self {
            Backend::Sqlite { path, settings } => {
                let conn = sqlite::open(path, *settings).map_err(|e| WriteError::Failed(e.to_string()))?;
                Ok(Box::new(sqlite::SqliteLog::new(conn, name).with_snapshot_every(snapshot_every)))
            }
            Backend::Postgres { pg, rt } => Ok(Box::new(PgLog::open(pg, rt, name, epoch, snapshot_every)?)),
        }
    }
}

/// The handlers' side of the database.
pub enum Store {
    Sqlite {
        path: PathBuf,
        settings: Settings,
        /// The control connection (workspaces, keys, paged reads).
        control: Mutex<rusqlite::Connection>,
    },
    Postgres {
        pg: Arc<Pg>,
        /// Workspaces seen (a workspace is never removed).
        known: Mutex<std::collections::HashSet<String>>,
    },
}

impl Store {
    /// What a writer opens its log with.
    pub fn backend(&self) -> Backend {
        match self {
            Store::Sqlite { path, settings, .. } => Backend::Sqlite { path: path.clone(), settings: *settings },
            Store::Postgres { pg, .. } => Backend::Postgres { pg: pg.clone(), rt: tokio::runtime::Handle::current() },
        }
    }

    /// The cluster this node is part of (Postgres only).
    pub fn cluster(&self) -> Option<&Arc<Pg>> {
        match self {
            Store::Sqlite { .. } => None,
            Store::Postgres { pg, .. } => Some(pg),
        }
    }

    fn control(&self) -> Result<std::sync::MutexGuard<'_, rusqlite::Connection>, String> {
        match self {
            Store::Sqlite { control, .. } => control.lock().map_err(|_| "the control connection is poisoned".into()),
            Store::Postgres { .. } => Err("no SQLite control connection".into()),
        }
    }

    /// The stored key with this hash. Never cached: a revocation counts at once, on every node.
    pub async fn key(&self, hash: &str) -> Result<Option<StoredKey>, String> {
        match self {
            Store::Sqlite { .. } => sqlite::key(&*self.control()?, hash).map_err(|e| e.to_string()),
            Store::Postgres { pg, .. } => pg.key(hash).await,
        }
    }

    /// A workspace's keys, oldest first.
    pub async fn keys(&self, workspace: &str) -> Result<Vec<StoredKey>, String> {
        match self {
            Store::Sqlite { .. } => sqlite::keys(&*self.control()?, workspace).map_err(|e| e.to_string()),
            Store::Postgres { pg, .. } => pg.keys(workspace).await,
        }
    }

    /// Stores a key; with `ending`, ends another in the same transaction (a rotation).
    pub async fn add_key(&self, k: &StoredKey, ending: Option<&Ending>) -> Result<(), String> {
        match self {
            Store::Sqlite { .. } => sqlite::add_key(&*self.control()?, k, ending).map_err(|e| e.to_string()),
            Store::Postgres { pg, .. } => pg.add_key(k, ending).await,
        }
    }

    /// Ends a key: revoked, or to expire.
    pub async fn end_key(&self, e: &Ending) -> Result<(), String> {
        match self {
            Store::Sqlite { .. } => sqlite::end_key(&*self.control()?, e).map_err(|e| e.to_string()),
            Store::Postgres { pg, .. } => pg.end_key(e).await,
        }
    }

    /// Creates a workspace: `None` when one of that name exists, else the lease epoch this
    /// node holds it at (0 on SQLite, where there are no leases).
    pub async fn create_workspace(&self, name: &str, seed: u64, now_ms: u64) -> Result<Option<i64>, String> {
        match self {
            Store::Sqlite { .. } => {
                let created =
                    sqlite::create_workspace(&*self.control()?, name, seed, now_ms).map_err(|e| e.to_string())?;
                Ok(created.then_some(0))
            }
            Store::Postgres { pg, .. } => pg.create_workspace(name, seed, now_ms).await,
        }
    }

    /// Whether a workspace exists that this node does not have open (on Postgres, written by
    /// another node); on SQLite every workspace is open on this node, so none.
    pub async fn exists(&self, name: &str) -> Result<bool, String> {
        match self {
            Store::Sqlite { .. } => Ok(false),
            Store::Postgres { pg, known, .. } => {
                if known.lock().map_err(|_| "the workspace cache is poisoned")?.contains(name) {
                    return Ok(true);
                }
                let found = pg.exists(name).await?;
                if found {
                    known.lock().map_err(|_| "the workspace cache is poisoned")?.insert(name.to_string());
                }
                Ok(found)
            }
        }
    }

    /// Stored rows after `after` (the log's records or the effects), oldest first.
    pub async fn rows_after(
        &self,
        stream: sqlite::Stream,
        workspace: &str,
        after: u64,
        limit: usize,
    ) -> Result<Vec<(u64, String)>, String> {
        match self {
            Store::Sqlite { .. } => {
                sqlite::rows_after(&*self.control()?, stream, workspace, after, limit).map_err(|e| e.to_string())
            }
            Store::Postgres { pg, .. } => pg.rows_after(stream, workspace, after, limit).await,
        }
    }
}
