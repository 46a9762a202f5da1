//! The JSON-RPC 2.0 envelope as Baton writes it: an answer, an error (Baton's errors keep
//! their name, field, rule and data under `data`), a whole request refused, and which batch
//! items are commands for the workspace's writer.
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use baton_core::CallError;
use serde_json::{json, Value};

/// A batch item the workspace's writer runs (`call` or `host`).
pub fn is_command(item: &Value) -> bool {
    matches!(item.get("method").and_then(Value::as_str), Some("call" | "host"))
}

/// A whole request refused with one Baton error (HTTP `status`).
pub fn refusal(status: StatusCode, e: &CallError) -> Response {
    reply(status, baton_error(Value::Null, e))
}

pub(super) fn reply(status: StatusCode, body: Value) -> Response {
    (status, [("content-type", "application/json")], body.to_string()).into_response()
}

pub(super) fn error(id: Value, code: i64, message: &str, data: Option<Value>) -> Value {
    let mut e = json!({"code": code, "message": message});
    if let Some(d) = data {
        e["data"] = d;
    }
    json!({"jsonrpc": "2.0", "error": e, "id": id})
}

/// Baton's error as a JSON-RPC error: its code and message, and the rest of the shape every
/// host sees (`CallError::to_json`: name, field, rule, data) under `data`.
pub(super) fn baton_error(id: Value, e: &CallError) -> Value {
    let mut data = e.to_json()["error"].take();
    if let Some(d) = data.as_object_mut() {
        d.remove("code");
        d.remove("message");
    }
    error(id, e.code.number(), &e.message, Some(data))
}
