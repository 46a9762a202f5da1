//! Agents (bots): identity, active flag, tool set and tool policy.
use serde::{Deserialize, Serialize};

/// The tool group a blueprint thread needs (rule B7).
pub const PROJECT_MANAGER_TOOLS: &str = "project_manager_tools";

/// The coordination tools (schedules, checklists, questions to the user).
pub(crate) const COORDINATION_TOOLS: &str = "coordination_tools";

/// The relay tools (receive side and hand-over to teammates).
pub(crate) const RELAY_TOOLS: &str = "relay_tools";

/// Members of a named tool group; `None` when `name` is a plain tool name.
pub(crate) fn group_members(name: &str) -> Option<&'static [&'static str]> {
    match name {
        PROJECT_MANAGER_TOOLS => Some(&[
            "handoff",
            "handoff_status",
            "handoff_send",
            "handoff_results",
            "handoff_cancel",
            "handoff_list",
            "get_handoff_inputs",
            "store_blueprint_outputs",
            "mailbox_action",
            "handoff_request",
            "_blueprint_tool",
        ]),
        COORDINATION_TOOLS => Some(&["subagents", "background_subagents", "schedules", "write_todo", "ask_user"]),
        // Activated on the receiving thread of a sibling handoff (X1).
        "handoff_release" => Some(&["handoff_release"]),
        RELAY_TOOLS => Some(&[
            "handoff_to_teammate",
            "check_inbox",
            "accept_handoff",
            "view_thread",
            "send_message",
            "complete_handoff",
            "cancel_handoff",
        ]),
        _ => None,
    }
}

/// Whether `list` names `tool`, directly or through a group.
pub(crate) fn names_tool(list: &[String], tool: &str) -> bool {
    list.iter().any(|n| n == tool || group_members(n).is_some_and(|m| m.contains(&tool)))
}

/// How an agent's tool set is filtered.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ToolPolicy {
    /// Every tool in the agent's set is usable.
    #[default]
    AllowAll,
    /// Only tools (or groups) named in `tool_access_list` are usable.
    Allowlist,
}

/// A bot that owns threads and can be the target of a handoff.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Agent {
    /// Stable id (`bot_id`).
    pub bot_id: String,
    /// Display name; `target_bot` may name it (rule G2).
    pub display_name: String,
    /// Deactivated agents receive no handoffs (rule G17).
    pub active: bool,
    /// Tool and group names the agent has.
    pub tools: Vec<String>,
    /// Allow-all or allowlist.
    pub tool_policy: ToolPolicy,
    /// For `allowlist`: tools and groups the agent may use (durably elevated by rule B7).
    pub tool_access_list: Vec<String>,
}

impl Agent {
    /// Whether the policy lets the agent use `tool` (ignoring whether it has it).
    pub fn policy_permits(&self, tool: &str) -> bool {
        match self.tool_policy {
            ToolPolicy::AllowAll => true,
            ToolPolicy::Allowlist => names_tool(&self.tool_access_list, tool),
        }
    }

    /// The agent's own effective tool set, as one predicate: has it, and policy permits it.
    pub fn permits(&self, tool: &str) -> bool {
        names_tool(&self.tools, tool) && self.policy_permits(tool)
    }

    /// Rule B7: an allowlist agent lacking `project_manager_tools` needs elevation.
    pub fn needs_pm_elevation(&self) -> bool {
        self.tool_policy == ToolPolicy::Allowlist && !self.tool_access_list.iter().any(|t| t == PROJECT_MANAGER_TOOLS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agent(policy: ToolPolicy, access: &[&str]) -> Agent {
        Agent {
            bot_id: "b".into(),
            display_name: "B".into(),
            active: true,
            tools: vec!["web_search".into(), PROJECT_MANAGER_TOOLS.into()],
            tool_policy: policy,
            tool_access_list: access.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn g13_agent_effective_set_follows_policy() {
        assert!(agent(ToolPolicy::AllowAll, &[]).permits("handoff"));
        assert!(!agent(ToolPolicy::Allowlist, &["web_search"]).permits("handoff"));
        assert!(agent(ToolPolicy::Allowlist, &[PROJECT_MANAGER_TOOLS]).permits("mailbox_action"));
        assert!(!agent(ToolPolicy::AllowAll, &[]).permits("shell"));
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn b7_allowlist_without_pm_tools_needs_elevation() {
        assert!(agent(ToolPolicy::Allowlist, &["web_search"]).needs_pm_elevation());
        assert!(!agent(ToolPolicy::AllowAll, &[]).needs_pm_elevation());
    }
}
