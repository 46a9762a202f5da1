//! Bench script: the slowest cycles while a workspace grows (issue 26 items 1 and 5). Runs N
//! delegation cycles in one engine — the cycle `baton serve`'s open-loop clients send: a new
//! parent thread, `handoff`, the child's tool call, response and report, the parent's turn
//! end, through the JSON entry points — and times each. A median says what a cycle costs; the
//! slowest say what a client waits for when a map of the state grows (a hash table moves all
//! its entries at once when it grows). No storage (`NoStorage`): the engine's own work.
//! Prints one BENCH line: the median, the 99.9th percentile, and the five slowest cycles
//! (index: µs). Run: `cargo bench -p baton-core --bench growth` (N: `BATON_BENCH_GROWTH`,
//! default 300,000).
#![allow(clippy::disallowed_methods)]

use baton_core::{Caller, Engine, NoStorage, SeededIds, Timestamp};
use serde_json::json;
use std::time::Instant;

const T0: u64 = 1_767_600_000_000;

fn main() {
    let n: usize = std::env::var("BATON_BENCH_GROWTH").ok().and_then(|v| v.parse().ok()).unwrap_or(300_000);
    let mut e = Engine::open(NoStorage, Box::new(SeededIds::new(5))).expect("an empty engine");
    let t = Timestamp(T0);
    e.host("register_agent", json!({"bot_id": "lead"}), t).unwrap();
    e.host("register_agent", json!({"bot_id": "adam", "tools": ["project_manager_tools", "web_search"]}), t).unwrap();
    let mut us = Vec::with_capacity(n);
    for i in 0..n {
        // 5 ms apart, as at 200 cycles a second.
        let t = Timestamp(T0 + i as u64 * 5);
        let start = Instant::now();
        let parent = format!("chat_p{i}");
        let lead = Caller::new(&parent, "lead");
        e.host("open_thread", json!({"thread_id": parent, "bot_id": "lead"}), t).unwrap();
        let h = e.call_value("handoff", json!({"task": "Review the model", "target_bot": "adam"}), &lead, t).unwrap();
        let child = h["thread_id"].as_str().expect("the child's thread").to_string();
        e.host("tool_call", json!({"thread_id": child, "tool": "web_search"}), t).unwrap();
        e.host("response", json!({"thread_id": child, "text": "Two risks remain."}), t).unwrap();
        let report = json!({"action": "SEND_MESSAGE", "to_thread_id": parent, "to_bot_id": "lead", "body": "Done."});
        e.call_value("mailbox_action", report, &Caller::new(&child, "adam"), t).unwrap();
        e.host("turn_ended", json!({"thread_id": parent}), t).unwrap();
        e.take_effects();
        us.push((start.elapsed().as_secs_f64() * 1e6, i));
    }
    let mut sorted: Vec<f64> = us.iter().map(|(t, _)| *t).collect();
    sorted.sort_by(f64::total_cmp);
    let at = |q: f64| sorted[((q * n as f64) as usize).min(n - 1)];
    us.sort_by(|a, b| b.0.total_cmp(&a.0));
    let slowest: Vec<String> = us.iter().take(5).map(|(t, i)| format!("{i}:{t:.0}")).collect();
    println!(
        "BENCH growth cycles={n} median_us={:.1} p999_us={:.1} max_us={:.0} slowest={}",
        at(0.5),
        at(0.999),
        sorted[n - 1],
        slowest.join(",")
    );
}
