//! Every row of every lifecycle table (handoff, relay thread, sibling session, leg, schedule,
//! question) is exercised by the conformance scenarios: each row names a transition that some
//! script takes. Built with the core's `row-coverage` feature, which records the rows taken.
//!
//! The legacy `timeout` rows are taken from a log written the old way (a script cannot make a
//! `timeout` handoff).
use baton_core::lifecycle_coverage::taken;
use baton_core::scenario::run;
use baton_core::surface::lifecycle_rows;
use baton_core::{Caller, Engine, LogRecord, MemoryStorage, SeededIds, Timestamp};
use serde_json::json;
use std::path::PathBuf;

const T0: u64 = 1_767_600_000_000;

/// Handoffs stored with the legacy status `timeout` (S4) — a script cannot make one, old logs
/// have them — taken through every edge out of it: activity, a report, an unwaited answer,
/// cancel, a child error, a missing child, an exhausted callback.
fn legacy_timeout_edges() {
    let lead = Caller::new("chat_main", "lead");
    let mut e = Engine::open(MemoryStorage::new(), Box::new(SeededIds::new(11))).unwrap();
    let mut now = T0;
    let mut t = |step: u64| {
        now += step;
        Timestamp(now)
    };
    let t0 = t(0);
    e.host("register_agent", json!({"bot_id": "lead"}), t0).unwrap();
    e.host("register_agent", json!({"bot_id": "adam", "tools": ["project_manager_tools", "web_search"]}), t0).unwrap();
    e.host("open_thread", json!({"thread_id": "chat_main", "bot_id": "lead"}), t0).unwrap();
    let mut made = Vec::new();
    for k in 0..7 {
        let mut args =
            json!({"task": format!("Legacy {k}"), "target_bot": "adam", "async_mode": false, "timeout_seconds": 60});
        if k == 2 {
            args["on_completion"] = json!("return");
        }
        if k == 6 {
            args["callback_url"] = json!("https://hooks.example.com/done");
        }
        let v = e.call_value("handoff", args, &lead, t(1_000)).unwrap();
        made.push((v["handoff_id"].as_str().unwrap().to_string(), v["thread_id"].as_str().unwrap().to_string()));
    }
    e.tick(t(120_000)).unwrap();
    // The same log as an old build wrote it: `timeout` where this build writes `watch_expired`.
    let lines: Vec<String> =
        e.storage().records().iter().map(|r| r.to_json_line().replace("\"watch_expired\"", "\"timeout\"")).collect();
    let records =
        lines.iter().enumerate().map(|(i, l)| LogRecord::from_json_line(l, i)).collect::<Result<Vec<_>, _>>().unwrap();
    let mut e = Engine::open(MemoryStorage::from_records(records), Box::new(SeededIds::new(11))).unwrap();
    for (id, _) in &made {
        assert_eq!(e.state().handoffs[id.as_str()].status.as_str(), "timeout", "{id} reads back as legacy timeout");
    }
    let child = |k: usize| made[k].1.clone();
    let adam = |k: usize| Caller::new(&made[k].1, "adam");
    // 0: activity keeps `timeout`; 1: a report completes it; 2: an answer nobody waits for.
    e.host("tool_call", json!({"thread_id": child(0), "tool": "web_search"}), t(1_000)).unwrap();
    let report = json!({"action": "SEND_MESSAGE", "to_thread_id": "chat_main", "to_bot_id": "lead", "body": "Done."});
    e.call_value("mailbox_action", report, &adam(1), t(1_000)).unwrap();
    e.host("response", json!({"thread_id": child(2), "text": "Done: no risks."}), t(1_000)).unwrap();
    // 3: cancel; 4: the child fails; 5: the child is gone; 6: the callback fails five times.
    e.call_value("handoff_cancel", json!({"handoff_id": made[3].0}), &lead, t(1_000)).unwrap();
    e.host("child_error", json!({"thread_id": child(4), "error": "crashed"}), t(1_000)).unwrap();
    e.host("delete_thread", json!({"thread_id": child(5)}), t(1_000)).unwrap();
    e.call_value("handoff_status", json!({"handoff_id": made[5].0}), &lead, t(1_000)).unwrap();
    for _ in 0..5 {
        e.host("callback_result", json!({"handoff_id": made[6].0, "ok": false, "error": "HTTP 503"}), t(1_000))
            .unwrap();
    }
    let status = |k: usize| e.state().handoffs[made[k].0.as_str()].status.as_str();
    let got: Vec<&str> = (0..7).map(status).collect();
    assert_eq!(got, ["timeout", "completed", "expired_unnotified", "cancelled", "error", "abandoned", "undeliverable"]);
}

#[test]
fn every_row_of_every_lifecycle_is_exercised_by_a_scenario() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/scenarios")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    for f in &files {
        run(&std::fs::read_to_string(f).expect("script"));
    }
    legacy_timeout_edges();
    let hit = taken();
    let rows = lifecycle_rows();
    assert!(rows.len() > 50, "{} rows", rows.len());
    let missing: Vec<String> = rows
        .iter()
        .filter(|(name, i, _)| !hit.contains(&(*name, *i)))
        .map(|(name, _, row)| format!("{name}: {row}"))
        .collect();
    assert!(missing.is_empty(), "{} of {} rows no scenario takes:\n{}", missing.len(), rows.len(), missing.join("\n"));
}
