//! The engine's entry points for tool calls and ticks — JSON in, JSON out (`call`), a parsed
//! value (`call_value`), a preview, the staged forms — over the tool table and the timed parts
//! this layer lists, and the caller a call names, checked against the state (X1, X5, G13):
//! shared by the JSON path here and the typed one (`typed.rs`), beside `Engine::host`.
use crate::engine::storage::Storage;
use crate::engine::timers;
use crate::engine::{Caller, Engine, Prepared};
use crate::ground::error::{CallError, ErrorCode};
use crate::ground::time::Timestamp;
use crate::surface::caller::{relay_caller, thread_caller};
use crate::surface::def::{Args, Form, Output};
use serde_json::Value;

impl<S: Storage> Engine<S> {
    /// The JSON entry point: `args_json` exactly as a model sent it; answers the tool's
    /// result or `{"error": {...}}`. Never panics on any input.
    /// The answer is serialized straight from the tool's result type (no JSON value between).
    pub fn call(&mut self, tool: &str, args_json: &str, caller: &Caller, now: Timestamp) -> String {
        let answer = json_checked(args_json)
            .and_then(|args| self.prepare_call_as(tool, args, caller, now, Form::Text))
            .and_then(|prepared| self.commit(prepared));
        match answer {
            Ok(out) => out.into_text(),
            Err(e) => e.to_json().to_string(),
        }
    }

    /// Runs a tool on the raw argument text, typed: [`Engine::call`] without the final JSON.
    pub fn call_text(
        &mut self,
        tool: &str,
        args_json: &str,
        caller: &Caller,
        now: Timestamp,
    ) -> Result<Value, CallError> {
        let prepared = self.prepare_call_as(tool, json_checked(args_json)?, caller, now, Form::Value)?;
        self.commit(prepared).map(Output::into_value)
    }

    /// Runs a tool with already-parsed arguments; its answer as JSON text, serialized once,
    /// straight from the tool's result type (what a server puts in its envelope as it is).
    pub fn call_to_text(
        &mut self,
        tool: &str,
        args: Value,
        caller: &Caller,
        now: Timestamp,
    ) -> Result<String, CallError> {
        let prepared = self.prepare_call_as(tool, Args::Value(args), caller, now, Form::Text)?;
        self.commit(prepared).map(Output::into_text)
    }

    /// Runs a tool with already-parsed arguments.
    pub fn call_value(&mut self, tool: &str, args: Value, caller: &Caller, now: Timestamp) -> Result<Value, CallError> {
        let prepared = self.prepare_call(tool, args, caller, now)?;
        self.commit(prepared)
    }

    /// Stages a tool call without changing anything (see [`Prepared`]).
    pub fn prepare_call(
        &self,
        tool: &str,
        args: Value,
        caller: &Caller,
        now: Timestamp,
    ) -> Result<Prepared, CallError> {
        self.prepare_call_as(tool, Args::Value(args), caller, now, Form::Value).map(|p| p.map(Output::into_value))
    }

    /// Stages a tool call whose answer comes in `form`.
    fn prepare_call_as(
        &self,
        tool: &str,
        args: Args<'_>,
        caller: &Caller,
        now: Timestamp,
        form: Form,
    ) -> Result<Prepared<Output>, CallError> {
        let def = crate::surface::find(tool).ok_or_else(|| {
            CallError::new(ErrorCode::UnknownTool, format!("no tool named '{tool}'; `baton tools` lists them"))
        })?;
        self.stage(tool, now, |tx| match &def.run {
            crate::surface::def::Handler::Thread(run) => {
                run(tx, &thread_caller(tx, def.name, def.exists_for, caller)?, args, form)
            }
            crate::surface::def::Handler::Relay(run) => run(tx, &relay_caller(tx, def.name, caller)?, args, form),
        })
    }

    /// Runs a tool call against the current state and answers what it would answer, changing
    /// nothing (a view's read: `handoff_status`, `check_inbox`, … exactly as the tool sees it).
    pub fn preview(&self, tool: &str, args: Value, caller: &Caller, now: Timestamp) -> Result<Value, CallError> {
        self.prepare_call(tool, args, caller, now).map(Prepared::into_output)
    }

    /// Runs every time rule due at or before `now`. Appends one record if anything was due.
    pub fn tick(&mut self, now: Timestamp) -> Result<(), CallError> {
        let prepared = self.prepare_tick(now)?;
        self.commit(prepared)?;
        // Every timed part moved past what was due (else a host would tick forever).
        debug_assert!(
            self.next_deadline().is_none_or(|d| d > now),
            "after tick({now:?}) a time rule is still due: {:?}",
            crate::surface::TIMED
                .iter()
                .filter(|p| (p.deadline)(self.state()).is_some_and(|d| d <= now))
                .map(|p| p.name)
                .collect::<Vec<_>>()
        );
        Ok(())
    }

    /// Stages a tick without changing anything (see [`Prepared`]).
    pub fn prepare_tick(&self, now: Timestamp) -> Result<Prepared, CallError> {
        self.stage("tick", now, |tx| timers::tick(crate::surface::TIMED, tx).map(|()| Value::Null))
    }

    /// When `tick` next has something to do.
    pub fn next_deadline(&self) -> Option<Timestamp> {
        timers::next_deadline(crate::surface::TIMED, self.state())
    }
}

/// Argument text checked to be JSON (nothing kept: the tool reads it into its own type).
fn json_checked(args_json: &str) -> Result<Args<'_>, CallError> {
    serde_json::from_str::<serde::de::IgnoredAny>(args_json)
        .map(|_| Args::Text(args_json))
        .map_err(|e| CallError::new(ErrorCode::ParseError, format!("arguments are not valid JSON: {e}")))
}
