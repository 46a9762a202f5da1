//! What reading a workspace's records costs in each stored form, for the stored-form decision
//! (docs/PERFORMANCE.md, "What a binary record form would buy"). The records are the console's
//! load shape (the same 100 parent threads and nested handoffs as `#/generate/N`); each
//! figure is the median of 5 passes over all of them:
//!
//! - **JSON**: each line parsed by `LogRecord::from_json_line`, as the console and every store
//!   read them today;
//! - **MessagePack** (`rmp-serde`, fields by name) and **CBOR** (`ciborium`): the binary forms
//!   the records' serde declarations can take as they are (their omitted defaults and
//!   internally tagged changes need a format that names fields; positional formats such as
//!   `postcard` cannot read them);
//! - **scanned only**: each line read by serde_json into `IgnoredAny`, which checks the JSON
//!   and builds nothing: the floor of any reader of these lines that keeps them as text;
//! - **the chains view's columns alone**: from each line only what the chains view draws
//!   (ids, agents, status, times, the task or title), strings borrowed from the line: what a
//!   console that kept the lines as text would read for its first picture;
//! - **the values alone**: every record built again field by field from one already in
//!   memory (`deep_clone`) — the allocations any reader must make, a floor no form goes under
//!   while the engine holds records as these values;
//! - **apply**: the records absorbed into an engine that keeps every one a value, as the
//!   console's does: the part of opening no record form changes; again with the due index
//!   deferred (`Engine::defer_due_index`, as the console opens), and deferred then built.
//! - **a snapshot, read and restored**: the same state's snapshot lines parsed and opened, the
//!   path of a host that opens from a snapshot (the console, when the workspace has one; a
//!   generated workspace has none and is replayed, as the rows above are); again with the due
//!   index deferred (`Engine::open_from_due_later`, as the console opens).
//! - **the chains view's rows** and **the swimlanes**: what the console's first picture asks
//!   of the opened engine once it has read the records (the graph lays out the same rows).
//!
//! `cargo bench -p baton-core --bench forms` (`N=1000000` for another size). The same bench
//! runs on wasm32 in Node, where the console runs, at 100,000 handoffs and without the two
//! binary forms (their crates are native dev-dependencies): `bash bench/forms-wasm.sh`.
// The bench is a host, not the core: it may read the clock and the environment.
#![allow(clippy::disallowed_methods)]

// The load shape is the cycles bench's; the rest of its script is not run here.
#[allow(dead_code)]
mod common;
use baton_core::{Change, Engine, LogRecord, MemoryStorage, NoStorage, SeededIds, Snapshot, Storage};
use std::sync::Arc;

/// What the bench needs of its host: a clock in ms, a line of output, the size asked for.
#[cfg(not(target_arch = "wasm32"))]
mod host {
    use std::sync::OnceLock;
    use std::time::Instant;

    pub fn now_ms() -> f64 {
        static START: OnceLock<Instant> = OnceLock::new();
        START.get_or_init(Instant::now).elapsed().as_secs_f64() * 1e3
    }
    pub fn out(line: &str) {
        println!("{line}");
    }
    pub fn handoffs() -> usize {
        std::env::var("N").ok().and_then(|s| s.parse().ok()).unwrap_or(100_000)
    }
}

/// On wasm32 the host is Node, reached through `wasm-bindgen` (`bench/forms-wasm.sh`).
#[cfg(target_arch = "wasm32")]
mod host {
    use wasm_bindgen::prelude::wasm_bindgen;

    #[wasm_bindgen]
    extern "C" {
        #[wasm_bindgen(js_namespace = performance, js_name = now)]
        pub fn now_ms() -> f64;
        #[wasm_bindgen(js_namespace = console, js_name = log)]
        pub fn out(line: &str);
    }
    pub fn handoffs() -> usize {
        100_000
    }
}

/// The console's load shape's records: `n` handoffs from 100 parent threads.
fn records(n: usize) -> Vec<LogRecord> {
    let mut engine = Engine::open(MemoryStorage::default(), Box::new(SeededIds::new(7))).unwrap();
    common::load_shape(&mut engine, n);
    engine.storage().load().unwrap()
}

/// A record built again down to its fields (a plain clone shares the records behind `Arc`).
/// On wasm32, where an id is shared text, the ids are shared, not built again: there this is
/// a floor for every field but the ids.
fn deep_clone(r: &LogRecord) -> LogRecord {
    let changes = r
        .changes
        .iter()
        .map(|c| match c {
            Change::Handoff(h) => Change::Handoff(Arc::new((**h).clone())),
            Change::Thread(t) => Change::Thread(Arc::new((**t).clone())),
            Change::Message(m) => Change::Message(Arc::new((**m).clone())),
            Change::Activity { thread_id, activity } => {
                Change::Activity { thread_id: thread_id.clone(), activity: Arc::new((**activity).clone()) }
            }
            other => other.clone(),
        })
        .collect();
    LogRecord { changes, command: r.command.clone(), trace: r.trace.clone(), ..*r }
}

/// The records absorbed into an engine that keeps every one a value, as the console's does.
fn absorbed(recs: &[LogRecord]) -> Engine<NoStorage> {
    let mut e = Engine::open(NoStorage, Box::new(SeededIds::new(7))).unwrap();
    e.keep_hot_records(usize::MAX);
    for r in recs {
        e.absorb(r).unwrap();
    }
    e
}

/// As [`absorbed`], with the due index deferred (the console's first picture comes before it
/// is built); `build` builds it at the end.
fn absorbed_deferring_due(recs: &[LogRecord], build: bool) -> Engine<NoStorage> {
    let mut e = Engine::open(NoStorage, Box::new(SeededIds::new(7))).unwrap();
    e.keep_hot_records(usize::MAX);
    e.defer_due_index();
    for r in recs {
        e.absorb(r).unwrap();
    }
    if build {
        e.build_due_index();
    }
    e
}

/// The median and the fastest of 5 passes of `f`, in ms; what a pass made is dropped outside
/// the time.
fn time<T>(label: &str, f: impl Fn() -> T) -> f64 {
    let mut ms = Vec::new();
    for _ in 0..5 {
        let t = host::now_ms();
        let made = f();
        ms.push(host::now_ms() - t);
        drop(made);
    }
    ms.sort_by(f64::total_cmp);
    host::out(&format!("| {label} | {:.1} | {:.1} |", ms[2], ms[0]));
    ms[2]
}

/// What the chains view draws of a record, read straight from its line, every string borrowed
/// from it: what a console that kept each line as text would read to draw its first picture (a
/// prototype's measure, not the console's code). The load shape's strings need no unescaping;
/// a real reader would copy the few that do.
#[derive(serde::Deserialize)]
struct Columns<'a> {
    #[serde(borrow)]
    changes: Vec<ChangeColumns<'a>>,
}

// Read to be timed: most fields are never looked at again.
#[allow(dead_code)]
#[derive(serde::Deserialize)]
struct ChangeColumns<'a> {
    kind: &'a str,
    handoff_id: Option<&'a str>,
    thread_id: Option<&'a str>,
    parent_thread_id: Option<&'a str>,
    child_thread_id: Option<&'a str>,
    parent_bot_id: Option<&'a str>,
    child_bot_id: Option<&'a str>,
    bot_id: Option<&'a str>,
    title: Option<&'a str>,
    status: Option<&'a str>,
    created_at: Option<u64>,
    nudges_sent: Option<u32>,
    #[serde(borrow)]
    spec: Option<SpecColumns<'a>>,
    activity: Option<ActivityColumns>,
}

// Read to be timed: most fields are never looked at again.
#[allow(dead_code)]
#[derive(serde::Deserialize)]
struct SpecColumns<'a> {
    task: Option<&'a str>,
    blueprint: Option<&'a str>,
}

// Read to be timed: most fields are never looked at again.
#[allow(dead_code)]
#[derive(serde::Deserialize)]
struct ActivityColumns {
    last_activity_at: Option<u64>,
    tool_call_count: Option<u64>,
}

/// The two binary forms, written from the records, checked to read them back, and timed
/// reading them: natively only, where their crates are dev-dependencies.
#[cfg(not(target_arch = "wasm32"))]
mod binary {
    use super::{time, LogRecord};

    pub struct Forms {
        msgpack: Vec<Vec<u8>>,
        cbor: Vec<Vec<u8>>,
    }

    impl Forms {
        pub fn write(recs: &[LogRecord]) -> Self {
            let msgpack: Vec<Vec<u8>> = recs.iter().map(|r| rmp_serde::to_vec_named(r).unwrap()).collect();
            let cbor: Vec<Vec<u8>> = recs
                .iter()
                .map(|r| {
                    let mut v = Vec::new();
                    ciborium::into_writer(r, &mut v).unwrap();
                    v
                })
                .collect();
            for (i, r) in recs.iter().enumerate() {
                assert_eq!(&rmp_serde::from_slice::<LogRecord>(&msgpack[i]).unwrap(), r);
                assert_eq!(&ciborium::from_reader::<LogRecord, _>(&cbor[i][..]).unwrap(), r);
            }
            Forms { msgpack, cbor }
        }

        /// Their bytes a record, to follow JSON's on the bench's first line.
        pub fn sizes(&self) -> String {
            let mean = |forms: &[Vec<u8>]| forms.iter().map(Vec::len).sum::<usize>() as f64 / forms.len() as f64;
            format!(", MessagePack {:.0}, CBOR {:.0}", mean(&self.msgpack), mean(&self.cbor))
        }

        /// Both timed reading every record; MessagePack's median.
        pub fn read(&self) -> Option<f64> {
            let mp = time("MessagePack, read", || {
                self.msgpack.iter().map(|b| rmp_serde::from_slice::<LogRecord>(b).unwrap()).collect::<Vec<_>>()
            });
            time("CBOR, read", || {
                self.cbor.iter().map(|b| ciborium::from_reader::<LogRecord, _>(&b[..]).unwrap()).collect::<Vec<_>>()
            });
            Some(mp)
        }
    }
}

/// On wasm32 the binary forms are left out.
#[cfg(target_arch = "wasm32")]
mod binary {
    use super::LogRecord;

    pub struct Forms;

    impl Forms {
        pub fn write(_: &[LogRecord]) -> Self {
            Forms
        }
        pub fn sizes(&self) -> String {
            String::new()
        }
        pub fn read(&self) -> Option<f64> {
            None
        }
    }
}

fn main() {
    let n = host::handoffs();
    let recs = records(n);
    let json: Vec<String> = recs.iter().map(|r| r.to_json_line()).collect();
    let binary = binary::Forms::write(&recs);
    // Every form reads back the records it was written from.
    for (i, r) in recs.iter().enumerate() {
        assert_eq!(&LogRecord::from_json_line(&json[i], i).unwrap(), r);
    }
    let json_bytes = json.iter().map(String::len).sum::<usize>() as f64 / recs.len() as f64;
    host::out(&format!(
        "{n} handoffs, {} records, on {}; bytes a record: JSON {json_bytes:.0}{}",
        recs.len(),
        std::env::consts::ARCH,
        binary.sizes()
    ));
    host::out("");
    host::out("| every record | median ms | fastest ms |");
    host::out("|---|---:|---:|");
    let parse = time("JSON, parsed", || {
        json.iter().enumerate().map(|(i, l)| LogRecord::from_json_line(l, i).unwrap()).collect::<Vec<_>>()
    });
    // The floor of any reader of these lines: the JSON scanned, nothing built.
    let scan = time("JSON, scanned only (nothing built: `IgnoredAny`)", || {
        for l in &json {
            std::hint::black_box(serde_json::from_str::<serde::de::IgnoredAny>(l).unwrap());
        }
    });
    // The chains view's columns alone, read from the lines: every handoff's are there.
    let handoffs: usize = json
        .iter()
        .map(|l| {
            let line = serde_json::from_str::<Columns>(l).unwrap();
            line.changes
                .iter()
                .filter(|c| {
                    c.kind == "handoff" && c.handoff_id.is_some() && c.status.is_some() && c.created_at.is_some()
                })
                .filter(|c| c.spec.as_ref().is_some_and(|s| s.task.is_some()))
                .count()
        })
        .sum();
    assert_eq!(handoffs, n, "every handoff's columns are read");
    // Timed as a reader that keeps only compact columns would run: each line's fields read and
    // let go (the structs above are far wider than such columns; collecting them all would
    // time writing 100 MB of them).
    let columns = time("JSON, the chains view's columns alone (strings borrowed)", || {
        json.iter().map(|l| serde_json::from_str::<Columns>(l).unwrap().changes.len()).sum::<usize>()
    });
    let mp = binary.read();
    let values = time("the values alone (built again from memory)", || recs.iter().map(deep_clone).collect::<Vec<_>>());
    let apply = time("applied to an engine that keeps every record a value", || absorbed(&recs));
    time("applied so, the due index deferred", || absorbed_deferring_due(&recs, false));
    time("applied so, the due index deferred and then built", || absorbed_deferring_due(&recs, true));
    time("JSON, written", || recs.iter().map(LogRecord::to_json_line).collect::<Vec<_>>());
    // Opening from a snapshot: its lines read and restored (no log replayed).
    let engine = absorbed(&recs);
    // A snapshot written as a host stores it (one text).
    time("a snapshot of them, written", || engine.snapshot().to_lines().collect::<Vec<_>>().join("\n"));
    let lines: Vec<String> = engine.snapshot().to_lines().collect();
    drop(engine);
    time("a snapshot of them, read and restored", || {
        let s = Snapshot::from_lines(lines.iter().map(String::as_str)).unwrap();
        Engine::open_from_keeping_hot(Some(s), NoStorage, Box::new(SeededIds::new(7)), Some(usize::MAX)).unwrap()
    });
    time("the same, the due index deferred", || {
        let s = Snapshot::from_lines(lines.iter().map(String::as_str)).unwrap();
        Engine::open_from_due_later(Some(s), NoStorage, Box::new(SeededIds::new(7)), Some(usize::MAX)).unwrap()
    });
    // What the first picture asks of the opened engine, where the console draws it: the chains
    // view's rows (the graph lays them out too) and the swimlanes, at the last record's time.
    let engine = absorbed_deferring_due(&recs, false);
    let now = recs.last().map_or(baton_core::Timestamp(0), |r| r.at);
    time("the chains view's rows, every handoff (the opened engine read)", || {
        baton_core::view::chain_rows(engine.state(), now, &Default::default(), &Default::default())
    });
    time("the swimlanes (the same)", || baton_core::view::swimlanes(engine.state(), &Default::default(), now, None));
    drop(engine);
    host::out("");
    let snapshot_bytes = lines.iter().map(|l| l.len() + 1).sum::<usize>();
    host::out(&format!(
        "the snapshot: {} lines, {snapshot_bytes} bytes (the records' JSON lines: {})",
        lines.len(),
        json.iter().map(|l| l.len() + 1).sum::<usize>()
    ));
    host::out(&format!(
        "{}JSON / the values alone {:.1}×; JSON parsed / scanned only {:.1}×; JSON parsed / the columns alone {:.1}×; parse + apply {:.0} ms, of which apply {:.0} %",
        mp.map(|mp| format!("JSON / MessagePack {:.2}×; ", parse / mp)).unwrap_or_default(),
        parse / values,
        parse / scan,
        parse / columns,
        parse + apply,
        100.0 * apply / (parse + apply)
    ));
}
