//! A delegation followed as an MCP task: the `io.modelcontextprotocol/tasks` extension
//! (SEP-2663) of the 2026-07-28 revision. A `handoff` call from a client that declares the
//! extension answers a task whose id is the handoff's; `tasks/get` draws the task from the
//! handoff as it stands; `tasks/cancel` is `handoff_cancel`; a question the child is waiting
//! on (`ask_user`) makes the task `input_required`, its input request an elicitation form with
//! one text field per question, and `tasks/update` answers it (`answer_user`).
//!
//! States (the handoff's → the task's): not finished → `working`, or `input_required` while
//! the child waits on a question; `completed`, `expired_unnotified`, `undeliverable` →
//! `completed` with the child's result; `error`, `abandoned`, `materialize_failed` →
//! `completed` with `isError` (the delegation ran and did not succeed: a tool's error, not a
//! protocol one, which is what `failed` is for); `cancelled` → `cancelled`.
use crate::serve::keys::Principal;
use baton_core::{AskStatus, Handoff, State, Status};
use rmcp::model::{
    CallToolResult, ContentBlock, CreateTaskResult, DetailedTask, ElicitRequest, ElicitRequestParams,
    ElicitationSchema, InputRequest, InputRequests, JsonObject, Task, TaskPayload, TaskStatus,
};
use serde_json::{json, Value};

/// How often a client is asked to poll `tasks/get` (milliseconds).
const POLL_MS: u64 = 1000;

/// The answer a person who declines a question is taken to give (an MCP `decline`).
pub const DECLINED: &str = "(The person declined to answer this question.)";

/// Whether `principal` may follow the task of `h`: the agent that delegated, or the host.
pub fn visible(h: &Handoff, principal: &Principal) -> bool {
    match principal {
        Principal::Admin | Principal::Host => true,
        Principal::Bot(b) => h.parent_bot_id == *b,
        Principal::Teammate(_) => false,
    }
}

/// The questions the child of `h` is waiting on: each one's id and its questions' texts.
pub fn pending(state: &State, h: &Handoff) -> Vec<(String, Vec<String>)> {
    let Some(child) = h.child_thread_id.as_ref() else { return Vec::new() };
    state
        .asks
        .values()
        .filter(|a| a.thread_id == *child && a.status == AskStatus::Pending)
        .map(|a| (a.question_id.as_str().to_string(), a.questions.iter().map(|q| q.question.clone()).collect()))
        .collect()
}

/// The task's base fields: its id is the handoff's, its last update the handoff's last status
/// change; Baton keeps every task (`ttlMs` null).
fn base(h: &Handoff, status: TaskStatus) -> Task {
    let mut task = Task::new(h.handoff_id.as_str(), status, h.created_at.to_iso(), h.status_at.to_iso())
        .with_status_message(format!("handoff {}", json!(h.status).as_str().unwrap_or_default()))
        .with_poll_interval_ms(POLL_MS);
    task.ttl_ms = None;
    task
}

/// The task a `handoff` call answers.
pub fn created(state: &State, h: &Handoff) -> CreateTaskResult {
    CreateTaskResult::new(detailed(state, h).task)
}

/// The form that asks a person the questions of one `ask_user`: one required text field per
/// question (`answer_1`, …), titled by it.
fn form(questions: &[String]) -> Option<ElicitRequestParams> {
    let mut schema = ElicitationSchema::builder();
    for (n, q) in questions.iter().enumerate() {
        let q = q.clone();
        schema = schema.required_string_property(format!("answer_{}", n + 1), move |s| s.title(q));
    }
    Some(ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: questions.join("\n"),
        requested_schema: schema.build().ok()?,
    })
}

/// What a call's result looks like as the handoff tool gives it (the `handoff` tool's output
/// schema), with the handoff's status now.
fn outcome(h: &Handoff) -> Value {
    let mut v =
        json!({"success": true, "handoff_id": h.handoff_id.as_str(), "status": h.status, "target_bot": h.child_bot_id});
    if let Some(child) = &h.child_thread_id {
        v["thread_id"] = json!(child.as_str());
    }
    v
}

fn object(result: CallToolResult) -> JsonObject {
    match serde_json::to_value(result) {
        Ok(Value::Object(m)) => m,
        _ => JsonObject::new(),
    }
}

/// A handoff as a task, with what its status carries.
pub fn detailed(state: &State, h: &Handoff) -> DetailedTask {
    let payload = match h.status {
        Status::Cancelled => TaskPayload::Cancelled,
        Status::Completed | Status::ExpiredUnnotified | Status::Undeliverable => {
            let text = h.result.clone().unwrap_or_else(|| "(the child reported no text)".to_string());
            let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
            result.structured_content = Some(outcome(h));
            TaskPayload::Completed { result: object(result) }
        }
        Status::Error | Status::Abandoned | Status::MaterializeFailed => {
            let status = json!(h.status);
            let text =
                h.error.clone().unwrap_or_else(|| format!("the handoff ended {}", status.as_str().unwrap_or_default()));
            TaskPayload::Completed { result: object(CallToolResult::error(vec![ContentBlock::text(text)])) }
        }
        _ => {
            let asked = pending(state, h);
            if asked.is_empty() {
                TaskPayload::Working
            } else {
                let input_requests: InputRequests = asked
                    .into_iter()
                    .filter_map(|(id, questions)| {
                        Some((id, InputRequest::Elicitation(ElicitRequest::new(form(&questions)?))))
                    })
                    .collect();
                TaskPayload::InputRequired { input_requests }
            }
        }
    };
    DetailedTask::new(base(h, TaskStatus::Working), payload)
}

/// The answers `answer_user` takes for one question's form, from the client's response
/// (an `ElicitResult`): `accept` gives each field's text in order; `decline` gives
/// [`DECLINED`] for each; `cancel` is `None` (the whole task is cancelled).
pub fn answers(response: &Value, questions: usize, key: &str) -> Result<Option<Vec<Value>>, String> {
    let action = response.get("action").and_then(Value::as_str);
    match action {
        Some("accept") => (1..=questions)
            .map(|n| {
                let field = format!("answer_{n}");
                response
                    .pointer(&format!("/content/{field}"))
                    .and_then(Value::as_str)
                    .map(|s| Value::String(s.to_string()))
                    .ok_or_else(|| format!("inputResponses.{key}.content.{field}: a text answer is required"))
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Some("decline") => Ok(Some(vec![Value::String(DECLINED.to_string()); questions])),
        Some("cancel") => Ok(None),
        _ => Err(format!("inputResponses.{key}.action: accept, decline or cancel")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_form_response_gives_one_answer_per_question() {
        let accepted = json!({"action": "accept", "content": {"answer_1": "EU", "answer_2": "yes"}});
        assert_eq!(answers(&accepted, 2, "q1"), Ok(Some(vec![json!("EU"), json!("yes")])));
        let short = json!({"action": "accept", "content": {"answer_1": "EU"}});
        assert_eq!(
            answers(&short, 2, "q1"),
            Err("inputResponses.q1.content.answer_2: a text answer is required".into())
        );
        assert_eq!(answers(&json!({"action": "decline"}), 1, "q1"), Ok(Some(vec![json!(DECLINED)])));
        assert_eq!(answers(&json!({"action": "cancel"}), 1, "q1"), Ok(None));
        assert!(answers(&json!({}), 1, "q1").is_err());
    }

    #[test]
    fn the_form_has_a_required_text_field_per_question() {
        let ElicitRequestParams::FormElicitationParams { message, requested_schema, .. } =
            form(&["Which region?".into(), "By when?".into()]).unwrap()
        else {
            panic!("a form")
        };
        assert_eq!(message, "Which region?\nBy when?");
        let schema = serde_json::to_value(requested_schema).unwrap();
        assert_eq!(schema["required"], json!(["answer_1", "answer_2"]));
        assert_eq!(schema["properties"]["answer_2"]["title"], "By when?");
    }
}
