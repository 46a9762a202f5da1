//! Snapshots: the state after some record, so that opening reads the latest snapshot and the
//! records after it instead of the whole history.
//!
//! A snapshot is a list of whole-record changes that rebuild the state through the same
//! `State::apply` that replays the log (so the derived indexes are rebuilt, never stored),
//! in an order that gives the indexes their history order: records by creation sequence,
//! lists in their stored order. One index is history, not derivable from the final records:
//! the former inbox positions that cursors read (`inbox_moved`); it is stored as it is.
//!
//! Stored as JSON lines: a header line (`{"snapshot": 2, "seq": ..}`), then one change a
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
///
/// - 1: the state's records whole, one change a line.
/// - 2: as 1, each record in the log's v3 form (the fields at their defaults left out). A
///   version 1 snapshot is read as it is.
pub const SNAPSHOT_FORMAT_VERSION: u32 = 2;

/// The oldest snapshot format version this build reads.
pub const SNAPSHOT_FORMAT_OLDEST: u32 = 1;

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
        changes.push(Change::Configured(Box::new(st.config.clone())));
        changes.extend(st.agents.values().map(|a| Change::Agent(Box::new(a.clone()))));
        changes.extend(st.blueprints.values().cloned().map(Change::Blueprint));
        changes.extend(st.teammates.values().map(|t| Change::Teammate(Box::new(t.clone()))));
        changes.extend(st.trust.iter().map(|(h, p)| Change::Trust { handle: h.clone(), policy: Box::new(p.clone()) }));
        changes.extend(st.skills.values().cloned().map(Change::Skill));
        changes.extend(st.todos.values().cloned().map(Change::Todo));
        for (task_id, paths) in &st.reports {
            changes.extend(paths.iter().map(|p| Change::Report { task_id: task_id.clone(), path: p.clone() }));
        }
        changes.extend(st.audit.iter().map(|a| Change::Audit(Box::new(a.clone()))));
        changes.extend(st.schedules.values().cloned().map(Change::Schedule));
        changes.extend(st.asks.values().cloned().map(Change::Ask));
        changes.extend(st.leg_sessions.values().map(|s| Change::LegSession(Box::new(s.clone()))));
        changes.extend(st.leg_groups.values().map(|g| Change::LegGroup(Box::new(g.clone()))));
        changes.extend(st.leg_reports.iter().map(|(p, t)| Change::LegReport { path: p.clone(), text: t.clone() }));
        let legs = in_order(st.legs.values(), |l| (l.seq, "", 0));
        changes.extend(legs.into_iter().cloned().map(Change::Leg));
        // Threads and handoffs in one run, in the order they were made: a handoff's line, then
        // its child thread's, which names the same three ids. A reader that shares the ids it
        // read last (wasm32, `ground::ids`) then holds each of them once, not twice.
        let threads = in_order(st.threads.values(), |t| (t.seq, "", 0));
        let handoffs = in_order(st.handoffs.values(), |h| (h.seq, "", 0));
        let (mut t, mut h) = (0, 0);
        while t < threads.len() || h < handoffs.len() {
            if h == handoffs.len() || (t < threads.len() && threads[t].seq < handoffs[h].seq) {
                changes.push(Change::Thread(threads[t].clone()));
                t += 1;
            } else {
                changes.push(Change::Handoff(handoffs[h].clone()));
                h += 1;
            }
        }
        let activity = in_order(st.activity.iter(), |&(id, _)| (0, id.as_str(), 0));
        changes.extend(
            activity.into_iter().map(|(id, a)| Change::Activity { thread_id: id.clone(), activity: a.clone() }),
        );
        let turn_calls = in_order(st.turn_calls.iter(), |&(id, _)| (0, id.as_str(), 0));
        for (thread_id, calls) in turn_calls {
            changes.extend(
                calls.0.iter().map(|c| Change::TurnCall { thread_id: thread_id.clone(), call: Box::new(c.clone()) }),
            );
        }
        let messages = in_order(st.messages.values(), |m| (m.seq, "", 0));
        changes.extend(messages.into_iter().cloned().map(Change::Message));
        let sessions = in_order(st.sessions.values(), |&s| (0, s.session_id.as_str(), 0));
        changes.extend(sessions.into_iter().cloned().map(Change::Session));
        let relay = in_order(st.relay_threads.values(), |t| (t.update_seq, "", 0));
        changes.extend(relay.into_iter().cloned().map(Change::RelayThread));
        let relay_msgs = in_order(st.relay_messages.values(), |&m| (0, m.thread_id.as_str(), m.sequence_no));
        changes.extend(relay_msgs.into_iter().cloned().map(Change::RelayMessage));
        let seen = in_order(st.relay_seen.iter(), |&(id, n)| (0, id.as_str(), *n));
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

    /// The state this snapshot holds; with `due_later`, its due index deferred
    /// ([`crate::Engine::defer_due_index`]) rather than built.
    pub(crate) fn restore(self, keep_hot: Option<usize>, due_later: bool) -> Result<State, StorageError> {
        let mut r = Restore::new(self.header, keep_hot, due_later).map_err(|e| e.at(0))?;
        for change in self.changes {
            r.change(change).map_err(|e| e.at(0))?;
        }
        for m in self.moved {
            r.moved(m);
        }
        r.finish().map(|(st, _)| st)
    }

    /// The stored form: the header line, then one line per change, then one per former inbox
    /// position, each without its newline.
    pub fn to_lines(&self) -> impl Iterator<Item = String> + '_ {
        fn line<T: Serialize>(v: &T) -> String {
            crate::ground::stored::form(|| serde_json::to_string(v)).expect("snapshot parts always serialize")
        }
        std::iter::once(line(&self.header)).chain(self.changes.iter().map(line)).chain(self.moved.iter().map(line))
    }

    /// Reads the stored form. Refuses a snapshot whose lines do not match its header's counts
    /// (a torn or truncated write), naming the line.
    pub fn from_lines<'a>(lines: impl IntoIterator<Item = &'a str>) -> Result<Snapshot, StorageError> {
        let mut lines = lines.into_iter().filter(|l| !l.trim().is_empty()).enumerate();
        let bad = |index: usize, reason: String| StorageError::Corrupt { index, reason: format!("snapshot: {reason}") };
        let (_, first) = lines.next().ok_or_else(|| bad(0, "empty".into()))?;
        let header = read_header(first)?;
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

/// A snapshot's header line, read and its version checked.
fn read_header(line: &str) -> Result<SnapshotHeader, StorageError> {
    let bad = |reason: String| StorageError::Corrupt { index: 0, reason: format!("snapshot: {reason}") };
    let header: SnapshotHeader = serde_json::from_str(line).map_err(|e| bad(format!("header: {e}")))?;
    check_version(header.snapshot).map_err(bad)?;
    Ok(header)
}

fn check_version(found: u32) -> Result<(), String> {
    match (SNAPSHOT_FORMAT_OLDEST..=SNAPSHOT_FORMAT_VERSION).contains(&found) {
        true => Ok(()),
        false => Err(format!(
            "format version {found}; this build reads {SNAPSHOT_FORMAT_OLDEST} to {SNAPSHOT_FORMAT_VERSION}"
        )),
    }
}

/// Why a part of a snapshot does not restore, before the line it was on is known.
struct Refused(String);

impl Refused {
    fn at(self, index: usize) -> StorageError {
        StorageError::Corrupt { index, reason: format!("snapshot: {}", self.0) }
    }
}

/// A snapshot restored from its stored lines a part at a time ([`Restore::lines`]), each
/// line applied as it is read: a host that reads a large snapshot can let its page draw and
/// take input between the parts, and the snapshot's changes are never held all at once (at
/// 100,000 handoffs they are 200,000). [`crate::Engine::open_restored`] opens an engine
/// from it once every line is in. The same state as [`Snapshot::from_lines`] and opening
/// from that snapshot; a snapshot that is torn, padded or does not read is refused as
/// there, naming the line.
pub struct Restore {
    header: SnapshotHeader,
    st: State,
    due_later: bool,
    /// The changes and former inbox positions restored so far.
    changes: u64,
    moved: u64,
    /// The lines read, the header's included (blank lines are not counted).
    line: usize,
}

impl Restore {
    /// Starts from the snapshot's first line, its header. `keep_hot` and `due_later` as for
    /// [`crate::Engine::open_from_keeping_hot`] and [`crate::Engine::open_from_due_later`].
    pub fn begin(header: &str, keep_hot: Option<usize>, due_later: bool) -> Result<Restore, StorageError> {
        Restore::new(read_header(header)?, keep_hot, due_later).map_err(|e| e.at(0))
    }

    fn new(header: SnapshotHeader, keep_hot: Option<usize>, due_later: bool) -> Result<Restore, Refused> {
        check_version(header.snapshot).map_err(Refused)?;
        let mut st = State::default();
        // The host's window is set before the records go in: a record sealed here would stay
        // sealed under a wider window, and be decoded on every read.
        if let Some(keep) = keep_hot {
            st.keep_hot(keep);
        }
        if due_later {
            st.defer_due();
        }
        Ok(Restore { header, st, due_later, changes: 0, moved: 0, line: 1 })
    }

    /// The record the snapshot's state is after.
    pub fn seq(&self) -> u64 {
        self.header.seq
    }

    /// Reads and restores the next lines (blank ones are skipped).
    pub fn lines<'a>(&mut self, lines: impl IntoIterator<Item = &'a str>) -> Result<(), StorageError> {
        for l in lines.into_iter().filter(|l| !l.trim().is_empty()) {
            let i = self.line;
            let bad = |reason: String| Refused(reason).at(i);
            if self.changes < self.header.changes {
                let change: Change = serde_json::from_str(l).map_err(|e| bad(e.to_string()))?;
                self.change(change).map_err(|e| e.at(i))?;
            } else if self.moved < self.header.moved {
                self.moved(serde_json::from_str(l).map_err(|e| bad(e.to_string()))?);
            } else {
                return Err(bad("lines after the last one its header counts".into()));
            }
            self.line += 1;
        }
        Ok(())
    }

    fn change(&mut self, change: Change) -> Result<(), Refused> {
        if matches!(
            change,
            Change::HandoffDelta { .. }
                | Change::ThreadDelta { .. }
                | Change::ActivityDelta { .. }
                | Change::MessageDelta { .. }
                | Change::TurnReset { .. }
        ) {
            return Err(Refused("a snapshot holds whole records only".into()));
        }
        self.st.apply(change).map_err(Refused)?;
        self.changes += 1;
        Ok(())
    }

    fn moved(&mut self, m: MovedEntry) {
        let entry = InboxEntry { thread_id: m.thread_id, status: m.status, updated_at: m.updated_at };
        self.st.idx.inbox_moved.insert((m.recipient, m.moved_at, m.former), entry);
        self.moved += 1;
    }

    /// The state, once every line its header counts is in, and the time of the record it is
    /// after.
    pub(crate) fn finish(self) -> Result<(State, Timestamp), StorageError> {
        let Restore { header, mut st, due_later, changes, moved, line } = self;
        if changes < header.changes {
            return Err(Refused("ends before its last change".into()).at(line));
        }
        if moved < header.moved {
            return Err(Refused("ends before its last inbox position".into()).at(line));
        }
        if !due_later {
            st.build_due();
        }
        st.log_seq = header.seq;
        st.id_seq = header.id_seq;
        Ok((st, header.at))
    }
}

/// The state after one record, copied out of an engine ([`crate::Engine::freeze`]) so that
/// its snapshot can be built, encoded and stored on another thread while the engine goes on.
/// The copy keeps sealed records sealed and shares their bytes with the engine, so it costs
/// a fraction of building and encoding the snapshot (about a seventh at 100,000 handoffs:
/// the storage bench's `freeze_ms` against its `with_lines_ms`).
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

/// `items` in the order of `key`, ties in the order given. Every kind's key is a sequence
/// number, an id, or an id and a number (`(seq, "", 0)`, `(0, id, 0)`, `(0, id, n)`: a
/// sequence number first, so those sorts compare numbers only), so one sort of the keys
/// serves every record type: a sort per type was 35 KB of the console's wasm.
fn in_order<'a, T: 'a>(items: impl Iterator<Item = T>, key: impl Fn(&T) -> (u64, &'a str, u64)) -> Vec<T> {
    let mut items: Vec<Option<T>> = items.map(Some).collect();
    let mut keys: Vec<((u64, &'a str, u64), usize)> =
        items.iter().enumerate().filter_map(|(i, t)| t.as_ref().map(|t| (key(t), i))).collect();
    keys.sort_unstable();
    keys.into_iter().filter_map(|(_, i)| items[i].take()).collect()
}

#[cfg(test)]
mod tests {
    use super::in_order;

    /// The one sort orders as each kind's own stable sort did: by the key, ties as given.
    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn in_order_is_a_stable_sort_by_the_key() {
        let ids = ["chat_b", "chat_a", "chat_c", "chat_a", "", "chat_b"];
        let items: Vec<(usize, &str, u64)> =
            (0..60).map(|i| (i, ids[(i * 7) % ids.len()], ((i * 13) % 5) as u64)).collect();
        let mut by_seq = items.clone();
        by_seq.sort_by_key(|t| t.2);
        assert_eq!(in_order(items.iter().copied(), |t| (t.2, "", 0)), by_seq);
        let mut by_id = items.clone();
        by_id.sort_by(|a, b| a.1.cmp(b.1));
        assert_eq!(in_order(items.iter().copied(), |t| (0, t.1, 0)), by_id);
        let mut by_both = items.clone();
        by_both.sort_by(|a, b| (a.1, a.2).cmp(&(b.1, b.2)));
        assert_eq!(in_order(items.iter().copied(), |t| (0, t.1, t.2)), by_both);
        assert_eq!(in_order(std::iter::empty::<u8>(), |_| (0, "", 0)), Vec::<u8>::new());
    }
}
