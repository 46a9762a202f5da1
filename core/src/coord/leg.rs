//! Subagent legs (rules A1–A5): Baton decides when a leg may start, tracks it, names and
//! stores its report and rolls its usage up; the host runs it.
use crate::ground::machine::{step, Lifecycle, Row};
use crate::ground::time::Timestamp;
use crate::handoff::usage::Usage;
use serde::{Deserialize, Serialize};

/// Foreground legs are capped at 30 minutes, counted from when they were queued (A2).
pub(crate) const FOREGROUND_CAP_MS: u64 = 30 * crate::ground::time::MINUTE;

/// Tools a leg never gets (A4); `generate_*` is a prefix.
pub(crate) const EXCLUDED_TOOLS: [&str; 14] = [
    "subagents",
    "background_subagents",
    "edit_file",
    "remove_file",
    "restore_file",
    "edit_tool",
    "test_tool",
    "edit_skill",
    "write_result",
    "html_template",
    "generate_*",
    "open_file",
    "schedules",
    "store_secret",
];

/// What a background leg also never gets (A5).
pub(crate) const BACKGROUND_EXCLUDED: [&str; 1] = ["ask_user"];

/// Reasoning levels a leg accepts (A4).
pub(crate) const REASONING_LEVELS: [&str; 6] = ["auto", "minimal", "low", "medium", "high", "max"];

/// Where a leg is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LegStatus {
    /// Waiting for a slot; its timeout already runs.
    Queued,
    /// Started by the host.
    Running,
    /// Reported (terminal).
    Done,
    /// Ran past its timeout (terminal).
    TimedOut,
    /// The host reported a failure (terminal).
    Failed,
}

impl LegStatus {
    /// Wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            LegStatus::Queued => "queued",
            LegStatus::Running => "running",
            LegStatus::Done => "done",
            LegStatus::TimedOut => "timed_out",
            LegStatus::Failed => "failed",
        }
    }

    /// Terminal statuses never move.
    pub fn is_terminal(self) -> bool {
        matches!(self, LegStatus::Done | LegStatus::TimedOut | LegStatus::Failed)
    }
}

/// What can happen to a leg.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum LegEvent {
    /// A slot freed up.
    Start,
    /// The host delivered the report.
    Report,
    /// The timeout passed.
    Timeout,
    /// The host reported a failure.
    Fail,
}

/// The leg lifecycle (rules A1, A2, A5).
pub(crate) struct LegLifecycle;

impl Lifecycle for LegLifecycle {
    type State = LegStatus;
    type Event = LegEvent;
    const NAME: &'static str = "leg";
    const ROWS: &'static [Row<LegStatus, LegEvent>] = {
        use LegEvent as E;
        use LegStatus as S;
        &[
            Row { from: S::Queued, event: E::Start, to: S::Running, does: "a slot freed up: the host starts it (A2)" },
            Row { from: S::Running, event: E::Report, to: S::Done, does: "its report was written (A3)" },
            Row { from: S::Queued, event: E::Timeout, to: S::TimedOut, does: "timed out while queued (A2)" },
            Row { from: S::Running, event: E::Timeout, to: S::TimedOut, does: "ran past its timeout (A5)" },
            Row { from: S::Queued, event: E::Fail, to: S::Failed, does: "the host could not start it" },
            Row { from: S::Running, event: E::Fail, to: S::Failed, does: "the host reported a failure" },
        ]
    };

    fn is_terminal(s: LegStatus) -> bool {
        s.is_terminal()
    }

    fn label(s: LegStatus) -> &'static str {
        s.as_str()
    }
}

/// The next status, `None` when the leg cannot take the event.
pub(crate) fn leg_transition(from: LegStatus, event: LegEvent) -> Option<LegStatus> {
    step::<LegLifecycle>(from, event).ok().map(|r| r.to)
}

/// One subagent run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Leg {
    /// Id (also the background task id).
    pub leg_id: crate::ground::ids::LegId,
    /// Creation order (queue order).
    pub seq: u64,
    /// The leg's own session.
    pub session_id: String,
    /// Parent thread (whose usage it rolls into).
    pub parent_thread_id: crate::ground::ids::ThreadId,
    /// Parent bot.
    pub bot_id: String,
    /// The subtask, self-contained (the leg sees none of the parent conversation).
    pub task: String,
    /// Model that runs it (resolved from `auto`).
    pub model: String,
    /// Reasoning level.
    pub reasoning: String,
    /// Requested report name (kebab-case), if any.
    pub report_name: Option<String>,
    /// Optional system prompt.
    pub system_prompt: Option<String>,
    /// Tools the leg never gets (the fixed set plus `exclude_tools`).
    pub excluded_tools: Vec<String>,
    /// A background leg.
    pub background: bool,
    /// Its group (background).
    pub group_id: Option<crate::ground::ids::GroupId>,
    /// Timeout in ms, from `queued_at`.
    pub timeout_ms: u64,
    /// Status.
    pub status: LegStatus,
    /// Queued.
    pub queued_at: Timestamp,
    /// Started.
    pub started_at: Option<Timestamp>,
    /// Ended.
    pub ended_at: Option<Timestamp>,
    /// Usage so far.
    pub usage: Usage,
    /// `temp-<name>.md`, once reported.
    pub report_path: Option<String>,
    /// Failure detail.
    pub error: Option<String>,
}

impl Leg {
    /// The result header (A3).
    pub fn header(&self) -> String {
        format!(
            "[subagent · {} · session={} · usage: in={} out={} cached={} write={}]",
            self.model, self.session_id, self.usage.input, self.usage.output, self.usage.cached, self.usage.write
        )
    }
}

/// A named, reusable leg session (`self_id`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LegSession {
    /// Session id (the `self_id`).
    pub session_id: String,
    /// What it is for.
    pub role: String,
    /// A model the session is pinned to; `None` means it runs whatever model is asked.
    pub model: Option<String>,
}

/// Background legs started in one turn (A5).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LegGroup {
    /// Id.
    pub group_id: crate::ground::ids::GroupId,
    /// The starting thread.
    pub thread_id: crate::ground::ids::ThreadId,
    /// The starting task.
    pub task_id: String,
    /// The turn the legs were started in.
    pub turn: u64,
    /// Legs, in start order.
    pub legs: Vec<crate::ground::ids::LegId>,
    /// What the follow-up task should achieve.
    pub objective: Option<String>,
    /// What to do with the reports.
    pub next: Option<String>,
    /// The follow-up task has been opened.
    pub followed_up: bool,
}

/// A report name in kebab case (`nvda-news`), or `None` when it is not one.
pub(crate) fn kebab(name: &str) -> Option<String> {
    let n = name.trim();
    let ok = !n.is_empty()
        && n.len() <= 64
        && n.split('-').all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit()));
    ok.then(|| n.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::handoff::dispatch::excluded;

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn a3_kebab_names() {
        assert_eq!(kebab("nvda-news").as_deref(), Some("nvda-news"));
        assert_eq!(kebab("NVDA news"), None);
        assert_eq!(kebab("a--b"), None);
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn a4_excluded_patterns() {
        let list: Vec<String> = EXCLUDED_TOOLS.iter().map(|s| s.to_string()).collect();
        assert!(excluded(&list, "generate_image"));
        assert!(excluded(&list, "edit_file"));
        assert!(!excluded(&list, "read_files"));
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn a2_leg_table() {
        assert_eq!(leg_transition(LegStatus::Queued, LegEvent::Timeout), Some(LegStatus::TimedOut));
        assert_eq!(leg_transition(LegStatus::Done, LegEvent::Report), None);
        assert_eq!(leg_transition(LegStatus::Queued, LegEvent::Report), None);
    }
}
