//! The writers this node runs, one per workspace it writes: the one place a writer is
//! started (at open, when a workspace is made, when a lease is taken), found, and forgotten
//! when it steps down. What starting one takes — the store, the snapshot cadence, the callback
//! policy — is held here, so the leases (`cluster.rs`) and the protocols need nothing above.
use super::actor::{self, Workspace};
use super::callbacks::Policy;
use crate::serve::storage::log::Store;
use crate::serve::storage::postgres::Pg;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::sync::watch;

pub struct Writers {
    /// The database (SQLite, or Postgres shared by several nodes).
    pub store: Arc<dyn Store>,
    /// The cluster this node is part of (Postgres only).
    pub cluster: Option<Arc<Pg>>,
    /// Records between a workspace's snapshots (`--snapshot-every`).
    pub snapshot_every: u64,
    /// How each writer's callbacks are posted.
    pub callbacks: Policy,
    /// Becomes true when the server stops.
    pub shutdown: watch::Receiver<bool>,
    running: Mutex<HashMap<String, Workspace>>,
}

impl Writers {
    pub fn new(
        store: Arc<dyn Store>,
        cluster: Option<Arc<Pg>>,
        snapshot_every: u64,
        callbacks: Policy,
        shutdown: watch::Receiver<bool>,
    ) -> Writers {
        Writers { store, cluster, snapshot_every, callbacks, shutdown, running: Mutex::new(HashMap::new()) }
    }

    /// The cluster this node is part of (Postgres only).
    pub fn cluster(&self) -> Option<&Arc<Pg>> {
        self.cluster.as_ref()
    }

    /// Starts the writer of workspace `name` (replaying its log; on Postgres under the lease
    /// at `epoch`), with its callbacks posted, and keeps it — in place of one it had.
    pub async fn start(&self, name: &str, seed: u64, epoch: i64) -> Result<Workspace, String> {
        let (backend, owned, every) = (self.store.logs(), name.to_string(), self.snapshot_every);
        let ws = tokio::task::spawn_blocking(move || actor::start(backend, owned, seed, epoch, every))
            .await
            .map_err(|e| e.to_string())?
            .map_err(|e| e.message().to_string())?;
        self.keep(name, ws.clone());
        Ok(ws)
    }

    /// Starts a writer on this thread (before the runtime serves anything: at open).
    pub fn start_now(&self, name: &str, seed: u64, epoch: i64) -> Result<Workspace, String> {
        let ws = actor::start(self.store.logs(), name.to_string(), seed, epoch, self.snapshot_every)
            .map_err(|e| e.message().to_string())?;
        self.keep(name, ws.clone());
        Ok(ws)
    }

    fn keep(&self, name: &str, ws: Workspace) {
        tokio::spawn(super::callbacks::run(ws.clone(), self.callbacks.clone()));
        if let Ok(mut w) = self.running.lock() {
            if let Some(old) = w.insert(name.to_string(), ws) {
                old.retire();
            }
        }
    }

    /// The writer of `name` if this node runs it (one that steps down is forgotten here).
    pub fn get(&self, name: &str) -> Option<Workspace> {
        let mut map = self.running.lock().ok()?;
        let ws = map.get(name)?;
        if ws.refusing() {
            // Its writer steps down (another node took the workspace): forget it at once.
            map.remove(name);
            return None;
        }
        Some(ws.clone())
    }

    /// Every writer this node runs, by workspace.
    pub fn all(&self) -> Vec<(String, Workspace)> {
        self.running.lock().map(|w| w.iter().map(|(n, w)| (n.clone(), w.clone())).collect()).unwrap_or_default()
    }

    /// Forgets the writer of `name` if it is still the one at `epoch`.
    pub fn forget(&self, name: &str, epoch: i64) {
        if let Ok(mut w) = self.running.lock() {
            if w.get(name).is_some_and(|x| x.epoch == epoch) {
                w.remove(name);
            }
        }
    }
}
