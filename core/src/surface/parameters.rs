//! The parameter schemas in a build without the `schema` feature (the console's): read from
//! `parameters.json`, which the full build generates (`surface::schemas::parameters_document`)
//! and a test keeps equal to it — so the page links no schema generator.
use serde_json::{Map, Value};
use std::sync::OnceLock;

/// The document, parsed once: `{"tools": {name: schema}, "host_inputs": {name: schema}}`.
fn document() -> &'static Map<String, Value> {
    static DOC: OnceLock<Map<String, Value>> = OnceLock::new();
    DOC.get_or_init(|| serde_json::from_str(include_str!("parameters.json")).expect("parameters.json is JSON"))
}

fn lookup(section: &str, name: &str) -> Value {
    document().get(section).and_then(|s| s.get(name)).cloned().unwrap_or(Value::Null)
}

/// A tool's parameter schema.
pub(crate) fn tool(name: &str) -> Value {
    lookup("tools", name)
}

/// A host input's parameter schema.
pub(crate) fn host_input(name: &str) -> Value {
    lookup("host_inputs", name)
}
