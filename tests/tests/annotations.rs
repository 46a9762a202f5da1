//! Each tool's declared effect (`ToolDef::effect`, what MCP's tool annotations say) holds on
//! every call of the scenario suite: a read-only tool never makes a record, an idempotent one
//! made again at once makes no more, and a tool declared to change the workspace does change
//! it somewhere in the suite (else it should be declared a read).
use baton_core::script::scenario::run;
use baton_core::surface::{find, TOOLS};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// For each tool: its calls in the suite, how many made a record, and the places where the
/// declaration does not hold.
#[derive(Default)]
struct Seen {
    calls: u32,
    changed: u32,
    wrong: Vec<String>,
}

#[test]
fn every_tools_declared_effect_holds_on_every_call_of_the_suite() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut seen: BTreeMap<&'static str, Seen> = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let script = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = script.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let Ok(Value::Object(o)) = serde_json::from_str::<Value>(line.trim()) else { continue };
            let Some(def) = o.get("call").and_then(Value::as_str).and_then(find) else { continue };
            // Calls never tick the clock (the runner only does on tick and advance_to lines), so
            // what the log gained over this line is what the call made.
            let seq = |upto: &[&str]| run(&upto.join("\n")).engine.log_seq();
            let before = seq(&lines[..i]);
            let after = seq(&lines[..=i]);
            let mut twice = lines[..=i].to_vec();
            twice.push(line);
            let again = seq(&twice);
            let s = seen.entry(def.name).or_default();
            s.calls += 1;
            if after != before {
                s.changed += 1;
                if def.effect.read_only {
                    s.wrong.push(format!("{name} line {}: declared read-only, made a record", i + 1));
                }
            }
            if def.effect.idempotent && again != after {
                s.wrong.push(format!("{name} line {}: declared idempotent, the same call again made a record", i + 1));
            }
        }
    }
    let mut wrong = Vec::new();
    for t in TOOLS {
        let Some(s) = seen.get(t.name) else {
            wrong.push(format!("{}: no call in the suite", t.name));
            continue;
        };
        if !t.effect.read_only && s.changed == 0 {
            wrong.push(format!("{}: declared to change the workspace, changed nothing in {} calls", t.name, s.calls));
        }
        wrong.extend(s.wrong.iter().cloned());
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn reads_are_read_only_and_cancels_destructive() {
    for (name, read_only) in
        [("handoff_list", true), ("handoff_results", true), ("view_thread", true), ("handoff", false)]
    {
        assert_eq!(find(name).unwrap().effect.read_only, read_only, "{name}");
    }
    for name in ["handoff_cancel", "cancel_handoff"] {
        let e = find(name).unwrap().effect;
        assert!(e.destructive && e.idempotent, "{name}");
    }
    for t in TOOLS {
        assert!(!t.title.is_empty() && t.title.len() <= 40, "{} has a short title", t.name);
    }
}
