//! What a tool is: its definition (`ToolDef`: name, title, effect, schemas, handler), how it
//! is called, the form of its answer, and how its arguments are parsed (naming the field and
//! the rule on failure).
use crate::engine::tx::Tx;
use crate::ground::error::{CallError, ErrorCode};
use crate::handoff::ctx::{Ctx, RelayCtx};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

/// How a tool is called.
pub(crate) enum Handler {
    /// From a thread (the handoff tools).
    Thread(fn(&mut Tx<'_>, &Ctx, Args<'_>, Form) -> Result<Output, CallError>),
    /// As a teammate (the relay tools).
    Relay(fn(&mut Tx<'_>, &RelayCtx, Args<'_>, Form) -> Result<Output, CallError>),
}

/// A call's arguments as the caller has them.
pub(crate) enum Args<'a> {
    /// Parsed (a server's envelope, a command, the console).
    Value(Value),
    /// JSON text, already checked to be JSON ([`crate::Engine::call`]): read once, straight
    /// into the tool's argument type.
    Text(&'a str),
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
///
/// In wasm the arguments are read from JSON text, with the reader the log's lines go through,
/// so the field types' readers the records instantiate serve the tools too; natively a value
/// is read as it is. Text from the caller is read once, on both. A failure is located by
/// reading the arguments again pretty-printed: the reader's line is one member's, mapped to
/// its path by [`line_paths`]. (A path-tracking deserializer, serde_path_to_error, wrapped
/// every visitor of every argument type a second time: 1.6 % of the console's gzipped wasm.)
pub(crate) fn parse<T: DeserializeOwned>(
    args: Args<'_>,
    rule_for: &dyn Fn(&str) -> &'static str,
) -> Result<T, CallError> {
    // Only the reads are generic: one copy of the rest serves every argument type.
    // Natively a value is read as it is, with no text between (that text was 9 % of the JSON
    // cycle); in wasm it goes through text, so that each argument type has one reader.
    #[cfg(not(target_arch = "wasm32"))]
    if let Args::Value(v @ Value::Object(_)) = &args {
        return T::deserialize(v)
            .map_err(|e| located(&v.to_string(), e, &|pretty| serde_json::from_str::<T>(pretty).err(), rule_for));
    }
    let text = object_text(args)?;
    serde_json::from_str::<T>(&text)
        .map_err(|e| located(&text, e, &|pretty| serde_json::from_str::<T>(pretty).err(), rule_for))
}

/// The arguments as object text: text that is one is kept as it is, none is `{}`, anything
/// else is refused.
fn object_text(args: Args<'_>) -> Result<std::borrow::Cow<'_, str>, CallError> {
    let args = match args {
        Args::Text(text) if text.trim_start().starts_with('{') => return Ok(text.into()),
        Args::Text(text) => serde_json::from_str(text).unwrap_or(Value::Null),
        Args::Value(v) => v,
    };
    match args {
        Value::Null => Ok("{}".into()),
        Value::Object(_) => Ok(args.to_string().into()),
        other => Err(CallError::new(
            ErrorCode::InvalidParams,
            format!("arguments must be a JSON object, got {}", kind_of(&other)),
        )),
    }
}

/// The error `first` of reading `text`, with the member at fault named: `reread` reads the
/// same arguments printed one member a line, and its error's line is the member's.
fn located(
    text: &str,
    first: serde_json::Error,
    reread: &dyn Fn(&str) -> Option<serde_json::Error>,
    rule_for: &dyn Fn(&str) -> &'static str,
) -> CallError {
    let args: Value = serde_json::from_str(text).unwrap_or(Value::Null);
    let pretty = serde_json::to_string_pretty(&args).unwrap_or_default();
    // (Read as a value, text with a key given twice has it once: then the first error stands,
    // unlocated.)
    let (e, located) = match reread(&pretty) {
        Some(e) => (e, true),
        None => (first, false),
    };
    let msg = e.to_string();
    let msg = msg.strip_suffix(&format!(" at line {} column {}", e.line(), e.column())).unwrap_or(&msg).to_string();
    let path = match e.line() {
        line if located && line > 0 => line_paths(&args).get(line - 1).cloned().unwrap_or_default(),
        _ => String::new(),
    };
    let field = if path.is_empty() { quoted_field(&msg).unwrap_or_default() } else { path };
    let rule = rule_for(&field);
    let field = if field.is_empty() { "arguments".to_string() } else { field };
    CallError::invalid(&field, rule, msg)
}

/// The path of the value on each line of `v` pretty-printed (`serde_json::to_string_pretty`):
/// a member's line is its path, a closing bracket's line its container's. Scalars and empty
/// containers print on their member's line.
fn line_paths(v: &Value) -> Vec<String> {
    fn walk(v: &Value, path: &str, out: &mut Vec<String>) {
        match v {
            Value::Object(m) if !m.is_empty() => {
                for (k, child) in m {
                    let p = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
                    out.push(p.clone());
                    walk(child, &p, out);
                }
                out.push(path.to_string());
            }
            Value::Array(a) if !a.is_empty() => {
                for (i, child) in a.iter().enumerate() {
                    let p = format!("{path}[{i}]");
                    out.push(p.clone());
                    walk(child, &p, out);
                }
                out.push(path.to_string());
            }
            _ => {}
        }
    }
    let mut out = vec![String::new()];
    walk(v, "", &mut out);
    out
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

#[cfg(test)]
mod tests {
    use super::{parse, Args};
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Sample {
        name: String,
        #[serde(default)]
        items: Vec<Item>,
        #[serde(default)]
        note: Option<String>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Item {
        key: String,
        #[serde(default)]
        size: u32,
    }

    /// The field and message of the error `args` get, read as a value and as text (both the same).
    fn field(args: serde_json::Value) -> (String, String) {
        let rule = |f: &str| if f.starts_with("items") { "X3" } else { "G1" };
        let text = args.to_string();
        let by_text = parse::<Sample>(Args::Text(&text), &rule).unwrap_err();
        let e = parse::<Sample>(Args::Value(args), &rule).unwrap_err();
        assert_eq!((&by_text.field, &by_text.message), (&e.field, &e.message), "{text}");
        (e.field.unwrap_or_default(), e.message)
    }

    /// An argument error names the member at fault by its path, with the rule of its top-level
    /// field, whatever the text around it holds; the reader's position is not in the message.
    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn an_argument_error_names_the_member_at_fault() {
        let at = |args| field(args).0;
        assert_eq!(at(json!({"items": []})), "name");
        assert_eq!(at(json!({"name": 7})), "name");
        assert_eq!(at(json!({"name": "a", "extra": 1})), "extra");
        let many = json!({"name": "a\nb", "note": "x\n\"y\"", "items": [{"key": "k"}, {"key": "l", "size": "big"}]});
        assert_eq!(at(many), "items[1].size");
        assert_eq!(at(json!({"name": "a", "items": [{"key": "k"}, {"size": 1}]})), "items[1]");
        assert_eq!(at(json!({"name": "a", "items": [{}, {"key": "k", "colour": 1}]})), "items[0]");
        assert_eq!(at(json!({"name": "a", "items": [{"key": "k", "colour": 1}]})), "items[0].colour");
        assert_eq!(at(json!({"name": "a", "items": {"key": "k"}})), "items");
        assert_eq!(at(json!({"name": {"first": "a", "last": "b"}})), "name");
        let (f, msg) = field(json!({"name": "a", "items": [{"key": 3}]}));
        assert_eq!(
            (f.as_str(), msg.as_str()),
            ("items[0].key", "items[0].key: invalid type: integer `3`, expected a string (rule X3)")
        );
        for args in [Args::Value(json!([1])), Args::Text(" [1]")] {
            let e = parse::<Sample>(args, &|_| "G1").unwrap_err();
            assert_eq!(e.message, "arguments must be a JSON object, got an array");
        }
        // A struct reads a sequence too; arguments are an object, whatever the form.
        assert!(parse::<Sample>(Args::Text(r#"["a"]"#), &|_| "G1").is_err());
        // None is no arguments; text is read as it is (a key given twice is refused).
        assert_eq!(field(json!(null)).0, "name");
        assert_eq!(parse::<Sample>(Args::Text("null"), &|_| "G1").unwrap_err().field.as_deref(), Some("name"));
        let twice =
            parse::<Sample>(Args::Text("{\n\"items\": [],\n\"name\": \"a\", \"name\": \"b\"}"), &|_| "G1").unwrap_err();
        assert_eq!(twice.message, "name: duplicate field `name` (rule G1)");
        let ok = parse::<Sample>(Args::Text(r#" {"name": "a", "items": [{"key": "k", "size": 2}]}"#), &|_| "G1");
        assert_eq!(ok.unwrap().items[0].size, 2);
    }
}
