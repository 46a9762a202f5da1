//! Bench script (issue "baton serve"): what a durable command costs as `baton serve` keeps it
//! (its workspace's records file, `baton_us`) and as it kept it before (the SQLite file's
//! tables, `baton_tables_us`), against the bare SQLite insert of the same bytes, with the same
//! database settings (WAL, the same `synchronous`), the same bytes appended to a plain file (one
//! write a transaction, and with `--sync full` one `fdatasync`), and as bare entries of
//! `baton-filelog`. Rows: one
//! command per transaction (what a lone client gets) and 16 per transaction
//! (group commit under load), each with `--sync full` and `--sync normal`. Medians of 15
//! batches, of the time and of the thread's CPU time (user and system).
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
        pub mod records;
        pub mod sqlite;
    }
    pub mod clock;
    pub mod keys;
}
use serve::storage::log::WriterLog;
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

/// A writer's log where the engine's `storage()` reaches its batch calls, as the server's
/// writer holds it.
struct Held(std::cell::RefCell<Box<dyn WriterLog>>);

impl baton_core::Storage for Held {
    fn append(&mut self, record: &baton_core::LogRecord) -> Result<(), baton_core::StorageError> {
        self.0.get_mut().append(record)
    }
    fn load(&self) -> Result<Vec<baton_core::LogRecord>, baton_core::StorageError> {
        self.0.borrow().load()
    }
    fn load_snapshot(&self) -> Result<Option<baton_core::Snapshot>, baton_core::StorageError> {
        self.0.borrow().load_snapshot()
    }
}

/// A host input through the engine into the log (the command a host sends most).
struct Baton(Engine<Held>);

impl Baton {
    fn open(log: Box<dyn WriterLog>) -> Baton {
        Baton(Engine::open(Held(std::cell::RefCell::new(log)), Box::new(SeededIds::new(1))).unwrap())
    }
}

impl Workload for Baton {
    fn begin(&mut self) {
        self.0.storage().0.borrow_mut().begin().unwrap();
    }
    fn commit(&mut self) {
        self.0.storage().0.borrow_mut().commit().unwrap();
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

/// The same line bytes appended to a file: one write a transaction, and one `fdatasync` when
/// every commit is to be durable. Either at the file's end (the file grows, so its size is
/// written with every sync) or into room written ahead (zeros, synced once), as a log that
/// keeps room ahead of its end would.
struct Append {
    file: std::fs::File,
    line: String,
    batch: Vec<u8>,
    sync: bool,
    /// Where the next write goes, when the room is written ahead.
    at: Option<u64>,
}

impl Append {
    fn new(path: &std::path::Path, line: String, sync: bool, ahead: bool) -> Append {
        use std::io::Write;
        let mut file = std::fs::File::options().create(true).truncate(true).read(true).write(true).open(path).unwrap();
        if ahead {
            // More than the rows write: 170 transactions of 16 lines of under a kilobyte.
            file.write_all(&vec![0; 8 << 20]).unwrap();
            file.sync_all().unwrap();
        }
        Append { file, line, batch: Vec::new(), sync, at: ahead.then_some(0) }
    }
}

impl Workload for Append {
    fn begin(&mut self) {
        self.batch.clear();
    }
    fn commit(&mut self) {
        use std::io::Write;
        use std::os::unix::fs::FileExt;
        match &mut self.at {
            Some(at) => {
                self.file.write_all_at(&self.batch, *at).unwrap();
                *at += self.batch.len() as u64;
            }
            None => self.file.write_all(&self.batch).unwrap(),
        }
        if self.sync {
            self.file.sync_data().unwrap();
        }
    }
    fn run(&mut self, _: usize) {
        self.batch.extend_from_slice(self.line.as_bytes());
        self.batch.push(b'\n');
    }
}

/// The same line as an entry of the framed log `baton-filelog` keeps (frames, checksums, a
/// commit frame a batch, room written ahead).
struct Framed(baton_filelog::FileLog, String, baton_filelog::Batch);

impl Workload for Framed {
    fn begin(&mut self) {
        self.2.clear();
    }
    fn commit(&mut self) {
        self.0.commit(&self.2).unwrap();
    }
    fn run(&mut self, i: usize) {
        self.2.push(1, i as u64 + 1, self.1.as_bytes());
    }
}

/// This thread's CPU time so far (user and system), in µs.
fn cpu_us() -> f64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `clock_gettime` writes the timespec it is given, which lives through the call.
    let ok = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } == 0;
    if ok {
        t.tv_sec as f64 * 1e6 + t.tv_nsec as f64 / 1e3
    } else {
        f64::NAN
    }
}

/// Per-command time and CPU time (µs) in transactions of `per_tx` commands: medians over 15
/// batches of 10 transactions, after 5 transactions of warm-up.
fn timed(per_tx: usize, w: &mut impl Workload) -> (f64, f64) {
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
    let (per, cpu): (Vec<f64>, Vec<f64>) = (0..15)
        .map(|_| {
            let (t, c) = (Instant::now(), cpu_us());
            for _ in 0..10 {
                one(w);
            }
            let n = (10 * per_tx) as f64;
            (t.elapsed().as_secs_f64() * 1e6 / n, (cpu_us() - c) / n)
        })
        .unzip();
    (median(per), median(cpu))
}

fn row(sync: db::SyncMode, per_tx: usize) {
    let dir = std::env::temp_dir().join(format!("baton-durable-{}-{per_tx}-{sync:?}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("baton.db");
    let settings = db::Settings::new(sync);
    let conn = || db::open(&path, settings).unwrap();
    db::create_workspace(&conn(), "w", 1, T0).unwrap();
    db::create_workspace(&conn(), "tables", 1, T0).unwrap();
    // As `baton serve` keeps a workspace: its records in a file of their own.
    let files = std::sync::Arc::new(serve::storage::records::Files::new(&path, settings));
    let mut baton = Baton::open(files.open_log(conn(), "w").unwrap());
    let (baton_us, baton_cpu) = timed(per_tx, &mut baton);
    let sample = baton.0.storage().0.borrow().lines_after(100, 1).unwrap().remove(0).1;
    drop(baton);
    // As it kept them before: in the SQLite file's tables.
    let mut tables = Baton::open(Box::new(db::SqliteLog::new(conn(), "tables")));
    let (tables_us, tables_cpu) = timed(per_tx, &mut tables);
    drop(tables);
    let mut bare = Bare(db::open(&dir.join("bare.db"), db::Settings::new(sync)).unwrap(), sample.clone());
    let (bare_us, bare_cpu) = timed(per_tx, &mut bare);
    let durable = sync == db::SyncMode::Full;
    let (append_us, append_cpu) =
        timed(per_tx, &mut Append::new(&dir.join("grows.log"), sample.clone(), durable, false));
    let (ahead_us, ahead_cpu) = timed(per_tx, &mut Append::new(&dir.join("ahead.log"), sample.clone(), durable, true));
    let (log, _) = baton_filelog::FileLog::open(&dir.join("framed.log"), durable, |_, _| {}).unwrap();
    let (framed_us, framed_cpu) = timed(per_tx, &mut Framed(log, sample, baton_filelog::Batch::new()));
    println!(
        "BENCH durable_command sync={sync:?} per_transaction={per_tx} baton_us={baton_us:.1} \
         baton_tables_us={tables_us:.1} bare_insert_us={bare_us:.1} ratio={:.2} file_append_us={append_us:.1} \
         file_ahead_us={ahead_us:.1} insert_over_ahead={:.2} filelog_us={framed_us:.1} cpu_us baton={baton_cpu:.1} \
         baton_tables={tables_cpu:.1} bare_insert={bare_cpu:.1} file_append={append_cpu:.1} file_ahead={ahead_cpu:.1} \
         filelog={framed_cpu:.1}",
        baton_us / bare_us,
        bare_us / ahead_us
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
