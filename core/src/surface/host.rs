//! Host inputs: what the host tells Baton about agents, threads and deliveries. Baton runs
//! no model, so these are how it learns what agents did.
use crate::coord::host::{
    answer_user, create_skill, leg_failed, leg_report, leg_usage, register_leg_session, report_written, start_task,
};
pub use crate::coord::host::{
    AnswerUser, Answered, CreateSkill, LegEnded, LegFailed, LegReport, LegSessionArgs, LegSessionRegistered, LegUsage,
    LegUsageTotal, ReportCounted, ReportWritten, SkillCreated, StartTask, TaskStarted,
};
use crate::engine::log::Change;
use crate::engine::storage::Storage;
use crate::engine::tx::Tx;
use crate::engine::{Engine, Prepared};
use crate::ground::config::Config;
use crate::ground::error::{CallError, ErrorCode};
use crate::ground::ids::IdKind;
use crate::ground::time::Timestamp;
use crate::handoff::agent::{Agent, ToolPolicy, COORDINATION_TOOLS, PROJECT_MANAGER_TOOLS, RELAY_TOOLS};
use crate::handoff::blueprint::BlueprintManifest;
use crate::handoff::ctx::{live_thread, no_thread, non_empty};
pub use crate::handoff::ctx::{BotRef, ThreadRef};
use crate::handoff::dispatch;
use crate::handoff::host::{
    blueprint_event, callback_result, check_tool, child_error, mission_strip, response, set_callback, start_failed,
    tool_call, turn_ended, turn_started,
};
pub use crate::handoff::host::{
    BlueprintEvent, BlueprintEventResult, BlueprintRunState, CallbackOutcome, CallbackResult, CallbackSet,
    CheckToolResult, ChildError, HandoffFinished, HandoffMoved, MissionStage, MissionStrip, Response, ResponseResult,
    SetCallback, StartFailed, ThreadEventResult, ToolCallResult, ToolUse, TurnResult,
};
use crate::handoff::store::HandoffTx;
use crate::handoff::thread::{JourneyContext, Owner, Thread, Visibility};
use crate::relay::host::{audit_log, load_trust, register_teammate};
pub use crate::relay::host::{AuditEntryOut, AuditLog, TeammateRegistered, TrustLoaded};
pub use crate::relay::host::{AuditQuery, LoadTrust};
use crate::relay::Teammate;
#[cfg(feature = "schema")]
use crate::surface::def::schema_of;
use crate::surface::def::{parse, Args};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// `register_agent`: add or replace an agent.
#[derive(Default, Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RegisterAgent {
    /// Bot id.
    #[cfg_attr(feature = "schema", schemars(length(min = 1), pattern(crate::ground::limits::NON_BLANK)))]
    pub bot_id: String,
    /// Display name (default: the bot id); unique among agents.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(length(min = 1), pattern(crate::ground::limits::NON_BLANK)))]
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

/// `open_thread`: a conversation the host started (a user's chat with a bot).
#[derive(Default, Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct OpenThread {
    /// Thread id (default: a new id).
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(length(min = 1), pattern(crate::ground::limits::NON_BLANK)))]
    pub thread_id: Option<crate::ground::ids::ThreadId>,
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

/// `thread_state`: whether the host can read a thread's state (G13 fallback).
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ThreadState {
    /// Thread.
    pub thread_id: crate::ground::ids::ThreadId,
    /// Readable.
    pub readable: bool,
}

/// `register_agent`'s answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Registered {
    /// Always true.
    pub ok: bool,
    /// The agent.
    pub bot_id: String,
}

/// `open_thread`'s answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct OpenedThread {
    /// Always true.
    pub ok: bool,
    /// The thread (the one given, or a new id).
    pub thread_id: crate::ground::ids::ThreadId,
}

/// An answer with nothing more to say than that it worked (`configure`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Ack {
    /// Always true.
    pub ok: bool,
}

/// `deactivate_agent` / `reactivate_agent`'s answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AgentActive {
    /// Always true.
    pub ok: bool,
    /// The agent.
    pub bot_id: String,
    /// Whether it receives handoffs now (G17).
    pub active: bool,
}

/// `register_blueprint`'s answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct BlueprintRegistered {
    /// Always true.
    pub ok: bool,
    /// The blueprint.
    pub name: String,
}

/// `delete_thread`'s answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ThreadDeleted {
    /// Always true.
    pub ok: bool,
    /// The thread, now deleted (S6).
    pub thread_id: crate::ground::ids::ThreadId,
}

/// `thread_state`'s answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ThreadReadable {
    /// Always true.
    pub ok: bool,
    /// The thread.
    pub thread_id: crate::ground::ids::ThreadId,
    /// Whether the host can read its state now (G13).
    pub readable: bool,
}

/// `get_thread`'s answer: the stored record and what the host reported it doing.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ThreadRecord {
    /// The thread as stored.
    pub thread: Thread,
    /// Its activity.
    pub activity: ThreadActivity,
}

/// A thread's activity, with the tool calls of its current turn.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ThreadActivity {
    /// What the host reported.
    #[serde(flatten)]
    pub activity: crate::handoff::thread::Activity,
    /// The current turn's tool calls, as an `ask_user` snapshot keeps them (A8).
    pub turn_calls: Vec<crate::handoff::calls::CallSnapshot>,
}

/// `get_agent`'s answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AgentRecord {
    /// The agent as stored.
    pub agent: Agent,
}

/// `tools_for`'s answer: the tools to offer the thread's model now.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ToolsForResult {
    /// The thread.
    pub thread_id: crate::ground::ids::ThreadId,
    /// Tool names, in the surface's order.
    pub tools: Vec<String>,
    /// The sibling session that holds the conversation now (X5): no tools until it releases.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bypassed_by: Option<crate::ground::ids::SessionId>,
}

/// `in_flight`'s arguments.
#[derive(Debug, Default, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct InFlightQuery {}

/// A turn that started and has not ended (a `turn_started` or a wake without `turn_ended`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TurnInFlight {
    /// The thread.
    pub thread_id: crate::ground::ids::ThreadId,
    /// Its bot.
    pub bot_id: String,
    /// The handoff this thread is the child of, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handoff_id: Option<crate::ground::ids::HandoffId>,
}

/// The child of an open handoff that has not finished.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ChildInFlight {
    /// The `start_child` effect that started it, as it would be emitted now.
    pub start: crate::handoff::effect::Effect,
    /// The handoff's stored status (S10).
    pub status: String,
    /// The child is mid-turn (its turn was cut off if its host stopped).
    pub mid_turn: bool,
    /// Turns the child has ended so far (0: it never ran to the end of one).
    pub turns_ended: u64,
}

/// `in_flight`'s answer: what to run again after a host restart.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct InFlight {
    /// Turns started and not ended, by thread.
    pub turns: Vec<TurnInFlight>,
    /// Children of open handoffs, oldest handoff first, with neither a report nor an end.
    pub children: Vec<ChildInFlight>,
}

/// Who may send a host input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostScope {
    /// The host alone: it changes or reads the workspace as a whole.
    Host,
    /// A thread's own activity, or a read of one thread (its `thread_id` argument): besides the
    /// host, the process running the thread's agent may send it for threads that agent owns
    /// (a `bot:ID` key of `baton serve`).
    Thread,
}

impl HostScope {
    /// Its name in the schemas (`host`, `thread`).
    pub fn as_str(self) -> &'static str {
        match self {
            HostScope::Host => "host",
            HostScope::Thread => "thread",
        }
    }
}

type HostHandler = fn(&mut Tx<'_>, Value) -> Result<Value, CallError>;

/// One host input of the surface.
pub struct HostDef {
    /// Input name.
    pub name: &'static str,
    /// What it tells Baton.
    pub description: &'static str,
    /// The rule it answers to.
    pub rule: &'static str,
    /// Who may send it besides the host.
    pub scope: HostScope,
    #[cfg(feature = "schema")]
    schema: fn() -> Value,
    #[cfg(feature = "schema")]
    result_schema: fn() -> Value,
    pub(crate) run: HostHandler,
}

impl HostDef {
    /// JSON Schema of the arguments.
    #[cfg(feature = "schema")]
    pub fn parameters(&self) -> Value {
        (self.schema)()
    }

    /// JSON Schema of what it answers when it succeeds (`true`, any value, for the inputs
    /// whose answer has no declared type yet).
    #[cfg(feature = "schema")]
    pub fn result_schema(&self) -> Value {
        (self.result_schema)()
    }
}

/// The schema of a host input's answer: a declared type's, or any value for `Value`.
#[cfg(feature = "schema")]
fn result_schema_of<T: schemars::JsonSchema + 'static>() -> Value {
    if std::any::TypeId::of::<T>() == std::any::TypeId::of::<Value>() {
        return Value::Bool(true);
    }
    schema_of::<T>()
}

macro_rules! host {
    ($name:literal, $args:ty, $result:ty, $handler:path, $rule:literal, $scope:ident, $desc:literal) => {
        HostDef {
            name: $name,
            description: $desc,
            rule: $rule,
            scope: HostScope::$scope,
            #[cfg(feature = "schema")]
            schema: schema_of::<$args>,
            #[cfg(feature = "schema")]
            result_schema: result_schema_of::<$result>,
            run: |tx, v| {
                let a: $args = parse(Args::Value(v), &|_| $rule)?;
                let out: $result = $handler(tx, a)?;
                Ok(serde_json::to_value(out).unwrap_or(Value::Null))
            },
        }
    };
}

/// Every host input: the table (`HOST_INPUTS`) and, from the same list, one typed `Engine`
/// method per input (typed arguments in, its typed answer out, the same handler as
/// [`Engine::host`]) and its preview (the same, nothing committed).
macro_rules! host_inputs {
    ($($method:ident: $name:literal, $args:ty => $result:ty, $handler:path, $rule:literal, $scope:ident, $desc:literal;)*) => {
        /// Every host input.
        pub static HOST_INPUTS: &[HostDef] = &[$(host!($name, $args, $result, $handler, $rule, $scope, $desc)),*];

        impl<S: Storage> Engine<S> {
            $(
                #[doc = concat!("Host input `", $name, "`: ", $desc)]
                pub fn $method(&mut self, args: $args, now: Timestamp) -> Result<$result, CallError> {
                    let prepared = self.stage($name, now, |tx| $handler(tx, args))?;
                    self.commit(prepared)
                }
            )*
        }

        impl<S: Storage> crate::surface::typed::Previews<'_, S> {
            $(
                #[doc = concat!("Host input `", $name, "`, previewed (answered as it would be now, nothing committed): ", $desc)]
                pub fn $method(&self, args: $args, now: Timestamp) -> Result<$result, CallError> {
                    let prepared = self.engine().stage($name, now, |tx| $handler(tx, args))?;
                    Ok(prepared.into_output())
                }
            )*
        }
    };
}

host_inputs! {
    configure: "configure", Config => Ack, configure, "M5", Host, "Set the engine configuration (omitted fields take defaults).";
    register_agent: "register_agent", RegisterAgent => Registered, register_agent, "G2", Host, "Add or replace an agent: bot id, display name, tools, tool policy.";
    deactivate_agent: "deactivate_agent", BotRef => AgentActive, deactivate_agent, "G17", Host, "Deactivate an agent: it receives no handoffs.";
    reactivate_agent: "reactivate_agent", BotRef => AgentActive, reactivate_agent, "G17", Host, "Reactivate an agent.";
    register_blueprint: "register_blueprint", BlueprintManifest => BlueprintRegistered, register_blueprint, "B1", Host, "Add or replace a blueprint manifest (declared inputs).";
    open_thread: "open_thread", OpenThread => OpenedThread, open_thread, "M6", Host, "Record a conversation the host started, with its owner.";
    turn_started: "turn_started", ThreadRef => TurnResult, turn_started, "M3", Thread, "A turn started on a thread (it is now mid-turn).";
    turn_ended: "turn_ended", ThreadRef => TurnResult, turn_ended, "M4", Thread, "A thread's turn ended (it is now idle).";
    tool_call: "tool_call", ToolUse => ToolCallResult, tool_call, "G13", Thread, "A thread is calling a tool: checked (G13) and, if allowed, recorded. Returns notices to append to the tool result (M3).";
    check_tool: "check_tool", ToolUse => CheckToolResult, check_tool, "G13", Thread, "May this thread call this tool? Changes nothing.";
    response: "response", Response => ResponseResult, response, "G16", Thread, "A thread's turn produced a response.";
    child_error: "child_error", ChildError => ThreadEventResult, child_error, "S10", Thread, "A thread's run failed.";
    start_failed: "start_failed", StartFailed => ThreadEventResult, start_failed, "G18", Thread, "The host could not start a child thread it was asked to: its handoff, still started, ends materialize_failed.";
    blueprint_event: "blueprint_event", BlueprintEvent => BlueprintEventResult, blueprint_event, "B6", Host, "Blueprint progress: phase, end (@END), pause, resume, mode, replay_growth.";
    callback_result: "callback_result", CallbackResult => CallbackOutcome, callback_result, "G14", Host, "Outcome of a callback POST.";
    set_callback: "set_callback", SetCallback => CallbackSet, set_callback, "G14", Host, "Attach a callback (URL, extra headers, a tag) to a live watched handoff that has none from its call, or remove it.";
    delete_thread: "delete_thread", ThreadRef => ThreadDeleted, delete_thread, "S6", Host, "A thread no longer exists.";
    thread_state: "thread_state", ThreadState => ThreadReadable, thread_state, "G13", Host, "Whether the host can read a thread's state.";
    mission_strip: "mission_strip", ThreadRef => MissionStrip, mission_strip, "B4", Thread, "The mission strip of the blueprint journey a thread belongs to. Changes nothing.";
    register_teammate: "register_teammate", Teammate => TeammateRegistered, register_teammate, "I2", Host, "Add or replace a teammate: handle, name, role, email, acting bot.";
    load_trust: "load_trust", LoadTrust => TrustLoaded, load_trust, "I3", Host, "Load a recipient's trust.yaml (see docs/DECISIONS.md for the schema).";
    tools_for: "tools_for", ThreadRef => ToolsForResult, tools_for, "X1", Thread, "The tools a thread may call now, to offer its model. Changes nothing.";
    audit_log: "audit_log", AuditQuery => AuditLog, audit_log, "X5", Host, "Audit log entries, optionally for one sibling session. Changes nothing.";
    create_skill: "create_skill", CreateSkill => SkillCreated, create_skill, "A6", Host, "Create a scheduler skill; its generated name (with a hash suffix) is what schedules write accepts.";
    start_task: "start_task", StartTask => TaskStarted, start_task, "A7", Thread, "A thread starts a new task (run); write_todo keeps one checklist per task.";
    report_written: "report_written", ReportWritten => ReportCounted, report_written, "A7", Thread, "A report file was written in the thread's current task.";
    answer_user: "answer_user", AnswerUser => Answered, answer_user, "A8", Host, "The user answered an ask_user question; the run resumes with full context.";
    register_leg_session: "register_leg_session", LegSessionArgs => LegSessionRegistered, register_leg_session, "A1", Host, "Add a named, reusable leg session (self_id), its role and optionally a pinned model.";
    leg_usage: "leg_usage", LegUsage => LegUsageTotal, leg_usage, "A3", Host, "Token usage a leg has spent since the last report (added up).";
    leg_report: "leg_report", LegReport => LegEnded, leg_report, "A3", Host, "A leg finished: its report text. Baton names and stores it and answers the parent.";
    leg_failed: "leg_failed", LegFailed => LegEnded, leg_failed, "A3", Host, "A leg failed.";
    get_thread: "get_thread", ThreadRef => ThreadRecord, get_thread, "G6", Thread, "A thread's stored record and activity. Changes nothing.";
    in_flight: "in_flight", InFlightQuery => InFlight, in_flight, "G3", Host, "What a host was running when it stopped: turns started and not ended, children of open handoffs not finished. Changes nothing.";
    get_agent: "get_agent", BotRef => AgentRecord, get_agent, "B7", Host, "An agent's stored record. Changes nothing.";
}

impl<S: Storage> Engine<S> {
    /// Runs a host input against the current state and answers what it would answer, changing
    /// nothing (read-only inputs such as `mission_strip` and `get_thread`).
    pub fn preview_host(&self, input: &str, args: Value, now: Timestamp) -> Result<Value, CallError> {
        self.prepare_host(input, args, now).map(Prepared::into_output)
    }

    /// A host input (see [`crate::HOST_INPUTS`]).
    pub fn host(&mut self, input: &str, args: Value, now: Timestamp) -> Result<Value, CallError> {
        let prepared = self.prepare_host(input, args, now)?;
        self.commit(prepared)
    }

    /// Whether the process running agent `bot_id` may send this host input (a `bot:ID` key of
    /// `baton serve`): only inputs of [`HostScope::Thread`], and only for a thread that agent
    /// owns. Checks; changes nothing. The input itself is then sent as [`Engine::host`].
    pub fn may_send_as_agent(&self, input: &str, args: &Value, bot_id: &str) -> Result<(), CallError> {
        let def = find_host(input)
            .ok_or_else(|| CallError::new(ErrorCode::UnknownTool, format!("no host input named '{input}'")))?;
        if def.scope != HostScope::Thread {
            return Err(CallError::new(
                ErrorCode::Forbidden,
                format!(
                    "'{input}' is sent by the host only; an agent's key sends a thread's own activity \
                     ({})",
                    HOST_INPUTS
                        .iter()
                        .filter(|h| h.scope == HostScope::Thread)
                        .map(|h| h.name)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
        let thread_id = args.get("thread_id").and_then(Value::as_str).ok_or_else(|| {
            CallError::new(ErrorCode::InvalidParams, "thread_id (a string) is required").field("thread_id")
        })?;
        match self.state().threads.get(thread_id) {
            None => Err(crate::handoff::ctx::no_thread(thread_id)),
            Some(t) if t.bot_id != bot_id => Err(CallError::new(
                ErrorCode::Forbidden,
                format!("thread_id: thread '{thread_id}' belongs to another agent; this key reports only agent '{bot_id}''s threads"),
            )
            .field("thread_id")),
            Some(_) => Ok(()),
        }
    }

    /// Stages a host input without changing anything (see [`Prepared`]).
    pub fn prepare_host(&self, input: &str, args: Value, now: Timestamp) -> Result<Prepared, CallError> {
        let def = find_host(input)
            .ok_or_else(|| CallError::new(ErrorCode::UnknownTool, format!("no host input named '{input}'")))?;
        self.stage(input, now, |tx| (def.run)(tx, args))
    }
}

/// The host input named `name`.
pub(crate) fn find_host(name: &str) -> Option<&'static HostDef> {
    HOST_INPUTS.iter().find(|h| h.name == name)
}

fn configure(tx: &mut Tx<'_>, c: Config) -> Result<Ack, CallError> {
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
    tx.put(Change::Configured(Box::new(c)));
    Ok(Ack { ok: true })
}

fn register_agent(tx: &mut Tx<'_>, a: RegisterAgent) -> Result<Registered, CallError> {
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
    tx.put(Change::Agent(Box::new(agent)));
    Ok(Registered { ok: true, bot_id: a.bot_id })
}

fn set_active(tx: &mut Tx<'_>, bot_id: &str, active: bool) -> Result<AgentActive, CallError> {
    let mut agent =
        tx.st.agents.get(bot_id).cloned().ok_or_else(|| {
            CallError::new(ErrorCode::NotFound, format!("bot_id: no agent '{bot_id}'")).field("bot_id")
        })?;
    agent.active = active;
    tx.put(Change::Agent(Box::new(agent)));
    Ok(AgentActive { ok: true, bot_id: bot_id.to_string(), active })
}

fn deactivate_agent(tx: &mut Tx<'_>, a: BotRef) -> Result<AgentActive, CallError> {
    set_active(tx, &a.bot_id, false)
}

fn reactivate_agent(tx: &mut Tx<'_>, a: BotRef) -> Result<AgentActive, CallError> {
    set_active(tx, &a.bot_id, true)
}

fn register_blueprint(tx: &mut Tx<'_>, b: BlueprintManifest) -> Result<BlueprintRegistered, CallError> {
    non_empty("name", "B1", &b.name)?;
    let name = b.name.clone();
    tx.put(Change::Blueprint(b));
    Ok(BlueprintRegistered { ok: true, name })
}

fn open_thread(tx: &mut Tx<'_>, a: OpenThread) -> Result<OpenedThread, CallError> {
    if !tx.st.agents.contains_key(&a.bot_id) {
        return Err(CallError::new(ErrorCode::NotFound, format!("bot_id: no agent '{}'", a.bot_id)).field("bot_id"));
    }
    let (generated, seq) = tx.new_seq_id::<crate::ground::ids::ThreadId>(IdKind::Thread);
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
        ..Thread::new(thread_id.clone(), a.bot_id.into(), seq, tx.now)
    });
    Ok(OpenedThread { ok: true, thread_id })
}

fn delete_thread(tx: &mut Tx<'_>, a: ThreadRef) -> Result<ThreadDeleted, CallError> {
    let mut t = (*live_thread(tx, &a.thread_id)?).clone();
    t.deleted_at = Some(tx.now);
    tx.put_thread(t);
    Ok(ThreadDeleted { ok: true, thread_id: a.thread_id })
}

fn thread_state(tx: &mut Tx<'_>, a: ThreadState) -> Result<ThreadReadable, CallError> {
    let mut t = (*live_thread(tx, &a.thread_id)?).clone();
    t.readable = a.readable;
    tx.put_thread(t);
    Ok(ThreadReadable { ok: true, thread_id: a.thread_id, readable: a.readable })
}

fn get_thread(tx: &mut Tx<'_>, a: ThreadRef) -> Result<ThreadRecord, CallError> {
    let thread = tx.thread(&a.thread_id).cloned().ok_or_else(|| no_thread(&a.thread_id))?;
    let activity = ThreadActivity {
        activity: tx.activity(&a.thread_id),
        turn_calls: tx.st.turn_calls.get(&a.thread_id).map(|c| c.0.clone()).unwrap_or_default(),
    };
    Ok(ThreadRecord { thread, activity })
}

fn get_agent(tx: &mut Tx<'_>, a: BotRef) -> Result<AgentRecord, CallError> {
    let agent = tx.st.agents.get(&a.bot_id).cloned().ok_or_else(|| {
        CallError::new(ErrorCode::NotFound, format!("bot_id: no agent '{}'", a.bot_id)).field("bot_id")
    })?;
    Ok(AgentRecord { agent })
}

fn tools_for(tx: &mut Tx<'_>, a: ThreadRef) -> Result<ToolsForResult, CallError> {
    let thread = live_thread(tx, &a.thread_id)?;
    let agent = tx.st.agents.get(thread.bot_id.as_str()).ok_or_else(|| no_thread(&a.thread_id))?;
    if thread.bypassed_by.is_some() {
        return Ok(ToolsForResult { thread_id: a.thread_id, tools: vec![], bypassed_by: thread.bypassed_by.clone() });
    }
    let tools = crate::surface::TOOLS
        .iter()
        .filter(|t| t.exists_for.is_none_or(|f| f(tx.st, &thread)))
        .filter(|t| dispatch::check(agent, &thread, t.name).is_ok())
        .map(|t| t.name.to_string())
        .collect();
    Ok(ToolsForResult { thread_id: a.thread_id, tools, bypassed_by: None })
}

/// What was in flight: mid-turn threads (the busy index) and the children of open handoffs
/// (the open index) that are mid-turn or have never ended a turn; closed handoffs are not read.
fn in_flight(tx: &mut Tx<'_>, _: InFlightQuery) -> Result<InFlight, CallError> {
    let st = tx.st;
    let turns = st
        .busy_threads()
        .filter_map(|id| st.threads.get(id))
        .map(|t| TurnInFlight {
            thread_id: t.thread_id.clone(),
            bot_id: t.bot_id.as_str().to_owned(),
            handoff_id: st.handoff_of_child(&t.thread_id).map(|h| h.handoff_id.clone()),
        })
        .collect();
    let mut children = Vec::new();
    for h in st.open_handoffs() {
        let Some(child) = h.child_thread_id.as_ref().and_then(|c| st.threads.get(c)).filter(|c| c.deleted_at.is_none())
        else {
            continue;
        };
        let act = st.activity.get(&child.thread_id).cloned().unwrap_or_default();
        if !act.mid_turn && act.turns_ended > 0 {
            continue;
        }
        children.push(ChildInFlight {
            start: crate::handoff::run::start_child(h, child),
            status: h.status.as_str().into(),
            mid_turn: act.mid_turn,
            turns_ended: act.turns_ended,
        });
    }
    Ok(InFlight { turns, children })
}
