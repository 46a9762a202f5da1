//! What the handlers share: the [`App`] (the database, the writers this node runs, keys and
//! limits), who a request's key is, and the refusals made before a request reaches a workspace.
use super::clock::now_ms;
use super::keys;
use super::storage;
use super::writer::actor;
use super::writer::registry::Writers;
use axum::extract::{FromRequestParts, Path};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};
use tokio::sync::watch;

/// What the handlers share.
pub struct App {
    /// The database (SQLite, or Postgres shared by several nodes).
    pub(crate) store: Arc<dyn storage::log::Store>,
    /// The cluster this node is part of (Postgres only).
    pub(crate) cluster: Option<Arc<storage::postgres::Pg>>,
    /// The writers of the workspaces this node writes (on SQLite: every workspace).
    pub(crate) writers: Arc<Writers>,
    pub(crate) admin_key: String,
    /// Wake-up hints for the event streams: on Postgres, the workspaces with new commits (from
    /// `NOTIFY`, any node's); everywhere, `key:HASH` when a key was revoked or given an expiry
    /// (on Postgres from any node), so the streams opened with it look at it again.
    pub(crate) hint: tokio::sync::broadcast::Sender<Arc<str>>,
    pub(crate) shutdown: watch::Receiver<bool>,
    /// Browser origins allowed to call (`--cors-origin`).
    pub(crate) origins: Vec<String>,
    /// Agents that answer A2A tasks by script (`--fixture-agent`).
    pub(crate) fixtures: Vec<String>,
    /// The agent whose card the root serves (`--a2a-default WORKSPACE/AGENT`).
    pub(crate) a2a_default: Option<(String, String)>,
    /// Each Agent Card this node served, by path: its ETag and since when (`Last-Modified`).
    pub(crate) cards: Mutex<HashMap<String, Served>>,
    /// Requests per key (by the key's hash).
    pub(crate) limiter: governor::DefaultKeyedRateLimiter<String>,
    pub(crate) requests: AtomicU64,
    pub(crate) commands: AtomicU64,
    /// Commands this node forwarded without a key of their own (each gets one, numbered).
    pub(crate) forwarded: AtomicU64,
}

/// A document as last served at one path (an Agent Card): its entity tag and the time it took
/// that form — what HTTP caching answers `If-None-Match` and `Last-Modified` from.
pub struct Served {
    pub(crate) etag: String,
    pub(crate) since: std::time::SystemTime,
}

/// Why a request is refused before it reaches a workspace.
pub enum Refusal {
    /// Over the key's rate; retry after this many milliseconds.
    RateLimited(u64),
    /// No key, or a key the server does not know.
    Unauthorized,
    /// A key that was revoked or has expired.
    Ended(keys::Ended),
    /// No such workspace — or a key of another workspace (the two look the same).
    NotFound,
}

impl Refusal {
    pub(crate) fn status(&self) -> StatusCode {
        match self {
            Refusal::Unauthorized | Refusal::Ended(_) => StatusCode::UNAUTHORIZED,
            Refusal::NotFound => StatusCode::NOT_FOUND,
            Refusal::RateLimited(_) => StatusCode::TOO_MANY_REQUESTS,
        }
    }
    pub(crate) fn message(&self, workspace: &str) -> String {
        match self {
            Refusal::Unauthorized => "a key is required: Authorization: Bearer KEY".into(),
            Refusal::Ended(keys::Ended::Revoked) => "this key was revoked".into(),
            Refusal::Ended(keys::Ended::Expired) => "this key has expired".into(),
            Refusal::NotFound => format!("no workspace '{workspace}' for this key"),
            Refusal::RateLimited(ms) => format!("over this key's request rate; retry after {ms} ms"),
        }
    }
}

impl App {
    /// The principal of the request's key for `workspace`.
    pub(crate) async fn principal(&self, headers: &HeaderMap, workspace: &str) -> Result<keys::Principal, Refusal> {
        self.key(headers, workspace).await.map(|(p, _)| p)
    }

    /// The principal of the request's key for `workspace`, and the key as stored (`None` for
    /// the admin key).
    pub(crate) async fn key(
        &self,
        headers: &HeaderMap,
        workspace: &str,
    ) -> Result<(keys::Principal, Option<keys::StoredKey>), Refusal> {
        let given = bearer(headers).ok_or(Refusal::Unauthorized)?;
        let id = keys::hash(given);
        let (principal, stored) = if keys::is_admin(given, &self.admin_key) {
            (keys::Principal::Admin, None)
        } else {
            match self.store.key(&id).await.ok().flatten() {
                None => return Err(Refusal::Unauthorized),
                Some(k) if k.workspace != workspace => return Err(Refusal::NotFound),
                Some(k) => {
                    if let Some(ended) = k.ended(now_ms()) {
                        return Err(Refusal::Ended(ended));
                    }
                    (keys::Principal::parse(&k.principal).ok_or(Refusal::Unauthorized)?, Some(k))
                }
            }
        };
        // Only known keys are counted, so the limiter holds one entry per key, not per guess.
        if let Err(not_until) = self.limiter.check_key(&id) {
            use governor::clock::Clock;
            let wait = not_until.wait_time_from(governor::clock::DefaultClock::default().now());
            return Err(Refusal::RateLimited(wait.as_millis() as u64 + 1));
        }
        Ok((principal, stored))
    }

    /// The cluster this node is part of (Postgres only).
    pub(crate) fn cluster(&self) -> Option<&Arc<storage::postgres::Pg>> {
        self.cluster.as_ref()
    }

    /// The workspace if this node writes it.
    pub(crate) fn workspace(&self, name: &str) -> Option<actor::Workspace> {
        self.writers.get(name)
    }

    /// Whether the workspace exists (written here, or on Postgres by any node).
    pub(crate) async fn exists(&self, name: &str) -> bool {
        self.workspace(name).is_some() || self.store.exists(name).await.unwrap_or(false)
    }
}

/// The key a request carries (`Authorization: Bearer KEY`).
pub fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim)
        .filter(|k| !k.is_empty())
}

/// A workspace name: 1–64 of `A–Z a–z 0–9 _ -`.
pub(crate) fn valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Refusals as plain responses (event streams).
pub(crate) fn refuse(r: Refusal, workspace: &str) -> Response {
    (r.status(), r.message(workspace)).into_response()
}

/// How a protocol answers a request refused before it reaches a workspace.
pub(crate) trait RefusalForm {
    /// Whether the request counts in `baton_requests_total` (the RPC and event endpoints).
    const COUNTED: bool = false;
    /// The refusal as this protocol says it.
    fn refuse(r: Refusal, workspace: &str) -> Response;
}

/// Refused as plain HTTP: the status and a line of text.
pub(crate) struct Plain;

impl RefusalForm for Plain {
    fn refuse(r: Refusal, workspace: &str) -> Response {
        refuse(r, workspace)
    }
}

/// Who a request to `/w/{workspace}/…` is: its key's principal for that workspace, known
/// before the handler runs — or the request is refused, in the protocol's form `F`.
pub(crate) struct Authed<F: RefusalForm = Plain> {
    /// The workspace the path names.
    pub(crate) workspace: String,
    /// Who the key is.
    pub(crate) principal: keys::Principal,
    form: PhantomData<F>,
}

impl<F: RefusalForm> FromRequestParts<Arc<App>> for Authed<F> {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, app: &Arc<App>) -> Result<Self, Response> {
        if F::COUNTED {
            app.requests.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        /// The one path parameter read here (a route may have more: A2A's `agent`).
        #[derive(serde::Deserialize)]
        struct Named {
            workspace: String,
        }
        let Path(Named { workspace }) =
            Path::<Named>::from_request_parts(parts, app).await.map_err(IntoResponse::into_response)?;
        match app.principal(&parts.headers, &workspace).await {
            Ok(principal) => Ok(Authed { workspace, principal, form: PhantomData }),
            Err(r) => Err(F::refuse(r, &workspace)),
        }
    }
}
