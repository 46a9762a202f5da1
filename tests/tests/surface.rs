//! The tool surface: schemas and dispatcher agree, errors are typed, storage failures change nothing.
use baton_core::surface::{definitions, TOOLS};
use baton_core::{
    Caller, Engine, ErrorCode, LoadError, LogRecord, MemoryStorage, SeededIds, Storage, StorageError, Timestamp,
    HOST_INPUTS, LOG_FORMAT_VERSION,
};
use serde_json::{json, Value};

const DOCUMENTED_TOOLS: [&str; 23] = [
    "handoff",
    "handoff_status",
    "handoff_send",
    "handoff_results",
    "handoff_cancel",
    "handoff_list",
    "get_handoff_inputs",
    "store_blueprint_outputs",
    "mailbox_action",
    "handoff_to_teammate",
    "check_inbox",
    "accept_handoff",
    "view_thread",
    "send_message",
    "complete_handoff",
    "cancel_handoff",
    "handoff_request",
    "subagents",
    "background_subagents",
    "schedules",
    "write_todo",
    "ask_user",
    "handoff_release",
];

fn engine() -> Engine {
    let mut e = Engine::open(MemoryStorage::new(), Box::new(SeededIds::new(3))).unwrap();
    let t = Timestamp(1_767_600_000_000);
    e.host("register_agent", json!({"bot_id": "lead"}), t).unwrap();
    e.host("open_thread", json!({"thread_id": "chat_main", "bot_id": "lead"}), t).unwrap();
    e.host("register_teammate", json!({"handle": "lead@acme", "name": "Lead", "role": "lead", "bot_id": "lead"}), t)
        .unwrap();
    e
}

#[test]
fn every_dispatched_tool_has_a_schema_and_every_schema_a_tool() {
    let defs = definitions();
    let named: Vec<&str> = defs.as_array().unwrap().iter().map(|d| d["function"]["name"].as_str().unwrap()).collect();
    assert_eq!(named, DOCUMENTED_TOOLS, "baton tools lists exactly the documented tools");
    let mut e = engine();
    // handoff_release exists only on the receiving side of a sibling handoff (X1).
    e.host("register_agent", json!({"bot_id": "sib"}), Timestamp(1_767_600_000_000)).unwrap();
    let lead = Caller::new("chat_main", "lead");
    let v = e
        .call_value("handoff_request", json!({"target_agent": "sib", "task": "t"}), &lead, Timestamp(1_767_600_000_000))
        .unwrap();
    let receiving = Caller::new(v["thread_id"].as_str().unwrap(), "sib");
    e.host("open_thread", json!({"thread_id": "chat_free", "bot_id": "lead"}), Timestamp(1_767_600_000_000)).unwrap();
    let free = Caller::new("chat_free", "lead");
    for def in defs.as_array().unwrap() {
        let f = &def["function"];
        let name = f["name"].as_str().unwrap();
        let caller = if name == "handoff_release" { &receiving } else { &free };
        assert!(f["description"].as_str().is_some_and(|d| d.len() > 20), "{name} has a description");
        let params = &f["parameters"];
        assert_eq!(params["type"], "object", "{name} takes an object");
        // The dispatcher knows the tool.
        let out: Value = serde_json::from_str(&e.call(name, "{}", caller, Timestamp(1_767_600_000_000))).unwrap();
        assert_ne!(out["error"]["name"], "unknown_tool", "{name} dispatches");
        // Every schema property is a field the parser accepts: a wrong-typed value is blamed
        // on that field, never reported as unknown.
        for (prop, _) in params["properties"].as_object().unwrap() {
            let args = json!({ prop: {"wrong": ["type"]} });
            let out: Value =
                serde_json::from_str(&e.call(name, &args.to_string(), caller, Timestamp(1_767_600_000_000))).unwrap();
            let msg = out["error"]["message"].as_str().unwrap_or("");
            assert!(
                !msg.contains(&format!("unknown field `{prop}`")),
                "{name}.{prop} is in the schema but the parser rejects it: {msg}"
            );
        }
        // And the parser accepts no field the schema lacks.
        let out: Value =
            serde_json::from_str(&e.call(name, r#"{"not_a_parameter": 1}"#, caller, Timestamp(1_767_600_000_000)))
                .unwrap();
        assert_eq!(out["error"]["code"], -32602, "{name} rejects unknown fields");
    }
    for tool in TOOLS {
        assert!(named.contains(&tool.name));
    }
}

/// A build without the `schema` feature (the console's) reads the parameter schemas from
/// core/src/surface/parameters.json: it must be what the schemas generate today. After a
/// change to a tool's or host input's arguments, rewrite it with
/// `BATON_BLESS=1 cargo test -p baton-conformance --test surface parameter`.
#[test]
fn the_parameter_schemas_the_console_reads_are_generated_ones() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/src/surface/parameters.json");
    let generated = baton_core::surface::schemas::parameters_document();
    if std::env::var_os("BATON_BLESS").is_some() {
        std::fs::write(&path, &generated).expect("write parameters.json");
    }
    let stored = std::fs::read_to_string(&path).expect("read parameters.json");
    assert!(
        stored == generated,
        "core/src/surface/parameters.json is stale: rewrite it with \
         BATON_BLESS=1 cargo test -p baton-conformance --test surface parameter"
    );
    let doc: Value = serde_json::from_str(&stored).expect("JSON");
    for t in TOOLS {
        assert_eq!(doc["tools"][t.name], t.parameters(), "{}", t.name);
    }
    for h in HOST_INPUTS {
        assert_eq!(doc["host_inputs"][h.name], h.parameters(), "{}", h.name);
    }
}

#[test]
fn host_inputs_have_schemas() {
    for h in HOST_INPUTS {
        assert_eq!(h.parameters()["type"], "object", "{}", h.name);
    }
}

#[test]
fn error_codes_are_stable() {
    let table: Vec<(i64, &str)> = ErrorCode::ALL.iter().map(|c| (c.number(), c.name())).collect();
    assert_eq!(
        table,
        [
            (-32700, "parse_error"),
            (-32601, "unknown_tool"),
            (-32602, "invalid_params"),
            (-32001, "not_found"),
            (-32002, "forbidden"),
            (-32003, "rate_limited"),
            (-32004, "tool_not_allowed"),
            (-32007, "thread_terminal"),
            (-32008, "invalid_transition"),
            (-32010, "storage_failed"),
            (-32011, "sender_blocked"),
            (-32012, "stale_command"),
        ]
    );
}

/// A store that refuses every append after the first `ok` ones.
struct Flaky {
    inner: MemoryStorage,
    ok: usize,
}

impl Storage for Flaky {
    fn append(&mut self, record: &LogRecord) -> Result<(), StorageError> {
        if self.inner.records().len() >= self.ok {
            return Err(StorageError::Unavailable("disk full".into()));
        }
        self.inner.append(record)
    }
    fn load(&self) -> Result<Vec<LogRecord>, StorageError> {
        self.inner.load()
    }
}

#[test]
fn a_failed_append_changes_nothing() {
    let mut e = Engine::open(Flaky { inner: MemoryStorage::new(), ok: 2 }, Box::new(SeededIds::new(1))).unwrap();
    let t = Timestamp(1_767_600_000_000);
    e.host("register_agent", json!({"bot_id": "lead"}), t).unwrap();
    e.host("open_thread", json!({"thread_id": "chat_main", "bot_id": "lead"}), t).unwrap();
    let before = e.state().clone();
    let out: Value =
        serde_json::from_str(&e.call("handoff", r#"{"task": "x"}"#, &Caller::new("chat_main", "lead"), t)).unwrap();
    assert_eq!(out["error"]["name"], "storage_failed");
    assert_eq!(e.state(), &before, "state untouched");
    assert!(e.take_effects().is_empty(), "no effect escapes a failed command");
    assert_eq!(e.storage().inner.records().len(), 2);
}

#[test]
fn an_unknown_log_version_is_refused() {
    let mut e = engine();
    e.host("register_agent", json!({"bot_id": "adam"}), Timestamp(1_767_600_000_000)).unwrap();
    let mut records = e.storage().records().to_vec();
    records[1].v = 99;
    let _ = &mut records;
    let err = Engine::open(MemoryStorage::from_records(records), Box::new(SeededIds::new(3))).err().unwrap();
    assert_eq!(err, LoadError::UnsupportedVersion { index: 1, found: 99, supported: LOG_FORMAT_VERSION });
    assert_eq!(LOG_FORMAT_VERSION, 3);
}

/// A v2 delta that names a record no earlier record created is a damaged log: refused with
/// the record's position, and `absorb` leaves the state as it was.
#[test]
fn a_delta_without_its_record_is_refused() {
    let mut e = engine();
    let t = Timestamp(1_767_600_000_000);
    e.host("register_agent", json!({"bot_id": "adam"}), t).unwrap();
    let bad = r#"{"v":2,"seq":5,"at":1767600000000,"command":"tick","id_seq":0,"changes":[{"kind":"sweep","due":null},{"kind":"handoff_delta","handoff_id":"handoff_nope","set":{"status":"running"}}]}"#;
    let record = LogRecord::from_json_line(bad, 4).unwrap();
    let mut records = e.storage().records().to_vec();
    records.push(record.clone());
    let err = Engine::open(MemoryStorage::from_records(records), Box::new(SeededIds::new(3))).err().unwrap();
    assert!(
        matches!(&err, LoadError::Storage(StorageError::Corrupt { index: 4, reason }) if reason.contains("handoff_nope")),
        "{err:?}"
    );
    let before = e.state().clone();
    let refused = e.absorb(&record).unwrap_err();
    assert_eq!(refused.code, ErrorCode::StorageFailed);
    assert_eq!(e.state(), &before, "nothing of the damaged record applied");
}

#[test]
fn a_reloaded_engine_never_reissues_an_id() {
    let mut e = engine();
    let caller = Caller::new("chat_main", "lead");
    let t = Timestamp(1_767_600_000_000);
    let first: Value = serde_json::from_str(&e.call("handoff", r#"{"task": "a"}"#, &caller, t)).unwrap();
    let mut reloaded =
        Engine::open(MemoryStorage::from_records(e.storage().records().to_vec()), Box::new(SeededIds::new(3))).unwrap();
    let second: Value = serde_json::from_str(&reloaded.call("handoff", r#"{"task": "b"}"#, &caller, t)).unwrap();
    assert_ne!(first["handoff_id"], second["handoff_id"]);
    assert_ne!(first["thread_id"], second["thread_id"]);
}

#[test]
fn a8_a_masked_answer_never_reaches_the_log_in_clear() {
    let mut e = engine();
    let t = Timestamp(1_767_600_000_000);
    let q = json!({"questions": [{"question": "Which staging PIN shall I print on the badge?", "kind": "secret"}]});
    let v = e.call_value("ask_user", q, &Caller::new("chat_main", "lead"), t).unwrap();
    let id = v["question_id"].as_str().unwrap().to_string();
    e.take_effects();
    e.host("answer_user", json!({"question_id": id, "answers": ["s3cr3t-value-42"]}), t).unwrap();
    let effects = serde_json::to_string(&e.take_effects()).unwrap();
    assert!(effects.contains("s3cr3t-value-42"), "the resumed run gets the answer");
    for r in e.storage().records() {
        assert!(!r.to_json_line().contains("s3cr3t-value-42"), "log record {} holds the secret", r.seq);
    }
    assert!(format!("{:?}", e.state()).contains("[masked: 15 characters]"));
    assert!(!format!("{:?}", e.state()).contains("s3cr3t-value-42"));
}

#[test]
fn prepare_then_commit_and_stale_preparations_are_refused() {
    use baton_core::NoStorage;
    let t = Timestamp(1_767_600_000_000);
    let mut a = Engine::open(NoStorage, Box::new(SeededIds::new(5))).unwrap();
    let p = a.prepare_host("register_agent", json!({"bot_id": "lead"}), t).unwrap();
    let record = p.record().cloned().expect("a change to store");
    assert_eq!(a.log_seq(), 0, "preparing changes nothing");
    // A second preparation against the same state goes stale once the first commits.
    let q = a.prepare_host("register_agent", json!({"bot_id": "adam"}), t).unwrap();
    a.commit(p).unwrap();
    assert_eq!(a.commit(q).unwrap_err().code, ErrorCode::StaleCommand);
    // Another engine on the same log catches up by absorbing the stored record.
    let mut b = Engine::open(NoStorage, Box::new(SeededIds::new(5))).unwrap();
    b.absorb(&record).unwrap();
    assert_eq!(b.state(), a.state());
    assert_eq!(b.absorb(&record).unwrap_err().code, ErrorCode::StaleCommand);
    // Queries prepare no record.
    assert!(a.prepare_host("get_agent", json!({"bot_id": "lead"}), t).unwrap().record().is_none());
}

/// What an agent's own process (a `bot:ID` key of `baton serve`) may send: a thread's own
/// activity (`HostScope::Thread`), for its own agent's threads only; the rest is the host's.
#[test]
fn an_agent_sends_only_its_own_threads_activity() {
    use baton_core::HostScope;
    let mut e = Engine::open(MemoryStorage::new(), Box::new(SeededIds::new(1))).unwrap();
    let t = Timestamp(1_767_600_000_000);
    e.host("register_agent", json!({"bot_id": "lead", "display_name": "Lead"}), t).unwrap();
    e.host("register_agent", json!({"bot_id": "adam", "display_name": "Adam"}), t).unwrap();
    e.host("open_thread", json!({"thread_id": "chat_lead", "bot_id": "lead"}), t).unwrap();
    let own = json!({"thread_id": "chat_lead"});
    assert!(e.may_send_as_agent("turn_started", &own, "lead").is_ok());
    assert!(e.may_send_as_agent("tools_for", &own, "lead").is_ok());
    let other = e.may_send_as_agent("turn_started", &own, "adam").unwrap_err();
    assert_eq!((other.code.name(), other.field.as_deref()), ("forbidden", Some("thread_id")));
    let missing = e.may_send_as_agent("turn_started", &json!({"thread_id": "nope"}), "lead").unwrap_err();
    assert_eq!(missing.code.name(), "not_found");
    let host_only = e.may_send_as_agent("register_agent", &json!({"bot_id": "lead"}), "lead").unwrap_err();
    assert_eq!(host_only.code.name(), "forbidden");
    assert!(e.may_send_as_agent("no_such_input", &own, "lead").is_err());
    // Every input an agent may send names its thread.
    for h in HOST_INPUTS.iter().filter(|h| h.scope == HostScope::Thread) {
        let required = h.parameters()["required"].clone();
        assert!(required.as_array().is_some_and(|r| r.contains(&json!("thread_id"))), "{} takes no thread_id", h.name);
    }
}
