//! The tool surface: one table of tools — name, description, parameter schema, handler.
//! The dispatcher and `baton tools` both read this table, so neither can miss a tool.
pub mod call;
pub(crate) mod caller;
pub mod command;
pub mod def;
pub mod host;
pub mod results;
#[cfg(feature = "schema")]
pub mod schemas;
pub mod tools;
pub mod typed;

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

pub use command::Command;
#[cfg(feature = "schema")]
pub use def::schema_of;
pub use def::{Effect, ToolDef, ADDS, CHANGES, ENDS, READS, SETTLES};
#[cfg(feature = "schema")]
use serde_json::{json, Value};
pub use tools::TOOLS;

/// The tool named `name`.
pub fn find(name: &str) -> Option<&'static ToolDef> {
    TOOLS.iter().find(|t| t.name == name)
}

#[cfg(feature = "schema")]
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
    use crate::ground::machine::Lifecycle;
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

/// A capability's timed part (its `NAME`, `deadline` and `on_due`), for the engine's state
/// and transaction.
macro_rules! timed {
    ($($m:ident)::+) => {
        crate::engine::timers::Timed {
            name: $($m)::+::NAME,
            deadline: |st| $($m)::+::deadline(st),
            on_due: |tx| $($m)::+::on_due(tx),
        }
    };
}

/// Every capability's time rule, in the order `tick` runs them: handoff watch windows,
/// reminders and abandonment; sibling idle timeouts; schedules; leg timeouts; the mail sweep.
pub(crate) static TIMED: &[crate::engine::timers::Timed] = &[
    timed!(crate::handoff::timers),
    timed!(crate::sibling::flow),
    timed!(crate::coord::schedule_runs),
    timed!(crate::coord::legflow),
    timed!(crate::handoff::sweep),
];
