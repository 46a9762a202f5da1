//! The handoff record: what was asked (every `handoff` parameter with its default) and what happened.
pub(crate) mod agent;
pub(crate) mod blueprint;
pub(crate) mod blueprint_tools;
pub(crate) mod calls;
pub(crate) mod ctx;
pub(crate) mod dispatch;
pub(crate) mod effect;
pub(crate) mod flow;
pub(crate) mod host;
pub(crate) mod lifecycle;
pub(crate) mod live;
pub(crate) mod mailbox;
pub(crate) mod mailbox_tools;
pub(crate) mod question;
pub(crate) mod run;
pub(crate) mod store;
pub(crate) mod sweep;
pub(crate) mod thread;
pub(crate) mod timers;
pub(crate) mod tools;
pub(crate) mod usage;
pub(crate) mod wire;
use crate::ground::time::Timestamp;
use crate::handoff::thread::{BlueprintMode, Visibility};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Thread execution mode (rule G3).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ThreadMode {
    /// A new thread runs the work (default).
    #[default]
    Spawn,
    /// The child thread is recorded, but the host runs it inside the caller's turn.
    Inline,
}

/// What happens when the child finishes (rule G10).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum OnCompletion {
    /// The child reports with `mailbox_action`; a blueprint child notifies at `@END` (default).
    #[default]
    Notify,
    /// Full results to the waiting parent.
    Return,
    /// No automatic notification.
    None,
}

/// `timeout_seconds` when the caller gives none (G9).
pub(crate) const DEFAULT_TIMEOUT_SECONDS: u64 = 300;

fn default_timeout() -> u64 {
    DEFAULT_TIMEOUT_SECONDS
}

/// Left out of the stored form at [`DEFAULT_TIMEOUT_SECONDS`].
fn at_default_timeout(seconds: &u64) -> bool {
    crate::ground::stored::storing() && *seconds == DEFAULT_TIMEOUT_SECONDS
}

/// The `handoff` parameters with every default applied (rules G1–G14).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HandoffSpec {
    /// Work description (G1).
    pub task: String,
    /// As sent (G2); the resolved bot is [`Handoff::child_bot_id`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_bot: Option<crate::ground::ids::BotId>,
    /// G3.
    #[serde(default, skip_serializing_if = "crate::ground::stored::at_default")]
    pub thread_mode: ThreadMode,
    /// G4.
    #[serde(default, skip_serializing_if = "crate::ground::stored::at_default")]
    pub visibility: Visibility,
    /// G5, default applied.
    #[serde(default = "crate::ground::stored::yes", skip_serializing_if = "crate::ground::stored::at_true")]
    pub show_in_thread_list: bool,
    /// G6.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thread_title: Option<String>,
    /// G6.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_data: Option<Map<String, Value>>,
    /// G7.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blueprint_name: Option<String>,
    /// G7.
    #[serde(default, skip_serializing_if = "crate::ground::stored::at_default")]
    pub blueprint_mode: BlueprintMode,
    /// G8.
    #[serde(default = "crate::ground::stored::yes", skip_serializing_if = "crate::ground::stored::at_true")]
    pub async_mode: bool,
    /// G9.
    #[serde(default = "default_timeout", skip_serializing_if = "at_default_timeout")]
    pub timeout_seconds: u64,
    /// G10.
    #[serde(default, skip_serializing_if = "crate::ground::stored::at_default")]
    pub on_completion: OnCompletion,
    /// G11.
    #[serde(default, skip_serializing_if = "crate::ground::stored::at_default")]
    pub auto_redirect: bool,
    /// G13.
    #[serde(default, skip_serializing_if = "crate::ground::stored::at_default")]
    pub allowed_tools: Vec<String>,
    /// G11.
    #[serde(default, skip_serializing_if = "crate::ground::stored::at_default")]
    pub include_parent_context: bool,
    /// G12: recorded, never acted on.
    #[serde(default = "crate::ground::stored::yes", skip_serializing_if = "crate::ground::stored::at_true")]
    pub stop_on_timeout: bool,
    /// G14.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub callback_url: Option<String>,
}

impl crate::ground::stored::Omitted for HandoffSpec {
    const OMITTED: &'static [&'static str] = &[
        "thread_mode",
        "visibility",
        "show_in_thread_list",
        "blueprint_mode",
        "async_mode",
        "timeout_seconds",
        "on_completion",
        "auto_redirect",
        "allowed_tools",
        "include_parent_context",
        "stop_on_timeout",
    ];
}

impl HandoffSpec {
    /// A plain delegation: no blueprint.
    pub fn is_plain(&self) -> bool {
        self.blueprint_name.is_none()
    }
}

/// Stored status of a handoff (rule S10). Terminal ones never change again.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Created; no child activity yet.
    Started,
    /// The child has shown activity.
    Running,
    /// Blueprint child's first stable response during a watch (B5).
    FirstResponse,
    /// The watch window closed while the child runs (G9) — not a failure (S4).
    WatchExpired,
    /// Legacy name of `watch_expired` (S4); read from old logs, never written.
    Timeout,
    /// Finished with a result.
    Completed,
    /// The child failed.
    Error,
    /// Tracking stopped by `handoff_cancel` (C1).
    Cancelled,
    /// The child thread could not be created (G17, G18).
    MaterializeFailed,
    /// The child finished but no parent waiter remained.
    ExpiredUnnotified,
    /// Child gone, or quiet seven days (S6, S8).
    Abandoned,
    /// Callback submission failed five times (G14).
    Undeliverable,
}

impl Status {
    /// Terminal statuses never move again.
    pub fn is_terminal(self) -> bool {
        !matches!(
            self,
            Status::Started | Status::Running | Status::FirstResponse | Status::WatchExpired | Status::Timeout
        )
    }

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Started => "started",
            Status::Running => "running",
            Status::FirstResponse => "first_response",
            Status::WatchExpired => "watch_expired",
            Status::Timeout => "timeout",
            Status::Completed => "completed",
            Status::Error => "error",
            Status::Cancelled => "cancelled",
            Status::MaterializeFailed => "materialize_failed",
            Status::ExpiredUnnotified => "expired_unnotified",
            Status::Abandoned => "abandoned",
            Status::Undeliverable => "undeliverable",
        }
    }

    /// Every status.
    pub const ALL: [Status; 12] = [
        Status::Started,
        Status::Running,
        Status::FirstResponse,
        Status::WatchExpired,
        Status::Timeout,
        Status::Completed,
        Status::Error,
        Status::Cancelled,
        Status::MaterializeFailed,
        Status::ExpiredUnnotified,
        Status::Abandoned,
        Status::Undeliverable,
    ];
}

/// A child report that arrived while a follow-up was still unanswered (rule S5).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HeldReport {
    /// The report's mailbox message.
    pub message_id: crate::ground::ids::MessageId,
    /// Its body, which becomes the result.
    pub body: String,
}

/// One delegation from a parent thread to a child thread.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Handoff {
    /// Id.
    pub handoff_id: crate::ground::ids::HandoffId,
    /// Creation order (oldest first in `handoff_list`).
    pub seq: u64,
    /// Created at.
    pub created_at: Timestamp,
    /// Parent thread.
    pub parent_thread_id: crate::ground::ids::ThreadId,
    /// Parent thread's bot: the one who may manage this handoff.
    pub parent_bot_id: crate::ground::ids::BotId,
    /// Child thread; `None` when materialization failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub child_thread_id: Option<crate::ground::ids::ThreadId>,
    /// Resolved target bot.
    pub child_bot_id: crate::ground::ids::BotId,
    /// The call's parameters, defaults applied.
    pub spec: HandoffSpec,
    /// Stored status.
    pub status: Status,
    /// When the status last changed.
    pub status_at: Timestamp,
    /// A synchronous watch is open until then (G9).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub watch_until: Option<Timestamp>,
    /// Final result text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    /// Blueprint outputs delivered at `@END`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outputs: Option<Map<String, Value>>,
    /// Error details (status `error`, `materialize_failed`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// When the child finished (result known).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<Timestamp>,
    /// Cancellation time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cancelled_at: Option<Timestamp>,
    /// Cancellation reason, as given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cancel_reason: Option<String>,
    /// Reminders sent (S7).
    #[serde(default, skip_serializing_if = "crate::ground::stored::at_default")]
    pub nudges_sent: u32,
    /// Last reminder.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_nudge_at: Option<Timestamp>,
    /// Failed callback submissions (G14).
    #[serde(default, skip_serializing_if = "crate::ground::stored::at_default")]
    pub callback_failures: u32,
    /// A callback is out and its outcome not yet reported.
    #[serde(default, skip_serializing_if = "crate::ground::stored::at_default")]
    pub callback_pending: bool,
    /// A follow-up is queued and not yet answered by a finished turn (S5).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub followup_pending_since: Option<Timestamp>,
    /// A report held back by S5.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub held_report: Option<HeldReport>,
    /// The completion notice message sent to the parent's mailbox, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notice_message_id: Option<crate::ground::ids::MessageId>,
    /// Mission created for a blueprint handoff (B3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mission_id: Option<crate::ground::ids::MissionId>,
    /// A callback the host attached later (`set_callback`, G14), used when the call gave no
    /// `callback_url`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub callback: Option<HostCallback>,
    /// The follow-ups the parent sent (`handoff_send`, H1), in order: kept so the handoff's
    /// conversation can be shown whole (A2A's task history).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub follow_ups: Vec<FollowUp>,
}

impl crate::ground::stored::Omitted for Handoff {
    const OMITTED: &'static [&'static str] = &["nudges_sent", "callback_failures", "callback_pending"];
}

/// A follow-up the parent sent into a handoff (`handoff_send`), as sent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct FollowUp {
    /// The message, whole.
    pub message: String,
    /// When it was sent.
    pub at: Timestamp,
}

/// A callback a host attached to a live, watched handoff with `set_callback` (G14): where to
/// post, extra request headers (credentials the receiver checks), and a tag the host keeps for
/// its own bookkeeping (the A2A binding keeps its push-config id there). Posted like a
/// `callback_url`: when the watch returns, up to five attempts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct HostCallback {
    /// Where to post (`http://` or `https://`).
    pub url: String,
    /// Extra request headers.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub headers: std::collections::BTreeMap<String, String>,
    /// The host's own label for this callback.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
}

impl Handoff {
    /// Where this handoff's callbacks go: the call's `callback_url`, else the host's.
    pub fn callback_url(&self) -> Option<&str> {
        self.spec.callback_url.as_deref().or(self.callback.as_ref().map(|c| c.url.as_str()))
    }
}

crate::ground::delta::delta! {
    /// A handoff's delta (log format v2): its parameters (`spec`) and parties are logged once,
    /// at creation; progress logs only the fields that moved.
    HandoffDelta for Handoff {
        key: [handoff_id],
        seq: u64,
        created_at: Timestamp,
        parent_thread_id: crate::ground::ids::ThreadId,
        parent_bot_id: crate::ground::ids::BotId,
        child_thread_id: Option<crate::ground::ids::ThreadId>,
        child_bot_id: crate::ground::ids::BotId,
        spec: HandoffSpec,
        status: Status,
        status_at: Timestamp,
        watch_until: Option<Timestamp>,
        result: Option<String>,
        outputs: Option<Map<String, Value>>,
        error: Option<String>,
        finished_at: Option<Timestamp>,
        cancelled_at: Option<Timestamp>,
        cancel_reason: Option<String>,
        nudges_sent: u32,
        last_nudge_at: Option<Timestamp>,
        callback_failures: u32,
        callback_pending: bool,
        followup_pending_since: Option<Timestamp>,
        held_report: Option<HeldReport>,
        notice_message_id: Option<crate::ground::ids::MessageId>,
        mission_id: Option<crate::ground::ids::MissionId>,
        callback: Option<HostCallback>,
        follow_ups: Vec<FollowUp>,
    }
}

// The sealing dictionary (ground::records): one sample handoff in its JSON form (a completed
// handoff), as sealed: without its own id.
impl crate::ground::records::Sealable for Handoff {
    const DICTIONARY: &'static [u8] = br#"{"handoff_id":"","seq":1,"created_at":1767600000000,"parent_thread_id":"chat_","parent_bot_id":"","child_thread_id":"chat_0000000000000000","child_bot_id":"","spec":{"task":"","target_bot":""},"status":"completed","status_at":1767600000000,"result":"","finished_at":1767600000000,"notice_message_id":"msg_0000000000000000"}"#;
    const ID_FIELD: Option<&'static str> = Some("handoff_id");

    /// Closed, with nothing left to deliver: no callback out, no report held, no follow-up
    /// waiting.
    fn at_rest(&self) -> bool {
        self.status.is_terminal()
            && !self.callback_pending
            && self.held_report.is_none()
            && self.followup_pending_since.is_none()
    }
}

#[cfg(test)]
mod stored_form_tests {
    use super::mailbox::Message;
    use super::thread::{Activity, Thread};
    use super::{Handoff, HandoffSpec};
    use crate::ground::stored::{form, Omitted};
    use serde::{de::DeserializeOwned, Serialize};
    use serde_json::Value;
    use std::collections::BTreeSet;

    /// The record `json` names (every field it leaves out at its default): the stored form
    /// leaves out exactly the fields its type lists, every other JSON keeps them, and the
    /// stored form reads back as the same record.
    fn leaves_out_what_it_lists<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug + Omitted>(json: &str) {
        let record: T = serde_json::from_str(json).unwrap();
        let keys = |v: Value| v.as_object().unwrap().keys().cloned().collect::<BTreeSet<_>>();
        let whole = keys(serde_json::to_value(&record).unwrap());
        let text = form(|| serde_json::to_string(&record).unwrap());
        let stored = keys(serde_json::from_str(&text).unwrap());
        let left_out: BTreeSet<String> = whole.difference(&stored).cloned().collect();
        let listed: BTreeSet<String> = T::OMITTED.iter().map(|f| f.to_string()).collect();
        assert_eq!(left_out, listed, "{}", std::any::type_name::<T>());
        assert_eq!(serde_json::from_str::<T>(&text).unwrap(), record, "read back");
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn the_stored_form_leaves_out_the_fields_each_record_lists_and_reads_back_the_same() {
        leaves_out_what_it_lists::<Thread>(r#"{"thread_id":"chat_1","bot_id":"adam","seq":1,"created_at":0}"#);
        leaves_out_what_it_lists::<Activity>("{}");
        leaves_out_what_it_lists::<HandoffSpec>(r#"{"task":"Review"}"#);
        leaves_out_what_it_lists::<Handoff>(
            r#"{"handoff_id":"handoff_1","seq":1,"created_at":0,"parent_thread_id":"chat_main","parent_bot_id":"lead",
                "child_bot_id":"adam","spec":{"task":"Review"},"status":"started","status_at":0}"#,
        );
        leaves_out_what_it_lists::<Message>(
            r#"{"message_id":"msg_1","seq":1,"from_thread_id":"chat_1","from_bot_id":"adam","to_thread_id":"chat_main",
                "to_bot_id":"lead","body":"Done","sent_at":0,"state":"queued"}"#,
        );
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn a_field_away_from_its_default_is_stored() {
        let spec: HandoffSpec = serde_json::from_str(
            r#"{"task":"Review","timeout_seconds":60,"async_mode":false,"allowed_tools":["web_search"]}"#,
        )
        .unwrap();
        let text = form(|| serde_json::to_string(&spec).unwrap());
        for kept in [r#""timeout_seconds":60"#, r#""async_mode":false"#, r#""allowed_tools":["web_search"]"#] {
            assert!(text.contains(kept), "{kept} in {text}");
        }
        assert!(!text.contains("stop_on_timeout"), "at its default: {text}");
    }
}
