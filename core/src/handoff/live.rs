//! Live state of a handoff, recomputed from its child thread at read time (rule S1).
use crate::ground::time::{Timestamp, DAY, MINUTE};
use crate::handoff::thread::{Activity, Thread};
use crate::handoff::wire::{Progress, ToolCallOut};
use crate::handoff::{Handoff, OnCompletion};

/// A child quiet this long is `stalled`, and is due its first reminder (S7).
pub(crate) const STALL_AFTER_MS: u64 = 30 * MINUTE;
/// Reminders are at least this far apart (S7).
pub(crate) const NUDGE_EVERY_MS: u64 = 60 * MINUTE;
/// At most this many reminders (S7).
pub(crate) const MAX_NUDGES: u32 = 3;
/// Quiet this long retires a handoff as `abandoned` (S8).
pub(crate) const ABANDON_AFTER_MS: u64 = 7 * DAY;

/// Live state of a non-terminal handoff (rule S10's live values).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Live {
    /// Working or recently active.
    Running,
    /// Quiet for at least 30 minutes.
    Stalled,
    /// The blueprint reached `@END`.
    Completed,
    /// The child thread no longer exists (S6).
    ChildMissing,
}

impl Live {
    /// Wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Live::Running => "running",
            Live::Stalled => "stalled",
            Live::Completed => "completed",
            Live::ChildMissing => "child_missing",
        }
    }
}

/// Since when the child has been quiet: its last activity, or the handoff's creation.
pub(crate) fn quiet_since(h: &Handoff, act: &Activity) -> Timestamp {
    act.last_activity_at.map_or(h.created_at, |a| a.max(h.created_at))
}

/// When each time rule next applies to one open handoff.
pub(crate) struct Due {
    /// The watch window closes (G9).
    pub watch: Option<Timestamp>,
    /// The quiet child is reminded (S7).
    pub nudge: Option<Timestamp>,
    /// The handoff is abandoned (S8).
    pub abandon: Option<Timestamp>,
}

/// When each time rule next applies to `h`, given its child thread (if it is stored) and the
/// child's activity: the one place the rule is written (the engine's due index, a tick and
/// the console's "what happens next" all read it).
pub(crate) fn due_with(h: &Handoff, child: Option<&Thread>, act: &Activity) -> Due {
    let child = child.filter(|c| c.deleted_at.is_none());
    // Quiet can be established only for a readable child that is not mid-turn (S8).
    let quiet_known = child.is_some_and(|c| c.readable) && !act.mid_turn;
    let since = quiet_since(h, act);
    // Only a child that still owes its report is reminded: not one whose result is in (held
    // by S5, or awaiting its callback).
    let owes_report =
        h.spec.on_completion == OnCompletion::Notify && h.held_report.is_none() && h.finished_at.is_none();
    let nudge = (quiet_known && owes_report && h.nudges_sent < MAX_NUDGES).then(|| {
        let after_quiet = since.plus(STALL_AFTER_MS);
        h.last_nudge_at.map_or(after_quiet, |n| after_quiet.max(n.plus(NUDGE_EVERY_MS)))
    });
    Due { watch: h.watch_until, nudge, abandon: quiet_known.then(|| since.plus(ABANDON_AFTER_MS)) }
}

impl Due {
    /// The earliest of them.
    pub(crate) fn earliest(&self) -> Option<Timestamp> {
        [self.watch, self.nudge, self.abandon].into_iter().flatten().min()
    }
}

/// Live state from the child thread, never from the stored status (S1, S2).
pub(crate) fn live_state(h: &Handoff, child: Option<&Thread>, act: &Activity, now: Timestamp) -> Live {
    let Some(child) = child.filter(|c| c.deleted_at.is_none()) else {
        return Live::ChildMissing;
    };
    if child.blueprint.as_ref().is_some_and(|b| b.completed) {
        return Live::Completed;
    }
    if act.mid_turn || now.since(quiet_since(h, act)) < STALL_AFTER_MS {
        Live::Running
    } else {
        Live::Stalled
    }
}

/// The progress fields of rule S9, for non-terminal records.
/// The S9 progress fields, typed.
pub(crate) fn progress(h: &Handoff, act: &Activity, now: Timestamp) -> Progress {
    Progress {
        last_tool_call: Some(
            act.last_tool_call.as_ref().map(|c| ToolCallOut { name: c.name.clone(), timestamp: c.timestamp.to_iso() }),
        ),
        tool_call_count: Some(act.tool_call_count),
        last_activity_at: Some(act.last_activity_at.map(|t| t.to_iso())),
        idle_seconds: Some(act.last_activity_at.map(|t| now.secs_since(t.max(h.created_at)))),
    }
}

/// Guidance for a live `running` or `stalled` handoff (S9).
pub(crate) fn hint(live: Live, idle_secs: u64, mid_turn: bool) -> Option<String> {
    match live {
        Live::Running if mid_turn => Some(format!(
            "The child is mid-turn (last activity {idle_secs}s ago). Wait for its report; do not re-dispatch."
        )),
        Live::Running => Some(format!(
            "The child is working (quiet for {idle_secs}s). Wait for its report or check again later; do not re-dispatch."
        )),
        Live::Stalled => Some(format!(
            "The child has been quiet for {idle_secs}s. Inspect last_tool_call and tool_call_count, and read handoff_results before starting the work again."
        )),
        _ => None,
    }
}
