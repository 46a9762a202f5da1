//! The delegation tree as rows, depth-first in creation order: a layered layout where depth is
//! the layer.
use super::names::display_str;
use crate::engine::state::State;
use crate::ground::ids::{RowId, ThreadId};
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
    pub id: RowId,
    /// The thread the row opens: the child thread of a handoff, the root thread itself.
    pub thread_id: Option<ThreadId>,
    /// The row above it in the tree (a handoff id or a root thread id).
    pub parent: Option<RowId>,
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
    let by_parent = Children::of(&handoffs);
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
    // Each parent thread's record, by its number: looked up once, here, where the roots are
    // told apart, and not again to order the roots, for a root's row or for the handoff whose
    // child it is.
    let parent_threads: Vec<_> = by_parent.parents().map(|t| st.threads.get(t.as_str())).collect();
    // Roots: parent threads that are not a handoff's child, oldest first.
    let mut roots: Vec<_> = by_parent
        .parents()
        .zip(parent_threads.iter().copied())
        .filter(|(_, th)| {
            th.is_none_or(|th| {
                th.handoff_id.is_none() || !st.handoffs.contains_key(th.handoff_id.as_deref().unwrap_or(""))
            })
        })
        .collect();
    roots.sort_unstable_by_key(|&(t, th)| (th.map_or(u64::MAX, |th| th.seq), t));
    let mut rows = Vec::with_capacity(handoffs.len() + roots.len());
    let mut stack: Vec<(&Handoff, u16, RowId)> = Vec::new();
    for (root, thread) in roots {
        let kids = by_parent.get(root).unwrap_or_default().iter().filter(|h| kept(h));
        let children = kids.clone().count();
        if children == 0 {
            continue;
        }
        let is_collapsed = collapsed.contains(root.as_str());
        let id = RowId::from(root);
        rows.push(ChainRow {
            kind: RowKind::Root,
            depth: 0,
            id: id.clone(),
            thread_id: Some(root.clone()),
            parent: None,
            agent: thread.map_or_else(CompactString::default, |t| text(display_str(st, &t.bot_id))),
            from_agent: CompactString::default(),
            label: thread.and_then(|t| t.title.clone()).unwrap_or_else(|| root.to_string()),
            status: None,
            age_ms: thread.map_or(0, |t| now.0.saturating_sub(t.created_at.0)),
            idle_ms: None,
            nudges: 0,
            tool_calls: st.activity.get(root.as_str()).map_or(0, |a| a.tool_call_count),
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
        stack.extend(kids.rev().map(|h| (*h, 1, id.clone())));
        while let Some((h, depth, parent)) = stack.pop() {
            let child = h.child_thread_id.as_deref();
            let parent_of = child.and_then(|c| by_parent.number(c));
            let kids = parent_of.map_or(&[][..], |p| by_parent.run(p)).iter().filter(|k| kept(k));
            let children = kids.clone().count();
            let thread = match parent_of {
                Some(p) => parent_threads[p],
                None => child.and_then(|c| st.threads.get(c)),
            };
            let activity = child.and_then(|c| st.activity.get(c));
            let is_collapsed = collapsed.contains(h.handoff_id.as_str());
            let last = activity.and_then(|a| a.last_activity_at).unwrap_or(h.created_at);
            let id = RowId::from(&h.handoff_id);
            if !is_collapsed {
                stack.extend(kids.rev().map(|k| (*k, depth + 1, id.clone())));
            }
            rows.push(ChainRow {
                kind: RowKind::Handoff,
                depth,
                id,
                thread_id: h.child_thread_id.clone(),
                parent: Some(parent),
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
        }
    }
    rows
}

/// Each parent thread's handoffs, in creation order: one list of every handoff grouped by
/// parent, and each parent's run of it. A list per parent was an allocation per parent, and in
/// a chain of handoffs nearly every child thread is a parent.
struct Children<'a> {
    /// Parent thread → its number.
    number: FxHashMap<&'a str, u32>,
    /// The parent threads by number.
    parents: Vec<&'a ThreadId>,
    /// Where each parent's run starts in `list`, and (last) where the runs end.
    starts: Vec<u32>,
    list: Vec<&'a Handoff>,
}

impl<'a> Children<'a> {
    /// `handoffs` in creation order.
    fn of(handoffs: &[&'a Handoff]) -> Children<'a> {
        let mut number: FxHashMap<&'a str, u32> = FxHashMap::default();
        let mut parents = Vec::new();
        let mut counts: Vec<u32> = Vec::new();
        let of: Vec<u32> = handoffs
            .iter()
            .map(|h| {
                let p = *number.entry(h.parent_thread_id.as_str()).or_insert_with(|| {
                    parents.push(&h.parent_thread_id);
                    counts.push(0);
                    counts.len() as u32 - 1
                });
                counts[p as usize] += 1;
                p
            })
            .collect();
        let mut starts = Vec::with_capacity(counts.len() + 1);
        let mut at = 0;
        for c in counts {
            starts.push(at);
            at += c;
        }
        starts.push(at);
        // Each handoff at the next free place of its parent's run, in the order given.
        let mut next = starts.clone();
        let mut list = handoffs.to_vec();
        for (h, p) in handoffs.iter().zip(of) {
            list[next[p as usize] as usize] = h;
            next[p as usize] += 1;
        }
        Children { number, parents, starts, list }
    }

    /// The handoffs `thread` started, oldest first.
    fn get(&self, thread: &str) -> Option<&[&'a Handoff]> {
        Some(self.run(self.number(thread)?))
    }

    /// `thread`'s number, if it started a handoff.
    fn number(&self, thread: &str) -> Option<usize> {
        self.number.get(thread).map(|&p| p as usize)
    }

    /// The handoffs parent number `p` started, oldest first.
    fn run(&self, p: usize) -> &[&'a Handoff] {
        &self.list[self.starts[p] as usize..self.starts[p + 1] as usize]
    }

    /// Every thread that started a handoff.
    fn parents(&self) -> impl Iterator<Item = &'a ThreadId> + '_ {
        self.parents.iter().copied()
    }
}

/// A row's agent names: held inline when they fit (a registered name usually does), so a row
/// of a large workspace allocates only for its label (its ids are the state's, shared). One
/// function, not one copy per field in wasm.
#[inline(never)]
fn text(s: &str) -> CompactString {
    CompactString::new(s)
}
