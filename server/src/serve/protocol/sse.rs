//! `GET /w/{workspace}/events`: the workspace's log as Server-Sent Events, one event per
//! record, its `id` the record's sequence number (admin and host keys). `GET
//! /w/{workspace}/effects`: the effects, numbered per workspace, each key seeing those for its
//! principal (`Principal::sees_effect`) — a host's instructions: start this child, wake that
//! thread, post this callback. Both streams resume the same way. A client that reconnects with
//! `Last-Event-ID: N` (or `?last_event_id=N`) gets every record after N exactly once: the
//! stream subscribes to new commits first, then reads the stored records after N from the
//! database, then forwards commits it has not sent yet (sequence numbers only grow, so "not
//! sent" is "greater than the last sent"). A subscriber that falls behind the broadcast reads
//! the gap from the database again. Keepalive comments every 15 s; the stream ends when the
//! server shuts down.
use crate::serve::app::{refuse, App, Refusal};
use crate::serve::storage::sqlite;
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

/// `/events`.
pub async fn log(
    State(app): State<Arc<App>>,
    Path(workspace): Path<String>,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
) -> Response {
    stream(app, workspace, query, headers, sqlite::Stream::Log).await
}

/// `/effects`.
pub async fn effects(
    State(app): State<Arc<App>>,
    Path(workspace): Path<String>,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
) -> Response {
    stream(app, workspace, query, headers, sqlite::Stream::Effects).await
}

async fn stream(
    app: Arc<App>,
    workspace: String,
    query: HashMap<String, String>,
    headers: HeaderMap,
    kind: sqlite::Stream,
) -> Response {
    app.requests.fetch_add(1, Ordering::Relaxed);
    let (principal, key) = match app.key(&headers, &workspace).await {
        Ok((p, k)) if p.is_host() || kind == sqlite::Stream::Effects => (p, k),
        Ok(_) => return refuse(Refusal::NotFound, &workspace),
        Err(r) => return refuse(r, &workspace),
    };
    if !app.exists(&workspace).await {
        return refuse(Refusal::NotFound, &workspace);
    }
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
    // On SQLite this node writes the workspace: commits come on its broadcast. On Postgres
    // any node may: new rows are read from the database when a NOTIFY hint names the
    // workspace, and every second anyway.
    let live = match (app.cluster(), app.workspace(&workspace)) {
        (None, Some(ws)) => Live::Commits(match kind {
            sqlite::Stream::Log => ws.events.subscribe(),
            sqlite::Stream::Effects => ws.effects.subscribe(),
        }),
        (None, None) => return refuse(Refusal::NotFound, &workspace),
        (Some(_), _) => Live::Hints(app.hint.subscribe()),
    };
    let keep = move |body: &str| {
        kind == sqlite::Stream::Log
            || serde_json::from_str::<serde_json::Value>(body).is_ok_and(|e| principal.sees_effect(&e))
    };
    let (tx, rx) = mpsc::channel::<Event>(256);
    let mut shutdown = app.shutdown.clone();
    let hints = app.hint.subscribe();
    tokio::spawn(async move {
        let ended = key_ends(app.clone(), key, hints);
        let forward = follow(Source { app: app.clone(), workspace, kind }, after, live, tx.clone(), keep);
        tokio::select! {
            _ = forward => {},
            _ = ended => {},
            _ = shutdown.wait_for(|stop| *stop) => {},
            _ = tx.closed() => {},
        }
    });
    let stream =
        futures_util::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|e| (Ok::<_, Infallible>(e), rx)) });
    Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))).into_response()
}

/// How often a stream reads its key again without a hint (a key revoked offline, by
/// `baton workspace key revoke`, sends none).
const LOOK: Duration = Duration::from_secs(60);

/// Resolves when the stream's key stops acting: at its expiry, or when it is revoked or given
/// an earlier expiry (a `key:HASH` hint, from this node or, on Postgres, any other). The admin
/// key (`None`) does not end.
async fn key_ends(app: Arc<App>, key: Option<crate::serve::keys::StoredKey>, mut hints: broadcast::Receiver<Arc<str>>) {
    let Some(mut key) = key else { return std::future::pending().await };
    let mine = crate::serve::keys::hint(&key.hash);
    loop {
        let now = crate::serve::clock::now_ms();
        if key.ended(now).is_some() {
            return;
        }
        let until = key.expires_at.map_or(LOOK, |at| Duration::from_millis(at - now).min(LOOK));
        match tokio::time::timeout(until, hints.recv()).await {
            Err(_) => {} // its expiry (or a minute) passed: look again
            Ok(Ok(h)) if *h != *mine => continue,
            Ok(Err(broadcast::error::RecvError::Closed)) => return std::future::pending().await,
            Ok(_) => {} // its hint, or hints were missed: read it again
        }
        match app.store.key(&key.hash).await {
            Ok(Some(k)) => key = k,
            Ok(None) => return,
            Err(_) => {} // the database did not answer: keep what is known, look again later
        }
    }
}

fn event((seq, line): &(u64, impl AsRef<str>)) -> Event {
    Event::default().id(seq.to_string()).data(line.as_ref())
}

/// Where a stream reads what it missed.
struct Source {
    app: Arc<App>,
    workspace: String,
    kind: sqlite::Stream,
}

/// How a stream learns of new rows.
enum Live {
    /// This node's commits of the workspace, as they happen (SQLite).
    Commits(broadcast::Receiver<crate::serve::writer::actor::Line>),
    /// Names of workspaces with new commits on any node (Postgres `NOTIFY`).
    Hints(broadcast::Receiver<Arc<str>>),
}

/// How often a Postgres stream reads the database without a hint (a notification is not
/// replayed to a listener that was reconnecting).
const POLL: Duration = Duration::from_secs(1);

/// Sends every row after `sent` from the database, then live ones, each only if `keep` says
/// so; returns when the client is gone or the workspace stops.
async fn follow(src: Source, mut sent: u64, live: Live, tx: mpsc::Sender<Event>, keep: impl Fn(&str) -> bool) {
    if !catch_up(&src, &mut sent, &tx, &keep).await {
        return;
    }
    match live {
        Live::Commits(mut live) => loop {
            match live.recv().await {
                Ok(line) => {
                    if line.0 > sent {
                        if keep(&line.1) && tx.send(event(&line)).await.is_err() {
                            return;
                        }
                        sent = line.0;
                    }
                }
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    if !catch_up(&src, &mut sent, &tx, &keep).await {
                        return;
                    }
                }
                Err(broadcast::error::RecvError::Closed) => return,
            }
        },
        Live::Hints(mut hints) => loop {
            let woken = tokio::time::timeout(POLL, async {
                loop {
                    match hints.recv().await {
                        Ok(ws) if *ws == *src.workspace => return true,
                        Ok(_) => {}
                        Err(broadcast::error::RecvError::Lagged(_)) => return true,
                        Err(broadcast::error::RecvError::Closed) => return false,
                    }
                }
            })
            .await;
            if woken == Ok(false) || !catch_up(&src, &mut sent, &tx, &keep).await {
                return;
            }
        },
    }
}

/// Sends the stored rows after `sent`; false when the client is gone.
async fn catch_up(src: &Source, sent: &mut u64, tx: &mpsc::Sender<Event>, keep: &impl Fn(&str) -> bool) -> bool {
    loop {
        let Ok(page) = src.app.store.rows_after(src.kind, &src.workspace, *sent, PAGE).await else {
            return false;
        };
        if page.is_empty() {
            return true;
        }
        for line in &page {
            if keep(&line.1) && tx.send(event(line)).await.is_err() {
                return false;
            }
            *sent = line.0;
        }
    }
}
