//! Push notifications (A2A's push-notification configs) as the task's host callback
//! (`set_callback`, G14): the config's token and authentication ride as headers, its id in the
//! callback's tag; the callback poster (`writer/callbacks.rs`) posts [`push_body`], as [`RENDER`] claims.
use super::code;
use super::request::{fail, handoff_of, task_id_param, Answer, Request};
use super::task::task;
use baton_core::{Engine, Handoff, Status, Storage, Timestamp};
use serde_json::{json, Map, Value};

/// The header a push carries the config's `token` in.
pub const TOKEN_HEADER: &str = "X-A2A-Notification-Token";
/// The tag prefix of a callback that is an A2A push config (the config id follows).
pub const PUSH_TAG: &str = "a2a:";

/// A push config (`configuration.taskPushNotificationConfig`, or the params of
/// `CreateTaskPushNotificationConfig`) as the `set_callback` of task `task_id`, checked:
/// `token` rides in [`TOKEN_HEADER`], `authentication` in `Authorization`; the id is the
/// config's, or the task id.
pub(super) fn push_callback(
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
pub(super) fn push_config(h: &Handoff) -> Option<Value> {
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
pub(super) fn callback_refused(e: baton_core::CallError) -> (i64, String) {
    let code = if e.code == baton_core::ErrorCode::InvalidTransition {
        code::UNSUPPORTED_OPERATION
    } else {
        code::INVALID_PARAMS
    };
    (code, e.message)
}

pub(super) fn create_push<S: Storage>(engine: &mut Engine<S>, now: Timestamp, req: &Request) -> Answer {
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

pub(super) fn get_push<S: Storage>(engine: &Engine<S>, req: &Request) -> Answer {
    named_push(engine, req).map(|(_, cfg)| cfg)
}

/// Deletes a task's config; deleting one that is not there (again) changes nothing and
/// succeeds, as spec §3.1.10 asks of a delete (idempotent). The task must be the caller's.
pub(super) fn delete_push<S: Storage>(engine: &mut Engine<S>, now: Timestamp, req: &Request) -> Answer {
    task_id_param(engine, req)?;
    let Ok((h, _)) = named_push(engine, req) else { return Ok(json!({})) };
    let args =
        baton_core::SetCallback { handoff_id: h.handoff_id.clone(), url: None, headers: Default::default(), tag: None };
    engine.set_callback(args, now).map_err(callback_refused)?;
    Ok(json!({}))
}

/// A push config's callback posts [`push_body`], rendered when it is posted.
pub const RENDER: crate::serve::writer::callbacks::Render = crate::serve::writer::callbacks::Render {
    prefix: PUSH_TAG,
    content_type: "application/a2a+json",
    body: push_body::<crate::serve::writer::actor::Log>,
};

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
