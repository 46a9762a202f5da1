//! Threads: conversations owned by one bot, with what the host reports about their activity.
use crate::ground::time::Timestamp;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The user a thread belongs to; a woken turn acts as this identity (rule M6).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Owner {
    /// User id.
    pub user_id: String,
    /// Email, when recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
}

/// Whether a thread shows on normal UI surfaces (rule G4).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Visibility {
    /// Accessible to the user (default).
    #[default]
    Visible,
    /// Hidden from normal UI surfaces.
    Hidden,
}

/// Blueprint execution mode (rules G7, B6).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum BlueprintMode {
    /// A person advances phases (default).
    #[default]
    Manual,
    /// Phases advance on their own until paused.
    Continuous,
    /// Runs toward a goal.
    Goal,
}

/// A blueprint running in a thread.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct BlueprintRun {
    /// Blueprint name.
    pub name: String,
    /// Current mode.
    pub mode: BlueprintMode,
    /// Current phase, kept across pauses and mode switches (rule B6).
    pub phase: Option<String>,
    /// Paused (continuous mode).
    pub paused: bool,
    /// `blueprint_completed`: the mission reached `@END` (rule S3).
    pub completed: bool,
}

/// A blueprint journey: the ordered stages a mission strip shows (rule B4).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct JourneyContext {
    /// Journey name.
    pub name: String,
    /// Blueprint names, in order.
    pub stages: Vec<String>,
}

/// A tool call the host reported.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ToolCallRef {
    /// Tool name.
    pub name: String,
    /// When it was called.
    pub timestamp: Timestamp,
}

/// What the host reported a thread doing. Kept apart from [`Thread`] so that an activity
/// report rewrites only this small record.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(transform = crate::ground::stored::required_again::<Activity>))]
pub struct Activity {
    /// A turn is running (started, not yet ended).
    #[serde(default, skip_serializing_if = "crate::ground::stored::at_default")]
    pub mid_turn: bool,
    /// Last tool call, response or turn boundary.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_activity_at: Option<Timestamp>,
    /// Number of tool calls.
    #[serde(default, skip_serializing_if = "crate::ground::stored::at_default")]
    pub tool_call_count: u64,
    /// The last tool call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_tool_call: Option<ToolCallRef>,
    /// Latest response, tool announcements removed (rules G16, R2); `None` if it had only those.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_response: Option<String>,
    /// When the latest response came.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_response_at: Option<Timestamp>,
    /// Completed turns.
    #[serde(default, skip_serializing_if = "crate::ground::stored::at_default")]
    pub turns_ended: u64,
    /// Notices waiting to be attached to the next tool result (rule M3).
    #[serde(default, skip_serializing_if = "crate::ground::stored::at_default")]
    pub notices: Vec<String>,
    /// Token usage rolled up from this thread's legs (A3).
    #[serde(default, skip_serializing_if = "crate::ground::stored::at_default")]
    pub leg_usage: crate::handoff::usage::Usage,
}

impl crate::ground::stored::Omitted for Activity {
    const OMITTED: &'static [&'static str] = &["mid_turn", "tool_call_count", "turns_ended", "notices", "leg_usage"];
}

crate::ground::delta::delta! {
    /// An activity report's delta: usually a counter and a time (log format v2).
    ActivityDelta for Activity {
        key: [],
        mid_turn: bool,
        last_activity_at: Option<Timestamp>,
        tool_call_count: u64,
        last_tool_call: Option<ToolCallRef>,
        last_response: Option<String>,
        last_response_at: Option<Timestamp>,
        turns_ended: u64,
        notices: Vec<String>,
        leg_usage: crate::handoff::usage::Usage,
    }
}

/// A conversation owned by one bot. A handoff spawns a child thread.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(transform = crate::ground::stored::required_again::<Thread>))]
pub struct Thread {
    /// Thread id.
    pub thread_id: crate::ground::ids::ThreadId,
    /// Owning bot.
    pub bot_id: crate::ground::ids::BotId,
    /// Creation order.
    pub seq: u64,
    /// Created at.
    pub created_at: Timestamp,
    /// Recorded owner identity (rule M6).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner: Option<Owner>,
    /// Title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Visibility (rule G4).
    #[serde(default, skip_serializing_if = "crate::ground::stored::at_default")]
    pub visibility: Visibility,
    /// Shown in the sidebar by default (rule G5).
    #[serde(default = "crate::ground::stored::yes", skip_serializing_if = "crate::ground::stored::at_true")]
    pub show_in_thread_list: bool,
    /// Structured context handed in (rule G6).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_data: Option<Map<String, Value>>,
    /// Parent thread, for a spawned thread.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_thread_id: Option<crate::ground::ids::ThreadId>,
    /// The handoff that spawned it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handoff_id: Option<crate::ground::ids::HandoffId>,
    /// `blueprint_chain` for a blueprint child (rule B3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handoff_reason: Option<String>,
    /// Non-empty: the narrowing list of rule G13.
    #[serde(default, skip_serializing_if = "crate::ground::stored::at_default")]
    pub allowed_tools: Vec<String>,
    /// A plain notify child keeps `mailbox_action` despite `allowed_tools` (rule G13).
    #[serde(default = "crate::ground::stored::yes", skip_serializing_if = "crate::ground::stored::at_true")]
    pub keep_mailbox_action: bool,
    /// Groups activated on this thread (`project_manager_tools` for blueprints, rule B7).
    #[serde(default, skip_serializing_if = "crate::ground::stored::at_default")]
    pub activated_groups: Vec<String>,
    /// Parent context included (rule G11).
    #[serde(default, skip_serializing_if = "crate::ground::stored::at_default")]
    pub include_parent_context: bool,
    /// Runs in the caller's turn (`thread_mode=inline`, rule G3).
    #[serde(default, skip_serializing_if = "crate::ground::stored::at_default")]
    pub inline: bool,
    /// Blueprint run, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blueprint: Option<BlueprintRun>,
    /// Journey inherited along a chain (rule B3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub journey: Option<JourneyContext>,
    /// Child mission created for a blueprint handoff (rule B3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mission_id: Option<crate::ground::ids::MissionId>,
    /// Durable `blueprint_inputs` (rule B1).
    #[serde(default, skip_serializing_if = "crate::ground::stored::at_default")]
    pub blueprint_inputs: Map<String, Value>,
    /// Stored blueprint outputs (rule B2).
    #[serde(default, skip_serializing_if = "crate::ground::stored::at_default")]
    pub blueprint_outputs: Map<String, Value>,
    /// The host can read this thread's state; if not, rule G13 falls back to the agent's set.
    #[serde(default = "crate::ground::stored::yes", skip_serializing_if = "crate::ground::stored::at_true")]
    pub readable: bool,
    /// The host reported the thread gone (rule S6).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deleted_at: Option<Timestamp>,
    /// While a sibling session holds control, the originator thread is bypassed (X5).
    #[serde(default)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bypassed_by: Option<crate::ground::ids::SessionId>,
    /// The sibling session this thread is the receiving side of (X1).
    #[serde(default)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sibling_session: Option<crate::ground::ids::SessionId>,
    /// The task (run) this thread is working on; checklists are kept per task (A7).
    #[serde(default)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// The user talks to this thread in an interactive terminal: `ask_user` asks inline (A8).
    #[serde(default, skip_serializing_if = "crate::ground::stored::at_default")]
    pub interactive: bool,
    /// A leg's thread: the leg it runs (A1).
    #[serde(default)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leg_id: Option<crate::ground::ids::LegId>,
    /// Tools this thread never gets (a leg's excluded set, A4); `prefix*` patterns allowed.
    #[serde(default, skip_serializing_if = "crate::ground::stored::at_default")]
    pub excluded_tools: Vec<String>,
}

impl crate::ground::stored::Omitted for Thread {
    const OMITTED: &'static [&'static str] = &[
        "visibility",
        "show_in_thread_list",
        "allowed_tools",
        "keep_mailbox_action",
        "activated_groups",
        "include_parent_context",
        "inline",
        "blueprint_inputs",
        "blueprint_outputs",
        "readable",
        "interactive",
        "excluded_tools",
    ];
}

crate::ground::delta::delta! {
    /// A thread's delta (log format v2): the thread is logged whole once, at creation.
    ThreadDelta for Thread {
        key: [thread_id],
        bot_id: crate::ground::ids::BotId,
        seq: u64,
        created_at: Timestamp,
        owner: Option<Owner>,
        title: Option<String>,
        visibility: Visibility,
        show_in_thread_list: bool,
        context_data: Option<Map<String, Value>>,
        parent_thread_id: Option<crate::ground::ids::ThreadId>,
        handoff_id: Option<crate::ground::ids::HandoffId>,
        handoff_reason: Option<String>,
        allowed_tools: Vec<String>,
        keep_mailbox_action: bool,
        activated_groups: Vec<String>,
        include_parent_context: bool,
        inline: bool,
        blueprint: Option<BlueprintRun>,
        journey: Option<JourneyContext>,
        mission_id: Option<crate::ground::ids::MissionId>,
        blueprint_inputs: Map<String, Value>,
        blueprint_outputs: Map<String, Value>,
        readable: bool,
        deleted_at: Option<Timestamp>,
        bypassed_by: Option<crate::ground::ids::SessionId>,
        sibling_session: Option<crate::ground::ids::SessionId>,
        task_id: Option<String>,
        interactive: bool,
        leg_id: Option<crate::ground::ids::LegId>,
        excluded_tools: Vec<String>,
    }
}

impl Thread {
    /// A visible, readable thread of `bot_id` with nothing else set; callers fill in the rest
    /// with struct update syntax, so a new field gets its default in one place.
    pub(crate) fn new(
        thread_id: crate::ground::ids::ThreadId,
        bot_id: crate::ground::ids::BotId,
        seq: u64,
        created_at: Timestamp,
    ) -> Thread {
        Thread {
            thread_id,
            bot_id,
            seq,
            created_at,
            owner: None,
            title: None,
            visibility: Visibility::Visible,
            show_in_thread_list: true,
            context_data: None,
            parent_thread_id: None,
            handoff_id: None,
            handoff_reason: None,
            allowed_tools: Vec::new(),
            keep_mailbox_action: false,
            activated_groups: Vec::new(),
            include_parent_context: false,
            inline: false,
            blueprint: None,
            journey: None,
            mission_id: None,
            blueprint_inputs: Map::new(),
            blueprint_outputs: Map::new(),
            readable: true,
            deleted_at: None,
            bypassed_by: None,
            sibling_session: None,
            task_id: None,
            interactive: false,
            leg_id: None,
            excluded_tools: Vec::new(),
        }
    }

    /// The coding-agent badge of rule B4, when a presenter-safe value is stored.
    pub fn coding_agent(&self) -> Option<&'static str> {
        let stored = self
            .blueprint_inputs
            .get("coding_agent")
            .or_else(|| self.context_data.as_ref().and_then(|c| c.get("coding_agent")))?;
        CODING_AGENTS.into_iter().find(|b| stored.as_str() == Some(*b))
    }
}

/// The coding agents a thread's badge may name (B4); any other stored value shows none.
pub(crate) const CODING_AGENTS: [&str; 3] = ["ginie", "cocoa", "claude_code"];

/// Lines the runtime adds to announce tool use, which never count as an answer (G16, R2).
/// A line is an announcement when, trimmed, it starts with `🧰`, or with `Using tool:` /
/// `🔧 Using tool:` / `⚙️ Running tool:`.
pub(crate) fn is_announcement(line: &str) -> bool {
    let l = line.trim_start();
    l.starts_with('🧰')
        || l.starts_with("Using tool:")
        || l.starts_with("🔧 Using tool:")
        || l.starts_with("⚙️ Running tool:")
        || l.starts_with("⚙ Running tool:")
}

/// The answer text of a response: announcement lines removed, outer blank lines trimmed.
/// `None` when nothing but announcements (or white space) remains (rule R2).
pub(crate) fn answer_text(response: &str) -> Option<String> {
    let kept: Vec<&str> = response.lines().filter(|l| !is_announcement(l)).collect();
    let text = kept.join("\n");
    let text = text.trim_matches(|c: char| c == '\n' || c == '\r');
    if text.trim().is_empty() {
        None
    } else {
        Some(text.to_string())
    }
}

// The sealing dictionary (ground::records): one sample thread in its JSON form (its child
// thread), as sealed: without its own id, which a read puts back from the key.
impl crate::ground::records::Sealable for Thread {
    const DICTIONARY: &'static [u8] = br#"{"thread_id":"","bot_id":"","seq":1,"created_at":1767600000000,"title":"","parent_thread_id":"chat_","handoff_id":"handoff_0000000000000000"}"#;
    const ID_FIELD: Option<&'static str> = Some("thread_id");

    /// A thread is written when it is made and seldom after (a title, a tool group, a
    /// blueprint's stage, its deletion), so always.
    fn at_rest(&self) -> bool {
        true
    }
}

// The sealing dictionary (ground::records): one sample activity in its JSON form (that thread's activity).
impl crate::ground::records::Sealable for Activity {
    const DICTIONARY: &'static [u8] = br#"{"last_activity_at":1767600000000,"tool_call_count":1,"last_tool_call":{"name":"","timestamp":1767600000000},"last_response":"","last_response_at":1767600000000,"turns_ended":1}"#;

    /// Between turns: the next write is the thread's next turn.
    fn at_rest(&self) -> bool {
        !self.mid_turn
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn g16_r2_announcements_are_removed() {
        assert_eq!(
            answer_text("🧰 Using tool: web_search\nTwo risks remain.\n  🧰 Using tool: x"),
            Some("Two risks remain.".into())
        );
        assert_eq!(answer_text("🧰 Using tool: a\n\n🔧 Using tool: b"), None);
        assert_eq!(answer_text("line one\n\nline two"), Some("line one\n\nline two".into()));
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn an_activity_delta_carries_moves_and_clears_through_json() {
        let old = Activity {
            last_response: Some("draft".into()),
            last_activity_at: Some(Timestamp(5)),
            tool_call_count: 2,
            ..Activity::default()
        };
        let new = Activity { last_response: None, tool_call_count: 3, ..old.clone() };
        let delta = ActivityDelta::between(&old, &new);
        assert_eq!(delta.moved(), ["tool_call_count", "last_response"]);
        let json = serde_json::to_string(&delta).unwrap();
        // Unchanged fields are absent; a cleared optional field is an explicit null.
        assert_eq!(json, r#"{"tool_call_count":3,"last_response":null}"#);
        let read: ActivityDelta = serde_json::from_str(&json).unwrap();
        assert_eq!(read, delta);
        let mut moved = old.clone();
        read.apply_to(&mut moved);
        assert_eq!(moved, new);
        assert!(ActivityDelta::between(&new, &new).is_empty());
    }
}
