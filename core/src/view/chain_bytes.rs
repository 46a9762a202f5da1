//! The chains view's rows kept as bytes: what a console stores beside a large workspace so that
//! its next opening shows the delegation tree and its graph before the engine has read the log
//! (issue 26 item 4), as [`super::swimlane_bytes`] does for the swimlanes. A row's age and idle
//! time depend on `now`, so the bytes hold the times they are counted from — its creation, its
//! last activity — and [`decode`] counts them again at the console's `now`: the rows read back
//! are the ones [`super::chain_rows`] gives at that `now`, with nothing written since.
//!
//! Agents' names repeat on most rows, so they are written once, in a table rows point into.
//! Every index read is checked, so a damaged cache is refused ([`BadBytes`]).
use super::bytes::{BadBytes, In, Out};
use super::chains::{ChainRow, RowKind};
use crate::ground::ids::{RowId, ThreadId};
use crate::ground::time::Timestamp;
use crate::handoff::thread::CODING_AGENTS;
use crate::handoff::Status;
use compact_str::CompactString;
use rustc_hash::FxHashMap;

/// The form's first bytes: its name and version (another version is refused).
const MAGIC: &[u8; 4] = b"BCR1";

/// A row's flags, one bit each.
const HANDOFF: u8 = 1;
const CHAINED: u8 = 2;
const COLLAPSED: u8 = 4;
const MATCHED: u8 = 8;
const BLUEPRINT: u8 = 16;
const THREAD: u8 = 32;

/// Chain rows read back from their bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct KeptRows {
    /// The last record the rows reflect.
    pub seq: u64,
    /// That record's time.
    pub last_at: Timestamp,
    /// The rows, their ages counted at the later of the clock [`decode`] was given and `last_at`.
    pub rows: Vec<ChainRow>,
}

/// `rows`, laid out at `now` ([`super::chain_rows`]), as bytes reflecting the log up to record
/// `seq` (at `last_at`).
pub fn encode(rows: &[ChainRow], seq: u64, last_at: Timestamp, now: Timestamp) -> Vec<u8> {
    // Agents' names, once each, in the order rows first name them.
    let mut names: Vec<&str> = Vec::new();
    let mut index: FxHashMap<&str, u64> = FxHashMap::default();
    let mut agents: Vec<(u64, u64)> = Vec::with_capacity(rows.len());
    for r in rows {
        let [agent, from] = [r.agent.as_str(), r.from_agent.as_str()].map(|s| {
            *index.entry(s).or_insert_with(|| {
                names.push(s);
                names.len() as u64 - 1
            })
        });
        agents.push((agent, from));
    }
    let text: usize = rows.iter().map(|r| r.id.len() + r.label.len() + 32).sum();
    let mut w = Out(Vec::with_capacity(24 + text));
    w.0.extend_from_slice(MAGIC);
    w.num(seq);
    w.num(last_at.0);
    w.num(names.len() as u64);
    for n in &names {
        w.text(n);
    }
    let position: FxHashMap<&str, u64> = rows.iter().enumerate().map(|(i, r)| (r.id.as_str(), i as u64)).collect();
    w.num(rows.len() as u64);
    for (r, (agent, from)) in rows.iter().zip(agents) {
        let flags = [
            (r.kind == RowKind::Handoff, HANDOFF),
            (r.chained, CHAINED),
            (r.collapsed, COLLAPSED),
            (r.matched, MATCHED),
            (r.blueprint.is_some(), BLUEPRINT),
            (r.thread_id.is_some(), THREAD),
        ];
        w.0.push(flags.iter().filter(|(on, _)| *on).map(|(_, bit)| bit).sum());
        w.num(u64::from(r.depth));
        w.text(&r.id);
        if let Some(t) = &r.thread_id {
            w.text(t);
        }
        // The row above it comes before it (depth-first order).
        w.opt(r.parent.as_deref().and_then(|p| position.get(p).copied()));
        w.num(agent);
        w.num(from);
        w.text(&r.label);
        w.0.push(r.status.and_then(|s| Status::ALL.iter().position(|a| *a == s)).map_or(0, |p| p + 1) as u8);
        // The times the row's age and idle time are counted from.
        w.num(now.0.saturating_sub(r.age_ms));
        w.opt(r.idle_ms.map(|i| now.0.saturating_sub(i)));
        w.num(u64::from(r.nudges));
        w.num(r.tool_calls);
        if let Some(b) = &r.blueprint {
            w.text(b);
        }
        w.0.push(r.coding_agent.and_then(|c| CODING_AGENTS.iter().position(|a| *a == c)).map_or(0, |p| p + 1) as u8);
        w.num(r.children as u64);
    }
    w.0
}

/// Reads bytes [`encode`] wrote, counting the rows' ages at `clock`, or at the last record's time
/// if that is later (as a console's `now` is).
pub fn decode(bytes: &[u8], clock: Timestamp) -> Result<KeptRows, BadBytes> {
    let mut r = In { bytes, at: 0 };
    if r.take(4)? != MAGIC {
        return Err(r.bad("not kept chain rows of this version"));
    }
    let seq = r.num()?;
    let last_at = Timestamp(r.num()?);
    let now = clock.max(last_at).0;
    let n = r.len()?;
    let mut names = Vec::with_capacity(n);
    for _ in 0..n {
        names.push(CompactString::from(r.text()?));
    }
    let n = r.len()?;
    let mut rows: Vec<ChainRow> = Vec::with_capacity(n);
    for i in 0..n {
        let flags = r.byte()?;
        if flags >= THREAD << 1 {
            return Err(r.bad("a row's flags"));
        }
        let on = |bit: u8| flags & bit == bit;
        let depth = u16::try_from(r.num()?).map_err(|_| r.bad("a row's depth"))?;
        let id = RowId::from(r.text()?);
        let thread_id = if on(THREAD) { Some(ThreadId::from(r.text()?)) } else { None };
        let parent = r.opt_index(i, "a row's parent")?.map(|p| rows[p].id.clone());
        let agent = names[r.index(names.len(), "a row's agent")?].clone();
        let from_agent = names[r.index(names.len(), "a row's sender")?].clone();
        let label = r.text()?;
        let status = match usize::from(r.byte()?) {
            0 => None,
            s => Some(*Status::ALL.get(s - 1).ok_or(r.bad("a row's status"))?),
        };
        let age_ms = now.saturating_sub(r.num()?);
        let idle_ms = r.opt()?.map(|last| now.saturating_sub(last));
        let nudges = u32::try_from(r.num()?).map_err(|_| r.bad("a row's reminders"))?;
        let tool_calls = r.num()?;
        let blueprint = if on(BLUEPRINT) { Some(r.text()?) } else { None };
        let coding_agent = match usize::from(r.byte()?) {
            0 => None,
            c => Some(*CODING_AGENTS.get(c - 1).ok_or(r.bad("a row's coding agent"))?),
        };
        let children = usize::try_from(r.num()?).map_err(|_| r.bad("a row's children"))?;
        rows.push(ChainRow {
            kind: if on(HANDOFF) { RowKind::Handoff } else { RowKind::Root },
            depth,
            id,
            thread_id,
            parent,
            agent,
            from_agent,
            label,
            status,
            age_ms,
            idle_ms,
            nudges,
            tool_calls,
            blueprint,
            chained: on(CHAINED),
            coding_agent,
            children,
            collapsed: on(COLLAPSED),
            matched: on(MATCHED),
        });
    }
    if r.at != bytes.len() {
        return Err(r.bad("bytes after the rows"));
    }
    Ok(KeptRows { seq, last_at, rows })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::script::scenario;
    use crate::view::{chain_rows, ChainFilter};
    use std::collections::BTreeSet;

    // Roots with and without a title; a blueprint stage with a coding agent that chains the
    // next; nested handoffs, one cancelled, one with tool calls; a reminder sent to a quiet one.
    const SCRIPT: &str = r#"{"at": "2026-11-30T09:00:00Z", "host": "register_agent", "args": {"bot_id": "lead", "display_name": "Lead"}}
{"at": "+0s", "host": "register_agent", "args": {"bot_id": "adam", "display_name": "Adam", "tools": ["web_search", "handoff"]}}
{"at": "+0s", "host": "register_agent", "args": {"bot_id": "eve", "display_name": "Ève ✓"}}
{"at": "+0s", "host": "register_agent", "args": {"bot_id": "coder", "display_name": "Coder"}}
{"at": "+0s", "host": "open_thread", "args": {"thread_id": "chat_main", "bot_id": "lead", "title": "Q4"}}
{"at": "+0s", "host": "open_thread", "args": {"thread_id": "chat_journey", "bot_id": "lead", "blueprint_journey_context": {"name": "warehouse_migration", "stages": ["discovery", "schema_migration", "validation"]}}}
{"at": "+1m", "call": "handoff", "as": {"thread": "chat_main", "bot": "lead"}, "args": {"task": "Review «the» model", "target_bot": "adam", "async_mode": true}, "save": {"h1": "handoff_id", "c1": "thread_id"}}
{"at": "+1m", "call": "handoff", "as": {"thread": "chat_main", "bot": "lead"}, "args": {"task": "Draft", "target_bot": "eve", "async_mode": true}, "save": {"h2": "handoff_id"}}
{"at": "+1m", "call": "handoff", "as": {"thread": "$c1", "bot": "adam"}, "args": {"task": "Check sources", "target_bot": "eve", "async_mode": true}}
{"at": "+1m", "call": "handoff_cancel", "as": {"thread": "chat_main", "bot": "lead"}, "args": {"handoff_id": "$h2"}}
{"at": "+1m", "host": "tool_call", "args": {"thread_id": "$c1", "tool": "web_search"}}
{"at": "+1m", "call": "handoff", "as": {"thread": "chat_journey", "bot": "lead"}, "args": {"task": "Migrate the schema", "target_bot": "coder", "blueprint_name": "schema_migration", "context_data": {"coding_agent": "claude_code"}}, "save": {"c3": "thread_id"}}
{"at": "+1m", "call": "handoff", "as": {"thread": "$c3", "bot": "coder"}, "args": {"task": "Validate row counts", "target_bot": "adam", "blueprint_name": "validation"}}
{"at": "+40m", "tick": true}
"#;

    fn rows_at(after_last: u64) -> (Vec<ChainRow>, u64, Timestamp, Timestamp) {
        let run = scenario::run(SCRIPT);
        let e = &run.engine;
        let now = e.last_at().plus(after_last);
        (chain_rows(e.state(), now, &ChainFilter::default(), &BTreeSet::new()), e.log_seq(), e.last_at(), now)
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn kept_chain_rows_read_back_as_laid_out_and_age_at_a_later_now() {
        let (rows, seq, last_at, now) = rows_at(60_000);
        // The scenario reaches every field the bytes hold.
        assert!(rows.iter().any(|r| r.kind == RowKind::Root) && rows.iter().any(|r| r.depth == 2), "{rows:?}");
        assert!(rows.iter().any(|r| r.blueprint.is_some() && r.coding_agent.is_some()), "{rows:?}");
        assert!(rows.iter().any(|r| r.chained) && rows.iter().any(|r| r.nudges > 0), "{rows:?}");
        assert!(rows.iter().any(|r| r.tool_calls > 0) && rows.iter().any(|r| r.status == Some(Status::Cancelled)));
        assert!(rows.iter().any(|r| r.idle_ms.is_some()) && rows.iter().any(|r| r.idle_ms.is_none()));
        let bytes = encode(&rows, seq, last_at, now);
        let back = decode(&bytes, now).unwrap();
        assert_eq!((back.seq, back.last_at), (seq, last_at));
        assert_eq!(back.rows, rows);
        // Later, nothing written since: the kept rows are the rows then, ages and idle times moved.
        let (later, .., then) = rows_at(3_600_000);
        assert_eq!(decode(&bytes, then).unwrap().rows, later);
        // A clock behind the last record counts from the last record, as the console's now does.
        let (at_last, ..) = rows_at(0);
        assert_eq!(decode(&bytes, Timestamp(0)).unwrap().rows, at_last);
        // A filtered, collapsed tree keeps its flags too.
        let run = scenario::run(SCRIPT);
        let eve = ChainFilter { statuses: BTreeSet::new(), agent: Some("eve".into()) };
        let collapsed = BTreeSet::from([rows[1].id.to_string()]);
        let some = chain_rows(run.engine.state(), now, &eve, &collapsed);
        assert!(some.iter().any(|r| r.collapsed) && some.iter().any(|r| !r.matched), "{some:?}");
        assert_eq!(decode(&encode(&some, seq, last_at, now), now).unwrap().rows, some);
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn damaged_kept_chain_rows_are_refused_never_read_wrong() {
        let (rows, seq, last_at, now) = rows_at(0);
        let bytes = encode(&rows, seq, last_at, now);
        for n in 0..bytes.len() {
            assert!(decode(&bytes[..n], now).is_err(), "a prefix of {n} bytes was read");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(decode(&longer, now).unwrap_err().what, "bytes after the rows");
        let mut other = bytes.clone();
        other[3] = b'9';
        assert_eq!(decode(&other, now).unwrap_err().what, "not kept chain rows of this version");
        // A parent that is not an earlier row is refused.
        let mut orphan = rows.clone();
        orphan.swap(0, 1);
        assert_eq!(decode(&encode(&orphan, seq, last_at, now), now).unwrap_err().what, "a row's parent");
        // Any single byte changed either reads or is refused: it never panics.
        for i in 4..bytes.len() {
            for v in [0u8, 1, 0x3f, 0x40, 0x7f, 0x80, 0xff] {
                let mut b = bytes.clone();
                b[i] = v;
                let _ = decode(&b, now);
            }
        }
    }
}
