//! Property tests: `call` survives any input; random valid operation sequences keep the
//! invariants (terminal never moves, no mailbox message lost, reload = identical state).
use baton_core::{Caller, Engine, LogRecord, MemoryStorage, SeededIds, Status, Timestamp, MINUTE};
use proptest::prelude::*;
use serde_json::{json, Value};
use std::collections::HashMap;

const T0: u64 = 1_767_600_000_000;

fn base() -> Engine {
    let mut e = Engine::open(MemoryStorage::new(), Box::new(SeededIds::new(11))).unwrap();
    let t = Timestamp(T0);
    for (id, name) in [("lead", "Lead"), ("adam", "Adam"), ("eve", "Eve")] {
        e.host(
            "register_agent",
            json!({"bot_id": id, "display_name": name, "tools": ["project_manager_tools", "web_search"]}),
            t,
        )
        .unwrap();
    }
    e.host("open_thread", json!({"thread_id": "chat_main", "bot_id": "lead", "owner": {"user_id": "u1"}}), t).unwrap();
    let c = Caller::new("chat_main", "lead");
    e.call("handoff", r#"{"task": "seed work", "target_bot": "adam"}"#, &c, t);
    e.take_effects();
    e
}

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(|f| json!(f)),
        ".{0,40}".prop_map(Value::String),
        prop_oneof![Just("adam"), Just("Adam"), Just("SEND_MESSAGE"), Just("READ_MAIL"), Just("chat_main"), Just("")]
            .prop_map(|s| json!(s)),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec(
                (
                    prop_oneof![
                        Just("task".to_string()),
                        Just("target_bot".to_string()),
                        Just("handoff_id".to_string()),
                        Just("action".to_string()),
                        Just("to_thread_id".to_string()),
                        Just("to_bot_id".to_string()),
                        Just("body".to_string()),
                        Just("limit".to_string()),
                        Just("async_mode".to_string()),
                        Just("timeout_seconds".to_string()),
                        Just("allowed_tools".to_string()),
                        Just("outputs".to_string()),
                        "[a-z_]{1,12}",
                    ],
                    inner
                ),
                0..6
            )
            .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

fn tool_name() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(baton_core::surface::TOOLS.iter().map(|t| t.name.to_string()).collect::<Vec<_>>()),
        ".{0,16}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// Random and malformed input never panics, always answers JSON, and an error changes nothing.
    #[test]
    fn call_survives_any_input(tool in tool_name(), args in arb_json(), raw in ".{0,60}", use_raw in any::<bool>(),
                               thread in prop_oneof![Just("chat_main".to_string()), ".{0,10}"],
                               bot in prop::option::of(prop_oneof![Just("lead".to_string()), Just("adam".to_string())])) {
        let mut e = base();
        let before = e.state().clone();
        let log_len = e.storage().records().len();
        let caller = Caller { thread: Some(thread.into()), bot, handle: None };
        let text = if use_raw { raw } else { args.to_string() };
        let out = e.call(&tool, &text, &caller, Timestamp(T0 + 1000));
        let v: Value = serde_json::from_str(&out).expect("call answers JSON");
        if let Some(err) = v.get("error") {
            prop_assert!(err["code"].is_i64());
            prop_assert!(err["message"].as_str().is_some_and(|m| !m.is_empty()));
            prop_assert_eq!(e.state(), &before);
            prop_assert_eq!(e.storage().records().len(), log_len);
        }
    }

    /// Host inputs with random arguments never panic either.
    #[test]
    fn host_inputs_survive_any_input(i in 0..baton_core::HOST_INPUTS.len(), args in arb_json()) {
        let mut e = base();
        let before = e.state().clone();
        if e.host(baton_core::HOST_INPUTS[i].name, args, Timestamp(T0 + 1000)).is_err() {
            prop_assert_eq!(e.state(), &before);
        }
    }
}

#[derive(Clone, Debug)]
enum Op {
    Spawn { target: u8, sync: bool, blueprint: bool, on_completion: u8 },
    ToolCall(u8),
    TurnStart(u8),
    TurnEnd(u8),
    Respond(u8),
    Report(u8),
    FollowUp(u8),
    Cancel(u8),
    Status(u8),
    Results(u8),
    List,
    BlueprintEnd(u8),
    ChildError(u8),
    Delete(u8),
    Callback(u8, bool),
    MailToParent(u8),
    ReadMail,
    Advance(u16),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0u8..3, any::<bool>(), any::<bool>(), 0u8..3)
            .prop_map(|(target, sync, blueprint, on_completion)| Op::Spawn { target, sync, blueprint, on_completion }),
        2 => any::<u8>().prop_map(Op::ToolCall),
        2 => any::<u8>().prop_map(Op::TurnStart),
        2 => any::<u8>().prop_map(Op::TurnEnd),
        2 => any::<u8>().prop_map(Op::Respond),
        2 => any::<u8>().prop_map(Op::Report),
        1 => any::<u8>().prop_map(Op::FollowUp),
        1 => any::<u8>().prop_map(Op::Cancel),
        1 => any::<u8>().prop_map(Op::Status),
        1 => any::<u8>().prop_map(Op::Results),
        1 => Just(Op::List),
        1 => any::<u8>().prop_map(Op::BlueprintEnd),
        1 => any::<u8>().prop_map(Op::ChildError),
        1 => any::<u8>().prop_map(Op::Delete),
        1 => (any::<u8>(), any::<bool>()).prop_map(|(i, ok)| Op::Callback(i, ok)),
        2 => any::<u8>().prop_map(Op::MailToParent),
        1 => Just(Op::ReadMail),
        2 => (1u16..600).prop_map(Op::Advance),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn random_operation_sequences_keep_the_invariants(ops in prop::collection::vec(op(), 1..80)) {
        let mut e = base();
        let lead = Caller::new("chat_main", "lead");
        let mut now = T0 + 1000;
        // handoff id -> child thread id
        let mut handoffs: Vec<(String, Option<String>)> = Vec::new();
        let mut terminal: HashMap<baton_core::HandoffId, Status> = HashMap::new();
        let mut sent: HashMap<String, String> = HashMap::new();
        let pick = |v: &Vec<(String, Option<String>)>, i: u8| -> Option<(String, Option<String>)> {
            if v.is_empty() { None } else { Some(v[i as usize % v.len()].clone()) }
        };
        for op in ops {
            now += 1000;
            let t = Timestamp(now);
            match op {
                Op::Spawn { target, sync, blueprint, on_completion } => {
                    let target_bot = ["adam", "Eve", "lead"][target as usize];
                    let completion = ["notify", "return", "none"][on_completion as usize];
                    let mut args = json!({"task": "work", "target_bot": target_bot, "on_completion": completion});
                    if sync { args["async_mode"] = json!(false); args["timeout_seconds"] = json!(120); }
                    if sync && on_completion == 1 { args["callback_url"] = json!("https://hooks.example/x"); }
                    if blueprint { args["blueprint_name"] = json!("bp"); }
                    let v: Value = serde_json::from_str(&e.call("handoff", &args.to_string(), &lead, t)).unwrap();
                    if let Some(h) = v["handoff_id"].as_str() {
                        handoffs.push((h.to_string(), v["thread_id"].as_str().map(str::to_string)));
                    }
                }
                Op::ToolCall(i) | Op::TurnStart(i) | Op::TurnEnd(i) | Op::Respond(i) | Op::BlueprintEnd(i) | Op::ChildError(i) | Op::Delete(i) => {
                    if let Some((_, Some(c))) = pick(&handoffs, i) {
                        let (name, args) = match op {
                            Op::ToolCall(_) => ("tool_call", json!({"thread_id": c, "tool": "web_search"})),
                            Op::TurnStart(_) => ("turn_started", json!({"thread_id": c})),
                            Op::TurnEnd(_) => ("turn_ended", json!({"thread_id": c})),
                            Op::Respond(_) => ("response", json!({"thread_id": c, "text": "🧰 Using tool: x\nanswer"})),
                            Op::BlueprintEnd(_) => ("blueprint_event", json!({"thread_id": c, "event": "end"})),
                            Op::ChildError(_) => ("child_error", json!({"thread_id": c, "error": "boom"})),
                            _ => ("delete_thread", json!({"thread_id": c})),
                        };
                        let _ = e.host(name, args, t);
                    }
                }
                Op::Report(i) | Op::MailToParent(i) => {
                    if let Some((_, Some(c))) = pick(&handoffs, i) {
                        let bot = e.state().threads.get(c.as_str()).map(|th| th.bot_id.clone()).unwrap_or_default();
                        let body = format!("report {now}");
                        let args = json!({"action": "SEND_MESSAGE", "to_thread_id": "chat_main", "to_bot_id": "lead", "body": body});
                        let v: Value = serde_json::from_str(&e.call("mailbox_action", &args.to_string(), &Caller::new(&c, &bot), t)).unwrap();
                        if let Some(m) = v["message_id"].as_str() { sent.insert(m.to_string(), body); }
                    }
                }
                Op::FollowUp(i) | Op::Cancel(i) | Op::Status(i) | Op::Results(i) => {
                    if let Some((h, _)) = pick(&handoffs, i) {
                        let (tool, args) = match op {
                            Op::FollowUp(_) => ("handoff_send", json!({"handoff_id": h, "message": "more"})),
                            Op::Cancel(_) => ("handoff_cancel", json!({"handoff_id": h})),
                            Op::Status(_) => ("handoff_status", json!({"handoff_id": h})),
                            _ => ("handoff_results", json!({"handoff_id": h})),
                        };
                        e.call(tool, &args.to_string(), &lead, t);
                    }
                }
                Op::Callback(i, ok) => {
                    if let Some((h, _)) = pick(&handoffs, i) { let _ = e.host("callback_result", json!({"handoff_id": h, "ok": ok}), t); }
                }
                Op::List => { e.call("handoff_list", "{}", &lead, t); }
                Op::ReadMail => { e.call("mailbox_action", r#"{"action": "READ_MAIL"}"#, &lead, t); }
                Op::Advance(minutes) => {
                    let until = now + minutes as u64 * MINUTE;
                    while let Some(d) = e.next_deadline().filter(|d| d.0 <= until) {
                        e.tick(Timestamp(d.0.max(now))).unwrap();
                        now = d.0.max(now);
                    }
                    now = until;
                }
            }
            e.take_effects();
            // Terminal never moves.
            for (id, h) in &e.state().handoffs {
                if let Some(was) = terminal.get(id) {
                    prop_assert_eq!(*was, h.status, "terminal handoff {} moved", id);
                }
                if h.status.is_terminal() { terminal.insert(id.clone(), h.status); }
            }
            // No mailbox message lost: every accepted message is still there, body intact.
            for (id, body) in &sent {
                let m = e.state().messages.get(id.as_str());
                prop_assert!(m.is_some_and(|m| &m.body == body), "message {} lost", id);
            }
        }
        // Reload = identical state, through the stored JSON form.
        let records: Vec<LogRecord> = e.storage().records().iter()
            .enumerate()
            .map(|(i, r)| LogRecord::from_json_line(&r.to_json_line(), i).unwrap())
            .collect();
        let reloaded = Engine::open(MemoryStorage::from_records(records.clone()), Box::new(SeededIds::new(11))).unwrap();
        prop_assert_eq!(reloaded.state(), e.state());
        prop_assert_eq!(reloaded.next_deadline(), e.next_deadline());
        // Snapshot path = replay path: a snapshot after the first half of the records, through
        // its stored lines, plus the records after it.
        let k = records.len() / 2;
        let head = Engine::open(MemoryStorage::from_records(records[..k].to_vec()), Box::new(SeededIds::new(11))).unwrap();
        let lines: Vec<String> = head.snapshot().to_lines().collect();
        let snapshot = baton_core::Snapshot::from_lines(lines.iter().map(String::as_str)).unwrap();
        let storage = MemoryStorage::from_snapshot(Some(snapshot), records[k..].to_vec());
        let opened = Engine::open(storage, Box::new(SeededIds::new(11))).unwrap();
        prop_assert_eq!(opened.state(), e.state());
        prop_assert_eq!(opened.next_deadline(), e.next_deadline());
    }
}
