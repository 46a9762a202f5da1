//! Every result the conformance suite sees matches its tool's result schema (the Rust result
//! types): no missing required field, no field the type lacks, every value of its type.
use baton_core::surface::{find, TOOLS};
use serde_json::Value;
use std::path::PathBuf;

/// Checks `v` against the subset of JSON Schema that schemars emits for the result types.
fn check(schema: &Value, v: &Value, path: &str, errors: &mut Vec<String>) {
    for key in ["anyOf", "oneOf"] {
        if let Some(options) = schema.get(key).and_then(Value::as_array) {
            if !options.iter().any(|o| {
                let mut e = Vec::new();
                check(o, v, path, &mut e);
                e.is_empty()
            }) {
                errors.push(format!("{path}: {v} matches none of {key}"));
            }
            return;
        }
    }
    if let Some(c) = schema.get("const") {
        if c != v {
            errors.push(format!("{path}: {v} is not {c}"));
        }
        return;
    }
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => return,
    };
    let kind = match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_u64() || n.is_i64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    let ok = types.contains(&kind) || (kind == "integer" && types.contains(&"number"));
    if !ok {
        errors.push(format!("{path}: {kind} where the type says {types:?}"));
        return;
    }
    match v {
        Value::Array(items) => {
            if let Some(item) = schema.get("items") {
                for (i, x) in items.iter().enumerate() {
                    check(item, x, &format!("{path}[{i}]"), errors);
                }
            }
        }
        Value::Object(o) => {
            let props = schema.get("properties").and_then(Value::as_object);
            for r in schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str) {
                if !o.contains_key(r) {
                    errors.push(format!("{path}: missing required field `{r}`"));
                }
            }
            for (k, x) in o {
                match props.and_then(|p| p.get(k)) {
                    Some(s) => check(s, x, &format!("{path}.{k}"), errors),
                    None => match schema.get("additionalProperties") {
                        Some(Value::Bool(false)) => {
                            errors.push(format!("{path}: field `{k}` is not in the result type"))
                        }
                        Some(s @ Value::Object(_)) => check(s, x, &format!("{path}.{k}"), errors),
                        _ => {}
                    },
                }
            }
        }
        _ => {}
    }
}

#[test]
fn every_tool_has_a_result_schema() {
    for t in TOOLS {
        assert_eq!(t.result_schema()["type"], "object", "{} has a result type", t.name);
    }
}

#[test]
fn every_result_in_the_suite_matches_its_result_type() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut checked = 0;
    let mut errors = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "out") {
            continue;
        }
        for line in std::fs::read_to_string(&path).unwrap().lines() {
            let o: Value = serde_json::from_str(line).unwrap();
            let (Some(tool), Some(result)) = (o.get("call").and_then(Value::as_str), o.get("result")) else { continue };
            let Some(def) = find(tool) else { continue };
            let mut e = Vec::new();
            check(&def.result_schema(), result, tool, &mut e);
            for x in e {
                errors.push(format!("{} line {}: {x}", path.file_name().unwrap().to_string_lossy(), o["line"]));
            }
            checked += 1;
        }
    }
    assert!(checked > 300, "{checked} results checked");
    assert!(errors.is_empty(), "{} mismatches:\n{}", errors.len(), errors.join("\n"));
}

#[test]
fn the_checker_catches_drift() {
    let schema = find("handoff_cancel").unwrap().result_schema();
    let good = serde_json::json!({"success": true, "handoff_id": "h", "status": "cancelled", "cancelled_at": "t", "child_signalled": false, "note": "n"});
    let mut e = Vec::new();
    check(&schema, &good, "handoff_cancel", &mut e);
    assert!(e.is_empty(), "{e:?}");
    let mut extra = good.clone();
    extra["surprise"] = serde_json::json!(1);
    let mut missing = good.clone();
    missing.as_object_mut().unwrap().remove("note");
    let mut wrong = good.clone();
    wrong["child_signalled"] = serde_json::json!("no");
    for bad in [extra, missing, wrong] {
        let mut e = Vec::new();
        check(&schema, &bad, "handoff_cancel", &mut e);
        assert_eq!(e.len(), 1, "{bad} gives one error: {e:?}");
    }
    let status = find("handoff_status").unwrap().result_schema();
    assert_eq!(status["properties"]["idle_seconds"]["type"], serde_json::json!(["integer", "null"]));
    assert!(!status["required"].as_array().unwrap().iter().any(|r| r == "idle_seconds"));
}
