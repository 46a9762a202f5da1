//! The result of every tool, as types: handlers return them (the typed API hands them out as
//! they are; the JSON entry points serialize them once), and their schemas feed
//! `baton typescript` and the docs. The conformance suite checks every result it sees against
//! its tool's schema.

use crate::coord::todo::Step;
pub use crate::handoff::mailbox::MailItem;
use crate::relay::{Artifact, Intent};
use crate::sibling::ReturnField;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};

/// A tool call as reported.
#[derive(Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ToolCallOut {
    /// Tool.
    pub name: String,
    /// When (ISO 8601).
    pub timestamp: String,
}

/// The progress fields of rule S9, where a result carries them.
#[derive(Default, Serialize, JsonSchema)]
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
#[derive(Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HandoffResult {
    /// false when the child could not be created (G17, G18).
    pub success: bool,
    /// The handoff (also for a refused one).
    pub handoff_id: crate::engine::ids::HandoffId,
    /// `started` or `materialize_failed`.
    pub status: String,
    /// Child thread.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread_id: Option<crate::engine::ids::ThreadId>,
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
    pub mission_id: Option<crate::engine::ids::MissionId>,
    /// Why it was refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// `handoff_status`.
#[derive(Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HandoffStatusResult {
    /// Always true.
    pub success: bool,
    /// Handoff.
    pub handoff_id: crate::engine::ids::HandoffId,
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
    pub child_thread_id: Option<crate::engine::ids::ThreadId>,
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
#[derive(Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HandoffSendResult {
    /// false when refused (H2).
    pub success: bool,
    /// Handoff.
    pub handoff_id: crate::engine::ids::HandoffId,
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
#[derive(Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HandoffResultsResult {
    /// Always true.
    pub success: bool,
    /// Handoff.
    pub handoff_id: crate::engine::ids::HandoffId,
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
#[derive(Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HandoffCancelResult {
    /// Always true.
    pub success: bool,
    /// Handoff.
    pub handoff_id: crate::engine::ids::HandoffId,
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
#[derive(Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListRecord {
    /// Handoff.
    pub handoff_id: crate::engine::ids::HandoffId,
    /// Stored status.
    pub status: String,
    /// Recomputed live state.
    pub live_state: String,
    /// Age in days.
    pub age_days: f64,
    /// Child thread.
    pub child_thread_id: Option<crate::engine::ids::ThreadId>,
    /// Child bot.
    pub child_bot_id: String,
    /// Parent thread.
    pub parent_thread_id: crate::engine::ids::ThreadId,
    /// Blueprint.
    pub blueprint_name: Option<String>,
    /// Reminders sent.
    pub nudges_sent: u32,
}

/// `handoff_list`.
#[derive(Serialize, JsonSchema)]
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
#[derive(Serialize, JsonSchema)]
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
#[derive(Serialize, JsonSchema)]
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
#[derive(Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReportOut {
    /// Handoff.
    pub handoff_id: crate::engine::ids::HandoffId,
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
#[derive(Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MailboxActionResult {
    /// Always true.
    pub success: bool,
    /// SEND_MESSAGE: the message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<crate::engine::ids::MessageId>,
    /// SEND_MESSAGE: recipient thread.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to_thread_id: Option<crate::engine::ids::ThreadId>,
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

/// `handoff_to_teammate`.
#[derive(Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HandoffToTeammateResult {
    /// Relay thread.
    pub thread_id: crate::engine::ids::RelayThreadId,
    /// `pending`.
    pub status: String,
    /// Recipient handle.
    pub recipient: String,
    /// When.
    pub created_at: String,
}

/// A sender as a recipient sees it.
#[derive(Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SenderOut {
    /// Handle.
    pub handle: String,
    /// Name.
    pub name: String,
    /// Role.
    pub role: String,
    /// Email, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
}

/// One inbox item (I2).
#[derive(Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InboxItem {
    /// Thread.
    pub thread_id: crate::engine::ids::RelayThreadId,
    /// Sender.
    pub sender: SenderOut,
    /// First 240 characters of the summary, wrapped.
    pub summary_preview: String,
    /// Length of the whole summary.
    pub summary_chars: usize,
    /// Status.
    pub status: String,
    /// Sender messages since the last accept or check.
    pub unread_messages: u64,
    /// Created.
    pub created_at: String,
    /// Last update.
    pub updated_at: String,
}

impl InboxItem {
    /// Whether the item wants its recipient's attention: still pending, or with sender
    /// messages not yet seen. (The console's unread badge counts these.)
    pub fn wants_attention(&self) -> bool {
        self.unread_messages > 0 || self.status == "pending"
    }
}

/// `check_inbox`.
#[derive(Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckInboxResult {
    /// Most recently updated first.
    pub items: Vec<InboxItem>,
    /// Next page, or null on the last.
    pub next_cursor: Option<String>,
}

/// A relay message as the viewer sees it.
#[derive(Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RelayMessageOut {
    /// Id.
    pub id: crate::engine::ids::MessageId,
    /// Order in the thread.
    pub sequence_no: u64,
    /// Author handle.
    pub from: String,
    /// Body (wrapped unless the viewer wrote it).
    pub body: String,
    /// Attachment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload: Option<Map<String, Value>>,
    /// Created.
    pub created_at: String,
}

/// A proposed action as the viewer sees it (rationale wrapped).
#[derive(Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProposedActionOut {
    /// What.
    pub description: String,
    /// Paths.
    pub target_files: Vec<String>,
    /// Why (wrapped unless the viewer wrote it).
    pub rationale: String,
    /// Diff.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggested_diff: Option<String>,
}

/// The trust overlay (I5).
#[derive(Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TrustOverlayOut {
    /// Read-only operations need no approval.
    pub auto_read: bool,
    /// Attached tests may run.
    pub auto_test: bool,
    /// Paths where edits need no approval.
    pub auto_write_paths: Vec<String>,
    /// Tools that always need approval.
    pub require_approval: Vec<String>,
}

/// `accept_handoff` and `view_thread`.
#[derive(Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RelayThreadResult {
    /// Thread.
    pub thread_id: crate::engine::ids::RelayThreadId,
    /// Status.
    pub status: String,
    /// Intent.
    pub intent: Intent,
    /// Sender.
    pub sender: SenderOut,
    /// Recipient handle.
    pub recipient: String,
    /// Summary (wrapped unless the viewer wrote it).
    pub summary: String,
    /// Artifacts, as data.
    pub artifacts: Vec<Artifact>,
    /// Messages in order.
    pub messages: Vec<RelayMessageOut>,
    /// Created.
    pub created_at: String,
    /// Last update.
    pub updated_at: String,
    /// For propose_action.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proposed_action: Option<ProposedActionOut>,
    /// Completion summary (wrapped unless the viewer wrote it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_summary: Option<String>,
    /// Completion artifacts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_artifacts: Option<Vec<Artifact>>,
    /// Accepted (nullable in view_thread).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accepted_at: Option<Option<String>>,
    /// Completed (view_thread).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<Option<String>>,
    /// Cancelled (view_thread).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancelled_at: Option<Option<String>>,
    /// accept_handoff: the session that accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<Option<String>>,
    /// accept_handoff: what the policy pre-authorizes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trust_overlay: Option<TrustOverlayOut>,
    /// accept_handoff: it was accepted before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub already_accepted: Option<bool>,
}

/// `send_message`.
#[derive(Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SendMessageResult {
    /// Thread.
    pub thread_id: crate::engine::ids::RelayThreadId,
    /// Message.
    pub message_id: crate::engine::ids::MessageId,
    /// Order in the thread.
    pub sequence_no: u64,
    /// Created.
    pub created_at: String,
    /// The same idempotency key came again: the stored message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duplicate: Option<bool>,
}

/// `complete_handoff`.
#[derive(Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CompleteHandoffResult {
    /// Thread.
    pub thread_id: crate::engine::ids::RelayThreadId,
    /// `completed`.
    pub status: String,
    /// When.
    pub completed_at: String,
}

/// `cancel_handoff`.
#[derive(Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CancelHandoffResult {
    /// Thread.
    pub thread_id: crate::engine::ids::RelayThreadId,
    /// `cancelled`.
    pub status: String,
    /// When.
    pub cancelled_at: String,
}

/// `handoff_request`.
#[derive(Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HandoffRequestResult {
    /// Always true.
    pub ok: bool,
    /// Session.
    pub session_id: crate::engine::ids::SessionId,
    /// Receiving thread.
    pub thread_id: crate::engine::ids::ThreadId,
    /// Sibling bot.
    pub target_agent: String,
    /// `active`.
    pub status: String,
    /// Declared schema.
    pub expected_return: Vec<ReturnField>,
    /// What happens now.
    pub note: String,
}

/// `handoff_release` (X4).
#[derive(Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HandoffReleaseResult {
    /// Always true.
    pub ok: bool,
    /// Session.
    pub session_id: crate::engine::ids::SessionId,
    /// `released`.
    pub status: String,
    /// Outcome.
    pub outcome: String,
    /// Coerced values, when any were given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub return_values: Option<Map<String, Value>>,
    /// Required fields not filled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub missing_required: Option<Vec<String>>,
    /// Values kept as sent because they could not be coerced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coercion_errors: Option<Map<String, Value>>,
}

/// A named leg session.
#[derive(Serialize, JsonSchema)]
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
#[derive(Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SubagentsResult {
    /// Always true.
    pub ok: bool,
    /// list: the session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<LegSessionOut>,
    /// invoke: the leg.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leg_id: Option<crate::engine::ids::LegId>,
    /// invoke: its session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// invoke: its thread.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread_id: Option<crate::engine::ids::ThreadId>,
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
    pub group_id: Option<crate::engine::ids::GroupId>,
    /// background: what happens next.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A schedule as listed.
#[derive(Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScheduleOut {
    /// Id.
    pub schedule_id: crate::engine::ids::ScheduleId,
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
#[derive(Serialize, JsonSchema)]
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
#[derive(Serialize, JsonSchema)]
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
#[derive(Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AskUserResult {
    /// Always true.
    pub ok: bool,
    /// Question id.
    pub question_id: crate::engine::ids::QuestionId,
    /// `pending` or `asked_inline`.
    pub status: String,
    /// Tool calls kept in the snapshot (pending).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot_calls: Option<usize>,
    /// What happens now.
    pub note: String,
}

/// A handler's answer as JSON: a result type is serialized once; a `Value` is passed on.
pub(crate) trait Answer {
    /// The answer as a JSON value.
    fn into_json(self) -> Value;
    /// The answer as JSON text, serialized straight from the type.
    fn into_text(self) -> String;
}

impl Answer for Value {
    fn into_json(self) -> Value {
        self
    }

    fn into_text(self) -> String {
        self.to_string()
    }
}

/// Result types that handlers return: serialized once into the JSON answer.
macro_rules! answers {
    ($($t:ty),* $(,)?) => {
        $(impl Answer for $t {
            fn into_json(self) -> Value {
                serde_json::to_value(self).unwrap_or(Value::Null)
            }

            fn into_text(self) -> String {
                serde_json::to_string(&self).unwrap_or_else(|_| "null".into())
            }
        })*
    };
}

answers!(
    HandoffResult,
    HandoffStatusResult,
    HandoffSendResult,
    HandoffResultsResult,
    HandoffCancelResult,
    HandoffListResult,
    MailboxActionResult,
    GetHandoffInputsResult,
    StoreBlueprintOutputsResult,
    HandoffRequestResult,
    HandoffReleaseResult,
    SubagentsResult,
    SchedulesResult,
    WriteTodoResult,
    AskUserResult,
    HandoffToTeammateResult,
    CheckInboxResult,
    RelayThreadResult,
    SendMessageResult,
    CompleteHandoffResult,
    CancelHandoffResult,
);
