//! The typed Rust API beside the JSON one: one method per tool, typed arguments in, the
//! tool's result out, no JSON on the way. It runs the same caller checks (X1, X5, G13) and the
//! same handler as [`Engine::call`], so both answer alike (tested by `tests/typed_api.rs`).
use crate::engine::error::CallError;
use crate::engine::storage::Storage;
use crate::engine::time::Timestamp;
use crate::engine::{Caller, Engine};
use crate::surface::caller::{relay_caller, thread_caller};
use crate::surface::results::*;
use crate::surface::*;

/// The typed methods as previews ([`Engine::previews`]): each answers what its tool would
/// answer against the current state and commits nothing — a view's read, typed (the JSON
/// form is [`Engine::preview`]).
pub struct Previews<'e, S: Storage>(&'e Engine<S>);

impl<S: Storage> Engine<S> {
    /// Every tool's typed method, previewed: nothing is committed.
    pub fn previews(&self) -> Previews<'_, S> {
        Previews(self)
    }
}

macro_rules! typed {
    ($($(#[$doc:meta])* $method:ident: $tool:literal $kind:ident $(exists $exists:path)?, $args:ty => $out:ty, $handler:path;)*) => {
        /// Every tool with a typed method, in `TOOLS` order.
        pub const TYPED_TOOLS: &[&str] = &[$($tool),*];

        impl<S: Storage> Engine<S> {
            $(
                $(#[$doc])*
                pub fn $method(&mut self, caller: &Caller, args: $args, now: Timestamp) -> Result<$out, CallError> {
                    let prepared = self.stage($tool, now, |tx| {
                        let ctx = typed!(@caller $kind, tx, $tool, caller $(, $exists)?)?;
                        $handler(tx, &ctx, args)
                    })?;
                    self.commit(prepared)
                }
            )*
        }

        impl<S: Storage> Previews<'_, S> {
            $(
                $(#[$doc])*
                /// Previewed: answered as the tool would answer now, nothing committed.
                pub fn $method(&self, caller: &Caller, args: $args, now: Timestamp) -> Result<$out, CallError> {
                    let prepared = self.0.stage($tool, now, |tx| {
                        let ctx = typed!(@caller $kind, tx, $tool, caller $(, $exists)?)?;
                        $handler(tx, &ctx, args)
                    })?;
                    Ok(prepared.into_output())
                }
            )*
        }
    };
    (@caller thread, $tx:expr, $tool:literal, $caller:expr) => { thread_caller($tx, $tool, None, $caller) };
    (@caller thread, $tx:expr, $tool:literal, $caller:expr, $exists:path) => { thread_caller($tx, $tool, Some($exists), $caller) };
    (@caller relay, $tx:expr, $tool:literal, $caller:expr) => { relay_caller($tx, $tool, $caller) };
}

typed! {
    /// `handoff` (G1–G18).
    handoff: "handoff" thread, HandoffArgs => HandoffResult, crate::handoff::tools::handoff;
    /// `handoff_status` (S9).
    handoff_status: "handoff_status" thread, HandoffIdArgs => HandoffStatusResult, crate::handoff::tools::status;
    /// `handoff_send` (H1, H2).
    handoff_send: "handoff_send" thread, HandoffSendArgs => HandoffSendResult, crate::handoff::tools::send;
    /// `handoff_results` (R1).
    handoff_results: "handoff_results" thread, HandoffIdArgs => HandoffResultsResult, crate::handoff::tools::results;
    /// `handoff_cancel` (C1).
    handoff_cancel: "handoff_cancel" thread, HandoffCancelArgs => HandoffCancelResult, crate::handoff::tools::cancel;
    /// `handoff_list` (L1–L3).
    handoff_list: "handoff_list" thread, HandoffListArgs => HandoffListResult, crate::handoff::tools::list;
    /// `get_handoff_inputs` (B1).
    get_handoff_inputs: "get_handoff_inputs" thread, GetHandoffInputsArgs => GetHandoffInputsResult, crate::handoff::blueprint_tools::get_inputs;
    /// `store_blueprint_outputs` (B2).
    store_blueprint_outputs: "store_blueprint_outputs" thread, StoreBlueprintOutputsArgs => StoreBlueprintOutputsResult, crate::handoff::blueprint_tools::store_outputs;
    /// `mailbox_action` (M1–M9).
    mailbox_action: "mailbox_action" thread, MailboxActionArgs => MailboxActionResult, crate::handoff::mailbox_tools::mailbox_action;
    /// `handoff_to_teammate` (I5).
    handoff_to_teammate: "handoff_to_teammate" relay, HandoffToTeammateArgs => HandoffToTeammateResult, crate::relay::tools::handoff_to_teammate;
    /// `check_inbox` (I1, I2).
    check_inbox: "check_inbox" relay, CheckInboxArgs => CheckInboxResult, crate::relay::tools::check_inbox;
    /// `accept_handoff` (I3, I5).
    accept_handoff: "accept_handoff" relay, AcceptHandoffArgs => RelayThreadResult, crate::relay::tools::accept_handoff;
    /// `view_thread` (I6).
    view_thread: "view_thread" relay, ViewThreadArgs => RelayThreadResult, crate::relay::tools::view_thread;
    /// `send_message` (I7).
    send_message: "send_message" relay, SendMessageArgs => SendMessageResult, crate::relay::tools::send_message;
    /// `complete_handoff` (I8).
    complete_handoff: "complete_handoff" relay, CompleteHandoffArgs => CompleteHandoffResult, crate::relay::tools::complete_handoff;
    /// `cancel_handoff` (I8).
    cancel_handoff: "cancel_handoff" relay, CancelHandoffArgs => CancelHandoffResult, crate::relay::tools::cancel_handoff;
    /// `handoff_request` (X1, X3).
    handoff_request: "handoff_request" thread, HandoffRequestArgs => HandoffRequestResult, crate::sibling::tools::request;
    /// `subagents` (A1–A4).
    subagents: "subagents" thread, SubagentsArgs => SubagentsResult, crate::coord::leg_tools::subagents;
    /// `background_subagents` (A5).
    background_subagents: "background_subagents" thread, BackgroundSubagentsArgs => SubagentsResult, crate::coord::leg_tools::background;
    /// `schedules` (A6).
    schedules: "schedules" thread, SchedulesArgs => SchedulesResult, crate::coord::tools::schedules;
    /// `write_todo` (A7).
    write_todo: "write_todo" thread, WriteTodoArgs => WriteTodoResult, crate::coord::tools::write_todo;
    /// `ask_user` (A8).
    ask_user: "ask_user" thread, AskUserArgs => AskUserResult, crate::coord::tools::ask_user;
    /// `handoff_release` (X1, X2): exists only on the receiving side of a sibling handoff.
    handoff_release: "handoff_release" thread exists crate::sibling::tools::on_receiving_side, HandoffReleaseArgs => HandoffReleaseResult, crate::sibling::tools::release;
}
