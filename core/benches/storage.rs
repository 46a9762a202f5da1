//! Bench script (issue "Engine v2, part 2"): the storage side of a long-lived workspace,
//! natively. Prints BENCH lines that `bench/storage.sh` gathers with the Node and console runs.
//!
//! - the full delegation cycle (the same six commands as the Node bench, through the JSON
//!   entry points) at 10k / 100k / 1M retained handoffs, over the compact store (no history
//!   kept) with every record also encoded to its JSON line, as a durable store would;
//! - resident memory per retained handoff (RSS growth over the fill, compact store);
//! - the cycle again at 10k / 100k with no record sealed (`keep_hot_records(usize::MAX)`);
//!   each cycle row runs in a fresh process, so no row reuses memory another freed;
//! - opening a 100k-handoff workspace: replaying the whole log from its JSON lines, and reading
//!   a snapshot's lines (no records after it);
//! - taking that snapshot, as a durable writer does inside its commit (`Engine::snapshot`, then
//!   its lines): the pause a snapshot costs grows with the state (issue 26 item 1).
//!
//! A script rather than criterion: every cycle adds a handoff, so criterion's iteration counts
//! would grow the sizes under test. Medians of 21 timed batches, all sizes in one run.
//! Run: `cargo bench -p baton-core --bench storage` (BATON_BENCH_SIZES=10000,100000 to choose);
//! `--bench storage_mimalloc` runs the same with mimalloc as the global allocator (what
//! a native server links).
// The bench is a host, not the core: it may read the clock, the environment and /proc.
#![allow(clippy::disallowed_methods)]

use baton_core::{
    read_export_lines, CompactStorage, Engine, LogRecord, MemoryStorage, SeededIds, Storage, StorageError,
};
use std::hint::black_box;

// The cycles bench's setup and timing, shared (its other parts are unused here).
#[allow(dead_code)]
#[path = "common/mod.rs"]
mod common;
use common::median_ns;
#[path = "delegation/mod.rs"]
mod delegation;
use delegation::Cycle;

/// The compact store, plus each record encoded to its JSON line into a reused buffer (what a
/// durable store pays before its write).
#[derive(Default)]
struct Encoded {
    inner: CompactStorage,
    sink: common::EncodeSink,
}

impl Storage for Encoded {
    fn append(&mut self, record: &LogRecord) -> Result<(), StorageError> {
        self.sink.append(record)?;
        self.inner.append(record)
    }
    fn load(&self) -> Result<Vec<LogRecord>, StorageError> {
        self.inner.load()
    }
}

/// Resident set size, in bytes (Linux).
fn rss() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1).and_then(|p| p.parse::<u64>().ok()))
        .map_or(0, |pages| pages * 4096)
}

fn cycle_at(n: usize, keep_hot: usize) {
    let before = rss();
    let mut c = Cycle::new(Encoded::default());
    c.e.keep_hot_records(keep_hot);
    for _ in 0..n {
        c.run();
    }
    let grown = rss().saturating_sub(before);
    let batch = (n / 2100).max(5);
    let ns = median_ns(21, batch, || c.run());
    let bytes_per_cycle = c.e.storage().sink.bytes as f64 / c.e.log_seq() as f64 * 6.0;
    println!(
        "BENCH native_cycle retained={} sealed={} cycle_us={:.2} cycles_per_s={:.0} rss_bytes_per_handoff={:.0} log_bytes_per_cycle={:.0}",
        c.e.state().handoffs.len(),
        if keep_hot == usize::MAX { "no" } else { "yes" },
        ns / 1e3,
        1e9 / ns,
        grown as f64 / n as f64,
        bytes_per_cycle
    );
}

fn open_at(n: usize) {
    let mut c = Cycle::new(MemoryStorage::new());
    for _ in 0..n {
        c.run();
    }
    let log: Vec<String> = c.e.storage().records().iter().map(LogRecord::to_json_line).collect();
    let snapshot: Vec<String> = c.e.snapshot().to_lines().collect();
    let log_bytes: usize = log.iter().map(|l| l.len() + 1).sum();
    let snap_bytes: usize = snapshot.iter().map(|l| l.len() + 1).sum();
    let expected = c.e.state().clone();
    let take = median_ns(5, 1, || drop(black_box(c.e.snapshot())));
    let take_lines = median_ns(5, 1, || drop(black_box(c.e.snapshot().to_lines().collect::<Vec<_>>())));
    let freeze = median_ns(5, 1, || drop(black_box(c.e.freeze())));
    println!(
        "BENCH native_snapshot_take handoffs={n} freeze_ms={:.1} snapshot_ms={:.1} with_lines_ms={:.1} snapshot_mb={:.1}",
        freeze / 1e6,
        take / 1e6,
        take_lines / 1e6,
        snap_bytes as f64 / 1e6
    );
    drop(c);
    // What a host that reads its own store does: parse, then open from the snapshot it read
    // and the records after it.
    let open = |lines: &[String]| {
        let (snap, records) = read_export_lines(lines.iter().map(String::as_str)).unwrap();
        Engine::open_from(snap, MemoryStorage::from_records(records), Box::new(SeededIds::new(5))).unwrap()
    };
    assert!(open(&log).state() == &expected && open(&snapshot).state() == &expected, "both paths open the same state");
    let parse_only =
        median_ns(3, 1, || drop(black_box(read_export_lines(snapshot.iter().map(String::as_str)).unwrap())));
    let replay = median_ns(5, 1, || drop(black_box(open(&log))));
    let snap = median_ns(5, 1, || drop(black_box(open(&snapshot))));
    println!(
        "BENCH native_open handoffs={n} replay_ms={:.0} log_mb={:.1} snapshot_ms={:.0} of_which_parse_ms={:.0} snapshot_mb={:.1}",
        replay / 1e6,
        log_bytes as f64 / 1e6,
        snap / 1e6,
        parse_only / 1e6,
        snap_bytes as f64 / 1e6
    );
}

pub fn main() {
    if let Ok(row) = std::env::var("BATON_BENCH_ROW") {
        let (n, keep) = row.split_once(',').expect("n,keep");
        cycle_at(n.parse().expect("a size"), keep.parse().expect("a record count"));
        return;
    }
    let sizes: Vec<usize> = std::env::var("BATON_BENCH_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![10_000, 100_000, 1_000_000]);
    // Each row in a fresh process (this program again): a row run after another would reuse the
    // memory that one freed, which hides page faults from its time and its growth from RSS.
    // Sealed (the default) at every size; with no record sealed at 10k and 100k, to show what
    // sealing costs.
    let rows = sizes
        .iter()
        .map(|&n| (n, baton_core::HOT_RECORDS))
        .chain(sizes.iter().filter(|&&n| n <= 100_000).map(|&n| (n, usize::MAX)));
    for (n, keep) in rows {
        let status = std::process::Command::new(std::env::current_exe().expect("the bench's own path"))
            .env("BATON_BENCH_ROW", format!("{n},{keep}"))
            .status()
            .expect("the bench runs a row in a child process");
        assert!(status.success(), "row {n} (keep {keep}) failed");
    }
    let open_n = std::env::var("BATON_BENCH_OPEN").ok().and_then(|s| s.parse().ok()).unwrap_or(100_000);
    if open_n > 0 {
        open_at(open_n);
    }
}
