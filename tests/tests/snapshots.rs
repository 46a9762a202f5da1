//! Snapshots through the `Storage` interface: the engine hands a store that asks for them a
//! snapshot on schedule; a store that keeps only the latest snapshot and the records after
//! it reopens to the identical state; the compact store stays bounded and exports through a
//! snapshot. (Replay = snapshot on every scenario is in `scenarios.rs`.)
use baton_core::{
    export_text, read_export, Caller, CompactStorage, Engine, LogRecord, MemoryStorage, Restore, SeededIds, Snapshot,
    Storage, StorageError, Timestamp,
};
use serde_json::json;

/// A store that keeps its latest snapshot and the records after it, both in their stored
/// (line) form, and drops the records a snapshot covers — what a durable store does.
#[derive(Default)]
struct SnapStore {
    every: u64,
    snapshot: Vec<String>,
    log: Vec<String>,
    snapshots_taken: Vec<u64>,
}

impl Storage for SnapStore {
    fn append(&mut self, record: &LogRecord) -> Result<(), StorageError> {
        self.log.push(record.to_json_line());
        Ok(())
    }
    fn load(&self) -> Result<Vec<LogRecord>, StorageError> {
        self.log.iter().enumerate().map(|(i, l)| LogRecord::from_json_line(l, i)).collect()
    }
    fn load_snapshot(&self) -> Result<Option<Snapshot>, StorageError> {
        if self.snapshot.is_empty() {
            return Ok(None);
        }
        Snapshot::from_lines(self.snapshot.iter().map(String::as_str)).map(Some)
    }
    fn save_snapshot(&mut self, snapshot: &Snapshot) -> Result<(), StorageError> {
        self.snapshot = snapshot.to_lines().collect();
        self.log.clear();
        self.snapshots_taken.push(snapshot.header.seq);
        Ok(())
    }
    fn snapshot_every(&self) -> Option<u64> {
        Some(self.every)
    }
}

const T0: u64 = 1_767_600_000_000;

fn setup<S: Storage>(e: &mut Engine<S>) {
    let t = Timestamp(T0);
    e.host("register_agent", json!({"bot_id": "lead"}), t).unwrap();
    e.host("register_agent", json!({"bot_id": "adam", "tools": ["project_manager_tools", "web_search"]}), t).unwrap();
    e.host("open_thread", json!({"thread_id": "chat_main", "bot_id": "lead"}), t).unwrap();
}

/// One delegation: spawn, child activity, report, delivery, status.
fn cycle<S: Storage>(e: &mut Engine<S>, i: u64) {
    let t = Timestamp(T0 + 30_000 * (i + 1));
    let lead = Caller::new("chat_main", "lead");
    let v =
        e.call_value("handoff", json!({"task": format!("Review part {i}"), "target_bot": "adam"}), &lead, t).unwrap();
    let c = v["thread_id"].as_str().unwrap().to_string();
    e.host("tool_call", json!({"thread_id": c, "tool": "web_search"}), t).unwrap();
    e.host("response", json!({"thread_id": c, "text": format!("Finding {i}")}), t).unwrap();
    let report = json!({"action": "SEND_MESSAGE", "to_thread_id": "chat_main", "to_bot_id": "lead", "body": format!("Done {i}")});
    e.call_value("mailbox_action", report, &Caller::new(&c, "adam"), t).unwrap();
    e.tick(t).unwrap();
    e.host("turn_ended", json!({"thread_id": "chat_main"}), t).unwrap();
    e.take_effects();
}

/// An engine over memory with ids seeded `seed`, set up and `cycles` delegations in.
fn in_memory_after(seed: u64, cycles: u64) -> Engine<MemoryStorage> {
    let mut e = Engine::open(MemoryStorage::new(), Box::new(SeededIds::new(seed))).unwrap();
    setup(&mut e);
    for i in 0..cycles {
        cycle(&mut e, i);
    }
    e
}

#[test]
fn the_engine_snapshots_on_the_stores_schedule_and_reopens_from_it() {
    let mut e = Engine::open(SnapStore { every: 40, ..Default::default() }, Box::new(SeededIds::new(9))).unwrap();
    setup(&mut e);
    for i in 0..120 {
        cycle(&mut e, i);
    }
    let taken = e.storage().snapshots_taken.clone();
    assert!(taken.len() >= 3, "snapshots taken after records {taken:?}");
    // Never more often than every 40 records, nor more often than the state's size.
    for w in taken.windows(2) {
        assert!(w[1] - w[0] >= 40, "{taken:?}");
    }
    assert!(e.storage().log.len() < 2 * (e.log_seq() - taken[0]) as usize, "records a snapshot covers are dropped");
    // Reopen: the latest snapshot plus the records after it give the identical state.
    let store = SnapStore {
        every: 40,
        snapshot: e.storage().snapshot.clone(),
        log: e.storage().log.clone(),
        snapshots_taken: Vec::new(),
    };
    let reopened = Engine::open(store, Box::new(SeededIds::new(9))).unwrap();
    assert_eq!(reopened.state(), e.state());
    assert_eq!(reopened.last_at(), e.last_at());
    assert_eq!(reopened.next_deadline(), e.next_deadline());
}

/// Threads and handoffs are written in the order they were made, so each handoff's line is
/// followed by its child thread's (the reader on wasm32 then shares the three ids they both
/// name); the snapshot restores to the same state.
#[test]
fn a_snapshot_writes_each_handoff_just_before_the_thread_it_started() {
    let e = in_memory_after(4, 12);
    let snapshot = e.snapshot();
    let lines: Vec<serde_json::Value> = snapshot.to_lines().map(|l| serde_json::from_str(&l).unwrap()).collect();
    let kind = |v: &serde_json::Value| v["kind"].as_str().unwrap_or("").to_string();
    let mut handoffs = 0;
    for (i, line) in lines.iter().enumerate().filter(|(_, l)| kind(l) == "handoff") {
        let next = &lines[i + 1];
        assert_eq!(kind(next), "thread", "line {i}: a handoff's next line is a thread");
        assert_eq!(next["thread_id"], line["child_thread_id"], "line {i}: the thread it started");
        assert_eq!(next["handoff_id"], line["handoff_id"]);
        handoffs += 1;
    }
    assert_eq!(handoffs, 12);
    let seqs: Vec<u64> = lines
        .iter()
        .filter(|l| matches!(kind(l).as_str(), "thread" | "handoff"))
        .map(|l| l["seq"].as_u64().unwrap())
        .collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "in the order they were made: {seqs:?}");
    let lines: Vec<String> = snapshot.to_lines().collect();
    let restored = Snapshot::from_lines(lines.iter().map(String::as_str)).unwrap();
    let reopened = Engine::open_from(Some(restored), MemoryStorage::new(), Box::new(SeededIds::new(4))).unwrap();
    assert_eq!(reopened.state(), e.state());
}

#[test]
fn a_snapshot_that_does_not_match_its_header_is_refused() {
    let e = in_memory_after(9, 1);
    let lines: Vec<String> = e.snapshot().to_lines().collect();
    // Torn: the last line missing.
    let torn = Snapshot::from_lines(lines[..lines.len() - 1].iter().map(String::as_str)).unwrap_err();
    assert!(torn.to_string().contains("ends before"), "{torn}");
    // A line too many.
    let mut extra = lines.clone();
    extra.push(lines[1].clone());
    let err = Snapshot::from_lines(extra.iter().map(String::as_str)).unwrap_err();
    assert!(err.to_string().contains("after the last one"), "{err}");
    // Another version.
    let mut newer = lines.clone();
    let current = format!("\"snapshot\":{}", baton_core::SNAPSHOT_FORMAT_VERSION);
    assert!(newer[0].contains(&current), "{}", newer[0]);
    newer[0] = newer[0].replacen(&current, "\"snapshot\":9", 1);
    let err = Snapshot::from_lines(newer.iter().map(String::as_str)).unwrap_err();
    assert!(err.to_string().contains("format version 9"), "{err}");
}

/// The same snapshots, restored a part at a time (`Restore`, as the console reads a large
/// one), are refused for the same reasons: torn when the engine is opened from it, padded at
/// the line too many, another version at its header. Whole, it opens to the same state.
#[test]
fn a_snapshot_restored_a_part_at_a_time_is_refused_as_the_whole_one_is() {
    let e = in_memory_after(9, 3);
    let lines: Vec<String> = e.snapshot().to_lines().collect();
    let restore = |lines: &[String]| -> Result<Engine<MemoryStorage>, String> {
        let mut r = Restore::begin(&lines[0], None, false).map_err(|e| e.to_string())?;
        for part in lines[1..].chunks(2) {
            r.lines(part.iter().map(String::as_str)).map_err(|e| e.to_string())?;
        }
        Engine::open_restored(r, MemoryStorage::default(), Box::new(SeededIds::new(9))).map_err(|e| e.to_string())
    };
    let whole = restore(&lines).unwrap();
    assert_eq!(whole.state(), e.state());
    assert_eq!((whole.last_at(), whole.next_deadline()), (e.last_at(), e.next_deadline()));
    let torn = restore(&lines[..lines.len() - 1]).err().unwrap();
    assert!(torn.contains("ends before"), "{torn}");
    let mut extra = lines.clone();
    extra.push(lines[1].clone());
    let err = restore(&extra).err().unwrap();
    assert!(err.contains(&format!("record {} is corrupt", lines.len())) && err.contains("after the last one"), "{err}");
    let mut newer = lines.clone();
    let current = format!("\"snapshot\":{}", baton_core::SNAPSHOT_FORMAT_VERSION);
    newer[0] = newer[0].replacen(&current, "\"snapshot\":9", 1);
    let err = restore(&newer).err().unwrap();
    assert!(err.contains("format version 9"), "{err}");
    // A delta is not a whole record: refused at its line.
    let mut delta = lines.clone();
    delta[2] = r#"{"kind":"thread_delta","thread_id":"t1","set":{}}"#.to_string();
    let err = restore(&delta).err().unwrap();
    assert!(err.contains("record 2 is corrupt: snapshot: a snapshot holds whole records only"), "{err}");
}

#[test]
fn the_compact_store_stays_bounded_and_exports_through_a_snapshot() {
    let mut e = Engine::open(CompactStorage::new(16), Box::new(SeededIds::new(4))).unwrap();
    setup(&mut e);
    for i in 0..60 {
        cycle(&mut e, i);
        assert!(e.storage().records().len() <= 32, "at most twice `keep` records");
    }
    assert_eq!(e.storage().last().map(|r| r.seq), Some(e.log_seq()));
    let refused = e.storage().load().unwrap_err();
    assert!(refused.to_string().contains("keeps no history"), "{refused}");
    // Export = a snapshot of now; importing it gives the identical state, and the import
    // goes on taking commands (ids continue where they were).
    let text = export_text(Some(&e.snapshot()), &[]);
    let (snapshot, records) = read_export(&text).unwrap();
    assert!(records.is_empty());
    let mut imported =
        Engine::open(MemoryStorage::from_snapshot(snapshot, records), Box::new(SeededIds::new(4))).unwrap();
    assert_eq!(imported.state(), e.state());
    cycle(&mut imported, 60);
    cycle(&mut e, 60);
    assert_eq!(imported.state(), e.state(), "the same command after import does the same");
}

#[test]
fn an_export_without_a_snapshot_is_a_plain_log() {
    let mut e = in_memory_after(2, 1);
    let text = export_text(None, e.storage().records());
    let (snapshot, records) = read_export(&text).unwrap();
    assert!(snapshot.is_none());
    assert_eq!(records.as_slice(), e.storage().records());
    // A snapshot followed by records: both parts come back.
    let head = e.snapshot();
    cycle(&mut e, 1);
    let after: Vec<LogRecord> = e.storage().records().iter().filter(|r| r.seq > head.header.seq).cloned().collect();
    let (s, r) = read_export(&export_text(Some(&head), &after)).unwrap();
    assert_eq!(s.as_ref(), Some(&head));
    assert_eq!(r, after);
    let opened = Engine::open(MemoryStorage::from_snapshot(s, r), Box::new(SeededIds::new(2))).unwrap();
    assert_eq!(opened.state(), e.state());
    // A damaged record line is refused with its position.
    let bad = format!("{}{{not json\n", export_text(Some(&head), &[]));
    let err = read_export(&bad).unwrap_err();
    assert!(
        matches!(err, StorageError::Corrupt { index, .. } if index == head.header.changes as usize + head.header.moved as usize + 1),
        "{err:?}"
    );
}

#[test]
fn a_frozen_state_snapshots_on_another_thread_while_the_engine_goes_on() {
    // What `baton serve` does: the writer freezes the state when a snapshot is due and goes on
    // with its commands; another thread builds and encodes the snapshot of the frozen state.
    let mut e = in_memory_after(9, 30);
    let frozen = e.freeze();
    let (seq, expected, head) = (e.log_seq(), e.snapshot(), e.state().clone());
    assert_eq!(frozen.seq(), seq);
    let built = std::thread::spawn(move || frozen.snapshot().to_lines().collect::<Vec<_>>());
    for i in 30..40 {
        cycle(&mut e, i);
    }
    let lines = built.join().unwrap();
    let snapshot = Snapshot::from_lines(lines.iter().map(String::as_str)).unwrap();
    assert_eq!(snapshot, expected, "the snapshot of the state as it was when frozen");
    // That snapshot plus the records after it give the engine's state now.
    let after: Vec<LogRecord> = e.storage().records().iter().filter(|r| r.seq > seq).cloned().collect();
    let reopened =
        Engine::open_from(Some(snapshot.clone()), MemoryStorage::from_records(after), Box::new(SeededIds::new(9)))
            .unwrap();
    assert_eq!(reopened.state(), e.state());
    let at_freeze = Engine::open_from(Some(snapshot), MemoryStorage::new(), Box::new(SeededIds::new(9))).unwrap();
    assert_eq!(at_freeze.state(), &head);
}

#[test]
fn a_host_that_keeps_every_record_plain_opens_a_snapshot_with_none_sealed() {
    // More handoffs than the default window of plain records (1,024 of each kind).
    let e = in_memory_after(9, 1_100);
    let lines: Vec<String> = e.snapshot().to_lines().collect();
    let read = || Snapshot::from_lines(lines.iter().map(String::as_str)).unwrap();
    // The default window seals what falls outside it on the way in…
    let default = Engine::open_from(Some(read()), MemoryStorage::new(), Box::new(SeededIds::new(9))).unwrap();
    assert!(default.state().handoffs.sealed_len() > 0 && default.state().threads.sealed_len() > 0);
    // …a window set before opening seals none (set after, the sealed records would stay
    // sealed and be decoded on every read), and the state is the same.
    let plain = Engine::open_from_keeping_hot(
        Some(read()),
        MemoryStorage::new(),
        Box::new(SeededIds::new(9)),
        Some(usize::MAX),
    )
    .unwrap();
    let st = plain.state();
    assert_eq!(
        (st.handoffs.sealed_len(), st.threads.sealed_len(), st.activity.sealed_len(), st.messages.sealed_len()),
        (0, 0, 0, 0)
    );
    assert_eq!(plain.state(), e.state());
    assert_eq!(plain.state(), default.state());
    assert_eq!(plain.next_deadline(), e.next_deadline());
}

#[test]
fn records_at_rest_are_sealed_soon_after_their_last_write_and_read_the_same() {
    // Far fewer delegations than the window of plain records (1,024 of each kind): only the
    // records at rest — closed handoffs, threads, delivered reports, activity between turns —
    // are sealed, 64 writes of their kind after their last one.
    let cycles = 300;
    let e = in_memory_after(9, cycles);
    let st = e.state();
    assert!(st.handoffs.len() as u64 >= cycles);
    for (kind, sealed, all) in [
        ("handoffs", st.handoffs.sealed_len(), st.handoffs.len()),
        ("threads", st.threads.sealed_len(), st.threads.len()),
        ("messages", st.messages.sealed_len(), st.messages.len()),
    ] {
        // Those written in the last 64 writes of their kind, and the open ones, are values.
        assert!(all - sealed <= 2 * baton_core::AT_REST_WRITES as usize, "{kind}: {sealed} of {all} sealed");
    }
    // A thread's turn calls are never at rest: none has left the window yet.
    assert_eq!(st.turn_calls.sealed_len(), 0);
    // The same delegations with nothing ever sealed give the same state and the same log.
    let mut plain =
        Engine::open_from_keeping_hot(None, MemoryStorage::new(), Box::new(SeededIds::new(9)), Some(usize::MAX))
            .unwrap();
    setup(&mut plain);
    for i in 0..cycles {
        cycle(&mut plain, i);
    }
    assert_eq!(plain.state().handoffs.sealed_len(), 0);
    assert_eq!(plain.state(), e.state());
    assert_eq!(plain.storage().records(), e.storage().records());
    assert_eq!(plain.next_deadline(), e.next_deadline());
}

#[test]
fn a_window_set_after_keeping_every_record_plain_seals_the_older_ones_at_the_next_write() {
    // A host that kept every record a value, then sets a window: the records written before
    // are sealed by the next write of their kind (they were not kept track of without one).
    let mut e =
        Engine::open_from_keeping_hot(None, MemoryStorage::new(), Box::new(SeededIds::new(9)), Some(usize::MAX))
            .unwrap();
    setup(&mut e);
    for i in 0..200 {
        cycle(&mut e, i);
    }
    assert_eq!(e.state().handoffs.sealed_len(), 0);
    e.keep_hot_records(16);
    cycle(&mut e, 200);
    let st = e.state();
    for (kind, sealed, all) in [
        ("handoffs", st.handoffs.sealed_len(), st.handoffs.len()),
        ("threads", st.threads.sealed_len(), st.threads.len()),
        ("activity", st.activity.sealed_len(), st.activity.len()),
        ("messages", st.messages.sealed_len(), st.messages.len()),
    ] {
        assert!(all - sealed <= 16, "{kind}: {} of {all} still values with a window of 16", all - sealed);
    }
    // Sealed or not, the same state and log as an engine that kept the default window.
    let same = in_memory_after(9, 201);
    assert_eq!(e.state(), same.state());
    assert_eq!(e.storage().records(), same.storage().records());
}

#[test]
fn a_log_and_a_snapshot_written_whole_by_an_earlier_build_read_as_the_same_state() {
    // This build leaves the fields at their defaults out of a record's stored form (log v3,
    // snapshot v2); an earlier build wrote every field (log v2, snapshot v1). Both read the same.
    let e = in_memory_after(9, 60);
    let stored: Vec<String> = e.storage().records().iter().map(|r| r.to_json_line()).collect();
    let whole: Vec<String> = e
        .storage()
        .records()
        .iter()
        .map(|r| serde_json::to_string(r).unwrap().replacen("\"v\":3", "\"v\":2", 1))
        .collect();
    assert!(stored.iter().all(|l| l.starts_with("{\"v\":3,")));
    let (short, long) = (stored.concat().len(), whole.concat().len());
    assert!(short * 10 < long * 9, "the stored form is shorter: {short} bytes against {long}");
    assert!(whole[3].contains("\"keep_mailbox_action\":true") && !stored[3].contains("keep_mailbox_action"));
    let read = |lines: &[String]| -> Vec<LogRecord> {
        lines.iter().enumerate().map(|(i, l)| LogRecord::from_json_line(l, i).unwrap()).collect()
    };
    for lines in [&stored, &whole] {
        let reopened = Engine::open(MemoryStorage::from_records(read(lines)), Box::new(SeededIds::new(9))).unwrap();
        assert_eq!(reopened.state(), e.state());
        assert_eq!(reopened.next_deadline(), e.next_deadline());
    }
    // A version 1 snapshot: every line whole.
    let snapshot = e.snapshot();
    let mut header = snapshot.header.clone();
    header.snapshot = 1;
    let v1: Vec<String> = std::iter::once(serde_json::to_string(&header).unwrap())
        .chain(snapshot.changes.iter().map(|c| serde_json::to_string(c).unwrap()))
        .chain(snapshot.moved.iter().map(|m| serde_json::to_string(m).unwrap()))
        .collect();
    let v2: Vec<String> = snapshot.to_lines().collect();
    assert!(v2.concat().len() < v1.concat().len());
    for lines in [&v1, &v2] {
        let read = Snapshot::from_lines(lines.iter().map(String::as_str)).unwrap();
        let opened = Engine::open_from(Some(read), MemoryStorage::new(), Box::new(SeededIds::new(9))).unwrap();
        assert_eq!(opened.state(), e.state());
    }
}
