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
