//! The delegation chains as a layered graph: each tree of [`super::chain_rows`] laid out left
//! to right — a node's layer is its depth (the column), its slot the row it sits on. Leaves
//! take consecutive slots in depth-first order; a parent sits midway between its first and
//! last child, so edges never cross; trees are one slot apart. Linear in the rows.
use super::chains::{ChainRow, RowKind};
use crate::handoff::live::STALL_AFTER_MS;
use rustc_hash::FxHashMap;

/// One placed node: a root thread or a handoff.
#[derive(Clone, Debug, PartialEq)]
pub struct GraphNode {
    /// The row it draws (kind, labels, status, badges, counts).
    pub row: ChainRow,
    /// Column: the depth.
    pub layer: u16,
    /// Row of the layout, in slots (a parent may sit between two).
    pub slot: f64,
    /// A live child quiet long enough to be reminded (S7 threshold).
    pub stalled: bool,
}

/// A parent → child edge (indices into [`GraphLayout::nodes`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GraphEdge {
    /// Parent node.
    pub from: usize,
    /// Child node.
    pub to: usize,
    /// The child is the next stage of a blueprint chain (B3).
    pub chained: bool,
}

/// The laid-out graph.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GraphLayout {
    /// Nodes, in the rows' order (depth-first).
    pub nodes: Vec<GraphNode>,
    /// Edges, one per non-root node.
    pub edges: Vec<GraphEdge>,
    /// Columns used.
    pub layers: u16,
    /// Slots used (the layout's height).
    pub slots: f64,
}

impl GraphLayout {
    /// The nodes whose slot lies in `[from, to]` (what a viewport shows), with their indices.
    pub fn visible(&self, from: f64, to: f64) -> impl Iterator<Item = (usize, &GraphNode)> {
        self.nodes.iter().enumerate().filter(move |(_, n)| n.slot >= from && n.slot <= to)
    }
}

/// Lays out `rows` (as [`super::chain_rows`] gives them: depth-first, each row's `parent` an
/// earlier row). Collapsed rows are leaves.
pub fn graph_layout(rows: Vec<ChainRow>) -> GraphLayout {
    let index: FxHashMap<&str, usize> = rows.iter().enumerate().map(|(i, r)| (r.id.as_str(), i)).collect();
    let parent: Vec<Option<usize>> =
        rows.iter().map(|r| r.parent.as_deref().and_then(|p| index.get(p).copied())).collect();
    let mut kids: Vec<Vec<usize>> = vec![Vec::new(); rows.len()];
    for (i, p) in parent.iter().enumerate() {
        if let Some(p) = *p {
            kids[p].push(i);
        }
    }
    // Leaves in depth-first order take the next slot; a new tree starts one slot further.
    let mut slot = vec![0.0f64; rows.len()];
    let mut next = 0.0f64;
    for (i, r) in rows.iter().enumerate() {
        if r.kind == RowKind::Root && i > 0 {
            next += 1.0;
        }
        if kids[i].is_empty() {
            slot[i] = next;
            next += 1.0;
        }
    }
    // Parents after their children (reverse depth-first order): midway between first and last.
    for i in (0..rows.len()).rev() {
        if let (Some(first), Some(last)) = (kids[i].first(), kids[i].last()) {
            slot[i] = (slot[*first] + slot[*last]) / 2.0;
        }
    }
    let edges = parent
        .iter()
        .enumerate()
        .filter_map(|(i, p)| p.map(|from| GraphEdge { from, to: i, chained: rows[i].chained }))
        .collect();
    let layers = rows.iter().map(|r| r.depth + 1).max().unwrap_or(0);
    let nodes = rows
        .into_iter()
        .zip(slot)
        .map(|(row, slot)| GraphNode {
            layer: row.depth,
            slot,
            stalled: row.idle_ms.is_some_and(|ms| ms >= STALL_AFTER_MS),
            row,
        })
        .collect();
    GraphLayout { nodes, edges, layers, slots: next }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::script::scenario;
    use crate::view::{chain_rows, ChainFilter};
    use std::collections::BTreeSet;

    // Two trees: lead hands Review (adam, who hands two checks on) and Draft (eve); ops hands Audit.
    const SCRIPT: &str = r#"{"at": "2026-11-30T09:00:00Z", "host": "register_agent", "args": {"bot_id": "lead", "display_name": "Lead"}}
{"at": "+0s", "host": "register_agent", "args": {"bot_id": "adam", "display_name": "Adam", "tools": ["handoff"]}}
{"at": "+0s", "host": "register_agent", "args": {"bot_id": "eve", "display_name": "Eve"}}
{"at": "+0s", "host": "register_agent", "args": {"bot_id": "ops", "display_name": "Ops"}}
{"at": "+0s", "host": "open_thread", "args": {"thread_id": "chat_main", "bot_id": "lead", "title": "Q4"}}
{"at": "+0s", "host": "open_thread", "args": {"thread_id": "chat_ops", "bot_id": "ops", "title": "Ops"}}
{"at": "+1m", "call": "handoff", "as": {"thread": "chat_main", "bot": "lead"}, "args": {"task": "Review", "target_bot": "adam"}, "save": {"c1": "thread_id"}}
{"at": "+1m", "call": "handoff", "as": {"thread": "chat_main", "bot": "lead"}, "args": {"task": "Draft", "target_bot": "eve"}}
{"at": "+1m", "call": "handoff", "as": {"thread": "$c1", "bot": "adam"}, "args": {"task": "Check A", "target_bot": "eve"}}
{"at": "+1m", "call": "handoff", "as": {"thread": "$c1", "bot": "adam"}, "args": {"task": "Check B", "target_bot": "eve"}}
{"at": "+1m", "call": "handoff", "as": {"thread": "chat_ops", "bot": "ops"}, "args": {"task": "Audit", "target_bot": "eve"}}
"#;

    fn layout(collapsed: &[&str]) -> GraphLayout {
        let run = scenario::run(SCRIPT);
        let now = run.engine.last_at().plus(45 * 60_000);
        let collapsed: BTreeSet<String> = collapsed.iter().map(|s| s.to_string()).collect();
        graph_layout(chain_rows(run.engine.state(), now, &ChainFilter::default(), &collapsed))
    }

    fn placed(g: &GraphLayout) -> Vec<(String, u16, f64)> {
        g.nodes.iter().map(|n| (n.row.label.clone(), n.layer, n.slot)).collect()
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn leaves_take_slots_in_order_and_parents_sit_between_their_children() {
        let g = layout(&[]);
        let want = [
            ("Q4", 0, 1.25),
            ("Review", 1, 0.5),
            ("Check A", 2, 0.0),
            ("Check B", 2, 1.0),
            ("Draft", 1, 2.0),
            ("Ops", 0, 4.0),
            ("Audit", 1, 4.0),
        ];
        let want: Vec<(String, u16, f64)> = want.iter().map(|(l, d, s)| (l.to_string(), *d, *s)).collect();
        assert_eq!(placed(&g), want);
        assert_eq!((g.layers, g.slots), (3, 5.0));
        // Every node but the roots has one edge from the node above it.
        let edges: Vec<(usize, usize)> = g.edges.iter().map(|e| (e.from, e.to)).collect();
        assert_eq!(edges, [(0, 1), (1, 2), (1, 3), (0, 4), (5, 6)]);
        // Edges never cross: within a layer, slots follow the parents' order.
        for w in g.edges.windows(2) {
            let (a, b) = (&g.nodes[w[0].to], &g.nodes[w[1].to]);
            if a.layer == b.layer {
                assert!(g.nodes[w[0].from].slot <= g.nodes[w[1].from].slot);
            }
        }
        // Quiet 45 minutes and live: stalled, at a glance.
        assert!(g.nodes[1..5].iter().all(|n| n.stalled));
        // The viewport's nodes.
        assert_eq!(g.visible(3.5, 4.5).map(|(i, _)| i).collect::<Vec<_>>(), [5, 6]);
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn a_collapsed_node_is_a_leaf() {
        let run = scenario::run(SCRIPT);
        let review =
            run.engine.state().handoffs.values().find(|h| h.spec.task == "Review").unwrap().handoff_id.to_string();
        let g = layout(&[review.as_str()]);
        let want: Vec<(String, u16, f64)> =
            [("Q4", 0, 0.5), ("Review", 1, 0.0), ("Draft", 1, 1.0), ("Ops", 0, 3.0), ("Audit", 1, 3.0)]
                .iter()
                .map(|(l, d, s)| (l.to_string(), *d, *s))
                .collect();
        assert_eq!(placed(&g), want);
        assert!(g.nodes[1].row.collapsed && g.nodes[1].row.children == 2);
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn nothing_lays_out_to_nothing() {
        assert_eq!(graph_layout(Vec::new()), GraphLayout::default());
    }
}
