//! Bench script (issue "baton serve"): what a durable command costs against the bare SQLite
//! insert of the same bytes, with the same database settings (WAL, the same `synchronous`).
//! Rows: one command per transaction (what a lone client gets) and 16 per transaction (group
//! commit under load), each with `--sync full` and `--sync normal`. Medians of 15 batches.
//! A script rather than criterion: every command grows the log, and each row needs a fresh
//! database. Run: `cargo bench -p baton --bench durable`.
#![allow(clippy::disallowed_methods)]

// The server's SQLite storage, in the module tree it names its neighbours by (its log
// interface, and what it stores of keys).
#[allow(dead_code, unused_imports)]
#[path = "../src/serve"]
mod serve {
    pub mod storage {
        pub mod log;
        pub mod sqlite;
    }
    pub mod keys;
}
use serve::storage::sqlite as db;

use baton_core::{Engine, SeededIds, Timestamp};
use serde_json::json;
use std::time::Instant;

const T0: u64 = 1_767_600_000_000;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// A durable workload: transactions of commands.
trait Workload {
    fn begin(&mut self);
    fn commit(&mut self);
    fn run(&mut self, i: usize);
}

/// A host input through the engine into the log (the command a host sends most).
struct Baton(Engine<db::SqliteLog>);

impl Workload for Baton {
    fn begin(&mut self) {
        self.0.storage().begin().unwrap();
    }
    fn commit(&mut self) {
        self.0.storage().commit().unwrap();
    }
    fn run(&mut self, i: usize) {
        let args = json!({"bot_id": format!("bot_{i}"), "display_name": format!("Agent {i}")});
        self.0.host("register_agent", args, Timestamp(T0 + i as u64)).unwrap();
    }
}

/// The same line bytes inserted into the same table with the same settings.
struct Bare(rusqlite::Connection, String);

impl Workload for Bare {
    fn begin(&mut self) {
        self.0.execute_batch("BEGIN IMMEDIATE").unwrap();
    }
    fn commit(&mut self) {
        self.0.execute_batch("COMMIT").unwrap();
    }
    fn run(&mut self, i: usize) {
        db::append(&self.0, "w", i as u64 + 1, &self.1).unwrap();
    }
}

/// Per-command time (µs) in transactions of `per_tx` commands: median over 15 batches of 10
/// transactions, after 5 transactions of warm-up.
fn timed(per_tx: usize, w: &mut impl Workload) -> f64 {
    let mut i = 0;
    let mut tx = |w: &mut dyn FnMut(usize)| {
        for _ in 0..per_tx {
            w(i);
            i += 1;
        }
    };
    let mut one = |w: &mut dyn Workload| {
        w.begin();
        tx(&mut |k| w.run(k));
        w.commit();
    };
    for _ in 0..5 {
        one(w);
    }
    let per: Vec<f64> = (0..15)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..10 {
                one(w);
            }
            t.elapsed().as_secs_f64() * 1e6 / (10 * per_tx) as f64
        })
        .collect();
    median(per)
}

fn row(sync: db::SyncMode, per_tx: usize) {
    let dir = std::env::temp_dir().join(format!("baton-durable-{}-{per_tx}-{sync:?}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("baton.db");
    db::create_workspace(&db::open(&path, db::Settings::new(sync)).unwrap(), "w", 1, T0).unwrap();
    let log = db::SqliteLog::new(db::open(&path, db::Settings::new(sync)).unwrap(), "w");
    let mut baton = Baton(Engine::open(log, Box::new(SeededIds::new(1))).unwrap());
    let baton_us = timed(per_tx, &mut baton);
    drop(baton);
    let sample = db::lines_after(&db::open(&path, db::Settings::new(sync)).unwrap(), "w", 100, 1).unwrap().remove(0).1;
    let mut bare = Bare(db::open(&dir.join("bare.db"), db::Settings::new(sync)).unwrap(), sample);
    let bare_us = timed(per_tx, &mut bare);
    println!(
        "BENCH durable_command sync={sync:?} per_transaction={per_tx} baton_us={baton_us:.1} bare_insert_us={bare_us:.1} ratio={:.2}",
        baton_us / bare_us
    );
    std::fs::remove_dir_all(&dir).ok();
}

fn main() {
    for sync in [db::SyncMode::Full, db::SyncMode::Normal] {
        for per_tx in [1, 16] {
            row(sync, per_tx);
        }
    }
}
