use super::*;
use std::path::PathBuf;

/// A scratch directory, removed when dropped (a failed test included).
struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Dir {
        let unique = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
        let dir = std::env::temp_dir().join(format!("baton-filelog-{name}-{}-{unique}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Dir(dir)
    }
    fn log(&self) -> PathBuf {
        self.0.join("w.log")
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        std::fs::remove_dir_all(&self.0).ok();
    }
}

fn batch(entries: &[(u8, u64, &str)]) -> Batch {
    let mut b = Batch::new();
    for (kind, number, text) in entries {
        b.push(*kind, *number, text.as_bytes());
    }
    b
}

fn entry(kind: u8, number: u64, text: &str) -> Entry {
    Entry { kind, number, bytes: text.as_bytes().to_vec() }
}

/// Opens the log, commits `batches` one by one and closes it: where each batch ends.
fn commit_all(path: &Path, batches: &[&[(u8, u64, &str)]]) -> Vec<u64> {
    let (mut log, _, _) = open(path);
    batches
        .iter()
        .map(|b| {
            log.commit(&batch(b)).unwrap();
            log.end()
        })
        .collect()
}

/// Writes `bytes` over the log's own at `at`, as a crash or damage would leave them.
fn overwrite(path: &Path, at: u64, bytes: &[u8]) {
    File::options().write(true).open(path).unwrap().write_all_at(bytes, at).unwrap();
}

/// Opens the log, and what it handed over: (offset, entry) in order.
fn open(path: &Path) -> (FileLog, Opened, Vec<(u64, Entry)>) {
    let mut seen = Vec::new();
    let (log, opened) = FileLog::open(path, false, |at, e| seen.push((at, e))).unwrap();
    (log, opened, seen)
}

fn entries(seen: &[(u64, Entry)]) -> Vec<Entry> {
    seen.iter().map(|(_, e)| e.clone()).collect()
}

/// How many bytes from `from` to the last that is not zero: what opening cuts.
fn nonzero_from(path: &Path, from: u64) -> u64 {
    let bytes = std::fs::read(path).unwrap();
    bytes[from as usize..].iter().rposition(|&b| b != 0).map_or(0, |i| i as u64 + 1)
}

/// Every entry a reader gives from the start.
fn read_all(r: &Reader) -> Vec<(u64, Entry)> {
    let (mut out, mut at) = (Vec::new(), 0);
    while let Some((here, e, next)) = r.next_entry(at).unwrap() {
        out.push((here, e));
        at = next;
    }
    out
}

#[test]
fn batches_read_back_in_order_after_opening_again() {
    let dir = Dir::new("order");
    let (mut log, opened, seen) = open(&dir.log());
    assert_eq!((opened, seen.len()), (Opened { entries: 0, batches: 0, cut: 0 }, 0));
    log.commit(&batch(&[(1, 1, "{\"a\":1}"), (2, 1, "effect one")])).unwrap();
    log.commit(&batch(&[])).unwrap();
    log.commit(&batch(&[(1, 2, ""), (1, 3, &"x".repeat(70_000)), (3, 9, "answer")])).unwrap();
    let want = vec![
        entry(1, 1, "{\"a\":1}"),
        entry(2, 1, "effect one"),
        entry(1, 2, ""),
        entry(1, 3, &"x".repeat(70_000)),
        entry(3, 9, "answer"),
    ];
    let written = read_all(&log.reader());
    assert!(entries(&written) == want, "a reader gives the entries committed");
    let b = batch(&[(1, 4, "four"), (2, 2, ""), (1, 5, "five")]);
    let before = log.end();
    let start = log.commit(&b).unwrap();
    assert_eq!(log.end() - before, b.framed_len(), "a batch takes what it says");
    assert_eq!(start, written.last().map(|(at, e)| at + (HEADER + e.bytes.len() + HEADER) as u64).unwrap());
    let offsets: Vec<u64> = b.offsets(start).collect();
    let now = read_all(&log.reader());
    assert_eq!(offsets, now[5..].iter().map(|(at, _)| *at).collect::<Vec<_>>(), "offsets as committed");
    let written = now;
    drop(log);
    let (log, opened, seen) = open(&dir.log());
    assert_eq!(opened, Opened { entries: 8, batches: 4, cut: 0 });
    let offsets =
        |v: &[(u64, Entry)]| v.iter().map(|(at, e)| (*at, e.kind, e.number, e.bytes.len())).collect::<Vec<_>>();
    assert_eq!(offsets(&seen), offsets(&written), "the same entries at the same offsets");
    assert!(seen == written, "the same bytes");
    assert!(read_all(&log.reader()) == written);
}

#[test]
fn room_is_written_ahead_a_chunk_at_a_time() {
    let dir = Dir::new("room");
    let (mut log, _, _) = open(&dir.log());
    log.commit(&batch(&[(1, 1, "first")])).unwrap();
    assert_eq!(log.file_len(), CHUNK);
    assert_eq!(std::fs::metadata(dir.log()).unwrap().len(), CHUNK);
    let big = "y".repeat(1 << 20);
    for n in 2..=5 {
        log.commit(&batch(&[(1, n, &big)])).unwrap();
    }
    assert!(log.end() > CHUNK && log.end() < 2 * CHUNK, "{}", log.end());
    assert_eq!(log.file_len(), 2 * CHUNK);
    drop(log);
    let (log, opened, _) = open(&dir.log());
    assert_eq!((opened.entries, opened.cut), (5, 0));
    assert_eq!(log.file_len(), 2 * CHUNK, "opening keeps the room");
}

#[test]
fn the_next_chunk_is_written_ahead_before_a_batch_needs_it() {
    let dir = Dir::new("ahead");
    let (mut log, _, _) = open(&dir.log());
    let half = "z".repeat((CHUNK / 2) as usize);
    log.commit(&batch(&[(1, 1, "first")])).unwrap();
    assert_eq!(log.file_len(), CHUNK);
    // Past half the room: the next chunk is written on a thread of its own.
    log.commit(&batch(&[(1, 2, &half)])).unwrap();
    assert!(log.end() < CHUNK, "{}", log.end());
    log.settle();
    assert_eq!(std::fs::metadata(dir.log()).unwrap().len(), 2 * CHUNK);
    // A batch that reaches past the first chunk takes that room (nothing more is written).
    log.commit(&batch(&[(1, 3, &half)])).unwrap();
    assert!(log.end() > CHUNK, "{}", log.end());
    assert_eq!(log.file_len(), 2 * CHUNK);
    drop(log);
    let (_, opened, seen) = open(&dir.log());
    assert_eq!((opened.entries, opened.cut), (3, 0));
    assert_eq!(seen[2].1, entry(1, 3, &half));
    assert!(nonzero_from(&dir.log(), seen[2].0 + (HEADER + half.len() + HEADER) as u64) == 0, "zeros after the end");
}

#[test]
fn a_batch_cut_short_is_dropped_kept_aside_and_its_bytes_zeroed() {
    let dir = Dir::new("torn");
    let ends = commit_all(&dir.log(), &[&[(1, 1, "kept")], &[(1, 2, "lost one"), (1, 3, "lost two")]]);
    let (end_a, end_b) = (ends[0], ends[1]);
    // A crash in the middle of the second batch's write: its last bytes (the end of its
    // second entry and the commit frame) never reached the disk.
    let lost = HEADER as u64 + 3;
    overwrite(&dir.log(), end_b - lost, &vec![0u8; lost as usize]);
    let (mut log, opened, seen) = open(&dir.log());
    assert_eq!(entries(&seen), [entry(1, 1, "kept")]);
    assert_eq!(opened, Opened { entries: 1, batches: 1, cut: end_b - lost - end_a });
    assert_eq!(log.end(), end_a);
    let kept = std::fs::read(dir.0.join(format!("w.log.cut-{end_a}"))).unwrap();
    assert_eq!(kept.len() as u64, opened.cut);
    assert!(kept.windows(8).any(|w| w == b"lost one"), "the cut bytes are kept aside");
    let bytes = std::fs::read(dir.log()).unwrap();
    assert!(bytes[end_a as usize..].iter().all(|&b| b == 0), "the room ahead is zeros again");
    // The log goes on from the last whole batch.
    log.commit(&batch(&[(1, 2, "again")])).unwrap();
    drop(log);
    let (_, opened, seen) = open(&dir.log());
    assert_eq!(entries(&seen), [entry(1, 1, "kept"), entry(1, 2, "again")]);
    assert_eq!(opened.cut, 0);
}

#[test]
fn a_batch_without_its_commit_frame_does_not_count() {
    let dir = Dir::new("uncommitted");
    let ends = commit_all(&dir.log(), &[&[(1, 1, "kept")], &[(1, 2, "whole entry, no commit")]]);
    let (end_a, end_b) = (ends[0], ends[1]);
    // The entry's frame is whole and checks out; the commit frame after it is gone.
    overwrite(&dir.log(), end_b - HEADER as u64, &[0u8; HEADER]);
    let (log, opened, seen) = open(&dir.log());
    assert_eq!(entries(&seen), [entry(1, 1, "kept")]);
    assert_eq!((opened.batches, log.end()), (1, end_a));
    assert!(opened.cut > 0);
}

#[test]
fn frames_left_behind_a_shorter_newer_batch_never_count() {
    let dir = Dir::new("chain");
    let long = [(1, 2, "an older, longer batch"), (1, 3, "whose frames"), (1, 4, "each check out")];
    let ends = commit_all(&dir.log(), &[&[(1, 1, "first")], &long]);
    let (end_a, end_long) = (ends[0], ends[1]);
    let old = std::fs::read(dir.log()).unwrap()[end_a as usize..end_long as usize].to_vec();
    // Back to the first batch (as if the long one had been cut short and dropped), then a
    // shorter batch in its place.
    overwrite(&dir.log(), end_a, &vec![0u8; old.len()]);
    let end_new = commit_all(&dir.log(), &[&[(1, 2, "new")]])[0];
    // The old batch's later frames and its commit frame, left behind the new one.
    let behind = (end_new - end_a) as usize;
    overwrite(&dir.log(), end_new, &old[behind..]);
    let stale = nonzero_from(&dir.log(), end_new);
    assert!(stale > 2 * HEADER as u64, "{stale}");
    let (_, opened, seen) = open(&dir.log());
    assert_eq!(entries(&seen), [entry(1, 1, "first"), entry(1, 2, "new")]);
    assert_eq!(opened.cut, stale);
}

#[test]
fn damage_inside_a_committed_batch_stops_the_read_there_and_is_kept_aside() {
    let dir = Dir::new("damage");
    let ends = commit_all(&dir.log(), &[&[(1, 1, "one")], &[(1, 2, "two")], &[(1, 3, "three")]]);
    let (end_a, end_c) = (ends[0], ends[2]);
    let at = end_a + HEADER as u64; // the first byte of "two"
    overwrite(&dir.log(), at, b"T");
    let after = nonzero_from(&dir.log(), end_a);
    assert!(after > end_c - end_a - HEADER as u64 && after <= end_c - end_a, "{after}");
    let (_, opened, seen) = open(&dir.log());
    assert_eq!(entries(&seen), [entry(1, 1, "one")]);
    assert_eq!(opened.cut, after, "both later batches are reported, not dropped silently");
    let kept = std::fs::read(dir.0.join(format!("w.log.cut-{end_a}"))).unwrap();
    assert!(kept.windows(5).any(|w| w == b"three"));
    // Cut again at the same offset (another crash there): the first cut's file stays.
    let end = commit_all(&dir.log(), &[&[(1, 2, "later")]])[0];
    overwrite(&dir.log(), end - HEADER as u64, &[0u8; HEADER]);
    let (_, again, _) = open(&dir.log());
    assert!(again.cut > 0);
    assert_eq!(std::fs::read(dir.0.join(format!("w.log.cut-{end_a}"))).unwrap(), kept);
    assert!(std::fs::read(dir.0.join(format!("w.log.cut-{end_a}.1"))).unwrap().windows(5).any(|w| w == b"later"));
}

#[test]
fn readers_see_a_batch_once_its_commit_returns() {
    let dir = Dir::new("readers");
    let (mut log, _, _) = open(&dir.log());
    let reader = log.reader();
    assert_eq!(reader.next_entry(0).unwrap(), None);
    let mut b = batch(&[(1, 1, "a")]);
    log.commit(&b).unwrap();
    let (at, first, next) = reader.next_entry(0).unwrap().unwrap();
    assert_eq!((at, first), (0, entry(1, 1, "a")));
    assert_eq!(reader.next_entry(next).unwrap(), None, "the commit frame is skipped; nothing after it yet");
    b.clear();
    b.push(2, 7, b"b");
    log.commit(&b).unwrap();
    let (at, second, _) = reader.next_entry(next).unwrap().unwrap();
    assert_eq!(second, entry(2, 7, "b"));
    assert!(at > next, "the second entry comes after the first batch's commit frame");
    // A reader on another thread.
    let r = reader.clone();
    let all = std::thread::spawn(move || read_all(&r).len()).join().unwrap();
    assert_eq!(all, 2);
}

#[test]
fn synced_commits_read_back() {
    let dir = Dir::new("synced");
    let (mut log, _) = FileLog::open(&dir.log(), true, |_, _| {}).unwrap();
    for n in 1..=20 {
        log.commit(&batch(&[(1, n, "a record"), (2, n, "an effect")])).unwrap();
    }
    drop(log);
    let mut n = 0;
    let (_, opened) = FileLog::open(&dir.log(), true, |_, _| n += 1).unwrap();
    assert_eq!((opened.entries, opened.batches, n), (40, 20, 40));
}

#[test]
#[should_panic(expected = "kind 0 ends a batch")]
fn an_entry_of_the_commit_kind_is_refused() {
    Batch::new().push(COMMIT, 1, b"x");
}

#[test]
fn opened_for_reading_only_it_reads_what_is_committed_and_changes_nothing() {
    let dir = Dir::new("read-only");
    let ends = commit_all(&dir.log(), &[&[(1, 1, "kept")], &[(2, 7, "being written")]]);
    // The second batch's commit frame is not on the disk yet (another process writing it).
    overwrite(&dir.log(), ends[1] - HEADER as u64, &[0u8; HEADER]);
    let before = std::fs::read(dir.log()).unwrap();
    let mut seen = Vec::new();
    let (mut log, opened) = FileLog::open_read_only(&dir.log(), |at, e| seen.push((at, e))).unwrap();
    assert_eq!(entries(&seen), [entry(1, 1, "kept")]);
    assert_eq!(opened, Opened { entries: 1, batches: 1, cut: 0 });
    assert_eq!(read_all(&log.reader()), seen);
    assert!(matches!(log.commit(&batch(&[(1, 2, "refused")])), Err(CommitError::ReadOnly)));
    drop(log);
    assert_eq!(std::fs::read(dir.log()).unwrap(), before, "not a byte changed");
    assert!(!dir.0.join(format!("w.log.cut-{}", ends[0])).exists(), "nothing was cut");
    // A missing log is an error, not a new file.
    let missing = dir.0.join("none.log");
    assert!(FileLog::open_read_only(&missing, |_, _| ()).is_err());
    assert!(!missing.exists());
}

#[test]
fn synced_batches_of_every_size_write_the_same_bytes_past_the_page_cache() {
    let (direct, buffered) = (Dir::new("direct"), Dir::new("buffered"));
    let (mut synced, _) = FileLog::open(&direct.log(), true, |_, _| {}).unwrap();
    // Direct writes are used wherever the file system takes them (here a probe of its own).
    let probe = direct.0.join("probe");
    File::create(&probe).unwrap();
    assert_eq!(synced.direct(), open_direct(&probe).is_ok());
    let (mut plain, _) = FileLog::open(&buffered.log(), false, |_, _| {}).unwrap();
    assert!(!plain.direct(), "commits that are not synced stay in the page cache");
    let reader = synced.reader();
    let mut all = Vec::new();
    // Sizes that end inside a block, on its boundary and several blocks on.
    let texts: Vec<String> = (0..200u64).map(|n| "x".repeat(((n * 977) % 5000) as usize + (n % 3) as usize)).collect();
    for (n, text) in texts.iter().enumerate() {
        let entries = [(1, n as u64, text.as_str()), (2, n as u64, "an effect")];
        let at = synced.commit(&batch(&entries)).unwrap();
        assert_eq!(plain.commit(&batch(&entries)).unwrap(), at);
        // A reader sees the batch just written, through the page cache.
        let mut offset = at;
        for (kind, number, text) in entries {
            let (_, e, next) = reader.next_entry(offset).unwrap().expect("the entry is there");
            assert_eq!(e, entry(kind, number, text));
            offset = next;
        }
        all.push(entry(1, n as u64, text));
        all.push(entry(2, n as u64, "an effect"));
    }
    drop((synced, plain));
    assert_eq!(std::fs::read(direct.log()).unwrap(), std::fs::read(buffered.log()).unwrap(), "the same bytes");
    let (log, opened, seen) = open(&direct.log());
    assert_eq!(entries(&seen), all);
    assert_eq!(opened.cut, 0);
    drop(log);
    // Opened again, the tail block's committed bytes are read back and written again in front.
    let (mut again, _) = FileLog::open(&direct.log(), true, |_, _| {}).unwrap();
    again.commit(&batch(&[(1, 999, "after opening again")])).unwrap();
    drop(again);
    let (_, _, seen) = open(&direct.log());
    all.push(entry(1, 999, "after opening again"));
    assert_eq!(entries(&seen), all);
}

#[test]
fn unsynced_commits_are_on_the_disk_once_synced_and_synced_ones_at_once() {
    let dir = Dir::new("synced-end");
    let (mut log, _, _) = open(&dir.log());
    let first = log.commit(&batch(&[(1, 1, "one")])).unwrap();
    log.commit(&batch(&[(1, 2, "two")])).unwrap();
    assert_eq!(log.synced(), 0, "not synced: not known to be on the disk");
    log.sync().unwrap();
    assert_eq!(log.synced(), log.end());
    assert!(log.synced() > first);
    log.commit(&batch(&[(1, 3, "three")])).unwrap();
    assert!(log.synced() < log.end());
    drop(log);
    // Opened with synced commits, what was read is synced first, and each commit after it.
    let (mut log, _) = FileLog::open(&dir.log(), true, |_, _| {}).unwrap();
    assert_eq!(log.synced(), log.end());
    log.commit(&batch(&[(1, 4, "four")])).unwrap();
    assert_eq!(log.synced(), log.end());
}
