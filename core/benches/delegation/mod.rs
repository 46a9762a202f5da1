//! The delegation cycle of the storage bench (and of the Node bench, `bench/node-storage.mjs`),
//! shared by the benches that grow a workspace with it.
use baton_core::{Caller, Engine, Storage, Timestamp};
use serde_json::json;
use std::hint::black_box;

pub struct Cycle<S: Storage> {
    pub e: Engine<S>,
    lead: Caller,
    now: u64,
}

impl<S: Storage> Cycle<S> {
    pub fn new(storage: S) -> Self {
        Cycle { e: super::common::setup(storage), lead: Caller::new("chat_main", "lead"), now: super::common::T0 }
    }

    /// Spawn → tool call → response → report → delivery tick → parent turn end.
    pub fn run(&mut self) {
        self.now += 30_000;
        let t = Timestamp(self.now);
        let e = &mut self.e;
        let out = e.call("handoff", r#"{"task": "Review the model", "target_bot": "adam"}"#, &self.lead, t);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let c = v["thread_id"].as_str().unwrap().to_string();
        e.host("tool_call", json!({"thread_id": c, "tool": "web_search"}), t).unwrap();
        e.host("response", json!({"thread_id": c, "text": "🧰 Using tool: web_search\nTwo risks remain."}), t).unwrap();
        let report = r#"{"action": "SEND_MESSAGE", "to_thread_id": "chat_main", "to_bot_id": "lead", "body": "Done: two risks remain."}"#;
        black_box(e.call("mailbox_action", report, &Caller::new(&c, "adam"), t));
        e.tick(t).unwrap();
        e.host("turn_ended", json!({"thread_id": "chat_main"}), t).unwrap();
        black_box(e.take_effects());
    }
}
