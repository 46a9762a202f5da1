//! What an A2A method is, as the writer runs it ([`Request`]), how it answers ([`Answer`]),
//! and the lookups every method shares: the task a request names, a message's text.
use super::code;
use super::generation::Kept;
use baton_core::{Engine, Handoff, Storage};
use serde_json::{Map, Value};

/// The protocol version served.
pub const VERSION: &str = "1.0";

/// The HTTP bindings, each at the agent's one URL: JSON-RPC (`POST` to it) and HTTP+JSON
/// (its REST paths under it, `rest.rs`). gRPC is served at the server's address (`grpc.rs`).
pub const BINDINGS: [&str; 2] = ["JSONRPC", "HTTP+JSON"];

/// The extension that shows task generations (A2A v1.1 draft, §3.2.7): named in a request's
/// `A2A-Extensions`, the answers carry `generation`. The URI is the draft's text at the commit
/// followed.
pub const GENERATIONS: &str =
    "https://github.com/a2aproject/A2A/blob/28491879ff41a9c230fb51f3f7bd6096b80cc341/docs/specification.md#327-task-generation-semantics";

/// The caller's bot for host and admin keys.
pub const HOST_CALLER: &str = "a2a-client";

/// Where the writer leaves a task's fold and generation as the command left them (a stream or
/// a wait goes on from exactly there).
pub type FollowSlot = std::sync::Arc<std::sync::Mutex<Option<Kept>>>;

/// What the writer runs for an A2A request.
pub struct Request {
    pub agent: String,
    pub caller: String,
    pub method: String,
    pub params: Map<String, Value>,
    /// The agent answers by script (`--fixture-agent`).
    pub fixture: bool,
    /// A fresh context id, used when a new task names none.
    pub new_context: String,
    /// Filled with the answered task's fold and generation (streams, waits).
    pub follow: Option<FollowSlot>,
}

/// `{"result": …}` or `{"error": {code, message}}`: what goes in the JSON-RPC answer.
pub(super) type Answer = Result<Value, (i64, String)>;

pub(super) fn fail(code: i64, message: impl Into<String>) -> Answer {
    Err((code, message.into()))
}

/// A ProtoJSON int64: a number, or its decimal text.
pub(super) fn int64(v: &Value) -> Option<i64> {
    v.as_i64().or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
}

/// The text of a message's text parts; other part kinds are refused.
pub(super) fn text_of(message: &Value) -> Result<String, (i64, String)> {
    let parts = message
        .get("parts")
        .and_then(Value::as_array)
        .ok_or((code::INVALID_PARAMS, "message.parts is required".into()))?;
    let mut out = Vec::new();
    for p in parts {
        match p.get("text").and_then(Value::as_str) {
            Some(t) => out.push(t),
            None => {
                return Err((
                    code::CONTENT_TYPE_NOT_SUPPORTED,
                    "only text parts are accepted (message.parts[].text)".into(),
                ))
            }
        }
    }
    let text = out.join("\n");
    if text.trim().is_empty() {
        return Err((code::INVALID_PARAMS, "message.parts: the message has no text".into()));
    }
    Ok(text)
}

pub(super) fn handoff_of<S: Storage>(engine: &Engine<S>, req: &Request, id: &str) -> Result<Handoff, (i64, String)> {
    match engine.state().handoffs.get(id) {
        Some(h) if h.parent_bot_id == req.caller && h.child_bot_id == req.agent => Ok((**h).clone()),
        _ => Err((code::TASK_NOT_FOUND, format!("no task '{id}'"))),
    }
}

pub(super) fn task_param<S: Storage>(engine: &Engine<S>, req: &Request) -> Result<Handoff, (i64, String)> {
    let id = req
        .params
        .get("id")
        .and_then(Value::as_str)
        .ok_or((code::INVALID_PARAMS, "id (the task id) is required".into()))?;
    handoff_of(engine, req, id)
}

/// The task named by `taskId` (the push-config methods).
pub(super) fn task_id_param<S: Storage>(engine: &Engine<S>, req: &Request) -> Result<Handoff, (i64, String)> {
    let id = req
        .params
        .get("taskId")
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
        .ok_or((code::INVALID_PARAMS, "taskId is required".into()))?;
    handoff_of(engine, req, id)
}
