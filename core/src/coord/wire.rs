//! The coordination tools' wire types: `subagents`, `background_subagents`, `schedules`,
//! `write_todo` and `ask_user` (A1–A8).
use crate::coord::schedule::Target;
use crate::coord::todo::Step;
use crate::handoff::question::Question;
use serde::{Deserialize, Serialize};

/// `schedules` modes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ScheduleMode {
    /// What this session has queued.
    List,
    /// Move an entry to a new time.
    Patch,
    /// Cancel an entry and trash its skill.
    Remove,
    /// Bind a generated scheduler skill to a time (the scheduler-skill flow's last step).
    Write,
}

/// Parameters of `schedules`.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schema", schemars(extend("allOf" = [
    {"if": {"properties": {"mode": {"const": "write"}}},
     "then": {"required": ["target", "skill_name"], "properties": {"target": {"enum": ["task", "cron"]}, "skill_name": {"type": "string"}}}},
    {"if": {"properties": {"mode": {"enum": ["patch", "remove"]}}},
     "then": {"required": ["schedule_id"], "properties": {"schedule_id": {"type": "string"}}}},
    {"if": {"required": ["target"], "properties": {"target": {"const": "task"}}},
     "then": {"properties": {"cron": {"type": "null"}}}},
    {"if": {"required": ["target"], "properties": {"target": {"const": "cron"}}},
     "then": {"properties": {"time": {"type": "null"}}}},
    {"if": {"required": ["target"], "properties": {"mode": {"const": "write"}, "target": {"const": "task"}}},
     "then": {"required": ["time"], "properties": {"time": {"type": "string"}}}},
    {"if": {"required": ["target"], "properties": {"mode": {"const": "write"}, "target": {"const": "cron"}}},
     "then": {"required": ["cron"], "properties": {"cron": {"type": "string"}}}}
])))]
pub struct SchedulesArgs {
    /// `list`, `patch`, `remove` or `write`.
    pub mode: ScheduleMode,
    /// `task` (one run), `cron` (5-field expression) or `all` (list only). List defaults to all.
    #[serde(default)]
    pub target: Option<Target>,
    /// The entry to patch or remove.
    #[serde(default)]
    pub schedule_id: Option<crate::ground::ids::ScheduleId>,
    /// For write: the generated skill name (with its hash suffix; hand-made names fail).
    #[serde(default)]
    pub skill_name: Option<String>,
    /// For a task: +5m, +1h30m, 15:04 (later today only), 2006-01-02 15:04 (local) or RFC 3339.
    #[serde(default)]
    pub time: Option<String>,
    /// For cron: minute hour day month weekday.
    #[serde(default)]
    pub cron: Option<String>,
}

/// Parameters of `write_todo`.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct WriteTodoArgs {
    /// The whole ordered checklist; it replaces the previous one.
    #[cfg_attr(feature = "schema", schemars(length(min = 1)))]
    pub steps: Vec<Step>,
}

/// Parameters of `ask_user`.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct AskUserArgs {
    /// 1–10 questions. Never ask for a credential: the user stores those with store_secret.
    #[cfg_attr(feature = "schema", schemars(length(min = 1, max = 10)))]
    pub questions: Vec<Question>,
}

/// `subagents` modes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum LegMode {
    /// Run a subtask in its own session.
    Invoke,
    /// Resolve one named session by `self_id`.
    List,
}

/// Parameters of `subagents`.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SubagentsArgs {
    /// `invoke` or `list`.
    pub mode: LegMode,
    /// The subtask, written to stand alone: the leg sees none of this conversation (invoke).
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(length(min = 1), pattern(crate::ground::limits::NON_BLANK)))]
    pub task: Option<String>,
    /// Required for invoke: a registered model, or `auto` for the dispatcher's pick.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(length(min = 1), pattern(crate::ground::limits::NON_BLANK)))]
    pub model: Option<String>,
    /// A named session to reuse (invoke) or resolve (list, required there).
    #[serde(default)]
    pub self_id: Option<String>,
    /// Short kebab-case report name (job + entity, e.g. `nvda-news`); blank: a random name.
    #[serde(default)]
    pub report_name: Option<String>,
    /// `auto` (default), `minimal`, `low`, `medium`, `high` or `max`.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(extend("enum" = ["auto", "minimal", "low", "medium", "high", "max", null])))]
    pub reasoning: Option<String>,
    /// Start the named session afresh.
    #[serde(default)]
    pub new: Option<bool>,
    /// Extra system prompt for the leg.
    #[serde(default)]
    pub system_prompt: Option<String>,
    /// More tools to withhold from the leg.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(inner(length(min = 1), pattern(crate::ground::limits::NON_BLANK))))]
    pub exclude_tools: Option<Vec<String>>,
}

/// Parameters of `background_subagents`.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct BackgroundSubagentsArgs {
    /// The subtask, written to stand alone.
    #[cfg_attr(feature = "schema", schemars(length(min = 1), pattern(crate::ground::limits::NON_BLANK)))]
    pub task: String,
    /// A registered model, or `auto`.
    #[cfg_attr(feature = "schema", schemars(length(min = 1), pattern(crate::ground::limits::NON_BLANK)))]
    pub model: String,
    /// A named session to reuse.
    #[serde(default)]
    pub self_id: Option<String>,
    /// Short kebab-case report name; blank: a random name.
    #[serde(default)]
    pub report_name: Option<String>,
    /// `auto` (default), `minimal`, `low`, `medium`, `high` or `max`.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(extend("enum" = ["auto", "minimal", "low", "medium", "high", "max", null])))]
    pub reasoning: Option<String>,
    /// Start the named session afresh.
    #[serde(default)]
    pub new: Option<bool>,
    /// Extra system prompt.
    #[serde(default)]
    pub system_prompt: Option<String>,
    /// More tools to withhold.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(inner(length(min = 1), pattern(crate::ground::limits::NON_BLANK))))]
    pub exclude_tools: Option<Vec<String>>,
    /// Minutes before the leg is stopped, 1–60 (default 60), counted from the call.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(extend("default" = 60), range(min = 1, max = 60)))]
    pub timeout_min: Option<i64>,
    /// What the follow-up task should achieve with the group's reports.
    #[serde(default)]
    pub objective: Option<String>,
    /// What to do after the gathering (the user's follow-up action).
    #[serde(default)]
    pub next: Option<String>,
}

/// A named leg session.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct LegSessionOut {
    /// The self_id.
    pub self_id: String,
    /// Role.
    pub role: String,
    /// Pinned model.
    pub model: Option<String>,
}

/// `subagents` and `background_subagents`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SubagentsResult {
    /// Always true.
    pub ok: bool,
    /// list: the session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<LegSessionOut>,
    /// invoke: the leg.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leg_id: Option<crate::ground::ids::LegId>,
    /// invoke: its session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// invoke: its thread.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread_id: Option<crate::ground::ids::ThreadId>,
    /// invoke: the model that runs it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// invoke: `running` or `queued`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// background: the task id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// background: the group.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group_id: Option<crate::ground::ids::GroupId>,
    /// background: what happens next.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A schedule as listed.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ScheduleOut {
    /// Id.
    pub schedule_id: crate::ground::ids::ScheduleId,
    /// `task` or `cron`.
    pub target: String,
    /// Skill.
    pub skill_name: String,
    /// Task time as given.
    pub time: Option<String>,
    /// Cron expression.
    pub cron: Option<String>,
    /// Next run (UTC).
    pub next_run: Option<String>,
    /// Next run in the host's offset.
    pub next_run_local: Option<String>,
    /// Runs so far.
    pub runs: u32,
    /// `active`, `fired` or `removed`.
    pub status: String,
}

/// `schedules`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SchedulesResult {
    /// Always true.
    pub ok: bool,
    /// list: how many.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<usize>,
    /// list: the entries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedules: Option<Vec<ScheduleOut>>,
    /// write/patch/remove: the entry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<ScheduleOut>,
    /// remove: the trashed skill.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skill_trashed: Option<String>,
}

/// `write_todo`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct WriteTodoResult {
    /// Always true.
    pub ok: bool,
    /// Task.
    pub task_id: String,
    /// The list as stored.
    pub steps: Vec<Step>,
    /// Completed steps.
    pub completed: usize,
    /// All steps.
    pub total: usize,
    /// The step in progress.
    pub in_progress: Option<String>,
    /// When all are completed: about the report.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// `ask_user`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct AskUserResult {
    /// Always true.
    pub ok: bool,
    /// Question id.
    pub question_id: crate::ground::ids::QuestionId,
    /// `pending` or `asked_inline`.
    pub status: String,
    /// Tool calls kept in the snapshot (pending).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot_calls: Option<usize>,
    /// What happens now.
    pub note: String,
}
