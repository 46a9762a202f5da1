//! The JS API (feature `js`, on by default): the classes and functions the npm package wraps.
//! The console (`web/`) links this crate without it, so none of these exports land in its wasm.
use baton_core::scenario;
use baton_core::{
    export_text, read_export, read_export_lines, Caller, CompactStorage, Engine, LogRecord, SeededIds, Snapshot,
    Storage, StorageError, Timestamp,
};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

fn ts(ms: f64) -> Timestamp {
    Timestamp(if ms.is_finite() && ms > 0.0 { ms as u64 } else { 0 })
}

/// An error answer, `{"error": {code, name, message}}`, built from its code.
fn error_json(code: baton_core::ErrorCode, message: &str) -> String {
    baton_core::CallError::new(code, message).to_json().to_string()
}

/// Records between snapshots when a host's store does not say (the engine also waits at
/// least as many records as the state holds).
const DEFAULT_SNAPSHOT_EVERY: u64 = 10_000;

/// Where a `Baton`'s log goes: the compact in-memory store (the default: memory bounded by
/// the live state), or a store the JS host brings (an object with `load`, `append`,
/// `snapshot`; the package's `FileStore` for Node is one). What the engine opens from (an
/// import, or the host store's contents) is handed over once, at open.
pub struct HostStore {
    kind: Kind,
    preload: std::cell::RefCell<Option<(Option<Snapshot>, Vec<LogRecord>)>>,
}

enum Kind {
    Compact(CompactStorage),
    /// The host's store, and the last line it took (for `lastRecord`).
    Js {
        store: JsValue,
        every: u64,
        last: Option<String>,
    },
}

impl HostStore {
    /// The last record stored, as its JSON line.
    fn last_line(&self) -> Option<String> {
        match &self.kind {
            Kind::Compact(c) => c.last().map(LogRecord::to_json_line),
            Kind::Js { last, .. } => last.clone(),
        }
    }
}

fn js_message(e: &JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| format!("{e:?}"))
}

/// Calls `store[name](...args)`; a throw or a missing method is the store's error.
fn call_store(store: &JsValue, name: &str, args: &[JsValue]) -> Result<JsValue, StorageError> {
    let f = js_sys::Reflect::get(store, &JsValue::from_str(name))
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
        .ok_or_else(|| StorageError::Unavailable(format!("the store has no method `{name}`")))?;
    let r = match args {
        [] => f.call0(store),
        [a] => f.call1(store, a),
        [a, b] => f.call2(store, a, b),
        _ => unreachable!("store methods take at most two arguments"),
    };
    r.map_err(|e| StorageError::Unavailable(format!("store.{name}: {}", js_message(&e))))
}

impl Storage for HostStore {
    fn append(&mut self, record: &LogRecord) -> Result<(), StorageError> {
        match &mut self.kind {
            Kind::Compact(c) => c.append(record),
            Kind::Js { store, last, .. } => {
                let line = record.to_json_line();
                call_store(store, "append", &[JsValue::from_str(&line)])?;
                *last = Some(line);
                Ok(())
            }
        }
    }

    fn load(&self) -> Result<Vec<LogRecord>, StorageError> {
        Ok(self.preload.borrow_mut().as_mut().map(|(_, r)| std::mem::take(r)).unwrap_or_default())
    }

    fn load_snapshot(&self) -> Result<Option<Snapshot>, StorageError> {
        Ok(self.preload.borrow_mut().as_mut().and_then(|(s, _)| s.take()))
    }

    fn save_snapshot(&mut self, snapshot: &Snapshot) -> Result<(), StorageError> {
        match &mut self.kind {
            Kind::Compact(c) => c.save_snapshot(snapshot),
            Kind::Js { store, .. } => {
                let text: String = snapshot.to_lines().map(|l| l + "\n").collect();
                let seq = JsValue::from_f64(snapshot.header.seq as f64);
                call_store(store, "snapshot", &[JsValue::from_str(&text), seq]).map(drop)
            }
        }
    }

    fn snapshot_every(&self) -> Option<u64> {
        match &self.kind {
            Kind::Compact(_) => None,
            Kind::Js { every, .. } => Some(*every),
        }
    }
}

/// An engine with an in-memory log.
#[wasm_bindgen]
pub struct Baton {
    engine: Engine<HostStore>,
    seed: u64,
}

impl Baton {
    fn open_with(kind: Kind, text: &str, seed: u64) -> Result<Baton, JsError> {
        let loaded = read_export(text).map_err(|e| JsError::new(&e.to_string()))?;
        Baton::open_loaded(kind, loaded, seed)
    }

    fn open_loaded(kind: Kind, loaded: (Option<Snapshot>, Vec<LogRecord>), seed: u64) -> Result<Baton, JsError> {
        let store = HostStore { kind, preload: std::cell::RefCell::new(Some(loaded)) };
        let engine = Engine::open(store, Box::new(SeededIds::new(seed))).map_err(|e| JsError::new(&e.to_string()))?;
        *engine.storage().preload.borrow_mut() = None;
        Ok(Baton { engine, seed })
    }
}

#[wasm_bindgen]
impl Baton {
    /// A new, empty engine whose ids come from `seed`, over the compact in-memory store.
    #[wasm_bindgen(constructor)]
    pub fn new(seed: f64) -> Baton {
        Baton::open_with(Kind::Compact(CompactStorage::default()), "", seed as u64).expect("an empty log opens")
    }

    /// Rebuilds an engine from an export (`exportLog()` text, or a log of JSON lines from any
    /// earlier version), over the compact in-memory store.
    #[wasm_bindgen(js_name = fromLog)]
    pub fn from_log(lines: &str, seed: f64) -> Result<Baton, JsError> {
        Baton::open_with(Kind::Compact(CompactStorage::default()), lines, seed as u64)
    }

    /// Opens an engine over a store the host brings: `store.load()` answers what it holds
    /// (the `exportLog()` form: the latest snapshot's lines, then the records after it);
    /// `store.append(line)` stores one record or throws (the command is then refused and
    /// nothing changes); `store.snapshot(text, seq)` replaces the snapshot;
    /// `store.snapshotEvery` (optional) spaces snapshots.
    #[wasm_bindgen(js_name = openStore)]
    pub fn open_store(store: JsValue, seed: f64) -> Result<Baton, JsError> {
        let held = call_store(&store, "load", &[]).map_err(|e| JsError::new(&e.to_string()))?;
        // A string (the export form), or an array of its lines.
        let lines: Vec<String> = match held.as_string() {
            Some(text) => text.lines().map(str::to_string).collect(),
            None if js_sys::Array::is_array(&held) => js_sys::Array::from(&held)
                .iter()
                .map(|l| l.as_string().ok_or_else(|| JsError::new("store.load(): every line must be a string")))
                .collect::<Result<_, _>>()?,
            None => return Err(JsError::new("store.load() must answer a string or an array of lines")),
        };
        let loaded = read_export_lines(lines.iter().map(String::as_str)).map_err(|e| JsError::new(&e.to_string()))?;
        drop(held);
        let every = js_sys::Reflect::get(&store, &JsValue::from_str("snapshotEvery"))
            .ok()
            .and_then(|v| v.as_f64())
            .filter(|n| n.is_finite() && *n >= 1.0)
            .map_or(DEFAULT_SNAPSHOT_EVERY, |n| n as u64);
        drop(lines);
        Baton::open_loaded(Kind::Js { store, every, last: None }, loaded, seed as u64)
    }

    /// A tool call: the model's JSON arguments and the caller (`{"thread", "bot"?, "handle"?}`).
    /// Answers the tool's result JSON or `{"error": {...}}`.
    pub fn call(&mut self, tool: &str, args_json: &str, caller_json: &str, now_ms: f64) -> String {
        match serde_json::from_str::<Caller>(caller_json) {
            Ok(caller) => self.engine.call(tool, args_json, &caller, ts(now_ms)),
            Err(e) => error_json(baton_core::ErrorCode::InvalidParams, &format!("caller: {e}")),
        }
    }

    /// A host input. Answers its result JSON or `{"error": {...}}`.
    pub fn host(&mut self, input: &str, args_json: &str, now_ms: f64) -> String {
        let args = match serde_json::from_str(args_json) {
            Ok(v) => v,
            Err(e) => {
                return error_json(baton_core::ErrorCode::ParseError, &format!("arguments are not valid JSON: {e}"))
            }
        };
        match self.engine.host(input, args, ts(now_ms)) {
            Ok(v) => v.to_string(),
            Err(e) => e.to_json().to_string(),
        }
    }

    /// Runs the time rules due at `now_ms`. Answers `null` or `{"error": {...}}`.
    pub fn tick(&mut self, now_ms: f64) -> String {
        match self.engine.tick(ts(now_ms)) {
            Ok(()) => "null".into(),
            Err(e) => e.to_json().to_string(),
        }
    }

    /// When `tick` next has work, in ms since the epoch.
    #[wasm_bindgen(js_name = nextDeadline)]
    pub fn next_deadline(&self) -> Option<f64> {
        self.engine.next_deadline().map(|t| t.0 as f64)
    }

    /// The effects emitted since the last call, as a JSON array.
    #[wasm_bindgen(js_name = takeEffects)]
    pub fn take_effects(&mut self) -> String {
        serde_json::to_string(&self.engine.take_effects()).unwrap_or_else(|_| "[]".into())
    }

    /// The last record the engine stored, as a JSON line (what the last command changed), or
    /// `undefined` before the first. With `logLength`, hosts build live views.
    #[wasm_bindgen(js_name = lastRecord)]
    pub fn last_record(&self) -> Option<String> {
        self.engine.storage().last_line()
    }

    /// How many records the engine has applied.
    #[wasm_bindgen(js_name = logLength)]
    pub fn log_length(&self) -> f64 {
        self.engine.log_seq() as f64
    }

    /// The workspace as text: a snapshot of the state now (JSON lines). `fromLog` reads it.
    #[wasm_bindgen(js_name = exportLog)]
    pub fn export_log(&self) -> String {
        export_text(Some(&self.engine.snapshot()), &[])
    }

    /// How many recently written records of each kind stay plain values; older ones, and those
    /// at rest (a closed handoff) 64 writes after their last, are held sealed (compressed;
    /// decoded when read). `Infinity`: never seal.
    #[wasm_bindgen(js_name = keepHotRecords)]
    pub fn keep_hot_records(&mut self, keep: f64) {
        self.engine.keep_hot_records(if keep >= usize::MAX as f64 { usize::MAX } else { keep.max(1.0) as usize });
    }

    /// Hands the store a snapshot now (a store that keeps them; the compact store needs none).
    pub fn checkpoint(&mut self) -> Result<(), JsError> {
        self.engine.checkpoint().map_err(|e| JsError::new(&e.to_string()))
    }

    /// The id seed this engine was opened with.
    #[wasm_bindgen(getter)]
    pub fn seed(&self) -> f64 {
        self.seed as f64
    }
}

/// Runs a scenario script; the output is byte-identical to `baton run`.
#[wasm_bindgen(js_name = runScript)]
pub fn run_script(script: &str) -> String {
    scenario::run_script(script)
}

/// The size of this module's linear memory in bytes (it only grows): the engine's whole heap,
/// for hosts and benches that watch memory.
#[wasm_bindgen(js_name = memoryBytes)]
pub fn memory_bytes() -> f64 {
    #[cfg(target_arch = "wasm32")]
    return (core::arch::wasm32::memory_size(0) * 65536) as f64;
    #[cfg(not(target_arch = "wasm32"))]
    0.0
}

/// Bytes the engine's heap holds now (allocated and not freed; 0 outside wasm32): what a host
/// watches to see memory grow with the workspace.
#[wasm_bindgen(js_name = heapInUse)]
pub fn heap_in_use() -> f64 {
    #[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
    return crate::alloc::in_use() as f64;
    #[cfg(not(all(target_arch = "wasm32", not(target_feature = "atomics"))))]
    0.0
}

/// A `storage_failed` error answer with `message` (what the JS layer throws when storage
/// itself fails), as JSON text: its code comes from `ErrorCode`, not from the JS side.
#[wasm_bindgen(js_name = storageFailed)]
pub fn storage_failed(message: &str) -> String {
    error_json(baton_core::ErrorCode::StorageFailed, message)
}

/// Every tool's definition (function-calling shape), as JSON.
#[wasm_bindgen]
pub fn tools() -> String {
    baton_core::surface::definitions().to_string()
}

/// Every JSON Schema Baton publishes (tools, host inputs, effects), as JSON text.
#[wasm_bindgen]
pub fn schemas() -> String {
    baton_core::schemas().to_string()
}

#[cfg(target_arch = "wasm32")]
pub use persistent::PersistentBaton;

#[cfg(target_arch = "wasm32")]
mod persistent {
    use crate::persist::Persistent;
    use baton_core::Caller;
    use baton_core::{Command, Timestamp};
    use std::rc::Rc;
    use wasm_bindgen::prelude::*;
    use wasm_bindgen_futures::future_to_promise;

    /// An engine whose log lives in IndexedDB under a workspace name. Every method that changes
    /// state answers a Promise that resolves after the IndexedDB transaction committed.
    #[wasm_bindgen]
    pub struct PersistentBaton {
        inner: Rc<Persistent>,
    }

    fn answer(r: Result<serde_json::Value, baton_core::CallError>) -> JsValue {
        JsValue::from_str(&match r {
            Ok(v) => v.to_string(),
            Err(e) => e.to_json().to_string(),
        })
    }

    #[wasm_bindgen]
    impl PersistentBaton {
        /// Opens (or creates, with `seed`) a workspace. Resolves to a `PersistentBaton`.
        pub async fn open(workspace: String, seed: f64) -> Result<PersistentBaton, JsError> {
            let p = Persistent::open(&workspace, seed as u64, baton_core::HOT_RECORDS)
                .await
                .map_err(|e| JsError::new(&e.to_string()))?;
            p.take_fresh();
            Ok(PersistentBaton { inner: Rc::new(p) })
        }

        /// Creates a workspace from an exported log (JSON lines) and its seed, in one
        /// transaction. Refused when the workspace already has records.
        #[wasm_bindgen(js_name = importWorkspace)]
        pub async fn import_workspace(workspace: String, log: String, seed: f64) -> Result<PersistentBaton, JsError> {
            let p = Persistent::import(&workspace, &log, seed as u64, baton_core::HOT_RECORDS)
                .await
                .map_err(|e| JsError::new(&e.to_string()))?;
            p.take_fresh();
            Ok(PersistentBaton { inner: Rc::new(p) })
        }

        /// Deletes a workspace's database.
        #[wasm_bindgen(js_name = deleteWorkspace)]
        pub async fn delete_workspace(workspace: String) -> Result<(), JsError> {
            crate::idb::delete(&workspace).await.map_err(|e| JsError::new(&e))
        }

        fn exec(&self, command: impl FnOnce() -> Result<(Command, Timestamp), String> + 'static) -> js_sys::Promise {
            let inner = self.inner.clone();
            future_to_promise(async move {
                let (command, now) = match command() {
                    Ok(c) => c,
                    Err(json) => return Ok(JsValue::from_str(&json)),
                };
                // A second command on the same object while one is in flight is refused
                // (stale_command); the JS layer queues them.
                let r = inner.exec(command, now).await;
                inner.take_fresh();
                Ok(answer(r))
            })
        }

        /// A tool call; resolves to the result JSON or `{"error": {...}}`.
        pub fn call(&self, tool: String, args_json: String, caller_json: String, now_ms: f64) -> js_sys::Promise {
            self.exec(move || {
                let args = serde_json::from_str(&args_json).map_err(|e| {
                    super::error_json(baton_core::ErrorCode::ParseError, &format!("arguments are not valid JSON: {e}"))
                })?;
                let caller: Caller = serde_json::from_str(&caller_json)
                    .map_err(|e| super::error_json(baton_core::ErrorCode::InvalidParams, &format!("caller: {e}")))?;
                Ok((Command::Call { tool, args, caller }, super::ts(now_ms)))
            })
        }

        /// A host input; resolves to the result JSON or `{"error": {...}}`.
        pub fn host(&self, input: String, args_json: String, now_ms: f64) -> js_sys::Promise {
            self.exec(move || {
                let args = serde_json::from_str(&args_json).map_err(|e| {
                    super::error_json(baton_core::ErrorCode::ParseError, &format!("arguments are not valid JSON: {e}"))
                })?;
                Ok((Command::Host { input, args }, super::ts(now_ms)))
            })
        }

        /// Runs the time rules due at `now_ms`.
        pub fn tick(&self, now_ms: f64) -> js_sys::Promise {
            self.exec(move || Ok((Command::Tick, super::ts(now_ms))))
        }

        /// Reads records other tabs stored; resolves to how many were absorbed.
        pub fn reload(&self) -> js_sys::Promise {
            let inner = self.inner.clone();
            future_to_promise(async move {
                let r = inner.catch_up().await;
                inner.take_fresh();
                r.map(|n| JsValue::from_f64(n as f64)).map_err(|e| JsError::new(&e.to_string()).into())
            })
        }

        /// When `tick` next has work, in ms since the epoch.
        #[wasm_bindgen(js_name = nextDeadline)]
        pub fn next_deadline(&self) -> Option<f64> {
            self.inner.engine().next_deadline().map(|t| t.0 as f64)
        }

        /// The effects emitted since the last call, as a JSON array.
        #[wasm_bindgen(js_name = takeEffects)]
        pub fn take_effects(&self) -> String {
            serde_json::to_string(&self.inner.engine_mut().take_effects()).unwrap_or_else(|_| "[]".into())
        }

        /// How many records the engine has applied.
        #[wasm_bindgen(js_name = logLength)]
        pub fn log_length(&self) -> f64 {
            self.inner.engine().log_seq() as f64
        }

        /// The last record this engine committed or absorbed, as a JSON line.
        #[wasm_bindgen(js_name = lastRecord)]
        pub fn last_record(&self) -> Option<String> {
            self.inner.last_line()
        }

        /// The stored log as JSON lines.
        #[wasm_bindgen(js_name = exportLog)]
        pub fn export_log(&self) -> js_sys::Promise {
            let inner = self.inner.clone();
            future_to_promise(async move {
                let r = inner.export().await;
                r.map(|s| JsValue::from_str(&s)).map_err(|e| JsError::new(&e.to_string()).into())
            })
        }

        /// The workspace's id seed.
        #[wasm_bindgen(getter)]
        pub fn seed(&self) -> f64 {
            self.inner.seed as f64
        }
    }
}
