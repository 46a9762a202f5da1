//! The delegation chains as a layered graph: each tree of [`super::chain_rows`] laid out left
//! to right — a node's layer is its depth (the column), its slot the row it sits on. Leaves
//! take consecutive slots in depth-first order; a parent sits midway between its first and
//! last child, so edges never cross; trees are one slot apart. Linear in the rows.
use super::chains::{ChainRow, RowKind};
use super::palette::Category;
use crate::handoff::live::STALL_AFTER_MS;
use rustc_hash::FxHashMap;

/// One placed node: a root thread or a handoff, the row of the same index in the rows laid out
/// (which it draws: kind, labels, status, badges, counts).
#[derive(Clone, Debug, PartialEq)]
pub struct GraphNode {
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
    /// Nodes, in the rows' order (depth-first): node `i` places row `i`.
    pub nodes: Vec<GraphNode>,
    /// Edges, one per non-root node.
    pub edges: Vec<GraphEdge>,
    /// Columns used.
    pub layers: u16,
    /// Slots used (the layout's height).
    pub slots: f64,
    /// Node indices by slot, for what a viewport shows without walking every node.
    by_slot: Vec<u32>,
    /// Edge indices by their lower end's slot.
    edges_by_low: Vec<u32>,
    /// The highest slot an edge reaches, for each block of [`EDGE_BLOCK`] in `edges_by_low`.
    block_high: Vec<f64>,
}

/// A run of a minimap's pixel rows in one layer, in one category's colour
/// ([`GraphLayout::minimap`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MapRun {
    /// The layer (column).
    pub layer: u16,
    /// The first pixel row.
    pub from: u32,
    /// The pixel row after the last.
    pub to: u32,
    /// The colour: the category of the last node drawn over these rows.
    pub category: Category,
}

/// Edges per block of the edge index.
const EDGE_BLOCK: usize = 64;

impl GraphLayout {
    /// The nodes whose slot lies in `[from, to]` (what a viewport shows), with their indices,
    /// in index order.
    pub fn visible(&self, from: f64, to: f64) -> impl Iterator<Item = (usize, &GraphNode)> {
        let slot = |i: &u32| self.nodes[*i as usize].slot;
        let lo = self.by_slot.partition_point(|i| slot(i) < from);
        let hi = lo + self.by_slot[lo..].partition_point(|i| slot(i) <= to);
        in_order(self.by_slot[lo..hi].iter().copied()).map(|i| (i, &self.nodes[i]))
    }

    /// The layout shrunk onto a minimap `height` pixel rows tall, where the node at `slot`
    /// covers the pixel rows from `top(slot)` for `tall` rows (at least one) and takes the
    /// colour of its row's category (`rows` as laid out): for each layer, the runs of pixel rows
    /// that drawing every node in order would leave in one colour. At most `layers × height`
    /// runs however many nodes there are, so a minimap of a million nodes is a few hundred
    /// rectangles.
    pub fn minimap(&self, rows: &[ChainRow], height: u32, top: impl Fn(f64) -> f64, tall: f64) -> Vec<MapRun> {
        let h = height as usize;
        let mut cells: Vec<Option<Category>> = vec![None; usize::from(self.layers) * h];
        for (n, r) in self.nodes.iter().zip(rows) {
            let y = top(n.slot);
            // Saturating casts: a node above or below the map covers none of its rows.
            let (a, b) = ((y.floor().max(0.0) as usize).min(h), ((y + tall.max(1.0)).ceil().max(0.0) as usize).min(h));
            let at = usize::from(n.layer) * h;
            if let Some(cells) = cells.get_mut(at + a..at + b) {
                cells.fill(Some(Category::of(r.status)));
            }
        }
        let mut runs: Vec<MapRun> = Vec::new();
        for (i, c) in cells.iter().enumerate() {
            let Some(category) = *c else { continue };
            let (layer, y) = ((i / h) as u16, (i % h) as u32);
            match runs.last_mut() {
                Some(r) if r.layer == layer && r.to == y && r.category == category => r.to = y + 1,
                _ => runs.push(MapRun { layer, from: y, to: y + 1, category }),
            }
        }
        runs
    }

    /// The edges that pass through the slots `[from, to]` (one end in them, or one on either
    /// side), in index order.
    pub fn edges_between(&self, from: f64, to: f64) -> Vec<usize> {
        let span = |e: u32| {
            let e = &self.edges[e as usize];
            let (a, b) = (self.nodes[e.from].slot, self.nodes[e.to].slot);
            (a.min(b), a.max(b))
        };
        // Edges whose lower end is past `to` cannot pass; of the others, whole blocks that end
        // before `from` are passed over.
        let end = self.edges_by_low.partition_point(|&e| span(e).0 <= to);
        let passing = self.edges_by_low[..end]
            .chunks(EDGE_BLOCK)
            .zip(&self.block_high)
            .filter(|(_, high)| **high >= from)
            .flat_map(|(edges, _)| edges.iter().copied().filter(|&e| span(e).1 >= from));
        in_order(passing).collect()
    }
}

/// `indices` in increasing order (sorted as pairs, the one sort of pairs this module and the
/// swimlanes share).
fn in_order(indices: impl Iterator<Item = u32>) -> impl Iterator<Item = usize> {
    let mut keyed: Vec<(u64, u32)> = indices.map(|i| (u64::from(i), 0)).collect();
    keyed.sort_unstable();
    keyed.into_iter().map(|(i, _)| i as usize)
}

/// The positions of `values` (slots: finite and not negative) in their order, the lower
/// position first on a tie; sorted as `(bits, position)` pairs, one sort of pairs with the
/// swimlanes' (a non-negative `f64`'s bits order as its value does).
fn sorted(values: impl Iterator<Item = f64>) -> Vec<u32> {
    let mut keyed: Vec<(u64, u32)> =
        values.enumerate().map(|(i, v)| ((v.max(0.0) + 0.0).to_bits(), i as u32)).collect();
    keyed.sort_unstable();
    keyed.into_iter().map(|(_, i)| i).collect()
}

/// Each row's parent, by index: in depth-first order it is the last row before it one layer up,
/// which is checked against the row's `parent` id; rows that are not so ordered are looked up
/// by id.
fn parents(rows: &[ChainRow]) -> Vec<Option<usize>> {
    let mut last: Vec<usize> = Vec::new();
    let mut index: Option<FxHashMap<&str, usize>> = None;
    let mut out = Vec::with_capacity(rows.len());
    for (i, r) in rows.iter().enumerate() {
        let depth = usize::from(r.depth);
        let parent = r.parent.as_deref().and_then(|p| {
            let above = depth.checked_sub(1).and_then(|d| last.get(d).copied());
            above.filter(|&a| rows.get(a).is_some_and(|q| q.id == p)).or_else(|| {
                let index =
                    index.get_or_insert_with(|| rows.iter().enumerate().map(|(i, r)| (r.id.as_str(), i)).collect());
                index.get(p).copied()
            })
        });
        out.push(parent);
        last.truncate(depth);
        last.resize(depth, usize::MAX);
        last.push(i);
    }
    out
}

/// Lays out `rows` (as [`super::chain_rows`] gives them: depth-first, each row's `parent` an
/// earlier row). Collapsed rows are leaves.
pub fn graph_layout(rows: &[ChainRow]) -> GraphLayout {
    let parent = parents(rows);
    // Each node's first and last child (children come in row order).
    let mut kids: Vec<Option<(usize, usize)>> = vec![None; rows.len()];
    for (i, p) in parent.iter().enumerate() {
        if let Some(p) = *p {
            let k = &mut kids[p];
            *k = Some((k.map_or(i, |(first, _)| first), i));
        }
    }
    // Leaves in depth-first order take the next slot; a new tree starts one slot further.
    let mut slot = vec![0.0f64; rows.len()];
    let mut next = 0.0f64;
    for (i, r) in rows.iter().enumerate() {
        if r.kind == RowKind::Root && i > 0 {
            next += 1.0;
        }
        if kids[i].is_none() {
            slot[i] = next;
            next += 1.0;
        }
    }
    // Parents after their children (reverse depth-first order): midway between first and last.
    for i in (0..rows.len()).rev() {
        if let Some((first, last)) = kids[i] {
            slot[i] = (slot[first] + slot[last]) / 2.0;
        }
    }
    let edges: Vec<GraphEdge> = parent
        .iter()
        .enumerate()
        .filter_map(|(i, p)| p.map(|from| GraphEdge { from, to: i, chained: rows[i].chained }))
        .collect();
    let by_slot = sorted(slot.iter().copied());
    let span = |e: &GraphEdge| (slot[e.from].min(slot[e.to]), slot[e.from].max(slot[e.to]));
    let edges_by_low = sorted(edges.iter().map(|e| span(e).0));
    let block_high = edges_by_low
        .chunks(EDGE_BLOCK)
        .map(|block| block.iter().map(|&e| span(&edges[e as usize]).1).fold(f64::NEG_INFINITY, f64::max))
        .collect();
    let layers = rows.iter().map(|r| r.depth + 1).max().unwrap_or(0);
    let nodes = rows
        .iter()
        .zip(slot)
        .map(|(row, slot)| GraphNode {
            layer: row.depth,
            slot,
            stalled: row.idle_ms.is_some_and(|ms| ms >= STALL_AFTER_MS),
        })
        .collect();
    GraphLayout { nodes, edges, layers, slots: next, by_slot, edges_by_low, block_high }
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

    fn layout(collapsed: &[&str]) -> (GraphLayout, Vec<ChainRow>) {
        let run = scenario::run(SCRIPT);
        let now = run.engine.last_at().plus(45 * 60_000);
        let collapsed: BTreeSet<String> = collapsed.iter().map(|s| s.to_string()).collect();
        let rows = chain_rows(run.engine.state(), now, &ChainFilter::default(), &collapsed);
        (graph_layout(&rows), rows)
    }

    fn placed((g, rows): &(GraphLayout, Vec<ChainRow>)) -> Vec<(String, u16, f64)> {
        g.nodes.iter().zip(rows).map(|(n, r)| (r.label.clone(), n.layer, n.slot)).collect()
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn leaves_take_slots_in_order_and_parents_sit_between_their_children() {
        let laid = layout(&[]);
        let g = &laid.0;
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
        assert_eq!(placed(&laid), want);
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
        // The minimap, two pixel rows a slot and a node two tall (a node between slots covers
        // three): nodes of one colour that touch make one run, as the two checks do.
        let (root, live) = (Category::Root, Category::of(laid.1[1].status));
        assert!(laid.1.iter().filter(|r| r.kind == RowKind::Handoff).all(|r| Category::of(r.status) == live));
        let want =
            [(0, 2, 5, root), (0, 8, 10, root), (1, 1, 3, live), (1, 4, 6, live), (1, 8, 10, live), (2, 0, 4, live)];
        let want: Vec<MapRun> =
            want.iter().map(|&(layer, from, to, category)| MapRun { layer, from, to, category }).collect();
        assert_eq!(g.minimap(&laid.1, 10, |slot| slot * 2.0, 2.0), want);
        // Rows past the map's foot are left out; a map of one row keeps one run per layer.
        assert_eq!(g.minimap(&laid.1, 3, |slot| slot * 2.0, 2.0).iter().map(|r| r.to).max(), Some(3));
        assert_eq!(g.minimap(&laid.1, 1, |slot| slot * 0.1, 0.1).len(), 3);
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn a_collapsed_node_is_a_leaf() {
        let run = scenario::run(SCRIPT);
        let review =
            run.engine.state().handoffs.values().find(|h| h.spec.task == "Review").unwrap().handoff_id.to_string();
        let laid = layout(&[review.as_str()]);
        let want: Vec<(String, u16, f64)> =
            [("Q4", 0, 0.5), ("Review", 1, 0.0), ("Draft", 1, 1.0), ("Ops", 0, 3.0), ("Audit", 1, 3.0)]
                .iter()
                .map(|(l, d, s)| (l.to_string(), *d, *s))
                .collect();
        assert_eq!(placed(&laid), want);
        assert!(laid.1[1].collapsed && laid.1[1].children == 2);
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn nothing_lays_out_to_nothing() {
        assert_eq!(graph_layout(&[]), GraphLayout::default());
    }

    /// Several trees of many handoffs, some nested two deep: the nodes and the
    /// edges the indexes give for a span of slots are what a walk over all of them gives.
    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn a_span_of_slots_shows_what_a_walk_over_every_node_and_edge_shows() {
        use crate::ground::time::Timestamp;
        use crate::surface::HandoffArgs;
        use crate::{Caller, Engine, MemoryStorage, SeededIds};
        let mut e = Engine::open(MemoryStorage::new(), Box::new(SeededIds::new(3))).unwrap();
        let t0 = Timestamp(1_767_600_000_000);
        e.host("register_agent", serde_json::json!({"bot_id": "lead"}), t0).unwrap();
        for b in ["adam", "eve"] {
            e.host("register_agent", serde_json::json!({"bot_id": b, "tools": ["handoff"]}), t0).unwrap();
        }
        for p in 0..4 {
            e.host("open_thread", serde_json::json!({"thread_id": format!("chat_{p}"), "bot_id": "lead"}), t0).unwrap();
        }
        let mut last: Vec<(String, String)> = (0..4).map(|p| (format!("chat_{p}"), "lead".to_string())).collect();
        for i in 0..400u64 {
            let p = (i % 4) as usize;
            let (thread, bot) = if i % 3 == 2 { last[p].clone() } else { (format!("chat_{p}"), "lead".into()) };
            let target = if i % 2 == 0 { "adam" } else { "eve" };
            let args = HandoffArgs {
                task: format!("Task {i}"),
                target_bot: Some(target.into()),
                async_mode: Some(true),
                ..HandoffArgs::default()
            };
            let r = e.handoff(&Caller::new(&thread, &bot), args, t0.plus(i * 1000)).unwrap();
            if let Some(t) = r.thread_id {
                last[p] = (t.to_string(), target.to_string());
            }
        }
        let rows = chain_rows(e.state(), t0.plus(500_000), &ChainFilter::default(), &BTreeSet::new());
        // Parents found by depth are the ones their ids name; a row whose parent is not the last
        // row one layer up is looked up by id.
        let by_id = |rows: &[ChainRow]| -> Vec<Option<usize>> {
            rows.iter().map(|r| r.parent.as_ref().and_then(|p| rows.iter().position(|q| q.id == *p))).collect()
        };
        assert_eq!(parents(&rows), by_id(&rows));
        let mut moved = rows.clone();
        let late = moved.iter().rposition(|r| r.depth == 2).unwrap();
        let other = moved.iter().position(|r| r.depth == 1 && Some(&r.id) != moved[late].parent.as_ref()).unwrap();
        moved[late].parent = Some(moved[other].id.clone());
        assert_eq!(parents(&moved), by_id(&moved));
        assert_ne!(parents(&moved), parents(&rows));
        // Two rows layers below the row above them (as rows read from damaged bytes may be)
        // are looked up by id too, never by a layer no row filled.
        let mut deep = rows.clone();
        let i = deep.iter().position(|r| r.parent.is_some()).unwrap();
        assert!(deep[i + 1].parent.is_some());
        deep[i].depth = 5;
        deep[i + 1].depth = 5;
        assert_eq!(parents(&deep), by_id(&deep));
        let g = graph_layout(&rows);
        // A minimap of 160 rows: a few runs a layer, and every node's first row in one.
        let scale = 160.0 / g.slots;
        let map = g.minimap(&rows, 160, |slot| slot * scale, scale);
        assert!(map.len() <= usize::from(g.layers) * 160 && map.len() < g.nodes.len() / 4, "{} runs", map.len());
        for n in &g.nodes {
            let y = (n.slot * scale).floor() as u32;
            assert!(map.iter().any(|r| r.layer == n.layer && (r.from..r.to).contains(&y)), "{n:?}");
        }
        assert!(g.nodes.len() > 400 && g.nodes.iter().any(|n| n.layer >= 2), "{} nodes", g.nodes.len());
        for (from, to) in [(-5.0, 3.0), (0.0, 1e9), (40.5, 52.0), (100.0, 100.0), (200.0, 230.0), (1e6, 2e6)] {
            let walk: Vec<usize> = (0..g.nodes.len()).filter(|&i| (from..=to).contains(&g.nodes[i].slot)).collect();
            assert_eq!(g.visible(from, to).map(|(i, _)| i).collect::<Vec<_>>(), walk, "{from}..{to}");
            let walk: Vec<usize> = (0..g.edges.len())
                .filter(|&i| {
                    let (a, b) = (g.nodes[g.edges[i].from].slot, g.nodes[g.edges[i].to].slot);
                    a.max(b) >= from && a.min(b) <= to
                })
                .collect();
            assert_eq!(g.edges_between(from, to), walk, "{from}..{to}");
        }
    }
}
