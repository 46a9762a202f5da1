//! IndexedDB persistence in a real headless Chromium (wasm-bindgen-test): a committed command
//! survives a reopen with identical state; a failed command stores nothing; two engines on one
//! workspace lose neither's updates.
#![cfg(target_arch = "wasm32")]

use baton_core::Command;
use baton_core::{Caller, Timestamp};
use baton_wasm::persist::Persistent;
use serde_json::json;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const T0: u64 = 1_767_600_000_000;
/// Every engine here keeps only the last two written records of each kind as values, so the
/// checks below also read sealed records (compressed in wasm, decoded on access).
const KEEP: usize = 2;

fn host(input: &str, args: serde_json::Value) -> Command {
    Command::Host { input: input.into(), args }
}

async fn fresh(name: &str) -> Persistent {
    let _ = baton_wasm::delete_workspace_for_tests(name).await;
    Persistent::open(name, 11, KEEP).await.expect("workspace opens")
}

#[wasm_bindgen_test]
async fn a_committed_command_survives_reopen_with_identical_state() {
    let p = fresh("reopen").await;
    p.exec(host("register_agent", json!({"bot_id": "lead"})), Timestamp(T0)).await.unwrap();
    p.exec(host("open_thread", json!({"thread_id": "chat_main", "bot_id": "lead"})), Timestamp(T0)).await.unwrap();
    let caller = Caller::new("chat_main", "lead");
    let r = p
        .exec(
            Command::Call { tool: "handoff".into(), args: json!({"task": "Review the model"}), caller },
            Timestamp(T0 + 1000),
        )
        .await
        .unwrap();
    assert_eq!(r["status"], "started");
    let before = p.engine().state().clone();
    let deadline = p.engine().next_deadline();
    drop(p);
    let q = Persistent::open("reopen", 999, KEEP).await.unwrap();
    assert_eq!(q.seed, 11, "the workspace keeps its seed");
    assert_eq!(q.engine().state(), &before, "reopened state is identical");
    assert_eq!(q.engine().next_deadline(), deadline);
}

#[wasm_bindgen_test]
async fn a_failed_command_leaves_nothing_behind() {
    let p = fresh("failed").await;
    p.exec(host("register_agent", json!({"bot_id": "lead"})), Timestamp(T0)).await.unwrap();
    p.exec(host("open_thread", json!({"thread_id": "chat_main", "bot_id": "lead"})), Timestamp(T0)).await.unwrap();
    let stored = p.export().await.unwrap();
    let caller = Caller::new("chat_main", "lead");
    let err = p
        .exec(Command::Call { tool: "handoff".into(), args: json!({"task": "  "}), caller }, Timestamp(T0))
        .await
        .unwrap_err();
    assert_eq!(err.code.number(), -32602);
    assert_eq!(p.export().await.unwrap(), stored, "nothing was stored");
    assert_eq!(p.engine().log_seq(), 2);
    let q = Persistent::open("failed", 11, KEEP).await.unwrap();
    assert_eq!(q.engine().state(), p.engine().state());
}

#[wasm_bindgen_test]
async fn two_engines_on_one_workspace_lose_nothing() {
    let a = fresh("two").await;
    let b = Persistent::open("two", 11, KEEP).await.unwrap();
    a.exec(host("register_agent", json!({"bot_id": "lead"})), Timestamp(T0)).await.unwrap();
    // b has not seen a's record: its add of the same number is refused, it reloads, retries.
    b.exec(host("register_agent", json!({"bot_id": "adam"})), Timestamp(T0 + 1)).await.unwrap();
    a.exec(host("register_agent", json!({"bot_id": "eve"})), Timestamp(T0 + 2)).await.unwrap();
    b.catch_up().await.unwrap();
    assert_eq!(a.engine().state(), b.engine().state());
    let agents: Vec<String> = a.engine().state().agents.keys().cloned().collect();
    assert_eq!(agents, ["adam", "eve", "lead"]);
    assert_eq!(a.export().await.unwrap().lines().count(), 3);
}

#[wasm_bindgen_test]
async fn export_then_import_rebuilds_the_same_workspace() {
    let p = fresh("export-src").await;
    p.exec(host("register_agent", json!({"bot_id": "lead"})), Timestamp(T0)).await.unwrap();
    p.exec(host("open_thread", json!({"thread_id": "chat_main", "bot_id": "lead"})), Timestamp(T0)).await.unwrap();
    let log = p.export().await.unwrap();
    let _ = baton_wasm::delete_workspace_for_tests("export-dst").await;
    let q = Persistent::import("export-dst", &log, p.seed, KEEP).await.unwrap();
    assert_eq!(q.engine().state(), p.engine().state());
    assert_eq!(q.export().await.unwrap(), log);
    // A second import onto a workspace with records is refused; nothing changes.
    let err = Persistent::import("export-dst", &log, p.seed, KEEP).await.err().unwrap();
    assert_eq!(err.code.number(), -32010);
    // A corrupt log is refused before anything is stored.
    let _ = baton_wasm::delete_workspace_for_tests("export-bad").await;
    assert!(Persistent::import("export-bad", "{not json}", 1, KEEP).await.is_err());
    let empty = Persistent::open("export-bad", 1, KEEP).await.unwrap();
    assert_eq!(empty.engine().log_seq(), 0);
}

/// A log of `n` records (one agent, then thread openings).
fn long_log(n: usize) -> (String, u64) {
    use baton_core::{Engine, MemoryStorage, SeededIds};
    let mut e = Engine::open(MemoryStorage::new(), Box::new(SeededIds::new(5))).unwrap();
    e.host("register_agent", json!({"bot_id": "lead"}), Timestamp(T0)).unwrap();
    for i in 1..n {
        e.host("open_thread", json!({"thread_id": format!("chat_{i}"), "bot_id": "lead"}), Timestamp(T0 + i as u64))
            .unwrap();
    }
    (e.storage().records().iter().map(|r| r.to_json_line() + "\n").collect(), 5)
}

#[wasm_bindgen_test]
async fn full_runs_of_records_are_cached_as_chunks_and_reopen_reads_them_to_the_same_state() {
    let _ = baton_wasm::delete_workspace_for_tests("chunks").await;
    let (log, seed) = long_log(2500);
    let p = Persistent::import("chunks", &log, seed, KEEP).await.unwrap();
    assert_eq!(p.engine().log_seq(), 2500);
    // Opening read the log and cached the two full runs.
    assert_eq!(baton_wasm::chunk_ranges_for_tests("chunks").await.unwrap(), [(1, 1000), (1001, 2000)]);
    let want = p.engine().state().clone();
    p.exec(host("open_thread", json!({"thread_id": "chat_late", "bot_id": "lead"})), Timestamp(T0 + 9_000))
        .await
        .unwrap();
    let want_after = p.engine().state().clone();
    p.close();
    // A reopen reads the chunks, then the log after them, to the same state.
    let q = Persistent::open("chunks", 1, KEEP).await.unwrap();
    assert_eq!(q.engine().log_seq(), 2501);
    assert_eq!(q.engine().state(), &want_after);
    assert_ne!(q.engine().state(), &want);
    assert_eq!(q.export().await.unwrap().lines().count(), 2501, "the log keeps every record");
    // A second engine opened on it is level, and catching up again finds nothing new.
    let r = Persistent::open("chunks", 1, KEEP).await.unwrap();
    assert_eq!(r.catch_up().await.unwrap(), 0);
    assert_eq!(r.engine().state(), &want_after);
}

/// Snapshots (log format v2): a workspace long enough gets a snapshot; a reopen starts from it,
/// reads only the records after it, and has the same state — and the log still holds every
/// record for export and for the history the console reads.
#[wasm_bindgen_test]
async fn a_long_workspace_reopens_from_its_snapshot_to_the_same_state() {
    let _ = baton_wasm::delete_workspace_for_tests("snap").await;
    let (log, seed) = long_log(2600);
    let p = Persistent::import("snap", &log, seed, KEEP).await.unwrap();
    assert_eq!(p.opened_from(), 0, "the import replayed the log");
    p.exec(host("open_thread", json!({"thread_id": "chat_after", "bot_id": "lead"})), Timestamp(T0 + 9_000))
        .await
        .unwrap();
    let want = p.engine().state().clone();
    let deadline = p.engine().next_deadline();
    p.close();
    let q = Persistent::open("snap", 1, KEEP).await.unwrap();
    assert_eq!(q.opened_from(), 2600, "opening after the import wrote a snapshot; this open read it");
    assert_eq!(q.take_fresh().iter().map(|r| r.seq).collect::<Vec<_>>(), [2601], "only the records after it");
    assert_eq!(q.engine().state(), &want);
    assert_eq!(q.engine().next_deadline(), deadline);
    // The history is still there, in order.
    let first = q.history(0, 3).await.unwrap();
    assert_eq!(first.iter().map(|r| r.seq).collect::<Vec<_>>(), [1, 2, 3]);
    assert_eq!(q.export().await.unwrap().lines().count(), 2601);
}

/// A snapshot is stored in parts, and opening reads the next parts while it restores the
/// ones it has: a snapshot in more parts than one read asks for reopens to the same state; one
/// with a part missing is passed over, and the log is replayed instead.
#[wasm_bindgen_test]
async fn a_snapshot_in_parts_reopens_to_the_same_state_and_one_missing_a_part_is_passed_over() {
    let _ = baton_wasm::delete_workspace_for_tests("parts").await;
    let (log, seed) = long_log(17_000);
    let p = Persistent::import("parts", &log, seed, KEEP).await.unwrap();
    let want = p.engine().state().clone();
    let deadline = p.engine().next_deadline();
    p.close();
    let parts = baton_wasm::snapshot_parts_for_tests("parts", None).await.unwrap().expect("a snapshot in parts");
    assert!(parts > 8, "more parts than a read asks for: {parts}");
    let q = Persistent::open("parts", 1, KEEP).await.unwrap();
    assert_eq!(q.opened_from(), 17_000, "the snapshot was read");
    assert_eq!(q.engine().state(), &want);
    assert_eq!(q.engine().next_deadline(), deadline);
    let whole = q.export().await.unwrap();
    assert_eq!(whole.lines().count(), 17_000, "the log keeps every record");
    q.close();
    assert_eq!(baton_wasm::snapshot_parts_for_tests("parts", Some(parts / 2)).await, Ok(Some(parts)));
    let r = Persistent::open("parts", 1, KEEP).await.unwrap();
    assert_eq!(r.opened_from(), 0, "a snapshot with a part missing is passed over");
    assert_eq!(r.engine().state(), &want);
    r.close();
    let _ = baton_wasm::delete_workspace_for_tests("parts").await;
}

/// The chunks and the snapshot are caches stored as UTF-8 bytes; a workspace whose caches a
/// build before stored as strings opens from them to the same state.
#[wasm_bindgen_test]
async fn chunks_and_a_snapshot_stored_as_strings_by_a_build_before_still_open() {
    let _ = baton_wasm::delete_workspace_for_tests("old-caches").await;
    let (log, seed) = long_log(2600);
    let p = Persistent::import("old-caches", &log, seed, KEEP).await.unwrap();
    let want = p.engine().state().clone();
    p.close();
    // Two chunks and one snapshot, each stored as bytes (the helper refuses any other row).
    assert_eq!(baton_wasm::caches_as_text_for_tests("old-caches").await, Ok(3));
    let q = Persistent::open("old-caches", 1, KEEP).await.unwrap();
    assert_eq!(q.opened_from(), 2600, "the snapshot stored as a string was read");
    assert_eq!(q.engine().state(), &want);
    q.close();
    let _ = baton_wasm::delete_workspace_for_tests("old-caches").await;
    // Too short for a snapshot: a reopen reads the chunk, then the log after it.
    let p = Persistent::import("old-caches", &long_log(1500).0, seed, KEEP).await.unwrap();
    let want = p.engine().state().clone();
    p.close();
    assert_eq!(baton_wasm::caches_as_text_for_tests("old-caches").await, Ok(1), "one chunk, no snapshot");
    let r = Persistent::open("old-caches", 1, KEEP).await.unwrap();
    assert_eq!(r.opened_from(), 0);
    assert_eq!(r.take_fresh().len(), 1500);
    assert_eq!(r.engine().state(), &want);
}

/// A workspace written by the v1 console (whole-record lines) opens with today's engine to the
/// state the same scenario gives now.
#[wasm_bindgen_test]
async fn a_v1_workspace_opens_to_the_state_of_today() {
    let _ = baton_wasm::delete_workspace_for_tests("v1").await;
    let v1 = include_str!("../../tests/fixtures/log-v1/s10_every_live_status_ends_every_way.jsonl");
    assert!(v1.lines().all(|l| l.starts_with("{\"v\":1,")));
    let script = include_str!("../../tests/scenarios/s10_every_live_status_ends_every_way.jsonl");
    let now = baton_core::scenario::run(script);
    let p = Persistent::import("v1", v1, baton_core::scenario::DEFAULT_SEED, KEEP).await.unwrap();
    assert_eq!(p.engine().state(), now.engine.state());
    p.close();
    let q = Persistent::open("v1", 1, KEEP).await.unwrap();
    assert_eq!(q.engine().state(), now.engine.state());
}

/// An export that starts with a snapshot (what `Baton.exportLog()` gives) imports: the workspace
/// opens to the same state, goes on taking commands, and exports the snapshot again (its log
/// does not go back further).
#[wasm_bindgen_test]
async fn an_export_with_a_snapshot_imports_and_exports_again() {
    use baton_core::{export_text, Engine, MemoryStorage, SeededIds};
    let mut e = Engine::open(MemoryStorage::new(), Box::new(SeededIds::new(6))).unwrap();
    e.host("register_agent", json!({"bot_id": "lead"}), Timestamp(T0)).unwrap();
    e.host("open_thread", json!({"thread_id": "chat_main", "bot_id": "lead"}), Timestamp(T0)).unwrap();
    let snapshot = e.snapshot();
    e.host("open_thread", json!({"thread_id": "chat_2", "bot_id": "lead"}), Timestamp(T0 + 1)).unwrap();
    let tail: Vec<_> = e.storage().records().iter().filter(|r| r.seq > snapshot.header.seq).cloned().collect();
    let text = export_text(Some(&snapshot), &tail);
    let _ = baton_wasm::delete_workspace_for_tests("snap-import").await;
    let p = Persistent::import("snap-import", &text, 6, KEEP).await.unwrap();
    assert_eq!(p.engine().state(), e.state());
    assert_eq!(p.history_starts_at().await.unwrap(), 3, "the log starts after the snapshot");
    p.exec(host("open_thread", json!({"thread_id": "chat_3", "bot_id": "lead"})), Timestamp(T0 + 2)).await.unwrap();
    e.host("open_thread", json!({"thread_id": "chat_3", "bot_id": "lead"}), Timestamp(T0 + 2)).unwrap();
    assert_eq!(p.engine().state(), e.state());
    let again = p.export().await.unwrap();
    let header = format!("{{\"snapshot\":{},", baton_core::SNAPSHOT_FORMAT_VERSION);
    assert!(again.starts_with(&header), "{again}");
    let _ = baton_wasm::delete_workspace_for_tests("snap-import-2").await;
    let q = Persistent::import("snap-import-2", &again, 6, KEEP).await.unwrap();
    assert_eq!(q.engine().state(), e.state());
}

/// A kept view (issue 26 item 4: the console's swimlanes of a large workspace) is given back
/// before the workspace opens while it reflects the log's last record, as it was kept; once a
/// record is stored after it, or the workspace has no log, it is not.
#[wasm_bindgen_test]
async fn a_kept_view_is_given_back_only_while_no_record_was_stored_after_it() {
    use baton_wasm::persist::current_view;
    let p = fresh("kept").await;
    assert_eq!(current_view("kept", "lanes").await.unwrap(), None, "nothing kept yet");
    p.exec(host("register_agent", json!({"bot_id": "lead"})), Timestamp(T0)).await.unwrap();
    p.exec(host("open_thread", json!({"thread_id": "chat_main", "bot_id": "lead"})), Timestamp(T0)).await.unwrap();
    let seq = p.engine().log_seq();
    let bytes: Vec<u8> = (0..=255u8).cycle().take(70_000).collect();
    p.keep_view("lanes", seq, &bytes).await.unwrap();
    assert_eq!(current_view("kept", "lanes").await.unwrap().as_deref(), Some(&bytes[..]));
    assert_eq!(current_view("kept", "graph").await.unwrap(), None, "kept under its own name");
    // Kept again at the same record: the new bytes replace the old.
    p.keep_view("lanes", seq, b"second").await.unwrap();
    assert_eq!(current_view("kept", "lanes").await.unwrap().as_deref(), Some(&b"second"[..]));
    // A record after it: the kept view is out of date and not given.
    p.exec(host("open_thread", json!({"thread_id": "chat_more", "bot_id": "lead"})), Timestamp(T0)).await.unwrap();
    assert_eq!(current_view("kept", "lanes").await.unwrap(), None);
    p.keep_view("lanes", seq + 1, b"third").await.unwrap();
    assert_eq!(current_view("kept", "lanes").await.unwrap().as_deref(), Some(&b"third"[..]));
    p.close();
}

/// More chunks than one request reads (16): a reopen reads them a page at a time, each page
/// after the last, and reaches the same state from them alone.
#[wasm_bindgen_test]
async fn a_workspace_of_more_chunks_than_one_read_reopens_from_all_of_them() {
    use baton_core::surface::HandoffArgs;
    use baton_core::{Engine, MemoryStorage, SeededIds};
    let _ = baton_wasm::delete_workspace_for_tests("many-chunks").await;
    // Handoffs: each record adds two things to the state (a thread and a handoff), so no
    // snapshot comes due and a reopen reads the chunks.
    let mut e = Engine::open(MemoryStorage::new(), Box::new(SeededIds::new(5))).unwrap();
    e.host("register_agent", json!({"bot_id": "lead"}), Timestamp(T0)).unwrap();
    e.host("register_agent", json!({"bot_id": "adam"}), Timestamp(T0)).unwrap();
    e.host("open_thread", json!({"thread_id": "chat_main", "bot_id": "lead"}), Timestamp(T0)).unwrap();
    for i in 3..17_500u64 {
        let args = HandoffArgs {
            task: format!("Task {i}"),
            target_bot: Some("adam".into()),
            async_mode: Some(true),
            ..HandoffArgs::default()
        };
        e.handoff(&Caller::new("chat_main", "lead"), args, Timestamp(T0 + i)).unwrap();
    }
    let log: String = e.storage().records().iter().map(|r| r.to_json_line() + "\n").collect();
    let p = Persistent::import("many-chunks", &log, 5, KEEP).await.unwrap();
    let want = p.engine().state().clone();
    p.close();
    assert_eq!(baton_wasm::chunk_ranges_for_tests("many-chunks").await.unwrap().len(), 17);
    // Only the chunks hold the first 17,000 records now: a read that stopped after its first
    // page would find the log short of them.
    baton_wasm::delete_log_for_tests("many-chunks", 17_000).await.unwrap();
    let q = Persistent::open("many-chunks", 1, KEEP).await.unwrap();
    assert_eq!(q.opened_from(), 0, "no snapshot: the chunks were read");
    assert_eq!(q.engine().log_seq(), 17_500);
    assert_eq!(q.engine().state(), &want);
    assert_eq!(q.take_fresh().iter().map(|r| r.seq).collect::<Vec<_>>(), (1..=17_500).collect::<Vec<_>>());
}

/// A workspace written in batches (the console's load generator) opens to the state of the log
/// it was given, from the chunks each batch cached; a batch that does not continue the log is
/// refused and stores nothing, and a workspace with records is not written over.
#[wasm_bindgen_test]
async fn a_workspace_written_in_batches_opens_to_the_state_of_its_log() {
    use baton_core::LogRecord;
    use baton_wasm::persist::Writer;
    for ws in ["batches", "batches-whole"] {
        let _ = baton_wasm::delete_workspace_for_tests(ws).await;
    }
    let (log, seed) = long_log(2_600);
    let lines: Vec<(u64, String)> =
        log.lines().map(|l| (LogRecord::from_json_line(l, 0).unwrap().seq, l.to_string())).collect();
    let mut w = Writer::create("batches", seed).await.unwrap();
    w.add(&lines[..1_500]).await.unwrap();
    let skipped = w.add(&lines[1_501..1_600]).await.unwrap_err();
    assert!(skipped.to_string().contains("record 1502 given where record 1501 comes next"), "{skipped}");
    w.add(&lines[1_500..]).await.unwrap();
    w.close();
    // The first batch held one full run of records; the second began inside the next run.
    assert_eq!(baton_wasm::chunk_ranges_for_tests("batches").await.unwrap(), [(1, 1000)]);
    let p = Persistent::open("batches", 1, KEEP).await.unwrap();
    let whole = Persistent::import("batches-whole", &log, seed, KEEP).await.unwrap();
    assert_eq!(p.engine().log_seq(), 2_600);
    assert_eq!(p.engine().state(), whole.engine().state());
    assert_eq!(p.export().await.unwrap(), log, "every record stored once, in order");
    p.close();
    assert!(Writer::create("batches", seed).await.is_err(), "a workspace with records is not written over");
}
