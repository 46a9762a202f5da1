//! One command a host hands the engine — a tool call, a host input or a tick — the one type
//! every host runs through [`Engine::run`] or [`Engine::prepare`]: the scenario runner, the
//! console's demo playback, the IndexedDB workspace of the npm package and the console.
use crate::engine::storage::Storage;
use crate::engine::{Caller, Engine, Prepared};
use crate::ground::error::CallError;
use crate::ground::time::Timestamp;
use serde_json::Value;

/// One command for the engine.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// A tool call, as `caller`.
    Call {
        /// The tool.
        tool: String,
        /// Its arguments.
        args: Value,
        /// Who calls it.
        caller: Caller,
    },
    /// A host input.
    Host {
        /// The input.
        input: String,
        /// Its arguments.
        args: Value,
    },
    /// The time rules.
    Tick,
}

impl<S: Storage> Engine<S> {
    /// Stages `command` at `now` without committing it (see [`Engine::commit`]); it can be
    /// prepared again, on a newer state, as often as a host needs.
    pub fn prepare(&self, command: &Command, now: Timestamp) -> Result<Prepared, CallError> {
        match command {
            Command::Call { tool, args, caller } => self.prepare_call(tool, args.clone(), caller, now),
            Command::Host { input, args } => self.prepare_host(input, args.clone(), now),
            Command::Tick => self.prepare_tick(now),
        }
    }

    /// Runs `command` at `now` and answers as the engine did (a tick answers `null`).
    pub fn run(&mut self, command: Command, now: Timestamp) -> Result<Value, CallError> {
        match command {
            Command::Call { tool, args, caller } => self.call_value(&tool, args, &caller, now),
            Command::Host { input, args } => self.host(&input, args, now),
            Command::Tick => self.tick(now).map(|()| Value::Null),
        }
    }

    /// [`Engine::run`] answering JSON text: a tool's answer serialized once, straight from
    /// its result type (what a server puts in its envelope as it is); a host input's and a
    /// tick's from the value it answered.
    pub fn run_to_text(&mut self, command: Command, now: Timestamp) -> Result<String, CallError> {
        match command {
            Command::Call { tool, args, caller } => self.call_to_text(&tool, args, &caller, now),
            command => self.run(command, now).map(|v| v.to_string()),
        }
    }
}
