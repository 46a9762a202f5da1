//! Every tool, declared once: its name, how it is called (from a thread or as a teammate),
//! its title, what it does to the workspace, its parameters and result types, its handler,
//! the rule of each parameter and its description. From that one list come the table
//! ([`TOOLS`]: dispatch, `baton tools`, schemas, MCP), the typed `Engine` methods and their
//! previews ([`Previews`]). Adding a tool is one entry here, beside its types in its
//! capability's `wire.rs` and its handler.
use crate::coord::leg_tools as legs;
use crate::coord::tools as coordination;
use crate::coord::wire::{AskUserArgs, BackgroundSubagentsArgs, SchedulesArgs, SubagentsArgs, WriteTodoArgs};
use crate::engine::storage::Storage;
use crate::engine::{Caller, Engine};
use crate::ground::error::CallError;
use crate::ground::time::Timestamp;
use crate::handoff::blueprint_tools as blueprint;
use crate::handoff::mailbox_tools as mailbox;
use crate::handoff::tools as handoff;
use crate::handoff::wire::{
    GetHandoffInputsArgs, HandoffArgs, HandoffCancelArgs, HandoffIdArgs, HandoffListArgs, HandoffSendArgs,
    MailboxActionArgs, StoreBlueprintOutputsArgs,
};
use crate::relay::tools as relay;
use crate::relay::wire::{
    AcceptHandoffArgs, CancelHandoffArgs, CheckInboxArgs, CompleteHandoffArgs, HandoffToTeammateArgs, SendMessageArgs,
    ViewThreadArgs,
};
use crate::sibling::tools as sibling;
use crate::sibling::wire::{HandoffReleaseArgs, HandoffRequestArgs};
use crate::surface::caller::{relay_caller, thread_caller};
#[cfg(feature = "schema")]
use crate::surface::def::schema_of;
use crate::surface::def::{answer_as, parse, rule_in, Handler, ToolDef, ADDS, CHANGES, ENDS, READS, SETTLES};
use crate::surface::results::*;
use crate::surface::typed::Previews;

macro_rules! tools {
    ($($method:ident: $name:literal $kind:ident $(exists $exists:path)?, $title:literal, $effect:expr, $args:ty => $out:ty, $handler:path,
        $rules:expr, $desc:literal;)*) => {
        /// Every tool, in the order `baton tools` prints them.
        pub static TOOLS: &[ToolDef] = &[$(
            ToolDef {
                name: $name,
                title: $title,
                effect: $effect,
                description: $desc,
                #[cfg(feature = "schema")]
                schema: schema_of::<$args>,
                #[cfg(feature = "schema")]
                result: schema_of::<$out>,
                run: tools!(@run $kind, $args, $handler, $rules),
                exists_for: tools!(@exists $($exists)?),
            }
        ),*];

        impl<S: Storage> Engine<S> {
            $(
                #[doc = concat!("The tool `", $name, "`: ", $desc)]
                pub fn $method(&mut self, caller: &Caller, args: $args, now: Timestamp) -> Result<$out, CallError> {
                    let prepared = self.stage($name, now, |tx| {
                        let ctx = tools!(@caller $kind, tx, $name, caller $(, $exists)?)?;
                        $handler(tx, &ctx, args)
                    })?;
                    self.commit(prepared)
                }
            )*
        }

        impl<S: Storage> Previews<'_, S> {
            $(
                #[doc = concat!("The tool `", $name, "`, previewed (answered as it would answer now, nothing committed): ", $desc)]
                pub fn $method(&self, caller: &Caller, args: $args, now: Timestamp) -> Result<$out, CallError> {
                    let prepared = self.engine().stage($name, now, |tx| {
                        let ctx = tools!(@caller $kind, tx, $name, caller $(, $exists)?)?;
                        $handler(tx, &ctx, args)
                    })?;
                    Ok(prepared.into_output())
                }
            )*
        }
    };
    (@run thread, $args:ty, $handler:path, $rules:expr) => {
        Handler::Thread(|tx, ctx, v, form| {
            let a: $args = parse(v, &|f| rule_in($rules, f))?;
            $handler(tx, ctx, a).map(|r| answer_as(r, form))
        })
    };
    (@run relay, $args:ty, $handler:path, $rules:expr) => {
        Handler::Relay(|tx, ctx, v, form| {
            let a: $args = parse(v, &|f| rule_in($rules, f))?;
            $handler(tx, ctx, a).map(|r| answer_as(r, form))
        })
    };
    (@exists) => { None };
    (@exists $exists:path) => { Some($exists) };
    (@caller thread, $tx:expr, $tool:literal, $caller:expr) => { thread_caller($tx, $tool, None, $caller) };
    (@caller thread, $tx:expr, $tool:literal, $caller:expr, $exists:path) => { thread_caller($tx, $tool, Some($exists), $caller) };
    (@caller relay, $tx:expr, $tool:literal, $caller:expr) => { relay_caller($tx, $tool, $caller) };
}

tools! {
    handoff: "handoff" thread, "Delegate a task", ADDS, HandoffArgs => HandoffResult, handoff::handoff,
        &[("task", "G1"), ("target_bot", "G2"), ("thread_mode", "G3"), ("visibility", "G4"), ("show_in_thread_list", "G5"), ("thread_title", "G6"), ("context_data", "G6"), ("blueprint_name", "G7"), ("blueprint_mode", "G7"), ("async_mode", "G8"), ("timeout_seconds", "G9"), ("on_completion", "G10"), ("auto_redirect", "G11"), ("include_parent_context", "G11"), ("stop_on_timeout", "G12"), ("allowed_tools", "G13"), ("callback_url", "G14")],
        "Start work in a new worker thread, optionally on another agent. Returns handoff_id, thread_id, status and a thread_link. Async by default; a plain child reports back with mailbox_action.";
    handoff_status: "handoff_status" thread, "Check a handoff", SETTLES, HandoffIdArgs => HandoffStatusResult, handoff::status,
        &[("handoff_id", "S9")],
        "Live status of one handoff, recomputed from the child thread: status, hint, result, elapsed_time and progress fields (last_tool_call, tool_call_count, last_activity_at, idle_seconds).";
    handoff_send: "handoff_send" thread, "Send a follow-up", ADDS, HandoffSendArgs => HandoffSendResult, handoff::send,
        &[("handoff_id", "H1"), ("message", "H1")],
        "Queue follow-up guidance into a handoff's child thread. Does not wait for the child to read it.";
    handoff_results: "handoff_results" thread, "Read a handoff's results", READS, HandoffIdArgs => HandoffResultsResult, handoff::results,
        &[("handoff_id", "R1")],
        "Whatever a handoff has produced: the stored result when finished, else partial=true with the child's latest answer, blueprint outputs and progress.";
    handoff_cancel: "handoff_cancel" thread, "Cancel a handoff", ENDS, HandoffCancelArgs => HandoffCancelResult, handoff::cancel,
        &[("handoff_id", "C1"), ("reason", "C1")],
        "Stop tracking a handoff (status cancelled). The child is not signalled and may still finish its side effects; handoff_results keeps serving partial output.";
    handoff_list: "handoff_list" thread, "List open handoffs", READS, HandoffListArgs => HandoffListResult, handoff::list,
        &[("limit", "L2")],
        "Your open (non-terminal) delegations, oldest first, with live state. Empty means none are open.";
    get_handoff_inputs: "get_handoff_inputs" thread, "Read blueprint inputs", ADDS, GetHandoffInputsArgs => GetHandoffInputsResult, blueprint::get_inputs,
        &[("blueprint_name", "B1"), ("specific_inputs", "B1")],
        "From a blueprint child thread: fetch the inputs its parent stored for this blueprint. Returns inputs, from_parent_thread, missing_inputs and a hint.";
    store_blueprint_outputs: "store_blueprint_outputs" thread, "Store blueprint outputs", ADDS, StoreBlueprintOutputsArgs => StoreBlueprintOutputsResult, blueprint::store_outputs,
        &[("outputs", "B2"), ("blueprint_name", "B2")],
        "Store named outputs of this blueprint for downstream consumers, typically before @END.";
    mailbox_action: "mailbox_action" thread, "Report to the parent", ADDS, MailboxActionArgs => MailboxActionResult, mailbox::mailbox_action,
        &[("action", "M1"), ("to_thread_id", "M1"), ("to_bot_id", "M1"), ("subject", "M1"), ("body", "M9")],
        "SEND_MESSAGE: send one message to another thread's mailbox (a plain child's report to its source thread completes the handoff). READ_MAIL: take the mail waiting for this thread.";
    handoff_to_teammate: "handoff_to_teammate" relay, "Hand off to a teammate", ADDS, HandoffToTeammateArgs => HandoffToTeammateResult, relay::handoff_to_teammate,
        &[("to", "I5"), ("summary", "I5"), ("intent", "I5"), ("proposed_action", "I5"), ("artifacts", "I5")],
        "Hand work to a teammate: a self-contained summary, an intent (inform, ask_question, propose_action with proposed_action) and artifacts. Opens a relay thread in pending.";
    check_inbox: "check_inbox" relay, "Check the inbox", SETTLES, CheckInboxArgs => CheckInboxResult, relay::check_inbox,
        &[("status", "I1"), ("since", "I1"), ("limit", "I1"), ("cursor", "I1")],
        "List relay threads addressed to you, most recently updated first (default: pending and accepted). Page with next_cursor.";
    accept_handoff: "accept_handoff" relay, "Accept a handoff", SETTLES, AcceptHandoffArgs => RelayThreadResult, relay::accept_handoff,
        &[("thread_id", "I3"), ("session_id", "I5")],
        "Accept a relay thread addressed to you: checks your trust policy for the sender, moves it to accepted, and returns the full context (sender text wrapped as untrusted) with your trust overlay.";
    view_thread: "view_thread" relay, "View a thread", READS, ViewThreadArgs => RelayThreadResult, relay::view_thread,
        &[("thread_id", "I6")],
        "Read a relay thread you take part in without changing its status; text not written by you comes wrapped as untrusted.";
    send_message: "send_message" relay, "Message a thread", ADDS, SendMessageArgs => SendMessageResult, relay::send_message,
        &[("thread_id", "I7"), ("body", "I7"), ("payload", "I7"), ("idempotency_key", "I7")],
        "Post a message to a pending or accepted relay thread (either side). Returns message_id and sequence_no.";
    complete_handoff: "complete_handoff" relay, "Complete a handoff", SETTLES, CompleteHandoffArgs => CompleteHandoffResult, relay::complete_handoff,
        &[("thread_id", "I8"), ("result_summary", "I8"), ("artifacts", "I8")],
        "Complete an accepted relay thread addressed to you with a result summary and artifacts; the sender is notified.";
    cancel_handoff: "cancel_handoff" relay, "Cancel a teammate handoff", ENDS, CancelHandoffArgs => CancelHandoffResult, relay::cancel_handoff,
        &[("thread_id", "I8"), ("reason", "I8")],
        "Cancel a relay thread you sent that is not completed or cancelled yet; the recipient is notified.";
    handoff_request: "handoff_request" thread, "Hand the conversation to a sibling", SETTLES, HandoffRequestArgs => HandoffRequestResult, sibling::request,
        &[("target_agent", "X1"), ("task", "X1"), ("expected_return", "X3"), ("idle_timeout_seconds", "X1")],
        "Hand control of this conversation to a sibling agent, declaring the fields you want back (expected_return). You are bypassed until it calls handoff_release.";
    subagents: "subagents" thread, "Run subagents", ADDS, SubagentsArgs => SubagentsResult, legs::subagents,
        &[("mode", "A1"), ("task", "A1"), ("model", "A4"), ("self_id", "A1"), ("report_name", "A3"), ("reasoning", "A4"), ("new", "A1"), ("system_prompt", "A1"), ("exclude_tools", "A4")],
        "mode=invoke runs a subtask in its own session (it sees none of this conversation) with a required model (or auto); its result is a usage header plus the path of its report file. mode=list resolves one named session by self_id.";
    background_subagents: "background_subagents" thread, "Run background subagents", ADDS, BackgroundSubagentsArgs => SubagentsResult, legs::background,
        &[("task", "A5"), ("model", "A4"), ("self_id", "A5"), ("report_name", "A3"), ("reasoning", "A4"), ("new", "A5"), ("system_prompt", "A5"), ("exclude_tools", "A4"), ("timeout_min", "A5"), ("objective", "A5"), ("next", "A5")],
        "Start one leg in the background and get a task id at once; legs started in one turn form a group. For legs likely over 5 minutes or when the user asks to be told later; put the action wanted afterwards in next.";
    schedules: "schedules" thread, "Manage schedules", CHANGES, SchedulesArgs => SchedulesResult, coordination::schedules,
        &[("mode", "A6"), ("target", "A6"), ("schedule_id", "A6"), ("skill_name", "A6"), ("time", "A6"), ("cron", "A6")],
        "Scheduled runs bound to a scheduler skill: list what this session queued, patch an entry's time, remove it (its skill is trashed), or write (bind a generated skill to a task time or a cron expression).";
    write_todo: "write_todo" thread, "Write the plan", CHANGES, WriteTodoArgs => WriteTodoResult, coordination::write_todo,
        &[("steps", "A7")],
        "The live checklist the user watches: send the whole ordered list every time (it replaces the old one), with exactly one step in_progress. While a plan runs its steps are fixed; only statuses move forward.";
    ask_user: "ask_user" thread, "Ask the user", ADDS, AskUserArgs => AskUserResult, coordination::ask_user,
        &[("questions", "A8")],
        "Ask the user: free text, single select, multi select or masked secret, each with optional detail. Outside an interactive terminal the run ends and resumes with full context once answered; no timeout. Never ask for credentials (store_secret).";
    handoff_release: "handoff_release" thread exists sibling::on_receiving_side, "Hand control back", SETTLES, HandoffReleaseArgs => HandoffReleaseResult, sibling::release,
        &[("summary", "X2"), ("outcome", "X2"), ("reason", "X2"), ("return_values", "X3")],
        "Hand control back to the agent that handed this conversation to you, with a summary, an outcome and the return_values its [EXPECTED RETURN SCHEMA] asks for. Exists only on the receiving side of a sibling handoff.";
}
