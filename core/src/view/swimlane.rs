//! The log as swimlanes: one lane per agent and per teammate; each handoff a bar on its target
//! agent's lane from creation to its end (open while it is live), linked to the handoff whose
//! child handed it; each relay thread a bar on its recipient teammate's lane; and marks for
//! what happened along the way — reminders, mail, reports, follow-ups, cancels — read from the
//! records ([`Marks`], folded one record at a time so a console keeps it as records arrive).
//! Bars that overlap in time stack on rows of their lane (in start order, the row that frees
//! earliest, if it is free by then).
use super::names::{display, wire};
use super::palette::Category;
use crate::engine::log::{Change, LogRecord};
use crate::engine::state::State;
use crate::ground::time::Timestamp;
use crate::handoff::Status;
use rustc_hash::FxHashMap;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Who a lane is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LaneKind {
    /// A registered agent.
    Agent,
    /// A teammate (relay threads).
    Teammate,
}

/// One lane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lane {
    /// Bot id, or teammate handle.
    pub key: String,
    /// Display name.
    pub label: String,
    /// Agent or teammate.
    pub kind: LaneKind,
    /// Rows its bars stack on (at least 1).
    pub rows: u32,
}

/// What a bar is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BarKind {
    /// A handoff (its child's work).
    Handoff,
    /// A relay thread to a teammate.
    Relay,
}

/// One bar.
#[derive(Clone, Debug, PartialEq)]
pub struct Bar {
    /// Handoff id or relay thread id.
    pub id: String,
    /// Handoff or relay thread.
    pub kind: BarKind,
    /// Lane index.
    pub lane: usize,
    /// Row within the lane.
    pub row: u32,
    /// Created.
    pub start: Timestamp,
    /// Ended; `None` while live (draw it to now).
    pub end: Option<Timestamp>,
    /// Stored status (wire name).
    pub status: String,
    /// What the status amounts to (the one palette every view draws).
    pub category: Category,
    /// The status is terminal.
    pub done: bool,
    /// Title or task (handoffs), summary (relay threads).
    pub label: String,
    /// Who handed it: the parent agent, or the relay's sender.
    pub from: String,
    /// The bar of the handoff whose child thread handed this one.
    pub parent: Option<usize>,
}

/// What a mark stands for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MarkKind {
    /// A reminder to a quiet child (S7).
    Nudge,
    /// Mail between threads, or a relay message.
    Message,
    /// A child's report to the thread that handed it the work (M2).
    Report,
    /// A follow-up to a live child (`handoff_send`).
    FollowUp,
    /// A cancel.
    Cancel,
}

impl MarkKind {
    /// Its name, for labels.
    pub fn as_str(self) -> &'static str {
        match self {
            MarkKind::Nudge => "reminder",
            MarkKind::Message => "message",
            MarkKind::Report => "report",
            MarkKind::FollowUp => "follow-up",
            MarkKind::Cancel => "cancel",
        }
    }
}

/// One mark, as read from a record: where it goes is decided when lanes are laid out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mark {
    /// What.
    pub kind: MarkKind,
    /// When.
    pub at: Timestamp,
    /// The record it comes from.
    pub seq: u64,
    /// The handoff (or relay thread) whose bar it sits on, if any.
    pub on: Option<String>,
    /// Otherwise the lane: the acting bot or teammate.
    pub who: String,
}

/// The marks of a log, kept up to date one record at a time.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Marks {
    /// In record order.
    pub items: Vec<Mark>,
}

impl Marks {
    /// Adds the marks `record` makes. Parties never move, so `st` may be any later state.
    pub fn absorb(&mut self, record: &LogRecord, st: &State) {
        let mark = |kind, on: Option<String>, who: String| Mark { kind, at: record.at, seq: record.seq, on, who };
        let child_of =
            |thread: &str| st.threads.get(thread).and_then(|t| t.handoff_id.as_ref().map(ToString::to_string));
        for change in &record.changes {
            match change {
                Change::HandoffDelta { handoff_id, set } => {
                    let who =
                        st.handoffs.get(handoff_id).map(|h| h.child_bot_id.as_str().to_owned()).unwrap_or_default();
                    let on = Some(handoff_id.to_string());
                    if set.nudges_sent.is_some() {
                        self.items.push(mark(MarkKind::Nudge, on.clone(), who.clone()));
                    }
                    if set.status == Some(Status::Cancelled) {
                        self.items.push(mark(MarkKind::Cancel, on.clone(), who.clone()));
                    }
                    if record.command == "handoff_send" && matches!(set.followup_pending_since, Some(Some(_))) {
                        self.items.push(mark(MarkKind::FollowUp, on, who));
                    }
                }
                Change::Message(m) if !m.system => {
                    let sender = child_of(m.from_thread_id.as_str());
                    let report = sender
                        .as_deref()
                        .and_then(|h| st.handoffs.get(h))
                        .is_some_and(|h| h.parent_thread_id == m.to_thread_id);
                    let kind = if report { MarkKind::Report } else { MarkKind::Message };
                    self.items.push(mark(kind, sender, m.from_bot_id.as_str().to_owned()));
                }
                Change::RelayMessage(m) => {
                    self.items.push(mark(MarkKind::Message, Some(m.thread_id.to_string()), m.from.clone()));
                }
                _ => {}
            }
        }
    }
}

/// A mark placed on its lane and row.
#[derive(Clone, Debug, PartialEq)]
pub struct PlacedMark {
    /// What.
    pub kind: MarkKind,
    /// When.
    pub at: Timestamp,
    /// Its record.
    pub seq: u64,
    /// Lane index.
    pub lane: usize,
    /// Row within the lane.
    pub row: u32,
    /// The bar it sits on.
    pub bar: Option<usize>,
}

/// The laid-out swimlanes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Swimlanes {
    /// Agents first (in the order they first hand off or take work), then teammates.
    pub lanes: Vec<Lane>,
    /// Bars in start order.
    pub bars: Vec<Bar>,
    /// Marks of records up to `upto`.
    pub marks: Vec<PlacedMark>,
    /// The earliest start.
    pub start: Timestamp,
    /// `now`.
    pub end: Timestamp,
    /// The bars of each row, for drawing and pointing at what is in view without walking
    /// every bar ([`Swimlanes::row_bars`]); built by [`place`].
    pub(crate) rows: RowIndex,
}

/// The bars of each row of every lane, row by row: a lane's rows are numbered on from the
/// rows of the lanes before it.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct RowIndex {
    /// Each lane's first row.
    lane_first: Vec<u32>,
    /// Where each row's bars begin in `bars` (and where the last row's end).
    start: Vec<u32>,
    /// Bar indices, each row's in start order.
    bars: Vec<u32>,
    /// The bars with a parent bar, in start order (for the parent → child links).
    links: Vec<Link>,
}

/// A parent → child link: drawn at the child's start, from the parent's row to the child's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Link {
    /// The child bar's start.
    pub at: Timestamp,
    /// The child's lane and row.
    pub child: (u32, u32),
    /// The parent's lane and row.
    pub parent: (u32, u32),
}

impl Swimlanes {
    /// The bars on `row` of `lane`, in start order: in a row they do not overlap, so their
    /// ends come in that order too. Empty past the lane's rows.
    pub fn row_bars(&self, lane: usize, row: u32) -> &[u32] {
        let ix = &self.rows;
        let Some(first) = ix.lane_first.get(lane) else { return &[] };
        if row >= self.lanes[lane].rows {
            return &[];
        }
        let r = (first + row) as usize;
        match (ix.start.get(r), ix.start.get(r + 1)) {
            (Some(a), Some(b)) => &ix.bars[*a as usize..*b as usize],
            _ => &[],
        }
    }

    /// The bars on `row` of `lane` that reach from before `t1` to `t0` or later (an open bar
    /// reaching `end`), in start order.
    pub fn bars_between(&self, lane: usize, row: u32, t0: f64, t1: f64) -> impl Iterator<Item = usize> + '_ {
        let now = self.end;
        let bars = self.row_bars(lane, row);
        let from = bars.partition_point(|&i| (self.bars[i as usize].end.unwrap_or(now).0 as f64) < t0);
        bars[from..].iter().map(|&i| i as usize).take_while(move |&i| self.bars[i].start.0 as f64 <= t1)
    }

    /// The parent → child links whose child starts within `[t0, t1]`, in start order.
    pub fn links_between(&self, t0: f64, t1: f64) -> &[Link] {
        let links = &self.rows.links;
        let from = links.partition_point(|l| (l.at.0 as f64) < t0);
        let to = from + links[from..].partition_point(|l| l.at.0 as f64 <= t1);
        &links[from..to]
    }

    /// Builds the row index from the bars' lanes and rows, each row's bars in start order
    /// (`order`: [`start_order`] of the bars).
    pub(crate) fn index_rows(&mut self, order: &[(u64, u32)]) {
        let mut lane_first = Vec::with_capacity(self.lanes.len());
        let mut total = 0u32;
        for l in &self.lanes {
            lane_first.push(total);
            total += l.rows;
        }
        let global = |b: &Bar| (lane_first[b.lane] + b.row) as usize;
        let mut start = vec![0u32; total as usize + 1];
        for b in &self.bars {
            start[global(b) + 1] += 1;
        }
        for r in 0..total as usize {
            start[r + 1] += start[r];
        }
        let mut next = start.clone();
        let mut bars = vec![0u32; self.bars.len()];
        let mut links = Vec::new();
        for &(_, i) in order {
            let b = &self.bars[i as usize];
            let slot = &mut next[global(b)];
            bars[*slot as usize] = i;
            *slot += 1;
            if let Some(p) = b.parent.and_then(|p| self.bars.get(p)) {
                let child = (b.lane as u32, b.row);
                links.push(Link { at: b.start, child, parent: (p.lane as u32, p.row) });
            }
        }
        self.rows = RowIndex { lane_first, start, bars, links };
    }
}

/// The lanes in the order they were first asked for, found by their key: a lookup borrows the
/// key and names the lane's label only for a new lane (one allocation a lane, not one a call).
#[derive(Default)]
struct LaneIndex<'a> {
    lanes: Vec<Lane>,
    agents: FxHashMap<&'a str, usize>,
    teammates: FxHashMap<&'a str, usize>,
}

impl<'a> LaneIndex<'a> {
    /// The lane of agent `bot`, added (labelled with its display name) if new.
    fn agent(&mut self, st: &State, bot: &'a str) -> usize {
        let lanes = &mut self.lanes;
        *self.agents.entry(bot).or_insert_with(|| {
            lanes.push(Lane { key: bot.to_string(), label: display(st, bot), kind: LaneKind::Agent, rows: 1 });
            lanes.len() - 1
        })
    }

    /// The lane of teammate `handle`, added (labelled `label()`) if new.
    fn teammate(&mut self, handle: &'a str, label: impl FnOnce() -> String) -> usize {
        let lanes = &mut self.lanes;
        *self.teammates.entry(handle).or_insert_with(|| {
            lanes.push(Lane { key: handle.to_string(), label: label(), kind: LaneKind::Teammate, rows: 1 });
            lanes.len() - 1
        })
    }

    /// The lane of `who`: the agent's, else the teammate's.
    fn of(&self, who: &str) -> Option<usize> {
        self.agents.get(who).or_else(|| self.teammates.get(who)).copied()
    }
}

/// Lays out the swimlanes of `st` at `now`, with the marks of records up to `upto` (all when
/// `None`).
pub fn swimlanes(st: &State, marks: &Marks, now: Timestamp, upto: Option<u64>) -> Swimlanes {
    let mut handoffs: Vec<_> = st.handoffs.values().map(|h| &**h).collect();
    handoffs.sort_unstable_by_key(|h| h.seq);
    // Lanes: agents in the order they first appear in a handoff, then the rest; teammates.
    // Bars: a handoff's on its child's lane. One pass over the handoffs does both: a handoff is
    // read once (at 100,000 handoffs the reads, not the work, are most of the layout).
    let mut lanes = LaneIndex::default();
    let mut bars: Vec<Bar> = Vec::with_capacity(handoffs.len());
    let mut by_child: FxHashMap<&str, usize> = FxHashMap::default();
    by_child.reserve(handoffs.len());
    for h in &handoffs {
        let from = lanes.agent(st, &h.parent_bot_id);
        let lane = lanes.agent(st, &h.child_bot_id);
        let done = h.status.is_terminal();
        bars.push(Bar {
            id: h.handoff_id.to_string(),
            kind: BarKind::Handoff,
            lane,
            row: 0,
            start: h.created_at,
            end: done.then_some(h.status_at),
            status: h.status.as_str().to_string(),
            category: Category::of(Some(h.status)),
            done,
            label: h.spec.thread_title.clone().unwrap_or_else(|| h.spec.task.clone()),
            from: lanes.lanes[from].label.clone(),
            parent: by_child.get(h.parent_thread_id.as_str()).copied(),
        });
        if let Some(c) = h.child_thread_id.as_deref() {
            by_child.insert(c, bars.len() - 1);
        }
    }
    for a in st.agents.values() {
        lanes.agent(st, &a.bot_id);
    }
    for t in st.teammates.values() {
        lanes.teammate(&t.handle, || t.name.clone());
    }
    let mut relays: Vec<_> = st.relay_threads.values().collect();
    relays.sort_unstable_by_key(|r| (r.created_at, r.thread_id.to_string()));
    for r in relays {
        let label = || st.teammates.get(&r.recipient).map_or_else(|| r.recipient.clone(), |t| t.name.clone());
        let lane = lanes.teammate(&r.recipient, label);
        let done = r.status.is_terminal();
        bars.push(Bar {
            id: r.thread_id.to_string(),
            kind: BarKind::Relay,
            lane,
            row: 0,
            start: r.created_at,
            end: done.then(|| r.completed_at.or(r.cancelled_at).unwrap_or(r.updated_at)),
            status: wire(&r.status),
            category: Category::of_relay(r.status),
            done,
            label: r.summary.clone(),
            from: r.sender.clone(),
            parent: None,
        });
    }
    // Marks: on their bar (its row is decided by `place`), else on row 0 of the acting lane.
    let bar_of: FxHashMap<&str, usize> = bars.iter().enumerate().map(|(i, b)| (b.id.as_str(), i)).collect();
    let placed = marks
        .items
        .iter()
        .filter(|m| upto.is_none_or(|u| m.seq <= u))
        .filter_map(|m| {
            let bar = m.on.as_deref().and_then(|id| bar_of.get(id).copied());
            let lane = match bar {
                Some(b) => bars[b].lane,
                None => lanes.of(&m.who)?,
            };
            Some(PlacedMark { kind: m.kind, at: m.at, seq: m.seq, lane, row: 0, bar })
        })
        .collect();
    let mut out =
        Swimlanes { lanes: lanes.lanes, bars, marks: placed, start: now, end: now, rows: RowIndex::default() };
    place(&mut out, now);
    out
}

/// The bars' indices by start, the lower index first on a tie (as `(start, index)` pairs: one
/// sort of pairs, the one the graph's indexes use too, where a sort by key per caller would
/// each bring a copy of the sort into the console).
pub(crate) fn start_order(bars: &[Bar]) -> Vec<(u64, u32)> {
    let mut order: Vec<(u64, u32)> = bars.iter().enumerate().map(|(i, b)| (b.start.0, i as u32)).collect();
    order.sort_unstable();
    order
}

/// Puts the bars on rows and the marks on their bar's row as of `now` (an open bar holds its
/// row until then), and spans the picture from the earliest start to `now`. [`swimlanes`]
/// ends with it; a picture laid out at an earlier `now` (the console's cache) is placed again
/// with the new one, and comes out as `swimlanes` would lay it out then.
pub fn place(s: &mut Swimlanes, now: Timestamp) {
    let Swimlanes { lanes, bars, marks, .. } = s;
    // Rows: in start order, each bar takes the lane's row that frees earliest (the lower row on a
    // tie) if it is free by then, else a new row. A heap per lane: n log(rows), not n × rows.
    let order = start_order(bars);
    let mut free: Vec<BinaryHeap<Reverse<(u64, u32)>>> = vec![BinaryHeap::new(); lanes.len()];
    let mut rows = vec![0u32; lanes.len()];
    for &(_, i) in &order {
        let b = &mut bars[i as usize];
        let until = b.end.unwrap_or(now).0.max(b.start.0 + 1);
        let heap = &mut free[b.lane];
        let row = match heap.peek() {
            Some(Reverse((f, row))) if *f <= b.start.0 => {
                let row = *row;
                heap.pop();
                row
            }
            _ => {
                rows[b.lane] += 1;
                rows[b.lane] - 1
            }
        };
        heap.push(Reverse((until, row)));
        b.row = row;
    }
    for (lane, n) in lanes.iter_mut().zip(&rows) {
        lane.rows = (*n).max(1);
    }
    for m in marks.iter_mut() {
        m.row = m.bar.map_or(0, |b| bars[b].row);
    }
    s.start = s.bars.iter().map(|b| b.start).min().unwrap_or(now);
    s.end = now;
    s.index_rows(&order);
}

#[cfg(test)]
pub(in crate::view) mod tests {
    use super::*;
    use crate::script::scenario;

    // lead hands Review to adam, who hands Check on to eve and later reports back; a follow-up
    // reaches Check, which goes quiet past the reminder threshold; Draft (eve) is cancelled;
    // bob hands a relay thread to alice with a message on it.
    pub(in crate::view) const SCRIPT: &str = r#"{"at": "2026-11-30T09:00:00Z", "host": "register_agent", "args": {"bot_id": "lead", "display_name": "Lead"}}
{"at": "+0s", "host": "register_agent", "args": {"bot_id": "adam", "display_name": "Adam", "tools": ["handoff", "project_manager_tools"]}}
{"at": "+0s", "host": "register_agent", "args": {"bot_id": "eve", "display_name": "Eve"}}
{"at": "+0s", "host": "register_teammate", "args": {"handle": "bob@acme", "name": "Bob", "role": "backend"}}
{"at": "+0s", "host": "register_teammate", "args": {"handle": "alice@acme", "name": "Alice", "role": "frontend"}}
{"at": "+0s", "host": "open_thread", "args": {"thread_id": "chat_main", "bot_id": "lead", "title": "Q4"}}
{"at": "+1m", "call": "handoff", "as": {"thread": "chat_main", "bot": "lead"}, "args": {"task": "Review", "target_bot": "adam"}, "save": {"h1": "handoff_id", "c1": "thread_id"}}
{"at": "+1m", "call": "handoff", "as": {"thread": "$c1", "bot": "adam"}, "args": {"task": "Check", "target_bot": "eve"}, "save": {"h2": "handoff_id"}}
{"at": "+1m", "call": "handoff", "as": {"thread": "chat_main", "bot": "lead"}, "args": {"task": "Draft", "target_bot": "eve"}, "save": {"h3": "handoff_id"}}
{"at": "+1m", "call": "handoff_send", "as": {"thread": "$c1", "bot": "adam"}, "args": {"handoff_id": "$h2", "message": "Also the appendix"}}
{"at": "+1m", "call": "handoff_cancel", "as": {"thread": "chat_main", "bot": "lead"}, "args": {"handoff_id": "$h3"}}
{"at": "+1m", "call": "handoff_to_teammate", "as": {"handle": "bob@acme"}, "args": {"to": "alice@acme", "summary": "Pair on the cache bug?"}, "save": {"t1": "thread_id"}}
{"at": "+1m", "call": "send_message", "as": {"handle": "bob@acme"}, "args": {"thread_id": "$t1", "body": "Tomorrow 10:00?"}}
{"at": "+1m", "call": "mailbox_action", "as": {"thread": "$c1", "bot": "adam"}, "args": {"action": "SEND_MESSAGE", "to_thread_id": "chat_main", "to_bot_id": "lead", "body": "Reviewed."}}
{"at": "+40m", "tick": true}
"#;

    fn laid_out(upto: Option<u64>) -> Swimlanes {
        let run = scenario::run(SCRIPT);
        let st = run.engine.state();
        let mut marks = Marks::default();
        let records = run.engine.storage().records();
        for r in records.iter() {
            marks.absorb(r, st);
        }
        swimlanes(st, &marks, run.engine.last_at(), upto)
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn one_lane_per_agent_and_teammate_and_a_bar_per_handoff_and_relay_thread() {
        let s = laid_out(None);
        let lanes: Vec<(&str, LaneKind, u32)> = s.lanes.iter().map(|l| (l.label.as_str(), l.kind, l.rows)).collect();
        assert_eq!(
            lanes,
            [
                ("Lead", LaneKind::Agent, 1),
                ("Adam", LaneKind::Agent, 1),
                ("Eve", LaneKind::Agent, 2),
                ("Alice", LaneKind::Teammate, 1),
                ("Bob", LaneKind::Teammate, 1)
            ]
        );
        let bars: Vec<(&str, &str, usize, u32, bool)> =
            s.bars.iter().map(|b| (b.label.as_str(), b.status.as_str(), b.lane, b.row, b.end.is_some())).collect();
        assert_eq!(
            bars,
            [
                ("Review", "completed", 1, 0, true),
                ("Check", "started", 2, 0, false),
                ("Draft", "cancelled", 2, 1, true),
                ("Pair on the cache bug?", "pending", 3, 0, false),
            ]
        );
        // Check was handed by Review's child: linked to its bar.
        assert_eq!(s.bars[1].parent, Some(0));
        assert_eq!((s.bars[0].parent, s.bars[1].from.as_str()), (None, "Adam"));
        assert_eq!(s.start.to_iso(), "2026-11-30T09:01:00Z");
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn marks_sit_on_their_bars_and_follow_the_scrub() {
        let s = laid_out(None);
        let marks: Vec<(MarkKind, Option<usize>)> = s.marks.iter().map(|m| (m.kind, m.bar)).collect();
        assert_eq!(
            marks,
            [
                (MarkKind::FollowUp, Some(1)),
                (MarkKind::Cancel, Some(2)),
                (MarkKind::Message, Some(3)),
                (MarkKind::Report, Some(0)),
                (MarkKind::Nudge, Some(1)),
            ]
        );
        let cancel = &s.marks[1];
        assert_eq!((cancel.lane, cancel.row), (2, 1));
        // As of the cancel's record, the later marks are not there yet.
        let before = laid_out(Some(cancel.seq));
        assert_eq!(before.marks.len(), 2);
    }
}
