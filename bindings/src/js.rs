//! The JS API (feature `js`, on by default): the classes and functions the npm package wraps.
//! The console (`web/`) links this crate without it, so none of these exports land in its wasm.
use baton_core::scenario;
use baton_core::{Caller, Engine, LogRecord, MemoryStorage, SeededIds, Timestamp};
use wasm_bindgen::prelude::*;

fn ts(ms: f64) -> Timestamp {
    Timestamp(if ms.is_finite() && ms > 0.0 { ms as u64 } else { 0 })
}

fn error_json(code: i64, name: &str, message: &str) -> String {
    serde_json::json!({"error": {"code": code, "name": name, "message": message}}).to_string()
}

/// An engine with an in-memory log.
#[wasm_bindgen]
pub struct Baton {
    engine: Engine<MemoryStorage>,
    seed: u64,
}

#[wasm_bindgen]
impl Baton {
    /// A new, empty engine whose ids come from `seed`.
    #[wasm_bindgen(constructor)]
    pub fn new(seed: f64) -> Baton {
        let seed = seed as u64;
        let engine = Engine::open(MemoryStorage::new(), Box::new(SeededIds::new(seed))).expect("an empty log opens");
        Baton { engine, seed }
    }

    /// Rebuilds an engine from an exported log (JSON lines).
    #[wasm_bindgen(js_name = fromLog)]
    pub fn from_log(lines: &str, seed: f64) -> Result<Baton, JsError> {
        let records = lines
            .lines()
            .filter(|l| !l.trim().is_empty())
            .enumerate()
            .map(|(i, l)| LogRecord::from_json_line(l, i))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| JsError::new(&e.to_string()))?;
        let seed = seed as u64;
        let engine = Engine::open(MemoryStorage::from_records(records), Box::new(SeededIds::new(seed)))
            .map_err(|e| JsError::new(&e.to_string()))?;
        Ok(Baton { engine, seed })
    }

    /// A tool call: the model's JSON arguments and the caller (`{"thread", "bot"?, "handle"?}`).
    /// Answers the tool's result JSON or `{"error": {...}}`.
    pub fn call(&mut self, tool: &str, args_json: &str, caller_json: &str, now_ms: f64) -> String {
        match serde_json::from_str::<Caller>(caller_json) {
            Ok(caller) => self.engine.call(tool, args_json, &caller, ts(now_ms)),
            Err(e) => error_json(-32602, "invalid_params", &format!("caller: {e}")),
        }
    }

    /// A host input. Answers its result JSON or `{"error": {...}}`.
    pub fn host(&mut self, input: &str, args_json: &str, now_ms: f64) -> String {
        let args = match serde_json::from_str(args_json) {
            Ok(v) => v,
            Err(e) => return error_json(-32700, "parse_error", &format!("arguments are not valid JSON: {e}")),
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
        self.engine.storage().records().last().map(LogRecord::to_json_line)
    }

    /// How many records the engine has applied.
    #[wasm_bindgen(js_name = logLength)]
    pub fn log_length(&self) -> f64 {
        self.engine.log_seq() as f64
    }

    /// The log as JSON lines (export).
    #[wasm_bindgen(js_name = exportLog)]
    pub fn export_log(&self) -> String {
        self.engine.storage().records().iter().map(|r| r.to_json_line() + "\n").collect()
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

/// Every tool's definition (function-calling shape), as JSON.
#[wasm_bindgen]
pub fn tools() -> String {
    baton_core::surface::definitions().to_string()
}

#[cfg(target_arch = "wasm32")]
pub use persistent::PersistentBaton;

#[cfg(target_arch = "wasm32")]
mod persistent {
    use crate::persist::{Op, Persistent};
    use baton_core::Caller;
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
            let p = Persistent::open(&workspace, seed as u64).await.map_err(|e| JsError::new(&e.to_string()))?;
            p.take_fresh();
            Ok(PersistentBaton { inner: Rc::new(p) })
        }

        /// Creates a workspace from an exported log (JSON lines) and its seed, in one
        /// transaction. Refused when the workspace already has records.
        #[wasm_bindgen(js_name = importWorkspace)]
        pub async fn import_workspace(workspace: String, log: String, seed: f64) -> Result<PersistentBaton, JsError> {
            let p =
                Persistent::import(&workspace, &log, seed as u64).await.map_err(|e| JsError::new(&e.to_string()))?;
            p.take_fresh();
            Ok(PersistentBaton { inner: Rc::new(p) })
        }

        /// Deletes a workspace's database.
        #[wasm_bindgen(js_name = deleteWorkspace)]
        pub async fn delete_workspace(workspace: String) -> Result<(), JsError> {
            crate::idb::delete(&workspace).await.map_err(|e| JsError::new(&e))
        }

        fn exec(&self, op: impl FnOnce() -> Result<Op, String> + 'static) -> js_sys::Promise {
            let inner = self.inner.clone();
            future_to_promise(async move {
                let op = match op() {
                    Ok(op) => op,
                    Err(json) => return Ok(JsValue::from_str(&json)),
                };
                // A second command on the same object while one is in flight is refused
                // (stale_command); the JS layer queues them.
                let r = inner.exec(op).await;
                inner.take_fresh();
                Ok(answer(r))
            })
        }

        /// A tool call; resolves to the result JSON or `{"error": {...}}`.
        pub fn call(&self, tool: String, args_json: String, caller_json: String, now_ms: f64) -> js_sys::Promise {
            self.exec(move || {
                let args = serde_json::from_str(&args_json).map_err(|e| {
                    super::error_json(-32700, "parse_error", &format!("arguments are not valid JSON: {e}"))
                })?;
                let caller: Caller = serde_json::from_str(&caller_json)
                    .map_err(|e| super::error_json(-32602, "invalid_params", &format!("caller: {e}")))?;
                Ok(Op::Call(tool, args, caller, super::ts(now_ms)))
            })
        }

        /// A host input; resolves to the result JSON or `{"error": {...}}`.
        pub fn host(&self, input: String, args_json: String, now_ms: f64) -> js_sys::Promise {
            self.exec(move || {
                let args = serde_json::from_str(&args_json).map_err(|e| {
                    super::error_json(-32700, "parse_error", &format!("arguments are not valid JSON: {e}"))
                })?;
                Ok(Op::Host(input, args, super::ts(now_ms)))
            })
        }

        /// Runs the time rules due at `now_ms`.
        pub fn tick(&self, now_ms: f64) -> js_sys::Promise {
            self.exec(move || Ok(Op::Tick(super::ts(now_ms))))
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
