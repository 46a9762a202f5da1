//! Tool dispatch check (rule G13): may this thread call this tool? Refused calls do not run.
use crate::ground::error::{CallError, ErrorCode};
use crate::handoff::agent::{names_tool, Agent};
use crate::handoff::thread::Thread;
use serde_json::json;

/// Decides whether `thread` (owned by `agent`) may call `tool`.
///
/// The agent's own set is what it has, filtered by its policy; a blueprint thread adds the
/// groups activated on it. A non-empty `allowed_tools` narrows that set and never grants;
/// a plain notify child keeps `mailbox_action`. When the host cannot read the thread's state,
/// the agent's own set applies rather than blocking the child.
pub(crate) fn check(agent: &Agent, thread: &Thread, tool: &str) -> Result<(), CallError> {
    let refuse = |why: String| {
        Err(CallError::new(ErrorCode::ToolNotAllowed, format!("{tool}: {why}; the call did not run (rule G13)"))
            .rule("G13")
            .data(json!({"tool": tool, "thread_id": thread.thread_id})))
    };
    // X1: the release tool comes with the receiving side of a sibling session, whatever the
    // agent's policy (the caller checked that the session is active).
    if tool == "handoff_release" && thread.sibling_session.is_some() {
        return Ok(());
    }
    // A4: a leg never gets the excluded tools, whatever its agent has.
    if excluded(&thread.excluded_tools, tool) {
        return refuse("excluded for subagent legs".to_string());
    }
    if !thread.readable {
        return if agent.permits(tool) {
            Ok(())
        } else {
            refuse(format!("not in the tool set of bot '{}'", agent.bot_id))
        };
    }
    let has = names_tool(&agent.tools, tool) || names_tool(&thread.activated_groups, tool);
    if !has || !agent.policy_permits(tool) {
        return refuse(format!("not in the tool set of bot '{}'", agent.bot_id));
    }
    let kept = tool == "mailbox_action" && thread.keep_mailbox_action;
    if !thread.allowed_tools.is_empty() && !names_tool(&thread.allowed_tools, tool) && !kept {
        return refuse(format!("outside this thread's allowed_tools {:?}", thread.allowed_tools));
    }
    Ok(())
}

/// Whether `tool` is named by `list` (exactly, or by a `prefix*` pattern).
pub(crate) fn excluded(list: &[String], tool: &str) -> bool {
    list.iter().any(|p| match p.strip_suffix('*') {
        Some(prefix) => tool.starts_with(prefix),
        None => p == tool,
    })
}
