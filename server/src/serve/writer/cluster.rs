//! Several `baton serve` nodes on one Postgres database. Each workspace has one writer at a
//! time: the node holding its lease (`storage/postgres.rs`). Every node runs [`run`]: it
//! renews the leases of the workspaces it writes, stops a writer whose lease another node
//! took, and takes the workspaces whose lease ran out (their node died) — so a dead node's
//! workspaces move within about one lease plus one look (`--lease-ms`, looks every third of
//! it). Where a workspace is written is one answer for every protocol ([`place`]): JSON-RPC
//! forwards a command there (`protocol/jsonrpc/forward.rs`), A2A and MCP redirect the client.
//! Reads (`log`, `effects`, the event streams) are served by every node from the database.
use crate::serve::app::App;
use crate::serve::writer::actor;
use std::sync::Arc;
use std::time::Duration;

/// Keeps this node's leases and takes the workspaces whose writer is gone, until the server stops.
pub async fn run(app: Arc<App>) {
    let Some(pg) = app.store.cluster().cloned() else { return };
    let every = pg.lease / 3;
    let mut shutdown = app.shutdown.clone();
    loop {
        if let Err(e) = pg.heartbeat().await {
            tracing::warn!(error = %e, "cluster heartbeat failed");
        }
        let held: Vec<(String, actor::Workspace)> =
            app.workspaces.lock().map(|w| w.iter().map(|(n, w)| (n.clone(), w.clone())).collect()).unwrap_or_default();
        for (name, ws) in held {
            let lost = *ws.stopped.borrow() || matches!(pg.renew(&name, ws.epoch).await, Ok(false));
            if lost {
                tracing::warn!(workspace = %name, epoch = ws.epoch, "this node no longer writes the workspace");
                ws.retire();
                if let Ok(mut w) = app.workspaces.lock() {
                    if w.get(&name).is_some_and(|x| x.epoch == ws.epoch) {
                        w.remove(&name);
                    }
                }
            }
        }
        match pg.take_expired().await {
            Ok(taken) => {
                for (name, seed, epoch) in taken {
                    take(&app, name, seed, epoch).await;
                }
            }
            Err(e) => tracing::warn!(error = %e, "looking for workspaces without a writer failed"),
        }
        tokio::select! {
            _ = tokio::time::sleep(every) => {}
            _ = shutdown.wait_for(|s| *s) => return,
        }
    }
}

/// Starts the writer of a workspace whose lease this node just took (or created it with).
pub async fn take(app: &Arc<App>, name: String, seed: u64, epoch: i64) {
    let (backend, every) = (app.store.backend(), app.snapshot_every);
    let started = {
        let name = name.clone();
        tokio::task::spawn_blocking(move || actor::start(backend, name, seed, epoch, every)).await
    };
    match started {
        Ok(Ok(ws)) => {
            tracing::info!(workspace = %name, epoch, "this node writes the workspace now");
            tokio::spawn(crate::serve::writer::callbacks::run(ws.clone(), app.callbacks.clone()));
            if let Ok(mut w) = app.workspaces.lock() {
                if let Some(old) = w.insert(name, ws) {
                    old.retire();
                }
            }
        }
        Ok(Err(e)) => {
            tracing::error!(workspace = %name, error = %e.message(), "the workspace does not open here; giving its lease back");
            if let Some(pg) = app.store.cluster() {
                let _ = pg.release(&name, epoch).await;
            }
        }
        Err(e) => tracing::error!(workspace = %name, error = %e, "the writer did not start"),
    }
}

/// Gives back the leases of this node's workspaces (a clean stop): other nodes take them at
/// their next look instead of after the lease runs out.
pub async fn release_all(app: &App) {
    let Some(pg) = app.store.cluster() else { return };
    let held: Vec<(String, i64)> =
        app.workspaces.lock().map(|w| w.iter().map(|(n, w)| (n.clone(), w.epoch)).collect()).unwrap_or_default();
    for (name, epoch) in held {
        if let Err(e) = pg.release(&name, epoch).await {
            tracing::warn!(workspace = %name, error = %e, "could not give the lease back; it runs out instead");
        }
    }
}

/// The longest a forwarded command waits for a workspace's writer (two leases and a bit: one
/// for the lease of a dead writer to run out, one for a new writer to open).
pub fn patience(lease: Duration) -> Duration {
    lease * 2 + Duration::from_secs(2)
}

/// Where a workspace is written, for a protocol whose client is sent to the writer (A2A,
/// MCP: a redirect keeps the request whole) rather than forwarded.
pub enum Placement {
    /// This node writes it.
    Local(actor::Workspace),
    /// Another node holds its lease: its address.
    Remote(String),
    /// No node writes it, nor will within the wait (unknown workspace, or no writer came).
    Missing,
}

/// Where `workspace` is written, waiting (bounded, as JSON-RPC's forwarding does) while this node opens
/// it or while it changes hands — so a client is never redirected to this node itself, nor
/// told a workspace is missing because its writer is starting.
pub async fn place(app: &App, workspace: &str) -> Placement {
    let deadline = app.store.cluster().map(|pg| tokio::time::Instant::now() + patience(pg.lease));
    loop {
        if let Some(ws) = app.workspace(workspace) {
            return Placement::Local(ws);
        }
        let (Some(pg), Some(deadline)) = (app.store.cluster(), deadline) else { return Placement::Missing };
        match pg.owner(workspace).await {
            Ok(Some((node, Some(url), true))) if node != pg.node => return Placement::Remote(url),
            // Opening here, or a lease that ran out and is about to be taken: wait.
            Ok(Some(_)) => {}
            Ok(None) | Err(_) => return Placement::Missing,
        }
        if tokio::time::Instant::now() >= deadline {
            return Placement::Missing;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
