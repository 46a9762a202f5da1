//! The router in process (`tower::ServiceExt::oneshot`, no socket): the JSON-RPC envelope and
//! batches, refusals before a workspace is reached, what each key may do, and placement for a
//! protocol that is served by the workspace's writer (A2A, MCP).
use super::{open, parse_args, router};
use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::Router;
use serde_json::{json, Value};
use tower::ServiceExt;

const ADMIN: &str = "in-process-admin-key";

/// A server over a fresh SQLite file, as its router.
async fn server() -> (Router, std::path::PathBuf) {
    server_with(&[]).await
}

/// A server over a fresh SQLite file with more options, as its router, and its directory.
async fn server_with(extra: &[&str]) -> (Router, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("baton-router-{:x}", super::clock::random_seed()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("baton.db");
    let mut args = vec!["--db".to_string(), db.display().to_string()];
    args.extend(extra.iter().map(|a| a.to_string()));
    let opts = parse_args(&args).unwrap();
    let (app, _stop) = open(&opts, ADMIN.into()).await.unwrap();
    (router(app, &opts), dir)
}

/// Sends `body` to `path` with `key`; the status and the JSON answer (`Null` when empty or not JSON).
async fn post(r: &Router, path: &str, key: Option<&str>, body: impl Into<Body>) -> (StatusCode, Value) {
    let mut req = Request::post(path).header("content-type", "application/json");
    if let Some(k) = key {
        req = req.header("authorization", format!("Bearer {k}"));
    }
    let resp = r.clone().oneshot(req.body(body.into()).unwrap()).await.unwrap();
    let status = resp.status();
    let bytes = axum::body::to_bytes(resp.into_body(), 1 << 20).await.unwrap();
    (status, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
}

async fn rpc(r: &Router, key: Option<&str>, body: Value) -> (StatusCode, Value) {
    post(r, "/w/demo/rpc", key, body.to_string()).await
}

#[tokio::test]
async fn the_envelope_batches_and_refusals_in_process() {
    let (r, dir) = server().await;
    let health = r.clone().oneshot(Request::get("/healthz").body(Body::empty()).unwrap()).await.unwrap();
    assert_eq!(health.status(), StatusCode::OK);

    // No key: 401 with a JSON-RPC error naming its code; nothing is made.
    let (status, body) = rpc(&r, None, json!({"jsonrpc": "2.0", "id": 1, "method": "create_workspace"})).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(body["error"]["data"]["name"], "forbidden", "{body}");
    // An unknown workspace, even for the admin: not found until it is made.
    let (_, body) = rpc(&r, Some(ADMIN), json!({"jsonrpc": "2.0", "id": 1, "method": "log", "params": {}})).await;
    assert_eq!(body["error"]["data"]["name"], "not_found", "{body}");

    let (status, made) = rpc(&r, Some(ADMIN), json!({"jsonrpc": "2.0", "id": 1, "method": "create_workspace"})).await;
    assert_eq!(status, StatusCode::OK);
    assert!(made.get("result").is_some(), "{made}");

    // Not JSON: -32700, and an empty batch: -32600.
    let (_, body) = post(&r, "/w/demo/rpc", Some(ADMIN), "{not json").await;
    assert_eq!(body["error"]["code"], -32700, "{body}");
    let (_, body) = rpc(&r, Some(ADMIN), json!([])).await;
    assert_eq!(body["error"]["code"], -32600, "{body}");
    let (_, body) = rpc(&r, Some(ADMIN), json!({"jsonrpc": "2.0", "id": 7, "method": "no_such_method"})).await;
    assert_eq!((body["id"].clone(), body["error"]["code"].clone()), (json!(7), json!(-32601)), "{body}");

    // A batch: each item answered, in order, by id; a bad item is refused alone.
    let batch = json!([
        {"jsonrpc": "2.0", "id": 1, "method": "host", "params": {"input": "register_agent", "args": {"bot_id": "lead"}}},
        {"jsonrpc": "2.0", "id": 2, "method": "host", "params": {"input": "no_such_input", "args": {}}},
        {"jsonrpc": "2.0", "id": 3, "method": "log", "params": {"after": 0, "limit": 10}}
    ]);
    let (status, body) = rpc(&r, Some(ADMIN), batch).await;
    assert_eq!(status, StatusCode::OK);
    let items = body.as_array().unwrap_or_else(|| panic!("a batch answers an array: {body}"));
    assert_eq!(items.iter().map(|i| i["id"].clone()).collect::<Vec<_>>(), vec![json!(1), json!(2), json!(3)]);
    assert!(items[0].get("result").is_some(), "{}", items[0]);
    assert!(items[1].get("error").is_some(), "{}", items[1]);
    let records = items[2]["result"]["records"].as_array().unwrap();
    assert_eq!(records.len(), 1, "only the registration was written: {}", items[2]);

    // A bot's key may not make workspaces or keys.
    let (_, key) = rpc(
        &r,
        Some(ADMIN),
        json!({"jsonrpc": "2.0", "id": 1, "method": "create_key", "params": {"principal": "bot:lead"}}),
    )
    .await;
    let bot = key["result"]["key"].as_str().unwrap_or_else(|| panic!("a key: {key}")).to_string();
    let (_, body) = rpc(
        &r,
        Some(&bot),
        json!({"jsonrpc": "2.0", "id": 1, "method": "create_key", "params": {"principal": "host"}}),
    )
    .await;
    assert_eq!(body["error"]["data"]["name"], "forbidden", "{body}");
    std::fs::remove_dir_all(dir).ok();
}

#[tokio::test]
async fn placement_one_node_a_missing_workspace_is_not_found_on_every_protocol() {
    let (r, dir) = server().await;
    let card = Request::get("/w/nowhere/a2a/agent/.well-known/agent-card.json")
        .header("authorization", format!("Bearer {ADMIN}"))
        .body(Body::empty())
        .unwrap();
    assert_eq!(r.clone().oneshot(card).await.unwrap().status(), StatusCode::NOT_FOUND);
    let a2a = json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "t"}});
    let req = Request::post("/w/nowhere/a2a/agent")
        .header("authorization", format!("Bearer {ADMIN}"))
        .header("a2a-version", "1.0")
        .header("content-type", "application/json")
        .body(Body::from(a2a.to_string()))
        .unwrap();
    assert_eq!(r.clone().oneshot(req).await.unwrap().status(), StatusCode::NOT_FOUND);
    let (status, _) =
        post(&r, "/w/nowhere/mcp", Some(ADMIN), json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string()).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    std::fs::remove_dir_all(dir).ok();
}

#[tokio::test]
async fn two_servers_in_one_process_keep_their_own_settings() {
    // Options are the server's, not the process's: one stores a snapshot every 2 records, the
    // other at its default (10,000), side by side.
    let (often, often_dir) = server_with(&["--snapshot-every", "2"]).await;
    let (rarely, rarely_dir) = server().await;
    for r in [&often, &rarely] {
        rpc(r, Some(ADMIN), json!({"jsonrpc": "2.0", "id": 1, "method": "create_workspace"})).await;
        for bot in ["a", "b", "c", "d"] {
            let input = json!({"input": "register_agent", "args": {"bot_id": bot}});
            let (_, body) =
                rpc(r, Some(ADMIN), json!({"jsonrpc": "2.0", "id": 1, "method": "host", "params": input})).await;
            assert!(body.get("result").is_some(), "{body}");
        }
    }
    let snapshots = |dir: &std::path::Path| -> i64 {
        let c = rusqlite::Connection::open(dir.join("baton.db")).unwrap();
        c.query_row("SELECT count(*) FROM snapshots", [], |r| r.get(0)).unwrap()
    };
    // The snapshot is built beside the writer and stored with a later batch: each export is one.
    assert!(
        stored_after_batches(&often, || snapshots(&often_dir) >= 1).await,
        "--snapshot-every 2 stored a snapshot after 4 records"
    );
    assert_eq!(snapshots(&rarely_dir), 0, "the default stores none after 4 records");
    std::fs::remove_dir_all(often_dir).ok();
    std::fs::remove_dir_all(rarely_dir).ok();
}

/// Sends exports (each a batch of the writer's) until `done`, at most 10,000: a snapshot's
/// parts are built on a thread of their own and stored with the batches after it.
async fn stored_after_batches(r: &Router, done: impl Fn() -> bool) -> bool {
    for _ in 0..10_000 {
        if done() {
            return true;
        }
        rpc(r, Some(ADMIN), json!({"jsonrpc": "2.0", "id": 1, "method": "export"})).await;
    }
    done()
}

#[tokio::test]
async fn a_snapshot_is_stored_in_parts_beside_the_writer_and_the_workspace_reopens_from_it() {
    // A state whose snapshot takes several parts: 1,200 agents with long names, in batches.
    let (r, dir) = server_with(&["--snapshot-every", "100"]).await;
    rpc(&r, Some(ADMIN), json!({"jsonrpc": "2.0", "id": 1, "method": "create_workspace"})).await;
    for b in 0..4 {
        let batch: Vec<Value> = (0..300)
            .map(|i| {
                let args = json!({"bot_id": format!("agent-{b}-{i}"), "display_name": format!("{b}-{i} {}", "n".repeat(200))});
                json!({"jsonrpc": "2.0", "id": i, "method": "host", "params": {"input": "register_agent", "args": args}})
            })
            .collect();
        let (_, answers) = post(&r, "/w/demo/rpc", Some(ADMIN), Value::Array(batch).to_string()).await;
        assert!(answers.as_array().unwrap().iter().all(|a| a.get("result").is_some()), "{answers}");
    }
    let db = dir.join("baton.db");
    let stored = || -> (i64, i64) {
        let c = rusqlite::Connection::open(&db).unwrap();
        let seq = c.query_row("SELECT coalesce(max(seq), 0) FROM snapshots", [], |r| r.get(0)).unwrap();
        let parts = c.query_row("SELECT count(*) FROM snapshot_parts WHERE seq = ?1", [seq], |r| r.get(0)).unwrap();
        (seq, parts)
    };
    assert!(stored_after_batches(&r, || stored().0 >= 900).await, "a snapshot after 900 records: {:?}", stored());
    let (seq, parts) = stored();
    assert!(parts > 1, "the snapshot at record {seq} is stored in {parts} parts");
    // A second server on the same file opens the workspace from that snapshot and the records
    // after it: the same state as the first one's.
    let (_, live) = rpc(&r, Some(ADMIN), json!({"jsonrpc": "2.0", "id": 1, "method": "export"})).await;
    let (again, _) = {
        let mut args = vec!["--db".to_string(), db.display().to_string()];
        args.extend(["--snapshot-every", "100"].map(String::from));
        let opts = parse_args(&args).unwrap();
        let (app, stop) = open(&opts, ADMIN.into()).await.unwrap();
        (router(app, &opts), stop)
    };
    let (_, reopened) = rpc(&again, Some(ADMIN), json!({"jsonrpc": "2.0", "id": 1, "method": "export"})).await;
    assert!(live["result"].is_string(), "{live}");
    assert_eq!(reopened["result"], live["result"]);
    std::fs::remove_dir_all(dir).ok();
}

#[tokio::test]
async fn every_json_rpc_method_is_dispatched_and_documented() {
    let (r, dir) = server().await;
    rpc(&r, Some(ADMIN), json!({"jsonrpc": "2.0", "id": 1, "method": "create_workspace"})).await;
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md")).unwrap();
    let named = |text: &str, m: &str| {
        text.match_indices(m).any(|(i, _)| {
            let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
            !word(text[..i].chars().next_back()) && !word(text[i + m.len()..].chars().next())
        })
    };
    for m in super::jsonrpc::METHODS {
        // Params that no method takes: each answers (an error of its own at most), never
        // "no such method".
        let (_, body) =
            rpc(&r, Some(ADMIN), json!({"jsonrpc": "2.0", "id": 1, "method": m, "params": {"no_such_param": 1}})).await;
        assert_ne!(body["error"]["code"], -32601, "{m} is dispatched: {body}");
        assert!(named(super::USAGE, m), "--help names the JSON-RPC method {m}");
        assert!(named(&readme, m), "the README names the JSON-RPC method {m}");
    }
    let (_, body) = rpc(&r, Some(ADMIN), json!({"jsonrpc": "2.0", "id": 1, "method": "logs"})).await;
    assert_eq!(body["error"]["code"], -32601, "a method not in the table is not found: {body}");
    std::fs::remove_dir_all(dir).ok();
}

#[tokio::test]
async fn every_a2a_method_is_dispatched_and_documented() {
    let (r, dir) = server().await;
    rpc(&r, Some(ADMIN), json!({"jsonrpc": "2.0", "id": 1, "method": "create_workspace"})).await;
    let agent = json!({"input": "register_agent", "args": {"bot_id": "worker"}});
    rpc(&r, Some(ADMIN), json!({"jsonrpc": "2.0", "id": 1, "method": "host", "params": agent})).await;
    let a2a = |method: &str| {
        Request::post("/w/demo/a2a/worker")
            .header("authorization", format!("Bearer {ADMIN}"))
            .header("a2a-version", "1.0")
            .header("content-type", "application/json")
            .body(Body::from(json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": {}}).to_string()))
            .unwrap()
    };
    let code_of = |v: &Value| v["error"]["code"].clone();
    for m in super::a2a::ops::METHODS {
        let resp = r.clone().oneshot(a2a(m)).await.unwrap();
        let bytes = axum::body::to_bytes(resp.into_body(), 1 << 20).await.unwrap();
        let body: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        assert_ne!(code_of(&body), json!(-32601), "{m} is dispatched: {body}");
        assert!(super::USAGE.contains(m), "--help names the A2A method {m}");
    }
    let resp = r.clone().oneshot(a2a("GetTasks")).await.unwrap();
    let bytes = axum::body::to_bytes(resp.into_body(), 1 << 20).await.unwrap();
    let body: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(code_of(&body), json!(-32601), "a method not in the table is not found: {body}");
    std::fs::remove_dir_all(dir).ok();
}

/// The requests to the RPC endpoint counted in `baton_requests_total`, refused ones too (the
/// key is read by the `Authed` extractor before the handler runs).
#[tokio::test]
async fn rpc_requests_are_counted_refused_or_not() {
    let (r, dir) = server().await;
    let count = |r: Router| async move {
        let resp = r.oneshot(Request::get("/metrics").body(Body::empty()).unwrap()).await.unwrap();
        let text = String::from_utf8(axum::body::to_bytes(resp.into_body(), 1 << 20).await.unwrap().to_vec()).unwrap();
        let line = text.lines().find(|l| l.starts_with("baton_requests_total ")).expect("the counter").to_string();
        line["baton_requests_total ".len()..].parse::<u64>().unwrap()
    };
    let before = count(r.clone()).await;
    let (status, _) = rpc(&r, None, json!({"jsonrpc": "2.0", "id": 1, "method": "log", "params": {}})).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (_, made) = rpc(&r, Some(ADMIN), json!({"jsonrpc": "2.0", "id": 1, "method": "create_workspace"})).await;
    assert!(made["result"].is_object(), "{made}");
    assert_eq!(count(r.clone()).await, before + 2);
    let _ = std::fs::remove_dir_all(dir);
}
