//! The bench script's body, shared by `cycles` (the system allocator) and `cycles_mimalloc`.
//! Bench script: full handoff cycles (spawn → child activity → mailbox report → status) and
//! the cost of `handoff_list` / `handoff_status`, with 10k, 100k and 1M handoffs retained
//! (`BATON_BENCH_SIZES`); the cycle beside many open handoffs (`BATON_BENCH_OPEN_HANDOFFS`).
//! Medians of 21 timed batches, all sizes in one run. (A script rather than criterion: each
//! cycle adds a handoff, and criterion's iteration counts would grow the sizes under test.)
//! Run: `cargo bench -p baton-core --bench cycles` (figures in docs/PERFORMANCE.md).

use baton_core::surface::host::{Response, ThreadRef, ToolUse};
use baton_core::surface::{HandoffArgs, HandoffIdArgs, MailAction, MailboxActionArgs};
use baton_core::{Caller, Engine, LogRecord, MemoryStorage, SeededIds, Storage, StorageError, Timestamp};
use serde_json::{json, Value};
use std::hint::black_box;
use std::time::Instant;

pub const T0: u64 = 1_767_600_000_000;

/// A durable store's work without the disk: each record is encoded to its JSON line (the
/// stored form) into a reused buffer; only the byte count is kept.
#[derive(Default)]
pub struct EncodeSink {
    buf: Vec<u8>,
    /// Bytes encoded so far, newlines included.
    pub bytes: u64,
}

impl Storage for EncodeSink {
    fn append(&mut self, record: &LogRecord) -> Result<(), StorageError> {
        self.buf.clear();
        record.write_json_line(&mut self.buf);
        self.bytes += self.buf.len() as u64 + 1;
        Ok(())
    }
    fn load(&self) -> Result<Vec<LogRecord>, StorageError> {
        Ok(Vec::new())
    }
}

struct Bench<S: Storage> {
    engine: Engine<S>,
    lead: Caller,
    now: u64,
    last_open: String,
}

impl<S: Storage> Bench<S> {
    fn new(storage: S) -> Self {
        let engine = setup(storage);
        Bench { engine, lead: Caller::new("chat_main", "lead"), now: T0, last_open: String::new() }
    }

    /// One full cycle; returns the handoff id.
    fn cycle(&mut self) -> Value {
        // 30 s apart: the pair stays under the M8 limit of 12 per 300 s.
        self.now += 30_000;
        let t = Timestamp(self.now);
        let e = &mut self.engine;
        let v =
            e.call_value("handoff", json!({"task": "Review the model", "target_bot": "adam"}), &self.lead, t).unwrap();
        let (h, c) = (v["handoff_id"].clone(), v["thread_id"].as_str().unwrap().to_string());
        e.host("tool_call", json!({"thread_id": c, "tool": "web_search"}), t).unwrap();
        e.host("response", json!({"thread_id": c, "text": "🧰 Using tool: web_search\nTwo risks remain."}), t).unwrap();
        let report = json!({"action": "SEND_MESSAGE", "to_thread_id": "chat_main", "to_bot_id": "lead", "body": "Done: two risks remain."});
        e.call_value("mailbox_action", report, &Caller::new(&c, "adam"), t).unwrap();
        // Deliver the report so the parent's mailbox does not grow without bound.
        e.tick(t).unwrap();
        e.host("turn_ended", json!({"thread_id": "chat_main"}), t).unwrap();
        let s = e.call_value("handoff_status", json!({"handoff_id": h}), &self.lead, t).unwrap();
        e.take_effects();
        s
    }

    /// The same cycle through the typed API: typed arguments and results for the tools, typed
    /// arguments for the host inputs; no JSON on the way in or out.
    fn cycle_typed(&mut self) -> String {
        self.now += 30_000;
        let t = Timestamp(self.now);
        let e = &mut self.engine;
        let args =
            HandoffArgs { task: "Review the model".into(), target_bot: Some("adam".into()), ..Default::default() };
        let v = e.handoff(&self.lead, args, t).unwrap();
        let c = v.thread_id.unwrap_or_default();
        e.tool_call(ToolUse { thread_id: c.clone(), tool: "web_search".into(), arguments: None, result: None }, t)
            .unwrap();
        e.response(Response { thread_id: c.clone(), text: "🧰 Using tool: web_search\nTwo risks remain.".into() }, t)
            .unwrap();
        let report = MailboxActionArgs {
            action: MailAction::SendMessage,
            to_thread_id: Some("chat_main".into()),
            to_bot_id: Some("lead".into()),
            body: Some("Done: two risks remain.".into()),
            subject: None,
        };
        e.mailbox_action(&Caller::new(&c, "adam"), report, t).unwrap();
        e.tick(t).unwrap();
        e.turn_ended(ThreadRef { thread_id: "chat_main".into() }, t).unwrap();
        let s = e.handoff_status(&self.lead, HandoffIdArgs { handoff_id: v.handoff_id }, t).unwrap();
        e.take_effects();
        s.status
    }

    fn fill(&mut self, n: usize) {
        for _ in 0..n {
            self.cycle();
        }
    }

    /// A few open handoffs, so handoff_status and handoff_list see live records.
    fn open_some(&mut self) {
        for _ in 0..5 {
            let t = Timestamp(self.now);
            let v = self
                .engine
                .call_value("handoff", json!({"task": "stay open", "target_bot": "adam"}), &self.lead, t)
                .unwrap();
            self.last_open = v["handoff_id"].as_str().unwrap().to_string();
        }
        self.engine.take_effects();
    }
}

/// An engine over `storage` with the cycle's two agents and the parent thread (ids seeded 5).
pub fn setup<S: Storage>(storage: S) -> Engine<S> {
    let mut engine = Engine::open(storage, Box::new(SeededIds::new(5))).unwrap();
    let t = Timestamp(T0);
    engine.host("register_agent", json!({"bot_id": "lead"}), t).unwrap();
    engine
        .host("register_agent", json!({"bot_id": "adam", "tools": ["project_manager_tools", "web_search"]}), t)
        .unwrap();
    engine.host("open_thread", json!({"thread_id": "chat_main", "bot_id": "lead"}), t).unwrap();
    engine
}

/// Median of `samples` timed batches of `batch` calls of `f`, in nanoseconds per call.
pub fn median_ns(samples: usize, batch: usize, mut f: impl FnMut()) -> f64 {
    let mut per_call: Vec<f64> = (0..samples)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..batch {
                f();
            }
            start.elapsed().as_nanos() as f64 / batch as f64
        })
        .collect();
    per_call.sort_by(f64::total_cmp);
    per_call[per_call.len() / 2]
}

fn measure<S: Storage>(label: &str, storage: S, n: usize) {
    let mut b = Bench::new(storage);
    b.fill(n);
    // 1% growth at most while measuring: 21 batches of n/2100 cycles (at least 5).
    let batch = (n / 2100).max(5);
    let cycle = median_ns(21, batch, || {
        black_box(b.cycle());
    });
    let typed = median_ns(21, batch, || {
        black_box(b.cycle_typed());
    });
    b.open_some();
    let open = b.last_open.clone();
    let lead = b.lead.clone();
    let mut now = b.now;
    let status = median_ns(21, 500, || {
        now += 1;
        black_box(b.engine.call_value("handoff_status", json!({"handoff_id": open}), &lead, Timestamp(now)).unwrap());
    });
    let list = median_ns(21, 500, || {
        now += 1;
        black_box(b.engine.call_value("handoff_list", json!({}), &lead, Timestamp(now)).unwrap());
    });
    let open_count = b.engine.state().open_handoffs().count();
    println!(
        "| {label} | {} | {:.0} | {:.2} | {:.0} | {:.2} | {:.2} | {open_count} |",
        b.engine.state().handoffs.len(),
        1e9 / cycle,
        cycle / 1e3,
        1e9 / typed,
        status / 1e3,
        list / 1e3
    );
}

/// The typed cycle and `next_deadline` beside `n` open handoffs, each child mid-turn (so no
/// time rule is due for them): what a workspace with many delegations in flight costs each
/// command. A walk over every open handoff at each deadline and tick grew with `n`.
fn open_beside(n: usize) {
    let mut b = Bench::new(EncodeSink::default());
    let t = Timestamp(b.now);
    for i in 0..n {
        let parent = format!("p{i}");
        b.engine.host("open_thread", json!({"thread_id": parent, "bot_id": "lead"}), t).unwrap();
        let v = b
            .engine
            .call_value("handoff", json!({"task": "stay open", "target_bot": "adam"}), &Caller::new(&parent, "lead"), t)
            .unwrap();
        b.engine.host("turn_started", json!({"thread_id": v["thread_id"]}), t).unwrap();
        b.engine.take_effects();
    }
    let typed = median_ns(21, 20, || {
        black_box(b.cycle_typed());
    });
    let deadline = median_ns(21, 200, || {
        black_box(b.engine.next_deadline());
    });
    println!("| {n} | {:.0} | {:.2} | {:.3} |", 1e9 / typed, typed / 1e3, deadline / 1e3);
}

/// `check_inbox` with `n` relay threads in the recipient's inbox (a tenth of them completed):
/// the first page and a page through a cursor, 50 items each.
fn inbox(n: usize) {
    let mut engine = Engine::open(EncodeSink::default(), Box::new(SeededIds::new(7))).unwrap();
    let mut now = T0;
    for (h, name) in [("bob@acme", "Bob"), ("alice@acme", "Alice")] {
        engine.host("register_teammate", json!({"handle": h, "name": name, "role": "dev"}), Timestamp(now)).unwrap();
    }
    let bob = Caller::teammate("bob@acme");
    let alice = Caller::teammate("alice@acme");
    for i in 0..n {
        now += 1;
        let v = engine
            .call_value(
                "handoff_to_teammate",
                json!({"to": "alice@acme", "summary": "Review the ledger migration plan and flag risks."}),
                &bob,
                Timestamp(now),
            )
            .unwrap();
        if i % 10 == 0 {
            let id = v["thread_id"].clone();
            engine.call_value("accept_handoff", json!({"thread_id": id}), &alice, Timestamp(now)).unwrap();
            let done = json!({"thread_id": id, "result_summary": "Done."});
            engine.call_value("complete_handoff", done, &alice, Timestamp(now)).unwrap();
        }
    }
    engine.take_effects();
    let first = median_ns(21, 20, || {
        now += 1;
        black_box(engine.call_value("check_inbox", json!({}), &alice, Timestamp(now)).unwrap());
    });
    let cursor = engine.call_value("check_inbox", json!({}), &alice, Timestamp(now)).unwrap()["next_cursor"].clone();
    let next = median_ns(21, 20, || {
        now += 1;
        black_box(engine.call_value("check_inbox", json!({"cursor": cursor}), &alice, Timestamp(now)).unwrap());
    });
    println!("| {n} | {:.1} | {:.1} |", first / 1e3, next / 1e3);
}

/// The whole conformance suite through `run_script`, natively: median of 21 runs, in ms.
fn scenario_suite() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/scenarios");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| {
            d.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "jsonl")).collect()
        })
        .unwrap_or_default();
    files.sort();
    let scripts: Vec<String> = files.iter().filter_map(|p| std::fs::read_to_string(p).ok()).collect();
    let per_run = median_ns(21, 1, || {
        for s in &scripts {
            black_box(baton_core::scenario::run_script(s));
        }
    });
    println!("scenario suite ({} scripts) natively: median {:.2} ms", scripts.len(), per_run / 1e6);
    wrap();
}

/// The provenance wrapper (I4) over sender text outside ASCII — other scripts, look-alikes,
/// full-width and mathematical letters, invisible characters — where every character takes
/// the fold's general path: 64 KB of it, wrapped whole.
fn wrap() {
    use baton_core::provenance::{wrap, Author};
    let piece = "Привет, мир. 東京の会議。Ｂａｔｏｎ 𝐮𝐧𝐭𝐫𝐮𝐬𝐭𝐞𝐝 ÀÉÎÕÜ ñ ß — naïve café\u{200B}\u{202E} ";
    let text: String = piece.repeat(64 * 1024 / piece.len());
    let author = Author { handle: "bob@acme", name: "Bob", role: "backend" };
    let per = median_ns(21, 5, || {
        black_box(wrap(author, "n_1", &text));
    });
    println!(
        "wrap {} bytes outside ASCII: median {:.1} µs ({:.0} MB/s)",
        text.len(),
        per / 1e3,
        text.len() as f64 / per * 1e3
    );
}

/// Fills `engine` with the console's load workspace shape (`#/generate/N`): `n` handoffs from
/// 100 parent threads, every tenth one a level deeper. Answers the last handoff's time.
pub fn load_shape<S: Storage>(engine: &mut Engine<S>, n: usize) -> Timestamp {
    use baton_core::surface::HandoffArgs;
    let t0 = Timestamp(T0);
    for bot in ["lead", "adam", "eve", "zed", "kim"] {
        engine.host("register_agent", json!({"bot_id": bot}), t0).unwrap();
    }
    for p in 0..100 {
        let title = format!("Project {p}");
        engine
            .host("open_thread", json!({"thread_id": format!("chat_{p:03}"), "bot_id": "lead", "title": title}), t0)
            .unwrap();
    }
    let bots = ["adam", "eve", "zed", "kim"];
    let mut last: Vec<Option<(String, String)>> = vec![None; 100];
    for i in 0..n {
        let p = i % 100;
        let (thread, caller) = match (&last[p], i % 10 == 9) {
            (Some((t, b)), true) => (t.clone(), b.clone()),
            _ => (format!("chat_{p:03}"), "lead".to_string()),
        };
        let args = HandoffArgs {
            task: format!("Task {i}: check batch {i}"),
            target_bot: Some(bots[i % 4].to_string()),
            async_mode: Some(true),
            ..HandoffArgs::default()
        };
        let r = engine.handoff(&Caller::new(&thread, &caller), args, t0.plus(1000 + i as u64 * 10)).unwrap();
        if let Some(t) = r.thread_id {
            last[p] = Some((t.to_string(), bots[i % 4].to_string()));
        }
    }
    t0.plus(1000 + n as u64 * 10)
}

/// The console's chains view (`chain_rows`, which the delegation graph lays out too) over `n`
/// handoffs in the console's load workspace shape ([`load_shape`]): median of 7 builds of
/// every row, in ms.
fn views(n: usize) {
    use baton_core::view::{chain_rows, swimlanes, ChainFilter, Marks};
    let mut engine = Engine::open(EncodeSink::default(), Box::new(SeededIds::new(7))).unwrap();
    engine.keep_hot_records(usize::MAX); // as the console keeps them
    let now = load_shape(&mut engine, n);
    engine.take_effects();
    let collapsed = Default::default();
    let rows = median_ns(7, 1, || {
        black_box(chain_rows(engine.state(), now, &ChainFilter::default(), &collapsed));
    });
    let lanes = median_ns(7, 1, || {
        black_box(swimlanes(engine.state(), &Marks::default(), now, None));
    });
    println!("| {n} | {:.1} | {:.1} |", rows / 1e6, lanes / 1e6);
}

/// The sizes listed in `var` (comma-separated), or `default`.
fn listed(var: &str, default: Vec<usize>) -> Vec<usize> {
    std::env::var(var).ok().map(|s| s.split(',').filter_map(|n| n.trim().parse().ok()).collect()).unwrap_or(default)
}

/// Runs every measurement and prints the tables.
pub fn run() {
    // A profile's workload: only typed cycles, `BATON_BENCH_PROFILE_TYPED` of them after 10,000
    // retained (run the binary under `perf record`).
    if let Some(n) = std::env::var("BATON_BENCH_PROFILE_TYPED").ok().and_then(|s| s.parse::<usize>().ok()) {
        let mut b = Bench::new(EncodeSink::default());
        b.fill(10_000);
        let start = Instant::now();
        for _ in 0..n {
            black_box(b.cycle_typed());
        }
        println!("{n} typed cycles: {:.0}/s", n as f64 / start.elapsed().as_secs_f64());
        return;
    }
    if std::env::var_os("BATON_BENCH_SUITE_ONLY").is_some() {
        scenario_suite();
        return;
    }
    scenario_suite();
    let sizes: Vec<usize> = listed("BATON_BENCH_SIZES", vec![10_000, 100_000, 1_000_000]);
    let memory_max: usize =
        std::env::var("BATON_BENCH_MEMORY_MAX").ok().and_then(|s| s.parse().ok()).unwrap_or(100_000);
    println!("| storage | handoffs retained | full cycles/s via JSON (median) | cycle µs | typed API cycles/s | handoff_status µs | handoff_list µs | open |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for &n in &sizes {
        measure("encode (JSON line per record)", EncodeSink::default(), n);
        if n <= memory_max {
            measure("MemoryStorage (records kept)", MemoryStorage::new(), n);
        }
    }
    let open_sizes: Vec<usize> = listed("BATON_BENCH_OPEN_HANDOFFS", vec![0, 1_000, 20_000]);
    println!();
    println!("| open handoffs beside the cycle | typed API cycles/s | cycle µs | next_deadline µs |");
    println!("|---:|---:|---:|---:|");
    for n in open_sizes {
        open_beside(n);
    }
    let inbox_sizes: Vec<usize> = listed("BATON_BENCH_INBOX_SIZES", vec![10_000, 100_000, 1_000_000]);
    println!();
    println!("| relay threads in the inbox | check_inbox first page µs (median) | check_inbox next page (cursor) µs |");
    println!("|---:|---:|---:|");
    for n in inbox_sizes {
        inbox(n);
    }
    println!();
    println!("| handoffs (the console's load shape) | chain_rows ms (median) | swimlanes ms (median) |");
    println!("|---:|---:|---:|");
    for n in listed("BATON_BENCH_VIEW_SIZES", vec![10_000, 100_000]) {
        views(n);
    }
}
