//! `GET /w/{workspace}/events`: the workspace's log as Server-Sent Events, one event per
//! record, its `id` the record's sequence number. A client that reconnects with
//! `Last-Event-ID: N` (or `?last_event_id=N`) gets every record after N exactly once: the
//! stream subscribes to new commits first, then reads the stored records after N from the
//! database, then forwards commits it has not sent yet (sequence numbers only grow, so "not
//! sent" is "greater than the last sent"). A subscriber that falls behind the broadcast reads
//! the gap from the database again. Keepalive comments every 15 s; the stream ends when the
//! server shuts down.
use super::{db, refuse, App, Refusal};
use axum::extract::{Path, Query, State};
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{broadcast, mpsc};

/// Records read from the database per catch-up query.
const PAGE: usize = 1000;

pub async fn handle(
    State(app): State<Arc<App>>,
    Path(workspace): Path<String>,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
) -> Response {
    app.requests.fetch_add(1, Ordering::Relaxed);
    match app.principal(&headers, &workspace) {
        Ok(p) if p.is_host() => {}
        Ok(_) => return refuse(Refusal::NotFound, &workspace),
        Err(r) => return refuse(r, &workspace),
    }
    let Some(ws) = app.workspace(&workspace) else {
        return refuse(Refusal::NotFound, &workspace);
    };
    let given = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
        .or_else(|| query.get("last_event_id").cloned());
    let after = match given.as_deref().map(str::trim) {
        None | Some("") => 0,
        Some(s) => match s.parse::<u64>() {
            Ok(n) => n,
            Err(_) => {
                return (
                    axum::http::StatusCode::BAD_REQUEST,
                    format!("Last-Event-ID must be a record number, not '{s}'"),
                )
                    .into_response()
            }
        },
    };
    let live = ws.events.subscribe();
    let (tx, rx) = mpsc::channel::<Event>(256);
    let path = app.db_path.clone();
    let sync = app.sync;
    let mut shutdown = app.shutdown.clone();
    tokio::spawn(async move {
        let forward = follow(path, sync, workspace, after, live, tx.clone());
        tokio::select! {
            _ = forward => {},
            _ = shutdown.wait_for(|stop| *stop) => {},
            _ = tx.closed() => {},
        }
    });
    let stream =
        futures_util::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|e| (Ok::<_, Infallible>(e), rx)) });
    Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))).into_response()
}

fn event((seq, line): &(u64, impl AsRef<str>)) -> Event {
    Event::default().id(seq.to_string()).data(line.as_ref())
}

/// Sends every record after `sent` from the database, then live ones; returns when the client
/// is gone or the workspace stops.
async fn follow(
    path: std::path::PathBuf,
    sync: db::SyncMode,
    workspace: String,
    mut sent: u64,
    mut live: broadcast::Receiver<super::actor::Line>,
    tx: mpsc::Sender<Event>,
) {
    let Ok(conn) = tokio::task::spawn_blocking({
        let path = path.clone();
        move || db::open(&path, sync)
    })
    .await
    .unwrap_or_else(|e| Err(rusqlite::Error::InvalidParameterName(e.to_string()))) else {
        return;
    };
    let conn = Arc::new(std::sync::Mutex::new(conn));
    if !catch_up(&conn, &workspace, &mut sent, &tx).await {
        return;
    }
    loop {
        match live.recv().await {
            Ok(line) => {
                if line.0 > sent {
                    if tx.send(event(&line)).await.is_err() {
                        return;
                    }
                    sent = line.0;
                }
            }
            Err(broadcast::error::RecvError::Lagged(_)) => {
                if !catch_up(&conn, &workspace, &mut sent, &tx).await {
                    return;
                }
            }
            Err(broadcast::error::RecvError::Closed) => return,
        }
    }
}

/// Sends the stored records after `sent`; false when the client is gone.
async fn catch_up(
    conn: &Arc<std::sync::Mutex<rusqlite::Connection>>,
    workspace: &str,
    sent: &mut u64,
    tx: &mpsc::Sender<Event>,
) -> bool {
    loop {
        let (c, ws, after) = (conn.clone(), workspace.to_string(), *sent);
        let page = tokio::task::spawn_blocking(move || {
            c.lock().map_err(|_| ()).and_then(|c| db::lines_after(&c, &ws, after, PAGE).map_err(|_| ()))
        })
        .await;
        let Ok(Ok(page)) = page else {
            return false;
        };
        if page.is_empty() {
            return true;
        }
        for line in &page {
            if tx.send(event(line)).await.is_err() {
                return false;
            }
            *sent = line.0;
        }
    }
}
