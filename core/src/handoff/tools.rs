//! `handoff`, `handoff_status`, `handoff_send`, `handoff_results`, `handoff_cancel`, `handoff_list`.
use crate::ground::error::{CallError, ErrorCode};
use crate::ground::ids::{HandoffId, IdKind};
use crate::ground::time::{Timestamp, DAY, SECOND};
use crate::handoff::agent::{Agent, PROJECT_MANAGER_TOOLS};
use crate::handoff::ctx::{non_empty, Ctx};
use crate::handoff::effect::Effect;
use crate::handoff::flow::send_refused;
use crate::handoff::flow::Flow;
use crate::handoff::lifecycle::Event;
use crate::handoff::live::{hint, live_state, progress, quiet_since, Live};
use crate::handoff::mailbox::MailState;
use crate::handoff::store::{HandoffState, HandoffTx};
use crate::handoff::thread::{Activity, BlueprintMode, BlueprintRun, JourneyContext, Thread, Visibility};
use crate::handoff::wire::*;
use crate::handoff::{Handoff, HandoffSpec, OnCompletion, Status, ThreadMode};
use std::sync::Arc;

/// Longest watch window accepted (a day).
const MAX_TIMEOUT_SECONDS: i64 = 86_400;

/// `[Title](thread-handoff://<thread_id>?bot=<bot>&title=<form-encoded title>)` (G15).
pub(crate) fn thread_link(title: &str, thread_id: &str, bot: &str) -> String {
    let label: String = title
        .chars()
        .flat_map(|c| match c {
            '[' | ']' | '\\' => vec!['\\', c],
            '\n' | '\r' => vec![' '],
            c => vec![c],
        })
        .collect();
    let enc = |s: &str| form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
    format!("[{label}](thread-handoff://{}?bot={}&title={})", enc(thread_id), enc(bot), enc(title))
}

/// The title of a spawned thread when none is given: the task's first line, shortened for
/// display only (the full task is kept on the handoff).
fn default_title(task: &str) -> String {
    let first = task.trim().lines().next().unwrap_or("").trim();
    let mut title: String = first.chars().take(60).collect();
    if first.chars().count() > 60 {
        title.push('…');
    }
    title
}

/// Rule G17's refusal text.
fn deactivated_error(agent: &Agent) -> String {
    format!(
        "Agent '{}' is deactivated and cannot receive handoffs. Reactivate it or choose an active agent.",
        agent.display_name
    )
}

pub(crate) fn handoff<'a>(tx: &mut impl HandoffTx<'a>, ctx: &Ctx, a: HandoffArgs) -> Result<HandoffResult, CallError> {
    non_empty("task", "G1", &a.task)?;
    let async_mode = a.async_mode.unwrap_or(true);
    if let Some(url) = &a.callback_url {
        non_empty("callback_url", "G14", url)?;
        if async_mode {
            return Err(CallError::invalid(
                "callback_url",
                "G14",
                "is only accepted with async_mode=false; an async child reports back with mailbox_action instead",
            ));
        }
    }
    let timeout = a.timeout_seconds.unwrap_or(crate::handoff::DEFAULT_TIMEOUT_SECONDS as i64);
    if !(1..=MAX_TIMEOUT_SECONDS).contains(&timeout) {
        return Err(CallError::invalid(
            "timeout_seconds",
            "G9",
            format!("{timeout} is out of range; use 1 to {MAX_TIMEOUT_SECONDS} seconds"),
        ));
    }
    let allowed_tools = a.allowed_tools.unwrap_or_default();
    if let Some(i) = allowed_tools.iter().position(|t| t.trim().is_empty()) {
        return Err(CallError::invalid(&format!("allowed_tools[{i}]"), "G13", "tool names must not be empty"));
    }
    if let Some(b) = &a.blueprint_name {
        non_empty("blueprint_name", "G7", b)?;
    }
    let st = tx.st();
    let target = match &a.target_bot {
        Some(name) => {
            non_empty("target_bot", "G2", name)?;
            st.resolve_bot(name).ok_or_else(|| {
                CallError::new(
                    ErrorCode::NotFound,
                    format!("target_bot: no agent has bot id or display name '{name}' (rule G2)"),
                )
                .field("target_bot")
                .rule("G2")
            })?
        }
        None => st.agents().get(ctx.bot_id.as_str()).ok_or_else(|| {
            CallError::new(ErrorCode::NotFound, format!("caller.bot: bot '{}' is not registered", ctx.bot_id))
        })?,
    };
    let visibility = a.visibility.unwrap_or_default();
    let thread_title = a.thread_title.filter(|t| !t.trim().is_empty());
    let spec = HandoffSpec {
        task: a.task,
        target_bot: a.target_bot.map(Into::into),
        thread_mode: a.thread_mode.unwrap_or_default(),
        visibility,
        show_in_thread_list: a.show_in_thread_list.unwrap_or(visibility == Visibility::Visible),
        thread_title,
        context_data: a.context_data,
        blueprint_name: a.blueprint_name,
        blueprint_mode: a.blueprint_mode.unwrap_or_default(),
        async_mode,
        timeout_seconds: timeout as u64,
        on_completion: a.on_completion.unwrap_or_default(),
        auto_redirect: a.auto_redirect.unwrap_or(false),
        allowed_tools,
        include_parent_context: a.include_parent_context.unwrap_or(false),
        stop_on_timeout: a.stop_on_timeout.unwrap_or(true),
        callback_url: a.callback_url,
    };
    let parent = &ctx.thread;
    let now = tx.now();
    let (handoff_id, seq) = tx.new_seq_id::<HandoffId>(IdKind::Handoff);
    let mut h = Handoff {
        handoff_id: handoff_id.clone(),
        seq,
        created_at: now,
        parent_thread_id: parent.thread_id.clone(),
        parent_bot_id: parent.bot_id.clone(),
        child_thread_id: None,
        child_bot_id: target.bot_id.as_str().into(),
        spec,
        status: Status::Started,
        status_at: now,
        watch_until: None,
        result: None,
        outputs: None,
        error: None,
        finished_at: None,
        cancelled_at: None,
        cancel_reason: None,
        nudges_sent: 0,
        last_nudge_at: None,
        callback_failures: 0,
        callback_pending: false,
        followup_pending_since: None,
        held_report: None,
        notice_message_id: None,
        mission_id: None,
        callback: None,
        follow_ups: Vec::new(),
    };

    // G17, G18: the child cannot be materialized; the refusal is recorded as a terminal handoff.
    let refusal = if !target.active {
        Some(deactivated_error(target))
    } else {
        match tx.st().config().max_threads_per_agent {
            Some(max) if tx.st().threads_of(&target.bot_id) >= max => Some(format!(
                "Could not create the child thread: agent '{}' already holds {max} threads (max_threads_per_agent).",
                target.display_name
            )),
            _ => None,
        }
    };
    if let Some(error) = refusal {
        h.status = Status::MaterializeFailed;
        h.error = Some(error.clone());
        tx.put_handoff(h);
        return Ok(HandoffResult {
            success: false,
            handoff_id,
            status: "materialize_failed".into(),
            thread_id: None,
            thread_link: None,
            target_bot: None,
            watch_until: None,
            mission_id: None,
            error: Some(error),
        });
    }

    let (thread_id, tseq) = tx.new_seq_id::<crate::ground::ids::ThreadId>(IdKind::Thread);
    let title = h.spec.thread_title.clone().unwrap_or_else(|| default_title(&h.spec.task));
    let journey = parent.journey.clone().or_else(|| {
        h.spec
            .context_data
            .as_ref()
            .and_then(|c| c.get("blueprint_journey_context"))
            .and_then(|j| serde_json::from_value::<JourneyContext>(j.clone()).ok())
    });
    let blueprint = h.spec.blueprint_name.clone();
    if blueprint.is_some() {
        h.mission_id = Some(tx.new_seq_id::<crate::ground::ids::MissionId>(IdKind::Mission).0);
        // B7: an allowlist agent lacking the group is durably elevated.
        if target.needs_pm_elevation() {
            let mut elevated = target.clone();
            elevated.tool_access_list.push(PROJECT_MANAGER_TOOLS.to_string());
            tx.put_agent(elevated);
        }
    }
    let plain_notify = h.spec.is_plain() && h.spec.on_completion == OnCompletion::Notify;
    let child = Thread {
        owner: parent.owner.clone(),
        title: Some(title.clone()),
        visibility: h.spec.visibility,
        show_in_thread_list: h.spec.show_in_thread_list,
        context_data: h.spec.context_data.clone(),
        parent_thread_id: Some(parent.thread_id.clone()),
        handoff_id: Some(handoff_id.clone()),
        handoff_reason: blueprint.as_ref().map(|_| "blueprint_chain".to_string()),
        allowed_tools: h.spec.allowed_tools.clone(),
        keep_mailbox_action: plain_notify,
        activated_groups: blueprint.iter().map(|_| PROJECT_MANAGER_TOOLS.to_string()).collect(),
        include_parent_context: h.spec.include_parent_context,
        inline: h.spec.thread_mode == ThreadMode::Inline,
        blueprint: blueprint.as_ref().map(|name| BlueprintRun {
            name: name.clone(),
            mode: h.spec.blueprint_mode,
            phase: None,
            paused: false,
            completed: false,
        }),
        journey: if blueprint.is_some() { journey } else { None },
        mission_id: h.mission_id.clone(),
        ..Thread::new(thread_id.clone(), h.child_bot_id.clone(), tseq, now)
    };
    if !h.spec.async_mode {
        h.watch_until = Some(now.plus(h.spec.timeout_seconds * SECOND));
    }
    h.child_thread_id = Some(thread_id.clone());
    let link = thread_link(&title, &thread_id, &target.bot_id);
    tx.emit(crate::handoff::run::start_child(&h, &child));
    if h.spec.auto_redirect {
        tx.emit(Effect::Redirect { thread_id: thread_id.clone(), thread_link: link.clone() });
    }
    let out = HandoffResult {
        success: true,
        handoff_id,
        status: "started".into(),
        thread_id: Some(thread_id),
        thread_link: Some(link),
        target_bot: Some(target.bot_id.clone()),
        watch_until: h.watch_until.map(|w| w.to_iso()),
        mission_id: h.mission_id.clone(),
        error: None,
    };
    // G15: the child thread is stored in the same record as the handoff, before the link is returned.
    tx.put_thread(child);
    tx.put_handoff(h);
    Ok(out)
}

/// The caller's own handoff, or `not_found` / `forbidden` naming `handoff_id`.
fn owned<'a>(tx: &impl HandoffTx<'a>, ctx: &Ctx, id: &str, rule: &'static str) -> Result<Arc<Handoff>, CallError> {
    let h = tx.handoff_arc(id).ok_or_else(|| {
        CallError::new(ErrorCode::NotFound, format!("handoff_id: no handoff '{id}' (rule {rule})"))
            .field("handoff_id")
            .rule(rule)
    })?;
    if h.parent_bot_id != ctx.bot_id {
        return Err(CallError::new(
            ErrorCode::Forbidden,
            format!("handoff_id: handoff '{id}' was started by bot '{}', not '{}'", h.parent_bot_id, ctx.bot_id),
        )
        .field("handoff_id")
        .rule(rule));
    }
    Ok(h)
}

/// `not_notified_reason` (S9): why a finished child's result has not reached its parent.
pub(crate) fn not_notified_reason(st: &impl HandoffState, h: &Handoff, now: Timestamp) -> Option<String> {
    if h.callback_failures > 0 && (h.status == Status::Undeliverable || h.callback_pending) {
        return Some("submit_failed".into());
    }
    if h.status == Status::ExpiredUnnotified {
        return Some(format!("finished_{}_ago", now.secs_since(h.finished_at.unwrap_or(h.status_at))));
    }
    let notice = h.notice_message_id.as_ref().and_then(|m| st.messages().get(m))?;
    if notice.state != MailState::Queued {
        return None;
    }
    let parent_seen = st
        .activities()
        .get(&h.parent_thread_id)
        .and_then(|a| a.last_activity_at)
        .or_else(|| st.threads().get(&h.parent_thread_id).map(|t| t.created_at))
        .unwrap_or(h.created_at);
    Some(format!("parent_idle_{}s", now.secs_since(parent_seen)))
}

/// The child's thread and activity.
fn child_of<'a, 't>(tx: &'t impl HandoffTx<'a>, h: &Handoff) -> (Option<&'t Thread>, Activity) {
    let child = h.child_thread_id.as_deref().and_then(|c| tx.thread(c));
    let act = h.child_thread_id.as_deref().map(|c| tx.activity(c)).unwrap_or_default();
    (child, act)
}

pub(crate) fn status<'a>(
    tx: &mut impl HandoffTx<'a>,
    ctx: &Ctx,
    a: HandoffIdArgs,
) -> Result<HandoffStatusResult, CallError> {
    let mut h = owned(tx, ctx, &a.handoff_id, "S9")?;
    let now = tx.now();
    let mut out = HandoffStatusResult {
        success: true,
        handoff_id: h.handoff_id.clone(),
        status: h.status.as_str().into(),
        stored_status: h.status.as_str().into(),
        live_state: None,
        hint: None,
        elapsed_time: now.secs_since(h.created_at),
        nudges_sent: h.nudges_sent,
        child_thread_id: h.child_thread_id.clone(),
        progress: Progress::default(),
        watch_until: None,
        callback_pending: None,
        result: None,
        error: None,
        not_notified_reason: None,
    };
    if !h.status.is_terminal() {
        let (child, act) = child_of(tx, &h);
        let live = live_state(&h, child, &act, now);
        if live == Live::ChildMissing {
            // S6: the child is gone; retire the handoff.
            let mut retired = (*h).clone();
            tx.advance(&mut retired, Event::Abandon)?;
            retired.error = Some("child thread no longer exists".into());
            tx.put_handoff(retired);
            h = tx.handoff_arc(&a.handoff_id).expect("just staged");
            out.live_state = Some("child_missing".into());
        } else {
            out.status = live.as_str().into();
            out.live_state = Some(live.as_str().into());
            out.hint = hint(live, now.secs_since(quiet_since(&h, &act)), act.mid_turn);
            out.progress = progress(&h, &act, now);
            out.watch_until = h.watch_until.map(|w| w.to_iso());
            out.callback_pending = h.callback_pending.then_some(true);
        }
    }
    if h.status.is_terminal() {
        out.status = h.status.as_str().into();
        out.stored_status = h.status.as_str().into();
    }
    if h.status == Status::Completed || h.result.is_some() {
        out.result = Some(h.result.clone());
    }
    out.error = h.error.clone();
    out.not_notified_reason = not_notified_reason(tx.st(), &h, now);
    Ok(out)
}

pub(crate) fn send<'a>(
    tx: &mut impl HandoffTx<'a>,
    ctx: &Ctx,
    a: HandoffSendArgs,
) -> Result<HandoffSendResult, CallError> {
    let h = owned(tx, ctx, &a.handoff_id, "H1")?;
    non_empty("message", "H1", &a.message)?;
    let refused = |reason: String| HandoffSendResult {
        success: false,
        handoff_id: h.handoff_id.clone(),
        status: "refused".into(),
        queued_to_live_child: false,
        reason: Some(reason),
        child_state: None,
        progress: Progress::default(),
    };
    if send_refused(h.status) {
        return Ok(refused(format!("handoff is {}; nothing was queued (rule H2)", h.status.as_str())));
    }
    let (child, act) = child_of(tx, &h);
    let Some(child) = child.filter(|c| c.deleted_at.is_none()).cloned() else {
        return Ok(refused("the child thread no longer exists; nothing was queued".into()));
    };
    let now = tx.now();
    let child_state =
        if h.status.is_terminal() { h.status.as_str() } else { live_state(&h, Some(&child), &act, now).as_str() };
    let live_child = act.mid_turn;
    let message = a.message;
    tx.emit(Effect::FollowUp {
        handoff_id: h.handoff_id.clone(),
        thread_id: child.thread_id.clone(),
        bot_id: child.bot_id.as_str().to_owned(),
        message: message.clone(),
        to_live_turn: live_child,
        report_to: crate::handoff::run::report_to(&h),
    });
    let out = HandoffSendResult {
        success: true,
        handoff_id: h.handoff_id.clone(),
        status: "queued".into(),
        queued_to_live_child: live_child,
        reason: None,
        child_state: Some(child_state.into()),
        progress: if live_child { Progress::default() } else { progress(&h, &act, now) },
    };
    let mut h = (*h).clone();
    h.follow_ups.push(crate::handoff::FollowUp { message, at: now });
    if !h.status.is_terminal() {
        // S5: the handoff stays live until the child answers this follow-up.
        h.followup_pending_since = Some(now);
    }
    tx.put_handoff(h);
    Ok(out)
}

pub(crate) fn results<'a>(
    tx: &mut impl HandoffTx<'a>,
    ctx: &Ctx,
    a: HandoffIdArgs,
) -> Result<HandoffResultsResult, CallError> {
    let h = owned(tx, ctx, &a.handoff_id, "R1")?;
    let mut out = HandoffResultsResult {
        success: true,
        handoff_id: h.handoff_id.clone(),
        status: h.status.as_str().into(),
        partial: false,
        result: None,
        latest_response: None,
        blueprint_outputs: None,
        finished_at: None,
        cancelled_at: None,
        cancel_reason: None,
        error: None,
        progress: Progress::default(),
    };
    if h.status.is_terminal() && h.result.is_some() {
        out.result = Some(h.result.clone());
        out.blueprint_outputs = h.outputs.clone().map(Some);
        out.finished_at = h.finished_at.map(|t| t.to_iso());
        return Ok(out);
    }
    let (child, act) = child_of(tx, &h);
    out.partial = true;
    out.latest_response = Some(act.last_response.clone());
    out.blueprint_outputs = Some(
        child.filter(|c| c.blueprint.is_some() || !c.blueprint_outputs.is_empty()).map(|c| c.blueprint_outputs.clone()),
    );
    if let Some(t) = h.cancelled_at {
        out.cancelled_at = Some(t.to_iso());
        out.cancel_reason = Some(h.cancel_reason.clone());
    }
    out.error = h.error.clone();
    if h.result.is_some() {
        out.result = Some(h.result.clone());
    }
    out.progress = progress(&h, &act, tx.now());
    Ok(out)
}

pub(crate) fn cancel<'a>(
    tx: &mut impl HandoffTx<'a>,
    ctx: &Ctx,
    a: HandoffCancelArgs,
) -> Result<HandoffCancelResult, CallError> {
    let mut h = (*owned(tx, ctx, &a.handoff_id, "C1")?).clone();
    tx.advance(&mut h, Event::Cancel)?;
    let now = tx.now();
    h.cancelled_at = Some(now);
    h.cancel_reason = a.reason.clone();
    // A synchronous watch still open returns now, empty-handed.
    if h.watch_until.take().is_some() {
        tx.emit(Effect::WatchReturned {
            handoff_id: h.handoff_id.clone(),
            parent_thread_id: h.parent_thread_id.clone(),
            status: "cancelled".into(),
            result: None,
            partial_result: None,
        });
    }
    // C1: the child is not signalled by Baton; the host that runs it is told, and chooses.
    let child = h.child_thread_id.as_deref().and_then(|c| tx.thread(c)).filter(|c| c.deleted_at.is_none());
    if let Some((thread_id, bot_id)) = child.map(|c| (c.thread_id.clone(), c.bot_id.as_str().to_owned())) {
        let mid_turn = tx.activity(&thread_id).mid_turn;
        tx.emit(Effect::HandoffCancelled {
            handoff_id: h.handoff_id.clone(),
            thread_id,
            bot_id,
            parent_thread_id: h.parent_thread_id.clone(),
            mid_turn,
            reason: a.reason,
        });
    }
    // B6: a cancelled continuous blueprint keeps its phase and goes back to manual.
    if let Some(child) = h.child_thread_id.as_deref().and_then(|c| tx.thread(c)) {
        if child.blueprint.as_ref().is_some_and(|b| b.mode == BlueprintMode::Continuous) {
            let mut child = child.clone();
            if let Some(b) = child.blueprint.as_mut() {
                b.mode = BlueprintMode::Manual;
            }
            tx.put_thread(child);
        }
    }
    let out = HandoffCancelResult {
        success: true,
        handoff_id: h.handoff_id.clone(),
        status: "cancelled".into(),
        cancelled_at: now.to_iso(),
        child_signalled: false,
        note: "Tracking stopped. The child was not signalled and may still land side effects; read handoff_results before repeating the work.".into(),
    };
    tx.put_handoff(h);
    Ok(out)
}

pub(crate) fn list<'a>(
    tx: &mut impl HandoffTx<'a>,
    ctx: &Ctx,
    a: HandoffListArgs,
) -> Result<HandoffListResult, CallError> {
    let limit = a.limit.unwrap_or(50);
    let now = tx.now();
    let mut items = Vec::new();
    if limit > 0 {
        // Only open records are visited (oldest first); live checks only for those returned.
        for h in tx.st().open_handoffs().filter(|h| h.parent_bot_id == ctx.bot_id).take(limit as usize) {
            let (child, act) = child_of(tx, h);
            let age_days = (now.since(h.created_at) as f64 / DAY as f64 * 1000.0).round() / 1000.0;
            items.push(ListRecord {
                handoff_id: h.handoff_id.clone(),
                status: h.status.as_str().into(),
                live_state: live_state(h, child, &act, now).as_str().into(),
                age_days,
                child_thread_id: h.child_thread_id.clone(),
                child_bot_id: h.child_bot_id.as_str().to_owned(),
                parent_thread_id: h.parent_thread_id.clone(),
                blueprint_name: h.spec.blueprint_name.clone(),
                nudges_sent: h.nudges_sent,
            });
        }
    }
    Ok(HandoffListResult { success: true, count: items.len(), handoffs: items })
}
