//! A handoff as an A2A task: its state (the table in docs/DECISIONS.md, "A2A v1.0"), status
//! message, artifacts and metadata.
use baton_core::{Engine, Handoff, Status, Storage, Timestamp};
use serde_json::{json, Map, Value};

/// The questions the child of `h` asked (`ask_user`), in the order of their ids.
fn asks_of<'a, S: Storage>(engine: &'a Engine<S>, h: &Handoff) -> Vec<&'a std::sync::Arc<baton_core::Ask>> {
    let Some(child) = h.child_thread_id.as_ref() else { return Vec::new() };
    engine.state().asks.values().filter(|a| a.thread_id == *child).collect()
}

/// The question among `asks` the child is waiting on, if any.
fn pending_among(asks: &[&std::sync::Arc<baton_core::Ask>]) -> Option<String> {
    asks.iter()
        .filter(|a| a.status == baton_core::AskStatus::Pending)
        .map(|a| a.question_id.as_str().to_string())
        .next_back()
}

/// The question the child of `h` is waiting on, if any.
pub(super) fn pending_question<S: Storage>(engine: &Engine<S>, h: &Handoff) -> Option<String> {
    pending_among(&asks_of(engine, h))
}

/// The task states a filter may name.
pub(super) const STATES: [&str; 8] = [
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

/// What a task is drawn from — the same for a handoff in the engine ([`task`]) and for a
/// stream's fold of the log (`follow.rs`), so both render alike.
pub(super) struct Facts<'a> {
    pub id: &'a str,
    pub context: &'a str,
    pub status: Status,
    pub status_at: Timestamp,
    pub callback_pending: bool,
    /// The pending question the child waits on: its id and text.
    pub question: Option<(&'a str, &'a str)>,
    pub result: Option<&'a str>,
    pub error: Option<&'a str>,
    pub outputs: Option<&'a Map<String, Value>>,
    /// The child's `write_todo` plan: its task key and steps.
    pub plan: Option<(&'a str, &'a Value)>,
}

impl Facts<'_> {
    pub fn state(&self) -> &'static str {
        state_of(self.status, self.callback_pending, self.question.is_some())
    }

    /// The task's status: its state, when it was reached, and what the agent said (the
    /// question, the error, or the result).
    pub fn status(&self) -> Value {
        let mut status = json!({"state": self.state(), "timestamp": self.status_at.to_iso()});
        let said = match (self.status, self.question) {
            (_, Some((_, q))) => Some(q),
            (Status::Error, _) | (Status::MaterializeFailed, _) => self.error,
            _ => self.result,
        };
        if let Some(text) = said {
            let id = self.id;
            status["message"] = json!({"messageId": format!("{id}-status"), "role": "ROLE_AGENT", "contextId": self.context, "taskId": id, "parts": [{"text": text}]});
        }
        status
    }

    /// The result (text), the blueprint outputs (data) and the child's plan (data, with its
    /// task key), in that order.
    pub fn artifacts(&self) -> Vec<Value> {
        let mut out = Vec::new();
        if let Some(r) = self.result {
            out.push(json!({"artifactId": "result", "name": "result", "parts": [{"text": r}]}));
        }
        if let Some(o) = self.outputs.filter(|o| !o.is_empty()) {
            out.push(json!({"artifactId": "outputs", "name": "blueprint outputs", "parts": [{"data": o}]}));
        }
        if let Some((key, steps)) = self.plan {
            out.push(json!({"artifactId": "plan", "name": "plan", "parts": [{"data": {"steps": steps}}], "metadata": {"taskKey": key}}));
        }
        out
    }
}

/// The child's plan: its thread's current task key (the thread id without one) and the steps
/// of that key's `write_todo` list.
fn plan_of<S: Storage>(engine: &Engine<S>, h: &Handoff) -> Option<(String, Value)> {
    let child = engine.state().threads.get(h.child_thread_id.as_ref()?.as_str())?;
    let key = child.task_id.clone().unwrap_or_else(|| child.thread_id.as_str().to_string());
    let plan = engine.state().todos.get(&key)?;
    Some((key, json!(plan.steps)))
}

/// A task's history: the A2A messages of its conversation, oldest first — the caller's task
/// (its first message), each follow-up it sent (H1, kept on the handoff), each question the
/// agent asked (`ask_user`) and the answer it got, and the agent's last word (its result, or
/// its error). Ordered by time; at one instant, in that order, each answer after its question.
fn history(h: &Handoff, asks: &[&std::sync::Arc<baton_core::Ask>], context: &str) -> Vec<Value> {
    let id = h.handoff_id.as_str();
    let message = |message_id: String, role: &str, text: &str| json!({"messageId": message_id, "role": role, "contextId": context, "taskId": id, "parts": [{"text": text}]});
    let mut said: Vec<(Timestamp, Value)> =
        vec![(h.created_at, message(format!("{id}-task"), "ROLE_USER", &h.spec.task))];
    for (n, f) in h.follow_ups.iter().enumerate() {
        said.push((f.at, message(format!("{id}-follow-up-{}", n + 1), "ROLE_USER", &f.message)));
    }
    let mut asks = asks.to_vec();
    asks.sort_by_key(|a| a.asked_at);
    for a in asks {
        let q = a.question_id.as_str();
        let asked = a.questions.iter().map(|q| q.question.as_str()).collect::<Vec<_>>().join("\n");
        said.push((a.asked_at, message(format!("{id}-ask-{q}"), "ROLE_AGENT", &asked)));
        if let (Some(at), Some(answers)) = (a.answered_at, &a.answers) {
            let text = answers
                .iter()
                .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
                .collect::<Vec<_>>()
                .join("\n");
            said.push((at, message(format!("{id}-answer-{q}"), "ROLE_USER", &text)));
        }
    }
    let last = match h.status {
        Status::Error | Status::MaterializeFailed => h.error.as_deref(),
        _ => h.result.as_deref(),
    };
    if let Some(text) = last {
        said.push((h.finished_at.unwrap_or(h.status_at), message(format!("{id}-result"), "ROLE_AGENT", text)));
    }
    // stable: messages of one instant keep the order they were gathered in
    said.sort_by_key(|(at, _)| *at);
    said.into_iter().map(|(_, m)| m).collect()
}

/// A handoff as an A2A task.
pub(super) fn task<S: Storage>(engine: &Engine<S>, h: &Handoff) -> Value {
    let asks = asks_of(engine, h);
    let question = pending_among(&asks);
    let asked = question
        .as_ref()
        .and_then(|q| engine.state().asks.get(q.as_str()))
        .map(|a| a.questions.iter().map(|q| q.question.clone()).collect::<Vec<_>>().join("\n"));
    let context = context_of(h);
    let plan = plan_of(engine, h);
    let facts = Facts {
        id: h.handoff_id.as_str(),
        context: &context,
        status: h.status,
        status_at: h.status_at,
        callback_pending: h.callback_pending,
        question: question.as_deref().zip(asked.as_deref()),
        result: h.result.as_deref(),
        error: h.error.as_deref(),
        outputs: h.outputs.as_ref(),
        plan: plan.as_ref().map(|(k, s)| (k.as_str(), s)),
    };
    let id = facts.id;
    let mut baton = json!({"handoffId": id, "status": h.status, "childThreadId": h.child_thread_id});
    if h.status == Status::Undeliverable {
        baton["undeliverable"] = json!(true);
    }
    if h.callback_pending {
        baton["callbackPending"] = json!(true);
    }
    if let Some(q) = &question {
        baton["pendingQuestion"] = json!(q);
    }
    let mut t = json!({
        "id": id,
        "contextId": context,
        "status": facts.status(),
        "history": history(h, &asks, &context),
        "metadata": {"baton": baton},
    });
    let artifacts = facts.artifacts();
    if !artifacts.is_empty() {
        t["artifacts"] = Value::Array(artifacts);
    }
    t
}

/// The states after which a task takes nothing more.
pub(super) const TERMINAL: [&str; 4] =
    ["TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"];

pub(super) fn context_thread(context: &str) -> String {
    format!("a2a-{context}")
}

/// The context id of a handoff's parent thread (`a2a-<id>`, or the thread itself).
pub(super) fn context_of(h: &Handoff) -> String {
    let t = h.parent_thread_id.as_str();
    t.strip_prefix("a2a-").unwrap_or(t).to_string()
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
