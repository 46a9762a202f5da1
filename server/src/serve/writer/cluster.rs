//! Several `baton serve` nodes on one Postgres database. Each workspace has one writer at a
//! time: the node holding its lease (`storage/postgres.rs`). Every node runs [`run`]: it
//! renews the leases of the workspaces it writes, stops a writer whose lease another node
//! took, and takes the workspaces whose lease ran out (their node died) — so a dead node's
//! workspaces move within about one lease plus one look (`--lease-ms`, looks every third of
//! it). Where a workspace is written is one answer for every protocol ([`place`]): JSON-RPC
//! forwards a command there (`protocol/jsonrpc/forward.rs`), A2A and MCP redirect the client.
//! Reads (`log`, `effects`, the event streams) are served by every node from the database.
use super::actor;
use super::registry::Writers;
use std::sync::Arc;
use std::time::Duration;

/// Keeps this node's leases and takes the workspaces whose writer is gone, until the server stops.
pub async fn run(writers: Arc<Writers>) {
    let Some(pg) = writers.cluster().cloned() else { return };
    let every = pg.lease / 3;
    let mut shutdown = writers.shutdown.clone();
    loop {
        if let Err(e) = pg.heartbeat().await {
            tracing::warn!(error = %e, "cluster heartbeat failed");
        }
        let held: Vec<(String, actor::Workspace)> = writers.all();
        for (name, ws) in held {
            let lost = ws.refusing() || matches!(pg.renew(&name, ws.epoch).await, Ok(false));
            if lost {
                tracing::warn!(workspace = %name, epoch = ws.epoch, "this node no longer writes the workspace");
                ws.retire();
                writers.forget(&name, ws.epoch);
            }
        }
        match pg.take_expired().await {
            Ok(taken) => {
                for (name, seed, epoch) in taken {
                    take(&writers, name, seed, epoch).await;
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
pub async fn take(writers: &Writers, name: String, seed: u64, epoch: i64) {
    match writers.start(&name, seed, epoch).await {
        Ok(_) => tracing::info!(workspace = %name, epoch, "this node writes the workspace now"),
        Err(e) => {
            tracing::error!(workspace = %name, error = %e, "the workspace does not open here; giving its lease back");
            if let Some(pg) = writers.cluster() {
                let _ = pg.release(&name, epoch).await;
            }
        }
    }
}

/// Gives back the leases of this node's workspaces (a clean stop): other nodes take them at
/// their next look instead of after the lease runs out.
pub async fn release_all(writers: &Writers) {
    let Some(pg) = writers.cluster() else { return };
    for (name, epoch) in writers.all().into_iter().map(|(n, w)| (n, w.epoch)) {
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
pub async fn place(writers: &Writers, workspace: &str) -> Placement {
    let deadline = writers.cluster().map(|pg| tokio::time::Instant::now() + patience(pg.lease));
    loop {
        if let Some(ws) = writers.get(workspace) {
            return Placement::Local(ws);
        }
        let (Some(pg), Some(deadline)) = (writers.cluster(), deadline) else { return Placement::Missing };
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
