//! `POST /w/{workspace}/rpc`: JSON-RPC 2.0, one request or a batch. Baton's errors keep their
//! codes (they are JSON-RPC codes already) with `name`, `field` and `rule` in `data`; the
//! protocol's own (`-32700` parse error, `-32600` invalid request, `-32601` unknown method,
//! `-32602` invalid params) name what is wrong. Every request gets an answer; nothing panics.
pub mod forward;
pub mod wire;

use crate::serve::app::{valid_name, App, Authed, Refusal, RefusalForm};
use crate::serve::keys::{self, Principal};
use crate::serve::storage::sqlite;
use crate::serve::writer::actor::{Answer, Idem, Op};
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use baton_core::{CallError, Caller, Command, ErrorCode};
use serde_json::{json, Map, Value};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use wire::{baton_error, error, is_command, is_command_method, refusal, reply, reply_batch, reply_one, Envelope};

/// Every JSON-RPC method of `/w/{workspace}/rpc`: the dispatcher answers each (and
/// MethodNotFound for any other), and `--help` and the README name each — both checked by
/// the router's in-process tests.
pub const METHODS: &[&str] = &[
    "call",
    "host",
    "create_workspace",
    "create_key",
    "list_keys",
    "revoke_key",
    "rotate_key",
    "export",
    "writer",
    "effects",
    "log",
];

/// The longest idempotency key (characters).
pub const IDEMPOTENCY_KEY_MAX: usize = 256;

/// The largest request body read (bigger ones get a JSON-RPC error, HTTP 413).
pub const BODY_LIMIT: usize = 4 << 20;

/// How much of an oversized body is read and dropped before the 413 is sent, so the client
/// finishes sending and reads the answer (closing on a client still sending resets the
/// connection, and it sees "fetch failed" instead of the error). Past this, the connection
/// is closed.
const DRAIN_LIMIT: usize = 64 << 20;

/// A request body of at most [`BODY_LIMIT`] bytes; `Err` for a bigger one, read to its end
/// (up to [`DRAIN_LIMIT`]) and dropped.
pub async fn read_body(body: Body) -> Result<bytes::Bytes, ()> {
    use http_body_util::BodyExt;
    let mut body = body;
    let mut buf = bytes::BytesMut::new();
    let mut seen = 0usize;
    while let Some(frame) = body.frame().await {
        let Ok(frame) = frame else { return Err(()) };
        let Ok(data) = frame.into_data() else { continue };
        seen += data.len();
        if seen > DRAIN_LIMIT {
            return Err(());
        }
        if seen <= BODY_LIMIT {
            buf.extend_from_slice(&data);
        }
    }
    if seen > BODY_LIMIT {
        Err(())
    } else {
        Ok(buf.freeze())
    }
}

/// JSON-RPC's refusals: an error envelope that names its code, as every other Baton error does.
pub(crate) struct JsonRpc;

impl RefusalForm for JsonRpc {
    const COUNTED: bool = true;

    fn refuse(r: Refusal, workspace: &str) -> Response {
        let (code, data) = match r {
            Refusal::NotFound => (ErrorCode::NotFound, json!({"name": ErrorCode::NotFound.name()})),
            Refusal::Unauthorized | Refusal::Ended(_) => {
                (ErrorCode::Forbidden, json!({"name": ErrorCode::Forbidden.name()}))
            }
            Refusal::RateLimited(ms) => {
                (ErrorCode::RateLimited, json!({"name": ErrorCode::RateLimited.name(), "retry_after_ms": ms}))
            }
        };
        reply(r.status(), error(Value::Null, code.number(), &r.message(workspace), Some(data)))
    }
}

pub async fn handle(State(app): State<Arc<App>>, who: Authed<JsonRpc>, headers: HeaderMap, body: Body) -> Response {
    let Authed { workspace, principal, .. } = who;
    let bytes = match read_body(body).await {
        Ok(b) => b,
        Err(()) => {
            let msg = format!("the request body is over {BODY_LIMIT} bytes; nothing was run");
            return reply(StatusCode::PAYLOAD_TOO_LARGE, error(Value::Null, -32600, &msg, None));
        }
    };
    let parsed: Value = match serde_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(e) => {
            return reply(StatusCode::OK, error(Value::Null, -32700, &format!("the body is not JSON: {e}"), None));
        }
    };
    // Several nodes on one database: commands go to the node that writes the workspace.
    if app.cluster().is_some() && app.workspace(&workspace).is_none() && needs_writer(&parsed) {
        if headers.contains_key(forward::FORWARDED) {
            return forward::not_writer(&workspace);
        }
        if !app.exists(&workspace).await {
            let e = CallError::new(ErrorCode::NotFound, format!("no workspace '{workspace}' for this key"));
            return refusal(StatusCode::OK, &e);
        }
        if let forward::Forwarded::Answer(r) = forward::forward(&app, &workspace, &headers, parsed.clone()).await {
            return r;
        }
    }
    match parsed {
        Value::Array(items) if items.is_empty() => {
            reply(StatusCode::OK, error(Value::Null, -32600, "an empty batch", None))
        }
        Value::Array(items) => {
            // Consecutive `call` and `host` requests go to the workspace's writer together (in
            // order), so they commit in one transaction — one fsync for the run instead of one
            // each; every other method runs after the ones before it have answered.
            let mut out = Vec::new();
            let mut items = items.into_iter().peekable();
            while let Some(item) = items.next() {
                if !is_command(&item) {
                    out.extend(one(&app, &workspace, &principal, item).await);
                    continue;
                }
                let mut run = vec![item];
                while items.peek().is_some_and(is_command) {
                    run.extend(items.next());
                }
                out.extend(commands(&app, &workspace, &principal, run).await);
            }
            if out.is_empty() {
                StatusCode::NO_CONTENT.into_response()
            } else {
                reply_batch(StatusCode::OK, &out)
            }
        }
        item => {
            let forwardable = app.cluster().is_some() && needs_writer(&item);
            let request = forwardable.then(|| item.clone());
            match one(&app, &workspace, &principal, item).await {
                // The writer here stepped down while the command waited (another node took the
                // workspace; nothing of it was kept): send it on to the node that writes now.
                Some(answer)
                    if request.is_some() && answer.stepped_down() && !headers.contains_key(forward::FORWARDED) =>
                {
                    match forward::forward(&app, &workspace, &headers, request.unwrap_or_default()).await {
                        forward::Forwarded::Answer(r) => r,
                        forward::Forwarded::Local => reply_one(StatusCode::OK, &answer),
                    }
                }
                Some(answer) => reply_one(StatusCode::OK, &answer),
                None => StatusCode::NO_CONTENT.into_response(),
            }
        }
    }
}

/// Whether a request (or a batch) has an item only the workspace's writer runs.
fn needs_writer(parsed: &Value) -> bool {
    let item = |v: &Value| is_command(v) || v.get("method").and_then(Value::as_str) == Some("export");
    match parsed {
        Value::Array(items) => items.iter().any(item),
        v => item(v),
    }
}

fn invalid(field: &str, message: &str) -> CallError {
    let mut e = CallError::new(ErrorCode::InvalidParams, message);
    e.field = Some(field.to_string());
    e
}

/// A request's envelope: its id (`None` for a notification), method and params — or the
/// protocol error to answer.
struct Request {
    id: Option<Value>,
    method: String,
    params: Map<String, Value>,
}

fn envelope(item: Value) -> Result<Request, Value> {
    let Value::Object(mut req) = item else {
        return Err(error(Value::Null, -32600, "a request is a JSON object", None));
    };
    let id = req.remove("id");
    let answer_id = id.clone().unwrap_or(Value::Null);
    if req.get("jsonrpc") != Some(&json!("2.0")) {
        return Err(error(answer_id, -32600, "\"jsonrpc\" must be \"2.0\"", None));
    }
    let Some(Value::String(method)) = req.remove("method") else {
        return Err(error(answer_id, -32600, "\"method\" must be a string", None));
    };
    let params = match req.remove("params") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m,
        Some(_) => return Err(error(answer_id, -32602, "\"params\" must be an object", None)),
    };
    Ok(Request { id, method, params })
}

/// The answer to a request (`None` for a notification).
fn answer(id: Option<Value>, method: &str, result: Result<Answer, Failure>) -> Option<Envelope> {
    let id = id?;
    Some(Envelope::Json(match result {
        Ok(Answer::Text(result)) => return Some(Envelope::Text { id, result }),
        Ok(Answer::Value(v)) => json!({"jsonrpc": "2.0", "result": v, "id": id}),
        Err(Failure::Method) => {
            let known = METHODS.join(", ");
            error(id, -32601, &format!("no method '{method}'; the methods are {known}"), None)
        }
        Err(Failure::Baton(e)) => baton_error(id, &e),
    }))
}

/// One request; `None` for a notification (no `id`).
async fn one(app: &App, workspace: &str, principal: &Principal, item: Value) -> Option<Envelope> {
    let req = match envelope(item) {
        Ok(r) => r,
        Err(protocol) => return Some(Envelope::Json(protocol)),
    };
    let result = run(app, workspace, principal, &req.method, req.params).await;
    answer(req.id, &req.method, result)
}

/// A batch's run of `call` and `host` requests: checked one by one, then the valid ones handed
/// to the writer together (one transaction) and answered in order.
async fn commands(app: &App, workspace: &str, principal: &Principal, items: Vec<Value>) -> Vec<Envelope> {
    enum Slot {
        Done(Option<Envelope>),
        Sent(Option<Value>, String),
    }
    let mut slots = Vec::with_capacity(items.len());
    let mut ops = Vec::new();
    let mut ws = None;
    for item in items {
        match envelope(item) {
            Err(protocol) => slots.push(Slot::Done(Some(Envelope::Json(protocol)))),
            Ok(req) => match command(app, workspace, principal, &req.method, req.params) {
                Ok((w, op, idem)) => {
                    ws = Some(w);
                    ops.push((op, idem));
                    slots.push(Slot::Sent(req.id, req.method));
                }
                Err(f) => slots.push(Slot::Done(answer(req.id, &req.method, Err(f)))),
            },
        }
    }
    let mut results = match ws {
        Some(w) => w.run_all(ops).await.into_iter(),
        None => Vec::new().into_iter(),
    };
    slots
        .into_iter()
        .filter_map(|slot| match slot {
            Slot::Done(a) => a,
            Slot::Sent(id, method) => {
                let r = results.next().unwrap_or_else(|| Err(storage("no answer from the writer")));
                answer(id, &method, r.map_err(Failure::Baton))
            }
        })
        .collect()
}

/// A `call` or `host` request checked and turned into the writer's command.
fn command(
    app: &App,
    workspace: &str,
    principal: &Principal,
    method: &str,
    mut params: Map<String, Value>,
) -> Result<(crate::serve::writer::actor::Workspace, Op, Option<Idem>), Failure> {
    let idem = match params.remove("idempotency_key") {
        None | Some(Value::Null) => None,
        Some(Value::String(k)) if (1..=IDEMPOTENCY_KEY_MAX).contains(&k.chars().count()) => Some(k),
        Some(_) => {
            let msg = format!("idempotency_key is a string of 1 to {IDEMPOTENCY_KEY_MAX} characters");
            return Err(invalid("idempotency_key", &msg).into());
        }
    };
    // What a key fingerprints is built only when the request has a key: most have none, and
    // building it copies the request's arguments.
    let keyed = |key: Option<String>, what: &dyn Fn() -> Value| {
        key.map(|key| Idem { scope: principal.as_stored(), key, fingerprint: keys::hash(&what().to_string()) })
    };
    match method {
        "call" => {
            let ws = writer(app, workspace)?;
            let tool = match params.remove("tool") {
                Some(Value::String(t)) => t,
                _ => return Err(invalid("tool", "tool (a string) is required").into()),
            };
            let args = match params.remove("args") {
                None => Value::Object(Map::new()),
                Some(a @ Value::Object(_)) => a,
                Some(_) => return Err(invalid("args", "args must be an object").into()),
            };
            let caller: Caller = match params.remove("as") {
                Some(v) => serde_json::from_value(v).map_err(|e| invalid("as", &format!("as: {e}")))?,
                None => return Err(invalid("as", "as (the caller: thread, bot, handle) is required").into()),
            };
            if !principal.may_call_as(&caller) {
                return Err(forbidden("call as that caller (a bot or teammate key acts only as itself)"));
            }
            app.commands.fetch_add(1, Ordering::Relaxed);
            let idem = keyed(idem, &|| json!(["call", tool, args, format!("{caller:?}")]));
            Ok((ws, Op::Command { command: Command::Call { tool, args, caller }, agent: None, text: true }, idem))
        }
        "host" => {
            // An agent's key reports its own threads' activity (checked by the writer, which
            // knows whose thread it is); a teammate's sends none.
            let agent = match principal {
                Principal::Admin | Principal::Host => None,
                Principal::Bot(b) => Some(b.clone()),
                Principal::Teammate(_) => {
                    return Err(forbidden("send host inputs (admin, host and agent keys only)"));
                }
            };
            let ws = writer(app, workspace)?;
            let input = match params.remove("input") {
                Some(Value::String(t)) => t,
                _ => return Err(invalid("input", "input (a string) is required").into()),
            };
            let args = params.remove("args").unwrap_or_else(|| Value::Object(Map::new()));
            app.commands.fetch_add(1, Ordering::Relaxed);
            let idem = keyed(idem, &|| json!(["host", input, args]));
            Ok((ws, Op::Command { command: Command::Host { input, args }, agent, text: false }, idem))
        }
        _ => Err(Failure::Method),
    }
}

enum Failure {
    Method,
    Baton(CallError),
}

impl From<CallError> for Failure {
    fn from(e: CallError) -> Self {
        Failure::Baton(e)
    }
}

fn forbidden(what: &str) -> Failure {
    Failure::Baton(CallError::new(ErrorCode::Forbidden, format!("this key may not {what}")))
}

/// The workspace's writer on this node. On several nodes, one that is not here (any more)
/// is a refusal to retry — the request is sent on to the node that writes it.
fn writer(app: &App, workspace: &str) -> Result<crate::serve::writer::actor::Workspace, Failure> {
    match app.workspace(workspace) {
        Some(ws) => Ok(ws),
        None if app.cluster().is_some() => {
            let mut e = CallError::new(ErrorCode::StorageFailed, "this node does not write the workspace now; retry");
            e.data = Some(json!({"retry": true}));
            Err(Failure::Baton(e))
        }
        None => Err(not_found(workspace)),
    }
}

fn not_found(workspace: &str) -> Failure {
    Failure::Baton(CallError::new(ErrorCode::NotFound, format!("no workspace '{workspace}' for this key")))
}

async fn run(
    app: &App,
    workspace: &str,
    principal: &Principal,
    method: &str,
    params: Map<String, Value>,
) -> Result<Answer, Failure> {
    if is_command_method(method) {
        // A tool's answer comes back as the engine's text, and goes out as it is.
        let (ws, op, idem) = command(app, workspace, principal, method, params)?;
        return Ok(ws.run_answer(op, idem).await?);
    }
    read_or_manage(app, workspace, principal, method, params).await.map(Answer::Value)
}

/// Every method but `call` and `host`: reads, exports, workspaces and keys.
async fn read_or_manage(
    app: &App,
    workspace: &str,
    principal: &Principal,
    method: &str,
    params: Map<String, Value>,
) -> Result<Value, Failure> {
    match method {
        "create_workspace" => {
            if *principal != Principal::Admin {
                return Err(forbidden("create workspaces (admin only)"));
            }
            if !valid_name(workspace) {
                return Err(invalid("workspace", "a workspace name is 1–64 of A–Z a–z 0–9 _ -").into());
            }
            let seed = crate::serve::clock::random_seed();
            let created = app
                .store
                .create_workspace(workspace, seed, crate::serve::clock::now_ms())
                .await
                .map_err(|e| storage(&e))?;
            let Some(epoch) = created else {
                return Ok(json!({"workspace": workspace, "created": false}));
            };
            app.writers.start(workspace, seed, epoch).await.map_err(|e| storage(&e))?;
            tracing::info!(workspace, "workspace created");
            Ok(json!({"workspace": workspace, "created": true}))
        }
        "create_key" | "list_keys" | "revoke_key" | "rotate_key" => {
            if *principal != Principal::Admin {
                return Err(forbidden("manage keys (admin only)"));
            }
            if !app.exists(workspace).await {
                return Err(not_found(workspace));
            }
            key_method(app, workspace, method, &params).await
        }
        "export" => {
            if !principal.is_host() {
                return Err(forbidden("export (admin and host keys only)"));
            }
            let ws = writer(app, workspace)?;
            Ok(Value::String(ws.export().await?))
        }
        "writer" => {
            if !principal.is_host() {
                return Err(forbidden("ask which node writes the workspace (admin and host keys only)"));
            }
            if !app.exists(workspace).await {
                return Err(not_found(workspace));
            }
            Ok(match app.cluster() {
                None => json!({"node": null, "url": null, "current": true}),
                Some(pg) => match pg.owner(workspace).await.map_err(|e| storage(&e))? {
                    Some((node, url, current)) => json!({"node": node, "url": url, "current": current}),
                    None => json!({"node": null, "url": null, "current": false}),
                },
            })
        }
        "effects" => {
            if !app.exists(workspace).await {
                return Err(not_found(workspace));
            }
            let (after, limit) = page(&params)?;
            let rows = read_rows(app, sqlite::Stream::Effects, workspace, after, limit).await?;
            let last = rows.last().map_or(after, |(seq, _)| *seq);
            let effects: Vec<Value> = rows
                .into_iter()
                .filter_map(|(seq, body)| {
                    let mut e: Value = serde_json::from_str(&body).ok()?;
                    principal.sees_effect(&e).then(|| {
                        e["seq"] = json!(seq);
                        e
                    })
                })
                .collect();
            Ok(json!({"effects": effects, "next_after": last}))
        }
        "log" => {
            if !principal.is_host() {
                return Err(forbidden("read the log (admin and host keys only)"));
            }
            if !app.exists(workspace).await {
                return Err(not_found(workspace));
            }
            let (after, limit) = page(&params)?;
            let rows = read_rows(app, sqlite::Stream::Log, workspace, after, limit).await?;
            let last = rows.last().map_or(after, |(seq, _)| *seq);
            let records = rows
                .into_iter()
                .map(|(seq, line)| {
                    serde_json::from_str::<Value>(&line)
                        .map_err(|e| storage(&format!("stored record {seq} does not read: {e}")))
                })
                .collect::<Result<Vec<_>, _>>()?;
            Ok(json!({"records": records, "next_after": last}))
        }
        _ => Err(Failure::Method),
    }
}

/// The admin's key methods: `create_key {principal, expires_in_seconds?}`, `list_keys`,
/// `revoke_key {key_id}`, `rotate_key {key_id, grace_seconds?, expires_in_seconds?}`.
async fn key_method(app: &App, workspace: &str, method: &str, params: &Map<String, Value>) -> Result<Value, Failure> {
    let now = crate::serve::clock::now_ms();
    let seconds =
        |field: &str, min: u64| -> Result<Option<u64>, Failure> {
            match params.get(field) {
                None | Some(Value::Null) => Ok(None),
                Some(v) => v.as_u64().filter(|n| *n >= min).map(Some).ok_or_else(|| {
                    invalid(field, &format!("{field} is a whole number of seconds, {min} or more")).into()
                }),
            }
        };
    let stored = |e: String| Failure::Baton(storage(&e));
    let issued = |key: String, k: &keys::StoredKey| {
        let mut out = k.to_json(now);
        out["key"] = json!(key);
        out["workspace"] = json!(workspace);
        out
    };
    let named = |keys: &[keys::StoredKey]| -> Result<keys::StoredKey, Failure> {
        let id = params.get("key_id").and_then(Value::as_str).unwrap_or_default();
        keys::find(keys, id).cloned().map_err(|f| {
            let code = match f {
                keys::FindError::Unknown(_) => ErrorCode::NotFound,
                keys::FindError::NotAnId(_) => ErrorCode::InvalidParams,
            };
            let mut e = CallError::new(code, f.message());
            e.field = Some("key_id".into());
            Failure::Baton(e)
        })
    };
    match method {
        "create_key" => {
            let p = match params.get("principal") {
                Some(Value::String(p)) => Principal::parse(p)
                    .ok_or_else(|| invalid("principal", "principal is host, bot:ID or teammate:HANDLE"))?,
                _ => return Err(invalid("principal", "principal (a string) is required").into()),
            };
            let (key, k) = keys::issue(workspace, &p, now, seconds("expires_in_seconds", 1)?);
            app.store.add_key(&k, None).await.map_err(stored)?;
            Ok(issued(key, &k))
        }
        "list_keys" => {
            let all = app.store.keys(workspace).await.map_err(stored)?;
            Ok(json!({"keys": all.iter().map(|k| k.to_json(now)).collect::<Vec<_>>()}))
        }
        "revoke_key" => {
            let k = named(&app.store.keys(workspace).await.map_err(stored)?)?;
            app.store
                .end_key(&keys::Ending { hash: k.hash.clone(), how: keys::Ended::Revoked, at: now })
                .await
                .map_err(stored)?;
            let _ = app.hint.send(std::sync::Arc::from(keys::hint(&k.hash)));
            let after = app.store.key(&k.hash).await.map_err(stored)?.unwrap_or(k);
            Ok(after.to_json(now))
        }
        _ => {
            let old = named(&app.store.keys(workspace).await.map_err(stored)?)?;
            let grace = seconds("grace_seconds", 0)?.unwrap_or(0);
            let (key, new, ending) =
                keys::rotate(&old, now, grace, seconds("expires_in_seconds", 1)?).map_err(|m| invalid("key_id", &m))?;
            app.store.add_key(&new, Some(&ending)).await.map_err(stored)?;
            let _ = app.hint.send(std::sync::Arc::from(keys::hint(&old.hash)));
            let replaced = app.store.key(&old.hash).await.map_err(stored)?.unwrap_or(old);
            let mut out = issued(key, &new);
            out["replaced"] = replaced.to_json(now);
            Ok(out)
        }
    }
}

/// `after` (a sequence number, default 0) and `limit` (1 to 10000, default 1000) of a paged read.
fn page(params: &Map<String, Value>) -> Result<(u64, usize), Failure> {
    let after = match params.get("after") {
        None | Some(Value::Null) => 0,
        Some(v) => v.as_u64().ok_or_else(|| invalid("after", "after is a sequence number (0 or more)"))?,
    };
    let limit = match params.get("limit") {
        None | Some(Value::Null) => 1000,
        Some(v) => {
            v.as_u64().filter(|n| (1..=10_000).contains(n)).ok_or_else(|| invalid("limit", "limit is 1 to 10000"))?
                as usize
        }
    };
    Ok((after, limit))
}

/// Stored rows after `after` (the log's records or the effects).
async fn read_rows(
    app: &App,
    stream: sqlite::Stream,
    workspace: &str,
    after: u64,
    limit: usize,
) -> Result<Vec<(u64, String)>, Failure> {
    Ok(app.store.rows_after(stream, workspace, after, limit).await.map_err(|e| storage(&e))?)
}

fn storage(message: &str) -> CallError {
    CallError::new(ErrorCode::StorageFailed, message)
}
