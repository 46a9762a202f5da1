//! The one document of every schema Baton publishes (`baton schemas`), from the tool table and
//! the host inputs' table.
use serde_json::{json, Value};

/// Every schema Baton publishes, in one document (`baton schemas`): each tool's arguments and
/// result, each host input's arguments and result, and the effects (a union tagged by
/// `effect`). The package's TypeScript types are generated from it, and other languages
/// generate theirs from it.
pub fn schemas() -> Value {
    let tools: Vec<Value> = crate::surface::TOOLS
        .iter()
        .map(|t| {
            json!({"name": t.name, "description": t.description, "parameters": t.parameters(), "result": t.result_schema()})
        })
        .collect();
    let host: Vec<Value> = crate::surface::host::HOST_INPUTS
        .iter()
        .map(|h| {
            json!({"name": h.name, "description": h.description, "rule": h.rule, "scope": h.scope.as_str(), "parameters": h.parameters(), "result": h.result_schema()})
        })
        .collect();
    json!({"tools": tools, "host_inputs": host, "effects": crate::surface::schema_of::<crate::handoff::effect::Effect>()})
}

/// The parameter schemas alone, one line per tool and per host input: what a build without
/// the `schema` feature (the console's) reads instead of generating them
/// (`surface/parameters.json`, which a test keeps equal to this).
pub fn parameters_document() -> String {
    fn section(entries: Vec<(&str, Value)>) -> String {
        let lines: Vec<String> =
            entries.into_iter().map(|(name, schema)| format!("{}:{}", json!(name), schema)).collect();
        format!("{{\n{}\n}}", lines.join(",\n"))
    }
    let tools = section(crate::surface::TOOLS.iter().map(|t| (t.name, t.parameters())).collect());
    let host = section(crate::surface::host::HOST_INPUTS.iter().map(|h| (h.name, h.parameters())).collect());
    format!("{{\"tools\":{tools},\n\"host_inputs\":{host}}}\n")
}
