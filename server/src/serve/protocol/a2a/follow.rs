//! A task's stream, moved forward record by record: the facts a task is drawn from are folded
//! from each committed log record that touches it (the handoff and its deltas, the child's
//! questions, its thread's task key, its `write_todo` plan), and the record gives the events —
//! an `artifactUpdate` for each artifact that changed, a `statusUpdate` when the state did.
//! Each event is what that very record did, whatever has been committed since, so a stream
//! shows every step of the plan and every state, each under its record's sequence number.
use super::task::{Facts, STATES};
use baton_core::{Status, Timestamp};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// The facts of one task, as of the last record folded.
#[derive(Clone)]
pub struct Follow {
    id: String,
    context: String,
    child: Option<String>,
    plan_key: Option<String>,
    status: Status,
    status_at: Timestamp,
    callback_pending: bool,
    result: Option<String>,
    error: Option<String>,
    outputs: Option<Map<String, Value>>,
    /// Pending questions of the child: id → text.
    asks: BTreeMap<String, String>,
    plan: Option<Value>,
    /// The state and artifacts the stream has sent.
    state: &'static str,
    sent: BTreeMap<String, Value>,
}

fn text(v: &Value) -> Option<String> {
    v.as_str().map(str::to_string)
}

impl Follow {
    /// Starts from a task as `GetTask` renders it (the stream's first event): what it shows
    /// counts as sent.
    pub fn from_task(task: &Value) -> Option<Follow> {
        let baton = &task["metadata"]["baton"];
        let status: Status = serde_json::from_value(baton["status"].clone()).ok()?;
        let artifact = |id: &str| task["artifacts"].as_array().and_then(|a| a.iter().find(|x| x["artifactId"] == id));
        let said = text(&task["status"]["message"]["parts"][0]["text"]);
        let mut asks = BTreeMap::new();
        if let Some(q) = text(&baton["pendingQuestion"]) {
            asks.insert(q, said.clone().unwrap_or_default());
        }
        let plan = artifact("plan");
        let mut follow = Follow {
            id: text(&task["id"])?,
            context: text(&task["contextId"]).unwrap_or_default(),
            child: text(&baton["childThreadId"]),
            plan_key: plan.and_then(|p| text(&p["metadata"]["taskKey"])),
            status,
            status_at: Timestamp::parse_iso(task["status"]["timestamp"].as_str().unwrap_or_default())
                .unwrap_or(Timestamp(0)),
            callback_pending: baton["callbackPending"] == true,
            result: artifact("result").and_then(|r| text(&r["parts"][0]["text"])),
            error: matches!(status, Status::Error | Status::MaterializeFailed).then_some(said).flatten(),
            outputs: artifact("outputs").and_then(|o| o["parts"][0]["data"].as_object().cloned()),
            asks,
            plan: plan.map(|p| p["parts"][0]["data"]["steps"].clone()),
            state: "",
            sent: BTreeMap::new(),
        };
        follow.state = STATES.into_iter().find(|s| task["status"]["state"] == *s).unwrap_or("");
        follow.sent = follow
            .facts()
            .artifacts()
            .into_iter()
            .map(|a| (a["artifactId"].as_str().unwrap_or_default().to_string(), a))
            .collect();
        Some(follow)
    }

    /// A task before the record that makes it: nothing known, nothing sent. Folding that
    /// record gives its first state (`generation.rs` counts from there).
    pub fn blank(id: &str, context: &str) -> Follow {
        Follow {
            id: id.to_string(),
            context: context.to_string(),
            child: None,
            plan_key: None,
            status: Status::Started,
            status_at: Timestamp(0),
            callback_pending: false,
            result: None,
            error: None,
            outputs: None,
            asks: BTreeMap::new(),
            plan: None,
            state: "",
            sent: BTreeMap::new(),
        }
    }

    /// The child's thread, once known.
    pub fn child(&self) -> Option<&str> {
        self.child.as_deref()
    }

    /// The key of the child's plan: its thread's task key, or the thread itself.
    pub fn plan_key(&self) -> Option<&str> {
        self.plan_key.as_deref().or(self.child.as_deref())
    }

    /// Whether a log line may touch the task (a cheap test before it is parsed).
    pub fn may_touch(&self, line: &str) -> bool {
        line.contains(self.id.as_str())
            || self.child.as_deref().is_some_and(|c| line.contains(c))
            || self.plan_key.as_deref().is_some_and(|k| line.contains(k))
    }

    /// The stream has reached a state after which a message's stream ends (final, or waiting
    /// on the client).
    pub fn settled(&self) -> bool {
        self.terminal() || matches!(self.state, "TASK_STATE_INPUT_REQUIRED" | "TASK_STATE_AUTH_REQUIRED")
    }

    /// The caller's watch of the task has ended (G9's window closed: `watch_expired`, or
    /// `timeout`): a blocking `SendMessage` answers with the task still working.
    pub fn window_over(&self) -> bool {
        matches!(self.status, Status::WatchExpired | Status::Timeout)
    }

    /// The task is in a terminal state: a subscription's stream ends (spec §3.1.6), and it
    /// takes no more messages.
    pub fn terminal(&self) -> bool {
        super::task::TERMINAL.contains(&self.state)
    }

    /// Folds one log record (a `LogRecord` as JSON) and answers the events it makes.
    pub fn apply(&mut self, record: &Value) -> Vec<Value> {
        let at = record["at"].as_u64().map(Timestamp);
        for c in record["changes"].as_array().into_iter().flatten() {
            self.fold(c, at);
        }
        let mut events = Vec::new();
        for a in self.facts().artifacts() {
            let id = a["artifactId"].as_str().unwrap_or_default().to_string();
            if self.sent.get(&id) != Some(&a) {
                events.push(json!({"artifactUpdate": {"taskId": self.id, "contextId": self.context, "artifact": a, "append": false, "lastChunk": true}}));
                self.sent.insert(id, a);
            }
        }
        let (state, status) = {
            let facts = self.facts();
            (facts.state(), facts.status())
        };
        if state != self.state {
            self.state = state;
            events.push(json!({"statusUpdate": {"taskId": self.id, "contextId": self.context, "status": status}}));
        }
        events
    }

    fn fold(&mut self, c: &Value, at: Option<Timestamp>) {
        let mine = |field: &str| c[field].as_str() == Some(self.id.as_str());
        match c["kind"].as_str().unwrap_or_default() {
            "handoff" if mine("handoff_id") => {
                self.child = text(&c["child_thread_id"]).or(self.child.take());
                for (k, v) in c.as_object().into_iter().flatten() {
                    self.set(k, v);
                }
            }
            "handoff_delta" if mine("handoff_id") => {
                for (k, v) in c["set"].as_object().into_iter().flatten() {
                    self.set(k, v);
                }
                if c["set"].get("status").is_some() {
                    if let Some(at) = at {
                        self.status_at = at;
                    }
                }
            }
            "ask" if c["thread_id"].as_str().is_some_and(|t| Some(t) == self.child.as_deref()) => {
                let id = text(&c["question_id"]).unwrap_or_default();
                if c["status"] == "pending" {
                    let asked: Vec<&str> = c["questions"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|q| q["question"].as_str())
                        .collect();
                    self.asks.insert(id, asked.join("\n"));
                } else {
                    self.asks.remove(&id);
                }
            }
            "thread" | "thread_delta" if c["thread_id"].as_str().is_some_and(|t| Some(t) == self.child.as_deref()) => {
                let task_id = if c["kind"] == "thread" { c.get("task_id") } else { c["set"].get("task_id") };
                if let Some(k) = task_id.and_then(Value::as_str) {
                    self.plan_key = Some(k.to_string());
                }
            }
            "todo" => {
                let key = c["task_id"].as_str().unwrap_or_default();
                let ours = match &self.plan_key {
                    Some(k) => k == key,
                    None => self.child.as_deref() == Some(key),
                };
                if ours {
                    self.plan_key = Some(key.to_string());
                    self.plan = Some(c["steps"].clone());
                }
            }
            _ => {}
        }
    }

    fn set(&mut self, field: &str, v: &Value) {
        match field {
            "status" => {
                if let Ok(s) = serde_json::from_value(v.clone()) {
                    self.status = s;
                }
            }
            "status_at" => {
                if let Some(ms) = v.as_u64() {
                    self.status_at = Timestamp(ms);
                }
            }
            "callback_pending" => self.callback_pending = v == true,
            "result" => self.result = text(v),
            "error" => self.error = text(v),
            "outputs" => self.outputs = v.as_object().cloned(),
            _ => {}
        }
    }

    fn facts(&self) -> Facts<'_> {
        let question = self.asks.iter().next_back().map(|(id, q)| (id.as_str(), q.as_str()));
        Facts {
            id: &self.id,
            context: &self.context,
            status: self.status,
            status_at: self.status_at,
            callback_pending: self.callback_pending,
            question,
            result: self.result.as_deref(),
            error: self.error.as_deref(),
            outputs: self.outputs.as_ref(),
            plan: self.plan_key.as_deref().zip(self.plan.as_ref()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn started() -> Value {
        json!({
            "id": "handoff_1", "contextId": "ctx",
            "status": {"state": "TASK_STATE_SUBMITTED", "timestamp": "2026-01-05T09:00:00.000Z"},
            "metadata": {"baton": {"handoffId": "handoff_1", "status": "started", "childThreadId": "chat_c"}},
        })
    }

    fn kinds(events: &[Value]) -> Vec<String> {
        events.iter().map(|e| e.as_object().unwrap().keys().next().unwrap().clone()).collect()
    }

    #[test]
    fn every_record_gives_its_own_events() {
        let mut f = Follow::from_task(&started()).unwrap();
        assert!(f.may_touch(r#"{"thread_id":"chat_c"}"#) && !f.may_touch(r#"{"thread_id":"chat_x"}"#));
        // The child writes its plan: an artifact, and the first activity makes it WORKING.
        let plan = json!({"at": 1, "changes": [
            {"kind": "todo", "task_id": "chat_c", "steps": [{"title": "a", "status": "in_progress"}]},
            {"kind": "handoff_delta", "handoff_id": "handoff_1", "set": {"status": "running"}},
        ]});
        let ev = f.apply(&plan);
        assert_eq!(kinds(&ev), ["artifactUpdate", "statusUpdate"]);
        assert_eq!(ev[0]["artifactUpdate"]["artifact"]["parts"][0]["data"]["steps"][0]["title"], "a");
        assert_eq!(ev[1]["statusUpdate"]["status"]["state"], "TASK_STATE_WORKING");
        // The same plan again moves nothing; another task's plan is not ours.
        assert!(f.apply(&plan).is_empty());
        assert!(f.apply(&json!({"at": 2, "changes": [{"kind": "todo", "task_id": "chat_x", "steps": []}]})).is_empty());
        // A question: INPUT_REQUIRED, with its text; answered: WORKING again.
        let ask = |status: &str| json!({"at": 3, "changes": [{"kind": "ask", "thread_id": "chat_c", "question_id": "q1", "status": status, "questions": [{"question": "Which region?"}]}]});
        let ev = f.apply(&ask("pending"));
        assert_eq!(ev[0]["statusUpdate"]["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
        assert_eq!(ev[0]["statusUpdate"]["status"]["message"]["parts"][0]["text"], "Which region?");
        assert!(f.settled());
        assert_eq!(f.apply(&ask("answered"))[0]["statusUpdate"]["status"]["state"], "TASK_STATE_WORKING");
        // The report: the result artifact and COMPLETED, at the record's time.
        let done = json!({"at": 1767600000000u64, "changes": [{"kind": "handoff_delta", "handoff_id": "handoff_1", "set": {"status": "completed", "result": "fine"}}]});
        let ev = f.apply(&done);
        assert_eq!(kinds(&ev), ["artifactUpdate", "statusUpdate"]);
        assert_eq!(ev[0]["artifactUpdate"]["artifact"]["artifactId"], "result");
        assert_eq!(ev[1]["statusUpdate"]["status"]["state"], "TASK_STATE_COMPLETED");
        assert_eq!(ev[1]["statusUpdate"]["status"]["timestamp"], "2026-01-05T08:00:00Z");
        assert!(f.settled());
    }

    #[test]
    fn a_callback_in_flight_is_working_and_a_start_failure_rejected() {
        let mut f = Follow::from_task(&started()).unwrap();
        let out = json!({"at": 1, "changes": [{"kind": "handoff_delta", "handoff_id": "handoff_1", "set": {"callback_pending": true, "result": "r"}}]});
        assert_eq!(f.apply(&out)[1]["statusUpdate"]["status"]["state"], "TASK_STATE_WORKING");
        let mut g = Follow::from_task(&started()).unwrap();
        let rejected = json!({"at": 1, "changes": [{"kind": "handoff_delta", "handoff_id": "handoff_1", "set": {"status": "materialize_failed", "error": "no capacity"}}]});
        let ev = g.apply(&rejected);
        assert_eq!(ev[0]["statusUpdate"]["status"]["state"], "TASK_STATE_REJECTED");
        assert_eq!(ev[0]["statusUpdate"]["status"]["message"]["parts"][0]["text"], "no capacity");
    }
}
