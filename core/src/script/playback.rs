//! Playing a scenario script on a clock the host moves (the console's demo): the script's
//! lines become planned steps at absolute times, and [`Playback::next`] says what is due at a
//! given clock — a step, or a tick at the engine's next deadline, whichever comes first.
//! Pure: the host runs each command (on any storage) and reports its result with
//! [`Playback::done`], so the same script plays alike natively, in tests and in a browser.
use crate::engine::Caller;
use crate::ground::time::Timestamp;
use crate::script::scenario::{resolve_time, save_vars, subst};
use crate::surface::command::Command;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::HashMap;

/// One line of a script, at its absolute time.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanStep {
    /// Line number in the script (from 1).
    pub line: usize,
    /// When it runs.
    pub at: Timestamp,
    /// What it does.
    pub action: PlanAction,
    save: Option<Value>,
}

/// What a step does; `$name` strings are filled in from earlier steps' saved results.
#[derive(Clone, Debug, PartialEq)]
pub enum PlanAction {
    /// A tool call.
    Call {
        /// Tool.
        tool: String,
        /// Caller object.
        caller: Value,
        /// Arguments.
        args: Value,
    },
    /// A host input.
    Host {
        /// Input name.
        input: String,
        /// Arguments.
        args: Value,
    },
    /// An explicit tick.
    Tick,
}

/// A script as planned steps.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// The id seed the script asks for (its `seed` line), if any.
    pub seed: Option<u64>,
    /// Steps in script order (their times never go back).
    pub steps: Vec<PlanStep>,
}

/// Plans a scenario script (docs/SCENARIOS.md). `advance_to` lines only move the script's
/// time: on a live clock the ticks come from [`Playback::next`].
pub fn plan(script: &str) -> Result<Plan, String> {
    let mut now: Option<Timestamp> = None;
    let mut seed = None;
    let mut steps = Vec::new();
    for (i, raw) in script.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let err = |m: String| format!("line {}: {m}", i + 1);
        let o: Map<String, Value> = match serde_json::from_str(line) {
            Ok(Value::Object(o)) => o,
            _ => return Err(err("each line must be one JSON object".into())),
        };
        if let Some(s) = o.get("seed") {
            seed = Some(s.as_u64().ok_or_else(|| err("`seed` must be a whole number".into()))?);
            continue;
        }
        let at = resolve_time(now, o.get("at").or(o.get("advance_to"))).map_err(err)?;
        if now.is_some_and(|n| at < n) {
            return Err(err("time goes back".into()));
        }
        now = Some(at);
        let action = if let Some(tool) = o.get("call").and_then(Value::as_str) {
            let caller = o.get("as").cloned().ok_or_else(|| err("a `call` line needs \"as\"".into()))?;
            PlanAction::Call { tool: tool.into(), caller, args: o.get("args").cloned().unwrap_or(Value::Null) }
        } else if let Some(input) = o.get("host").and_then(Value::as_str) {
            PlanAction::Host { input: input.into(), args: o.get("args").cloned().unwrap_or(Value::Null) }
        } else if o.contains_key("tick") {
            PlanAction::Tick
        } else if o.contains_key("advance_to") {
            continue;
        } else {
            return Err(err("a line needs one of: call, host, tick, advance_to, seed".into()));
        };
        steps.push(PlanStep { line: i + 1, at, action, save: o.get("save").cloned() });
    }
    Ok(Plan { seed, steps })
}

/// A command that is due, ready to run.
#[derive(Clone, Debug, PartialEq)]
pub enum Due {
    /// Run step `index` of the plan.
    Step {
        /// Its index.
        index: usize,
        /// Its time.
        at: Timestamp,
        /// The command, `$names` filled in; `Err` holds why the step's caller is malformed.
        command: Result<Command, String>,
    },
    /// Run the time rules at this time.
    Tick(Timestamp),
}

/// How far a plan has played: the next step and the values saved so far. Serializable, so a
/// host keeps it beside the workspace and resumes after a reload.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    /// Index of the next step.
    pub next: usize,
    /// Saved values by name.
    pub vars: HashMap<String, Value>,
    /// Steps that failed, as `line N: message` (the demo goes on without them).
    #[serde(default)]
    pub failed: Vec<String>,
}

/// A plan being played.
#[derive(Clone, Debug)]
pub struct Playback {
    plan: Plan,
    /// Where it stands.
    pub progress: Progress,
}

impl Playback {
    /// Plays `plan` from `progress` (`Progress::default()` for the start).
    pub fn new(plan: Plan, progress: Progress) -> Self {
        Playback { plan, progress }
    }

    /// The plan.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// Every step has run.
    pub fn finished(&self) -> bool {
        self.progress.next >= self.plan.steps.len()
    }

    /// When the next step is due.
    pub fn next_at(&self) -> Option<Timestamp> {
        self.plan.steps.get(self.progress.next).map(|s| s.at)
    }

    /// What to run next with the clock at `clock`, given the engine's next deadline and the
    /// time of its last accepted command: a deadline at or before the next step ticks first
    /// (at the deadline, never before the last command). `None`: nothing is due yet.
    pub fn next(&self, clock: Timestamp, deadline: Option<Timestamp>, last_at: Timestamp) -> Option<Due> {
        let step = self.plan.steps.get(self.progress.next).filter(|s| s.at <= clock);
        let tick = deadline.filter(|d| *d <= clock && step.is_none_or(|s| *d <= s.at));
        if let Some(d) = tick {
            return Some(Due::Tick(d.max(last_at)));
        }
        let s = step?;
        let vars = &self.progress.vars;
        let command = match &s.action {
            PlanAction::Call { tool, caller, args } => serde_json::from_value::<Caller>(subst(vars, caller.clone()))
                .map_err(|e| e.to_string())
                .map(|caller| Command::Call { tool: tool.clone(), args: subst(vars, args.clone()), caller }),
            PlanAction::Host { input, args } => {
                Ok(Command::Host { input: input.clone(), args: subst(vars, args.clone()) })
            }
            PlanAction::Tick => Ok(Command::Tick),
        };
        Some(Due::Step { index: self.progress.next, at: s.at.max(last_at), command })
    }

    /// Records step `index`'s outcome: saves what it names from a result, notes a failure,
    /// and moves on.
    pub fn done(&mut self, index: usize, outcome: Result<&Value, String>) {
        if index != self.progress.next {
            return;
        }
        if let Some(step) = self.plan.steps.get(index) {
            match outcome {
                Ok(v) => save_vars(&mut self.progress.vars, step.save.as_ref(), v),
                Err(e) => self.progress.failed.push(format!("line {}: {e}", step.line)),
            }
        }
        self.progress.next += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Engine, MemoryStorage, SeededIds, MINUTE};

    const SCRIPT: &str = r#"{"seed": 7}
{"at": "2026-11-30T09:00:00Z", "host": "register_agent", "args": {"bot_id": "lead"}}
{"at": "+0s", "host": "register_agent", "args": {"bot_id": "adam"}}
{"at": "+0s", "host": "open_thread", "args": {"thread_id": "chat_main", "bot_id": "lead"}}
{"at": "+1m", "call": "handoff", "as": {"thread": "chat_main", "bot": "lead"}, "args": {"task": "Review", "target_bot": "adam"}, "save": {"h": "handoff_id"}}
{"advance_to": "+2h"}
{"at": "+1m", "call": "handoff_status", "as": {"thread": "chat_main", "bot": "lead"}, "args": {"handoff_id": "$h"}}
"#;

    fn run(engine: &mut Engine<MemoryStorage>, pb: &mut Playback, clock: Timestamp) -> Vec<Value> {
        let mut outs = Vec::new();
        while let Some(due) = pb.next(clock, engine.next_deadline(), engine.last_at()) {
            match due {
                Due::Tick(t) => engine.tick(t).unwrap(),
                Due::Step { index, at, command } => {
                    let r = engine.run(command.unwrap(), at);
                    outs.push(r.clone().unwrap_or_else(|e| e.to_json()));
                    pb.done(index, r.as_ref().map_err(|e| e.to_string()));
                }
            }
        }
        outs
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn a_plan_plays_on_a_moving_clock_with_saved_values_and_ticks_between_steps() {
        let plan = plan(SCRIPT).unwrap();
        assert_eq!(plan.seed, Some(7));
        assert_eq!(plan.steps.len(), 5, "advance_to lines only move time");
        let t0 = plan.steps[0].at;
        assert_eq!(plan.steps[4].at, t0.plus(MINUTE + 2 * 60 * MINUTE + MINUTE));
        let mut engine = Engine::open(MemoryStorage::new(), Box::new(SeededIds::new(7))).unwrap();
        let mut pb = Playback::new(plan, Progress::default());
        // Nothing is due before the first step.
        assert_eq!(pb.next(Timestamp(t0.0 - 1), None, Timestamp(0)), None);
        assert_eq!(run(&mut engine, &mut pb, t0).len(), 3);
        let outs = run(&mut engine, &mut pb, t0.plus(3 * 60 * MINUTE));
        assert!(pb.finished() && pb.progress.failed.is_empty(), "{:?}", pb.progress.failed);
        let h = pb.progress.vars["h"].as_str().unwrap().to_string();
        assert_eq!(outs[1]["handoff_id"], h, "the saved id is filled in");
        // The time rules ran on a tick between the two steps (the G9 watch window closed).
        assert!(engine.storage().records().iter().any(|r| r.command == "tick"));
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn progress_survives_a_round_trip_and_a_failed_step_is_noted_not_fatal() {
        let mut pb = Playback::new(plan(SCRIPT).unwrap(), Progress::default());
        pb.done(0, Err("no such agent".into()));
        pb.done(3, Ok(&Value::Null)); // not the next step: ignored
        let text = serde_json::to_string(&pb.progress).unwrap();
        let back: Progress = serde_json::from_str(&text).unwrap();
        assert_eq!(back, pb.progress);
        assert_eq!(back.next, 1);
        assert_eq!(back.failed, ["line 2: no such agent"]);
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn a_bad_script_is_refused_with_its_line() {
        assert_eq!(
            plan("{\"at\": \"+1m\", \"tick\": true}").unwrap_err(),
            "line 1: a relative `at` needs an earlier absolute one"
        );
        assert!(plan("[1]").unwrap_err().starts_with("line 1:"));
    }
}
