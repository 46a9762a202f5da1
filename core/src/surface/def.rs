//! What a tool is: its definition (`ToolDef`: name, title, effect, schemas, handler), how it
//! is called, the form of its answer, and how its arguments are parsed (naming the field and
//! the rule on failure).
use crate::engine::tx::Tx;
use crate::ground::error::{CallError, ErrorCode};
use crate::handoff::ctx::{Ctx, RelayCtx};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};

/// How a tool is called.
pub(crate) enum Handler {
    /// From a thread (the handoff tools).
    Thread(fn(&mut Tx<'_>, &Ctx, Value, Form) -> Result<Output, CallError>),
    /// As a teammate (the relay tools).
    Relay(fn(&mut Tx<'_>, &RelayCtx, Value, Form) -> Result<Output, CallError>),
}

/// The form a JSON caller wants the answer in.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Form {
    /// A `serde_json::Value` (scenarios, previews, the console).
    Value,
    /// JSON text, serialized straight from the result type ([`crate::Engine::call`]).
    Text,
}

/// An answer in the form asked for.
pub(crate) enum Output {
    /// As a value.
    Value(Value),
    /// As JSON text.
    Text(String),
}

impl Output {
    /// The answer as a value (text is parsed back; only a `Form::Text` caller gets text).
    pub(crate) fn into_value(self) -> Value {
        match self {
            Output::Value(v) => v,
            Output::Text(t) => serde_json::from_str(&t).unwrap_or(Value::Null),
        }
    }

    /// The answer as JSON text.
    pub(crate) fn into_text(self) -> String {
        match self {
            Output::Value(v) => v.to_string(),
            Output::Text(t) => t,
        }
    }
}

/// A handler's result in the form asked for.
pub(crate) fn answer_as<T: Serialize>(r: T, form: Form) -> Output {
    match form {
        Form::Value => Output::Value(serde_json::to_value(r).unwrap_or(Value::Null)),
        Form::Text => Output::Text(serde_json::to_string(&r).unwrap_or_else(|_| "null".into())),
    }
}

/// What a tool's call does to the workspace: whether it makes records at all, whether what it
/// changes can be lost (something ended, removed or overwritten), and whether the same call
/// again changes nothing more.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Effect {
    /// It never changes the workspace.
    pub read_only: bool,
    /// It may end, remove or overwrite something (a cancel, a deleted schedule, a replaced plan).
    pub destructive: bool,
    /// The same call made again changes nothing more.
    pub idempotent: bool,
}

/// Changes nothing: a read.
pub const READS: Effect = Effect { read_only: true, destructive: false, idempotent: true };
/// Adds to the workspace: each call adds again (a handoff, a message, a report).
pub const ADDS: Effect = Effect { read_only: false, destructive: false, idempotent: false };
/// Moves something to where it stays: the same call again changes nothing more (an accept, a
/// completion, a status check that records what time has already made true, S6).
pub const SETTLES: Effect = Effect { read_only: false, destructive: false, idempotent: true };
/// Ends something for good; the same call again changes nothing more (a cancel).
pub const ENDS: Effect = Effect { read_only: false, destructive: true, idempotent: true };
/// Changes or removes what is there; each call changes it again (the plan, schedules).
pub const CHANGES: Effect = Effect { read_only: false, destructive: true, idempotent: false };

/// One tool of the surface.
pub struct ToolDef {
    /// Tool name, as models call it.
    pub name: &'static str,
    /// Its name for a person (MCP's `title`).
    pub title: &'static str,
    /// What a call does to the workspace (MCP's tool annotations); the scenario suite checks
    /// it (tests/tests/annotations.rs).
    pub effect: Effect,
    /// What it does, for the model.
    pub description: &'static str,
    #[cfg(feature = "schema")]
    pub(crate) schema: fn() -> Value,
    #[cfg(feature = "schema")]
    pub(crate) result: fn() -> Value,
    pub(crate) run: Handler,
    /// Where the tool exists at all (X1); `None`: everywhere.
    pub(crate) exists_for: Option<fn(&crate::engine::state::State, &crate::handoff::thread::Thread) -> bool>,
}

impl ToolDef {
    /// Whether it acts as a teammate (the relay tools: callable with a handle and no thread);
    /// the others are called from a thread.
    pub fn acts_as_teammate(&self) -> bool {
        matches!(self.run, Handler::Relay(_))
    }

    /// JSON Schema of the result (what a successful call answers).
    #[cfg(feature = "schema")]
    pub fn result_schema(&self) -> Value {
        (self.result)()
    }

    /// JSON Schema of the parameters.
    #[cfg(feature = "schema")]
    pub fn parameters(&self) -> Value {
        (self.schema)()
    }

    /// JSON Schema of the parameters, as generated when the crate was built with its
    /// schemas (`surface/parameters.json`).
    #[cfg(not(feature = "schema"))]
    pub fn parameters(&self) -> Value {
        crate::surface::parameters::tool(self.name)
    }
}

/// The rule of `field` in a tool's rule list (its first rule when the field is not listed).
pub(crate) fn rule_in(rules: &[(&str, &'static str)], field: &str) -> &'static str {
    let head = field.split(['[', '.']).next().unwrap_or(field);
    rules.iter().find(|(f, _)| *f == head).or(rules.first()).map_or("G1", |(_, r)| r)
}

/// A JSON Schema for `T`, subschemas inlined (the shape function-calling APIs take).
#[cfg(feature = "schema")]
pub fn schema_of<T: schemars::JsonSchema>() -> Value {
    let settings = schemars::generate::SchemaSettings::draft2020_12().with(|s| s.inline_subschemas = true);
    let schema = settings.into_generator().into_root_schema_for::<T>();
    let mut v = serde_json::to_value(schema).unwrap_or(Value::Null);
    if let Some(o) = v.as_object_mut() {
        o.remove("$schema");
        o.remove("title");
    }
    v
}

/// Parses `args` into `T`, naming the field and the rule on failure. Changes nothing.
pub(crate) fn parse<T: DeserializeOwned>(args: Value, rule_for: impl Fn(&str) -> &'static str) -> Result<T, CallError> {
    let args = match args {
        Value::Null => json!({}),
        Value::Object(_) => args,
        other => {
            return Err(CallError::new(
                ErrorCode::InvalidParams,
                format!("arguments must be a JSON object, got {}", kind_of(&other)),
            ))
        }
    };
    serde_path_to_error::deserialize(args).map_err(|e| {
        let path = e.path().to_string();
        let msg = e.inner().to_string();
        let field = if path == "." || path.is_empty() { quoted_field(&msg).unwrap_or_default() } else { path };
        let rule = rule_for(&field);
        let field = if field.is_empty() { "arguments".to_string() } else { field };
        CallError::invalid(&field, rule, msg)
    })
}

fn quoted_field(msg: &str) -> Option<String> {
    let start = msg.find('`')? + 1;
    let end = start + msg[start..].find('`')?;
    Some(msg[start..end].to_string())
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
