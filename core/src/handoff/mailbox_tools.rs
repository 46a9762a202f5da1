//! `mailbox_action`: SEND_MESSAGE and READ_MAIL (rules M1–M9).
use crate::ground::error::{CallError, ErrorCode};
use crate::ground::ids::IdKind;
use crate::ground::ids::ThreadId;
use crate::ground::time::SECOND;
use crate::handoff::ctx::Ctx;
use crate::handoff::flow::Finish;
use crate::handoff::flow::Flow;
use crate::handoff::mailbox::MailItem;
use crate::handoff::mailbox::{rate_wait, MailState, Message, MAX_BODY_CHARS};
use crate::handoff::store::{HandoffState, HandoffTx};
use crate::handoff::wire::*;
use crate::handoff::{HeldReport, OnCompletion};
use serde_json::json;

fn required<'a, T: AsRef<str>>(field: &str, v: &'a Option<T>) -> Result<&'a str, CallError> {
    match v.as_ref().map(AsRef::as_ref) {
        Some(s) if !s.trim().is_empty() => Ok(s),
        Some(_) => Err(CallError::invalid(field, if field == "body" { "M9" } else { "M1" }, "must not be empty")),
        None => Err(CallError::invalid(field, "M1", "is required for SEND_MESSAGE")),
    }
}

pub(crate) fn mailbox_action<'a>(
    tx: &mut impl HandoffTx<'a>,
    ctx: &Ctx,
    a: MailboxActionArgs,
) -> Result<MailboxActionResult, CallError> {
    match a.action {
        MailAction::SendMessage => send_message(tx, ctx, a),
        MailAction::ReadMail => read_mail(tx, ctx, a),
    }
}

fn send_message<'a>(
    tx: &mut impl HandoffTx<'a>,
    ctx: &Ctx,
    a: MailboxActionArgs,
) -> Result<MailboxActionResult, CallError> {
    let to_thread_id = ThreadId::from(required("to_thread_id", &a.to_thread_id)?);
    let to_bot_id = required("to_bot_id", &a.to_bot_id)?.to_string();
    let body = required("body", &a.body)?.to_string();
    let chars = body.chars().count();
    if chars > MAX_BODY_CHARS {
        return Err(CallError::invalid(
            "body",
            "M9",
            format!("is {chars} characters; the limit is {MAX_BODY_CHARS}. Nothing was sent: split it into several messages"),
        ));
    }
    let thread = tx.thread(&to_thread_id).filter(|t| t.deleted_at.is_none()).ok_or_else(|| {
        CallError::new(ErrorCode::NotFound, format!("to_thread_id: no thread '{to_thread_id}' (rule M1)"))
            .field("to_thread_id")
            .rule("M1")
    })?;
    if thread.bot_id != to_bot_id {
        return Err(CallError::invalid(
            "to_bot_id",
            "M1",
            format!("thread '{to_thread_id}' belongs to bot '{}', not '{to_bot_id}'", thread.bot_id),
        ));
    }
    let now = tx.now();
    if let Some(wait) = rate_wait(tx.st().pair_sends(&ctx.bot_id, &to_thread_id), now) {
        let secs = wait.div_ceil(SECOND);
        return Err(CallError::new(
            ErrorCode::RateLimited,
            format!(
                "bot '{}' has sent 12 messages to thread '{to_thread_id}' in the last 300 s (rule M8); nothing was sent, retry in {secs} s",
                ctx.bot_id
            ),
        )
        .field("to_thread_id")
        .rule("M8")
        .data(json!({"retry_after_seconds": secs})));
    }
    let (message_id, seq) = tx.new_seq_id::<crate::ground::ids::MessageId>(IdKind::Message);
    let msg = Message {
        message_id: message_id.clone(),
        seq,
        from_thread_id: ctx.thread_id.clone(),
        from_bot_id: ctx.bot_id.clone(),
        to_thread_id: to_thread_id.clone(),
        to_bot_id: to_bot_id.into(),
        subject: a.subject,
        body: body.clone(),
        sent_at: now,
        state: MailState::Queued,
        system: false,
    };

    // M2: a plain child's report to its source thread completes its handoff (S5 may hold it).
    let mut report = None;
    if let Some(h) = tx.handoff_of_child(&ctx.thread_id) {
        let reports = !h.status.is_terminal()
            && h.spec.is_plain()
            && h.spec.on_completion != OnCompletion::Return
            && h.parent_thread_id == to_thread_id;
        if reports {
            let mut h = h.clone();
            if h.followup_pending_since.is_some() {
                h.held_report = Some(HeldReport { message_id: message_id.clone(), body: body.clone() });
                report = Some(ReportOut {
                    handoff_id: h.handoff_id.clone(),
                    handoff_status: h.status.as_str().into(),
                    held: Some(true),
                    why: Some(
                        "a follow-up is still unanswered; the handoff completes when the child's turn ends (rule S5)"
                            .into(),
                    ),
                });
                tx.put_handoff(h);
            } else {
                h.notice_message_id = Some(message_id.clone());
                let h = tx.finish(h, Some(body), Finish::Report)?;
                report = Some(ReportOut {
                    handoff_id: h.handoff_id.clone(),
                    handoff_status: h.status.as_str().into(),
                    held: None,
                    why: None,
                });
            }
        }
    }
    let delivery = tx.queue_mail(msg);
    let note = match delivery {
        "notice_queued" => "The recipient is mid-turn: a short notice was queued on its next tool result, and the message stays in its mailbox for READ_MAIL. Do not resend.",
        _ => "Queued for normal delivery: the delivery sweep wakes the recipient when an agent slot is free. Do not resend.",
    };
    Ok(MailboxActionResult {
        success: true,
        message_id: Some(message_id),
        to_thread_id: Some(to_thread_id),
        delivery: Some(delivery.into()),
        note: Some(note.into()),
        report,
        count: None,
        messages: None,
    })
}

fn read_mail<'a>(
    tx: &mut impl HandoffTx<'a>,
    ctx: &Ctx,
    a: MailboxActionArgs,
) -> Result<MailboxActionResult, CallError> {
    for (field, given) in [
        ("to_thread_id", a.to_thread_id.is_some()),
        ("to_bot_id", a.to_bot_id.is_some()),
        ("body", a.body.is_some()),
        ("subject", a.subject.is_some()),
    ] {
        if given {
            return Err(CallError::invalid(field, "M1", "is only for SEND_MESSAGE; omit it for READ_MAIL"));
        }
    }
    let waiting: Vec<Message> = tx.st().queued_mail(&ctx.thread_id).cloned().collect();
    let mut items = Vec::new();
    for mut m in waiting {
        items.push(MailItem::of(&m));
        m.state = MailState::Read;
        tx.put_message(m);
    }
    let mut act = tx.activity(&ctx.thread_id);
    if !act.notices.is_empty() {
        act.notices.clear();
        tx.put_activity(&ctx.thread_id, act);
    }
    Ok(MailboxActionResult {
        success: true,
        message_id: None,
        to_thread_id: None,
        delivery: None,
        note: None,
        report: None,
        count: Some(items.len()),
        messages: Some(items),
    })
}
