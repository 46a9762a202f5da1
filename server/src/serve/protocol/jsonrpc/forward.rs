//! Forwarding: a JSON-RPC request sent to a node that does not write its workspace goes to
//! the node that does ([`forward`]); while the workspace changes hands the forwarding node waits
//! for the new writer (bounded), so a client sees a slower answer, not an error.
use crate::serve::app::App;
use crate::serve::writer::cluster::patience;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use std::time::Duration;
/// The header a forwarded request carries (the forwarding node's id): the receiving node
/// runs it only if it writes the workspace, and never forwards it again.
pub const FORWARDED: &str = "x-baton-forwarded";

/// The header of the answer from a node that does not write the workspace (any more).
const NOT_WRITER: &str = "x-baton-not-writer";

/// What forwarding found.
pub enum Forwarded {
    /// The writer's answer.
    Answer(Response),
    /// This node writes the workspace now: run the request here.
    Local,
}

/// Gives every `call` and `host` item without an idempotency key one of its own, so that
/// sending it again after the writer did not answer (it may have committed, then died) cannot
/// run it twice.
fn keyed(mut request: serde_json::Value, node: &str, next: &std::sync::atomic::AtomicU64) -> Bytes {
    let mut key_one = |item: &mut serde_json::Value| {
        let command = super::wire::is_command(item);
        if let Some(params) = item.get_mut("params").and_then(|p| p.as_object_mut()) {
            if command && !params.contains_key("idempotency_key") {
                let n = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let key = format!("fwd:{node}:{:x}:{n}", crate::serve::clock::now_ms());
                params.insert("idempotency_key".into(), key.into());
            }
        }
    };
    match &mut request {
        serde_json::Value::Array(items) => items.iter_mut().for_each(&mut key_one),
        item => key_one(item),
    }
    Bytes::from(request.to_string())
}

/// Sends a JSON-RPC request to the node writing `workspace`, waiting (bounded) while the
/// workspace changes hands. Sending again is safe: every command in it has an idempotency key.
pub async fn forward(app: &App, workspace: &str, headers: &HeaderMap, request: serde_json::Value) -> Forwarded {
    let Some(pg) = app.cluster() else { return Forwarded::Local };
    let body = keyed(request, &pg.node, &app.forwarded);
    // A writer that is alive answers in milliseconds; one that does not answer within a lease
    // is stopped or dead (its lease runs out meanwhile).
    let wait = pg.lease.max(Duration::from_secs(1));
    let deadline = tokio::time::Instant::now() + patience(pg.lease);
    let mut last = String::from("no node writes the workspace");
    while tokio::time::Instant::now() < deadline {
        if app.workspace(workspace).is_some() {
            return Forwarded::Local;
        }
        match pg.owner(workspace).await {
            Ok(Some((node, Some(url), true))) if node != pg.node => {
                match tokio::time::timeout(wait, post(&url, workspace, headers, body.clone(), &pg.node)).await {
                    Ok(Ok(resp)) if resp.headers().get(NOT_WRITER).is_none() => return Forwarded::Answer(resp),
                    Ok(Ok(_)) => last = format!("node {node} does not write the workspace any more"),
                    Ok(Err(e)) => last = format!("node {node} ({url}) does not answer: {e}"),
                    Err(_) => last = format!("node {node} ({url}) did not answer in {} ms", wait.as_millis()),
                }
            }
            Ok(Some((node, _, live))) if node == pg.node && live => last = "this node is opening the workspace".into(),
            Ok(Some((node, None, _))) => last = format!("node {node} has not said where it is"),
            Ok(Some((node, _, _))) => last = format!("the lease of node {node} ran out; waiting for a new writer"),
            Ok(None) => last = "the workspace has no lease".into(),
            Err(e) => last = e,
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let mut e = baton_core::CallError::new(
        baton_core::ErrorCode::StorageFailed,
        format!("no node could run this command in time ({last}); retry with the same idempotency_key"),
    );
    e.data = Some(serde_json::json!({"retry": true}));
    Forwarded::Answer(super::wire::refusal(StatusCode::SERVICE_UNAVAILABLE, &e))
}

/// The answer of a node asked to run a forwarded command for a workspace it does not write.
pub fn not_writer(workspace: &str) -> Response {
    let body = format!("this node does not write workspace '{workspace}'");
    (StatusCode::MISDIRECTED_REQUEST, [(NOT_WRITER, "1")], body).into_response()
}

/// The client forwarded requests go through: connections to the other nodes are kept and
/// reused (a fresh TCP connection per forwarded command costs more than the command).
fn client(
) -> &'static hyper_util::client::legacy::Client<hyper_util::client::legacy::connect::HttpConnector, Full<Bytes>> {
    static CLIENT: std::sync::OnceLock<
        hyper_util::client::legacy::Client<hyper_util::client::legacy::connect::HttpConnector, Full<Bytes>>,
    > = std::sync::OnceLock::new();
    CLIENT.get_or_init(|| {
        let mut http = hyper_util::client::legacy::connect::HttpConnector::new();
        http.set_nodelay(true);
        http.set_connect_timeout(Some(Duration::from_secs(2)));
        hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
            .pool_idle_timeout(Duration::from_secs(30))
            .build(http)
    })
}

async fn post(url: &str, workspace: &str, headers: &HeaderMap, body: Bytes, me: &str) -> Result<Response, String> {
    let uri: hyper::Uri =
        format!("{}/w/{workspace}/rpc", url.trim_end_matches('/')).parse().map_err(|e| format!("{e}"))?;
    let mut req = hyper::Request::post(uri).header(FORWARDED, me);
    for name in ["authorization", "content-type", "a2a-version"] {
        if let Some(v) = headers.get(name) {
            req = req.header(name, v);
        }
    }
    let req = req.body(Full::new(body)).map_err(|e| e.to_string())?;
    let resp = client().request(req).await.map_err(|e| e.to_string())?;
    let (parts, body) = resp.into_parts();
    let bytes = body.collect().await.map_err(|e| e.to_string())?.to_bytes();
    let mut out = (parts.status, bytes).into_response();
    for (k, v) in parts.headers.iter() {
        if k == "content-type" || k == NOT_WRITER {
            out.headers_mut().insert(k.clone(), v.clone());
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    #[test]
    fn forwarded_commands_get_a_key_of_their_own_and_keep_the_clients() {
        let batch = json!([
            {"jsonrpc": "2.0", "id": 1, "method": "call", "params": {"tool": "handoff", "args": {}}},
            {"jsonrpc": "2.0", "id": 2, "method": "host", "params": {"input": "tick", "idempotency_key": "mine"}},
            {"jsonrpc": "2.0", "id": 3, "method": "log", "params": {}}
        ]);
        let next = std::sync::atomic::AtomicU64::new(0);
        let out: Value = serde_json::from_slice(&keyed(batch, "n_1", &next)).unwrap();
        let key = out[0]["params"]["idempotency_key"].as_str().unwrap();
        assert!(key.starts_with("fwd:n_1:"), "{key}");
        assert_eq!(out[1]["params"]["idempotency_key"], "mine");
        assert!(out[2]["params"].get("idempotency_key").is_none(), "reads are not keyed");
        let again: Value =
            serde_json::from_slice(&keyed(json!({"method": "call", "params": {}}), "n_1", &next)).unwrap();
        assert_ne!(again["params"]["idempotency_key"].as_str().unwrap(), key, "every command its own key");
    }
}
