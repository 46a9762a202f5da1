//! The relay tools: `handoff_to_teammate`, `check_inbox`, `accept_handoff`, `view_thread`,
//! `send_message`, `complete_handoff`, `cancel_handoff` (rules I1–I8).
use crate::ground::error::{CallError, ErrorCode};
use crate::ground::ids::IdKind;
use crate::ground::time::Timestamp;
use crate::handoff::ctx::{non_empty, RelayCtx};
use crate::handoff::effect::Effect;
use crate::relay::lifecycle::{relay_transition, RelayEvent};
use crate::relay::provenance::{clean_label, wrap, Author};
use crate::relay::store::{RelayState, RelayTx};
use crate::relay::trust;
use crate::relay::wire::*;
use crate::relay::InboxEntry;
use crate::relay::{Intent, RelayMessage, RelayStatus, RelayThread, Teammate};
use std::sync::Arc;

/// Characters of the summary shown in an inbox item (I2).
pub(crate) const PREVIEW_CHARS: usize = 240;

fn teammate<'a>(tx: &impl RelayTx<'a>, handle: &str) -> &'a Teammate {
    tx.st().teammates().get(handle).expect("caller and thread teammates are registered")
}

fn author(t: &Teammate) -> Author<'_> {
    Author { handle: &t.handle, name: &t.name, role: &t.role }
}

/// A teammate as a recipient sees it: host-set labels cleaned like wrapped text (I4).
fn sender_out(t: &Teammate, with_email: bool) -> SenderOut {
    SenderOut {
        handle: clean_label(&t.handle),
        name: clean_label(&t.name),
        role: clean_label(&t.role),
        email: t.email.as_deref().filter(|_| with_email).map(clean_label),
    }
}

/// The thread, if the caller takes part in it.
fn participant<'a>(
    tx: &impl RelayTx<'a>,
    ctx: &RelayCtx,
    id: &str,
    rule: &'static str,
) -> Result<Arc<RelayThread>, CallError> {
    let t = tx.relay_thread(id).ok_or_else(|| {
        CallError::new(ErrorCode::NotFound, format!("thread_id: no relay thread '{id}' (rule {rule})"))
            .field("thread_id")
            .rule(rule)
    })?;
    if t.sender != ctx.handle && t.recipient != ctx.handle {
        return Err(CallError::new(
            ErrorCode::Forbidden,
            format!("thread_id: '{}' takes no part in thread '{id}'", ctx.handle),
        )
        .field("thread_id")
        .rule(rule));
    }
    Ok(t)
}

fn recipient_only(t: &RelayThread, ctx: &RelayCtx, rule: &'static str) -> Result<(), CallError> {
    if t.recipient != ctx.handle {
        return Err(CallError::new(
            ErrorCode::Forbidden,
            format!("thread_id: only the recipient ({}) may do this, not '{}' (rule {rule})", t.recipient, ctx.handle),
        )
        .field("thread_id")
        .rule(rule));
    }
    Ok(())
}

/// A text as the viewer receives it: wrapped, with a fresh nonce, unless the viewer wrote it
/// (I4, I6).
fn for_viewer<'a>(tx: &impl RelayTx<'a>, viewer: &str, author_handle: &str, text: &str) -> String {
    if viewer == author_handle {
        text.to_string()
    } else {
        wrap(author(teammate(tx, author_handle)), &tx.nonce(), text)
    }
}

/// The thread as `viewer` sees it: the shape of I5 without `accepted_at` and `trust_overlay`.
fn thread_view<'a>(tx: &impl RelayTx<'a>, t: &RelayThread, viewer: &str) -> RelayThreadResult {
    let sender = teammate(tx, &t.sender);
    let messages = tx
        .relay_messages_of(&t.thread_id)
        .iter()
        .map(|m| RelayMessageOut {
            id: m.message_id.clone(),
            sequence_no: m.sequence_no,
            from: m.from.clone(),
            body: for_viewer(tx, viewer, &m.from, &m.body),
            payload: m.payload.clone(),
            created_at: m.created_at.to_iso(),
        })
        .collect();
    let summary = for_viewer(tx, viewer, &t.sender, &t.summary);
    let proposed_action = t.proposed_action.as_ref().map(|pa| ProposedActionOut {
        description: pa.description.clone(),
        target_files: pa.target_files.clone(),
        rationale: for_viewer(tx, viewer, &t.sender, &pa.rationale),
        suggested_diff: pa.suggested_diff.clone(),
    });
    RelayThreadResult {
        thread_id: t.thread_id.clone(),
        status: t.status.as_str().into(),
        intent: t.intent,
        sender: sender_out(sender, true),
        recipient: t.recipient.clone(),
        summary,
        artifacts: t.artifacts.clone(),
        messages,
        created_at: t.created_at.to_iso(),
        updated_at: t.updated_at.to_iso(),
        result_summary: t.result_summary.as_ref().map(|r| for_viewer(tx, viewer, &t.recipient, r)),
        result_artifacts: t.result_summary.as_ref().map(|_| t.result_artifacts.clone()),
        proposed_action,
        accepted_at: None,
        completed_at: None,
        cancelled_at: None,
        session_id: None,
        trust_overlay: None,
        already_accepted: None,
    }
}

fn touch_thread<'a>(tx: &mut impl RelayTx<'a>, t: &mut RelayThread) {
    t.updated_at = tx.now();
    t.update_seq = tx.next_seq();
}

pub(crate) fn handoff_to_teammate<'a>(
    tx: &mut impl RelayTx<'a>,
    ctx: &RelayCtx,
    a: HandoffToTeammateArgs,
) -> Result<HandoffToTeammateResult, CallError> {
    non_empty("summary", "I5", &a.summary)?;
    if !tx.st().teammates().contains_key(&a.to) {
        return Err(CallError::new(ErrorCode::NotFound, format!("to: no teammate '{}'", a.to)).field("to").rule("I5"));
    }
    if a.to == ctx.handle {
        return Err(CallError::invalid("to", "I5", "hand work to a teammate, not to yourself"));
    }
    let intent = a.intent.unwrap_or(Intent::Inform);
    match (intent, &a.proposed_action) {
        (Intent::ProposeAction, None) => {
            return Err(CallError::invalid("proposed_action", "I5", "is required when intent is propose_action"))
        }
        (Intent::ProposeAction, Some(p)) => {
            non_empty("proposed_action.description", "I5", &p.description)?;
            non_empty("proposed_action.rationale", "I4", &p.rationale)?;
        }
        (_, Some(_)) => return Err(CallError::invalid("proposed_action", "I5", "is only for intent propose_action")),
        _ => {}
    }
    let (thread_id, _) = tx.new_seq_id::<crate::ground::ids::RelayThreadId>(IdKind::Relay);
    let now = tx.now();
    let mut t = RelayThread {
        thread_id: thread_id.clone(),
        sender: ctx.handle.clone(),
        recipient: a.to.clone(),
        summary: a.summary,
        intent,
        proposed_action: a.proposed_action,
        artifacts: a.artifacts.unwrap_or_default(),
        status: RelayStatus::Pending,
        created_at: now,
        updated_at: now,
        update_seq: 0,
        accepted_at: None,
        completed_at: None,
        cancelled_at: None,
        accepted_by_session: None,
        result_summary: None,
        result_artifacts: Vec::new(),
        cancel_reason: None,
        last_sequence_no: 0,
        sender_messages: 0,
        recipient_seen: 0,
    };
    touch_thread(tx, &mut t);
    tx.put_relay_thread(t);
    tx.emit(Effect::RelayNotify { to: a.to.clone(), thread_id: thread_id.clone(), event: "received".into() });
    Ok(HandoffToTeammateResult { thread_id, status: "pending".into(), recipient: a.to, created_at: now.to_iso() })
}

/// `c1.<snapshot>.<before>.<status mask>.<since or ->` in hex: opaque to callers.
fn encode_cursor(snapshot: u64, before: u64, mask: u8, since: Option<Timestamp>) -> String {
    let since = since.map_or("-".to_string(), |s| format!("{:x}", s.0));
    format!("c1.{snapshot:x}.{before:x}.{mask:x}.{since}")
}

fn decode_cursor(c: &str) -> Option<(u64, u64, u8, Option<Timestamp>)> {
    let mut p = c.strip_prefix("c1.")?.split('.');
    let snapshot = u64::from_str_radix(p.next()?, 16).ok()?;
    let before = u64::from_str_radix(p.next()?, 16).ok()?;
    let mask = u8::from_str_radix(p.next()?, 16).ok()?;
    let since = match p.next()? {
        "-" => None,
        s => Some(Timestamp(u64::from_str_radix(s, 16).ok()?)),
    };
    (p.next().is_none() && mask != 0 && mask < 16).then_some((snapshot, before, mask, since))
}

fn status_mask(statuses: &[RelayStatus]) -> u8 {
    statuses.iter().fold(0, |m, s| m | 1 << (*s as u8))
}

pub(crate) fn check_inbox<'a>(
    tx: &mut impl RelayTx<'a>,
    ctx: &RelayCtx,
    a: CheckInboxArgs,
) -> Result<CheckInboxResult, CallError> {
    let limit = a.limit.unwrap_or(50);
    if !(1..=200).contains(&limit) {
        return Err(CallError::invalid("limit", "I1", format!("{limit} is out of range; use 1 to 200")));
    }
    let since = match &a.since {
        Some(s) => Some(Timestamp::parse_iso(s).ok_or_else(|| {
            CallError::invalid("since", "I1", format!("'{s}' is not an ISO 8601 date-time with an offset"))
        })?),
        None => None,
    };
    let mut statuses = a.status.clone().unwrap_or_else(|| vec![RelayStatus::Pending, RelayStatus::Accepted]);
    statuses.sort();
    statuses.dedup();
    if statuses.is_empty() {
        return Err(CallError::invalid("status", "I1", "name at least one status"));
    }
    let (snapshot, before, mask, since) = match &a.cursor {
        Some(c) => {
            let (snapshot, before, mask, csince) = decode_cursor(c)
                .ok_or_else(|| CallError::invalid("cursor", "I1", "is not a cursor this inbox issued"))?;
            if (a.status.is_some() && status_mask(&statuses) != mask) || (a.since.is_some() && since != csince) {
                return Err(CallError::invalid("cursor", "I1", "was issued for other filters; omit status and since"));
            }
            (snapshot, before, mask, csince)
        }
        None => (tx.current_seq(), u64::MAX, status_mask(&statuses), since),
    };
    let st = tx.st();
    let wanted = |status: RelayStatus| mask & (1 << (status as u8)) != 0;
    let after_since = |e: &InboxEntry| since.is_none_or(|t| e.updated_at > t);
    // Where each thread stood at the snapshot: current positions not moved since, plus the
    // former positions of threads an update after the snapshot moved. So paging sees every
    // thread that existed at the snapshot exactly once, whatever arrives or changes meanwhile.
    let mut moved: Vec<(u64, &InboxEntry)> = st
        .inbox_moved_after(&ctx.handle, snapshot)
        .filter(|(seq, e)| *seq <= snapshot && *seq < before && wanted(e.status) && after_since(e))
        .collect();
    moved.sort_by_key(|m| std::cmp::Reverse(m.0));
    let mut walks: Vec<Box<dyn Iterator<Item = (u64, &InboxEntry)> + '_>> = RelayStatus::ALL
        .into_iter()
        .filter(|s| wanted(*s))
        .map(|s| {
            Box::new(
                st.inbox_desc(&ctx.handle, s, before)
                    .filter(move |(seq, _)| *seq <= snapshot)
                    .take_while(move |(_, e)| since.is_none_or(|t| e.updated_at > t)),
            ) as Box<dyn Iterator<Item = _>>
        })
        .collect();
    walks.push(Box::new(moved.into_iter()));
    let mut walks: Vec<_> = walks.into_iter().map(Iterator::peekable).collect();
    let mut picked = Vec::new();
    while picked.len() <= limit as usize {
        let best = walks.iter_mut().enumerate().filter_map(|(i, w)| w.peek().map(|(seq, _)| (*seq, i))).max();
        let Some((_, i)) = best else { break };
        picked.push(walks[i].next().expect("peeked"));
    }
    let more = picked.len() > limit as usize;
    picked.truncate(limit as usize);
    let next_cursor = more.then(|| encode_cursor(snapshot, picked.last().map_or(0, |(s, _)| *s), mask, since));
    let mut items = Vec::new();
    let mut seen = Vec::new();
    for (_, e) in &picked {
        let Some(t) = st.relay_threads().get(&e.thread_id) else { continue };
        let sender = teammate(tx, &t.sender);
        let already = st.relay_seen().get(&t.thread_id).copied().unwrap_or(0);
        let preview: String = t.summary.chars().take(PREVIEW_CHARS).collect();
        items.push(InboxItem {
            thread_id: t.thread_id.clone(),
            sender: sender_out(sender, false),
            summary_preview: wrap(author(sender), &tx.nonce(), &preview),
            summary_chars: t.summary.chars().count(),
            status: t.status.as_str().into(),
            unread_messages: t.sender_messages.saturating_sub(already),
            created_at: t.created_at.to_iso(),
            updated_at: t.updated_at.to_iso(),
        });
        if t.sender_messages > already {
            seen.push((t.thread_id.clone(), t.sender_messages));
        }
    }
    for (thread_id, n) in seen {
        tx.put_relay_seen(thread_id, n);
    }
    Ok(CheckInboxResult { items, next_cursor })
}

pub(crate) fn accept_handoff<'a>(
    tx: &mut impl RelayTx<'a>,
    ctx: &RelayCtx,
    a: AcceptHandoffArgs,
) -> Result<RelayThreadResult, CallError> {
    let t = participant(tx, ctx, &a.thread_id, "I3")?;
    recipient_only(&t, ctx, "I3")?;
    // I3: the trust policy first; a blocked sender is refused before anything changes.
    let (blocked, overlay) = trust::evaluate(tx.st().trust().get(&ctx.handle), &t.sender);
    if blocked {
        return Err(CallError::new(
            ErrorCode::SenderBlocked,
            format!("your trust policy blocks sender '{}'; the thread stays {} (rule I3)", t.sender, t.status.as_str()),
        )
        .field("thread_id")
        .rule("I3"));
    }
    let to = relay_transition(t.status, RelayEvent::Accept).map_err(|e| e.field("thread_id"))?;
    let mut t = (*t).clone();
    let first = t.accepted_at.is_none();
    if first {
        t.status = to;
        t.accepted_at = Some(tx.now());
        t.accepted_by_session = Some(match a.session_id.filter(|s| !s.trim().is_empty()) {
            Some(s) => s,
            None => tx.new_seq_id::<String>(IdKind::Session).0,
        });
        touch_thread(tx, &mut t);
        tx.put_relay_thread(t.clone());
    }
    if t.sender_messages > tx.st().relay_seen().get(&t.thread_id).copied().unwrap_or(0) {
        tx.put_relay_seen(t.thread_id.clone(), t.sender_messages);
    }
    let mut v = thread_view(tx, &t, &ctx.handle);
    v.accepted_at = Some(t.accepted_at.map(Timestamp::to_iso));
    v.session_id = Some(t.accepted_by_session.clone());
    v.trust_overlay = Some(TrustOverlayOut {
        auto_read: overlay.auto_read,
        auto_test: overlay.auto_test,
        auto_write_paths: overlay.auto_write_paths,
        require_approval: overlay.require_approval,
    });
    v.already_accepted = (!first).then_some(true);
    Ok(v)
}

pub(crate) fn view_thread<'a>(
    tx: &mut impl RelayTx<'a>,
    ctx: &RelayCtx,
    a: ViewThreadArgs,
) -> Result<RelayThreadResult, CallError> {
    let t = participant(tx, ctx, &a.thread_id, "I6")?;
    let mut v = thread_view(tx, &t, &ctx.handle);
    v.accepted_at = Some(t.accepted_at.map(Timestamp::to_iso));
    v.completed_at = Some(t.completed_at.map(Timestamp::to_iso));
    v.cancelled_at = Some(t.cancelled_at.map(Timestamp::to_iso));
    Ok(v)
}

pub(crate) fn send_message<'a>(
    tx: &mut impl RelayTx<'a>,
    ctx: &RelayCtx,
    a: SendMessageArgs,
) -> Result<SendMessageResult, CallError> {
    let t = participant(tx, ctx, &a.thread_id, "I7")?;
    if a.body.is_empty() {
        return Err(CallError::invalid("body", "I7", "must be at least 1 character"));
    }
    if let Some(k) = &a.idempotency_key {
        non_empty("idempotency_key", "I7", k)?;
        if let Some(m) = tx.st().idempotent(&t.thread_id, &ctx.handle, k) {
            // The same key again: the stored message, nothing new.
            return Ok(SendMessageResult {
                thread_id: m.thread_id.clone(),
                message_id: m.message_id.clone(),
                sequence_no: m.sequence_no,
                created_at: m.created_at.to_iso(),
                duplicate: Some(true),
            });
        }
    }
    relay_transition(t.status, RelayEvent::Message).map_err(|e| e.field("thread_id").rule("I7"))?;
    let mut t = (*t).clone();
    let (message_id, _) = tx.new_seq_id::<crate::ground::ids::MessageId>(IdKind::Message);
    t.last_sequence_no += 1;
    if ctx.handle == t.sender {
        t.sender_messages += 1;
    }
    touch_thread(tx, &mut t);
    let m = RelayMessage {
        message_id: message_id.clone(),
        thread_id: t.thread_id.clone(),
        sequence_no: t.last_sequence_no,
        from: ctx.handle.clone(),
        body: a.body,
        payload: a.payload,
        created_at: tx.now(),
        idempotency_key: Some(a.idempotency_key.unwrap_or_else(|| format!("auto:{message_id}"))),
    };
    let out = SendMessageResult {
        thread_id: t.thread_id.clone(),
        message_id,
        sequence_no: m.sequence_no,
        created_at: m.created_at.to_iso(),
        duplicate: None,
    };
    let other = if ctx.handle == t.sender { t.recipient.clone() } else { t.sender.clone() };
    tx.emit(Effect::RelayNotify { to: other, thread_id: t.thread_id.clone(), event: "message".into() });
    tx.put_relay_message(m);
    tx.put_relay_thread(t);
    Ok(out)
}

pub(crate) fn complete_handoff<'a>(
    tx: &mut impl RelayTx<'a>,
    ctx: &RelayCtx,
    a: CompleteHandoffArgs,
) -> Result<CompleteHandoffResult, CallError> {
    let t = participant(tx, ctx, &a.thread_id, "I8")?;
    recipient_only(&t, ctx, "I8")?;
    non_empty("result_summary", "I8", &a.result_summary)?;
    let to = relay_transition(t.status, RelayEvent::Complete).map_err(|e| e.field("thread_id").rule("I8"))?;
    let mut t = (*t).clone();
    t.status = to;
    t.completed_at = Some(tx.now());
    t.result_summary = Some(a.result_summary);
    t.result_artifacts = a.artifacts.unwrap_or_default();
    touch_thread(tx, &mut t);
    let out = CompleteHandoffResult {
        thread_id: t.thread_id.clone(),
        status: "completed".into(),
        completed_at: tx.now().to_iso(),
    };
    tx.emit(Effect::RelayNotify { to: t.sender.clone(), thread_id: t.thread_id.clone(), event: "completed".into() });
    tx.put_relay_thread(t);
    Ok(out)
}

pub(crate) fn cancel_handoff<'a>(
    tx: &mut impl RelayTx<'a>,
    ctx: &RelayCtx,
    a: CancelHandoffArgs,
) -> Result<CancelHandoffResult, CallError> {
    let t = participant(tx, ctx, &a.thread_id, "I8")?;
    if t.sender != ctx.handle {
        return Err(CallError::new(
            ErrorCode::Forbidden,
            format!("thread_id: only the sender ({}) may cancel, not '{}'", t.sender, ctx.handle),
        )
        .field("thread_id"));
    }
    let to = relay_transition(t.status, RelayEvent::Cancel).map_err(|e| e.field("thread_id"))?;
    let mut t = (*t).clone();
    t.status = to;
    t.cancelled_at = Some(tx.now());
    t.cancel_reason = a.reason;
    touch_thread(tx, &mut t);
    let out = CancelHandoffResult {
        thread_id: t.thread_id.clone(),
        status: "cancelled".into(),
        cancelled_at: tx.now().to_iso(),
    };
    tx.emit(Effect::RelayNotify { to: t.recipient.clone(), thread_id: t.thread_id.clone(), event: "cancelled".into() });
    tx.put_relay_thread(t);
    Ok(out)
}
