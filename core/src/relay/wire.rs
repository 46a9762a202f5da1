//! The relay tools' wire types: the parameters teammates send and the results they get back
//! (rules I1–I8). Schemas are generated from them.
#[cfg(feature = "schema")]
use crate::ground::limits::NON_BLANK;
use crate::relay::{Artifact, Intent, ProposedAction, RelayStatus};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Parameters of `handoff_to_teammate`.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schema", schemars(extend("allOf" = [
    {"if": {"required": ["intent"], "properties": {"intent": {"const": "propose_action"}}},
     "then": {"required": ["proposed_action"], "properties": {"proposed_action": {"type": "object"}}},
     "else": {"properties": {"proposed_action": {"type": "null"}}}}
])))]
pub struct HandoffToTeammateArgs {
    /// Recipient's handle (`alice@acme`).
    pub to: String,
    /// What you are handing over, self-contained. At least 1 character.
    #[cfg_attr(feature = "schema", schemars(length(min = 1), pattern(NON_BLANK)))]
    pub summary: String,
    /// `inform` (default), `ask_question` or `propose_action`.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(extend("default" = "inform")))]
    pub intent: Option<Intent>,
    /// Required with `propose_action`, refused otherwise.
    #[serde(default)]
    pub proposed_action: Option<ProposedAction>,
    /// Files, diffs, links, test results, snippets.
    #[serde(default)]
    pub artifacts: Option<Vec<Artifact>>,
}

/// Parameters of `check_inbox`.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct CheckInboxArgs {
    /// Statuses to list (default `["pending", "accepted"]`).
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(length(min = 1)))]
    pub status: Option<Vec<RelayStatus>>,
    /// ISO 8601 time: only threads created or updated after it.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(extend("format" = "date-time")))]
    pub since: Option<String>,
    /// Items per page, 1–200 (default 50).
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(extend("default" = 50), range(min = 1, max = 200)))]
    pub limit: Option<i64>,
    /// `next_cursor` of the previous page (it carries that page's filters).
    #[serde(default)]
    pub cursor: Option<String>,
}

/// Parameters of `accept_handoff`.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct AcceptHandoffArgs {
    /// Thread to accept.
    pub thread_id: crate::ground::ids::RelayThreadId,
    /// Your session id, stored for audit; generated when omitted.
    #[serde(default)]
    pub session_id: Option<String>,
}

/// Parameters of `view_thread`.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ViewThreadArgs {
    /// Thread to read.
    pub thread_id: crate::ground::ids::RelayThreadId,
}

/// Parameters of `send_message`.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SendMessageArgs {
    /// Thread to post to (pending or accepted).
    pub thread_id: crate::ground::ids::RelayThreadId,
    /// Message text, at least 1 character.
    #[cfg_attr(feature = "schema", schemars(length(min = 1)))]
    pub body: String,
    /// Optional structured attachment.
    #[serde(default)]
    pub payload: Option<Map<String, Value>>,
    /// Send the same key again and the same message is returned, stored once. Default: a new key per call.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(length(min = 1), pattern(NON_BLANK)))]
    pub idempotency_key: Option<String>,
}

/// Parameters of `complete_handoff`.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct CompleteHandoffArgs {
    /// Thread to complete (must be accepted).
    pub thread_id: crate::ground::ids::RelayThreadId,
    /// What was done, at least 1 character.
    #[cfg_attr(feature = "schema", schemars(length(min = 1), pattern(NON_BLANK)))]
    pub result_summary: String,
    /// Output artifacts.
    #[serde(default)]
    pub artifacts: Option<Vec<Artifact>>,
}

/// Parameters of `cancel_handoff`.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct CancelHandoffArgs {
    /// Thread to cancel (yours, not terminal).
    pub thread_id: crate::ground::ids::RelayThreadId,
    /// Why; shown to the recipient.
    #[serde(default)]
    pub reason: Option<String>,
}

/// `handoff_to_teammate`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct HandoffToTeammateResult {
    /// Relay thread.
    pub thread_id: crate::ground::ids::RelayThreadId,
    /// `pending`.
    pub status: String,
    /// Recipient handle.
    pub recipient: String,
    /// When.
    pub created_at: String,
}

/// A sender as a recipient sees it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct InboxItem {
    /// Thread.
    pub thread_id: crate::ground::ids::RelayThreadId,
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
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct CheckInboxResult {
    /// Most recently updated first.
    pub items: Vec<InboxItem>,
    /// Next page, or null on the last.
    pub next_cursor: Option<String>,
}

/// A relay message as the viewer sees it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RelayMessageOut {
    /// Id.
    pub id: crate::ground::ids::MessageId,
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
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RelayThreadResult {
    /// Thread.
    pub thread_id: crate::ground::ids::RelayThreadId,
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
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SendMessageResult {
    /// Thread.
    pub thread_id: crate::ground::ids::RelayThreadId,
    /// Message.
    pub message_id: crate::ground::ids::MessageId,
    /// Order in the thread.
    pub sequence_no: u64,
    /// Created.
    pub created_at: String,
    /// The same idempotency key came again: the stored message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duplicate: Option<bool>,
}

/// `complete_handoff`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct CompleteHandoffResult {
    /// Thread.
    pub thread_id: crate::ground::ids::RelayThreadId,
    /// `completed`.
    pub status: String,
    /// When.
    pub completed_at: String,
}

/// `cancel_handoff`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct CancelHandoffResult {
    /// Thread.
    pub thread_id: crate::ground::ids::RelayThreadId,
    /// `cancelled`.
    pub status: String,
    /// When.
    pub cancelled_at: String,
}
