//! Relay threads (the receive side, rules I1–I8): teammates hand work to each other; a
//! recipient works through an inbox of threads.
pub(crate) mod fold_table;
pub(crate) mod host;
pub(crate) mod lifecycle;
pub mod provenance;
pub(crate) mod store;
pub(crate) mod tools;
pub(crate) mod trust;
pub(crate) mod wire;
use crate::ground::time::Timestamp;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A person or agent on the relay, known by handle.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Teammate {
    /// Handle, `name@org` (`bob@acme`).
    #[cfg_attr(feature = "schema", schemars(pattern(r"^[^@\s]+@[^@\s]+$")))]
    pub handle: String,
    /// Display name.
    #[cfg_attr(feature = "schema", schemars(length(min = 1), pattern(crate::ground::limits::NON_BLANK)))]
    pub name: String,
    /// Role (`backend`).
    #[cfg_attr(feature = "schema", schemars(length(min = 1), pattern(crate::ground::limits::NON_BLANK)))]
    pub role: String,
    /// Email, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    /// The bot that acts as this teammate, if any (a call with that bot acts as this handle).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bot_id: Option<String>,
}

/// What the sender wants (rule I5).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Intent {
    /// For the recipient's information.
    Inform,
    /// The sender asks a question; reply with `send_message`.
    AskQuestion,
    /// The sender proposes a change (`proposed_action`).
    ProposeAction,
}

/// A proposed change (rule I5).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ProposedAction {
    /// What the action is, in one sentence.
    #[cfg_attr(feature = "schema", schemars(length(min = 1), pattern(crate::ground::limits::NON_BLANK)))]
    pub description: String,
    /// Paths it will touch.
    pub target_files: Vec<String>,
    /// Why it is needed (sender-authored: reaches the recipient wrapped).
    #[cfg_attr(feature = "schema", schemars(length(min = 1), pattern(crate::ground::limits::NON_BLANK)))]
    pub rationale: String,
    /// A unified diff, if the sender has one (returned as data, byte for byte).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggested_diff: Option<String>,
}

/// Kinds of artifact.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ArtifactType {
    /// A file (path, optional content).
    File,
    /// A unified diff.
    Diff,
    /// A link.
    Link,
    /// Test output.
    TestResult,
    /// A short note or snippet.
    Snippet,
}

/// Structured material attached to a handoff or a completion.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Artifact {
    /// Kind.
    #[serde(rename = "type")]
    pub kind: ArtifactType,
    /// Title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Path, for files and diffs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// URL, for links.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Content (a diff, test output, a snippet), kept byte for byte.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
}

/// Status of a relay thread (rule I8 and the relay lifecycle).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum RelayStatus {
    /// Sent, not yet accepted.
    Pending,
    /// The recipient accepted it.
    Accepted,
    /// The recipient completed it (terminal).
    Completed,
    /// The sender cancelled it (terminal).
    Cancelled,
}

impl RelayStatus {
    /// Terminal statuses never move again.
    pub fn is_terminal(self) -> bool {
        matches!(self, RelayStatus::Completed | RelayStatus::Cancelled)
    }

    /// Wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            RelayStatus::Pending => "pending",
            RelayStatus::Accepted => "accepted",
            RelayStatus::Completed => "completed",
            RelayStatus::Cancelled => "cancelled",
        }
    }

    /// Every status.
    pub const ALL: [RelayStatus; 4] =
        [RelayStatus::Pending, RelayStatus::Accepted, RelayStatus::Completed, RelayStatus::Cancelled];
}

/// One handoff conversation between a sender and a recipient.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RelayThread {
    /// Id.
    pub thread_id: crate::ground::ids::RelayThreadId,
    /// Sender handle.
    pub sender: String,
    /// Recipient handle.
    pub recipient: String,
    /// Summary (sender-authored).
    pub summary: String,
    /// Intent.
    pub intent: Intent,
    /// For `propose_action`.
    pub proposed_action: Option<ProposedAction>,
    /// Attached artifacts.
    pub artifacts: Vec<Artifact>,
    /// Status.
    pub status: RelayStatus,
    /// Created.
    pub created_at: Timestamp,
    /// Last state change or message.
    pub updated_at: Timestamp,
    /// Global order of the last update (the inbox's sort key, with the id).
    pub update_seq: u64,
    /// Accepted.
    pub accepted_at: Option<Timestamp>,
    /// Completed.
    pub completed_at: Option<Timestamp>,
    /// Cancelled.
    pub cancelled_at: Option<Timestamp>,
    /// Session that accepted it (given or generated, I5).
    pub accepted_by_session: Option<String>,
    /// Completion summary.
    pub result_summary: Option<String>,
    /// Completion artifacts.
    pub result_artifacts: Vec<Artifact>,
    /// Why the sender cancelled.
    pub cancel_reason: Option<String>,
    /// Last `sequence_no` given in this thread.
    pub last_sequence_no: u64,
    /// Messages the sender has posted.
    pub sender_messages: u64,
    /// `sender_messages` when the recipient last accepted or checked the inbox (I2).
    pub recipient_seen: u64,
}

/// One message in a relay thread.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RelayMessage {
    /// Id.
    pub message_id: crate::ground::ids::MessageId,
    /// Thread.
    pub thread_id: crate::ground::ids::RelayThreadId,
    /// Monotonic per thread, from 1 (I7).
    pub sequence_no: u64,
    /// Author handle.
    pub from: String,
    /// Body, kept whole.
    pub body: String,
    /// Optional structured attachment.
    pub payload: Option<Map<String, Value>>,
    /// Created.
    pub created_at: Timestamp,
    /// The idempotency key it was sent with.
    pub idempotency_key: Option<String>,
}

/// One position of a relay thread in its recipient's inbox.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct InboxEntry {
    /// The thread.
    pub thread_id: crate::ground::ids::RelayThreadId,
    /// Its status at that position.
    pub status: RelayStatus,
    /// Its `updated_at` at that position.
    pub updated_at: Timestamp,
}
