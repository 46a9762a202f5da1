//! The scenario runner: a script of timestamped tool calls, host inputs and ticks in, one
//! JSON line per input out. Pure: same script, same output, on every platform.
use crate::engine::storage::MemoryStorage;
use crate::engine::{Caller, Engine};
use crate::ground::ids::SeededIds;
use crate::ground::time::{Timestamp, DAY, HOUR, MINUTE, SECOND};
use crate::surface::command::Command;
use serde_json::{json, Map, Value};
use std::collections::HashMap;

/// Default id seed of a script without a `seed` line.
pub const DEFAULT_SEED: u64 = 1;

/// A finished run: its output and the engine it leaves behind.
pub struct ScenarioRun {
    /// One JSON line per input line, each ending in `\n`.
    pub output: String,
    /// The engine after the last line.
    pub engine: Engine<MemoryStorage>,
}

/// Runs a script and returns its output.
pub fn run_script(script: &str) -> String {
    run(script).output
}

/// Runs a script, keeping the engine for inspection.
pub fn run(script: &str) -> ScenarioRun {
    run_keeping(script, crate::ground::records::HOT_RECORDS)
}

/// Runs a script with only the `keep_hot` most recently written records of each kind held as
/// values and the rest sealed (1: nearly every record is read back from its sealed form).
pub fn run_keeping(script: &str, keep_hot: usize) -> ScenarioRun {
    let mut r = Runner::new(DEFAULT_SEED, keep_hot);
    let mut output = String::new();
    for (i, raw) in script.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut out = match serde_json::from_str::<Value>(line) {
            Ok(Value::Object(o)) => r.step(o),
            Ok(_) | Err(_) => json!({"script_error": "each line must be one JSON object"}),
        };
        out["line"] = json!(i + 1);
        output.push_str(&out.to_string());
        output.push('\n');
    }
    ScenarioRun { output, engine: r.engine }
}

struct Runner {
    engine: Engine<MemoryStorage>,
    now: Option<Timestamp>,
    vars: HashMap<String, Value>,
    started: bool,
    keep_hot: usize,
}

/// Parses `+1h30m`, `+45s`, `+2d`, `+500ms` to milliseconds.
fn parse_relative(s: &str) -> Option<u64> {
    let mut rest = s.strip_prefix('+')?;
    let mut total = 0u64;
    if rest.is_empty() {
        return None;
    }
    while !rest.is_empty() {
        let digits = rest.find(|c: char| !c.is_ascii_digit())?;
        if digits == 0 {
            return None;
        }
        let n: u64 = rest[..digits].parse().ok()?;
        rest = &rest[digits..];
        let (unit, len) = if rest.starts_with("ms") {
            (1, 2)
        } else {
            match rest.chars().next()? {
                'd' => (DAY, 1),
                'h' => (HOUR, 1),
                'm' => (MINUTE, 1),
                's' => (SECOND, 1),
                _ => return None,
            }
        };
        total = total.checked_add(n.checked_mul(unit)?)?;
        rest = &rest[len..];
    }
    Some(total)
}

/// A line's time: absolute (RFC 3339 or milliseconds) or `+duration` after `now`, the time of
/// the line before; `None` keeps `now`.
pub(crate) fn resolve_time(now: Option<Timestamp>, v: Option<&Value>) -> Result<Timestamp, String> {
    match v {
        None => now.ok_or_else(|| "the first timed line needs an absolute `at`".to_string()),
        Some(Value::Number(n)) => n.as_u64().map(Timestamp).ok_or_else(|| "`at` must be whole milliseconds".into()),
        Some(Value::String(s)) if s.starts_with('+') => {
            let base = now.ok_or("a relative `at` needs an earlier absolute one")?;
            parse_relative(s).map(|d| base.plus(d)).ok_or_else(|| format!("bad relative time '{s}'"))
        }
        Some(Value::String(s)) => Timestamp::parse_iso(s).ok_or_else(|| format!("bad time '{s}' (RFC 3339 expected)")),
        Some(_) => Err("`at` must be an RFC 3339 string, +duration or milliseconds".into()),
    }
}

/// Replaces each `"$name"` string with the value saved under `name` (unknown names stay).
pub(crate) fn subst(vars: &HashMap<String, Value>, v: Value) -> Value {
    match v {
        Value::String(s) if s.starts_with('$') => vars.get(&s[1..]).cloned().unwrap_or(Value::String(s)),
        Value::Array(a) => Value::Array(a.into_iter().map(|x| subst(vars, x)).collect()),
        Value::Object(o) => Value::Object(o.into_iter().map(|(k, x)| (k, subst(vars, x))).collect()),
        other => other,
    }
}

/// Saves the parts of `result` a line's `save` names (`{"var": "path.in.result"}`).
pub(crate) fn save_vars(vars: &mut HashMap<String, Value>, save: Option<&Value>, result: &Value) {
    if let Some(Value::Object(save)) = save {
        for (var, path) in save {
            let found = path.as_str().and_then(|p| result.pointer(&format!("/{}", p.replace('.', "/"))));
            vars.insert(var.clone(), found.cloned().unwrap_or(Value::Null));
        }
    }
}

impl Runner {
    fn new(seed: u64, keep_hot: usize) -> Self {
        let mut engine = Engine::open(MemoryStorage::new(), Box::new(SeededIds::new(seed))).expect("empty log opens");
        engine.keep_hot_records(keep_hot);
        Runner { engine, now: None, vars: HashMap::new(), started: false, keep_hot }
    }

    fn time(&self, v: Option<&Value>) -> Result<Timestamp, String> {
        resolve_time(self.now, v)
    }

    fn subst(&self, v: Value) -> Value {
        subst(&self.vars, v)
    }

    fn step(&mut self, mut o: Map<String, Value>) -> Value {
        if let Some(seed) = o.get("seed") {
            if self.started {
                return json!({"script_error": "`seed` must come before every other line"});
            }
            return match seed.as_u64() {
                Some(s) => {
                    *self = Runner::new(s, self.keep_hot);
                    json!({"seed": s})
                }
                None => json!({"script_error": "`seed` must be a whole number"}),
            };
        }
        self.started = true;
        let target = o.get("advance_to").cloned();
        let at = match self.time(o.get("at").or(target.as_ref())) {
            Ok(t) => t,
            Err(e) => return json!({"script_error": e}),
        };
        self.now = Some(at);
        let mut out = json!({"at": at.to_iso()});
        let result = if let Some(tool) = o.get("call").and_then(Value::as_str).map(str::to_string) {
            out["call"] = json!(tool);
            let caller = match o.remove("as").map(|c| self.subst(c)).map(serde_json::from_value::<Caller>) {
                Some(Ok(c)) => c,
                _ => {
                    return json!({"script_error": "a `call` line needs \"as\": {\"thread\"?: …, \"bot\"?: …, \"handle\"?: …}"})
                }
            };
            if let Some(raw) = o.get("args_json").and_then(Value::as_str) {
                self.engine.call_text(&tool, raw, &caller, at)
            } else {
                let args = self.subst(o.remove("args").unwrap_or(Value::Null));
                self.engine.run(Command::Call { tool, args, caller }, at)
            }
        } else if let Some(input) = o.get("host").and_then(Value::as_str).map(str::to_string) {
            out["host"] = json!(input);
            let args = self.subst(o.remove("args").unwrap_or(Value::Null));
            self.engine.run(Command::Host { input, args }, at)
        } else if o.get("tick").is_some() {
            out["tick"] = json!(true);
            self.engine.run(Command::Tick, at)
        } else if target.is_some() {
            // The simulator: jump the virtual clock from deadline to deadline up to `at`.
            out.as_object_mut().map(|m| m.remove("at"));
            out["advance_to"] = json!(at.to_iso());
            let mut ticks = Vec::new();
            while let Some(d) = self.engine.next_deadline().filter(|d| *d <= at) {
                let d = d.max(self.engine.last_at());
                if let Err(e) = self.engine.tick(d) {
                    return json!({"script_error": e.to_string()});
                }
                ticks.push(json!(d.to_iso()));
                if ticks.len() > 10_000 {
                    return json!({"script_error": "more than 10000 ticks; is a deadline stuck?"});
                }
            }
            out["ticks"] = Value::Array(ticks);
            Ok(Value::Null)
        } else {
            return json!({"script_error": "a line needs one of: call, host, tick, advance_to, seed"});
        };
        match result {
            Ok(v) => {
                save_vars(&mut self.vars, o.get("save"), &v);
                if !v.is_null() {
                    out["result"] = v;
                }
            }
            Err(e) => out["error"] = e.to_json()["error"].clone(),
        }
        let effects = self.engine.take_effects();
        if !effects.is_empty() {
            out["effects"] = serde_json::to_value(effects).unwrap_or_default();
        }
        if out.get("tick").is_some() || out.get("advance_to").is_some() {
            out["next_deadline"] = json!(self.engine.next_deadline().map(Timestamp::to_iso));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn relative_times() {
        assert_eq!(parse_relative("+1h30m"), Some(90 * MINUTE));
        assert_eq!(parse_relative("+500ms"), Some(500));
        assert_eq!(parse_relative("+2d"), Some(2 * DAY));
        assert_eq!(parse_relative("+"), None);
        assert_eq!(parse_relative("+5x"), None);
    }

    /// The console's demo runs without an error line in every build of the core, the
    /// console's included (no `schema`, no `yaml`: its trust policy is in the JSON form).
    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn the_consoles_demo_answers_no_error_in_this_build() {
        let out = run_script(include_str!("../../../demo/console.jsonl"));
        let failed: Vec<&str> = out.lines().filter(|l| l.contains("\"error\"") || l.contains("script_error")).collect();
        assert_eq!(failed, Vec::<&str>::new());
        assert!(out.contains("\"host\":\"load_trust\""));
    }
}
