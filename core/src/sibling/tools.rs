//! `handoff_request` (originator side) and `handoff_release` (receiving side) (rules X1–X5).
use crate::ground::error::{CallError, ErrorCode};
use crate::ground::ids::IdKind;
use crate::ground::time::SECOND;
use crate::handoff::ctx::{non_empty, Ctx};
use crate::handoff::effect::Effect;
use crate::handoff::store::HandoffState;
use crate::handoff::thread::Thread;
use crate::sibling::store::{SiblingState, SiblingTx};
use crate::sibling::wire::*;
use crate::sibling::{
    coerce, schema_block, session_transition, AuditEntry, SessionEvent, SiblingSession, MAX_RELEASE_TEXT,
};
use serde_json::{json, Map, Value};

/// Default quiet time after which control goes back to the originator.
const DEFAULT_IDLE_TIMEOUT_S: i64 = 1800;

/// X1: `handoff_release` exists only on the receiving side of an active sibling handoff.
pub(crate) fn on_receiving_side(st: &impl SiblingState, thread: &Thread) -> bool {
    thread
        .sibling_session
        .as_ref()
        .and_then(|s| st.sessions().get(s))
        .is_some_and(|s| s.status == crate::sibling::SessionStatus::Active)
}

pub(crate) fn request<'a>(
    tx: &mut impl SiblingTx<'a>,
    ctx: &Ctx,
    a: HandoffRequestArgs,
) -> Result<HandoffRequestResult, CallError> {
    non_empty("task", "X1", &a.task)?;
    non_empty("target_agent", "X1", &a.target_agent)?;
    let st = tx.st();
    let target = st.resolve_bot(&a.target_agent).ok_or_else(|| {
        CallError::new(ErrorCode::NotFound, format!("target_agent: no agent '{}'", a.target_agent))
            .field("target_agent")
            .rule("X1")
    })?;
    if target.bot_id == ctx.bot_id {
        return Err(CallError::invalid("target_agent", "X1", "hand control to a sibling agent, not to yourself"));
    }
    if !target.active {
        return Err(CallError::invalid(
            "target_agent",
            "X1",
            format!("agent '{}' is deactivated", target.display_name),
        ));
    }
    let timeout = a.idle_timeout_seconds.unwrap_or(DEFAULT_IDLE_TIMEOUT_S);
    if !(60..=86_400).contains(&timeout) {
        return Err(CallError::invalid(
            "idle_timeout_seconds",
            "X1",
            format!("{timeout} is out of range; use 60 to 86400"),
        ));
    }
    let fields = a.expected_return.unwrap_or_default();
    for (i, f) in fields.iter().enumerate() {
        non_empty(&format!("expected_return[{i}].name"), "X3", &f.name)?;
        if fields[..i].iter().any(|g| g.name == f.name) {
            return Err(CallError::invalid(
                &format!("expected_return[{i}].name"),
                "X3",
                format!("'{}' is declared twice", f.name),
            ));
        }
        let is_enum = f.kind == crate::sibling::ReturnType::Enum;
        if is_enum != f.values.as_ref().is_some_and(|v| !v.is_empty()) {
            return Err(CallError::invalid(
                &format!("expected_return[{i}].values"),
                "X3",
                "an enum field needs values, and only an enum field has them",
            ));
        }
    }
    let originator = &ctx.thread;
    if let Some(s) = &originator.bypassed_by {
        return Err(CallError::new(
            ErrorCode::InvalidTransition,
            format!("this thread already handed control to sibling session {s}"),
        )
        .rule("X5"));
    }
    let (session_id, _) = tx.new_seq_id::<crate::ground::ids::SessionId>(IdKind::Session);
    let (thread_id, tseq) = tx.new_seq_id::<crate::ground::ids::ThreadId>(IdKind::Thread);
    let now = tx.now();
    let mut bypassed = (**originator).clone();
    bypassed.bypassed_by = Some(session_id.clone());
    let receiving = Thread {
        owner: originator.owner.clone(),
        title: Some(format!("Sibling handoff from {}", ctx.bot_id)),
        visibility: originator.visibility,
        show_in_thread_list: false,
        parent_thread_id: Some(ctx.thread_id.clone()),
        handoff_reason: Some("sibling_handoff".into()),
        activated_groups: vec!["handoff_release".into()],
        include_parent_context: true,
        sibling_session: Some(session_id.clone()),
        interactive: originator.interactive,
        ..Thread::new(thread_id.clone(), target.bot_id.as_str().into(), tseq, now)
    };
    let context = format!("[SIBLING HANDOFF from {}]\n{}\n\n{}", ctx.bot_id, a.task, schema_block(&fields));
    tx.emit(Effect::StartSibling {
        session_id: session_id.clone(),
        thread_id: thread_id.clone(),
        bot_id: target.bot_id.clone(),
        originator_thread_id: ctx.thread_id.clone(),
        originator_bot_id: ctx.bot_id.as_str().to_owned(),
        context,
    });
    let session = SiblingSession {
        session_id: session_id.clone(),
        originator_bot: ctx.bot_id.as_str().to_owned(),
        originator_thread: ctx.thread_id.clone(),
        sibling_bot: target.bot_id.clone(),
        sibling_thread: thread_id.clone(),
        task: a.task,
        expected_return: fields.clone(),
        idle_timeout_ms: timeout as u64 * SECOND,
        status: crate::sibling::SessionStatus::Active,
        created_at: now,
        ended_at: None,
        outcome: None,
        summary: None,
        reason: None,
        return_values: None,
        missing_required: Vec::new(),
    };
    let out = HandoffRequestResult {
        ok: true,
        session_id: session_id.clone(),
        thread_id: thread_id.clone(),
        target_agent: target.bot_id.clone(),
        status: "active".into(),
        expected_return: fields,
        note: "Control is with the sibling agent; this thread is bypassed until it calls handoff_release or goes quiet past the idle timeout.".into(),
    };
    tx.put_thread(bypassed);
    tx.put_thread(receiving);
    tx.put_session(session);
    Ok(out)
}

fn limit(field: &str, text: &str, min: usize) -> Result<(), CallError> {
    let n = text.chars().count();
    if n < min || n > MAX_RELEASE_TEXT {
        return Err(CallError::invalid(
            field,
            "X2",
            format!("is {n} characters; it must be {min} to {MAX_RELEASE_TEXT}. Nothing was released"),
        ));
    }
    Ok(())
}

pub(crate) fn release<'a>(
    tx: &mut impl SiblingTx<'a>,
    ctx: &Ctx,
    a: HandoffReleaseArgs,
) -> Result<HandoffReleaseResult, CallError> {
    let thread = &ctx.thread;
    let session_id = thread.sibling_session.clone().unwrap_or_default();
    let session = tx.st().sessions().get(&session_id).cloned().ok_or_else(|| {
        CallError::new(ErrorCode::UnknownTool, "handoff_release exists only on the receiving side of a sibling handoff")
            .rule("X1")
    })?;
    limit("summary", &a.summary, 1)?;
    if a.summary.trim().is_empty() {
        return Err(CallError::invalid("summary", "X2", "must not be blank"));
    }
    if let Some(r) = &a.reason {
        limit("reason", r, 0)?;
    }
    let Some(to) = session_transition(session.status, SessionEvent::Release) else {
        return Err(CallError::new(
            ErrorCode::ThreadTerminal,
            format!("session {session_id} is {}", session.status.as_str()),
        )
        .rule("X1"));
    };
    let outcome = a.outcome.unwrap_or_default();
    // X3: coerce what was given to the declared types; list missing required fields; never block.
    let given = a.return_values.unwrap_or_default();
    let mut values = Map::new();
    let mut coercion_errors = Map::new();
    for (k, v) in &given {
        match session.expected_return.iter().find(|f| &f.name == k) {
            Some(f) => match coerce(f, v) {
                Ok(c) => {
                    values.insert(k.clone(), c);
                }
                Err(e) => {
                    values.insert(k.clone(), v.clone());
                    coercion_errors.insert(k.clone(), json!(e));
                }
            },
            None => {
                values.insert(k.clone(), v.clone());
            }
        }
    }
    let missing: Vec<String> = session
        .expected_return
        .iter()
        .filter(|f| f.required && values.get(&f.name).is_none_or(Value::is_null))
        .map(|f| f.name.clone())
        .collect();
    let now = tx.now();
    let mut s = (*session).clone();
    s.status = to;
    s.ended_at = Some(now);
    s.outcome = Some(outcome);
    s.summary = Some(a.summary.clone());
    s.reason = a.reason.clone();
    s.return_values = (!values.is_empty()).then(|| values.clone());
    s.missing_required = missing.clone();
    // X5: the originator resumes with the system message and a Returned data block.
    let mut text = format!(
        "[Bot resumed — the sibling agent has handed control back. Outcome: {}. {}]",
        outcome.as_str(),
        a.summary
    );
    if !values.is_empty() {
        text.push_str("\nReturned data:\n");
        text.push_str(&serde_json::to_string_pretty(&Value::Object(values.clone())).unwrap_or_default());
    }
    crate::sibling::flow::resume_originator(tx, &s, text);
    tx.put_audit(AuditEntry {
        at: now,
        session_id: session_id.clone(),
        actor: ctx.bot_id.as_str().to_owned(),
        action: "released".into(),
        outcome: Some(outcome),
        summary: Some(a.summary),
        reason: a.reason,
    });
    tx.put_session(s);
    Ok(HandoffReleaseResult {
        ok: true,
        session_id,
        status: "released".into(),
        outcome: outcome.as_str().into(),
        return_values: (!values.is_empty()).then_some(values),
        missing_required: (!missing.is_empty()).then_some(missing),
        coercion_errors: (!coercion_errors.is_empty()).then_some(coercion_errors),
    })
}
