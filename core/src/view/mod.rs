//! Read models for a console: the delegation tree as rows (`chains`) and as a laid-out graph
//! (`graph`), the log as a timeline of records (`timeline`) and as swimlanes (`swimlane`).
//! Pure functions of the state (or of records) and `now`; they decide no rule — statuses,
//! ages and counts are the stored ones. Tool answers a console shows (`handoff_status`,
//! `check_inbox`, …) come from [`crate::Engine::preview`], never from here.
mod bytes;
mod chain_bytes;
mod chains;
mod decimal;
mod graph;
mod names;
mod next;
mod palette;
mod relay;
mod swimlane;
mod swimlane_bytes;
mod timeline;
mod viewport;
pub mod words;

pub use bytes::BadBytes;
pub use chain_bytes::{decode as decode_rows, encode as encode_rows, KeptRows};
pub use chains::{chain_rows, ChainFilter, ChainRow, RowKind};
pub use decimal::decimal;
pub use graph::{graph_layout, GraphEdge, GraphLayout, GraphNode, MapRun};
pub use names::display as agent_name;
pub use next::{handoff_next, NextEvent};
pub use palette::Category;
pub use relay::{relay_conversation, relay_preview, sender_card, PersonMessage, RelayConversation, SenderCard};
pub use swimlane::{
    place, swimlanes, Bar, BarKind, Lane, LaneKind, Link, Mark, MarkKind, Marks, PlacedMark, Swimlanes,
};
pub use swimlane_bytes::{decode as decode_lanes, encode as encode_lanes, KeptLanes};
pub use timeline::{timeline_entry, TimelineEntry};
pub use viewport::{
    fit, hit, lane_tops, record_at, record_time, tick_step, Hit, Viewport, AXIS, DENSE_ROW, GUTTER, LANE_PAD, ROW,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::log::Change;
    use crate::engine::state::State;
    use crate::ground::time::Timestamp;
    use crate::handoff::Status;
    use crate::script::scenario;
    use std::collections::BTreeSet;

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
        let collapsed = BTreeSet::from([all[1].id.to_string()]);
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

    /// A parent's handoffs made between other parents' handoffs still come out together, in
    /// creation order, under it; each row names its thread and the row above it, and a second
    /// tree's root comes after the first's.
    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn a_parents_handoffs_interleaved_with_others_stay_together_in_creation_order() {
        let run = scenario::run(
            r#"{"at": "2026-11-30T09:00:00Z", "host": "register_agent", "args": {"bot_id": "lead"}}
{"at": "+0s", "host": "register_agent", "args": {"bot_id": "adam", "tools": ["handoff"]}}
{"at": "+0s", "host": "open_thread", "args": {"thread_id": "chat_a", "bot_id": "lead", "title": "A"}}
{"at": "+0s", "host": "open_thread", "args": {"thread_id": "chat_b", "bot_id": "lead", "title": "B"}}
{"at": "+1m", "call": "handoff", "as": {"thread": "chat_a", "bot": "lead"}, "args": {"task": "a1", "target_bot": "adam", "async_mode": true}, "save": {"c1": "thread_id"}}
{"at": "+1m", "call": "handoff", "as": {"thread": "chat_b", "bot": "lead"}, "args": {"task": "b1", "target_bot": "adam", "async_mode": true}}
{"at": "+1m", "call": "handoff", "as": {"thread": "$c1", "bot": "adam"}, "args": {"task": "a1x", "target_bot": "adam", "async_mode": true}}
{"at": "+1m", "call": "handoff", "as": {"thread": "chat_a", "bot": "lead"}, "args": {"task": "a2", "target_bot": "adam", "async_mode": true}}
"#,
        );
        let st = run.engine.state();
        let rows = chain_rows(st, run.engine.last_at(), &ChainFilter::default(), &BTreeSet::new());
        let shape: Vec<(u16, &str, usize)> = rows.iter().map(|r| (r.depth, r.label.as_str(), r.children)).collect();
        assert_eq!(shape, [(0, "A", 2), (1, "a1", 1), (2, "a1x", 0), (1, "a2", 0), (0, "B", 1), (1, "b1", 0)]);
        assert_eq!(rows[0].thread_id.as_deref(), Some("chat_a"));
        assert_eq!(rows[0].id, "chat_a");
        for (row, above) in [(1, 0), (2, 1), (3, 0), (5, 4)] {
            assert_eq!(rows[row].parent.as_ref(), Some(&rows[above].id), "row {row}");
            let handoff = &st.handoffs.get(rows[row].id.as_str()).expect("a handoff row names its handoff");
            assert_eq!(rows[row].thread_id, handoff.child_thread_id);
        }
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn s7_s8_a_panel_reads_the_next_events_from_the_engines_own_deadlines() {
        let (st, now) = state();
        let rows = chain_rows(&st, now, &ChainFilter::default(), &BTreeSet::new());
        let quiet_since = now.0 - 60_000; // the tool call, a minute before `now`
        let next = handoff_next(&st, &rows[1].id);
        let events: Vec<(u64, NextEvent)> = next.iter().map(|(t, e)| (t.0 - quiet_since, *e)).collect();
        assert_eq!(events, [(30 * 60_000, NextEvent::Reminder), (7 * 24 * 3_600_000, NextEvent::Abandoned)]);
        assert!(handoff_next(&st, &rows[3].id).is_empty(), "a cancelled handoff has nothing next");
        assert!(handoff_next(&st, "handoff_none").is_empty());
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
