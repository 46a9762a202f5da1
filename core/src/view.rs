//! Read models for a console: the delegation tree laid out as rows, and the log as a timeline.
//! Pure functions of the state (or of one record) and `now`; they decide no rule — statuses,
//! ages and counts are the stored ones. Tool answers a console shows (`handoff_status`,
//! `check_inbox`, …) come from [`crate::Engine::preview`], never from here.
use crate::engine::log::{Change, LogRecord};
use crate::engine::state::State;
use crate::engine::time::Timestamp;
use crate::handoff::{Handoff, Status};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::BTreeSet;

/// What a row of the chains view stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RowKind {
    /// A thread that started handoffs and was not itself handed one (a tree's root).
    Root,
    /// A handoff (its child thread's work).
    Handoff,
}

/// One row of the delegation tree, in display order (a layered layout: depth is the layer).
#[derive(Clone, Debug, PartialEq)]
pub struct ChainRow {
    /// Root or handoff.
    pub kind: RowKind,
    /// Layer: 0 for roots, parent's depth + 1 for a handoff.
    pub depth: u16,
    /// Handoff id (handoff rows) or thread id (roots): the row's key.
    pub id: String,
    /// The thread the row opens: the child thread of a handoff, the root thread itself.
    pub thread_id: Option<String>,
    /// The row above it in the tree (a handoff id or a root thread id).
    pub parent: Option<String>,
    /// Target agent (handoffs) or owning agent (roots), as registered.
    pub agent: String,
    /// Who handed it (the parent thread's agent); empty for roots.
    pub from_agent: String,
    /// Thread title, or the task.
    pub label: String,
    /// Stored status (handoffs).
    pub status: Option<Status>,
    /// Since creation, in ms.
    pub age_ms: u64,
    /// Since the child's last activity (or its creation), in ms; `None` once terminal.
    pub idle_ms: Option<u64>,
    /// Reminders sent (S7).
    pub nudges: u32,
    /// Tool calls the host reported on the child thread.
    pub tool_calls: u64,
    /// Blueprint name (a blueprint handoff).
    pub blueprint: Option<String>,
    /// Part of a blueprint chain (`handoff_reason` = `blueprint_chain`, B3).
    pub chained: bool,
    /// Coding-agent badge (B4).
    pub coding_agent: Option<&'static str>,
    /// Rows below it, shown or collapsed.
    pub children: usize,
    /// Its children are hidden.
    pub collapsed: bool,
    /// It matches the filter (unmatched rows are shown only as ancestors of matching ones).
    pub matched: bool,
}

/// Which handoffs the chains view shows. Empty `statuses` means every status.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChainFilter {
    /// Statuses to show.
    pub statuses: BTreeSet<Status>,
    /// Target agent to show (bot id).
    pub agent: Option<String>,
}

impl ChainFilter {
    fn is_all(&self) -> bool {
        self.statuses.is_empty() && self.agent.is_none()
    }

    fn matches(&self, h: &Handoff) -> bool {
        (self.statuses.is_empty() || self.statuses.contains(&h.status))
            && self.agent.as_ref().is_none_or(|a| *a == h.child_bot_id)
    }
}

/// A value's wire name (its serde form), for enums without an `as_str`.
fn wire<T: serde::Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        other => format!("{other:?}"),
    }
}

fn display(st: &State, bot: &str) -> String {
    st.agents.get(bot).map_or_else(|| bot.to_string(), |a| a.display_name.clone())
}

/// The delegation tree as rows: each root thread, then its handoffs depth-first in creation
/// order. Rows under a `collapsed` id are left out (the id's own row says how many). With a
/// filter, a row is kept when it or something below it matches. Linear in the handoffs.
pub fn chain_rows(st: &State, now: Timestamp, filter: &ChainFilter, collapsed: &BTreeSet<String>) -> Vec<ChainRow> {
    let mut handoffs: Vec<&Handoff> = st.handoffs.values().map(|h| &**h).collect();
    handoffs.sort_unstable_by_key(|h| h.seq);
    // Children per parent thread, in creation order.
    let mut by_parent: FxHashMap<&str, Vec<&Handoff>> = FxHashMap::default();
    for h in &handoffs {
        by_parent.entry(h.parent_thread_id.as_str()).or_default().push(h);
    }
    // Which subtrees hold a match: a handoff is newer than the one whose child started it, so
    // one pass from newest to oldest sees every descendant before its ancestor.
    let mut keep: FxHashSet<&str> = FxHashSet::default();
    if !filter.is_all() {
        for h in handoffs.iter().rev() {
            let below = h
                .child_thread_id
                .as_deref()
                .and_then(|c| by_parent.get(c))
                .is_some_and(|kids| kids.iter().any(|k| keep.contains(k.handoff_id.as_str())));
            if below || filter.matches(h) {
                keep.insert(h.handoff_id.as_str());
            }
        }
    }
    let kept = |h: &Handoff| filter.is_all() || keep.contains(h.handoff_id.as_str());
    // Roots: parent threads that are not a handoff's child, oldest first.
    let mut roots: Vec<&str> = by_parent
        .keys()
        .copied()
        .filter(|t| {
            st.threads.get(*t).is_none_or(|th| {
                th.handoff_id.is_none() || !st.handoffs.contains_key(th.handoff_id.as_deref().unwrap_or(""))
            })
        })
        .collect();
    roots.sort_unstable_by_key(|t| (st.threads.get(*t).map_or(u64::MAX, |th| th.seq), *t));
    let mut rows = Vec::new();
    for root in roots {
        let kids: Vec<&Handoff> = by_parent[root].iter().copied().filter(|h| kept(h)).collect();
        if kids.is_empty() {
            continue;
        }
        let thread = st.threads.get(root);
        let is_collapsed = collapsed.contains(root);
        rows.push(ChainRow {
            kind: RowKind::Root,
            depth: 0,
            id: root.to_string(),
            thread_id: Some(root.to_string()),
            parent: None,
            agent: thread.map_or_else(String::new, |t| display(st, &t.bot_id)),
            from_agent: String::new(),
            label: thread.and_then(|t| t.title.clone()).unwrap_or_else(|| root.to_string()),
            status: None,
            age_ms: thread.map_or(0, |t| now.0.saturating_sub(t.created_at.0)),
            idle_ms: None,
            nudges: 0,
            tool_calls: st.activity.get(root).map_or(0, |a| a.tool_call_count),
            blueprint: None,
            chained: false,
            coding_agent: thread.and_then(|t| t.coding_agent()),
            children: kids.len(),
            collapsed: is_collapsed,
            matched: false,
        });
        if is_collapsed {
            continue;
        }
        // Depth-first with an explicit stack (chains may be deep).
        let mut stack: Vec<(&Handoff, u16, &str)> = kids.iter().rev().map(|h| (*h, 1, root)).collect();
        while let Some((h, depth, parent)) = stack.pop() {
            let child = h.child_thread_id.as_deref();
            let kids: Vec<&Handoff> = child
                .and_then(|c| by_parent.get(c))
                .map(|v| v.iter().copied().filter(|k| kept(k)).collect())
                .unwrap_or_default();
            let thread = child.and_then(|c| st.threads.get(c));
            let activity = child.and_then(|c| st.activity.get(c));
            let is_collapsed = collapsed.contains(h.handoff_id.as_str());
            let last = activity.and_then(|a| a.last_activity_at).unwrap_or(h.created_at);
            rows.push(ChainRow {
                kind: RowKind::Handoff,
                depth,
                id: h.handoff_id.to_string(),
                thread_id: h.child_thread_id.as_ref().map(ToString::to_string),
                parent: Some(parent.to_string()),
                agent: display(st, &h.child_bot_id),
                from_agent: display(st, &h.parent_bot_id),
                label: h.spec.thread_title.clone().unwrap_or_else(|| h.spec.task.clone()),
                status: Some(h.status),
                age_ms: now.0.saturating_sub(h.created_at.0),
                idle_ms: (!h.status.is_terminal()).then(|| now.0.saturating_sub(last.0)),
                nudges: h.nudges_sent,
                tool_calls: activity.map_or(0, |a| a.tool_call_count),
                blueprint: h.spec.blueprint_name.clone(),
                chained: thread.is_some_and(|t| t.handoff_reason.as_deref() == Some("blueprint_chain")),
                coding_agent: thread.and_then(|t| t.coding_agent()),
                children: kids.len(),
                collapsed: is_collapsed,
                matched: filter.is_all() || filter.matches(h),
            });
            if !is_collapsed {
                stack.extend(kids.iter().rev().map(|k| (*k, depth + 1, h.handoff_id.as_str())));
            }
        }
    }
    rows
}

/// One entry of the timeline: what one record changed, in words.
#[derive(Clone, Debug, PartialEq)]
pub struct TimelineEntry {
    /// Record number.
    pub seq: u64,
    /// When.
    pub at: Timestamp,
    /// The command (tool, host input or `tick`).
    pub command: String,
    /// One line per change worth telling (activity counters and bookkeeping left out).
    pub lines: Vec<String>,
    /// Ids the record touched (handoffs, threads, relay threads), for links.
    pub ids: Vec<String>,
}

/// Describes one record. Who and to whom come from the records themselves (a handoff names
/// both agents; mail names both threads). A delta (log format v2) names only what moved; the
/// parties and the task never move, so they are read from `state` — any later state will do.
pub fn timeline_entry(record: &LogRecord, state: &State) -> TimelineEntry {
    let mut lines = Vec::new();
    let mut ids = Vec::new();
    for change in &record.changes {
        match change {
            Change::Handoff(h) => {
                ids.push(h.handoff_id.to_string());
                lines.push(format!(
                    "handoff {} · {} → {} · {} · {}",
                    h.handoff_id,
                    h.parent_bot_id,
                    h.child_bot_id,
                    h.status.as_str(),
                    h.spec.thread_title.as_deref().unwrap_or(&h.spec.task)
                ));
            }
            Change::HandoffDelta { handoff_id, set } => {
                ids.push(handoff_id.to_string());
                let moved = match &set.status {
                    Some(s) => s.as_str().to_string(),
                    None => format!("moved: {}", set.moved().join(", ")),
                };
                lines.push(match state.handoffs.get(handoff_id) {
                    Some(h) => format!(
                        "handoff {handoff_id} · {} → {} · {moved} · {}",
                        h.parent_bot_id,
                        h.child_bot_id,
                        h.spec.thread_title.as_deref().unwrap_or(&h.spec.task)
                    ),
                    None => format!("handoff {handoff_id} · {moved}"),
                });
            }
            Change::ThreadDelta { thread_id, set } => {
                ids.push(thread_id.to_string());
                let what = if matches!(set.deleted_at, Some(Some(_))) { "deleted" } else { "saved" };
                let bot = state.threads.get(thread_id).map(|t| t.bot_id.as_str()).unwrap_or("?");
                lines.push(format!("thread {thread_id} ({bot}) {what}"));
            }
            Change::MessageDelta { message_id, set } => {
                let m = state.messages.get(message_id);
                let moved = match &set.state {
                    Some(s) => wire(s),
                    None => format!("moved: {}", set.moved().join(", ")),
                };
                lines.push(format!(
                    "mail {message_id} · {} → {} · {moved} · {}",
                    m.map_or("?", |m| m.from_bot_id.as_str()),
                    m.map_or("?", |m| m.to_bot_id.as_str()),
                    m.and_then(|m| m.subject.as_deref()).unwrap_or("(no subject)")
                ));
            }
            Change::Thread(t) => {
                ids.push(t.thread_id.to_string());
                let what = if t.deleted_at.is_some() { "deleted" } else { "saved" };
                lines.push(format!("thread {} ({}) {what}", t.thread_id, t.bot_id));
            }
            Change::Message(m) => lines.push(format!(
                "mail {} · {} → {} · {} · {}",
                m.message_id,
                m.from_bot_id,
                m.to_bot_id,
                wire(&m.state),
                m.subject.as_deref().unwrap_or("(no subject)")
            )),
            Change::RelayThread(r) => {
                ids.push(r.thread_id.to_string());
                lines.push(format!(
                    "relay {} · {} → {} · {} · {}",
                    r.thread_id,
                    r.sender,
                    r.recipient,
                    r.status.as_str(),
                    r.summary
                ));
            }
            Change::RelayMessage(m) => {
                lines.push(format!("relay message #{} on {} from {}", m.sequence_no, m.thread_id, m.from))
            }
            Change::Session(s) => lines.push(format!(
                "sibling session {} · {} ⇄ {} · {}",
                s.session_id,
                s.originator_bot,
                s.sibling_bot,
                s.status.as_str()
            )),
            Change::Agent(a) => lines.push(format!("agent {} ({})", a.bot_id, a.display_name)),
            Change::Teammate(t) => lines.push(format!("teammate {} ({})", t.handle, t.name)),
            Change::Blueprint(b) => lines.push(format!("blueprint {}", b.name)),
            Change::Leg(l) => lines.push(format!("leg {} · {}", l.leg_id, l.status.as_str())),
            Change::Schedule(s) => lines.push(format!("schedule {} · {}", s.schedule_id, wire(&s.status))),
            Change::Ask(a) => lines.push(format!("question {} · {}", a.question_id, wire(&a.status))),
            Change::Audit(a) => lines.push(format!("audit · {} {} on {}", a.actor, a.action, a.session_id)),
            _ => {}
        }
    }
    ids.dedup();
    TimelineEntry { seq: record.seq, at: record.at, command: record.command.clone(), lines, ids }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::script::scenario;

    const SCRIPT: &str = r#"{"at": "2026-11-30T09:00:00Z", "host": "register_agent", "args": {"bot_id": "lead", "display_name": "Lead"}}
{"at": "+0s", "host": "register_agent", "args": {"bot_id": "adam", "display_name": "Adam", "tools": ["web_search", "handoff"]}}
{"at": "+0s", "host": "register_agent", "args": {"bot_id": "eve", "display_name": "Eve"}}
{"at": "+0s", "host": "open_thread", "args": {"thread_id": "chat_main", "bot_id": "lead", "title": "Q4"}}
{"at": "+1m", "call": "handoff", "as": {"thread": "chat_main", "bot": "lead"}, "args": {"task": "Review", "target_bot": "adam", "async_mode": true}, "save": {"h1": "handoff_id", "c1": "thread_id"}}
{"at": "+1m", "call": "handoff", "as": {"thread": "chat_main", "bot": "lead"}, "args": {"task": "Draft", "target_bot": "eve", "async_mode": true}, "save": {"h2": "handoff_id"}}
{"at": "+1m", "call": "handoff", "as": {"thread": "$c1", "bot": "adam"}, "args": {"task": "Check sources", "target_bot": "eve", "async_mode": true}, "save": {"h3": "handoff_id"}}
{"at": "+1m", "call": "handoff_cancel", "as": {"thread": "chat_main", "bot": "lead"}, "args": {"handoff_id": "$h2"}}
{"at": "+1m", "host": "tool_call", "args": {"thread_id": "$c1", "tool": "web_search"}}
"#;

    fn state() -> (State, Timestamp) {
        let run = scenario::run(SCRIPT);
        let st = run.engine.state().clone();
        (st, run.engine.last_at().plus(60_000))
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn the_tree_is_laid_out_depth_first_in_creation_order_with_counts_and_ages() {
        let (st, now) = state();
        let rows = chain_rows(&st, now, &ChainFilter::default(), &BTreeSet::new());
        let shape: Vec<(u16, &str, &str)> =
            rows.iter().map(|r| (r.depth, r.agent.as_str(), r.label.as_str())).collect();
        assert_eq!(shape, [(0, "Lead", "Q4"), (1, "Adam", "Review"), (2, "Eve", "Check sources"), (1, "Eve", "Draft")]);
        assert_eq!(rows[0].children, 2);
        assert_eq!(rows[2].parent.as_deref(), Some(rows[1].id.as_str()));
        assert_eq!(rows[1].tool_calls, 1);
        assert_eq!(rows[1].age_ms, 5 * 60_000);
        assert_eq!(rows[1].idle_ms, Some(60_000), "idle since the tool call");
        assert_eq!(rows[3].status, Some(Status::Cancelled));
        assert_eq!(rows[3].idle_ms, None, "a terminal handoff is not idle");
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn collapsing_hides_the_rows_below_and_a_filter_keeps_ancestors_of_matches() {
        let (st, now) = state();
        let all = chain_rows(&st, now, &ChainFilter::default(), &BTreeSet::new());
        let collapsed = BTreeSet::from([all[1].id.clone()]);
        let rows = chain_rows(&st, now, &ChainFilter::default(), &collapsed);
        assert_eq!(rows.len(), 3);
        assert!(rows[1].collapsed && rows[1].children == 1);
        let cancelled = ChainFilter { statuses: BTreeSet::from([Status::Cancelled]), agent: None };
        let rows = chain_rows(&st, now, &cancelled, &BTreeSet::new());
        assert_eq!(rows.iter().map(|r| r.label.as_str()).collect::<Vec<_>>(), ["Q4", "Draft"]);
        let eve = ChainFilter { statuses: BTreeSet::new(), agent: Some("eve".into()) };
        let rows = chain_rows(&st, now, &eve, &BTreeSet::new());
        let kept: Vec<(&str, bool)> = rows.iter().map(|r| (r.label.as_str(), r.matched)).collect();
        assert_eq!(kept, [("Q4", false), ("Review", false), ("Check sources", true), ("Draft", true)]);
        let nobody = ChainFilter { statuses: BTreeSet::new(), agent: Some("zed".into()) };
        assert!(chain_rows(&st, now, &nobody, &BTreeSet::new()).is_empty());
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn a_timeline_entry_says_who_handed_what_to_whom() {
        let run = scenario::run(SCRIPT);
        let records = run.engine.storage().records();
        let st = run.engine.state();
        let e = timeline_entry(&records[4], st);
        assert_eq!(e.command, "handoff");
        assert!(e.lines.iter().any(|l| l.contains("lead → adam · started · Review")), "{:?}", e.lines);
        assert!(e.ids.iter().any(|i| i.starts_with("handoff_")));
        let cancel = timeline_entry(&records[7], st);
        // A delta (v2): the parties and the task come from the state, the status from the record.
        assert!(matches!(records[7].changes[0], Change::HandoffDelta { .. }), "{:?}", records[7].changes);
        assert!(cancel.lines.iter().any(|l| l.contains("lead → eve · cancelled · Draft")), "{:?}", cancel.lines);
    }
}
