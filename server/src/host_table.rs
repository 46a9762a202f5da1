//! `baton host-table`: the tables of docs/HOST.md — every effect a host handles and every host
//! input it sends — generated from the same schemas as the types (`baton schemas`), so the
//! documentation cannot drift from the declarations.
use serde_json::Value;

/// One table cell: the text on one line, pipes escaped.
fn cell(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ").replace('|', "\\|")
}

/// The fields of an object schema, as `name`, `name?` for optional ones, the tag left out.
fn fields(schema: &Value) -> String {
    let required: Vec<&str> =
        schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    let props = schema.get("properties").and_then(Value::as_object);
    let names: Vec<String> = props
        .into_iter()
        .flatten()
        .map(|(k, _)| k)
        .filter(|k| *k != "effect")
        .map(|k| if required.contains(&k.as_str()) { format!("`{k}`") } else { format!("`{k}?`") })
        .collect();
    names.join(", ")
}

/// The two markdown tables.
pub fn generate(schemas: &Value) -> String {
    let mut out =
        String::from("### Effects a host handles\n\n| effect | what the host does | fields |\n|---|---|---|\n");
    for e in schemas["effects"]["oneOf"].as_array().into_iter().flatten() {
        let kind = e["properties"]["effect"]["const"].as_str().unwrap_or_default();
        let what = e["description"].as_str().unwrap_or_default();
        out.push_str(&format!("| `{kind}` | {} | {} |\n", cell(what), fields(e)));
    }
    out.push_str(
        "\n### Host inputs a host sends\n\n`sent by`: *host* — the host alone; *thread* — the host, or the process running the \
         thread's agent with that agent's key (`bot:ID`, for its own threads).\n\n\
         | input | rule | sent by | when | arguments |\n|---|---|---|---|---|\n",
    );
    for h in schemas["host_inputs"].as_array().into_iter().flatten() {
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} |\n",
            h["name"].as_str().unwrap_or_default(),
            h["rule"].as_str().unwrap_or_default(),
            h["scope"].as_str().unwrap_or_default(),
            cell(h["description"].as_str().unwrap_or_default()),
            fields(&h["parameters"])
        ));
    }
    out
}
