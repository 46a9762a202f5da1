//! Host inputs of the handoff lifecycle: turns, tool calls, responses, errors, blueprint progress, callbacks, mission strips.
use crate::ground::error::{CallError, ErrorCode};
use crate::handoff::blueprint::stage_states;
use crate::handoff::ctx::{live_thread, no_thread, non_empty, ThreadRef};
use crate::handoff::dispatch;
use crate::handoff::flow::Finish;
use crate::handoff::flow::Flow;
use crate::handoff::lifecycle::Event;
use crate::handoff::store::{HandoffState, HandoffTx};
use crate::handoff::thread::{answer_text, BlueprintMode, Thread, ToolCallRef};
use crate::handoff::{OnCompletion, Status};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A handoff a host input moved, and its status now.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct HandoffMoved {
    /// Handoff.
    pub handoff_id: crate::ground::ids::HandoffId,
    /// Its stored status now (S10).
    pub handoff_status: String,
}

impl HandoffMoved {
    fn of(h: &crate::handoff::Handoff) -> Self {
        HandoffMoved { handoff_id: h.handoff_id.clone(), handoff_status: h.status.as_str().into() }
    }
}

/// `turn_started` / `turn_ended`'s answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TurnResult {
    /// Always true.
    pub ok: bool,
    /// Thread.
    pub thread_id: crate::ground::ids::ThreadId,
    /// Mid-turn now.
    pub mid_turn: bool,
    /// The handoff the end of this turn completed (a report held for a follow-up, S5).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handoff: Option<HandoffMoved>,
}

/// `tool_call`'s answer: the call is allowed and recorded. A refused call (G13) is the error
/// `tool_not_allowed` (-32004) instead, and records nothing.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ToolCallResult {
    /// Always true.
    pub ok: bool,
    /// Notices to append to this tool's result for the model (M3), oldest first; handed over
    /// once.
    pub notices: Vec<String>,
}

/// `check_tool`'s answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CheckToolResult {
    /// May the thread call the tool now (G13)?
    pub allowed: bool,
    /// Why not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// `response`'s answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ResponseResult {
    /// Always true.
    pub ok: bool,
    /// Thread.
    pub thread_id: crate::ground::ids::ThreadId,
    /// The answer without tool announcements (G16); `null` when only announcements.
    pub answer: Option<String>,
    /// The handoff this response moved (a watched child's answer, a blueprint's first response).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handoff: Option<HandoffMoved>,
}

/// `child_error` / `start_failed`'s answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ThreadEventResult {
    /// Always true.
    pub ok: bool,
    /// Thread.
    pub thread_id: crate::ground::ids::ThreadId,
    /// The handoff it ended.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handoff: Option<HandoffMoved>,
}

/// `tool_call` / `check_tool`.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ToolUse {
    /// Calling thread.
    pub thread_id: crate::ground::ids::ThreadId,
    /// Tool name.
    pub tool: String,
    /// The call's arguments, for an `ask_user` snapshot (kept clamped to 4 KiB).
    #[serde(default)]
    pub arguments: Option<Value>,
    /// The call's result text, for an `ask_user` snapshot (kept clamped to 32 KiB).
    #[serde(default)]
    pub result: Option<String>,
}

/// `response`: a finished response of a thread's turn, as the model produced it.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Response {
    /// Thread.
    pub thread_id: crate::ground::ids::ThreadId,
    /// Full text, tool announcements included (Baton removes them, G16).
    pub text: String,
}

/// `child_error`: the thread's run failed.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ChildError {
    /// Thread.
    pub thread_id: crate::ground::ids::ThreadId,
    /// What failed.
    #[cfg_attr(feature = "schema", schemars(length(min = 1), pattern(crate::ground::limits::NON_BLANK)))]
    pub error: String,
}

/// `start_failed`: the host could not start a child thread it was asked to (`start_child`).
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct StartFailed {
    /// The child thread.
    pub thread_id: crate::ground::ids::ThreadId,
    /// Why it could not start.
    #[cfg_attr(feature = "schema", schemars(length(min = 1), pattern(crate::ground::limits::NON_BLANK)))]
    pub error: String,
}

/// Blueprint progress kinds.
#[derive(Copy, Clone, Debug, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum BlueprintEventKind {
    /// Entered `phase`.
    Phase,
    /// Reached `@END`: sets `blueprint_completed` (S3).
    End,
    /// Paused (continuous mode), phase kept (B6).
    Pause,
    /// Resumed.
    Resume,
    /// Switched to `mode`.
    Mode,
    /// Suspected replay growth: paused, switched to manual, phase kept (B6).
    ReplayGrowth,
}

/// `blueprint_event`.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct BlueprintEvent {
    /// Thread running the blueprint.
    pub thread_id: crate::ground::ids::ThreadId,
    /// What happened.
    pub event: BlueprintEventKind,
    /// For `phase`.
    #[serde(default)]
    pub phase: Option<String>,
    /// For `mode`.
    #[serde(default)]
    pub mode: Option<BlueprintMode>,
}

/// `callback_result`: how a `callback` effect's POST went (G14).
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct CallbackResult {
    /// Handoff.
    pub handoff_id: crate::ground::ids::HandoffId,
    /// Delivered.
    pub ok: bool,
    /// Failure detail.
    #[serde(default)]
    pub error: Option<String>,
}

/// `set_callback`: attach a callback to a live, watched handoff, or remove the one attached (G14).
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SetCallback {
    /// Handoff.
    pub handoff_id: crate::ground::ids::HandoffId,
    /// Where to post (`http://` or `https://`, at most 2048 characters); absent or `null`
    /// removes the host callback.
    #[serde(default)]
    pub url: Option<String>,
    /// Extra request headers (at most 16; names are HTTP tokens of at most 64 characters,
    /// values printable ASCII of at most 4096; `host`, `content-type`, `content-length`,
    /// `transfer-encoding` and `connection` are the server's).
    #[serde(default)]
    pub headers: std::collections::BTreeMap<String, String>,
    /// The host's own label (at most 256 characters).
    #[serde(default)]
    pub tag: Option<String>,
}

/// Headers a callback POST sets itself.
const RESERVED_HEADERS: [&str; 5] = ["host", "content-type", "content-length", "transfer-encoding", "connection"];

impl SetCallback {
    /// The checks on the arguments alone (before any state is read): what a binding that
    /// attaches the callback later in one command checks first, so a bad one changes nothing.
    pub fn check(&self) -> Result<(), CallError> {
        match &self.url {
            Some(url) => check_callback(self, url),
            None => Ok(()),
        }
    }
}

fn check_callback(a: &SetCallback, url: &str) -> Result<(), CallError> {
    non_empty("url", "G14", url)?;
    if !(url.starts_with("http://") || url.starts_with("https://")) || url.chars().count() > 2048 {
        return Err(CallError::invalid("url", "G14", "must be an http:// or https:// URL of at most 2048 characters"));
    }
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(CallError::invalid("url", "G14", "must not contain spaces or control characters"));
    }
    if a.headers.len() > 16 {
        return Err(CallError::invalid("headers", "G14", format!("has {} headers; at most 16", a.headers.len())));
    }
    for (name, value) in &a.headers {
        let token = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
        if name.is_empty() || name.len() > 64 || !name.chars().all(token) {
            return Err(CallError::invalid(
                "headers",
                "G14",
                format!("'{name}' is not a header name (letters, digits and !#$%&'*+-.^_`|~, at most 64)"),
            ));
        }
        if RESERVED_HEADERS.contains(&name.to_ascii_lowercase().as_str()) {
            return Err(CallError::invalid("headers", "G14", format!("'{name}' is set by the server")));
        }
        if value.len() > 4096 || !value.chars().all(|c| c == '\t' || (' '..='~').contains(&c)) {
            return Err(CallError::invalid(
                "headers",
                "G14",
                format!("the value of '{name}' must be printable ASCII of at most 4096 characters"),
            ));
        }
    }
    if a.tag.as_ref().is_some_and(|t| t.chars().count() > 256) {
        return Err(CallError::invalid("tag", "G14", "is at most 256 characters"));
    }
    Ok(())
}

/// `set_callback`'s answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CallbackSet {
    /// Always true.
    pub ok: bool,
    /// The handoff.
    pub handoff_id: crate::ground::ids::HandoffId,
    /// Its host callback now (`null`: none).
    pub callback: Option<crate::handoff::HostCallback>,
}

pub(crate) fn set_callback<'a>(tx: &mut impl HandoffTx<'a>, a: SetCallback) -> Result<CallbackSet, CallError> {
    a.check()?;
    let mut h = tx.handoff(&a.handoff_id).cloned().ok_or_else(|| {
        CallError::new(ErrorCode::NotFound, format!("handoff_id: no handoff '{}'", a.handoff_id)).field("handoff_id")
    })?;
    let refuse = |why: String| {
        Err(CallError::new(ErrorCode::InvalidTransition, format!("handoff '{}' {why}", a.handoff_id))
            .field("handoff_id")
            .rule("G14"))
    };
    if h.spec.callback_url.is_some() {
        return refuse("has the callback_url its call gave; a host callback cannot replace it".into());
    }
    if h.callback_pending {
        return refuse("has a callback in flight; it changes after its callback_result".into());
    }
    match a.url {
        Some(url) => {
            if h.spec.async_mode {
                return refuse(
                    "is asynchronous (async_mode=true); callbacks are posted only for watched handoffs".into(),
                );
            }
            // A finished handoff keeps a callback it is given (an A2A client may register a
            // push config on a finished task) but posts nothing more: its watch is over. Its
            // status does not move. A live one no longer watched would never post it: refused.
            if h.watch_until.is_none() && !h.status.is_terminal() {
                return refuse(format!("is no longer watched ({}); no callback would be posted", h.status.as_str()));
            }
            h.callback = Some(crate::handoff::HostCallback { url, headers: a.headers, tag: a.tag });
        }
        None => h.callback = None,
    }
    let out = CallbackSet { ok: true, handoff_id: h.handoff_id.clone(), callback: h.callback.clone() };
    tx.put_handoff(h);
    Ok(out)
}

pub(crate) fn turn_started<'a>(tx: &mut impl HandoffTx<'a>, a: ThreadRef) -> Result<TurnResult, CallError> {
    let t = live_thread(tx, &a.thread_id)?;
    if let Some(s) = &t.bypassed_by {
        return Err(crate::handoff::ctx::bypassed(s, &t.thread_id));
    }
    tx.touch(&a.thread_id, |act| act.mid_turn = true);
    if tx.st().turn_calls().contains_key(&a.thread_id) {
        tx.reset_turn(&a.thread_id);
    }
    Ok(TurnResult { ok: true, thread_id: a.thread_id, mid_turn: true, handoff: None })
}

pub(crate) fn turn_ended<'a>(tx: &mut impl HandoffTx<'a>, a: ThreadRef) -> Result<TurnResult, CallError> {
    live_thread(tx, &a.thread_id)?;
    tx.touch(&a.thread_id, |act| {
        act.mid_turn = false;
        act.turns_ended += 1;
    });
    let mut out = TurnResult { ok: true, thread_id: a.thread_id.clone(), mid_turn: false, handoff: None };
    // M5: the thread is idle now; mail its turn left unread brings the sweep forward.
    if tx.st().queued_mail(&a.thread_id).next().is_some() && tx.sweep_due().is_none_or(|d| d > tx.now()) {
        tx.set_sweep(Some(tx.now()));
    }
    // S5: the turn answered the pending follow-up; a held report now completes the handoff.
    if let Some(h) = tx.handoff_of_child(&a.thread_id).filter(|h| h.followup_pending_since.is_some()).cloned() {
        let mut h = h;
        h.followup_pending_since = None;
        match h.held_report.take() {
            Some(report) if !h.status.is_terminal() => {
                h.notice_message_id = Some(report.message_id);
                let h = tx.finish(h, Some(report.body), Finish::Report)?;
                out.handoff = Some(HandoffMoved::of(&h));
            }
            _ => tx.put_handoff(h),
        }
    }
    Ok(out)
}

pub(crate) fn tool_call<'a>(tx: &mut impl HandoffTx<'a>, a: ToolUse) -> Result<ToolCallResult, CallError> {
    let thread = live_thread(tx, &a.thread_id)?;
    if let Some(s) = &thread.bypassed_by {
        return Err(crate::handoff::ctx::bypassed(s, &thread.thread_id));
    }
    let agent = tx.st().agents().get(thread.bot_id.as_str()).ok_or_else(|| no_thread(&a.thread_id))?;
    dispatch::check(agent, &thread, &a.tool)?;
    let now = tx.now();
    let mut notices = Vec::new();
    let snapshot = crate::handoff::calls::CallSnapshot {
        tool: a.tool.as_str().into(),
        arguments: a
            .arguments
            .as_ref()
            .map(|v| crate::handoff::calls::clamp(&v.to_string(), crate::handoff::calls::ARGS_CLAMP).into()),
        result: a
            .result
            .as_deref()
            .map(|r| crate::handoff::calls::clamp(r, crate::handoff::calls::RESULT_CLAMP).into()),
    };
    tx.touch(&a.thread_id, |act| {
        act.tool_call_count += 1;
        act.last_tool_call = Some(ToolCallRef { name: a.tool.clone(), timestamp: now });
        notices = std::mem::take(&mut act.notices);
    });
    tx.put_turn_call(&a.thread_id, snapshot);
    Ok(ToolCallResult { ok: true, notices })
}

pub(crate) fn check_tool<'a>(tx: &mut impl HandoffTx<'a>, a: ToolUse) -> Result<CheckToolResult, CallError> {
    let thread = live_thread(tx, &a.thread_id)?;
    let agent = tx.st().agents().get(thread.bot_id.as_str()).ok_or_else(|| no_thread(&a.thread_id))?;
    Ok(match dispatch::check(agent, &thread, &a.tool) {
        Ok(()) => CheckToolResult { allowed: true, reason: None },
        Err(e) => CheckToolResult { allowed: false, reason: Some(e.message) },
    })
}

pub(crate) fn response<'a>(tx: &mut impl HandoffTx<'a>, a: Response) -> Result<ResponseResult, CallError> {
    live_thread(tx, &a.thread_id)?;
    let now = tx.now();
    let answer = answer_text(&a.text);
    tx.touch(&a.thread_id, |act| {
        act.last_response = answer.clone();
        act.last_response_at = Some(now);
    });
    let mut out = ResponseResult { ok: true, thread_id: a.thread_id.clone(), answer: answer.clone(), handoff: None };
    let Some(h) = tx.handoff_of_child(&a.thread_id).filter(|h| !h.status.is_terminal()).cloned() else {
        return Ok(out);
    };
    let watching = h.watch_until.is_some();
    let h = if watching && !h.spec.is_plain() {
        // B5: a blueprint child's first stable response ends the watch as first_response.
        let mut h = h;
        tx.advance(&mut h, Event::FirstResponse)?;
        h.watch_until = None;
        tx.emit(crate::handoff::effect::Effect::WatchReturned {
            handoff_id: h.handoff_id.clone(),
            parent_thread_id: h.parent_thread_id.clone(),
            status: "first_response".into(),
            result: None,
            partial_result: answer.clone(),
        });
        h.result = None;
        tx.send_callback(&mut h, "first_response");
        tx.put_handoff(h.clone());
        h
    } else if watching && answer.is_some() {
        // G9/G16: the watcher infers completion from the child's answer.
        tx.finish(h, answer, Finish::Watched)?
    } else if h.spec.is_plain() && h.spec.on_completion == OnCompletion::Return && answer.is_some() {
        tx.finish(h, answer, Finish::Unwaited)?
    } else {
        return Ok(out);
    };
    out.handoff = Some(HandoffMoved::of(&h));
    Ok(out)
}

/// A watch on `h`, if open, returns empty-handed with `status` (the handoff ended without an
/// answer).
fn end_watch<'a>(tx: &mut impl HandoffTx<'a>, h: &mut crate::handoff::Handoff, status: &str) {
    if h.watch_until.take().is_some() {
        tx.emit(crate::handoff::effect::Effect::WatchReturned {
            handoff_id: h.handoff_id.clone(),
            parent_thread_id: h.parent_thread_id.clone(),
            status: status.into(),
            result: None,
            partial_result: None,
        });
    }
}

pub(crate) fn child_error<'a>(tx: &mut impl HandoffTx<'a>, a: ChildError) -> Result<ThreadEventResult, CallError> {
    live_thread(tx, &a.thread_id)?;
    non_empty("error", "S10", &a.error)?;
    tx.touch(&a.thread_id, |act| act.mid_turn = false);
    let mut out = ThreadEventResult { ok: true, thread_id: a.thread_id.clone(), handoff: None };
    if let Some(mut h) = tx.handoff_of_child(&a.thread_id).filter(|h| !h.status.is_terminal()).cloned() {
        tx.advance(&mut h, Event::Fail)?;
        h.error = Some(a.error);
        end_watch(tx, &mut h, "error");
        out.handoff = Some(HandoffMoved::of(&h));
        tx.put_handoff(h);
    }
    Ok(out)
}

/// G18 after the call: the host could not start the child thread. Only before the child's
/// first activity (`started`); the handoff ends `materialize_failed` with the error, and a
/// watch on it returns.
pub(crate) fn start_failed<'a>(tx: &mut impl HandoffTx<'a>, a: StartFailed) -> Result<ThreadEventResult, CallError> {
    live_thread(tx, &a.thread_id)?;
    non_empty("error", "G18", &a.error)?;
    let Some(mut h) = tx.handoff_of_child(&a.thread_id).cloned() else {
        return Err(CallError::new(
            ErrorCode::NotFound,
            format!("thread_id: thread '{}' is no handoff's child", a.thread_id),
        )
        .field("thread_id")
        .rule("G18"));
    };
    tx.advance(&mut h, Event::StartFailed).map_err(|e| e.field("thread_id"))?;
    h.error = Some(a.error);
    end_watch(tx, &mut h, "materialize_failed");
    let out = ThreadEventResult { ok: true, thread_id: a.thread_id.clone(), handoff: Some(HandoffMoved::of(&h)) };
    tx.put_handoff(h);
    Ok(out)
}

/// `blueprint_event`'s answer: the run as it is now.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct BlueprintEventResult {
    /// Always true.
    pub ok: bool,
    /// The thread running the blueprint.
    pub thread_id: crate::ground::ids::ThreadId,
    /// The run.
    pub blueprint: BlueprintRunState,
    /// The handoff the run's `@END` finished (B6), if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handoff: Option<HandoffFinished>,
}

/// A blueprint run's state (B6).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct BlueprintRunState {
    /// The blueprint.
    pub name: String,
    /// Its mode.
    pub mode: BlueprintMode,
    /// Its current phase.
    pub phase: Option<String>,
    /// Paused.
    pub paused: bool,
    /// Reached `@END`.
    pub completed: bool,
}

/// A handoff an input finished.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct HandoffFinished {
    /// The handoff.
    pub handoff_id: crate::ground::ids::HandoffId,
    /// Its status now.
    pub handoff_status: String,
}

pub(crate) fn blueprint_event<'a>(
    tx: &mut impl HandoffTx<'a>,
    a: BlueprintEvent,
) -> Result<BlueprintEventResult, CallError> {
    let mut thread = (*live_thread(tx, &a.thread_id)?).clone();
    let Some(run) = thread.blueprint.as_mut() else {
        return Err(CallError::new(
            ErrorCode::InvalidTransition,
            format!("thread '{}' runs no blueprint", a.thread_id),
        )
        .field("thread_id")
        .rule("B6"));
    };
    if run.completed {
        return Err(CallError::new(
            ErrorCode::ThreadTerminal,
            format!("blueprint '{}' on thread '{}' already reached @END", run.name, a.thread_id),
        )
        .field("thread_id")
        .rule("S3"));
    }
    match a.event {
        BlueprintEventKind::Phase => {
            let phase = a
                .phase
                .filter(|p| !p.trim().is_empty())
                .ok_or_else(|| CallError::invalid("phase", "B6", "is required for event=phase"))?;
            run.phase = Some(phase);
        }
        BlueprintEventKind::Mode => {
            run.mode = a.mode.ok_or_else(|| CallError::invalid("mode", "B6", "is required for event=mode"))?;
        }
        BlueprintEventKind::Pause => run.paused = true,
        BlueprintEventKind::Resume => run.paused = false,
        BlueprintEventKind::ReplayGrowth => {
            run.paused = true;
            run.mode = BlueprintMode::Manual;
        }
        BlueprintEventKind::End => run.completed = true,
    }
    let out_run = BlueprintRunState {
        name: run.name.clone(),
        mode: run.mode,
        phase: run.phase.clone(),
        paused: run.paused,
        completed: run.completed,
    };
    let ended = run.completed;
    tx.put_thread(thread);
    let act = tx.touch(&a.thread_id, |_| {});
    let mut out = BlueprintEventResult { ok: true, thread_id: a.thread_id.clone(), blueprint: out_run, handoff: None };
    if ended {
        if let Some(h) = tx.handoff_of_child(&a.thread_id).filter(|h| !h.status.is_terminal()).cloned() {
            let h = tx.finish(h, act.last_response, Finish::BlueprintEnd)?;
            out.handoff =
                Some(HandoffFinished { handoff_id: h.handoff_id.clone(), handoff_status: h.status.as_str().into() });
        }
    }
    Ok(out)
}

/// `callback_result`'s answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CallbackOutcome {
    /// Always true.
    pub ok: bool,
    /// The handoff.
    pub handoff_id: crate::ground::ids::HandoffId,
    /// Its status now.
    pub handoff_status: String,
    /// Failed posts so far (five make it undeliverable, G14).
    pub callback_failures: u32,
}

pub(crate) fn callback_result<'a>(
    tx: &mut impl HandoffTx<'a>,
    a: CallbackResult,
) -> Result<CallbackOutcome, CallError> {
    let mut h = tx.handoff(&a.handoff_id).cloned().ok_or_else(|| {
        CallError::new(ErrorCode::NotFound, format!("handoff_id: no handoff '{}'", a.handoff_id)).field("handoff_id")
    })?;
    if !h.callback_pending {
        return Err(CallError::new(
            ErrorCode::InvalidTransition,
            format!("handoff '{}' has no callback in flight", a.handoff_id),
        )
        .field("handoff_id")
        .rule("G14"));
    }
    h.callback_pending = false;
    if a.ok {
        if h.finished_at.is_some() && !h.status.is_terminal() {
            tx.advance(&mut h, Event::Complete)?;
        }
    } else {
        h.callback_failures += 1;
        if h.callback_failures >= 5 {
            tx.advance(&mut h, Event::CallbackExhausted)?;
            h.error = Some(format!("callback submission failed 5 times; last error: {}", a.error.unwrap_or_default()));
        } else {
            let status = if h.finished_at.is_some() { "completed" } else { h.status.as_str() };
            tx.send_callback(&mut h, status);
        }
    }
    let out = CallbackOutcome {
        ok: true,
        handoff_id: h.handoff_id.clone(),
        handoff_status: h.status.as_str().into(),
        callback_failures: h.callback_failures,
    };
    tx.put_handoff(h);
    Ok(out)
}

/// `mission_strip`'s answer (B4).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MissionStrip {
    /// The journey.
    pub journey: String,
    /// The chain's first thread.
    pub root_thread_id: crate::ground::ids::ThreadId,
    /// Every stage of the journey, in order.
    pub stages: Vec<MissionStage>,
}

/// One stage of a mission strip: its state, and its thread once spawned.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MissionStage {
    /// The stage's blueprint.
    pub blueprint: String,
    /// How it shows.
    pub state: crate::handoff::blueprint::StageState,
    /// Its thread (spawned stages).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thread_id: Option<crate::ground::ids::ThreadId>,
    /// Its handoff (spawned stages; `null` for a root that no handoff spawned).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handoff_id: Option<Option<crate::ground::ids::HandoffId>>,
    /// Its handoff's status (spawned stages).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// The coding agent it runs on, when its inputs name one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coding_agent: Option<String>,
}

pub(crate) fn mission_strip<'a>(tx: &mut impl HandoffTx<'a>, a: ThreadRef) -> Result<MissionStrip, CallError> {
    let thread = tx.thread(&a.thread_id).cloned().ok_or_else(|| no_thread(&a.thread_id))?;
    let st = tx.st();
    // The chain's root: walk up while the parent shares the journey.
    let mut root = thread.clone();
    while let Some(p) = root.parent_thread_id.as_ref().and_then(|p| st.threads().get(p)) {
        if p.journey.is_none() && p.blueprint.is_none() {
            break;
        }
        root = (**p).clone();
    }
    let Some(journey) = thread.journey.clone().or(root.journey.clone()) else {
        return Err(CallError::new(
            ErrorCode::NotFound,
            format!("thread '{}' belongs to no blueprint journey", a.thread_id),
        )
        .field("thread_id")
        .rule("B4"));
    };
    // Every thread of the chain below the root, in creation order.
    let mut chain = vec![root.clone()];
    let mut i = 0;
    while i < chain.len() {
        let kids: Vec<Thread> = st
            .handoffs_from(&chain[i].thread_id)
            .filter_map(|h| h.child_thread_id.as_ref().and_then(|c| st.threads().get(c)))
            .filter(|t| t.handoff_reason.as_deref() == Some("blueprint_chain"))
            .map(|t| (**t).clone())
            .collect();
        chain.extend(kids);
        i += 1;
    }
    let found: Vec<Option<&Thread>> = journey
        .stages
        .iter()
        .map(|stage| chain.iter().find(|t| t.blueprint.as_ref().is_some_and(|b| &b.name == stage)))
        .collect();
    let states = stage_states(&found.iter().map(Option::is_some).collect::<Vec<_>>());
    let stages: Vec<MissionStage> = journey
        .stages
        .iter()
        .zip(found)
        .zip(states)
        .map(|((stage, t), state)| {
            let mut s = MissionStage {
                blueprint: stage.clone(),
                state,
                thread_id: None,
                handoff_id: None,
                status: None,
                coding_agent: None,
            };
            if let Some(t) = t {
                let h = t.handoff_id.as_ref().and_then(|h| st.handoffs().get(h));
                let parent = t.parent_thread_id.as_ref().and_then(|p| st.threads().get(p));
                s.thread_id = Some(t.thread_id.clone());
                s.handoff_id = Some(t.handoff_id.clone());
                s.status = Some(h.map(|h| h.status.as_str()).unwrap_or(Status::Running.as_str()).into());
                s.coding_agent = t.coding_agent().or_else(|| parent.and_then(|p| p.coding_agent())).map(str::to_string);
            }
            s
        })
        .collect();
    Ok(MissionStrip { journey: journey.name, root_thread_id: root.thread_id, stages })
}
