//! The tool surface: one table of tools — name, description, parameter schema, handler.
//! The dispatcher and `baton tools` both read this table, so neither can miss a tool.
pub mod call;
pub(crate) mod caller;
pub mod def;
pub mod host;
pub mod results;
pub mod schemas;
pub mod typed;

use crate::coord::leg_tools as legs;
use crate::coord::tools as coordination;
use crate::handoff::blueprint_tools as blueprint;
use crate::handoff::mailbox_tools as mailbox;
use crate::handoff::tools as handoff;
use crate::relay::tools as relay;
use crate::sibling::tools as sibling;

pub use crate::coord::wire::{
    AskUserArgs, BackgroundSubagentsArgs, LegMode, ScheduleMode, SchedulesArgs, SubagentsArgs, WriteTodoArgs,
};
pub use crate::handoff::wire::{
    GetHandoffInputsArgs, HandoffArgs, HandoffCancelArgs, HandoffIdArgs, HandoffListArgs, HandoffSendArgs, MailAction,
    MailboxActionArgs, StoreBlueprintOutputsArgs,
};
pub use crate::relay::wire::{
    AcceptHandoffArgs, CancelHandoffArgs, CheckInboxArgs, CompleteHandoffArgs, HandoffToTeammateArgs, SendMessageArgs,
    ViewThreadArgs,
};
pub use crate::sibling::wire::{HandoffReleaseArgs, HandoffRequestArgs};

use def::{answer_as, parse, rule_in, Handler};
pub use def::{schema_of, Effect, ToolDef, ADDS, CHANGES, ENDS, READS, SETTLES};
use serde_json::{json, Value};

macro_rules! tool {
    ($name:literal, $title:literal, $effect:expr, $args:ty, $handler:path, $rules:expr, $desc:literal) => {
        ToolDef {
            name: $name,
            title: $title,
            effect: $effect,
            description: $desc,
            schema: schema_of::<$args>,
            run: Handler::Thread(|tx, ctx, v, form| {
                let a: $args = parse(v, |f| rule_in($rules, f))?;
                $handler(tx, ctx, a).map(|r| answer_as(r, form))
            }),
            exists_for: None,
        }
    };
}

macro_rules! relay_tool {
    ($name:literal, $title:literal, $effect:expr, $args:ty, $handler:path, $rules:expr, $desc:literal) => {
        ToolDef {
            name: $name,
            title: $title,
            effect: $effect,
            description: $desc,
            schema: schema_of::<$args>,
            run: Handler::Relay(|tx, ctx, v, form| {
                let a: $args = parse(v, |f| rule_in($rules, f))?;
                $handler(tx, ctx, a).map(|r| answer_as(r, form))
            }),
            exists_for: None,
        }
    };
}

/// Every tool, in the order `baton tools` prints them.
pub static TOOLS: &[ToolDef] = &[
    tool!(
        "handoff",
        "Delegate a task",
        ADDS,
HandoffArgs,
        handoff::handoff,
        &[
            ("task", "G1"),
            ("target_bot", "G2"),
            ("thread_mode", "G3"),
            ("visibility", "G4"),
            ("show_in_thread_list", "G5"),
            ("thread_title", "G6"),
            ("context_data", "G6"),
            ("blueprint_name", "G7"),
            ("blueprint_mode", "G7"),
            ("async_mode", "G8"),
            ("timeout_seconds", "G9"),
            ("on_completion", "G10"),
            ("auto_redirect", "G11"),
            ("include_parent_context", "G11"),
            ("stop_on_timeout", "G12"),
            ("allowed_tools", "G13"),
            ("callback_url", "G14"),
        ],
        "Start work in a new worker thread, optionally on another agent. Returns handoff_id, thread_id, status and a thread_link. Async by default; a plain child reports back with mailbox_action."
    ),
    tool!(
        "handoff_status",
        "Check a handoff",
        SETTLES,
HandoffIdArgs,
        handoff::status,
        &[("handoff_id", "S9")],
        "Live status of one handoff, recomputed from the child thread: status, hint, result, elapsed_time and progress fields (last_tool_call, tool_call_count, last_activity_at, idle_seconds)."
    ),
    tool!(
        "handoff_send",
        "Send a follow-up",
        ADDS,
HandoffSendArgs,
        handoff::send,
        &[("handoff_id", "H1"), ("message", "H1")],
        "Queue follow-up guidance into a handoff's child thread. Does not wait for the child to read it."
    ),
    tool!(
        "handoff_results",
        "Read a handoff's results",
        READS,
HandoffIdArgs,
        handoff::results,
        &[("handoff_id", "R1")],
        "Whatever a handoff has produced: the stored result when finished, else partial=true with the child's latest answer, blueprint outputs and progress."
    ),
    tool!(
        "handoff_cancel",
        "Cancel a handoff",
        ENDS,
HandoffCancelArgs,
        handoff::cancel,
        &[("handoff_id", "C1"), ("reason", "C1")],
        "Stop tracking a handoff (status cancelled). The child is not signalled and may still finish its side effects; handoff_results keeps serving partial output."
    ),
    tool!(
        "handoff_list",
        "List open handoffs",
        READS,
HandoffListArgs,
        handoff::list,
        &[("limit", "L2")],
        "Your open (non-terminal) delegations, oldest first, with live state. Empty means none are open."
    ),
    tool!(
        "get_handoff_inputs",
        "Read blueprint inputs",
        ADDS,
GetHandoffInputsArgs,
        blueprint::get_inputs,
        &[("blueprint_name", "B1"), ("specific_inputs", "B1")],
        "From a blueprint child thread: fetch the inputs its parent stored for this blueprint. Returns inputs, from_parent_thread, missing_inputs and a hint."
    ),
    tool!(
        "store_blueprint_outputs",
        "Store blueprint outputs",
        ADDS,
StoreBlueprintOutputsArgs,
        blueprint::store_outputs,
        &[("outputs", "B2"), ("blueprint_name", "B2")],
        "Store named outputs of this blueprint for downstream consumers, typically before @END."
    ),
    tool!(
        "mailbox_action",
        "Report to the parent",
        ADDS,
MailboxActionArgs,
        mailbox::mailbox_action,
        &[("action", "M1"), ("to_thread_id", "M1"), ("to_bot_id", "M1"), ("subject", "M1"), ("body", "M9")],
        "SEND_MESSAGE: send one message to another thread's mailbox (a plain child's report to its source thread completes the handoff). READ_MAIL: take the mail waiting for this thread."
    ),
    relay_tool!(
        "handoff_to_teammate",
        "Hand off to a teammate",
        ADDS,
HandoffToTeammateArgs,
        relay::handoff_to_teammate,
        &[("to", "I5"), ("summary", "I5"), ("intent", "I5"), ("proposed_action", "I5"), ("artifacts", "I5")],
        "Hand work to a teammate: a self-contained summary, an intent (inform, ask_question, propose_action with proposed_action) and artifacts. Opens a relay thread in pending."
    ),
    relay_tool!(
        "check_inbox",
        "Check the inbox",
        SETTLES,
CheckInboxArgs,
        relay::check_inbox,
        &[("status", "I1"), ("since", "I1"), ("limit", "I1"), ("cursor", "I1")],
        "List relay threads addressed to you, most recently updated first (default: pending and accepted). Page with next_cursor."
    ),
    relay_tool!(
        "accept_handoff",
        "Accept a handoff",
        SETTLES,
AcceptHandoffArgs,
        relay::accept_handoff,
        &[("thread_id", "I3"), ("session_id", "I5")],
        "Accept a relay thread addressed to you: checks your trust policy for the sender, moves it to accepted, and returns the full context (sender text wrapped as untrusted) with your trust overlay."
    ),
    relay_tool!(
        "view_thread",
        "View a thread",
        READS,
ViewThreadArgs,
        relay::view_thread,
        &[("thread_id", "I6")],
        "Read a relay thread you take part in without changing its status; text not written by you comes wrapped as untrusted."
    ),
    relay_tool!(
        "send_message",
        "Message a thread",
        ADDS,
SendMessageArgs,
        relay::send_message,
        &[("thread_id", "I7"), ("body", "I7"), ("payload", "I7"), ("idempotency_key", "I7")],
        "Post a message to a pending or accepted relay thread (either side). Returns message_id and sequence_no."
    ),
    relay_tool!(
        "complete_handoff",
        "Complete a handoff",
        SETTLES,
CompleteHandoffArgs,
        relay::complete_handoff,
        &[("thread_id", "I8"), ("result_summary", "I8"), ("artifacts", "I8")],
        "Complete an accepted relay thread addressed to you with a result summary and artifacts; the sender is notified."
    ),
    relay_tool!(
        "cancel_handoff",
        "Cancel a teammate handoff",
        ENDS,
CancelHandoffArgs,
        relay::cancel_handoff,
        &[("thread_id", "I8"), ("reason", "I8")],
        "Cancel a relay thread you sent that is not completed or cancelled yet; the recipient is notified."
    ),
    tool!(
        "handoff_request",
        "Hand the conversation to a sibling",
        SETTLES,
HandoffRequestArgs,
        sibling::request,
        &[("target_agent", "X1"), ("task", "X1"), ("expected_return", "X3"), ("idle_timeout_seconds", "X1")],
        "Hand control of this conversation to a sibling agent, declaring the fields you want back (expected_return). You are bypassed until it calls handoff_release."
    ),
    tool!(
        "subagents",
        "Run subagents",
        ADDS,
SubagentsArgs,
        legs::subagents,
        &[("mode", "A1"), ("task", "A1"), ("model", "A4"), ("self_id", "A1"), ("report_name", "A3"), ("reasoning", "A4"), ("new", "A1"), ("system_prompt", "A1"), ("exclude_tools", "A4")],
        "mode=invoke runs a subtask in its own session (it sees none of this conversation) with a required model (or auto); its result is a usage header plus the path of its report file. mode=list resolves one named session by self_id."
    ),
    tool!(
        "background_subagents",
        "Run background subagents",
        ADDS,
BackgroundSubagentsArgs,
        legs::background,
        &[("task", "A5"), ("model", "A4"), ("self_id", "A5"), ("report_name", "A3"), ("reasoning", "A4"), ("new", "A5"), ("system_prompt", "A5"), ("exclude_tools", "A4"), ("timeout_min", "A5"), ("objective", "A5"), ("next", "A5")],
        "Start one leg in the background and get a task id at once; legs started in one turn form a group. For legs likely over 5 minutes or when the user asks to be told later; put the action wanted afterwards in next."
    ),
    tool!(
        "schedules",
        "Manage schedules",
        CHANGES,
SchedulesArgs,
        coordination::schedules,
        &[("mode", "A6"), ("target", "A6"), ("schedule_id", "A6"), ("skill_name", "A6"), ("time", "A6"), ("cron", "A6")],
        "Scheduled runs bound to a scheduler skill: list what this session queued, patch an entry's time, remove it (its skill is trashed), or write (bind a generated skill to a task time or a cron expression)."
    ),
    tool!(
        "write_todo",
        "Write the plan",
        CHANGES,
WriteTodoArgs,
        coordination::write_todo,
        &[("steps", "A7")],
        "The live checklist the user watches: send the whole ordered list every time (it replaces the old one), with exactly one step in_progress. While a plan runs its steps are fixed; only statuses move forward."
    ),
    tool!(
        "ask_user",
        "Ask the user",
        ADDS,
AskUserArgs,
        coordination::ask_user,
        &[("questions", "A8")],
        "Ask the user: free text, single select, multi select or masked secret, each with optional detail. Outside an interactive terminal the run ends and resumes with full context once answered; no timeout. Never ask for credentials (store_secret)."
    ),
    ToolDef {
        exists_for: Some(sibling::on_receiving_side),
        ..tool!(
            "handoff_release",
            "Hand control back",
            SETTLES,
HandoffReleaseArgs,
            sibling::release,
            &[("summary", "X2"), ("outcome", "X2"), ("reason", "X2"), ("return_values", "X3")],
            "Hand control back to the agent that handed this conversation to you, with a summary, an outcome and the return_values its [EXPECTED RETURN SCHEMA] asks for. Exists only on the receiving side of a sibling handoff."
        )
    },
];

/// The tool named `name`.
pub fn find(name: &str) -> Option<&'static ToolDef> {
    TOOLS.iter().find(|t| t.name == name)
}

/// Every tool in the shape LLM function-calling APIs take:
/// `[{"type": "function", "function": {"name", "description", "parameters"}}]`.
pub fn definitions() -> Value {
    Value::Array(
        TOOLS
            .iter()
            .map(|t| {
                json!({"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters()}})
            })
            .collect(),
    )
}

/// Every row of every lifecycle table, as `(lifecycle, row index, "from --event--> to: does")`:
/// the handoff, relay thread, sibling session, leg, schedule and question tables.
pub fn lifecycle_rows() -> Vec<(&'static str, usize, String)> {
    use crate::engine::machine::Lifecycle;
    fn rows<L: Lifecycle>(out: &mut Vec<(&'static str, usize, String)>) {
        for (i, r) in L::ROWS.iter().enumerate() {
            out.push((L::NAME, i, format!("{:?} --{:?}--> {:?}: {}", r.from, r.event, r.to, r.does)));
        }
    }
    let mut out = Vec::new();
    rows::<crate::handoff::lifecycle::HandoffLifecycle>(&mut out);
    rows::<crate::relay::lifecycle::RelayLifecycle>(&mut out);
    rows::<crate::sibling::SessionLifecycle>(&mut out);
    rows::<crate::coord::leg::LegLifecycle>(&mut out);
    rows::<crate::coord::schedule::ScheduleLifecycle>(&mut out);
    rows::<crate::coord::ask::AskLifecycle>(&mut out);
    out
}

/// Every capability's time rule, in the order `tick` runs them: handoff watch windows,
/// reminders and abandonment; sibling idle timeouts; schedules; leg timeouts; the mail sweep.
pub(crate) static TIMED: &[crate::engine::timers::Timed] = &[
    crate::handoff::timers::TIMED,
    crate::sibling::flow::TIMED,
    crate::coord::schedule_runs::TIMED,
    crate::coord::legflow::TIMED,
    crate::handoff::sweep::TIMED,
];
