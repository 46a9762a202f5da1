//! The typed API answers exactly as the JSON one (every tool and every host input has a typed
//! method by construction: each table and its methods come from one list), and a cycle
//! run through typed methods leaves the same answers (as JSON), errors and log as the same
//! cycle through `Engine::call_value` and `Engine::host`.
use baton_core::surface::host::{Response, ToolUse};
use baton_core::surface::{HandoffArgs, HandoffIdArgs, HandoffSendArgs};
use baton_core::{CallError, Caller, Engine, MemoryStorage, SeededIds, Timestamp};
use serde_json::{json, Value};

const T0: u64 = 1_767_600_000_000;

fn setup() -> Engine {
    let mut e = Engine::open(MemoryStorage::new(), Box::new(SeededIds::new(3))).unwrap();
    let t = Timestamp(T0);
    e.host("register_agent", json!({"bot_id": "lead", "display_name": "Lead"}), t).unwrap();
    e.host("register_agent", json!({"bot_id": "adam", "display_name": "Adam", "tools": ["web_search"]}), t).unwrap();
    e.host("open_thread", json!({"thread_id": "chat_main", "bot_id": "lead"}), t).unwrap();
    e
}

fn answer<T: serde::Serialize>(r: Result<T, CallError>) -> Value {
    match r {
        Ok(v) => serde_json::to_value(v).unwrap(),
        Err(e) => e.to_json(),
    }
}

#[test]
fn typed_and_json_calls_answer_alike() {
    let lead = Caller::new("chat_main", "lead");
    let (mut typed, mut json) = (setup(), setup());
    let mut now = T0;
    let step = |typed_answer: Value, json_answer: Value| assert_eq!(typed_answer, json_answer);
    for round in 0..3 {
        now += 1_000;
        let t = Timestamp(now);
        let a = answer(
            typed.handoff(
                &lead,
                serde_json::from_value::<HandoffArgs>(
                    json!({"task": format!("Task {round}"), "target_bot": "adam", "async_mode": round != 1}),
                )
                .unwrap(),
                t,
            ),
        );
        let b = answer(json.call_value(
            "handoff",
            json!({"task": format!("Task {round}"), "target_bot": "adam", "async_mode": round != 1}),
            &lead,
            t,
        ));
        step(a.clone(), b);
        let id = a["handoff_id"].as_str().unwrap().to_string();
        let child = a["thread_id"].as_str().unwrap().to_string();
        // Host inputs too: typed methods on one engine, JSON on the other.
        let use_ =
            ToolUse { thread_id: child.as_str().into(), tool: "web_search".into(), arguments: None, result: None };
        step(
            answer(typed.tool_call(use_, t)),
            answer(json.host("tool_call", json!({"thread_id": child, "tool": "web_search"}), t)),
        );
        let said = Response { thread_id: child.as_str().into(), text: "Looking into it.".into() };
        step(
            answer(typed.response(said, t)),
            answer(json.host("response", json!({"thread_id": child, "text": "Looking into it."}), t)),
        );
        let status = |id: &str| serde_json::from_value::<HandoffIdArgs>(json!({"handoff_id": id})).unwrap();
        step(
            answer(typed.handoff_status(&lead, status(&id), t)),
            answer(json.call_value("handoff_status", json!({"handoff_id": id}), &lead, t)),
        );
        let send =
            serde_json::from_value::<HandoffSendArgs>(json!({"handoff_id": id, "message": "Also check the tests."}))
                .unwrap();
        step(
            answer(typed.handoff_send(&lead, send, t)),
            answer(json.call_value(
                "handoff_send",
                json!({"handoff_id": id, "message": "Also check the tests."}),
                &lead,
                t,
            )),
        );
        // Errors too: an unknown handoff, and a caller that is not a thread.
        step(
            answer(typed.handoff_status(&lead, status("handoff_nope"), t)),
            answer(json.call_value("handoff_status", json!({"handoff_id": "handoff_nope"}), &lead, t)),
        );
        let nobody = Caller::new("chat_nope", "lead");
        step(
            answer(typed.handoff_status(&nobody, status(&id), t)),
            answer(json.call_value("handoff_status", json!({"handoff_id": id}), &nobody, t)),
        );
    }
    assert_eq!(typed.state(), json.state());
    let lines = |e: &Engine| e.storage().records().iter().map(|r| r.to_json_line()).collect::<Vec<_>>();
    assert_eq!(lines(&typed), lines(&json));
}

/// `Engine::call` (text in, text out, serialized straight from the result type) answers what
/// `Engine::call_value` answers, command for command.
#[test]
fn text_and_value_entry_points_answer_alike() {
    let lead = Caller::new("chat_main", "lead");
    let (mut text, mut value) = (setup(), setup());
    let mut now = T0;
    let mut ids = Vec::new();
    for round in 0..3u64 {
        now += 1_000;
        let t = Timestamp(now);
        let args = json!({"task": format!("Task {round}"), "target_bot": "adam", "async_mode": round != 1});
        let a: Value = serde_json::from_str(&text.call("handoff", &args.to_string(), &lead, t)).unwrap();
        assert_eq!(a, answer(value.call_value("handoff", args, &lead, t)));
        ids.push(a["handoff_id"].as_str().unwrap().to_string());
        for e in [&mut text, &mut value] {
            e.host("tool_call", json!({"thread_id": a["thread_id"], "tool": "web_search"}), t).unwrap();
        }
        for (tool, args) in [
            ("handoff_status", json!({"handoff_id": ids[0]})),
            ("handoff_results", json!({"handoff_id": a["handoff_id"]})),
            ("handoff_list", json!({})),
            ("handoff_send", json!({"handoff_id": a["handoff_id"], "message": "Also the tests."})),
            ("handoff_status", json!({"handoff_id": "handoff_nope"})),
            ("handoff_status", json!({"handoff_id": 7})),
        ] {
            let got: Value = serde_json::from_str(&text.call(tool, &args.to_string(), &lead, t)).unwrap();
            assert_eq!(got, answer(value.call_value(tool, args, &lead, t)), "{tool}");
        }
    }
    let bad: Value = serde_json::from_str(&text.call("handoff", "{not json", &lead, Timestamp(now))).unwrap();
    assert_eq!(bad["error"]["name"], "parse_error");
    assert_eq!(text.state(), value.state());
}

#[test]
fn typed_previews_answer_as_the_json_preview_and_commit_nothing() {
    // A teammate's inbox with one pending thread and one whose sender wrote after the accept:
    // the typed preview answers as `Engine::preview` (I1, I2), the log stays as it was, and
    // which items want attention is the core's rule (pending, or sender messages unseen).
    let mut e = setup();
    let t = Timestamp(T0 + 1_000);
    for (handle, name) in [("alice@acme", "Alice"), ("bob@acme", "Bob")] {
        e.host("register_teammate", json!({"handle": handle, "name": name, "role": "engineer"}), t).unwrap();
    }
    let bob = Caller::teammate("bob@acme");
    let send = |e: &mut Engine, summary: &str| {
        e.call_value("handoff_to_teammate", json!({"to": "alice@acme", "summary": summary}), &bob, t).unwrap()
    };
    send(&mut e, "Check the totals");
    let second = send(&mut e, "Fix the footer");
    let thread = second["thread_id"].as_str().unwrap().to_string();
    let alice = Caller::teammate("alice@acme");
    e.call_value("accept_handoff", json!({"thread_id": thread}), &alice, t).unwrap();
    e.call_value("check_inbox", json!({}), &alice, t).unwrap();
    e.call_value("send_message", json!({"thread_id": thread, "body": "Also the header."}), &bob, t).unwrap();
    let seq = e.log_seq();
    let args = || serde_json::from_value::<baton_core::surface::CheckInboxArgs>(json!({"limit": 100})).unwrap();
    let typed = e.previews().check_inbox(&alice, args(), t).unwrap();
    assert_eq!(
        serde_json::to_value(&typed).unwrap(),
        e.preview("check_inbox", json!({"limit": 100}), &alice, t).unwrap()
    );
    assert_eq!(e.log_seq(), seq, "a preview commits nothing");
    let wanting: Vec<bool> = typed.items.iter().map(|i| i.wants_attention()).collect();
    assert_eq!(wanting, vec![true, true], "one unseen message, one pending: {}", serde_json::to_value(&typed).unwrap());
    assert_eq!(typed.items.iter().map(|i| i.status.as_str()).collect::<Vec<_>>(), vec!["accepted", "pending"]);
}
