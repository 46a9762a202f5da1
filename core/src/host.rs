//! Host inputs: what the host tells Baton about agents, threads and deliveries. Baton runs
//! no model, so these are how it learns what agents did.
use crate::agent::{Agent, ToolPolicy, COORDINATION_TOOLS, PROJECT_MANAGER_TOOLS, RELAY_TOOLS};
use crate::blueprint::{stage_states, BlueprintManifest};
use crate::config::Config;
use crate::dispatch;
use crate::engine::Tx;
use crate::error::{CallError, ErrorCode};
use crate::flow::Finish;
use crate::handoff::{OnCompletion, Status};
use crate::ids::IdKind;
use crate::lifecycle::Event;
use crate::log::Change;
use crate::relay::Teammate;
use crate::thread::{answer_text, BlueprintMode, JourneyContext, Owner, Thread, ToolCallRef, Visibility};
use crate::tools::{non_empty, parse, schema_of};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Map, Value};

/// `register_agent`: add or replace an agent.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RegisterAgent {
    /// Bot id.
    #[schemars(length(min = 1), pattern(crate::limits::NON_BLANK))]
    pub bot_id: String,
    /// Display name (default: the bot id); unique among agents.
    #[serde(default)]
    #[schemars(length(min = 1), pattern(crate::limits::NON_BLANK))]
    pub display_name: Option<String>,
    /// Tool and group names the agent has (default: `["project_manager_tools", "relay_tools", "coordination_tools"]`).
    #[serde(default)]
    pub tools: Option<Vec<String>>,
    /// `allow_all` (default) or `allowlist`.
    #[serde(default)]
    pub tool_policy: Option<ToolPolicy>,
    /// For `allowlist`: usable tools and groups.
    #[serde(default)]
    pub tool_access_list: Option<Vec<String>>,
    /// Active (default true).
    #[serde(default)]
    pub active: Option<bool>,
}

/// Inputs that name one bot.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct BotRef {
    /// Bot id.
    pub bot_id: String,
}

/// `open_thread`: a conversation the host started (a user's chat with a bot).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct OpenThread {
    /// Thread id (default: a new id).
    #[serde(default)]
    #[schemars(length(min = 1), pattern(crate::limits::NON_BLANK))]
    pub thread_id: Option<String>,
    /// Owning bot.
    pub bot_id: String,
    /// Title.
    #[serde(default)]
    pub title: Option<String>,
    /// Recorded owner (M6).
    #[serde(default)]
    pub owner: Option<Owner>,
    /// Visibility.
    #[serde(default)]
    pub visibility: Option<Visibility>,
    /// Context data.
    #[serde(default)]
    pub context_data: Option<Map<String, Value>>,
    /// Journey for blueprint chains started here (B3, B4).
    #[serde(default)]
    pub blueprint_journey_context: Option<JourneyContext>,
    /// The user is at an interactive terminal: `ask_user` asks inline (A8).
    #[serde(default)]
    pub interactive: Option<bool>,
}

/// Inputs that name one thread.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ThreadRef {
    /// Thread id.
    pub thread_id: String,
}

/// `tool_call` / `check_tool`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ToolUse {
    /// Calling thread.
    pub thread_id: String,
    /// Tool name.
    pub tool: String,
    /// The call's arguments, for an `ask_user` snapshot (kept clamped to 4 KiB).
    #[serde(default)]
    pub arguments: Option<Value>,
    /// The call's result text, for an `ask_user` snapshot (kept clamped to 32 KiB).
    #[serde(default)]
    pub result: Option<String>,
}

/// `create_skill`: a scheduler skill with a generated name (A6).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CreateSkill {
    /// Base name; kebab-cased, then a hash suffix is added.
    #[schemars(pattern(r"[A-Za-z0-9]"))]
    pub base_name: String,
}

/// `start_task`: a thread starts a new task (run); checklists are kept per task (A7).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct StartTask {
    /// Thread.
    pub thread_id: String,
    /// Task id (default: a new id).
    #[serde(default)]
    #[schemars(length(min = 1), pattern(crate::limits::NON_BLANK))]
    pub task_id: Option<String>,
}

/// `report_written`: a report file was written in the thread's current task (A7).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ReportWritten {
    /// Thread.
    pub thread_id: String,
    /// Path of the file (`report-*.md` or `report-*.html` counts).
    pub path: String,
}

/// `register_leg_session`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct LegSessionArgs {
    /// Session id (the `self_id` legs name).
    #[schemars(length(min = 1), pattern(crate::limits::NON_BLANK))]
    pub session_id: String,
    /// What the session is for.
    pub role: String,
    /// A model the session is pinned to.
    #[serde(default)]
    pub model: Option<String>,
}

/// `leg_usage`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct LegUsage {
    /// Leg.
    pub leg_id: String,
    /// Tokens spent (added to what the leg already reported).
    pub usage: crate::leg::Usage,
}

/// `leg_report`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct LegReport {
    /// Leg.
    pub leg_id: String,
    /// The report, kept whole.
    pub text: String,
}

/// `leg_failed`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct LegFailed {
    /// Leg.
    pub leg_id: String,
    /// What failed.
    #[schemars(length(min = 1), pattern(crate::limits::NON_BLANK))]
    pub error: String,
}

/// `answer_user`: the user answered an `ask_user` question (A8).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct AnswerUser {
    /// Question id from `ask_user`.
    pub question_id: String,
    /// One answer per question, in order: a string (text, secret, single select) or a list
    /// of strings (multi select).
    pub answers: Vec<Value>,
}

/// `response`: a finished response of a thread's turn, as the model produced it.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Response {
    /// Thread.
    pub thread_id: String,
    /// Full text, tool announcements included (Baton removes them, G16).
    pub text: String,
}

/// `child_error`: the thread's run failed.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ChildError {
    /// Thread.
    pub thread_id: String,
    /// What failed.
    #[schemars(length(min = 1), pattern(crate::limits::NON_BLANK))]
    pub error: String,
}

/// Blueprint progress kinds.
#[derive(Copy, Clone, Debug, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub(crate) enum BlueprintEventKind {
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
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct BlueprintEvent {
    /// Thread running the blueprint.
    pub thread_id: String,
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
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CallbackResult {
    /// Handoff.
    pub handoff_id: String,
    /// Delivered.
    pub ok: bool,
    /// Failure detail.
    #[serde(default)]
    pub error: Option<String>,
}

/// `thread_state`: whether the host can read a thread's state (G13 fallback).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ThreadState {
    /// Thread.
    pub thread_id: String,
    /// Readable.
    pub readable: bool,
}

/// `audit_log`: which entries.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct AuditQuery {
    /// Only this sibling session's entries.
    #[serde(default)]
    pub session_id: Option<String>,
}

/// `load_trust`: a recipient's `trust.yaml`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct LoadTrust {
    /// Recipient handle the policy belongs to.
    pub handle: String,
    /// The YAML text.
    pub yaml: String,
}

type HostHandler = fn(&mut Tx<'_>, Value) -> Result<Value, CallError>;

/// One host input of the surface.
pub struct HostDef {
    /// Input name.
    pub name: &'static str,
    /// What it tells Baton.
    pub description: &'static str,
    schema: fn() -> Value,
    pub(crate) run: HostHandler,
}

impl HostDef {
    /// JSON Schema of the arguments.
    pub fn parameters(&self) -> Value {
        (self.schema)()
    }
}

macro_rules! host {
    ($name:literal, $args:ty, $handler:path, $rule:literal, $desc:literal) => {
        HostDef {
            name: $name,
            description: $desc,
            schema: schema_of::<$args>,
            run: |tx, v| {
                let a: $args = parse(v, |_| $rule)?;
                $handler(tx, a)
            },
        }
    };
}

/// Every host input.
pub static HOST_INPUTS: &[HostDef] = &[
    host!("configure", Config, configure, "M5", "Set the engine configuration (omitted fields take defaults)."),
    host!("register_agent", RegisterAgent, register_agent, "G2", "Add or replace an agent: bot id, display name, tools, tool policy."),
    host!("deactivate_agent", BotRef, deactivate_agent, "G17", "Deactivate an agent: it receives no handoffs."),
    host!("reactivate_agent", BotRef, reactivate_agent, "G17", "Reactivate an agent."),
    host!("register_blueprint", BlueprintManifest, register_blueprint, "B1", "Add or replace a blueprint manifest (declared inputs)."),
    host!("open_thread", OpenThread, open_thread, "M6", "Record a conversation the host started, with its owner."),
    host!("turn_started", ThreadRef, turn_started, "M3", "A turn started on a thread (it is now mid-turn)."),
    host!("turn_ended", ThreadRef, turn_ended, "M4", "A thread's turn ended (it is now idle)."),
    host!("tool_call", ToolUse, tool_call, "G13", "A thread is calling a tool: checked (G13) and, if allowed, recorded. Returns notices to append to the tool result (M3)."),
    host!("check_tool", ToolUse, check_tool, "G13", "May this thread call this tool? Changes nothing."),
    host!("response", Response, response, "G16", "A thread's turn produced a response."),
    host!("child_error", ChildError, child_error, "S10", "A thread's run failed."),
    host!("blueprint_event", BlueprintEvent, blueprint_event, "B6", "Blueprint progress: phase, end (@END), pause, resume, mode, replay_growth."),
    host!("callback_result", CallbackResult, callback_result, "G14", "Outcome of a callback POST."),
    host!("delete_thread", ThreadRef, delete_thread, "S6", "A thread no longer exists."),
    host!("thread_state", ThreadState, thread_state, "G13", "Whether the host can read a thread's state."),
    host!("mission_strip", ThreadRef, mission_strip, "B4", "The mission strip of the blueprint journey a thread belongs to. Changes nothing."),
    host!("register_teammate", Teammate, register_teammate, "I2", "Add or replace a teammate: handle, name, role, email, acting bot."),
    host!("load_trust", LoadTrust, load_trust, "I3", "Load a recipient's trust.yaml (see docs/DECISIONS.md for the schema)."),
    host!("tools_for", ThreadRef, tools_for, "X1", "The tools a thread may call now, to offer its model. Changes nothing."),
    host!("audit_log", AuditQuery, audit_log, "X5", "Audit log entries, optionally for one sibling session. Changes nothing."),
    host!("create_skill", CreateSkill, create_skill, "A6", "Create a scheduler skill; its generated name (with a hash suffix) is what schedules write accepts."),
    host!("start_task", StartTask, start_task, "A7", "A thread starts a new task (run); write_todo keeps one checklist per task."),
    host!("report_written", ReportWritten, report_written, "A7", "A report file was written in the thread's current task."),
    host!("answer_user", AnswerUser, answer_user, "A8", "The user answered an ask_user question; the run resumes with full context."),
    host!("register_leg_session", LegSessionArgs, register_leg_session, "A1", "Add a named, reusable leg session (self_id), its role and optionally a pinned model."),
    host!("leg_usage", LegUsage, leg_usage, "A3", "Token usage a leg has spent since the last report (added up)."),
    host!("leg_report", LegReport, leg_report, "A3", "A leg finished: its report text. Baton names and stores it and answers the parent."),
    host!("leg_failed", LegFailed, leg_failed, "A3", "A leg failed."),
    host!("get_thread", ThreadRef, get_thread, "G6", "A thread's stored record and activity. Changes nothing."),
    host!("get_agent", BotRef, get_agent, "B7", "An agent's stored record. Changes nothing."),
];

/// The host input named `name`.
pub(crate) fn find_host(name: &str) -> Option<&'static HostDef> {
    HOST_INPUTS.iter().find(|h| h.name == name)
}

fn no_thread(id: &str) -> CallError {
    CallError::new(ErrorCode::NotFound, format!("thread_id: no thread '{id}'")).field("thread_id")
}

/// A thread that exists and is not deleted (shared; callers that change it copy it).
fn live_thread(tx: &Tx<'_>, id: &str) -> Result<std::sync::Arc<Thread>, CallError> {
    tx.thread_arc(id).filter(|t| t.deleted_at.is_none()).ok_or_else(|| no_thread(id))
}

fn configure(tx: &mut Tx<'_>, c: Config) -> Result<Value, CallError> {
    if c.agent_slots == 0 {
        return Err(CallError::invalid("agent_slots", "M5", "must be at least 1"));
    }
    // A6: the host's local offset; real offsets lie within ±14 h (UTC−12:00 … UTC+14:00).
    if c.utc_offset_minutes.abs() > 14 * 60 {
        return Err(CallError::invalid(
            "utc_offset_minutes",
            "A6",
            format!("{} minutes is beyond ±14 h (±840 minutes)", c.utc_offset_minutes),
        ));
    }
    tx.put(Change::Configured(c));
    Ok(json!({"ok": true}))
}

fn register_agent(tx: &mut Tx<'_>, a: RegisterAgent) -> Result<Value, CallError> {
    non_empty("bot_id", "G2", &a.bot_id)?;
    let display_name = a.display_name.unwrap_or_else(|| a.bot_id.clone());
    non_empty("display_name", "G2", &display_name)?;
    if let Some(other) = tx
        .st
        .agents
        .values()
        .find(|o| o.bot_id != a.bot_id && (o.display_name == display_name || o.bot_id == display_name))
    {
        return Err(CallError::invalid(
            "display_name",
            "G2",
            format!("'{display_name}' already names bot '{}'; target_bot must resolve to one agent", other.bot_id),
        ));
    }
    let agent = Agent {
        bot_id: a.bot_id.clone(),
        display_name,
        active: a.active.unwrap_or(true),
        tools: a.tools.unwrap_or_else(|| {
            vec![PROJECT_MANAGER_TOOLS.to_string(), RELAY_TOOLS.to_string(), COORDINATION_TOOLS.to_string()]
        }),
        tool_policy: a.tool_policy.unwrap_or_default(),
        tool_access_list: a.tool_access_list.unwrap_or_default(),
    };
    tx.put(Change::Agent(agent));
    Ok(json!({"ok": true, "bot_id": a.bot_id}))
}

fn set_active(tx: &mut Tx<'_>, bot_id: &str, active: bool) -> Result<Value, CallError> {
    let mut agent =
        tx.st.agents.get(bot_id).cloned().ok_or_else(|| {
            CallError::new(ErrorCode::NotFound, format!("bot_id: no agent '{bot_id}'")).field("bot_id")
        })?;
    agent.active = active;
    tx.put(Change::Agent(agent));
    Ok(json!({"ok": true, "bot_id": bot_id, "active": active}))
}

fn deactivate_agent(tx: &mut Tx<'_>, a: BotRef) -> Result<Value, CallError> {
    set_active(tx, &a.bot_id, false)
}

fn reactivate_agent(tx: &mut Tx<'_>, a: BotRef) -> Result<Value, CallError> {
    set_active(tx, &a.bot_id, true)
}

fn register_blueprint(tx: &mut Tx<'_>, b: BlueprintManifest) -> Result<Value, CallError> {
    non_empty("name", "B1", &b.name)?;
    let name = b.name.clone();
    tx.put(Change::Blueprint(b));
    Ok(json!({"ok": true, "name": name}))
}

fn open_thread(tx: &mut Tx<'_>, a: OpenThread) -> Result<Value, CallError> {
    if !tx.st.agents.contains_key(&a.bot_id) {
        return Err(CallError::new(ErrorCode::NotFound, format!("bot_id: no agent '{}'", a.bot_id)).field("bot_id"));
    }
    let (generated, seq) = tx.new_seq_id(IdKind::Thread);
    let thread_id = match a.thread_id {
        Some(id) => {
            non_empty("thread_id", "M6", &id)?;
            if tx.thread(&id).is_some() {
                return Err(CallError::invalid("thread_id", "M6", format!("thread '{id}' already exists")));
            }
            id
        }
        None => generated,
    };
    let visibility = a.visibility.unwrap_or_default();
    let journey = a.blueprint_journey_context;
    tx.put_thread(Thread {
        owner: a.owner,
        title: a.title,
        visibility,
        show_in_thread_list: visibility == Visibility::Visible,
        context_data: a.context_data,
        journey,
        interactive: a.interactive.unwrap_or(false),
        ..Thread::new(thread_id.clone(), a.bot_id, seq, tx.now)
    });
    Ok(json!({"ok": true, "thread_id": thread_id}))
}

fn turn_started(tx: &mut Tx<'_>, a: ThreadRef) -> Result<Value, CallError> {
    let t = live_thread(tx, &a.thread_id)?;
    if let Some(s) = &t.bypassed_by {
        return Err(crate::engine::bypassed(s, &t.thread_id));
    }
    tx.touch(&a.thread_id, |act| act.mid_turn = true);
    if tx.st.turn_calls.contains_key(&a.thread_id) {
        tx.put(Change::TurnReset { thread_id: a.thread_id.clone() });
    }
    Ok(json!({"ok": true, "thread_id": a.thread_id, "mid_turn": true}))
}

fn turn_ended(tx: &mut Tx<'_>, a: ThreadRef) -> Result<Value, CallError> {
    live_thread(tx, &a.thread_id)?;
    tx.touch(&a.thread_id, |act| {
        act.mid_turn = false;
        act.turns_ended += 1;
    });
    let mut out = json!({"ok": true, "thread_id": a.thread_id, "mid_turn": false});
    // S5: the turn answered the pending follow-up; a held report now completes the handoff.
    if let Some(h) = tx.handoff_of_child(&a.thread_id).filter(|h| h.followup_pending_since.is_some()).cloned() {
        let mut h = h;
        h.followup_pending_since = None;
        match h.held_report.take() {
            Some(report) if !h.status.is_terminal() => {
                h.notice_message_id = Some(report.message_id);
                let h = tx.finish(h, Some(report.body), Finish::Report)?;
                out["handoff"] = json!({"handoff_id": h.handoff_id, "handoff_status": h.status.as_str()});
            }
            _ => tx.put_handoff(h),
        }
    }
    Ok(out)
}

fn tool_call(tx: &mut Tx<'_>, a: ToolUse) -> Result<Value, CallError> {
    let thread = live_thread(tx, &a.thread_id)?;
    if let Some(s) = &thread.bypassed_by {
        return Err(crate::engine::bypassed(s, &thread.thread_id));
    }
    let agent = tx.st.agents.get(&thread.bot_id).ok_or_else(|| no_thread(&a.thread_id))?;
    dispatch::check(agent, &thread, &a.tool)?;
    let now = tx.now;
    let mut notices = Vec::new();
    let snapshot = crate::ask::CallSnapshot {
        tool: a.tool.clone(),
        arguments: a.arguments.as_ref().map(|v| crate::ask::clamp(&v.to_string(), crate::ask::ARGS_CLAMP)),
        result: a.result.as_deref().map(|r| crate::ask::clamp(r, crate::ask::RESULT_CLAMP)),
    };
    tx.touch(&a.thread_id, |act| {
        act.tool_call_count += 1;
        act.last_tool_call = Some(ToolCallRef { name: a.tool.clone(), timestamp: now });
        notices = std::mem::take(&mut act.notices);
    });
    tx.put(Change::TurnCall { thread_id: a.thread_id.clone(), call: snapshot });
    Ok(json!({"ok": true, "allowed": true, "notices": notices}))
}

fn check_tool(tx: &mut Tx<'_>, a: ToolUse) -> Result<Value, CallError> {
    let thread = live_thread(tx, &a.thread_id)?;
    let agent = tx.st.agents.get(&thread.bot_id).ok_or_else(|| no_thread(&a.thread_id))?;
    Ok(match dispatch::check(agent, &thread, &a.tool) {
        Ok(()) => json!({"allowed": true}),
        Err(e) => json!({"allowed": false, "reason": e.message}),
    })
}

fn response(tx: &mut Tx<'_>, a: Response) -> Result<Value, CallError> {
    live_thread(tx, &a.thread_id)?;
    let now = tx.now;
    let answer = answer_text(&a.text);
    tx.touch(&a.thread_id, |act| {
        act.last_response = answer.clone();
        act.last_response_at = Some(now);
    });
    let mut out = json!({"ok": true, "thread_id": a.thread_id, "answer": answer});
    let Some(h) = tx.handoff_of_child(&a.thread_id).filter(|h| !h.status.is_terminal()).cloned() else {
        return Ok(out);
    };
    let watching = h.watch_until.is_some();
    let h = if watching && !h.spec.is_plain() {
        // B5: a blueprint child's first stable response ends the watch as first_response.
        let mut h = h;
        tx.advance(&mut h, Event::FirstResponse)?;
        h.watch_until = None;
        tx.emit(crate::effect::Effect::WatchReturned {
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
    out["handoff"] = json!({"handoff_id": h.handoff_id, "handoff_status": h.status.as_str()});
    Ok(out)
}

fn child_error(tx: &mut Tx<'_>, a: ChildError) -> Result<Value, CallError> {
    live_thread(tx, &a.thread_id)?;
    non_empty("error", "S10", &a.error)?;
    tx.touch(&a.thread_id, |act| act.mid_turn = false);
    let mut out = json!({"ok": true, "thread_id": a.thread_id});
    if let Some(mut h) = tx.handoff_of_child(&a.thread_id).filter(|h| !h.status.is_terminal()).cloned() {
        tx.advance(&mut h, Event::Fail)?;
        h.error = Some(a.error);
        if h.watch_until.take().is_some() {
            tx.emit(crate::effect::Effect::WatchReturned {
                handoff_id: h.handoff_id.clone(),
                parent_thread_id: h.parent_thread_id.clone(),
                status: "error".into(),
                result: None,
                partial_result: None,
            });
        }
        out["handoff"] = json!({"handoff_id": h.handoff_id, "handoff_status": h.status.as_str()});
        tx.put_handoff(h);
    }
    Ok(out)
}

fn blueprint_event(tx: &mut Tx<'_>, a: BlueprintEvent) -> Result<Value, CallError> {
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
    let out_run = json!({"name": run.name, "mode": run.mode, "phase": run.phase, "paused": run.paused, "completed": run.completed});
    let ended = run.completed;
    tx.put_thread(thread);
    let act = tx.touch(&a.thread_id, |_| {});
    let mut out = json!({"ok": true, "thread_id": a.thread_id, "blueprint": out_run});
    if ended {
        if let Some(h) = tx.handoff_of_child(&a.thread_id).filter(|h| !h.status.is_terminal()).cloned() {
            let h = tx.finish(h, act.last_response, Finish::BlueprintEnd)?;
            out["handoff"] = json!({"handoff_id": h.handoff_id, "handoff_status": h.status.as_str()});
        }
    }
    Ok(out)
}

fn callback_result(tx: &mut Tx<'_>, a: CallbackResult) -> Result<Value, CallError> {
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
    let out = json!({"ok": true, "handoff_id": h.handoff_id, "handoff_status": h.status.as_str(), "callback_failures": h.callback_failures});
    tx.put_handoff(h);
    Ok(out)
}

fn delete_thread(tx: &mut Tx<'_>, a: ThreadRef) -> Result<Value, CallError> {
    let mut t = (*live_thread(tx, &a.thread_id)?).clone();
    t.deleted_at = Some(tx.now);
    tx.put_thread(t);
    Ok(json!({"ok": true, "thread_id": a.thread_id}))
}

fn thread_state(tx: &mut Tx<'_>, a: ThreadState) -> Result<Value, CallError> {
    let mut t = (*live_thread(tx, &a.thread_id)?).clone();
    t.readable = a.readable;
    tx.put_thread(t);
    Ok(json!({"ok": true, "thread_id": a.thread_id, "readable": a.readable}))
}

fn mission_strip(tx: &mut Tx<'_>, a: ThreadRef) -> Result<Value, CallError> {
    let thread = tx.thread(&a.thread_id).cloned().ok_or_else(|| no_thread(&a.thread_id))?;
    let st = tx.st;
    // The chain's root: walk up while the parent shares the journey.
    let mut root = thread.clone();
    while let Some(p) = root.parent_thread_id.as_ref().and_then(|p| st.threads.get(p)) {
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
            .filter_map(|h| h.child_thread_id.as_ref().and_then(|c| st.threads.get(c)))
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
    let stages: Vec<Value> = journey
        .stages
        .iter()
        .zip(found)
        .zip(states)
        .map(|((stage, t), state)| {
            let mut s = json!({"blueprint": stage, "state": state});
            if let Some(t) = t {
                let h = t.handoff_id.as_ref().and_then(|h| st.handoffs.get(h));
                let parent = t.parent_thread_id.as_ref().and_then(|p| st.threads.get(p));
                s["thread_id"] = json!(t.thread_id);
                s["handoff_id"] = json!(t.handoff_id);
                s["status"] = json!(h.map(|h| h.status.as_str()).unwrap_or(Status::Running.as_str()));
                if let Some(badge) = t.coding_agent().or_else(|| parent.and_then(|p| p.coding_agent())) {
                    s["coding_agent"] = json!(badge);
                }
            }
            s
        })
        .collect();
    Ok(json!({"journey": journey.name, "root_thread_id": root.thread_id, "stages": stages}))
}

fn get_thread(tx: &mut Tx<'_>, a: ThreadRef) -> Result<Value, CallError> {
    let thread = tx.thread(&a.thread_id).cloned().ok_or_else(|| no_thread(&a.thread_id))?;
    let mut activity = serde_json::to_value(tx.activity(&a.thread_id)).unwrap_or_default();
    activity["turn_calls"] = json!(tx.st.turn_calls.get(&a.thread_id).cloned().unwrap_or_default());
    Ok(json!({"thread": thread, "activity": activity}))
}

fn get_agent(tx: &mut Tx<'_>, a: BotRef) -> Result<Value, CallError> {
    let agent = tx.st.agents.get(&a.bot_id).cloned().ok_or_else(|| {
        CallError::new(ErrorCode::NotFound, format!("bot_id: no agent '{}'", a.bot_id)).field("bot_id")
    })?;
    Ok(json!({"agent": agent}))
}

fn register_teammate(tx: &mut Tx<'_>, t: Teammate) -> Result<Value, CallError> {
    let valid = t.handle.split_once('@').is_some_and(|(n, o)| !n.is_empty() && !o.is_empty() && !o.contains('@'));
    if !valid || t.handle.chars().any(char::is_whitespace) {
        return Err(CallError::invalid("handle", "I2", format!("'{}' is not a handle like bob@acme", t.handle)));
    }
    non_empty("name", "I2", &t.name)?;
    non_empty("role", "I2", &t.role)?;
    if let Some(b) = &t.bot_id {
        if !tx.st.agents.contains_key(b) {
            return Err(CallError::new(ErrorCode::NotFound, format!("bot_id: no agent '{b}'")).field("bot_id"));
        }
    }
    let handle = t.handle.clone();
    tx.put(Change::Teammate(t));
    Ok(json!({"ok": true, "handle": handle}))
}

fn load_trust(tx: &mut Tx<'_>, a: LoadTrust) -> Result<Value, CallError> {
    if !tx.st.teammates.contains_key(&a.handle) {
        return Err(CallError::new(ErrorCode::NotFound, format!("handle: no teammate '{}'", a.handle)).field("handle"));
    }
    let policy = crate::trust::parse(&a.yaml).map_err(|e| CallError::invalid("yaml", "I3", e))?;
    let senders = policy.senders.len();
    tx.put(Change::Trust { handle: a.handle.clone(), policy });
    Ok(json!({"ok": true, "handle": a.handle, "senders": senders}))
}

fn tools_for(tx: &mut Tx<'_>, a: ThreadRef) -> Result<Value, CallError> {
    let thread = live_thread(tx, &a.thread_id)?;
    let agent = tx.st.agents.get(&thread.bot_id).ok_or_else(|| no_thread(&a.thread_id))?;
    if thread.bypassed_by.is_some() {
        return Ok(json!({"thread_id": a.thread_id, "tools": [], "bypassed_by": thread.bypassed_by}));
    }
    let tools: Vec<&str> = crate::tools::TOOLS
        .iter()
        .filter(|t| t.exists_for.is_none_or(|f| f(tx.st, &thread)))
        .filter(|t| dispatch::check(agent, &thread, t.name).is_ok())
        .map(|t| t.name)
        .collect();
    Ok(json!({"thread_id": a.thread_id, "tools": tools}))
}

fn audit_log(tx: &mut Tx<'_>, a: AuditQuery) -> Result<Value, CallError> {
    let entries: Vec<Value> = tx
        .st
        .audit
        .iter()
        .filter(|e| a.session_id.as_ref().is_none_or(|s| s == &e.session_id))
        .map(|e| {
            json!({"at": e.at.to_iso(), "session_id": e.session_id, "actor": e.actor, "action": e.action,
                   "outcome": e.outcome, "summary": e.summary, "reason": e.reason})
        })
        .collect();
    Ok(json!({"entries": entries}))
}

fn create_skill(tx: &mut Tx<'_>, a: CreateSkill) -> Result<Value, CallError> {
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
    let (id, _) = tx.new_seq_id(crate::ids::IdKind::Task);
    let suffix: String = id.trim_start_matches("task_").chars().take(8).collect();
    let name = format!("{base}-{suffix}");
    tx.put(Change::Skill(crate::schedule::Skill { name: name.clone(), trashed: false }));
    Ok(json!({"ok": true, "skill_name": name}))
}

fn start_task(tx: &mut Tx<'_>, a: StartTask) -> Result<Value, CallError> {
    let mut t = (*live_thread(tx, &a.thread_id)?).clone();
    let task_id = match a.task_id {
        Some(id) => {
            non_empty("task_id", "A7", &id)?;
            id
        }
        None => tx.new_seq_id(crate::ids::IdKind::Task).0,
    };
    t.task_id = Some(task_id.clone());
    tx.put_thread(t);
    Ok(json!({"ok": true, "thread_id": a.thread_id, "task_id": task_id}))
}

fn report_written(tx: &mut Tx<'_>, a: ReportWritten) -> Result<Value, CallError> {
    let t = live_thread(tx, &a.thread_id)?;
    let file = a.path.rsplit('/').next().unwrap_or(&a.path);
    let counts = file.starts_with("report-") && (file.ends_with(".md") || file.ends_with(".html"));
    let task_id = t.task_id.clone().unwrap_or_else(|| t.thread_id.clone());
    if counts {
        tx.put(Change::Report { task_id: task_id.clone(), path: a.path.clone() });
    }
    Ok(json!({"ok": true, "task_id": task_id, "counts_as_report": counts}))
}

fn answer_user(tx: &mut Tx<'_>, a: AnswerUser) -> Result<Value, CallError> {
    use crate::ask::{AskStatus, QuestionKind};
    let ask = tx.st.asks.get(&a.question_id).cloned().ok_or_else(|| {
        CallError::new(ErrorCode::NotFound, format!("question_id: no question '{}'", a.question_id))
            .field("question_id")
    })?;
    if ask.status == AskStatus::Answered {
        return Err(CallError::new(
            ErrorCode::ThreadTerminal,
            format!("question '{}' is already answered", a.question_id),
        )
        .field("question_id")
        .rule("A8"));
    }
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
    answered.status = AskStatus::Answered;
    answered.answered_at = Some(tx.now);
    answered.answers = Some(stored.clone());
    tx.emit(crate::effect::Effect::ResumeRun {
        thread_id: ask.thread_id.clone(),
        question_id: ask.question_id.clone(),
        answers: a.answers,
        snapshot: ask.snapshot.clone(),
    });
    tx.put(Change::Ask(std::sync::Arc::new(answered)));
    Ok(json!({"ok": true, "question_id": a.question_id, "status": "answered", "answers": stored}))
}

fn register_leg_session(tx: &mut Tx<'_>, a: LegSessionArgs) -> Result<Value, CallError> {
    non_empty("session_id", "A1", &a.session_id)?;
    if a.session_id.starts_with("temp-") {
        return Err(CallError::invalid(
            "session_id",
            "A1",
            "temp- sessions are the legs' own; name a reusable session",
        ));
    }
    if let Some(m) = &a.model {
        if !tx.st.config.models.iter().any(|x| x == m) {
            return Err(CallError::invalid(
                "model",
                "A4",
                format!("'{m}' is not a usable model; usable: {:?}", tx.st.config.models),
            ));
        }
    }
    let id = a.session_id.clone();
    tx.put(Change::LegSession(crate::leg::LegSession { session_id: a.session_id, role: a.role, model: a.model }));
    Ok(json!({"ok": true, "session_id": id}))
}

fn live_leg(tx: &Tx<'_>, id: &str) -> Result<crate::leg::Leg, CallError> {
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

fn leg_usage(tx: &mut Tx<'_>, a: LegUsage) -> Result<Value, CallError> {
    live_leg(tx, &a.leg_id)?;
    Ok(crate::legflow::usage(tx, &a.leg_id, a.usage).unwrap_or(Value::Null))
}

fn leg_report(tx: &mut Tx<'_>, a: LegReport) -> Result<Value, CallError> {
    let leg = live_leg(tx, &a.leg_id)?;
    if leg.status != crate::leg::LegStatus::Running {
        return Err(CallError::new(
            ErrorCode::InvalidTransition,
            format!("leg '{}' is queued; it has not started", a.leg_id),
        )
        .field("leg_id")
        .rule("A2"));
    }
    let leg =
        crate::legflow::end_leg(tx, leg, crate::leg::LegEvent::Report, Some(a.text)).expect("running leg reports");
    Ok(
        json!({"ok": true, "leg_id": leg.leg_id, "status": leg.status.as_str(), "report_path": leg.report_path, "header": leg.header()}),
    )
}

fn leg_failed(tx: &mut Tx<'_>, a: LegFailed) -> Result<Value, CallError> {
    let leg = live_leg(tx, &a.leg_id)?;
    non_empty("error", "A2", &a.error)?;
    let leg = crate::legflow::end_leg(tx, leg, crate::leg::LegEvent::Fail, Some(a.error)).expect("live leg fails");
    Ok(json!({"ok": true, "leg_id": leg.leg_id, "status": leg.status.as_str()}))
}
