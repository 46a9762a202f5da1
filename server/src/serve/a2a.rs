//! A2A v1.0 over JSON-RPC (`POST /w/{workspace}/a2a/{agent}`, Agent Card at
//! `GET /w/{workspace}/a2a/{agent}/.well-known/agent-card.json`): every Baton agent of a
//! workspace is an A2A agent, its bot id the tenant. A task is a handoff to that agent, made by
//! the caller — the key's bot (`bot:ID` keys), or `a2a-client` for host and admin keys — from a
//! thread of its own per A2A context (`a2a-<contextId>`, opened on first use). Everything a
//! method does runs inside the workspace's writer as one command of a batch (`execute`), so
//! it commits with its records and is answered after the commit.
//!
//! Served: `SendMessage` (no task id: `handoff`; with one: `handoff_send`, or the answer to
//! the child's pending `ask_user`), `GetTask`, `ListTasks` (the caller's tasks on this agent,
//! newest first, paged by an offset token), `CancelTask` (`handoff_cancel`), and as SSE
//! `SendStreamingMessage` and `SubscribeToTask` (each event's id the log record's sequence
//! number), and the push-config methods (`Create`/`Get`/`List`/`DeleteTaskPushNotificationConfig`,
//! and `configuration.taskPushNotificationConfig` on a new task): a push config is the task's
//! host callback (`set_callback`, G14) — posted when the watch returns, with the task as the
//! body. Task states follow the table in docs/DECISIONS.md ("A2A v1.0").
//!
//! A *fixture agent* (`--fixture-agent BOT`) answers by script, so A2A clients and conformance
//! suites can drive Baton without a model: `fail: …` fails the task (the child's run errors),
//! `ask: …` asks the caller a question (INPUT_REQUIRED; the next message answers it and
//! completes the task), anything else completes the task with the text after an optional
//! `complete:`.
use baton_core::{Caller, Engine, Handoff, Status, Storage, Timestamp};
use serde_json::{json, Map, Value};

/// The protocol version served.
pub const VERSION: &str = "1.0";

/// A2A's error codes (and JSON-RPC's own).
pub mod code {
    pub const INVALID_PARAMS: i64 = -32602;
    pub const METHOD_NOT_FOUND: i64 = -32601;
    pub const TASK_NOT_FOUND: i64 = -32001;
    pub const TASK_NOT_CANCELABLE: i64 = -32002;
    pub const UNSUPPORTED_OPERATION: i64 = -32004;
    pub const CONTENT_TYPE_NOT_SUPPORTED: i64 = -32005;
    pub const VERSION_NOT_SUPPORTED: i64 = -32009;
}

/// The caller's bot for host and admin keys.
pub const HOST_CALLER: &str = "a2a-client";

/// What the writer runs for an A2A request.
pub struct Request {
    pub agent: String,
    pub caller: String,
    pub method: String,
    pub params: Map<String, Value>,
    /// The agent answers by script (`--fixture-agent`).
    pub fixture: bool,
    /// A fresh context id, used when a new task names none.
    pub new_context: String,
}

/// `{"result": …}` or `{"error": {code, message}}`: what goes in the JSON-RPC answer.
type Answer = Result<Value, (i64, String)>;

fn fail(code: i64, message: impl Into<String>) -> Answer {
    Err((code, message.into()))
}

/// Runs one A2A method against the engine (inside the writer's batch).
pub fn execute<S: Storage>(engine: &mut Engine<S>, now: Timestamp, req: &Request) -> Value {
    let tenant = req.params.get("tenant").and_then(Value::as_str).filter(|t| !t.is_empty());
    let answer = if tenant.is_some_and(|t| t != req.agent) {
        fail(
            code::INVALID_PARAMS,
            format!("tenant '{}' is not this endpoint's agent '{}'", tenant.unwrap_or_default(), req.agent),
        )
    } else if !engine.state().agents.contains_key(&req.agent) {
        // Not found and not yours look the same: an unknown agent is an unknown task.
        fail(code::TASK_NOT_FOUND, format!("no agent '{}' in this workspace", req.agent))
    } else {
        match req.method.as_str() {
            "card" => {
                let base = req.params.get("base").and_then(Value::as_str).unwrap_or_default();
                Ok(card(&engine.state().agents[&req.agent], base))
            }
            "SendMessage" => send_message(engine, now, req),
            "GetTask" => task_param(engine, req).map(|h| task(engine, &h)),
            "ListTasks" => list_tasks(engine, req),
            "CancelTask" => cancel(engine, now, req),
            "SendStreamingMessage" | "SubscribeToTask" => fail(
                code::UNSUPPORTED_OPERATION,
                "streaming is not offered by this agent yet (capabilities.streaming is false)",
            ),
            "CreateTaskPushNotificationConfig" => create_push(engine, now, req),
            "GetTaskPushNotificationConfig" => get_push(engine, req),
            "ListTaskPushNotificationConfigs" => task_id_param(engine, req)
                .map(|h| json!({"configs": push_config(&h).into_iter().collect::<Vec<_>>(), "nextPageToken": ""})),
            "DeleteTaskPushNotificationConfig" => delete_push(engine, now, req),
            m => fail(code::METHOD_NOT_FOUND, format!("no method '{m}'")),
        }
    };
    // `seq`: the log's last record after this command (a stream's first event id).
    match answer {
        Ok(v) => json!({"result": v, "seq": engine.log_seq()}),
        Err((code, message)) => json!({"error": {"code": code, "message": message}}),
    }
}

fn context_thread(context: &str) -> String {
    format!("a2a-{context}")
}

/// The context id of a handoff's parent thread (`a2a-<id>`, or the thread itself).
fn context_of(h: &Handoff) -> String {
    let t = h.parent_thread_id.as_str();
    t.strip_prefix("a2a-").unwrap_or(t).to_string()
}

/// The text of a message's text parts; other part kinds are refused.
fn text_of(message: &Value) -> Result<String, (i64, String)> {
    let parts = message
        .get("parts")
        .and_then(Value::as_array)
        .ok_or((code::INVALID_PARAMS, "message.parts is required".into()))?;
    let mut out = Vec::new();
    for p in parts {
        match p.get("text").and_then(Value::as_str) {
            Some(t) => out.push(t),
            None => {
                return Err((
                    code::CONTENT_TYPE_NOT_SUPPORTED,
                    "only text parts are accepted (message.parts[].text)".into(),
                ))
            }
        }
    }
    let text = out.join("\n");
    if text.trim().is_empty() {
        return Err((code::INVALID_PARAMS, "message.parts: the message has no text".into()));
    }
    Ok(text)
}

fn handoff_of<S: Storage>(engine: &Engine<S>, req: &Request, id: &str) -> Result<Handoff, (i64, String)> {
    match engine.state().handoffs.get(id) {
        Some(h) if h.parent_bot_id == req.caller && h.child_bot_id == req.agent => Ok((**h).clone()),
        _ => Err((code::TASK_NOT_FOUND, format!("no task '{id}'"))),
    }
}

fn task_param<S: Storage>(engine: &Engine<S>, req: &Request) -> Result<Handoff, (i64, String)> {
    let id = req
        .params
        .get("id")
        .and_then(Value::as_str)
        .ok_or((code::INVALID_PARAMS, "id (the task id) is required".into()))?;
    handoff_of(engine, req, id)
}

/// The task named by `taskId` (the push-config methods).
fn task_id_param<S: Storage>(engine: &Engine<S>, req: &Request) -> Result<Handoff, (i64, String)> {
    let id = req
        .params
        .get("taskId")
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
        .ok_or((code::INVALID_PARAMS, "taskId is required".into()))?;
    handoff_of(engine, req, id)
}

/// The header a push carries the config's `token` in.
pub const TOKEN_HEADER: &str = "X-A2A-Notification-Token";
/// The tag prefix of a callback that is an A2A push config (the config id follows).
pub const PUSH_TAG: &str = "a2a:";

/// A push config (`configuration.taskPushNotificationConfig`, or the params of
/// `CreateTaskPushNotificationConfig`) as the `set_callback` of task `task_id`, checked:
/// `token` rides in [`TOKEN_HEADER`], `authentication` in `Authorization`; the id is the
/// config's, or the task id.
fn push_callback(
    cfg: &Map<String, Value>,
    task_id: &str,
    field: &str,
) -> Result<baton_core::SetCallback, (i64, String)> {
    let text = |name: &str| -> Result<Option<String>, (i64, String)> {
        match cfg.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if s.is_empty() => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err((code::INVALID_PARAMS, format!("{field}{name} must be a string"))),
        }
    };
    let url = text("url")?.ok_or((code::INVALID_PARAMS, format!("{field}url is required")))?;
    let mut headers = std::collections::BTreeMap::new();
    if let Some(token) = text("token")? {
        headers.insert(TOKEN_HEADER.to_string(), token);
    }
    if let Some(auth) = cfg.get("authentication").filter(|a| !a.is_null()) {
        let part = |k: &str| auth.get(k).and_then(Value::as_str).unwrap_or_default().trim().to_string();
        let (scheme, credentials) = (part("scheme"), part("credentials"));
        if scheme.is_empty() || credentials.is_empty() || scheme.contains(' ') {
            return Err((
                code::INVALID_PARAMS,
                format!("{field}authentication needs a scheme (one word) and credentials"),
            ));
        }
        headers.insert("Authorization".to_string(), format!("{scheme} {credentials}"));
    }
    let id = text("id")?.unwrap_or_else(|| task_id.to_string());
    let args = baton_core::SetCallback {
        handoff_id: task_id.into(),
        url: Some(url),
        headers,
        tag: Some(format!("{PUSH_TAG}{id}")),
    };
    args.check().map_err(|e| (code::INVALID_PARAMS, format!("{field}{}", e.message)))?;
    Ok(args)
}

/// The A2A push config a task's host callback is, if it is one.
fn push_config(h: &Handoff) -> Option<Value> {
    let c = h.callback.as_ref()?;
    let id = c.tag.as_deref()?.strip_prefix(PUSH_TAG)?;
    let mut cfg = json!({"tenant": h.child_bot_id, "id": id, "taskId": h.handoff_id.as_str(), "url": c.url});
    if let Some(token) = c.headers.get(TOKEN_HEADER) {
        cfg["token"] = json!(token);
    }
    if let Some((scheme, credentials)) = c.headers.get("Authorization").and_then(|a| a.split_once(' ')) {
        cfg["authentication"] = json!({"scheme": scheme, "credentials": credentials});
    }
    Some(cfg)
}

/// A `set_callback` refusal in A2A terms: bad input is InvalidParams, a task that cannot take
/// a push (asynchronous, its watch over, finished) UnsupportedOperation.
fn callback_refused(e: baton_core::CallError) -> (i64, String) {
    let code = if e.code == baton_core::ErrorCode::InvalidTransition {
        code::UNSUPPORTED_OPERATION
    } else {
        code::INVALID_PARAMS
    };
    (code, e.message)
}

fn create_push<S: Storage>(engine: &mut Engine<S>, now: Timestamp, req: &Request) -> Answer {
    let h = task_id_param(engine, req)?;
    let args = push_callback(&req.params, h.handoff_id.as_str(), "")?;
    if let Some(old) = push_config(&h) {
        if args.tag.as_deref().and_then(|t| t.strip_prefix(PUSH_TAG)) != old["id"].as_str() {
            return fail(
                code::INVALID_PARAMS,
                format!(
                    "task '{}' has push config '{}' already: Baton keeps one per task (delete it first, or create with its id to replace it)",
                    h.handoff_id.as_str(),
                    old["id"].as_str().unwrap_or_default()
                ),
            );
        }
    }
    engine.set_callback(args, now).map_err(callback_refused)?;
    let h = handoff_of(engine, req, h.handoff_id.as_str())?;
    push_config(&h).ok_or((code::INVALID_PARAMS, "the push config was not kept".into()))
}

/// The task's config named by `id` (or its only one when `id` is empty).
fn named_push<S: Storage>(engine: &Engine<S>, req: &Request) -> Result<(Handoff, Value), (i64, String)> {
    let h = task_id_param(engine, req)?;
    let id = req.params.get("id").and_then(Value::as_str).unwrap_or_default();
    match push_config(&h) {
        Some(cfg) if id.is_empty() || cfg["id"] == id => Ok((h, cfg)),
        _ => Err((code::TASK_NOT_FOUND, format!("no push config '{id}' on task '{}'", h.handoff_id.as_str()))),
    }
}

fn get_push<S: Storage>(engine: &Engine<S>, req: &Request) -> Answer {
    named_push(engine, req).map(|(_, cfg)| cfg)
}

fn delete_push<S: Storage>(engine: &mut Engine<S>, now: Timestamp, req: &Request) -> Answer {
    let (h, _) = named_push(engine, req)?;
    let args =
        baton_core::SetCallback { handoff_id: h.handoff_id.clone(), url: None, headers: Default::default(), tag: None };
    engine.set_callback(args, now).map_err(callback_refused)?;
    Ok(json!({}))
}

/// The body of an A2A push for `handoff_id`: the task as a `StreamResponse`. A task whose
/// completion waits on this very post is shown COMPLETED — the state it has once the post lands.
pub fn push_body<S: Storage>(engine: &Engine<S>, handoff_id: &str) -> Option<Value> {
    let mut h = (**engine.state().handoffs.get(handoff_id)?).clone();
    if h.status == Status::Completed || h.finished_at.is_some() {
        h.callback_pending = false;
        if !h.status.is_terminal() {
            h.status = Status::Completed;
        }
    }
    Some(json!({"task": task(engine, &h)}))
}

/// The question the child of `h` is waiting on, if any.
fn pending_question<S: Storage>(engine: &Engine<S>, h: &Handoff) -> Option<String> {
    let child = h.child_thread_id.as_ref()?;
    engine
        .state()
        .asks
        .values()
        .filter(|a| a.thread_id == *child && a.status == baton_core::AskStatus::Pending)
        .map(|a| a.question_id.as_str().to_string())
        .next_back()
}

/// The task states a filter may name.
const STATES: [&str; 8] = [
    "TASK_STATE_SUBMITTED",
    "TASK_STATE_WORKING",
    "TASK_STATE_INPUT_REQUIRED",
    "TASK_STATE_COMPLETED",
    "TASK_STATE_FAILED",
    "TASK_STATE_CANCELED",
    "TASK_STATE_REJECTED",
    "TASK_STATE_AUTH_REQUIRED",
];

/// The A2A state of a handoff (docs/DECISIONS.md, "A2A v1.0").
pub fn state_of(status: Status, callback_pending: bool, waiting_on_user: bool) -> &'static str {
    match status {
        _ if waiting_on_user && !status.is_terminal() => "TASK_STATE_INPUT_REQUIRED",
        // The child has finished and its callback is out: completed once it lands.
        _ if callback_pending && !status.is_terminal() => "TASK_STATE_WORKING",
        Status::Started => "TASK_STATE_SUBMITTED",
        Status::Running | Status::FirstResponse | Status::WatchExpired | Status::Timeout => "TASK_STATE_WORKING",
        Status::Completed if callback_pending => "TASK_STATE_WORKING",
        Status::Completed | Status::ExpiredUnnotified | Status::Undeliverable => "TASK_STATE_COMPLETED",
        Status::Error | Status::Abandoned => "TASK_STATE_FAILED",
        Status::Cancelled => "TASK_STATE_CANCELED",
        Status::MaterializeFailed => "TASK_STATE_REJECTED",
    }
}

/// A handoff as an A2A task.
fn task<S: Storage>(engine: &Engine<S>, h: &Handoff) -> Value {
    let question = pending_question(engine, h);
    let context = context_of(h);
    let id = h.handoff_id.as_str();
    let mut status =
        json!({"state": state_of(h.status, h.callback_pending, question.is_some()), "timestamp": h.status_at.to_iso()});
    let said = match (h.status, &question) {
        (_, Some(q)) => engine
            .state()
            .asks
            .get(q.as_str())
            .map(|a| a.questions.iter().map(|q| q.question.clone()).collect::<Vec<_>>().join("\n")),
        (Status::Error, _) | (Status::MaterializeFailed, _) => h.error.clone(),
        _ => h.result.clone(),
    };
    if let Some(text) = said {
        status["message"] = json!({"messageId": format!("{id}-status"), "role": "ROLE_AGENT", "contextId": context, "taskId": id, "parts": [{"text": text}]});
    }
    let mut artifacts = Vec::new();
    if let Some(r) = &h.result {
        artifacts.push(json!({"artifactId": "result", "name": "result", "parts": [{"text": r}]}));
    }
    if let Some(o) = h.outputs.as_ref().filter(|o| !o.is_empty()) {
        artifacts.push(json!({"artifactId": "outputs", "name": "blueprint outputs", "parts": [{"data": o}]}));
    }
    let mut baton = json!({"handoff_id": id, "status": h.status, "child_thread_id": h.child_thread_id});
    if h.status == Status::Undeliverable {
        baton["undeliverable"] = json!(true);
    }
    let mut t = json!({
        "id": id,
        "contextId": context,
        "status": status,
        "history": [{"messageId": format!("{id}-task"), "role": "ROLE_USER", "contextId": context, "taskId": id, "parts": [{"text": h.spec.task}]}],
        "metadata": {"baton": baton},
    });
    if !artifacts.is_empty() {
        t["artifacts"] = Value::Array(artifacts);
    }
    t
}

fn send_message<S: Storage>(engine: &mut Engine<S>, now: Timestamp, req: &Request) -> Answer {
    let message = req.params.get("message").ok_or((code::INVALID_PARAMS, "message is required".to_string()))?;
    if message.get("messageId").and_then(Value::as_str).is_none_or(str::is_empty) {
        return fail(code::INVALID_PARAMS, "message.messageId is required");
    }
    let text = text_of(message)?;
    let err = |e: baton_core::CallError| (code::INVALID_PARAMS, e.message);
    if let Some(task_id) = message.get("taskId").and_then(Value::as_str) {
        let h = handoff_of(engine, req, task_id)?;
        if let Some(q) = pending_question(engine, &h) {
            engine.host("answer_user", json!({"question_id": q, "answers": [text]}), now).map_err(err)?;
            if req.fixture {
                script(engine, now, req, &h, &format!("complete: Thanks — noted: {text}"))?;
            }
        } else {
            let parent = Caller::new(h.parent_thread_id.as_str(), &req.caller);
            let sent = engine
                .call_value("handoff_send", json!({"handoff_id": task_id, "message": text}), &parent, now)
                .map_err(err)?;
            if sent.get("success") == Some(&Value::Bool(false)) {
                return fail(
                    code::UNSUPPORTED_OPERATION,
                    format!("task '{task_id}' takes no more messages: it is {}", json!(h.status)),
                );
            }
            if req.fixture {
                script(engine, now, req, &h, &text)?;
            }
        }
        let h = handoff_of(engine, req, task_id)?;
        return Ok(json!({"task": task(engine, &h)}));
    }
    // `returnImmediately` is `async_mode`: by default the caller watches the task (a watched
    // handoff is what may carry a push config, G14); the answer never waits either way.
    let config = req.params.get("configuration").and_then(Value::as_object);
    let immediate = config.and_then(|c| c.get("returnImmediately")).and_then(Value::as_bool).unwrap_or(false);
    let push = config.and_then(|c| c.get("taskPushNotificationConfig")).and_then(Value::as_object);
    if push.is_some() && immediate {
        return fail(
            code::INVALID_PARAMS,
            "configuration.taskPushNotificationConfig needs returnImmediately false: Baton posts pushes only for the tasks it watches (G14)",
        );
    }
    // Checked before anything is made, so a bad config changes nothing.
    let field = "configuration.taskPushNotificationConfig.";
    if let Some(p) = push {
        push_callback(p, "handoff_check", field)?;
    }
    let context =
        message.get("contextId").and_then(Value::as_str).filter(|c| !c.is_empty()).unwrap_or(&req.new_context);
    let thread = context_thread(context);
    if !engine.state().agents.contains_key(&req.caller) {
        engine.host("register_agent", json!({"bot_id": req.caller}), now).map_err(err)?;
    }
    match engine.state().threads.get(thread.as_str()) {
        Some(t) if t.bot_id != req.caller => {
            return fail(code::INVALID_PARAMS, format!("message.contextId '{context}' belongs to another caller"))
        }
        Some(_) => {}
        None => {
            engine.host("open_thread", json!({"thread_id": thread, "bot_id": req.caller}), now).map_err(err)?;
        }
    }
    let made = engine
        .call_value(
            "handoff",
            json!({"task": text, "target_bot": req.agent, "async_mode": immediate}),
            &Caller::new(&thread, &req.caller),
            now,
        )
        .map_err(err)?;
    let Some(id) = made.get("handoff_id").and_then(Value::as_str) else {
        return fail(
            code::INVALID_PARAMS,
            made.get("error").and_then(Value::as_str).unwrap_or("the task was not created").to_string(),
        );
    };
    let h = handoff_of(engine, req, id)?;
    if let Some(p) = push.filter(|_| !h.status.is_terminal()) {
        engine.set_callback(push_callback(p, id, field)?, now).map_err(callback_refused)?;
    }
    if req.fixture && h.status != Status::MaterializeFailed {
        script(engine, now, req, &h, &text)?;
    }
    let h = handoff_of(engine, req, id)?;
    Ok(json!({"task": task(engine, &h)}))
}

/// The fixture agent's scripted turn on `h`'s child thread for the message `text`.
fn script<S: Storage>(
    engine: &mut Engine<S>,
    now: Timestamp,
    req: &Request,
    h: &Handoff,
    text: &str,
) -> Result<(), (i64, String)> {
    let Some(child) = h.child_thread_id.as_ref().map(|c| c.as_str().to_string()) else { return Ok(()) };
    let err = |e: baton_core::CallError| {
        (code::INVALID_PARAMS, format!("the fixture agent's turn was refused: {}", e.message))
    };
    let lower = text.trim_start().to_ascii_lowercase();
    let rest = |prefix: &str| text.trim_start()[prefix.len()..].trim().to_string();
    let me = Caller::new(&child, &req.agent);
    if lower.starts_with("fail:") {
        engine.host("child_error", json!({"thread_id": child, "error": rest("fail:")}), now).map_err(err)?;
    } else if lower.starts_with("ask:") {
        engine.call_value("ask_user", json!({"questions": [{"question": rest("ask:")}]}), &me, now).map_err(err)?;
    } else {
        let body = if lower.starts_with("complete:") { rest("complete:") } else { format!("Done: {}", text.trim()) };
        let report = json!({"action": "SEND_MESSAGE", "to_thread_id": h.parent_thread_id.as_str(), "to_bot_id": h.parent_bot_id, "body": body});
        engine.call_value("mailbox_action", report, &me, now).map_err(err)?;
    }
    Ok(())
}

fn list_tasks<S: Storage>(engine: &Engine<S>, req: &Request) -> Answer {
    let size = match req.params.get("pageSize") {
        None | Some(Value::Null) => 50,
        Some(v) => match v.as_u64().filter(|n| (1..=100).contains(n)) {
            Some(n) => n as usize,
            None => return fail(code::INVALID_PARAMS, "pageSize is 1 to 100"),
        },
    };
    let offset = match req.params.get("pageToken").and_then(Value::as_str).filter(|t| !t.is_empty()) {
        None => 0,
        Some(t) => match t.parse::<usize>() {
            Ok(n) => n,
            Err(_) => return fail(code::INVALID_PARAMS, "pageToken is not one this server gave"),
        },
    };
    let context = req.params.get("contextId").and_then(Value::as_str).filter(|c| !c.is_empty());
    // A state filter; the JS SDK sends "UNRECOGNIZED" (its enum's unset value) when none is given.
    let state = req
        .params
        .get("status")
        .and_then(Value::as_str)
        .filter(|s| s.starts_with("TASK_STATE_") && *s != "TASK_STATE_UNSPECIFIED");
    if let Some(s) = state {
        if !STATES.contains(&s) {
            return fail(code::INVALID_PARAMS, format!("status: no task state '{s}'"));
        }
    }
    let mut mine: Vec<(u64, Value)> = engine
        .state()
        .handoffs
        .values()
        .filter(|h| h.parent_bot_id == req.caller && h.child_bot_id == req.agent)
        .filter(|h| context.is_none_or(|c| context_of(h) == c))
        .map(|h| (h.seq, task(engine, h)))
        .filter(|(_, t)| state.is_none_or(|s| t["status"]["state"] == s))
        .collect();
    // Newest first.
    mine.sort_by_key(|(seq, _)| std::cmp::Reverse(*seq));
    let total = mine.len();
    let page: Vec<Value> = mine.into_iter().skip(offset).take(size).map(|(_, t)| t).collect();
    let next = if offset + page.len() < total { (offset + page.len()).to_string() } else { String::new() };
    Ok(json!({"tasks": page, "nextPageToken": next, "pageSize": size, "totalSize": total}))
}

fn cancel<S: Storage>(engine: &mut Engine<S>, now: Timestamp, req: &Request) -> Answer {
    let h = task_param(engine, req)?;
    if h.status.is_terminal() {
        return fail(
            code::TASK_NOT_CANCELABLE,
            format!("task '{}' is {} already", h.handoff_id.as_str(), json!(h.status)),
        );
    }
    let parent = Caller::new(h.parent_thread_id.as_str(), &req.caller);
    engine
        .call_value(
            "handoff_cancel",
            json!({"handoff_id": h.handoff_id.as_str(), "reason": "cancelled through A2A"}),
            &parent,
            now,
        )
        .map_err(|e| (code::INVALID_PARAMS, e.message))?;
    let h = handoff_of(engine, req, h.handoff_id.as_str())?;
    Ok(task(engine, &h))
}

/// The Agent Card of `agent` served at `base` (the agent's A2A endpoint).
pub fn card(agent: &baton_core::Agent, base: &str) -> Value {
    json!({
        "name": agent.display_name,
        "description": format!("Baton agent '{}': a task is a handoff to it, followed through its lifecycle.", agent.bot_id),
        "version": env!("CARGO_PKG_VERSION"),
        "supportedInterfaces": [{"url": base, "protocolBinding": "JSONRPC", "protocolVersion": VERSION, "tenant": agent.bot_id}],
        "capabilities": {"streaming": true, "pushNotifications": true, "extensions": []},
        "securitySchemes": {"bearer": {"httpAuthSecurityScheme": {"scheme": "Bearer", "description": "a Baton key of the workspace"}}},
        "securityRequirements": [{"schemes": {"bearer": {"list": []}}}],
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain", "application/json"],
        "skills": [{"id": "handoff", "name": "Delegated work", "description": "Takes a task as text and reports a result.", "tags": ["baton", "handoff"]}],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_handoff_status_has_its_a2a_state() {
        use Status::*;
        let cases = [
            (Started, false, false, "TASK_STATE_SUBMITTED"),
            (Running, false, false, "TASK_STATE_WORKING"),
            (FirstResponse, false, false, "TASK_STATE_WORKING"),
            (WatchExpired, false, false, "TASK_STATE_WORKING"),
            (Completed, true, false, "TASK_STATE_WORKING"),
            (Started, true, false, "TASK_STATE_WORKING"),
            (FirstResponse, true, false, "TASK_STATE_WORKING"),
            (Running, false, true, "TASK_STATE_INPUT_REQUIRED"),
            (Completed, false, false, "TASK_STATE_COMPLETED"),
            (ExpiredUnnotified, false, false, "TASK_STATE_COMPLETED"),
            (Undeliverable, false, false, "TASK_STATE_COMPLETED"),
            (Error, false, false, "TASK_STATE_FAILED"),
            (Abandoned, false, false, "TASK_STATE_FAILED"),
            (Cancelled, false, false, "TASK_STATE_CANCELED"),
            (MaterializeFailed, false, false, "TASK_STATE_REJECTED"),
            (Cancelled, false, true, "TASK_STATE_CANCELED"),
        ];
        for (status, callback, asking, want) in cases {
            assert_eq!(state_of(status, callback, asking), want, "{status:?} callback={callback} asking={asking}");
        }
    }
}

/// The HTTP side: `POST /w/{workspace}/a2a/{agent}` and the Agent Card.
pub mod http {
    use super::super::actor::Op;
    use super::super::keys::Principal;
    use super::super::{App, Refusal};
    use super::{code, Request, HOST_CALLER, VERSION};
    use axum::body::{to_bytes, Body};
    use axum::extract::{Path, State};
    use axum::http::{HeaderMap, StatusCode};
    use axum::response::sse::{Event, KeepAlive, Sse};
    use axum::response::{IntoResponse, Response};
    use serde_json::{json, Map, Value};
    use std::sync::Arc;

    fn answer(id: Value, body: Value) -> Response {
        let mut out = json!({"jsonrpc": "2.0", "id": id});
        match body {
            Value::Object(mut m) if m.contains_key("error") => out["error"] = m.remove("error").unwrap_or_default(),
            Value::Object(mut m) => out["result"] = m.remove("result").unwrap_or_default(),
            other => out["result"] = other,
        }
        (StatusCode::OK, [("content-type", "application/json")], out.to_string()).into_response()
    }

    fn error(id: Value, code: i64, message: &str) -> Response {
        answer(id, json!({"error": {"code": code, "message": message}}))
    }

    /// The caller's bot for a key (teammate keys are not A2A clients).
    fn caller_of(p: &Principal) -> Option<String> {
        match p {
            Principal::Admin | Principal::Host => Some(HOST_CALLER.to_string()),
            Principal::Bot(b) => Some(b.clone()),
            Principal::Teammate(_) => None,
        }
    }

    fn base(headers: &HeaderMap, workspace: &str, agent: &str) -> String {
        let host = headers.get("host").and_then(|h| h.to_str().ok()).unwrap_or("127.0.0.1");
        format!("http://{host}/w/{workspace}/a2a/{agent}")
    }

    async fn run(app: &App, workspace: &str, path: &str, request: Request) -> Result<Value, Response> {
        let Some(ws) = app.workspace(workspace) else {
            // Several nodes: A2A is served by the node that writes the workspace; a client sent
            // elsewhere is redirected there (307 keeps the method and the body).
            if let Some(pg) = app.store.cluster() {
                if let Ok(Some((_, Some(url), true))) = pg.owner(workspace).await {
                    let to = format!("{url}{path}");
                    return Err((StatusCode::TEMPORARY_REDIRECT, [("location", to)]).into_response());
                }
            }
            return Err(super::super::refuse(Refusal::NotFound, workspace));
        };
        ws.run(Op::A2a(Box::new(request))).await.map_err(|e| error(Value::Null, -32603, &e.message))
    }

    /// `GET /.well-known/agent-card.json`: the card of the agent `--a2a-default WS/AGENT`
    /// names (404 without it: the root cannot know which workspace is meant).
    pub async fn root_card(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
        match app.a2a_default.clone() {
            Some(pair) => card(State(app), Path(pair), headers).await,
            None => (StatusCode::NOT_FOUND, "no default A2A agent (baton serve --a2a-default WORKSPACE/AGENT)")
                .into_response(),
        }
    }

    /// `GET /w/{workspace}/a2a/{agent}/.well-known/agent-card.json` (a key of the workspace).
    pub async fn card(
        State(app): State<Arc<App>>,
        Path((workspace, agent)): Path<(String, String)>,
        headers: HeaderMap,
    ) -> Response {
        let principal = match app.principal(&headers, &workspace).await {
            Ok(p) => p,
            Err(r) => return super::super::refuse(r, &workspace),
        };
        let Some(caller) = caller_of(&principal) else {
            return super::super::refuse(Refusal::NotFound, &workspace);
        };
        let params = json!({"base": base(&headers, &workspace, &agent)}).as_object().cloned().unwrap_or_default();
        let path = format!("/w/{workspace}/a2a/{agent}/.well-known/agent-card.json");
        let request =
            Request { agent, caller, method: "card".into(), params, fixture: false, new_context: String::new() };
        match run(&app, &workspace, &path, request).await {
            Ok(v) if v.get("result").is_some() => {
                (StatusCode::OK, [("content-type", "application/json")], v["result"].to_string()).into_response()
            }
            Ok(_) => super::super::refuse(Refusal::NotFound, &workspace),
            Err(r) => r,
        }
    }

    /// `POST /w/{workspace}/a2a/{agent}`: one JSON-RPC request.
    pub async fn rpc(
        State(app): State<Arc<App>>,
        Path((workspace, agent)): Path<(String, String)>,
        headers: HeaderMap,
        body: Body,
    ) -> Response {
        let principal = match app.principal(&headers, &workspace).await {
            Ok(p) => p,
            Err(r) => return super::super::refuse(r, &workspace),
        };
        let Ok(bytes) = to_bytes(body, super::super::rpc::BODY_LIMIT).await else {
            return error(Value::Null, -32600, "the request body is too large");
        };
        let Ok(Value::Object(mut req)) = serde_json::from_slice::<Value>(&bytes) else {
            return error(Value::Null, -32700, "the body is not a JSON-RPC request object");
        };
        let id = req.remove("id").unwrap_or(Value::Null);
        // A2A 1.0 clients say so; a request without the header is 0.3, which is not served.
        let version = headers.get("a2a-version").and_then(|v| v.to_str().ok()).unwrap_or("0.3").trim();
        if version != VERSION && !version.starts_with("1.0.") {
            return error(
                id,
                code::VERSION_NOT_SUPPORTED,
                &format!("A2A-Version {version} is not served; this agent speaks {VERSION}"),
            );
        }
        let Some(Value::String(method)) = req.remove("method") else {
            return error(id, -32600, "\"method\" must be a string");
        };
        let params = match req.remove("params") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(m)) => m,
            Some(_) => return error(id, code::INVALID_PARAMS, "params must be an object"),
        };
        let Some(caller) = caller_of(&principal) else {
            return error(id, code::TASK_NOT_FOUND, "teammate keys are not A2A clients");
        };
        let fixture = app.fixtures.contains(&agent);
        let new_context = format!("ctx-{:x}", super::super::random_seed());
        let path = format!("/w/{workspace}/a2a/{agent}");
        let streaming = matches!(method.as_str(), "SendStreamingMessage" | "SubscribeToTask");
        let method = match method.as_str() {
            "SendStreamingMessage" => "SendMessage".to_string(),
            "SubscribeToTask" => "GetTask".to_string(),
            _ => method,
        };
        if !streaming {
            let request = Request { agent, caller, method, params, fixture, new_context };
            return match run(&app, &workspace, &path, request).await {
                Ok(v) => answer(id, v),
                Err(r) => r,
            };
        }
        // Subscribe to the workspace's commits before the command runs: nothing is missed.
        let live = app.workspace(&workspace).map(|ws| ws.events.subscribe());
        let request = Request { agent: agent.clone(), caller: caller.clone(), method, params, fixture, new_context };
        let first = match run(&app, &workspace, &path, request).await {
            Ok(v) => v,
            Err(r) => return r,
        };
        let (Some(mut live), Some(task)) = (live, first.pointer("/result/task").or(first.get("result")).cloned())
        else {
            return answer(id, first);
        };
        if first.get("error").is_some() {
            return answer(id, first);
        }
        let seq = first["seq"].as_u64().unwrap_or(0);
        let (tx, rx) = tokio::sync::mpsc::channel::<Event>(64);
        let event = |seq: u64, result: Value, id: &Value| {
            Event::default().id(seq.to_string()).data(json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string())
        };
        let _ = tx.try_send(event(seq, json!({"task": task}), &id));
        let app2 = app.clone();
        tokio::spawn(async move {
            let task_id = task["id"].as_str().unwrap_or_default().to_string();
            let context = task["contextId"].clone();
            let mut state = task["status"]["state"].clone();
            let mut artifacts = task["artifacts"].as_array().map_or(0, Vec::len);
            while !settled(&state) {
                let line = match live.recv().await {
                    Ok(line) => line,
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(_) => return,
                };
                if line.0 <= seq || !line.1.contains(task_id.as_str()) {
                    continue;
                }
                let params = json!({"id": task_id}).as_object().cloned().unwrap_or_default();
                let get = Request {
                    agent: agent.clone(),
                    caller: caller.clone(),
                    method: "GetTask".into(),
                    params,
                    fixture: false,
                    new_context: String::new(),
                };
                let Ok(now) = run(&app2, &workspace, &path, get).await else { return };
                let Some(t) = now.get("result") else { return };
                let all = t["artifacts"].as_array().cloned().unwrap_or_default();
                for a in all.iter().skip(artifacts) {
                    let update = json!({"artifactUpdate": {"taskId": task_id, "contextId": context, "artifact": a, "lastChunk": true}});
                    if tx.send(event(line.0, update, &id)).await.is_err() {
                        return;
                    }
                }
                artifacts = all.len();
                if t["status"]["state"] != state {
                    state = t["status"]["state"].clone();
                    let update =
                        json!({"statusUpdate": {"taskId": task_id, "contextId": context, "status": t["status"]}});
                    if tx.send(event(line.0, update, &id)).await.is_err() {
                        return;
                    }
                }
            }
        });
        let stream = futures_util::stream::unfold(rx, |mut rx| async move {
            rx.recv().await.map(|e| (Ok::<_, std::convert::Infallible>(e), rx))
        });
        Sse::new(stream).keep_alive(KeepAlive::new().interval(std::time::Duration::from_secs(15))).into_response()
    }

    /// A state after which a task's stream ends (final, or waiting on the client).
    fn settled(state: &Value) -> bool {
        matches!(
            state.as_str(),
            Some(
                "TASK_STATE_COMPLETED"
                    | "TASK_STATE_FAILED"
                    | "TASK_STATE_CANCELED"
                    | "TASK_STATE_REJECTED"
                    | "TASK_STATE_INPUT_REQUIRED"
                    | "TASK_STATE_AUTH_REQUIRED"
            )
        )
    }
}
