//! `baton python`: the Python package's types (`python/src/baton/types.py`) — a `TypedDict` for
//! every tool's arguments and result, every host input's arguments and answer and every
//! effect, the `Effect` union (discriminated by `effect`), and one typed method per tool and
//! per host input — generated from the same JSON Schemas as `baton typescript`, so neither
//! can drift from what the engine parses and answers.
//!
//! Python has no anonymous object types, so an object nested in a schema becomes a `TypedDict`
//! of its own, named by where it sits (`HandoffStatusResultWatch`), declared before its first
//! use. A dict whose keys are not all identifiers (`in`, `from`) uses the functional form.
use crate::typescript::{effect_kind, pascal};
use serde_json::Value;
use std::collections::HashSet;

/// Python's keywords, which cannot name a field in the class form.
const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
    "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal",
    "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
];

fn identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !KEYWORDS.contains(&name)
}

/// A docstring for `text` at `indent` (backslashes and quotes escaped).
fn docstring(text: &str, indent: &str) -> String {
    let body = text.replace('\\', "\\\\").replace("\"\"\"", "\\\"\\\"\\\"");
    let body = if body.ends_with('"') { format!("{body} ") } else { body };
    let lines: Vec<&str> = body.lines().collect();
    if lines.len() <= 1 {
        format!("{indent}\"\"\"{body}\"\"\"\n")
    } else {
        let rest: Vec<String> =
            lines[1..].iter().map(|l| if l.is_empty() { String::new() } else { format!("{indent}{l}") }).collect();
        format!("{indent}\"\"\"{}\n{}\n{indent}\"\"\"\n", lines[0], rest.join("\n"))
    }
}

fn description(schema: &Value) -> Option<&str> {
    schema.get("description").and_then(Value::as_str).filter(|d| !d.trim().is_empty())
}

/// A JSON value as a `Literal[...]` member (JSON string literals are Python string literals).
fn literal(v: &Value) -> String {
    match v {
        Value::Null => "None".into(),
        Value::Bool(true) => "Literal[True]".into(),
        Value::Bool(false) => "Literal[False]".into(),
        other => format!("Literal[{other}]"),
    }
}

/// The declarations made so far, in an order where each comes after what it uses.
struct Gen {
    out: String,
    names: HashSet<String>,
}

impl Gen {
    fn unique(&mut self, want: &str) -> String {
        let mut name = want.to_string();
        let mut n = 2;
        while self.names.contains(&name) {
            name = format!("{want}{n}");
            n += 1;
        }
        self.names.insert(name.clone());
        name
    }

    /// The Python type of `schema`; `hint` names an object declared for it.
    fn ty(&mut self, schema: &Value, hint: &str) -> String {
        if let Some(c) = schema.get("const") {
            return literal(c);
        }
        if let Some(values) = schema.get("enum").and_then(Value::as_array) {
            return union(values.iter().map(literal).collect());
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(options) = schema.get(key).and_then(Value::as_array) {
                let parts =
                    options.iter().enumerate().map(|(i, o)| self.ty(o, &variant(hint, o, i))).collect::<Vec<_>>();
                return union(parts);
            }
        }
        match schema.get("type") {
            Some(Value::String(t)) => self.primitive(t, schema, hint),
            Some(Value::Array(ts)) => {
                let parts = ts.iter().filter_map(Value::as_str).map(|t| self.primitive(t, schema, hint)).collect();
                union(parts)
            }
            _ => "Any".into(),
        }
    }

    fn primitive(&mut self, t: &str, schema: &Value, hint: &str) -> String {
        match t {
            "string" => "str".into(),
            "integer" => "int".into(),
            "number" => "float".into(),
            "boolean" => "bool".into(),
            "null" => "None".into(),
            "array" => match schema.get("items") {
                Some(item) => format!("list[{}]", self.ty(item, &format!("{hint}Item"))),
                None => "list[Any]".into(),
            },
            "object" => self.object(schema, hint),
            _ => "Any".into(),
        }
    }

    /// An object: a `TypedDict` named `name` when it has properties, else a `dict`.
    fn object(&mut self, schema: &Value, name: &str) -> String {
        let has_props = schema.get("properties").and_then(Value::as_object).is_some_and(|p| !p.is_empty());
        if !has_props {
            return match schema.get("additionalProperties") {
                Some(extra @ Value::Object(_)) => format!("dict[str, {}]", self.ty(extra, &format!("{name}Value"))),
                _ => "dict[str, Any]".into(),
            };
        }
        let name = self.unique(name);
        self.declare(&name, schema);
        name
    }

    /// Declares the `TypedDict` `name` for an object schema with properties.
    fn declare(&mut self, name: &str, schema: &Value) {
        let props = schema.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
        let required: Vec<&str> =
            schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
        let mut fields = Vec::new();
        for (field, s) in &props {
            let t = self.ty(s, &format!("{name}{}", pascal(field)));
            let t = if required.contains(&field.as_str()) { t } else { format!("NotRequired[{t}]") };
            fields.push((field.clone(), t, description(s).map(str::to_string)));
        }
        let mut out = String::new();
        if fields.iter().all(|(f, _, _)| identifier(f)) {
            out.push_str(&format!("class {name}(TypedDict):\n"));
            if let Some(d) = description(schema) {
                out.push_str(&docstring(d, "    "));
            }
            if fields.is_empty() && description(schema).is_none() {
                out.push_str("    pass\n");
            }
            for (field, t, doc) in &fields {
                out.push_str(&format!("    {field}: {t}\n"));
                if let Some(d) = doc {
                    out.push_str(&docstring(d, "    "));
                }
            }
        } else {
            if let Some(d) = description(schema) {
                for line in d.lines() {
                    out.push_str(&format!("# {line}\n"));
                }
            }
            out.push_str(&format!("{name} = TypedDict(\n    \"{name}\",\n    {{\n"));
            for (field, t, doc) in &fields {
                if let Some(d) = doc {
                    for line in d.lines() {
                        out.push_str(&format!("        # {line}\n"));
                    }
                }
                out.push_str(&format!("        {}: {t},\n", Value::String(field.clone())));
            }
            out.push_str("    },\n)\n");
        }
        self.out.push_str(&out);
        self.out.push_str("\n\n");
    }

    /// An alias `name = <type>` for a schema that is not an object with properties; a
    /// `TypedDict` for one that is, or for a closed object with none (arguments that take none).
    fn alias(&mut self, name: &str, schema: &Value) {
        let has_props = schema.get("properties").and_then(Value::as_object).is_some_and(|p| !p.is_empty());
        let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
        if has_props || closed {
            let name = self.unique(name);
            self.declare(&name, schema);
        } else {
            let name = self.unique(name);
            let t = self.ty(schema, &format!("{name}Value"));
            self.out.push_str(&format!("{name} = {t}\n\n\n"));
        }
    }
}

/// The name of a union's member: its discriminator's value where it has one.
fn variant(hint: &str, option: &Value, i: usize) -> String {
    let tag = option
        .get("properties")
        .and_then(Value::as_object)
        .and_then(|p| p.values().find_map(|s| s.get("const").and_then(Value::as_str).map(str::to_string)));
    match tag {
        Some(t) => format!("{hint}{}", pascal(&t)),
        None => format!("{hint}Option{}", i + 1),
    }
}

fn union(parts: Vec<String>) -> String {
    let mut seen = HashSet::new();
    let mut parts: Vec<String> = parts.into_iter().filter(|p| seen.insert(p.clone())).collect();
    // `Literal["a"] | Literal["b"]` reads better as `Literal["a", "b"]`.
    let values: Vec<String> = parts
        .iter()
        .filter_map(|p| p.strip_prefix("Literal[").and_then(|v| v.strip_suffix(']')).map(str::to_string))
        .collect();
    if values.len() > 1 {
        let first = parts.iter().position(|p| p.starts_with("Literal[")).unwrap_or(0);
        parts.retain(|p| !p.starts_with("Literal["));
        parts.insert(first.min(parts.len()), format!("Literal[{}]", values.join(", ")));
    }
    // `None` last reads as "optional".
    if let Some(i) = parts.iter().position(|p| p == "None") {
        let none = parts.remove(i);
        parts.push(none);
    }
    parts.join(" | ")
}

/// One typed method per tool or host input, on a class whose `_send(name, args)` does the work.
fn methods(out: &mut String, class: &str, doc: &str, entries: &[(String, String, String, String)], sync: bool) {
    let (def, wait, ret) = if sync { ("def", "", "Any") } else { ("async def", "await ", "Awaitable[Any]") };
    out.push_str(&format!("class {class}:\n"));
    out.push_str(&docstring(doc, "    "));
    out.push_str(&format!(
        "\n    def __init__(self, send: Callable[[str, Mapping[str, Any]], {ret}]) -> None:\n        self._send = send\n"
    ));
    for (name, args, result, summary) in entries {
        out.push_str(&format!("\n    {def} {name}(self, **args: Unpack[{args}]) -> {result}:\n"));
        out.push_str(&docstring(summary, "        "));
        out.push_str(&format!(
            "        return cast({result}, {wait}self._send({}, args))\n",
            Value::String(name.clone())
        ));
    }
    out.push_str("\n\n");
}

/// The first sentence of a description, for a method's docstring.
fn summary(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default().trim();
    line.to_string()
}

/// The whole `types.py`, from the document `baton schemas` prints.
pub fn generate(schemas: &Value) -> String {
    let mut g = Gen { out: String::new(), names: HashSet::new() };
    let list = |key: &str| schemas[key].as_array().cloned().unwrap_or_default();
    let (tools, host) = (list("tools"), list("host_inputs"));
    let name_of = |d: &Value| d["name"].as_str().unwrap_or_default().to_string();
    let mut tool_entries = Vec::new();
    for t in &tools {
        let name = name_of(t);
        let args = g.unique(&format!("{}Args", pascal(&name)));
        let mut params = t["parameters"].clone();
        if description(&params).is_none() {
            params["description"] = Value::String(format!("Arguments of `{name}`."));
        }
        g.declare(&args, &params);
        let result = format!("{}Result", pascal(&name));
        g.alias(&result, &t["result"]);
        tool_entries.push((name, args, result, summary(t["description"].as_str().unwrap_or(""))));
    }
    let mut host_entries = Vec::new();
    for h in &host {
        let name = name_of(h);
        let input = format!("{}Input", pascal(&name));
        g.alias(&input, &h["parameters"]);
        let answer = format!("{}Answer", pascal(&name));
        g.alias(&answer, &h["result"]);
        let rule = h["rule"].as_str().unwrap_or("");
        let what = summary(h["description"].as_str().unwrap_or(""));
        host_entries.push((name, input, answer, format!("Rule {rule}. {what}").replace("Rule . ", "")));
    }
    let mut kinds = Vec::new();
    for e in schemas["effects"]["oneOf"].as_array().into_iter().flatten() {
        let kind = effect_kind(e);
        let name = g.unique(&format!("{}Effect", pascal(&kind)));
        g.declare(&name, e);
        kinds.push((kind, name));
    }

    let mut out = String::from(
        "# Generated by `baton python` from the JSON Schemas of the Rust types (`baton schemas`).\n\
         # Do not edit: the test suite fails when this file and the generator disagree.\n\
         \"\"\"Every tool's arguments and result, every host input's arguments and answer, and every\n\
         effect, as typed dicts; one typed method per tool (`AsyncTools`, `Tools`) and per host\n\
         input (`AsyncInputs`, `Inputs`).\"\"\"\n\n\
         from collections.abc import Awaitable, Callable, Mapping\n\
         from typing import Any, Literal, cast\n\n\
         from typing_extensions import NotRequired, TypedDict, Unpack\n\n\n",
    );
    out.push_str(&g.out);
    let names = |xs: &[(String, String, String, String)]| {
        xs.iter().map(|x| format!("    {},\n", Value::String(x.0.clone()))).collect::<String>()
    };
    out.push_str(&format!("ToolName = Literal[\n{}]\n\"\"\"Every tool's name.\"\"\"\n\n", names(&tool_entries)));
    out.push_str(&format!(
        "HostInputName = Literal[\n{}]\n\"\"\"Every host input's name.\"\"\"\n\n",
        names(&host_entries)
    ));
    out.push_str("Effect = (\n");
    for (i, (_, name)) in kinds.iter().enumerate() {
        out.push_str(&format!("    {}{name}\n", if i == 0 { "" } else { "| " }));
    }
    out.push_str(")\n\"\"\"Something the host does on Baton's behalf, told apart by its `effect`.\"\"\"\n\n");
    out.push_str("EFFECT_KINDS: tuple[str, ...] = (\n");
    for (kind, _) in &kinds {
        out.push_str(&format!("    {},\n", Value::String(kind.clone())));
    }
    out.push_str(")\n\"\"\"Every effect's `effect`.\"\"\"\n\n\n");
    let tool_doc = "Baton's tools for one caller, one method each: keyword arguments in, the typed result out.";
    let input_doc = "Every host input, one method each: keyword arguments in, the typed answer out.";
    methods(&mut out, "AsyncTools", tool_doc, &tool_entries, false);
    methods(&mut out, "Tools", tool_doc, &tool_entries, true);
    methods(&mut out, "AsyncInputs", input_doc, &host_entries, false);
    methods(&mut out, "Inputs", input_doc, &host_entries, true);
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}
