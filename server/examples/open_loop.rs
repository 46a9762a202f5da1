//! An open-loop client for `baton serve` with no garbage collector of its own (issue 26 item 1:
//! the p99 at a fixed rate). The Node clients of `bench/snapshot-stall.mjs` and the peer
//! bench pause for their own major collections about once a second, and those pauses were
//! the slowest percent of their answers; this client allocates only what Rust frees at once.
//!
//! Starts a delegation cycle every `1/RATE` seconds for `SECONDS` — the peer bench's cycle
//! without the outcome read: `open_thread` and `handoff` in one batch, then the child's tool
//! call and response, its report, and the parent's turn end in a second batch — and times
//! each from when it was due (a cycle queued behind a slow one counts the wait; at most 64 in
//! flight). Makes the workspace named in the URL and its two agents first. One thread, one
//! connection per cycle in flight (kept alive and reused). Prints one BENCH line, and with
//! `--slow` a second one with when the slowest percent were due.
//!
//! Run: `BATON_ADMIN_KEY=K cargo run --release -p baton --example open_loop -- URL RATE SECONDS [--slow]`
//! (URL: `http://127.0.0.1:PORT/w/NAME/rpc`; `bench/open-loop.sh` starts the servers).
#![allow(clippy::disallowed_methods)]

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde_json::{json, Value};
use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

type Http = Client<hyper_util::client::legacy::connect::HttpConnector, Full<Bytes>>;

async fn rpc(http: &Http, url: &str, key: &str, body: &Value) -> Result<Value, String> {
    let req = hyper::Request::post(url)
        .header("content-type", "application/json")
        .header("authorization", format!("Bearer {key}"))
        .body(Full::new(Bytes::from(serde_json::to_vec(body).map_err(|e| e.to_string())?)))
        .map_err(|e| e.to_string())?;
    let res = http.request(req).await.map_err(|e| e.to_string())?;
    let bytes = res.into_body().collect().await.map_err(|e| e.to_string())?.to_bytes();
    let v: Value = serde_json::from_slice(&bytes).map_err(|e| e.to_string())?;
    let error = match &v {
        Value::Array(entries) => entries.iter().find_map(|e| e.get("error")),
        one => one.get("error"),
    };
    if let Some(e) = error {
        return Err(e.to_string());
    }
    Ok(v)
}

fn req(id: usize, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

async fn cycle(http: &Http, url: &str, key: &str, n: usize) -> Result<(), String> {
    let parent = format!("chat_p{n}");
    let made = rpc(
        http,
        url,
        key,
        &json!([
            req(1, "host", json!({"input": "open_thread", "args": {"thread_id": parent, "bot_id": "lead"}})),
            req(
                2,
                "call",
                json!({"tool": "handoff", "args": {"task": "Review the model", "target_bot": "adam"},
                "as": {"thread": parent, "bot": "lead"}})
            ),
        ]),
    )
    .await?;
    let child = made[1]["result"]["thread_id"].as_str().ok_or("the handoff named no thread")?.to_string();
    rpc(
        http,
        url,
        key,
        &json!([
            req(3, "host", json!({"input": "tool_call", "args": {"thread_id": child, "tool": "web_search"}})),
            req(4, "host", json!({"input": "response", "args": {"thread_id": child, "text": "Two risks remain."}})),
            req(
                5,
                "call",
                json!({"tool": "mailbox_action", "args": {"action": "SEND_MESSAGE", "to_thread_id": parent,
                "to_bot_id": "lead", "body": "Done."}, "as": {"thread": child, "bot": "adam"}})
            ),
            req(6, "host", json!({"input": "turn_ended", "args": {"thread_id": parent}})),
        ]),
    )
    .await?;
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(url), Some(rate), Some(seconds)) = (args.first(), args.get(1), args.get(2)) else {
        eprintln!("usage: open_loop URL RATE SECONDS [--slow]");
        std::process::exit(2);
    };
    let rate: f64 = rate.parse().expect("RATE is a number");
    let seconds: f64 = seconds.parse().expect("SECONDS is a number");
    let slow = args.iter().any(|a| a == "--slow");
    let key = std::env::var("BATON_ADMIN_KEY").unwrap_or_else(|_| "bench".into());
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    let local = tokio::task::LocalSet::new();
    local.block_on(&rt, async move {
        let http: Http = Client::builder(TokioExecutor::new()).pool_max_idle_per_host(64).build_http();
        rpc(&http, url, &key, &json!({"jsonrpc": "2.0", "id": 1, "method": "create_workspace"})).await.expect("the workspace");
        rpc(
            &http,
            url,
            &key,
            &json!([
                req(1, "host", json!({"input": "register_agent", "args": {"bot_id": "lead"}})),
                req(2, "host", json!({"input": "register_agent", "args": {"bot_id": "adam",
                    "tools": ["project_manager_tools", "web_search"]}})),
            ]),
        )
        .await
        .expect("the agents");
        let total = (rate * seconds).round() as usize;
        let gap = Duration::from_secs_f64(1.0 / rate);
        let done: Rc<RefCell<Vec<(f64, f64)>>> = Rc::new(RefCell::new(Vec::with_capacity(total)));
        let slots = std::sync::Arc::new(tokio::sync::Semaphore::new(64));
        let t0 = tokio::time::Instant::now();
        let mut runs = Vec::with_capacity(total);
        for i in 0..total {
            let due = t0 + gap * i as u32;
            tokio::time::sleep_until(due).await;
            let permit = slots.clone().acquire_owned().await.expect("open");
            let (http, url, key, done) = (http.clone(), url.clone(), key.clone(), done.clone());
            runs.push(tokio::task::spawn_local(async move {
                let r = cycle(&http, &url, &key, i).await;
                let ms = Instant::now().duration_since(due.into_std()).as_secs_f64() * 1000.0;
                done.borrow_mut().push(((due - t0).as_secs_f64(), ms));
                drop(permit);
                r
            }));
        }
        for r in runs {
            r.await.expect("a cycle task").expect("a cycle");
        }
        let mut all = done.borrow().clone();
        let mut ms: Vec<f64> = all.iter().map(|(_, ms)| *ms).collect();
        ms.sort_by(f64::total_cmp);
        let at = |q: f64| ms[((q * ms.len() as f64) as usize).min(ms.len() - 1)];
        println!(
            "BENCH open_loop client=rust rate={rate} seconds={seconds} cycles={} p50_ms={:.1} p90_ms={:.1} p99_ms={:.1} p999_ms={:.1} max_ms={:.1}",
            ms.len(),
            at(0.5),
            at(0.9),
            at(0.99),
            at(0.999),
            ms[ms.len() - 1]
        );
        if slow {
            let p99 = at(0.99);
            all.retain(|(_, ms)| *ms >= p99);
            all.sort_by(|a, b| a.0.total_cmp(&b.0));
            let list: Vec<String> = all.iter().map(|(s, ms)| format!("{s:.2}:{ms:.0}")).collect();
            println!("BENCH open_loop_slow due_s:ms={}", list.join(","));
        }
    });
}
