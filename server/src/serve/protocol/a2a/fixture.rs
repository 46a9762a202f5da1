//! The fixture agent (`--fixture-agent BOT`): a configuration whose turns are scripted by the
//! incoming message, so A2A clients, conformance suites and demos can drive a Baton agent
//! without a model. Every turn is made of ordinary tool calls and host inputs on the child
//! thread, so the log reads like a real agent's:
//!
//! | message | the agent's turn | task state |
//! |---|---|---|
//! | `complete: TEXT` (or any other text) | reports back with `mailbox_action` (M2) | COMPLETED |
//! | `fail: ERROR` | the host reports `child_error` | FAILED |
//! | `ask: QUESTION` | `ask_user`; the next message answers and completes (a TCK id's scenario plays instead) | INPUT_REQUIRED |
//! | `reject: REASON` (a new task only) | the host reports `start_failed` (G18) | REJECTED |
//! | `stream: A \| B \| C` | a `write_todo` plan, one step per commit, then reports `A\nB\nC` | WORKING, then COMPLETED |
//!
//! The A2A TCK names the behaviour it wants in the message id instead (`tck-<scenario>-…`, its
//! `scenarios/*.feature`); [`Script::for_message`] plays those Baton can play. Those it cannot —
//! file and data parts, a message in place of a task — are not Baton's: a handoff's result is
//! text; they fall back to the text's script.
//!
//! A script is read before anything is made: a malformed one is refused and changes nothing.
//! `fail:`, `ask:` and `stream:` need `coordination_tools` where they call its tools.
use super::code;
use baton_core::surface::host::{ChildError, StartFailed};
use baton_core::surface::{AskUserArgs, MailAction, MailboxActionArgs, WriteTodoArgs};
use baton_core::{CallError, Caller, Engine, Handoff, Question, QuestionKind, Step, StepStatus, Storage, Timestamp};
use serde_json::{json, Value};

/// At most this many steps in a `stream:` script.
pub const MAX_STEPS: usize = 20;

/// One scripted turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Script {
    Complete(String),
    Fail(String),
    Ask(String),
    Reject(String),
    Stream(Vec<String>),
}

/// A scripted turn, made when it is played.
type Play = fn() -> Script;

/// The A2A TCK's scenarios Baton plays: the message id's prefix after `tck-`, and the turn.
/// Longer prefixes first where one starts another.
const TCK: [(&str, Play); 9] = [
    ("complete-task", || Script::Complete("Hello from TCK".into())),
    ("artifact-text", || Script::Complete("Generated text content".into())),
    ("input-required", || Script::Ask("The TCK's task needs input".into())),
    ("reject-task", || Script::Reject("rejected".into())),
    ("stream-001", || Script::Complete("Stream hello from TCK".into())),
    ("stream-002", || Script::Complete("Stream complete".into())),
    ("stream-003", || Script::Complete("Stream task lifecycle".into())),
    ("stream-ordering-001", || Script::Complete("Ordered output".into())),
    ("stream-artifact-text", || Script::Complete("Streamed text content".into())),
];

impl Script {
    /// The script of a message: the TCK scenario its id names (a new task may be rejected, a
    /// task that exists not), else its text's ([`Script::parse`]).
    pub fn for_message(message_id: &str, text: &str, new_task: bool) -> Result<Script, (i64, String)> {
        match Script::tck(message_id, new_task) {
            Some(s) => Ok(s),
            None => Script::parse(text, new_task),
        }
    }

    /// The TCK scenario a message id names, if Baton plays it (a new task may be rejected, a
    /// task that exists not).
    pub fn tck(message_id: &str, new_task: bool) -> Option<Script> {
        let (_, script) = message_id.strip_prefix("tck-").and_then(|id| TCK.iter().find(|(p, _)| id.starts_with(p)))?;
        Some(script()).filter(|s| new_task || !matches!(s, Script::Reject(_)))
    }

    /// Reads the script of a message. `new_task`: the message makes a task (only then may it
    /// be rejected).
    pub fn parse(text: &str, new_task: bool) -> Result<Script, (i64, String)> {
        let trimmed = text.trim_start();
        let lower = trimmed.to_ascii_lowercase();
        let after = |prefix: &str| -> Result<String, (i64, String)> {
            let rest = trimmed[prefix.len()..].trim().to_string();
            if rest.is_empty() {
                return Err((
                    code::INVALID_PARAMS,
                    format!("message: the fixture script '{prefix}' needs text after it"),
                ));
            }
            Ok(rest)
        };
        if lower.starts_with("fail:") {
            Ok(Script::Fail(after("fail:")?))
        } else if lower.starts_with("ask:") {
            Ok(Script::Ask(after("ask:")?))
        } else if lower.starts_with("reject:") {
            if !new_task {
                return Err((code::INVALID_PARAMS, "message: 'reject:' answers a new task only".into()));
            }
            Ok(Script::Reject(after("reject:")?))
        } else if lower.starts_with("stream:") {
            let parts: Vec<String> =
                after("stream:")?.split('|').map(|p| p.trim().to_string()).filter(|p| !p.is_empty()).collect();
            if parts.is_empty() || parts.len() > MAX_STEPS {
                return Err((
                    code::INVALID_PARAMS,
                    format!("message: 'stream:' takes 1 to {MAX_STEPS} parts separated by '|'"),
                ));
            }
            if let Some(dup) = parts.iter().enumerate().find(|(i, p)| parts[..*i].contains(p)) {
                return Err((code::INVALID_PARAMS, format!("message: the 'stream:' part '{}' appears twice", dup.1)));
            }
            Ok(Script::Stream(parts))
        } else if lower.starts_with("complete:") {
            Ok(Script::Complete(after("complete:")?))
        } else {
            Ok(Script::Complete(format!("Done: {}", text.trim())))
        }
    }
}

/// What is left of a `stream:` turn after its first commit: the later steps, each its own
/// command (a job of its own on the writer), so a stream sees the plan move.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Rest {
    pub agent: String,
    pub handoff_id: String,
    pub parts: Vec<String>,
}

fn refused(e: CallError) -> (i64, String) {
    (code::INVALID_PARAMS, format!("the fixture agent's turn was refused: {}", e.message))
}

/// The fixture's turn on `h`'s child thread. A `stream:` turn writes its first step here and
/// gives back the rest.
pub fn turn<S: Storage>(
    engine: &mut Engine<S>,
    now: Timestamp,
    agent: &str,
    h: &Handoff,
    script: Script,
) -> Result<Option<Rest>, (i64, String)> {
    let Some(child) = h.child_thread_id.as_ref().map(|c| c.as_str().to_string()) else { return Ok(None) };
    let me = Caller::new(&child, agent);
    match script {
        Script::Fail(error) => {
            engine.child_error(ChildError { thread_id: child.as_str().into(), error }, now).map_err(refused)?;
        }
        Script::Ask(question) => {
            let question = Question { question, kind: QuestionKind::Text, options: None, detail: None };
            engine.ask_user(&me, AskUserArgs { questions: vec![question] }, now).map_err(refused)?;
        }
        Script::Reject(reason) => {
            engine
                .start_failed(StartFailed { thread_id: child.as_str().into(), error: reason }, now)
                .map_err(refused)?;
        }
        Script::Complete(body) => report(engine, now, &me, h, &body).map_err(refused)?,
        Script::Stream(parts) => {
            engine.write_todo(&me, WriteTodoArgs { steps: plan(&parts, 0) }, now).map_err(refused)?;
            return Ok(Some(Rest { agent: agent.to_string(), handoff_id: h.handoff_id.as_str().to_string(), parts }));
        }
    }
    Ok(None)
}

/// Step `at` (1-based past the first) of a `stream:` turn: the plan with step `at` in progress,
/// or — at the end — every step done and the parts reported back.
pub fn step<S: Storage>(engine: &mut Engine<S>, now: Timestamp, rest: &Rest, at: usize) -> Result<Value, CallError> {
    let h =
        engine.state().handoffs.get(rest.handoff_id.as_str()).map(|h| (**h).clone()).ok_or_else(|| {
            CallError::new(baton_core::ErrorCode::NotFound, format!("no handoff '{}'", rest.handoff_id))
        })?;
    let child = h.child_thread_id.as_ref().map(|c| c.as_str().to_string()).unwrap_or_default();
    let me = Caller::new(&child, &rest.agent);
    engine.write_todo(&me, WriteTodoArgs { steps: plan(&rest.parts, at) }, now)?;
    if at >= rest.parts.len() {
        report(engine, now, &me, &h, &rest.parts.join("\n"))?;
    }
    Ok(json!({"ok": true}))
}

/// The checklist with the steps before `at` done, step `at` in progress (all done past the end).
fn plan(parts: &[String], at: usize) -> Vec<Step> {
    let status = |i: usize| match i.cmp(&at) {
        std::cmp::Ordering::Less => StepStatus::Completed,
        std::cmp::Ordering::Equal => StepStatus::InProgress,
        std::cmp::Ordering::Greater => StepStatus::Pending,
    };
    parts.iter().enumerate().map(|(i, p)| Step { title: p.clone(), status: status(i) }).collect()
}

/// The child reports `body` back to its parent thread (M2: that completes the task).
fn report<S: Storage>(
    engine: &mut Engine<S>,
    now: Timestamp,
    me: &Caller,
    h: &Handoff,
    body: &str,
) -> Result<(), CallError> {
    let report = MailboxActionArgs {
        action: MailAction::SendMessage,
        to_thread_id: Some(h.parent_thread_id.clone()),
        to_bot_id: Some(h.parent_bot_id.as_str().to_owned()),
        body: Some(body.to_string()),
        subject: None,
    };
    engine.mailbox_action(me, report, now).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_are_read_before_anything_is_made() {
        assert_eq!(Script::parse("complete: all good", true), Ok(Script::Complete("all good".into())));
        assert_eq!(Script::parse("Review it", true), Ok(Script::Complete("Done: Review it".into())));
        assert_eq!(Script::parse("FAIL: no access", true), Ok(Script::Fail("no access".into())));
        assert_eq!(Script::parse("ask: which region?", false), Ok(Script::Ask("which region?".into())));
        assert_eq!(Script::parse("reject: not mine", true), Ok(Script::Reject("not mine".into())));
        assert!(Script::parse("reject: not mine", false).is_err(), "a task that exists is not rejected");
        assert_eq!(
            Script::parse("stream: a | b |c", true),
            Ok(Script::Stream(vec!["a".into(), "b".into(), "c".into()]))
        );
        assert!(Script::parse("stream: a | a", true).is_err(), "steps are distinct (A7)");
        assert!(Script::parse("stream: |", true).is_err());
        assert!(Script::parse(
            &format!(
                "stream: {}",
                vec!["x"; 21].iter().enumerate().map(|(i, _)| i.to_string()).collect::<Vec<_>>().join("|")
            ),
            true
        )
        .is_err());
        assert!(Script::parse("fail:   ", true).is_err());
    }

    #[test]
    fn the_tck_names_its_scenario_in_the_message_id() {
        let play = |id: &str, new_task| Script::for_message(id, "Hello", new_task).unwrap();
        assert_eq!(play("tck-complete-task-1a2b3c4d", true), Script::Complete("Hello from TCK".into()));
        assert!(matches!(play("tck-input-required-1a2b3c4d", true), Script::Ask(_)));
        assert_eq!(play("tck-reject-task-1a2b3c4d", true), Script::Reject("rejected".into()));
        // a task that exists is not rejected: the text's script plays
        assert_eq!(play("tck-reject-task-1a2b3c4d", false), Script::Complete("Done: Hello".into()));
        // a scenario Baton cannot play (a file part) and an id that is not the TCK's: the text's
        assert_eq!(play("tck-artifact-file-1a2b3c4d", true), Script::Complete("Done: Hello".into()));
        assert_eq!(play("m-1", true), Script::Complete("Done: Hello".into()));
    }

    #[test]
    fn a_plan_moves_one_step_at_a_time() {
        let parts = ["a".to_string(), "b".to_string()];
        assert_eq!(
            serde_json::to_value(plan(&parts, 0)).unwrap(),
            json!([{"title": "a", "status": "in_progress"}, {"title": "b", "status": "pending"}])
        );
        assert_eq!(
            serde_json::to_value(plan(&parts, 2)).unwrap(),
            json!([{"title": "a", "status": "completed"}, {"title": "b", "status": "completed"}])
        );
    }
}
