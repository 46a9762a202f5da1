//! The handoff tools' wire types: the parameters models send and the results they get back
//! (`handoff`, `handoff_status`, `handoff_send`, `handoff_results`, `handoff_cancel`,
//! `handoff_list`, the blueprint tools and `mailbox_action`). Schemas are generated from them.
#[cfg(feature = "schema")]
use crate::ground::limits::NON_BLANK;
use crate::handoff::mailbox::MailItem;
use crate::handoff::thread::{BlueprintMode, Visibility};
use crate::handoff::{OnCompletion, ThreadMode};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Parameters of `handoff`.
#[derive(Debug, Default, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schema", schemars(extend("allOf" = [
    {"if": {"required": ["callback_url"], "properties": {"callback_url": {"type": "string"}}},
     "then": {"required": ["async_mode"], "properties": {"async_mode": {"const": false}}}}
])))]
pub struct HandoffArgs {
    /// Work description for the spawned thread. Required and non-empty.
    #[cfg_attr(feature = "schema", schemars(length(min = 1), pattern(NON_BLANK)))]
    pub task: String,
    /// Agent to delegate to, by bot id or display name. Default: the calling bot.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(length(min = 1), pattern(NON_BLANK)))]
    pub target_bot: Option<String>,
    /// `spawn` (default) runs the work in a new thread; `inline` runs it inside the caller's turn.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(extend("default" = "spawn")))]
    pub thread_mode: Option<ThreadMode>,
    /// `visible` (default): the user can open the thread. `hidden`: kept off normal UI surfaces.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(extend("default" = "visible")))]
    pub visibility: Option<Visibility>,
    /// Show the thread in the sidebar. Default: true when visible, false when hidden.
    #[serde(default)]
    pub show_in_thread_list: Option<bool>,
    /// Title for the spawned thread. Default: derived from the task.
    #[serde(default)]
    pub thread_title: Option<String>,
    /// Structured context handed to the child thread.
    #[serde(default)]
    pub context_data: Option<Map<String, Value>>,
    /// Blueprint to launch in the spawned thread.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(length(min = 1), pattern(NON_BLANK)))]
    pub blueprint_name: Option<String>,
    /// Blueprint mode: `manual` (default), `continuous` or `goal`.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(extend("default" = "manual")))]
    pub blueprint_mode: Option<BlueprintMode>,
    /// true (default): return at once. false: watch the child for `timeout_seconds`.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(extend("default" = true)))]
    pub async_mode: Option<bool>,
    /// Watch window in seconds for `async_mode=false` (1–86400, default 300). Not an execution limit.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(extend("default" = 300), range(min = 1, max = 86400)))]
    pub timeout_seconds: Option<i64>,
    /// `notify` (default): the child reports with mailbox_action (a blueprint child at @END). `return`: full results to the waiting parent. `none`: no automatic notification.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(extend("default" = "notify")))]
    pub on_completion: Option<OnCompletion>,
    /// Ask clients to open the new thread.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(extend("default" = false)))]
    pub auto_redirect: Option<bool>,
    /// Tools the child may use. Empty or absent: all of the target's tools. Narrows only; a notify child keeps mailbox_action.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(inner(length(min = 1), pattern(NON_BLANK))))]
    pub allowed_tools: Option<Vec<String>>,
    /// Include the parent thread's context in the child.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(extend("default" = false)))]
    pub include_parent_context: Option<bool>,
    /// Deprecated; accepted and ignored.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(extend("default" = true)))]
    pub stop_on_timeout: Option<bool>,
    /// Webhook for a synchronous handoff's result. Only with async_mode=false.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(length(min = 1), pattern(NON_BLANK)))]
    pub callback_url: Option<String>,
}

/// Parameters of `handoff_status` and `handoff_results`.
#[derive(Debug, Default, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct HandoffIdArgs {
    /// The `handoff_id` returned by `handoff`.
    pub handoff_id: crate::ground::ids::HandoffId,
}

/// Parameters of `handoff_send`.
#[derive(Debug, Default, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct HandoffSendArgs {
    /// The `handoff_id` returned by `handoff`.
    pub handoff_id: crate::ground::ids::HandoffId,
    /// Follow-up guidance for the child. Non-empty.
    #[cfg_attr(feature = "schema", schemars(length(min = 1), pattern(NON_BLANK)))]
    pub message: String,
}

/// Parameters of `handoff_cancel`.
#[derive(Debug, Default, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct HandoffCancelArgs {
    /// The `handoff_id` returned by `handoff`.
    pub handoff_id: crate::ground::ids::HandoffId,
    /// Why tracking stops; kept on the record.
    #[serde(default)]
    pub reason: Option<String>,
}

/// Parameters of `handoff_list`.
#[derive(Debug, Default, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct HandoffListArgs {
    /// Most records to return, oldest first (default 50); 0 or less returns none.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(extend("default" = 50)))]
    pub limit: Option<i64>,
}

/// Parameters of `get_handoff_inputs`.
#[derive(Debug, Default, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct GetHandoffInputsArgs {
    /// Blueprint whose declared inputs to fetch. Default: this thread's blueprint.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(length(min = 1), pattern(NON_BLANK)))]
    pub blueprint_name: Option<String>,
    /// Only these input names. Default: every declared input.
    #[serde(default)]
    pub specific_inputs: Option<Vec<String>>,
}

/// Parameters of `store_blueprint_outputs`.
#[derive(Debug, Default, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct StoreBlueprintOutputsArgs {
    /// Output names and values for downstream blueprints (at least one).
    #[cfg_attr(feature = "schema", schemars(extend("minProperties" = 1)))]
    pub outputs: Map<String, Value>,
    /// Source blueprint, for provenance.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(length(min = 1), pattern(NON_BLANK)))]
    pub blueprint_name: Option<String>,
}

/// `mailbox_action` actions.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum MailAction {
    /// Send one message to another thread's mailbox.
    #[serde(rename = "SEND_MESSAGE")]
    SendMessage,
    /// Return and consume mail waiting for this thread.
    #[serde(rename = "READ_MAIL")]
    ReadMail,
}

/// Parameters of `mailbox_action`.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schema", schemars(extend("allOf" = [
    {"if": {"properties": {"action": {"const": "SEND_MESSAGE"}}},
     "then": {"required": ["to_thread_id", "to_bot_id", "body"],
              "properties": {"to_thread_id": {"type": "string"}, "to_bot_id": {"type": "string"}, "body": {"type": "string"}}}},
    {"if": {"properties": {"action": {"const": "READ_MAIL"}}},
     "then": {"properties": {"to_thread_id": {"type": "null"}, "to_bot_id": {"type": "null"},
                             "body": {"type": "null"}, "subject": {"type": "null"}}}}
])))]
pub struct MailboxActionArgs {
    /// `SEND_MESSAGE` or `READ_MAIL`.
    pub action: MailAction,
    /// Recipient thread (SEND_MESSAGE). For a spawned thread, the `thread_id` from `handoff`.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(length(min = 1), pattern(NON_BLANK)))]
    pub to_thread_id: Option<crate::ground::ids::ThreadId>,
    /// Bot that owns the recipient thread (SEND_MESSAGE).
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(length(min = 1), pattern(NON_BLANK)))]
    pub to_bot_id: Option<String>,
    /// Message content, 1–16000 characters (SEND_MESSAGE). Self-contained: findings and their basis.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(length(min = 1, max = crate::handoff::mailbox::MAX_BODY_CHARS), pattern(NON_BLANK)))]
    pub body: Option<String>,
    /// One-line label shown above the body.
    #[serde(default)]
    pub subject: Option<String>,
}

/// A tool call as reported.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ToolCallOut {
    /// Tool.
    pub name: String,
    /// When (ISO 8601).
    pub timestamp: String,
}

/// The progress fields of rule S9, where a result carries them.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Progress {
    /// Last child tool call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_tool_call: Option<Option<ToolCallOut>>,
    /// Child tool calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_count: Option<u64>,
    /// Last child activity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_activity_at: Option<Option<String>>,
    /// Seconds since that activity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle_seconds: Option<Option<u64>>,
}

/// `handoff`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct HandoffResult {
    /// false when the child could not be created (G17, G18).
    pub success: bool,
    /// The handoff (also for a refused one).
    pub handoff_id: crate::ground::ids::HandoffId,
    /// `started` or `materialize_failed`.
    pub status: String,
    /// Child thread.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread_id: Option<crate::ground::ids::ThreadId>,
    /// `[Title](thread-handoff://…)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread_link: Option<String>,
    /// Resolved target bot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_bot: Option<String>,
    /// Synchronous watch end (ISO 8601).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watch_until: Option<String>,
    /// Child mission (blueprint handoffs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mission_id: Option<crate::ground::ids::MissionId>,
    /// Why it was refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// `handoff_status`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct HandoffStatusResult {
    /// Always true.
    pub success: bool,
    /// Handoff.
    pub handoff_id: crate::ground::ids::HandoffId,
    /// Live state (non-terminal) or terminal status.
    pub status: String,
    /// The stored status.
    pub stored_status: String,
    /// Recomputed live state (non-terminal, or `child_missing` when just retired).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub live_state: Option<String>,
    /// Guidance for running/stalled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// Seconds since creation.
    pub elapsed_time: u64,
    /// Reminders sent.
    pub nudges_sent: u32,
    /// Child thread.
    pub child_thread_id: Option<crate::ground::ids::ThreadId>,
    /// Progress (non-terminal records).
    #[serde(flatten)]
    pub progress: Progress,
    /// Open watch end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watch_until: Option<String>,
    /// A callback is out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub callback_pending: Option<bool>,
    /// The result, once known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Option<String>>,
    /// Error details.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// `finished_<s>_ago`, `parent_idle_<s>s` or `submit_failed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_notified_reason: Option<String>,
}

/// `handoff_send`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct HandoffSendResult {
    /// false when refused (H2).
    pub success: bool,
    /// Handoff.
    pub handoff_id: crate::ground::ids::HandoffId,
    /// `queued` or `refused`.
    pub status: String,
    /// The child was mid-turn.
    pub queued_to_live_child: bool,
    /// Why it was refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The child's live state or terminal status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub child_state: Option<String>,
    /// Progress (idle child).
    #[serde(flatten)]
    pub progress: Progress,
}

/// `handoff_results`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct HandoffResultsResult {
    /// Always true.
    pub success: bool,
    /// Handoff.
    pub handoff_id: crate::ground::ids::HandoffId,
    /// Stored status.
    pub status: String,
    /// false: the stored result; true: what there is so far.
    pub partial: bool,
    /// The result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Option<String>>,
    /// The child's latest answer (partial), null when it had only announcements.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latest_response: Option<Option<String>>,
    /// Stored blueprint outputs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blueprint_outputs: Option<Option<Map<String, Value>>>,
    /// When it finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<String>,
    /// Cancellation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancelled_at: Option<String>,
    /// Cancellation reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancel_reason: Option<Option<String>>,
    /// Error details.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Progress.
    #[serde(flatten)]
    pub progress: Progress,
}

/// `handoff_cancel`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct HandoffCancelResult {
    /// Always true.
    pub success: bool,
    /// Handoff.
    pub handoff_id: crate::ground::ids::HandoffId,
    /// `cancelled`.
    pub status: String,
    /// When.
    pub cancelled_at: String,
    /// Always false: the child is not signalled.
    pub child_signalled: bool,
    /// What cancelling means.
    pub note: String,
}

/// One open delegation.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ListRecord {
    /// Handoff.
    pub handoff_id: crate::ground::ids::HandoffId,
    /// Stored status.
    pub status: String,
    /// Recomputed live state.
    pub live_state: String,
    /// Age in days.
    pub age_days: f64,
    /// Child thread.
    pub child_thread_id: Option<crate::ground::ids::ThreadId>,
    /// Child bot.
    pub child_bot_id: String,
    /// Parent thread.
    pub parent_thread_id: crate::ground::ids::ThreadId,
    /// Blueprint.
    pub blueprint_name: Option<String>,
    /// Reminders sent.
    pub nudges_sent: u32,
}

/// `handoff_list`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct HandoffListResult {
    /// Always true.
    pub success: bool,
    /// How many.
    pub count: usize,
    /// Oldest first.
    pub handoffs: Vec<ListRecord>,
}

/// `get_handoff_inputs`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct GetHandoffInputsResult {
    /// Always true.
    pub success: bool,
    /// Found values.
    pub inputs: Map<String, Value>,
    /// Parent thread.
    pub from_parent_thread: String,
    /// Names not found.
    pub missing_inputs: Vec<String>,
    /// Next step.
    pub hint: String,
    /// Stored as durable blueprint_inputs (agent context only).
    pub persisted: bool,
}

/// `store_blueprint_outputs`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct StoreBlueprintOutputsResult {
    /// Always true.
    pub success: bool,
    /// Every output now stored on the thread.
    pub stored_outputs: Map<String, Value>,
    /// Source blueprint.
    pub blueprint_name: Option<String>,
    /// What was stored.
    pub message: String,
    /// Chain or not.
    pub hint: String,
}

/// What a report did to its handoff (M2, S5).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ReportOut {
    /// Handoff.
    pub handoff_id: crate::ground::ids::HandoffId,
    /// Its status now.
    pub handoff_status: String,
    /// Held until the follow-up is answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held: Option<bool>,
    /// Why it was held.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

/// `mailbox_action` (SEND_MESSAGE or READ_MAIL).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct MailboxActionResult {
    /// Always true.
    pub success: bool,
    /// SEND_MESSAGE: the message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<crate::ground::ids::MessageId>,
    /// SEND_MESSAGE: recipient thread.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to_thread_id: Option<crate::ground::ids::ThreadId>,
    /// SEND_MESSAGE: `notice_queued` or `normal_delivery`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delivery: Option<String>,
    /// SEND_MESSAGE: which path was taken.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// SEND_MESSAGE: the report's effect on its handoff.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report: Option<ReportOut>,
    /// READ_MAIL: how many.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<usize>,
    /// READ_MAIL: the mail taken.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messages: Option<Vec<MailItem>>,
}
