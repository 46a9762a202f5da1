//! The wasm-bindgen binding of `baton-core` for JS/TS hosts: the same engine and the same
//! JSON as natively, with JSON text across the boundary (the npm package's JS layer turns it
//! into objects and `Error`s). Time comes in as milliseconds from the host; nothing here reads
//! a clock either.
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
    baton_core::tools::definitions().to_string()
}
