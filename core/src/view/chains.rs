//! The delegation tree as rows, depth-first in creation order: a layered layout where depth is
//! the layer.
use super::names::display_str;
use crate::engine::state::State;
use crate::ground::time::Timestamp;
use crate::handoff::{Handoff, Status};
use compact_str::CompactString;
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
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChainRow {
    /// Root or handoff.
    pub kind: RowKind,
    /// Layer: 0 for roots, parent's depth + 1 for a handoff.
    pub depth: u16,
    /// Handoff id (handoff rows) or thread id (roots): the row's key.
    pub id: CompactString,
    /// The thread the row opens: the child thread of a handoff, the root thread itself.
    pub thread_id: Option<CompactString>,
    /// The row above it in the tree (a handoff id or a root thread id).
    pub parent: Option<CompactString>,
    /// Target agent (handoffs) or owning agent (roots), as registered.
    pub agent: CompactString,
    /// Who handed it (the parent thread's agent); empty for roots.
    pub from_agent: CompactString,
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
    let mut rows = Vec::with_capacity(handoffs.len() + roots.len());
    let mut stack: Vec<(&Handoff, u16, &str)> = Vec::new();
    for root in roots {
        let kids = by_parent[root].iter().filter(|h| kept(h));
        let children = kids.clone().count();
        if children == 0 {
            continue;
        }
        let thread = st.threads.get(root);
        let is_collapsed = collapsed.contains(root);
        rows.push(ChainRow {
            kind: RowKind::Root,
            depth: 0,
            id: text(root),
            thread_id: Some(text(root)),
            parent: None,
            agent: thread.map_or_else(CompactString::default, |t| text(display_str(st, &t.bot_id))),
            from_agent: CompactString::default(),
            label: thread.and_then(|t| t.title.clone()).unwrap_or_else(|| root.to_string()),
            status: None,
            age_ms: thread.map_or(0, |t| now.0.saturating_sub(t.created_at.0)),
            idle_ms: None,
            nudges: 0,
            tool_calls: st.activity.get(root).map_or(0, |a| a.tool_call_count),
            blueprint: None,
            chained: false,
            coding_agent: thread.and_then(|t| t.coding_agent()),
            children,
            collapsed: is_collapsed,
            matched: false,
        });
        if is_collapsed {
            continue;
        }
        // Depth-first with an explicit stack (chains may be deep).
        stack.extend(kids.rev().map(|h| (*h, 1, root)));
        while let Some((h, depth, parent)) = stack.pop() {
            let child = h.child_thread_id.as_deref();
            let kids = child.and_then(|c| by_parent.get(c)).map_or(&[][..], Vec::as_slice).iter().filter(|k| kept(k));
            let children = kids.clone().count();
            let thread = child.and_then(|c| st.threads.get(c));
            let activity = child.and_then(|c| st.activity.get(c));
            let is_collapsed = collapsed.contains(h.handoff_id.as_str());
            let last = activity.and_then(|a| a.last_activity_at).unwrap_or(h.created_at);
            rows.push(ChainRow {
                kind: RowKind::Handoff,
                depth,
                id: text(&h.handoff_id),
                thread_id: h.child_thread_id.as_deref().map(text),
                parent: Some(text(parent)),
                agent: text(display_str(st, &h.child_bot_id)),
                from_agent: text(display_str(st, &h.parent_bot_id)),
                label: h.spec.thread_title.clone().unwrap_or_else(|| h.spec.task.clone()),
                status: Some(h.status),
                age_ms: now.0.saturating_sub(h.created_at.0),
                idle_ms: (!h.status.is_terminal()).then(|| now.0.saturating_sub(last.0)),
                nudges: h.nudges_sent,
                tool_calls: activity.map_or(0, |a| a.tool_call_count),
                blueprint: h.spec.blueprint_name.clone(),
                chained: thread.is_some_and(|t| t.handoff_reason.as_deref() == Some("blueprint_chain")),
                coding_agent: thread.and_then(|t| t.coding_agent()),
                children,
                collapsed: is_collapsed,
                matched: filter.is_all() || filter.matches(h),
            });
            if !is_collapsed {
                stack.extend(kids.rev().map(|k| (*k, depth + 1, h.handoff_id.as_str())));
            }
        }
    }
    rows
}

/// A row's short text: held inline when it fits (ids and agent names do), so a row of a large
/// workspace allocates only for its label. One function, not one copy per field in wasm.
#[inline(never)]
fn text(s: &str) -> CompactString {
    CompactString::new(s)
}
