//! The A2A methods as the writer runs them (`execute`, inside a batch, so each commits with its
//! records): sending a message (a task is a handoff), reading, listing and cancelling tasks,
//! the push configs (`push.rs`), the task generations they carry, and the Agent Card.
use super::code;
use super::fixture;
use super::generation::Generations;
use super::history;
use super::push;
use super::request::*;
use super::task::{context_of, context_thread, pending_question, state_of, task, STATES, TERMINAL};
use baton_core::surface::host::{AnswerUser, OpenThread, RegisterAgent};
use baton_core::surface::{HandoffArgs, HandoffCancelArgs, HandoffSendArgs};
use baton_core::{Caller, Engine, Status, Storage, Timestamp};
use serde_json::{json, Value};

/// Every A2A method served, on each binding (the streaming two as SSE or a gRPC stream): the
/// writer's dispatcher answers each, and `--help` names each — checked in process.
pub const METHODS: &[&str] = &[
    "SendMessage",
    "SendStreamingMessage",
    "GetTask",
    "ListTasks",
    "CancelTask",
    "SubscribeToTask",
    "CreateTaskPushNotificationConfig",
    "GetTaskPushNotificationConfig",
    "ListTaskPushNotificationConfigs",
    "DeleteTaskPushNotificationConfig",
    "GetExtendedAgentCard",
];

/// The writer's storage as A2A reads it: with the task generations it keeps.
pub trait Indexed {
    /// The index, once built (`None`: the log could not be read).
    fn generations(&self) -> Option<std::cell::Ref<'_, Generations>>;
}

impl Indexed for crate::serve::writer::actor::Log {
    fn generations(&self) -> Option<std::cell::Ref<'_, Generations>> {
        self.kept::<Generations>()
    }
}

/// The writer's job for an A2A method: the generations index made sure of (built from the
/// whole log the first time), then the method. Its answer is `{"result"}` or `{"error"}`.
pub fn job(req: Request) -> crate::serve::writer::actor::Job {
    Box::new(move |engine, now| {
        drop(engine.storage().index::<Generations>(engine.log_seq()));
        Ok(execute(engine, now, &req))
    })
}

/// Runs one A2A method against the engine (inside the writer's batch).
pub fn execute<S: Storage + Indexed>(engine: &mut Engine<S>, now: Timestamp, req: &Request) -> Value {
    let mut rest = None;
    let tenant = req.params.get("tenant").and_then(Value::as_str).filter(|t| !t.is_empty());
    let history = history::length(req);
    let answer = if let Err(bad) = &history {
        Err(bad.clone())
    } else if tenant.is_some_and(|t| t != req.agent) {
        fail(
            code::INVALID_PARAMS,
            format!("tenant '{}' is not this endpoint's agent '{}'", tenant.unwrap_or_default(), req.agent),
        )
    } else if !engine.state().agents.contains_key(&req.agent) {
        // Not found and not yours look the same: an unknown agent is an unknown task.
        fail(code::TASK_NOT_FOUND, format!("no agent '{}' in this workspace", req.agent))
    } else {
        match req.method.as_str() {
            "card" | "GetExtendedAgentCard" => {
                let base = req.params.get("base").and_then(Value::as_str).unwrap_or_default();
                Ok(card(&engine.state().agents[&req.agent], base))
            }
            "SendMessage" => send_message(engine, now, req, &mut rest),
            "GetTask" => task_param(engine, req).map(|h| task(engine, &h)),
            "ListTasks" => list_tasks(engine, req),
            "CancelTask" => cancel(engine, now, req),
            "CreateTaskPushNotificationConfig" => push::create_push(engine, now, req),
            "GetTaskPushNotificationConfig" => push::get_push(engine, req),
            "ListTaskPushNotificationConfigs" => task_id_param(engine, req).map(
                |h| json!({"configs": push::push_config(&h).into_iter().collect::<Vec<_>>(), "nextPageToken": ""}),
            ),
            "DeleteTaskPushNotificationConfig" => push::delete_push(engine, now, req),
            m => fail(code::METHOD_NOT_FOUND, format!("no method '{m}'; the methods are {}", METHODS.join(", "))),
        }
    };
    // `seq`: the log's last record after this command (a stream's first event id);
    // `fixture_rest`: the later steps of a fixture's `stream:` turn, for the HTTP side to run.
    match answer {
        Ok(mut v) => {
            if let Ok(Some(n)) = history {
                history::limit(&mut v, n);
            }
            if let Some(index) = engine.storage().generations() {
                stamp(&mut v, &index);
                if let (Some(slot), Some(id)) =
                    (&req.follow, v.pointer("/task/id").or(v.get("id")).and_then(Value::as_str))
                {
                    *slot.lock().unwrap_or_else(|e| e.into_inner()) = index.kept(id);
                }
            }
            let mut out = json!({"result": v, "seq": engine.log_seq()});
            if let Some(r) = rest {
                out["fixture_rest"] = json!(r);
            }
            out
        }
        Err((code, message)) => {
            let mut error = code::error_object(code, &message);
            if code == code::TASK_GENERATION_MISMATCH {
                error["data"][0]["metadata"] = mismatch(engine, req);
            }
            json!({"error": error})
        }
    }
}

/// Each task in an answer (a task, `{"task"}`, `{"tasks"}`) with its generation, ProtoJSON's
/// int64 as a string (the HTTP side drops it for a client that did not ask for generations).
fn stamp(answer: &mut Value, index: &Generations) {
    let one = |t: &mut Value| {
        if let Some(g) = t["id"].as_str().and_then(|id| index.generation(id)) {
            t["generation"] = Value::String(g.to_string());
        }
    };
    if let Some(tasks) = answer.get_mut("tasks").and_then(Value::as_array_mut) {
        tasks.iter_mut().for_each(one);
    } else if let Some(t) = answer.get_mut("task") {
        one(t);
    } else if answer.get("status").is_some() {
        one(answer);
    }
}

/// `configuration.ifGenerationMatch`, if given (a bad value is refused by name).
fn if_generation_match(req: &Request) -> Result<Option<i64>, (i64, String)> {
    match req.params.get("configuration").and_then(|c| c.get("ifGenerationMatch")) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => int64(v).map(Some).ok_or_else(|| {
            (code::INVALID_PARAMS, format!("configuration.ifGenerationMatch: {v} is not a whole number"))
        }),
    }
}

/// A generation mismatch's ErrorInfo metadata (the draft's example: strings).
fn mismatch<S: Storage + Indexed>(engine: &Engine<S>, req: &Request) -> Value {
    let message = req.params.get("message");
    let task = message.and_then(|m| m.get("taskId")).and_then(Value::as_str).unwrap_or_default();
    let expected = if_generation_match(req).ok().flatten().map(|g| g.to_string()).unwrap_or_default();
    let current =
        engine.storage().generations().and_then(|i| i.generation(task)).map(|g| g.to_string()).unwrap_or_default();
    json!({"taskId": task, "expectedGeneration": expected, "currentGeneration": current})
}

fn send_message<S: Storage + Indexed>(
    engine: &mut Engine<S>,
    now: Timestamp,
    req: &Request,
    rest: &mut Option<fixture::Rest>,
) -> Answer {
    let message = req.params.get("message").ok_or((code::INVALID_PARAMS, "message is required".to_string()))?;
    let Some(message_id) = message.get("messageId").and_then(Value::as_str).filter(|m| !m.is_empty()) else {
        return fail(code::INVALID_PARAMS, "message.messageId is required");
    };
    let text = text_of(message)?;
    let err = |e: baton_core::CallError| (code::INVALID_PARAMS, e.message);
    if let Some(task_id) = message.get("taskId").and_then(Value::as_str) {
        let h = handoff_of(engine, req, task_id)?;
        let question = pending_question(engine, &h);
        let context = context_of(&h);
        if let Some(sent) = message.get("contextId").and_then(Value::as_str).filter(|c| !c.is_empty()) {
            // spec §3.4.3: a contextId that is not the task's is refused
            if context != sent {
                return fail(
                    code::INVALID_PARAMS,
                    format!("message.contextId: task '{task_id}' is in context \"{context}\", not '{sent}'"),
                );
            }
        }
        if let Some(expected) = if_generation_match(req)? {
            // A2A v1.1 draft §3.2.2: checked against the task as this command finds it;
            // a mismatch changes nothing.
            let current = engine.storage().generations().map(|i| i.generation(task_id));
            match current {
                None => return fail(code::INTERNAL, "task generations are not available: the log could not be read"),
                Some(g) if g != Some(expected as u64) => {
                    let g = g.map_or_else(|| "none".to_string(), |g| g.to_string());
                    return fail(
                        code::TASK_GENERATION_MISMATCH,
                        format!("task '{task_id}': ifGenerationMatch is {expected}, the task is at generation {g}"),
                    );
                }
                Some(_) => {}
            }
        }
        let state = state_of(h.status, h.callback_pending, question.is_some());
        if TERMINAL.contains(&state) {
            // spec §3.1.1: a task in a terminal state takes no more messages
            return fail(
                code::UNSUPPORTED_OPERATION,
                format!("task '{task_id}' is {state}, a terminal state: it takes no more messages; send a new task (referenceTaskIds may name this one)"),
            );
        }
        if let Some(q) = question {
            engine
                .answer_user(AnswerUser { question_id: q.as_str().into(), answers: vec![text.clone().into()] }, now)
                .map_err(err)?;
            if req.fixture {
                let next = fixture::Script::tck(message_id, false)
                    .unwrap_or_else(|| fixture::Script::Complete(format!("Thanks — noted: {text}")));
                fixture::turn(engine, now, &req.agent, &h, next)?;
            }
        } else {
            let script = req.fixture.then(|| fixture::Script::for_message(message_id, &text, false)).transpose()?;
            let parent = Caller::new(h.parent_thread_id.as_str(), &req.caller);
            let send = HandoffSendArgs { handoff_id: task_id.into(), message: text };
            let sent = engine.handoff_send(&parent, send, now).map_err(err)?;
            if !sent.success {
                return fail(
                    code::UNSUPPORTED_OPERATION,
                    format!("task '{task_id}' takes no more messages: it is {}", json!(h.status)),
                );
            }
            if let Some(script) = script {
                *rest = fixture::turn(engine, now, &req.agent, &h, script)?;
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
    // Checked before anything is made, so a bad config or script changes nothing.
    let field = "configuration.taskPushNotificationConfig.";
    if let Some(p) = push {
        push::push_callback(p, "handoff_check", field)?;
    }
    let script = req.fixture.then(|| fixture::Script::for_message(message_id, &text, true)).transpose()?;
    let context =
        message.get("contextId").and_then(Value::as_str).filter(|c| !c.is_empty()).unwrap_or(&req.new_context);
    let thread = context_thread(context);
    if !engine.state().agents.contains_key(&req.caller) {
        engine
            .register_agent(RegisterAgent { bot_id: req.caller.clone(), ..RegisterAgent::default() }, now)
            .map_err(err)?;
    }
    match engine.state().threads.get(thread.as_str()) {
        Some(t) if t.bot_id != req.caller => {
            return fail(code::INVALID_PARAMS, format!("message.contextId '{context}' belongs to another caller"))
        }
        Some(_) => {}
        None => {
            let open = OpenThread {
                thread_id: Some(thread.as_str().into()),
                bot_id: req.caller.clone(),
                ..OpenThread::default()
            };
            engine.open_thread(open, now).map_err(err)?;
        }
    }
    let args = HandoffArgs {
        task: text,
        target_bot: Some(req.agent.clone()),
        async_mode: Some(immediate),
        ..HandoffArgs::default()
    };
    let made = engine.handoff(&Caller::new(&thread, &req.caller), args, now).map_err(err)?;
    // Refused or not (G17, G18), the answer names the handoff: its task says what became of it.
    let id = made.handoff_id.as_str();
    let h = handoff_of(engine, req, id)?;
    if let Some(p) = push.filter(|_| !h.status.is_terminal()) {
        engine.set_callback(push::push_callback(p, id, field)?, now).map_err(push::callback_refused)?;
    }
    if let Some(script) = script.filter(|_| h.status != Status::MaterializeFailed) {
        *rest = fixture::turn(engine, now, &req.agent, &h, script)?;
    }
    let h = handoff_of(engine, req, id)?;
    Ok(json!({"task": task(engine, &h)}))
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
    let cancel = HandoffCancelArgs { handoff_id: h.handoff_id.clone(), reason: Some("cancelled through A2A".into()) };
    engine.handoff_cancel(&parent, cancel, now).map_err(|e| (code::INVALID_PARAMS, e.message))?;
    let h = handoff_of(engine, req, h.handoff_id.as_str())?;
    Ok(task(engine, &h))
}

/// The interfaces of the agent at `base` (`http://HOST/w/WORKSPACE/a2a/AGENT`): the HTTP
/// bindings at that URL, the agent its tenant; gRPC at the server's address, its tenant
/// `WORKSPACE/AGENT` (gRPC's path is the service's: the tenant is the route, `grpc.rs`).
fn interfaces(base: &str, agent: &str) -> Vec<Value> {
    let mut out: Vec<Value> = BINDINGS
        .map(|binding| json!({"url": base, "protocolBinding": binding, "protocolVersion": VERSION, "tenant": agent}))
        .into();
    let rest = base.strip_prefix("http://").unwrap_or(base);
    if let Some((host, path)) = rest.split_once('/') {
        if let Some(workspace) = path.strip_prefix("w/").and_then(|p| p.split('/').next()) {
            out.push(json!({"url": host, "protocolBinding": "GRPC", "protocolVersion": VERSION, "tenant": format!("{workspace}/{agent}")}));
        }
    }
    out
}

/// The Agent Card of `agent` served at `base` (the agent's A2A endpoint).
pub fn card(agent: &baton_core::Agent, base: &str) -> Value {
    json!({
        "name": agent.display_name,
        "description": format!("Baton agent '{}': a task is a handoff to it, followed through its lifecycle.", agent.bot_id),
        "version": env!("CARGO_PKG_VERSION"),
        "supportedInterfaces": interfaces(base, &agent.bot_id),
        "capabilities": {
            "streaming": true,
            "pushNotifications": true,
            "extendedAgentCard": true,
            "extensions": [{
                "uri": GENERATIONS,
                "description": "Task generations (the A2A v1.1 draft's §3.2.7): Task.generation, the generation on every stream event, GetTask's currentGeneration long poll and SendMessage's ifGenerationMatch. Shown to a request that names this URI in A2A-Extensions.",
                "required": false,
            }],
        },
        "securitySchemes": {"bearer": {"httpAuthSecurityScheme": {"scheme": "Bearer", "description": "a Baton key of the workspace"}}},
        "securityRequirements": [{"schemes": {"bearer": {"list": []}}}],
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain", "application/json"],
        "skills": [{"id": "handoff", "name": "Delegated work", "description": "Takes a task as text and reports a result.", "tags": ["baton", "handoff"]}],
    })
}

#[cfg(test)]
mod interface_tests {
    #[test]
    fn the_card_names_the_http_bindings_at_the_agents_url_and_grpc_at_the_servers_address() {
        let all = super::interfaces("http://127.0.0.1:7410/w/demo/a2a/echo", "echo");
        let listed: Vec<(&str, &str, &str)> = all
            .iter()
            .map(|i| {
                (i["protocolBinding"].as_str().unwrap(), i["url"].as_str().unwrap(), i["tenant"].as_str().unwrap())
            })
            .collect();
        assert_eq!(
            listed,
            [
                ("JSONRPC", "http://127.0.0.1:7410/w/demo/a2a/echo", "echo"),
                ("HTTP+JSON", "http://127.0.0.1:7410/w/demo/a2a/echo", "echo"),
                ("GRPC", "127.0.0.1:7410", "demo/echo"),
            ]
        );
    }
}
