//! The HTTP side: `POST /w/{workspace}/a2a/{agent}` and the Agent Card.
use super::code;
use super::fixture::Rest as FixtureRest;
use super::follow::Follow;
use super::request::{FollowSlot, Request, GENERATIONS, HOST_CALLER, VERSION};
use crate::serve::app::{App, Authed, Refusal, Served};
use crate::serve::keys::Principal;
use crate::serve::writer::actor::Op;
use crate::serve::writer::cluster::Placement;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Map, Value};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How long a client may keep a card without asking again (`Cache-Control: max-age`).
const CARD_MAX_AGE_SECONDS: u64 = 300;

fn answer(id: Value, body: Value) -> Response {
    let mut out = json!({"jsonrpc": "2.0", "id": id});
    match body {
        Value::Object(mut m) if m.contains_key("error") => out["error"] = m.remove("error").unwrap_or_default(),
        Value::Object(mut m) => out["result"] = m.remove("result").unwrap_or_default(),
        other => out["result"] = other,
    }
    (StatusCode::OK, [("content-type", "application/json")], out.to_string()).into_response()
}

fn error(id: Value, code: i64, message: &str) -> Response {
    answer(id, json!({"error": code::error_object(code, message)}))
}

/// The caller's bot for a key (teammate keys are not A2A clients).
fn caller_of(p: &Principal) -> Option<String> {
    match p {
        Principal::Admin | Principal::Host => Some(HOST_CALLER.to_string()),
        Principal::Bot(b) => Some(b.clone()),
        Principal::Teammate(_) => None,
    }
}

pub(super) fn base(headers: &HeaderMap, workspace: &str, agent: &str) -> String {
    let host = headers.get("host").and_then(|h| h.to_str().ok()).unwrap_or("127.0.0.1");
    format!("http://{host}/w/{workspace}/a2a/{agent}")
}

/// Why a call got no answer from the engine.
pub(super) enum Refused {
    /// An A2A error: its code and message, which each binding renders its own way.
    A2a(i64, String),
    /// An answer that is the same on every binding: a redirect to the node that writes the
    /// workspace, or no such workspace.
    Http(Box<Response>),
}

/// What a call answered.
pub(super) enum Reply {
    /// The writer's answer: `{"result": …}` or `{"error": {…}}` (with `seq`).
    Once(Value),
    /// A task's stream: each event its log record's sequence number and a `StreamResponse`.
    Stream(tokio::sync::mpsc::Receiver<(u64, Value)>),
}

/// One A2A operation, as every binding hands it over: the method by its A2A name (streaming
/// ones included), its parameters under their JSON names.
pub(super) struct Call {
    pub workspace: String,
    pub agent: String,
    pub caller: String,
    pub method: String,
    pub params: Map<String, Value>,
    /// A resumed subscription: the last log sequence number the client has (`Last-Event-ID`).
    pub resume: Option<u64>,
    /// The agent's URL as the client reached it (the card's interfaces name it).
    pub base: String,
    /// The request's path and query: where a redirect to the writing node points.
    pub path: String,
    /// The request names the generations extension in `A2A-Extensions`.
    pub generations: bool,
}

async fn run(app: &App, workspace: &str, path: &str, request: Request) -> Result<Value, Refused> {
    // Several nodes: A2A is served by the node that writes the workspace; a client sent
    // elsewhere is redirected there (307 keeps the method and the body).
    let ws = match crate::serve::writer::cluster::place(&app.writers, workspace).await {
        Placement::Local(ws) => ws,
        Placement::Remote(url) => {
            let to = format!("{url}{path}");
            return Err(Refused::Http(Box::new((StatusCode::TEMPORARY_REDIRECT, [("location", to)]).into_response())));
        }
        Placement::Missing => {
            return Err(Refused::Http(Box::new(crate::serve::app::refuse(Refusal::NotFound, workspace))))
        }
    };
    ws.run(Op::Run(super::ops::job(request))).await.map_err(|e| Refused::A2a(-32603, e.message))
}

/// The A2A-Version a request names (A2A 1.0 clients say so; a request without the header is
/// 0.3, which is not served).
pub(super) fn version(headers: &HeaderMap) -> Result<(), (i64, String)> {
    let version = headers.get("a2a-version").and_then(|v| v.to_str().ok()).unwrap_or("0.3").trim();
    if version != VERSION && !version.starts_with("1.0.") {
        return Err((
            code::VERSION_NOT_SUPPORTED,
            format!("A2A-Version {version} is not served; this agent speaks {VERSION}"),
        ));
    }
    Ok(())
}

/// Whether a request's body is JSON by its `Content-Type` (absent: taken as JSON): both
/// bindings carry JSON only (spec §9, §11.1). Another type is refused at the HTTP level, 415 —
/// not with ContentTypeNotSupportedError, which the spec keeps for a message part's media type.
pub(super) fn json_body(headers: &HeaderMap) -> bool {
    let Some(v) = headers.get("content-type") else { return true };
    let mime = v.to_str().unwrap_or_default().split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
    mime == "application/json" || (mime.starts_with("application/") && mime.ends_with("+json"))
}

/// The caller of a request to `workspace`: its key's bot, or a refusal (no key, or a
/// teammate key: teammates are not A2A clients).
pub(super) async fn caller(app: &App, headers: &HeaderMap, workspace: &str) -> Result<String, Refused> {
    let principal = app
        .principal(headers, workspace)
        .await
        .map_err(|r| Refused::Http(Box::new(crate::serve::app::refuse(r, workspace))))?;
    caller_of(&principal).ok_or_else(|| Refused::A2a(code::TASK_NOT_FOUND, "teammate keys are not A2A clients".into()))
}

/// How long a blocking `SendMessage` is held at most: G9's default watch window (A2A's tasks
/// are watched with it) and a margin for the server's timer to stamp `watch_expired`.
const BLOCKING_CAP: Duration = Duration::from_secs(300 + 30);

/// How long a `GetTask` long poll (`currentGeneration`, A2A v1.1 draft §3.2.7) is held at most
/// before it answers the task as it stands: under the idle timeouts of common proxies.
const LONG_POLL: Duration = Duration::from_secs(30);

/// Whether a request asks for task generations (`A2A-Extensions` names [`GENERATIONS`]).
pub(super) fn generations_asked(headers: &HeaderMap) -> bool {
    headers
        .get_all("a2a-extensions")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|uri| uri.trim() == GENERATIONS)
}

/// An answer to a request that asked for generations says it used the extension.
pub(super) fn with_extension(mut response: Response, asked: bool) -> Response {
    if asked {
        response.headers_mut().insert("a2a-extensions", axum::http::HeaderValue::from_static(GENERATIONS));
    }
    response
}

/// Drops the generations from an answer or a stream event (a task, `{task}`, `{tasks}`, an
/// update): a client that did not ask for them sees A2A 1.0 as it is.
fn hide_generations(v: &mut Value) {
    let Some(m) = v.as_object_mut() else { return };
    m.remove("generation");
    for key in ["task", "statusUpdate", "artifactUpdate"] {
        if let Some(inner) = m.get_mut(key).and_then(Value::as_object_mut) {
            inner.remove("generation");
        }
    }
    if let Some(tasks) = m.get_mut("tasks").and_then(Value::as_array_mut) {
        for t in tasks.iter_mut().filter_map(Value::as_object_mut) {
            t.remove("generation");
        }
    }
}

/// Runs one A2A operation on the workspace's writer. A streaming one (`SendStreamingMessage`,
/// `SubscribeToTask`) answers its task first, then one event per log record that moves it; a
/// blocking `SendMessage` (spec §3.2.2: `returnImmediately` false or absent) is answered when
/// its task is terminal or interrupted, or its watch window has ended; a `GetTask` with
/// `currentGeneration` (A2A v1.1 draft) when the task's generation passes it — each held here,
/// on the async side, while the writer goes on with other commands.
pub(super) async fn call(app: &Arc<App>, c: Call) -> Result<Reply, Refused> {
    let generations = c.generations;
    let mut reply = call_inner(app, c).await?;
    if !generations {
        match &mut reply {
            Reply::Once(v) => {
                if let Some(result) = v.get_mut("result") {
                    hide_generations(result);
                }
            }
            Reply::Stream(rx) => {
                let (tx, out) = tokio::sync::mpsc::channel::<(u64, Value)>(64);
                let mut rx = std::mem::replace(rx, out);
                tokio::spawn(async move {
                    while let Some((n, mut event)) = rx.recv().await {
                        hide_generations(&mut event);
                        if tx.send((n, event)).await.is_err() {
                            return;
                        }
                    }
                });
            }
        }
    }
    Ok(reply)
}

async fn call_inner(app: &Arc<App>, c: Call) -> Result<Reply, Refused> {
    let Call { workspace, agent, caller, method, mut params, resume, base, path, generations: _ } = c;
    let fixture = app.fixtures.contains(&agent);
    let new_context = format!("ctx-{:x}", crate::serve::clock::random_seed());
    if method == "GetExtendedAgentCard" {
        params.insert("base".into(), Value::String(base));
    }
    let subscribe = method == "SubscribeToTask";
    let streaming = subscribe || method == "SendStreamingMessage";
    let configuration = params.get("configuration");
    let blocking = method == "SendMessage"
        && configuration.and_then(|c| c.get("returnImmediately")).and_then(Value::as_bool) != Some(true);
    let history = configuration.and_then(|c| c.get("historyLength")).or(params.get("historyLength")).cloned();
    let poll = match params.remove("currentGeneration").filter(|_| method == "GetTask") {
        None | Some(Value::Null) => None,
        Some(v) => match super::request::int64(&v) {
            Some(n) => Some(n),
            None => {
                return Err(Refused::A2a(code::INVALID_PARAMS, format!("currentGeneration: {v} is not a whole number")))
            }
        },
    };
    let method = match method.as_str() {
        "SendStreamingMessage" => "SendMessage".to_string(),
        "SubscribeToTask" => "GetTask".to_string(),
        _ => method,
    };
    // Subscribe to the workspace's commits before the command runs: nothing is missed.
    let held = streaming || blocking || poll.is_some();
    let live = held.then(|| app.workspace(&workspace).map(|ws| ws.events.subscribe())).flatten();
    let slot: FollowSlot = Arc::default();
    let follow_slot = held.then(|| slot.clone());
    let request = Request {
        agent: agent.clone(),
        caller: caller.clone(),
        method,
        params,
        fixture,
        new_context,
        follow: follow_slot,
    };
    let first = run(app, &workspace, &path, request).await?;
    run_fixture_rest(app, &workspace, &first);
    let (Some(live), Some(task)) = (live, first.pointer("/result/task").or(first.get("result")).cloned()) else {
        return Ok(Reply::Once(first));
    };
    if first.get("error").is_some() {
        return Ok(Reply::Once(first));
    }
    let generation = task["generation"].as_str().and_then(|g| g.parse::<u64>().ok()).unwrap_or(0);
    if poll.is_some_and(|c| generation as i64 > c) {
        // spec: a generation already past the one given is answered at once
        return Ok(Reply::Once(first));
    }
    // The task's fold as the command left it (the writer's index); a task in a terminal state
    // has none kept, and its state is drawn from the answer.
    let kept = slot.lock().unwrap_or_else(|e| e.into_inner()).take();
    let made = kept.as_ref().map(|k| k.made);
    let Some((follow, generation)) = kept
        .and_then(|k| k.follow.map(|f| (f, k.generation)))
        .or_else(|| Follow::from_task(&task).map(|f| (f, generation)))
    else {
        return Ok(Reply::Once(first));
    };
    if (blocking && (follow.settled() || follow.window_over())) || (poll.is_some() && follow.terminal()) {
        // Settled in the command that made it (a fixture's turn), or a task in a terminal
        // state, whose generation will not move: nothing to wait for.
        return Ok(Reply::Once(first));
    }
    let seq = first["seq"].as_u64().unwrap_or(0);
    let mut tracking = Tracking {
        app: app.clone(),
        workspace,
        path,
        agent,
        caller,
        id: task["id"].clone(),
        live,
        follow,
        generation,
        after: seq,
    };
    if !streaming {
        // Blocking: wait for the task to settle (or the window to end); a long poll: for its
        // generation to pass the one given. Then answer it as it stands, read again so the
        // answer is whole (history, artifacts).
        let (cap, wanted) = match poll {
            Some(c) => (LONG_POLL, c),
            None => (BLOCKING_CAP, i64::MAX),
        };
        let waited = async {
            loop {
                let done = match poll {
                    Some(_) => tracking.generation as i64 > wanted || tracking.follow.terminal(),
                    None => tracking.follow.settled() || tracking.follow.window_over(),
                };
                if done || tracking.next().await.is_none() {
                    break;
                }
            }
        };
        if tokio::time::timeout(cap, waited).await.is_err() && poll.is_none() {
            tracing::warn!(task = %tracking.id, "a blocking SendMessage was answered at the cap, its task still working");
        }
        if tracking.after == seq {
            return Ok(Reply::Once(first));
        }
        let mut params = Map::new();
        params.insert("id".into(), tracking.id.clone());
        if let Some(n) = history {
            params.insert("historyLength".into(), n);
        }
        let now = tracking.get(params).await?;
        return Ok(Reply::Once(match now {
            Value::Object(mut m) if m.contains_key("result") && poll.is_none() => {
                let task = m.remove("result").unwrap_or_default();
                json!({"result": {"task": task}, "seq": m.get("seq").cloned().unwrap_or_default()})
            }
            other => other,
        }));
    }
    if subscribe && resume.is_none() && tracking.follow.terminal() {
        // spec §3.1.6: nothing more will happen to a task in a terminal state (a resumed
        // subscription is still handed the task, so a client that missed its end learns it)
        let message = format!(
            "task {} is {}: a task in a terminal state cannot be subscribed to",
            task["id"], task["status"]["state"]
        );
        return Err(Refused::A2a(code::UNSUPPORTED_OPERATION, message));
    }
    // A message's stream ends when the task settles; a subscription's only at a terminal state
    // (spec §3.1.6), so an answered question's completion reaches it too.
    let done = move |f: &Follow| if subscribe { f.terminal() } else { f.settled() };
    let (tx, rx) = tokio::sync::mpsc::channel::<(u64, Value)>(64);
    // A resumed subscription gets exactly what it missed: the task's records after the client's
    // last one, replayed from the log (its fold from the record that made the task). When that
    // cannot be done (the client's id is from before the task, or the log cannot be read), it
    // gets the task as it stands first; a client counting generations sees the gap.
    let mut missed = None;
    if let (Some(last), Some(made)) = (resume.filter(|n| *n < seq), made) {
        if last >= made {
            missed = replay_since(&tracking, &task, made, last, seq).await;
        }
    }
    match (missed, resume) {
        (Some(events), _) => {
            for event in events {
                let _ = tx.send(event).await;
            }
        }
        // Nothing new since the client's last id: only what follows.
        (None, Some(last)) if last >= seq => {}
        (None, _) => {
            let _ = tx.try_send((seq, json!({"task": task})));
        }
    }
    tokio::spawn(async move {
        while !done(&tracking.follow) {
            let Some(events) = tracking.next().await else { return };
            for event in events {
                if tx.send(event).await.is_err() {
                    return;
                }
            }
        }
    });
    Ok(Reply::Stream(rx))
}

/// The events of task `task` after record `last` up to record `to`, replayed from the log: a
/// fold from before the record that made it (`made`). `None` when the log cannot be read, or
/// the replay does not end where the writer's index stands (then the caller sends the task).
async fn replay_since(tracking: &Tracking, task: &Value, made: u64, last: u64, to: u64) -> Option<Vec<(u64, Value)>> {
    let id = task["id"].as_str()?;
    let mut replay = Tracking {
        app: tracking.app.clone(),
        workspace: tracking.workspace.clone(),
        path: tracking.path.clone(),
        agent: tracking.agent.clone(),
        caller: tracking.caller.clone(),
        id: tracking.id.clone(),
        live: tracking.live.resubscribe(),
        follow: Follow::blank(id, task["contextId"].as_str().unwrap_or_default()),
        generation: 0,
        after: made - 1,
    };
    match replay.fold_stored(to, last, made).await {
        Ok(events) if replay.after == to && replay.generation == tracking.generation => Some(events),
        Ok(_) => {
            tracing::warn!(task = %id, "a resumed subscription's replay did not meet the task's generation: the task is sent");
            None
        }
        Err(e) => {
            tracing::warn!(task = %id, error = %e, "a resumed subscription cannot be replayed: the task is sent");
            None
        }
    }
}

/// One task followed through the workspace's committed records.
struct Tracking {
    app: Arc<App>,
    workspace: String,
    path: String,
    agent: String,
    caller: String,
    /// The task's id.
    id: Value,
    live: tokio::sync::broadcast::Receiver<crate::serve::writer::actor::Line>,
    follow: Follow,
    /// The task's generation as of the last record folded (A2A v1.1 draft: one more per event).
    generation: u64,
    /// The last record folded.
    after: u64,
}

impl Tracking {
    /// The events of the next committed record that moves the task (each under its sequence
    /// number, each with the generation it brings the task to), or — when records were
    /// missed — the task as it stands now; `None` when the workspace's stream has ended.
    async fn next(&mut self) -> Option<Vec<(u64, Value)>> {
        loop {
            let (n, line) = match self.live.recv().await {
                Ok(line) => line,
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                    // This stream fell behind the workspace's: the records it missed are read
                    // from the log and folded in order, so none of their events is lost.
                    let past = self.after;
                    match self.fold_stored(u64::MAX, past, 0).await {
                        Ok(events) if !events.is_empty() => return Some(events),
                        Ok(_) => continue,
                        Err(e) => {
                            tracing::warn!(task = %self.id, error = %e, "a stream fell behind and the log cannot be read: it ends");
                            return None;
                        }
                    }
                }
                Err(_) => return None,
            };
            if n <= self.after || !self.follow.may_touch(&line) {
                continue;
            }
            let Ok(record) = serde_json::from_str::<Value>(&line) else { continue };
            self.after = n;
            let events = self.fold(n, &record);
            if !events.is_empty() {
                return Some(events);
            }
        }
    }

    /// Folds record `n`: its events, each with the generation it brings the task to.
    fn fold(&mut self, n: u64, record: &Value) -> Vec<(u64, Value)> {
        let events = self.follow.apply(record);
        events
            .into_iter()
            .map(|mut e| {
                self.generation += 1;
                if let Some(update) = e.as_object_mut().and_then(|m| m.values_mut().next()) {
                    update["generation"] = Value::String(self.generation.to_string());
                }
                (n, e)
            })
            .collect()
    }

    /// Folds the stored records after the last one folded, up to record `to`: the events of
    /// those after `past`. Record `made` is the one that makes the task (generation 1, its own
    /// events being the task itself).
    async fn fold_stored(&mut self, to: u64, past: u64, made: u64) -> Result<Vec<(u64, Value)>, String> {
        let mut out = Vec::new();
        while self.after < to {
            let rows = self
                .app
                .store
                .rows_after(crate::serve::storage::sqlite::Stream::Log, &self.workspace, self.after, 1000)
                .await?;
            if rows.is_empty() {
                break;
            }
            for (n, line) in rows.into_iter().take_while(|(n, _)| *n <= to) {
                self.after = n;
                if !self.follow.may_touch(&line) {
                    continue;
                }
                let Ok(record) = serde_json::from_str::<Value>(&line) else { continue };
                if n == made {
                    self.follow.apply(&record);
                    self.generation = 1;
                    continue;
                }
                out.extend(self.fold(n, &record).into_iter().filter(|(n, _)| *n > past));
            }
        }
        Ok(out)
    }

    /// `GetTask` with these params, as the writer answers it.
    async fn get(&self, params: Map<String, Value>) -> Result<Value, Refused> {
        let get = Request {
            agent: self.agent.clone(),
            caller: self.caller.clone(),
            method: "GetTask".into(),
            params,
            fixture: false,
            new_context: String::new(),
            follow: None,
        };
        run(&self.app, &self.workspace, &self.path, get).await
    }
}

/// A task's stream as Server-Sent Events: each event's id is its log record's sequence
/// number, its data what `frame` makes of the `StreamResponse`.
pub(super) fn sse(
    rx: tokio::sync::mpsc::Receiver<(u64, Value)>,
    frame: impl Fn(Value) -> String + Send + 'static,
) -> Response {
    let stream = futures_util::stream::unfold((rx, frame), |(mut rx, frame)| async move {
        let (seq, v) = rx.recv().await?;
        let event = Event::default().id(seq.to_string()).data(frame(v));
        Some((Ok::<_, std::convert::Infallible>(event), (rx, frame)))
    });
    Sse::new(stream).keep_alive(KeepAlive::new().interval(std::time::Duration::from_secs(15))).into_response()
}

/// `GET /.well-known/agent-card.json`: the card of the agent `--a2a-default WS/AGENT`
/// names (404 without it: the root cannot know which workspace is meant).
pub async fn root_card(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    match app.a2a_default.clone() {
        Some(pair) => card(State(app), Path(pair), headers).await,
        None => {
            (StatusCode::NOT_FOUND, "no default A2A agent (baton serve --a2a-default WORKSPACE/AGENT)").into_response()
        }
    }
}

/// `GET /w/{workspace}/a2a/{agent}/.well-known/agent-card.json` (a key of the workspace).
pub async fn card(
    State(app): State<Arc<App>>,
    Path((workspace, agent)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    // Also answers the root's card (`--a2a-default`), which has no workspace in its path: so
    // the key is read here, not by the `Authed` extractor.
    let principal = match app.principal(&headers, &workspace).await {
        Ok(p) => p,
        Err(r) => return crate::serve::app::refuse(r, &workspace),
    };
    let Some(caller) = caller_of(&principal) else {
        return crate::serve::app::refuse(Refusal::NotFound, &workspace);
    };
    let params = json!({"base": base(&headers, &workspace, &agent)}).as_object().cloned().unwrap_or_default();
    let path = format!("/w/{workspace}/a2a/{agent}/.well-known/agent-card.json");
    let request = Request {
        agent,
        caller,
        method: "card".into(),
        params,
        fixture: false,
        new_context: String::new(),
        follow: None,
    };
    match run(&app, &workspace, &path, request).await {
        Ok(v) if v.get("result").is_some() => cached(&app, path, v["result"].to_string(), &headers),
        Ok(_) => crate::serve::app::refuse(Refusal::NotFound, &workspace),
        Err(Refused::Http(r)) => *r,
        Err(Refused::A2a(_, message)) => (StatusCode::INTERNAL_SERVER_ERROR, message).into_response(),
    }
}

/// The card `body` served at `path` with what lets clients cache it (A2A 1.0: `Cache-Control`
/// with `max-age`, `ETag`, `Last-Modified`), or `304 Not Modified` when the client's copy is
/// current (`If-None-Match`; else `If-Modified-Since`, RFC 9110 §13.2.2). The ETag is a hash
/// of the body; `Last-Modified` is when this node first served the body in this form (the
/// card is derived, not stored, so the time it changed is not kept anywhere: after a restart
/// it is the first serve, later than the change, which only makes clients fetch once more).
fn cached(app: &App, path: String, body: String, headers: &HeaderMap) -> Response {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(body.as_bytes());
    let etag = format!("\"{}\"", crate::serve::keys::hex(&digest[..16]));
    let since = {
        let mut cards = app.cards.lock().unwrap_or_else(|e| e.into_inner());
        let served = cards.entry(path).or_insert_with(|| Served { etag: String::new(), since: UNIX_EPOCH });
        if served.etag != etag {
            // whole seconds, as Last-Modified and If-Modified-Since carry them
            let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default().as_secs();
            *served = Served { etag: etag.clone(), since: UNIX_EPOCH + Duration::from_secs(now) };
        }
        served.since
    };
    let current = match headers.get("if-none-match").and_then(|v| v.to_str().ok()) {
        // weak comparison: W/"x" matches "x"
        Some(tags) => tags.split(',').map(str::trim).any(|t| t == "*" || t.trim_start_matches("W/") == etag),
        None => headers
            .get("if-modified-since")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| httpdate::parse_http_date(v).ok())
            .is_some_and(|copy| since <= copy),
    };
    let cache = [
        ("cache-control", format!("private, max-age={CARD_MAX_AGE_SECONDS}")),
        ("etag", etag),
        ("last-modified", httpdate::fmt_http_date(since)),
    ];
    if current {
        (StatusCode::NOT_MODIFIED, cache).into_response()
    } else {
        (StatusCode::OK, [("content-type", "application/json".to_string())], cache, body).into_response()
    }
}

/// `POST /w/{workspace}/a2a/{agent}`: one JSON-RPC request.
pub async fn rpc(
    State(app): State<Arc<App>>,
    who: Authed,
    Path((_, agent)): Path<(String, String)>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let Authed { workspace, principal, .. } = who;
    if !json_body(&headers) {
        let message = "Content-Type: a JSON-RPC request is application/json";
        return (StatusCode::UNSUPPORTED_MEDIA_TYPE, [("accept", "application/json")], message).into_response();
    }
    let Ok(bytes) = crate::serve::protocol::jsonrpc::read_body(body).await else {
        return error(Value::Null, -32600, "the request body is too large");
    };
    let Ok(Value::Object(mut req)) = serde_json::from_slice::<Value>(&bytes) else {
        return error(Value::Null, -32700, "the body is not a JSON-RPC request object");
    };
    let id = req.remove("id").unwrap_or(Value::Null);
    if let Err((code, message)) = version(&headers) {
        return error(id, code, &message);
    }
    let Some(Value::String(method)) = req.remove("method") else {
        return error(id, -32600, "\"method\" must be a string");
    };
    let params = match req.remove("params") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m,
        Some(_) => return error(id, code::INVALID_PARAMS, "params must be an object"),
    };
    let params = match super::protojson::json_names(params) {
        Ok(p) => p,
        Err(field) => {
            return error(id, code::INVALID_PARAMS, &format!("{field}: this field is also sent under its JSON name"))
        }
    };
    let Some(caller) = caller_of(&principal) else {
        return error(id, code::TASK_NOT_FOUND, "teammate keys are not A2A clients");
    };
    let resume = (method == "SubscribeToTask")
        .then(|| headers.get("last-event-id").and_then(|v| v.to_str().ok()).and_then(|v| v.trim().parse::<u64>().ok()))
        .flatten();
    let base = base(&headers, &workspace, &agent);
    let path = format!("/w/{workspace}/a2a/{agent}");
    let generations = generations_asked(&headers);
    let response =
        match call(&app, Call { workspace, agent, caller, method, params, resume, base, path, generations }).await {
            Ok(Reply::Once(v)) => answer(id, v),
            Ok(Reply::Stream(rx)) => {
                sse(rx, move |result| json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string())
            }
            Err(Refused::A2a(code, message)) => error(id, code, &message),
            Err(Refused::Http(r)) => *r,
        };
    with_extension(response, generations)
}

/// Runs the later steps of a fixture agent's `stream:` turn, each its own command, in order.
fn run_fixture_rest(app: &Arc<App>, workspace: &str, answer: &Value) {
    let Some(rest) = answer.get("fixture_rest").and_then(|r| serde_json::from_value::<FixtureRest>(r.clone()).ok())
    else {
        return;
    };
    let Some(ws) = app.workspace(workspace) else { return };
    tokio::spawn(async move {
        for at in 1..=rest.parts.len() {
            let step = rest.clone();
            let job: crate::serve::writer::actor::Job =
                Box::new(move |engine, now| super::fixture::step(engine, now, &step, at));
            if let Err(e) = ws.run(Op::Run(job)).await {
                tracing::warn!(handoff_id = %rest.handoff_id, error = %e.message, "the fixture agent's step was refused");
                return;
            }
        }
    });
}
