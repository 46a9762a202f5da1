//! Host inputs of coordination (rules A1–A8): skills and tasks, reports, answers to questions, leg sessions and their outcomes.
use crate::coord::store::{CoordState, CoordTx};
use crate::ground::error::{CallError, ErrorCode};
use crate::handoff::ctx::{live_thread, non_empty};
use crate::handoff::store::HandoffState;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// `create_skill`: a scheduler skill with a generated name (A6).
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct CreateSkill {
    /// Base name; kebab-cased, then a hash suffix is added.
    #[cfg_attr(feature = "schema", schemars(pattern(r"[A-Za-z0-9]")))]
    pub base_name: String,
}

/// `start_task`: a thread starts a new task (run); checklists are kept per task (A7).
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct StartTask {
    /// Thread.
    pub thread_id: crate::ground::ids::ThreadId,
    /// Task id (default: a new id).
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(length(min = 1), pattern(crate::ground::limits::NON_BLANK)))]
    pub task_id: Option<String>,
}

/// `report_written`: a report file was written in the thread's current task (A7).
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ReportWritten {
    /// Thread.
    pub thread_id: crate::ground::ids::ThreadId,
    /// Path of the file (`report-*.md` or `report-*.html` counts).
    pub path: String,
}

/// `register_leg_session`.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct LegSessionArgs {
    /// Session id (the `self_id` legs name).
    #[cfg_attr(feature = "schema", schemars(length(min = 1), pattern(crate::ground::limits::NON_BLANK)))]
    pub session_id: String,
    /// What the session is for.
    pub role: String,
    /// A model the session is pinned to.
    #[serde(default)]
    pub model: Option<String>,
}

/// `leg_usage`.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct LegUsage {
    /// Leg.
    pub leg_id: crate::ground::ids::LegId,
    /// Tokens spent (added to what the leg already reported).
    pub usage: crate::handoff::usage::Usage,
}

/// `leg_report`.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct LegReport {
    /// Leg.
    pub leg_id: crate::ground::ids::LegId,
    /// The report, kept whole.
    pub text: String,
}

/// `leg_failed`.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct LegFailed {
    /// Leg.
    pub leg_id: crate::ground::ids::LegId,
    /// What failed.
    #[cfg_attr(feature = "schema", schemars(length(min = 1), pattern(crate::ground::limits::NON_BLANK)))]
    pub error: String,
}

/// `answer_user`: the user answered an `ask_user` question (A8).
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct AnswerUser {
    /// Question id from `ask_user`.
    pub question_id: crate::ground::ids::QuestionId,
    /// One answer per question, in order: a string (text, secret, single select) or a list
    /// of strings (multi select).
    pub answers: Vec<Value>,
}

/// `create_skill`'s answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SkillCreated {
    /// Always true.
    pub ok: bool,
    /// The generated name (with its hash suffix): what `schedules` `write` takes (A6).
    pub skill_name: String,
}

pub(crate) fn create_skill<'a>(tx: &mut impl CoordTx<'a>, a: CreateSkill) -> Result<SkillCreated, CallError> {
    let base: String = a
        .base_name
        .trim()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' })
        .collect::<String>()
        .split('-')
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    if base.is_empty() {
        return Err(CallError::invalid("base_name", "A6", "needs at least one letter or digit"));
    }
    let (id, _) = tx.new_seq_id::<String>(crate::ground::ids::IdKind::Task);
    let suffix: String = id.trim_start_matches("task_").chars().take(8).collect();
    let name = format!("{base}-{suffix}");
    tx.put_skill(crate::coord::schedule::Skill { name: name.clone(), trashed: false });
    Ok(SkillCreated { ok: true, skill_name: name })
}

/// `start_task`'s answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TaskStarted {
    /// Always true.
    pub ok: bool,
    /// The thread.
    pub thread_id: crate::ground::ids::ThreadId,
    /// The task it works on now (the one given, or a new id).
    pub task_id: String,
}

pub(crate) fn start_task<'a>(tx: &mut impl CoordTx<'a>, a: StartTask) -> Result<TaskStarted, CallError> {
    let mut t = (*live_thread(tx, &a.thread_id)?).clone();
    let task_id = match a.task_id {
        Some(id) => {
            non_empty("task_id", "A7", &id)?;
            id
        }
        None => tx.new_seq_id::<String>(crate::ground::ids::IdKind::Task).0,
    };
    t.task_id = Some(task_id.clone());
    tx.put_thread(t);
    Ok(TaskStarted { ok: true, thread_id: a.thread_id, task_id })
}

/// `report_written`'s answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ReportCounted {
    /// Always true.
    pub ok: bool,
    /// The task it belongs to.
    pub task_id: String,
    /// Whether it counts as the task's report (`report-*.md` or `.html`, A7).
    pub counts_as_report: bool,
}

pub(crate) fn report_written<'a>(tx: &mut impl CoordTx<'a>, a: ReportWritten) -> Result<ReportCounted, CallError> {
    let t = live_thread(tx, &a.thread_id)?;
    let file = a.path.rsplit('/').next().unwrap_or(&a.path);
    let counts = file.starts_with("report-") && (file.ends_with(".md") || file.ends_with(".html"));
    let task_id = t.task_id.clone().unwrap_or_else(|| t.thread_id.to_string());
    if counts {
        tx.put_report(task_id.clone(), a.path.clone());
    }
    Ok(ReportCounted { ok: true, task_id, counts_as_report: counts })
}

/// `answer_user`'s answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Answered {
    /// Always true.
    pub ok: bool,
    /// The question.
    pub question_id: crate::ground::ids::QuestionId,
    /// `answered`.
    pub status: String,
    /// The answers as stored (a secret's masked, A8).
    pub answers: Vec<Value>,
}

pub(crate) fn answer_user<'a>(tx: &mut impl CoordTx<'a>, a: AnswerUser) -> Result<Answered, CallError> {
    use crate::coord::ask::AskEvent;
    use crate::handoff::question::QuestionKind;
    let ask = tx.st().asks().get(&a.question_id).cloned().ok_or_else(|| {
        CallError::new(ErrorCode::NotFound, format!("question_id: no question '{}'", a.question_id))
            .field("question_id")
    })?;
    let answered_status = crate::ground::machine::next::<crate::coord::ask::AskLifecycle>(ask.status, AskEvent::Answer)
        .map_err(|e| e.field("question_id"))?;
    if a.answers.len() != ask.questions.len() {
        return Err(CallError::invalid(
            "answers",
            "A8",
            format!("{} answers for {} questions; answer each, in order", a.answers.len(), ask.questions.len()),
        ));
    }
    let mut stored = Vec::new();
    for (i, (q, v)) in ask.questions.iter().zip(&a.answers).enumerate() {
        let field = format!("answers[{i}]");
        let options = q.options.as_deref().unwrap_or(&[]);
        match q.kind {
            QuestionKind::Text | QuestionKind::Secret => {
                if !v.is_string() {
                    return Err(CallError::invalid(&field, "A8", "must be a string"));
                }
            }
            QuestionKind::SingleSelect => {
                if !v.as_str().is_some_and(|s| options.iter().any(|o| o == s)) {
                    return Err(CallError::invalid(&field, "A8", format!("must be one of {options:?}")));
                }
            }
            QuestionKind::MultiSelect => {
                let ok = v
                    .as_array()
                    .is_some_and(|xs| xs.iter().all(|x| x.as_str().is_some_and(|s| options.iter().any(|o| o == s))));
                if !ok {
                    return Err(CallError::invalid(&field, "A8", format!("must be a list drawn from {options:?}")));
                }
            }
        }
        // A masked answer never reaches the log in clear.
        stored.push(if q.kind == QuestionKind::Secret {
            json!(format!("[masked: {} characters]", v.as_str().map_or(0, |s| s.chars().count())))
        } else {
            v.clone()
        });
    }
    let mut answered = (*ask).clone();
    answered.status = answered_status;
    answered.answered_at = Some(tx.now());
    answered.answers = Some(stored.clone());
    tx.emit(crate::handoff::effect::Effect::ResumeRun {
        thread_id: ask.thread_id.clone(),
        question_id: ask.question_id.clone(),
        answers: a.answers,
        snapshot: ask.snapshot.clone(),
    });
    tx.put_ask(answered);
    Ok(Answered { ok: true, question_id: a.question_id, status: "answered".into(), answers: stored })
}

/// `register_leg_session`'s answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LegSessionRegistered {
    /// Always true.
    pub ok: bool,
    /// The session.
    pub session_id: String,
}

pub(crate) fn register_leg_session<'a>(
    tx: &mut impl CoordTx<'a>,
    a: LegSessionArgs,
) -> Result<LegSessionRegistered, CallError> {
    non_empty("session_id", "A1", &a.session_id)?;
    if a.session_id.starts_with("temp-") {
        return Err(CallError::invalid(
            "session_id",
            "A1",
            "temp- sessions are the legs' own; name a reusable session",
        ));
    }
    if let Some(m) = &a.model {
        if !tx.st().config().models.iter().any(|x| x == m) {
            return Err(CallError::invalid(
                "model",
                "A4",
                format!("'{m}' is not a usable model; usable: {:?}", tx.st().config().models),
            ));
        }
    }
    let id = a.session_id.clone();
    tx.put_leg_session(crate::coord::leg::LegSession { session_id: a.session_id, role: a.role, model: a.model });
    Ok(LegSessionRegistered { ok: true, session_id: id })
}

pub(crate) fn live_leg<'a>(tx: &impl CoordTx<'a>, id: &str) -> Result<crate::coord::leg::Leg, CallError> {
    let leg = tx
        .leg(id)
        .ok_or_else(|| CallError::new(ErrorCode::NotFound, format!("leg_id: no leg '{id}'")).field("leg_id"))?;
    if leg.status.is_terminal() {
        return Err(CallError::new(
            ErrorCode::ThreadTerminal,
            format!("leg '{id}' already ended ({})", leg.status.as_str()),
        )
        .field("leg_id")
        .rule("A2"));
    }
    Ok(leg)
}

/// `leg_usage`'s answer: the leg's usage so far.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LegUsageTotal {
    /// Always true.
    pub ok: bool,
    /// The leg.
    pub leg_id: crate::ground::ids::LegId,
    /// Everything reported for it, added up (A3).
    pub usage: crate::handoff::usage::Usage,
}

pub(crate) fn leg_usage<'a>(tx: &mut impl CoordTx<'a>, a: LegUsage) -> Result<LegUsageTotal, CallError> {
    live_leg(tx, &a.leg_id)?;
    let usage = crate::coord::legflow::usage(tx, &a.leg_id, a.usage).ok_or_else(|| {
        CallError::new(ErrorCode::NotFound, format!("leg_id: no live leg '{}'", a.leg_id)).field("leg_id")
    })?;
    Ok(LegUsageTotal { ok: true, leg_id: a.leg_id, usage })
}

/// `leg_report` / `leg_failed`'s answer: how the leg ended.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LegEnded {
    /// Always true.
    pub ok: bool,
    /// The leg.
    pub leg_id: crate::ground::ids::LegId,
    /// `done` or `failed`.
    pub status: String,
    /// Where its report was stored (`leg_report`, A3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub report_path: Option<Option<String>>,
    /// The result's header (`leg_report`, A3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub header: Option<String>,
}

pub(crate) fn leg_report<'a>(tx: &mut impl CoordTx<'a>, a: LegReport) -> Result<LegEnded, CallError> {
    let leg = live_leg(tx, &a.leg_id)?;
    if leg.status != crate::coord::leg::LegStatus::Running {
        return Err(CallError::new(
            ErrorCode::InvalidTransition,
            format!("leg '{}' is queued; it has not started", a.leg_id),
        )
        .field("leg_id")
        .rule("A2"));
    }
    let leg = crate::coord::legflow::end_leg(tx, leg, crate::coord::leg::LegEvent::Report, Some(a.text))
        .expect("running leg reports");
    Ok(LegEnded {
        ok: true,
        header: Some(leg.header()),
        status: leg.status.as_str().into(),
        report_path: Some(leg.report_path),
        leg_id: leg.leg_id,
    })
}

pub(crate) fn leg_failed<'a>(tx: &mut impl CoordTx<'a>, a: LegFailed) -> Result<LegEnded, CallError> {
    let leg = live_leg(tx, &a.leg_id)?;
    non_empty("error", "A2", &a.error)?;
    let leg = crate::coord::legflow::end_leg(tx, leg, crate::coord::leg::LegEvent::Fail, Some(a.error))
        .expect("live leg fails");
    Ok(LegEnded { ok: true, status: leg.status.as_str().into(), leg_id: leg.leg_id, report_path: None, header: None })
}
