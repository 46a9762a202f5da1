//! A workspace on a `baton serve` server, attached live. The console reads it over the server's
//! JSON-RPC — `export` for the state (a snapshot), `log` for the history in pages — and follows
//! `/events` with a fetch stream reader (an `EventSource` cannot send the key), resuming after a
//! drop with `Last-Event-ID` = the last record it absorbed, so nothing is missed or absorbed
//! twice. Acting is a JSON-RPC `call` or `host`; the server stamps the time and commits, and the
//! console absorbs the record like any other. The engine here never commits a command itself.
//!
//! Saved connections (server URL, workspace, key) live in the browser's `localStorage`, so a
//! reload reopens them; "Forget" removes one (see docs/DECISIONS.md).
use baton_core::{CallError, Caller, Engine, ErrorCode, LogRecord, NoStorage, SeededIds, Snapshot};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};
use std::cell::{Cell, Ref, RefCell, RefMut};
use std::rc::Rc;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// The `localStorage` entry holding the saved connections.
const SAVED: &str = "baton-servers";

/// Records read per `log` request.
const PAGE: u32 = 2000;

/// The longest wait between two attempts to reconnect the event stream.
const MAX_BACKOFF_MS: i32 = 10_000;

/// A saved connection to a server workspace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Server {
    /// The console's id for it (starts with `@`, so it never clashes with a browser workspace).
    pub id: String,
    /// The server's base URL (`http://127.0.0.1:7410`).
    pub url: String,
    /// The workspace on the server.
    pub workspace: String,
    /// A host or admin key.
    pub key: String,
}

impl Server {
    /// The display name: the workspace and the server's host.
    pub fn name(&self) -> String {
        let host = self.url.split("://").nth(1).unwrap_or(&self.url);
        format!("{} on {}", self.workspace, host.trim_end_matches('/'))
    }

    fn to_json(&self) -> Value {
        json!({"id": self.id, "url": self.url, "workspace": self.workspace, "key": self.key})
    }

    fn from_json(v: &Value) -> Option<Server> {
        let s = |k: &str| v[k].as_str().map(str::to_string);
        Some(Server { id: s("id")?, url: s("url")?, workspace: s("workspace")?, key: s("key")? })
    }
}

fn storage() -> Option<web_sys::Storage> {
    web_sys::window().and_then(|w| w.local_storage().ok().flatten())
}

/// The saved connections.
pub fn saved() -> Vec<Server> {
    let text = storage().and_then(|s| s.get_item(SAVED).ok().flatten()).unwrap_or_default();
    let list: Vec<Value> = serde_json::from_str(&text).unwrap_or_default();
    list.iter().filter_map(Server::from_json).collect()
}

fn store(list: &[Server]) -> Result<(), CallError> {
    let text = Value::Array(list.iter().map(Server::to_json).collect()).to_string();
    storage()
        .ok_or_else(|| fail("this browser keeps no localStorage"))?
        .set_item(SAVED, &text)
        .map_err(|e| fail(format!("could not save the connection: {}", js_text(&e))))
}

/// The saved connection with this id.
pub fn find(id: &str) -> Option<Server> {
    saved().into_iter().find(|s| s.id == id)
}

/// Checks a connection (the key must read the workspace's log: a host or admin key) and saves
/// it; answers it. The same server and workspace saved before is replaced (a new key).
pub async fn connect(url: &str, workspace: &str, key: &str) -> Result<Server, CallError> {
    let url = url.trim().trim_end_matches('/').to_string();
    let (workspace, key) = (workspace.trim().to_string(), key.trim().to_string());
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return Err(CallError::new(
            ErrorCode::InvalidParams,
            "url: the server's address starts with http:// or https://",
        )
        .field("url"));
    }
    if workspace.is_empty() {
        return Err(
            CallError::new(ErrorCode::InvalidParams, "workspace: name the server's workspace").field("workspace")
        );
    }
    if key.is_empty() {
        return Err(CallError::new(ErrorCode::InvalidParams, "key: a host or admin key is needed").field("key"));
    }
    let mut list = saved();
    let id = match list.iter().find(|s| s.url == url && s.workspace == workspace) {
        Some(s) => s.id.clone(),
        None => {
            let taken: Vec<String> = list.iter().map(|s| s.id.trim_start_matches('@').to_string()).collect();
            format!("@{}", crate::route::fresh_id(&workspace, &taken))
        }
    };
    let server = Server { id, url, workspace, key };
    rpc::<LogPage>(&server, "log", json!({"after": 0, "limit": 1})).await?;
    list.retain(|s| s.id != server.id);
    list.push(server.clone());
    store(&list)?;
    Ok(server)
}

/// Forgets a saved connection (the workspace on the server stays as it is).
pub fn forget(id: &str) -> Result<(), CallError> {
    let mut list = saved();
    list.retain(|s| s.id != id);
    store(&list)
}

/// The state of the event stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Link {
    /// Connecting for the first time.
    Connecting,
    /// The stream is open: records arrive as they commit.
    Live,
    /// The stream dropped; it reconnects after a wait and resumes where it stopped.
    Reconnecting,
}

/// An attached server workspace.
pub struct Remote {
    /// The connection.
    pub server: Server,
    engine: RefCell<Engine<NoStorage>>,
    opened_from: u64,
    fresh: RefCell<Vec<LogRecord>>,
    link: Cell<Link>,
    closed: Cell<bool>,
    abort: RefCell<Option<web_sys::AbortController>>,
}

fn fail(msg: impl Into<String>) -> CallError {
    CallError::new(ErrorCode::StorageFailed, msg.into())
}

pub(crate) fn js_text(v: &JsValue) -> String {
    v.as_string()
        .or_else(|| v.dyn_ref::<js_sys::Error>().map(|e| String::from(e.message())))
        .unwrap_or_else(|| format!("{v:?}"))
}

/// A JSON-RPC answer: its `result`, or its `error`.
#[derive(Deserialize)]
struct RpcAnswer<T> {
    result: Option<T>,
    error: Option<RpcError>,
}

/// A JSON-RPC error as `baton serve` sends it: the code (Baton's codes are JSON-RPC codes),
/// the message (the rule id is already in it), and the field and detail under `data`.
#[derive(Deserialize)]
struct RpcError {
    code: i64,
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    data: Option<RpcErrorData>,
}

#[derive(Default, Deserialize)]
struct RpcErrorData {
    #[serde(default)]
    field: Option<String>,
    #[serde(default)]
    data: Option<Value>,
}

impl From<RpcError> for CallError {
    fn from(e: RpcError) -> CallError {
        let code = ErrorCode::ALL.iter().copied().find(|c| c.number() == e.code).unwrap_or(ErrorCode::StorageFailed);
        let mut err = CallError::new(code, e.message.unwrap_or_else(|| "the server refused the request".into()));
        let data = e.data.unwrap_or_default();
        if let Some(f) = data.field {
            err = err.field(&f);
        }
        if let Some(d) = data.data {
            err = err.data(d);
        }
        err
    }
}

/// The answer of `log`: a page of records.
#[derive(Deserialize)]
struct LogPage {
    records: Vec<Value>,
}

/// A request with the key, and a JSON body or other headers.
fn request(
    server: &Server,
    method: &str,
    body: Option<&str>,
    extra: &[(&str, &str)],
) -> Result<web_sys::RequestInit, CallError> {
    let headers = web_sys::Headers::new().map_err(|e| fail(js_text(&e)))?;
    headers.set("authorization", &format!("Bearer {}", server.key)).map_err(|e| fail(js_text(&e)))?;
    for (name, value) in extra {
        headers.set(name, value).map_err(|e| fail(js_text(&e)))?;
    }
    let init = web_sys::RequestInit::new();
    init.set_method(method);
    if let Some(b) = body {
        headers.set("content-type", "application/json").map_err(|e| fail(js_text(&e)))?;
        init.set_body(&JsValue::from_str(b));
    }
    init.set_headers(&headers);
    Ok(init)
}

async fn fetch(url: &str, init: &web_sys::RequestInit) -> Result<web_sys::Response, CallError> {
    let window = web_sys::window().ok_or_else(|| fail("no window"))?;
    let answer = JsFuture::from(window.fetch_with_str_and_init(url, init))
        .await
        .map_err(|e| fail(format!("the server at {url} did not answer: {}", js_text(&e))))?;
    answer.dyn_into().map_err(|_| fail("fetch did not give a Response"))
}

/// One JSON-RPC request to the workspace; its `result`, parsed once into `T`, or its error as
/// Baton's.
pub async fn rpc<T: DeserializeOwned>(server: &Server, method: &str, params: Value) -> Result<T, CallError> {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string();
    let url = format!("{}/w/{}/rpc", server.url, js_sys::encode_uri_component(&server.workspace));
    let resp = fetch(&url, &request(server, "POST", Some(&body), &[])?).await?;
    let status = resp.status();
    let text = JsFuture::from(resp.text().map_err(|e| fail(js_text(&e)))?)
        .await
        .ok()
        .and_then(|t| t.as_string())
        .unwrap_or_default();
    let answer: RpcAnswer<T> = serde_json::from_str(&text).map_err(|e| {
        fail(format!(
            "the server answered HTTP {status} without a JSON-RPC answer of {method} ({e}): {}",
            text.chars().take(200).collect::<String>()
        ))
    })?;
    match (answer.error, answer.result) {
        (Some(e), _) => Err(e.into()),
        (None, Some(r)) => Ok(r),
        (None, None) => Err(fail(format!("the server's answer to {method} has neither result nor error"))),
    }
}

/// Resolves in a task of its own, `ms` from now.
pub(crate) fn sleep(ms: i32) -> JsFuture {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(w) = web_sys::window() {
            let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms);
        }
    });
    JsFuture::from(promise)
}

impl Remote {
    /// Attaches: reads the state (`export`), opens an engine from it. The history and the
    /// event stream follow ([`Remote::history`], [`Remote::follow`]). `keep_hot` as for
    /// `Engine::keep_hot_records`.
    pub async fn open(server: Server, keep_hot: usize) -> Result<Rc<Remote>, CallError> {
        let text: String = rpc(&server, "export", json!({})).await?;
        let snapshot =
            Snapshot::from_lines(text.split('\n')).map_err(|e| fail(format!("the server's snapshot: {e}")))?;
        let opened_from = snapshot.header.seq;
        // The server runs a server workspace's clock, not the console: its due index is never
        // needed here, so it is not built ("Next event" looks at every open handoff).
        let engine =
            Engine::open_from_due_later(Some(snapshot), NoStorage, Box::new(SeededIds::new(1)), Some(keep_hot))
                .map_err(|e| fail(e.to_string()))?;
        Ok(Rc::new(Remote {
            server,
            engine: RefCell::new(engine),
            opened_from,
            fresh: RefCell::new(Vec::new()),
            link: Cell::new(Link::Connecting),
            closed: Cell::new(false),
            abort: RefCell::new(None),
        }))
    }

    /// The engine, read-only. Not held across an await.
    pub fn engine(&self) -> Ref<'_, Engine<NoStorage>> {
        self.engine.borrow()
    }

    /// The engine, for what changes no log (taking effects).
    pub fn engine_mut(&self) -> RefMut<'_, Engine<NoStorage>> {
        self.engine.borrow_mut()
    }

    /// The record of the snapshot it opened from.
    pub fn opened_from(&self) -> u64 {
        self.opened_from
    }

    /// The event stream's state.
    pub fn link(&self) -> Link {
        self.link.get()
    }

    /// Takes the records absorbed since the last call, oldest first.
    pub fn take_fresh(&self) -> Vec<LogRecord> {
        std::mem::take(&mut *self.fresh.borrow_mut())
    }

    /// Up to `count` records after `after`, oldest first (the history, read in pages).
    pub async fn history(&self, after: u64, count: u32) -> Result<Vec<LogRecord>, CallError> {
        let page: LogPage = rpc(&self.server, "log", json!({"after": after, "limit": count.clamp(1, 10_000)})).await?;
        page.records
            .iter()
            .enumerate()
            .map(|(i, r)| LogRecord::from_json_line(&r.to_string(), i).map_err(|e| fail(e.to_string())))
            .collect()
    }

    /// The first record the server's log holds (1, unless the workspace was imported from a
    /// snapshot).
    pub async fn history_starts_at(&self) -> Result<u64, CallError> {
        Ok(self.history(0, 1).await?.first().map_or(1, |r| r.seq))
    }

    /// Absorbs a record if it is the next one; `Ok(false)` when the engine had it already.
    fn absorb(&self, record: LogRecord) -> Result<bool, CallError> {
        let have = self.engine.borrow().log_seq();
        if record.seq <= have {
            return Ok(false);
        }
        if record.seq != have + 1 {
            return Err(fail(format!("record {} came after record {have}: a gap", record.seq)));
        }
        self.engine.borrow_mut().absorb(&record)?;
        self.fresh.borrow_mut().push(record);
        Ok(true)
    }

    /// Reads and absorbs every record the server committed after this engine's last one.
    pub async fn catch_up(&self) -> Result<usize, CallError> {
        let mut n = 0;
        loop {
            let after = self.engine.borrow().log_seq();
            let page = self.history(after, PAGE).await?;
            if page.is_empty() {
                return Ok(n);
            }
            for r in page {
                if self.absorb(r)? {
                    n += 1;
                }
            }
        }
    }

    /// A tool call through the server, answered with what the engine there answered. The
    /// record it made is absorbed before this returns (the views show it at once).
    pub async fn call(&self, tool: &str, args: Value, caller: &Caller) -> Result<Value, CallError> {
        let r = rpc(&self.server, "call", json!({"tool": tool, "args": args, "as": caller})).await;
        self.catch_up().await?;
        r
    }

    /// A host input through the server (see [`Remote::call`]).
    pub async fn host(&self, input: &str, args: Value) -> Result<Value, CallError> {
        let r = rpc(&self.server, "host", json!({"input": input, "args": args})).await;
        self.catch_up().await?;
        r
    }

    /// Stops following the event stream.
    pub fn close(&self) {
        self.closed.set(true);
        if let Some(a) = self.abort.borrow_mut().take() {
            a.abort();
        }
    }

    /// Follows `/events` until closed: absorbs each record as it commits and calls `changed`
    /// after each batch (and when the link's state changes). After a drop it waits (0.5 s,
    /// doubling to 10 s) and reconnects with `Last-Event-ID` = its last record.
    pub async fn follow(self: Rc<Self>, changed: impl Fn()) {
        let mut wait = 500;
        while !self.closed.get() {
            if self.stream(&changed).await {
                wait = 500; // it was open: the next drop starts the waits again
            }
            if self.closed.get() {
                break;
            }
            self.link.set(Link::Reconnecting);
            changed();
            let _ = sleep(wait).await;
            wait = (wait * 2).min(MAX_BACKOFF_MS);
        }
    }

    /// One connection of the stream; true if it opened.
    async fn stream(&self, changed: &impl Fn()) -> bool {
        let Ok(ctl) = web_sys::AbortController::new() else { return false };
        *self.abort.borrow_mut() = Some(ctl.clone());
        let url = format!("{}/w/{}/events", self.server.url, js_sys::encode_uri_component(&self.server.workspace));
        let last = self.engine.borrow().log_seq().to_string();
        let Ok(init) = request(&self.server, "GET", None, &[("last-event-id", &last)]) else { return false };
        init.set_signal(Some(&ctl.signal()));
        let Ok(resp) = fetch(&url, &init).await else { return false };
        let Some(body) = resp.body().filter(|_| resp.ok()) else { return false };
        let reader: web_sys::ReadableStreamDefaultReader = body.get_reader().unchecked_into();
        self.link.set(Link::Live);
        changed();
        let mut buf: Vec<u8> = Vec::new();
        loop {
            let Ok(chunk) = JsFuture::from(reader.read()).await else { return true };
            if js_sys::Reflect::get(&chunk, &"done".into()).ok().and_then(|d| d.as_bool()).unwrap_or(true) {
                return true;
            }
            let Ok(value) = js_sys::Reflect::get(&chunk, &"value".into()) else { return true };
            buf.extend(js_sys::Uint8Array::new(&value).to_vec());
            let mut absorbed = false;
            for data in take_events(&mut buf) {
                let record = match LogRecord::from_json_line(&data, 0) {
                    Ok(r) => r,
                    Err(_) => return true, // not a record: reconnect and resume
                };
                match self.absorb(record) {
                    Ok(a) => absorbed |= a,
                    Err(_) => {
                        ctl.abort();
                        return true;
                    }
                }
            }
            if absorbed {
                changed();
            }
        }
    }
}

/// Takes the complete events at the front of `buf` (an event ends with a blank line) and
/// answers their `data` (lines joined with `\n`); comments (keepalives) and partial events
/// stay or go as the SSE format says. Own code rather than a crate: the format is a dozen lines,
/// and the SSE crates read from an `EventSource` or a native HTTP client, neither of which fits.
fn take_events(buf: &mut Vec<u8>) -> Vec<String> {
    let mut out = Vec::new();
    while let Some(end) = buf.windows(2).position(|w| w == b"\n\n") {
        let block: Vec<u8> = buf.drain(..end + 2).collect();
        let text = String::from_utf8_lossy(&block);
        let mut data: Option<String> = None;
        for line in text.lines() {
            let line = line.strip_suffix('\r').unwrap_or(line);
            if let Some(d) = line.strip_prefix("data:") {
                let d = d.strip_prefix(' ').unwrap_or(d);
                match &mut data {
                    Some(acc) => {
                        acc.push('\n');
                        acc.push_str(d);
                    }
                    None => data = Some(d.to_string()),
                }
            }
        }
        out.extend(data);
    }
    out
}
