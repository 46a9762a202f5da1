//! Bench (not part of the test command): a command persisted to IndexedDB through the engine
//! against a bare IndexedDB transaction writing the same bytes. Medians of 15 batches of 40.
//! Run: `bash bench/indexeddb.sh`.
#![cfg(target_arch = "wasm32")]

use baton_core::Command;
use baton_core::{Caller, Timestamp};
use baton_wasm::persist::Persistent;
use serde_json::json;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn now_ms() -> f64 {
    js_sys::Date::now()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

#[wasm_bindgen_test]
async fn bench_command_vs_bare_transaction() {
    const BATCHES: usize = 15;
    const PER: usize = 40;
    let _ = baton_wasm::delete_workspace_for_tests("bench-engine").await;
    let _ = baton_wasm::delete_workspace_for_tests("bench-bare").await;
    let p = Persistent::open("bench-engine", 1, baton_core::HOT_RECORDS).await.unwrap();
    let t0 = 1_767_600_000_000u64;
    p.exec(Command::Host { input: "register_agent".into(), args: json!({"bot_id": "lead"}) }, Timestamp(t0))
        .await
        .unwrap();
    p.exec(
        Command::Host { input: "open_thread".into(), args: json!({"thread_id": "chat_main", "bot_id": "lead"}) },
        Timestamp(t0),
    )
    .await
    .unwrap();
    let caller = Caller::new("chat_main", "lead");
    let mut lines = Vec::new();
    let mut engine_ms = Vec::new();
    let mut at = t0;
    for _ in 0..BATCHES {
        let start = now_ms();
        for _ in 0..PER {
            at += 1000;
            // A realistic command: a handoff (thread + handoff records, ~2 KB line).
            p.exec(
                Command::Call {
                    tool: "handoff".into(),
                    args: json!({"task": "Review the generated model and summarize open risks"}),
                    caller: caller.clone(),
                },
                Timestamp(at),
            )
            .await
            .unwrap();
            lines.push(p.last_line().unwrap());
        }
        engine_ms.push((now_ms() - start) / PER as f64);
    }
    // The same bytes through a bare transaction each.
    let bare = Persistent::open("bench-bare", 1, baton_core::HOT_RECORDS).await.unwrap();
    drop(bare);
    let db = baton_wasm::open_db_for_bench("bench-bare").await.unwrap();
    let mut bare_ms = Vec::new();
    let mut seq = 0u64;
    for b in 0..BATCHES {
        let start = now_ms();
        for i in 0..PER {
            seq += 1;
            baton_wasm::add_for_bench(&db, seq, &lines[b * PER + i]).await.unwrap();
        }
        bare_ms.push((now_ms() - start) / PER as f64);
    }
    let (e, r) = (median(engine_ms), median(bare_ms));
    let bytes = lines.iter().map(String::len).sum::<usize>() / lines.len();
    console_log!("BENCH indexeddb: command through the engine {e:.3} ms, bare transaction {r:.3} ms, ratio {:.2}x, {bytes} bytes per record", e / r);
}
