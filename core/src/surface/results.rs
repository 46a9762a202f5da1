//! The result of every tool, as types (each capability's `wire.rs` declares its own):
//! handlers return them (the typed API hands them out as they are; the JSON entry points
//! serialize them once), and their schemas feed `baton typescript` and the docs. The
//! conformance suite checks every result it sees against its tool's schema.

pub use crate::coord::wire::{
    AskUserResult, LegSessionOut, ScheduleOut, SchedulesResult, SubagentsResult, WriteTodoResult,
};
pub use crate::handoff::mailbox::MailItem;
pub use crate::handoff::wire::{
    GetHandoffInputsResult, HandoffCancelResult, HandoffListResult, HandoffResult, HandoffResultsResult,
    HandoffSendResult, HandoffStatusResult, ListRecord, MailboxActionResult, Progress, ReportOut,
    StoreBlueprintOutputsResult, ToolCallOut,
};
pub use crate::relay::wire::{
    CancelHandoffResult, CheckInboxResult, CompleteHandoffResult, HandoffToTeammateResult, InboxItem,
    ProposedActionOut, RelayMessageOut, RelayThreadResult, SendMessageResult, SenderOut, TrustOverlayOut,
};
pub use crate::sibling::wire::{HandoffReleaseResult, HandoffRequestResult};
use serde_json::Value;

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
