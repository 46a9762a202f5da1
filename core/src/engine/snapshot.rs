//! Snapshots: the state after some record, so that opening reads the latest snapshot and the
//! records after it instead of the whole history.
//!
//! A snapshot is a list of whole-record changes that rebuild the state through the same
//! `State::apply` that replays the log (so the derived indexes are rebuilt, never stored),
//! in an order that gives the indexes their history order: records by creation sequence,
//! lists in their stored order. One index is history, not derivable from the final records:
//! the former inbox positions that cursors read (`inbox_moved`); it is stored as it is.
//!
//! Stored as JSON lines: a header line (`{"snapshot": 1, "seq": ..}`), then one change a
//! line, then one former inbox position a line. Versioned apart from the log
//! ([`SNAPSHOT_FORMAT_VERSION`]).
use crate::engine::log::{Change, LogRecord};
use crate::engine::state::State;
use crate::ground::error::StorageError;
use crate::ground::ids::RelayThreadId;
use crate::ground::time::Timestamp;
use crate::relay::InboxEntry;
use crate::relay::RelayStatus;
use serde::{Deserialize, Serialize};

/// The snapshot format's version: bump it when the lines change shape.
pub const SNAPSHOT_FORMAT_VERSION: u32 = 1;

/// What a snapshot is of.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnapshotHeader {
    /// Format version ([`SNAPSHOT_FORMAT_VERSION`]).
    pub snapshot: u32,
    /// The state is the state after this record.
    pub seq: u64,
    /// That record's `now`.
    pub at: Timestamp,
    /// The id sequence after it.
    pub id_seq: u64,
    /// How many change lines follow the header.
    pub changes: u64,
    /// How many former inbox positions follow the changes.
    pub moved: u64,
}

/// A former inbox position (a relay thread that moved after a cursor was handed out).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MovedEntry {
    /// Recipient handle.
    pub recipient: String,
    /// The update that moved it.
    pub moved_at: u64,
    /// Its position before.
    pub former: u64,
    /// The thread.
    pub thread_id: RelayThreadId,
    /// Its status at the former position.
    pub status: RelayStatus,
    /// Its `updated_at` at the former position.
    pub updated_at: Timestamp,
}

/// The state after record `header.seq`.
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    /// Position, time and counts.
    pub header: SnapshotHeader,
    /// Whole records, in rebuilding order.
    pub changes: Vec<Change>,
    /// Former inbox positions.
    pub moved: Vec<MovedEntry>,
}

impl Snapshot {
    /// The snapshot of `st`, after record `st.log_seq` at `at`.
    pub(crate) fn of(st: &State, at: Timestamp) -> Snapshot {
        let mut changes = Vec::new();
        changes.push(Change::Configured(st.config.clone()));
        changes.extend(st.agents.values().cloned().map(Change::Agent));
        changes.extend(st.blueprints.values().cloned().map(Change::Blueprint));
        changes.extend(st.teammates.values().cloned().map(Change::Teammate));
        changes.extend(st.trust.iter().map(|(h, p)| Change::Trust { handle: h.clone(), policy: p.clone() }));
        changes.extend(st.skills.values().cloned().map(Change::Skill));
        changes.extend(st.todos.values().cloned().map(Change::Todo));
        for (task_id, paths) in &st.reports {
            changes.extend(paths.iter().map(|p| Change::Report { task_id: task_id.clone(), path: p.clone() }));
        }
        changes.extend(st.audit.iter().cloned().map(Change::Audit));
        changes.extend(st.schedules.values().cloned().map(Change::Schedule));
        changes.extend(st.asks.values().cloned().map(Change::Ask));
        changes.extend(st.leg_sessions.values().cloned().map(Change::LegSession));
        changes.extend(st.leg_groups.values().cloned().map(Change::LegGroup));
        changes.extend(st.leg_reports.iter().map(|(p, t)| Change::LegReport { path: p.clone(), text: t.clone() }));
        let mut legs: Vec<_> = st.legs.values().collect();
        legs.sort_by_key(|l| l.seq);
        changes.extend(legs.into_iter().cloned().map(Change::Leg));
        let mut threads: Vec<_> = st.threads.values().collect();
        threads.sort_by_key(|t| t.seq);
        changes.extend(threads.into_iter().cloned().map(Change::Thread));
        let mut activity: Vec<_> = st.activity.iter().collect();
        activity.sort_by(|a, b| a.0.cmp(b.0));
        changes.extend(
            activity.into_iter().map(|(id, a)| Change::Activity { thread_id: id.clone(), activity: a.clone() }),
        );
        let mut turn_calls: Vec<_> = st.turn_calls.iter().collect();
        turn_calls.sort_by(|a, b| a.0.cmp(b.0));
        for (thread_id, calls) in turn_calls {
            changes.extend(calls.iter().map(|c| Change::TurnCall { thread_id: thread_id.clone(), call: c.clone() }));
        }
        let mut handoffs: Vec<_> = st.handoffs.values().collect();
        handoffs.sort_by_key(|h| h.seq);
        changes.extend(handoffs.into_iter().cloned().map(Change::Handoff));
        let mut messages: Vec<_> = st.messages.values().collect();
        messages.sort_by_key(|m| m.seq);
        changes.extend(messages.into_iter().cloned().map(Change::Message));
        let mut sessions: Vec<_> = st.sessions.values().collect();
        sessions.sort_by(|a, b| a.session_id.cmp(&b.session_id));
        changes.extend(sessions.into_iter().cloned().map(Change::Session));
        let mut relay: Vec<_> = st.relay_threads.values().collect();
        relay.sort_by_key(|t| t.update_seq);
        changes.extend(relay.into_iter().cloned().map(Change::RelayThread));
        let mut relay_msgs: Vec<_> = st.relay_messages.values().collect();
        relay_msgs.sort_by(|a, b| (&a.thread_id, a.sequence_no).cmp(&(&b.thread_id, b.sequence_no)));
        changes.extend(relay_msgs.into_iter().cloned().map(Change::RelayMessage));
        let mut seen: Vec<_> = st.relay_seen.iter().collect();
        seen.sort();
        changes.extend(seen.into_iter().map(|(id, n)| Change::RelaySeen { thread_id: id.clone(), seen: *n }));
        changes.push(Change::Sweep { due: st.sweep_due });
        let moved: Vec<MovedEntry> = st
            .idx
            .inbox_moved
            .iter()
            .map(|((recipient, moved_at, former), e)| MovedEntry {
                recipient: recipient.clone(),
                moved_at: *moved_at,
                former: *former,
                thread_id: e.thread_id.clone(),
                status: e.status,
                updated_at: e.updated_at,
            })
            .collect();
        Snapshot {
            header: SnapshotHeader {
                snapshot: SNAPSHOT_FORMAT_VERSION,
                seq: st.log_seq,
                at,
                id_seq: st.id_seq,
                changes: changes.len() as u64,
                moved: moved.len() as u64,
            },
            changes,
            moved,
        }
    }

    /// The state this snapshot holds.
    pub(crate) fn restore(self, keep_hot: Option<usize>) -> Result<State, StorageError> {
        let corrupt = |reason: String| StorageError::Corrupt { index: 0, reason: format!("snapshot: {reason}") };
        if self.header.snapshot != SNAPSHOT_FORMAT_VERSION {
            return Err(corrupt(format!(
                "format version {}; this build reads {SNAPSHOT_FORMAT_VERSION}",
                self.header.snapshot
            )));
        }
        let mut st = State::default();
        // The host's window is set before the records go in: a record sealed here would stay
        // sealed under a wider window, and be decoded on every read.
        if let Some(keep) = keep_hot {
            st.keep_hot(keep);
        }
        for change in self.changes {
            if matches!(
                change,
                Change::HandoffDelta { .. }
                    | Change::ThreadDelta { .. }
                    | Change::ActivityDelta { .. }
                    | Change::MessageDelta { .. }
                    | Change::TurnReset { .. }
            ) {
                return Err(corrupt("a snapshot holds whole records only".into()));
            }
            st.apply(change).map_err(corrupt)?;
        }
        st.settle_due();
        for m in self.moved {
            let entry = InboxEntry { thread_id: m.thread_id, status: m.status, updated_at: m.updated_at };
            st.idx.inbox_moved.insert((m.recipient, m.moved_at, m.former), entry);
        }
        st.log_seq = self.header.seq;
        st.id_seq = self.header.id_seq;
        Ok(st)
    }

    /// The stored form: the header line, then one line per change, then one per former inbox
    /// position, each without its newline.
    pub fn to_lines(&self) -> impl Iterator<Item = String> + '_ {
        fn line<T: Serialize>(v: &T) -> String {
            serde_json::to_string(v).expect("snapshot parts always serialize")
        }
        std::iter::once(line(&self.header)).chain(self.changes.iter().map(line)).chain(self.moved.iter().map(line))
    }

    /// Reads the stored form. Refuses a snapshot whose lines do not match its header's counts
    /// (a torn or truncated write), naming the line.
    pub fn from_lines<'a>(lines: impl IntoIterator<Item = &'a str>) -> Result<Snapshot, StorageError> {
        let mut lines = lines.into_iter().filter(|l| !l.trim().is_empty()).enumerate();
        let bad = |index: usize, reason: String| StorageError::Corrupt { index, reason: format!("snapshot: {reason}") };
        let (_, first) = lines.next().ok_or_else(|| bad(0, "empty".into()))?;
        let header: SnapshotHeader = serde_json::from_str(first).map_err(|e| bad(0, format!("header: {e}")))?;
        if header.snapshot != SNAPSHOT_FORMAT_VERSION {
            return Err(bad(
                0,
                format!("format version {}; this build reads {SNAPSHOT_FORMAT_VERSION}", header.snapshot),
            ));
        }
        let mut changes = Vec::with_capacity(header.changes.min(1 << 20) as usize);
        for _ in 0..header.changes {
            let (i, l) = lines.next().ok_or_else(|| bad(changes.len() + 1, "ends before its last change".into()))?;
            changes.push(serde_json::from_str(l).map_err(|e| bad(i, e.to_string()))?);
        }
        let mut moved = Vec::with_capacity(header.moved.min(1 << 20) as usize);
        for _ in 0..header.moved {
            let (i, l) = lines.next().ok_or_else(|| bad(0, "ends before its last inbox position".into()))?;
            moved.push(serde_json::from_str(l).map_err(|e| bad(i, e.to_string()))?);
        }
        if let Some((i, _)) = lines.next() {
            return Err(bad(i, "lines after the last one its header counts".into()));
        }
        Ok(Snapshot { header, changes, moved })
    }
}

/// The state after one record, copied out of an engine ([`crate::Engine::freeze`]) so that
/// its snapshot can be built, encoded and stored on another thread while the engine goes on.
/// The copy keeps sealed records sealed, so it costs a fraction of building the snapshot
/// (a seventh at 100,000 handoffs: the storage bench's `freeze_ms`).
#[derive(Clone, Debug)]
pub struct Frozen {
    state: State,
    at: Timestamp,
}

impl Frozen {
    pub(crate) fn of(state: &State, at: Timestamp) -> Frozen {
        Frozen { state: state.clone(), at }
    }

    /// The record the state is after.
    pub fn seq(&self) -> u64 {
        self.state.log_seq
    }

    /// Its snapshot: the one the engine would have given at that record.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot::of(&self.state, self.at)
    }
}

/// An export: a workspace as text — an optional snapshot (its lines), then log records, one
/// JSON line each. A log written before snapshots existed (records only, any version this
/// build reads) is an export without a snapshot.
pub fn export_text(snapshot: Option<&Snapshot>, records: &[LogRecord]) -> String {
    let mut out = String::new();
    for line in snapshot.into_iter().flat_map(Snapshot::to_lines) {
        out.push_str(&line);
        out.push('\n');
    }
    for r in records {
        out.push_str(&r.to_json_line());
        out.push('\n');
    }
    out
}

/// Reads an export ([`export_text`]): the snapshot, if the text starts with one, and the
/// records after it. Blank lines are skipped; any other line that does not read is refused,
/// naming its position.
pub fn read_export(text: &str) -> Result<(Option<Snapshot>, Vec<LogRecord>), StorageError> {
    read_export_lines(text.lines())
}

/// [`read_export`] over lines (hosts that read a file line by line).
pub fn read_export_lines<'a>(
    lines: impl IntoIterator<Item = &'a str>,
) -> Result<(Option<Snapshot>, Vec<LogRecord>), StorageError> {
    #[derive(Deserialize)]
    struct Probe {
        snapshot: Option<u32>,
    }
    let lines: Vec<&str> = lines.into_iter().filter(|l| !l.trim().is_empty()).collect();
    let is_snapshot = lines.first().is_some_and(|l| {
        l.trim_start().starts_with("{\"snapshot\"")
            || serde_json::from_str::<Probe>(l).is_ok_and(|p| p.snapshot.is_some())
    });
    let (snapshot, rest) = if is_snapshot {
        let header: SnapshotHeader = serde_json::from_str(lines[0])
            .map_err(|e| StorageError::Corrupt { index: 0, reason: format!("snapshot header: {e}") })?;
        let n = (1 + header.changes + header.moved).min(lines.len() as u64) as usize;
        (Some(Snapshot::from_lines(lines[..n].iter().copied())?), &lines[n..])
    } else {
        (None, &lines[..])
    };
    let offset = lines.len() - rest.len();
    let records = rest
        .iter()
        .enumerate()
        .map(|(i, l)| LogRecord::from_json_line(l, offset + i))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((snapshot, records))
}
