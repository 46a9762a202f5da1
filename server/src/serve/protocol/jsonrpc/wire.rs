//! The JSON-RPC 2.0 envelope as Baton writes it: an answer, an error (Baton's errors keep
//! their name, field, rule and data under `data`), a whole request refused, and which batch
//! items are commands for the workspace's writer. A tool's answer stays the JSON text the
//! engine serialized ([`Envelope::Text`]) until the response is written around it: the result
//! is serialized once on the way out.
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use baton_core::CallError;
use serde_json::{json, Value};

/// A batch item the workspace's writer runs (`call` or `host`).
pub fn is_command(item: &Value) -> bool {
    item.get("method").and_then(Value::as_str).is_some_and(is_command_method)
}

/// A method the workspace's writer runs (`call` or `host`).
pub fn is_command_method(method: &str) -> bool {
    matches!(method, "call" | "host")
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

/// One answer as it goes out: an envelope built as a value (errors, reads), or a tool's answer
/// still as the engine's text, with its request id.
pub enum Envelope {
    Json(Value),
    Text { id: Value, result: String },
}

impl Envelope {
    /// Writes it (the engine's text as it is).
    fn write(&self, out: &mut String) {
        use std::fmt::Write;
        // A value's Display serializes straight into `out` (no string of its own first).
        let _ = match self {
            Envelope::Json(v) => write!(out, "{v}"),
            Envelope::Text { id, result } => write!(out, r#"{{"jsonrpc":"2.0","result":{result},"id":{id}}}"#),
        };
    }

    /// Whether it says the workspace's writer on this node stepped down (a refusal to retry).
    pub fn stepped_down(&self) -> bool {
        matches!(self, Envelope::Json(v) if v.pointer("/error/data/data/retry") == Some(&Value::Bool(true)))
    }
}

/// One answer's response.
pub fn reply_one(status: StatusCode, envelope: &Envelope) -> Response {
    let mut body = String::new();
    envelope.write(&mut body);
    (status, [("content-type", "application/json")], body).into_response()
}

/// A batch's response: its answers in order.
pub fn reply_batch(status: StatusCode, envelopes: &[Envelope]) -> Response {
    let mut body = String::from("[");
    for (i, e) in envelopes.iter().enumerate() {
        if i > 0 {
            body.push(',');
        }
        e.write(&mut body);
    }
    body.push(']');
    (status, [("content-type", "application/json")], body).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_text_answer_is_written_as_it_is_inside_a_valid_envelope() {
        let text = Envelope::Text { id: json!("a\"b"), result: r#"{"success":true,"n":[1,2]}"#.into() };
        let json = Envelope::Json(error(json!(2), -32601, "no method", None));
        let mut out = String::new();
        text.write(&mut out);
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v, json!({"jsonrpc": "2.0", "result": {"success": true, "n": [1, 2]}, "id": "a\"b"}));
        let mut body = String::from("[");
        text.write(&mut body);
        body.push(',');
        json.write(&mut body);
        body.push(']');
        let v: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(v[1]["error"]["code"], -32601);
        assert!(!text.stepped_down() && !json.stepped_down());
    }
}
