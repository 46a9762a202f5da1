//! The `baton` command: run scenario scripts, print tool definitions, serve workspaces.
use baton_core::scenario::run_script;
use baton_core::{surface, HOST_INPUTS};
use serde_json::{json, Value};
use std::process::ExitCode;

mod host_table;
mod python;
mod serve;
mod typescript;

// The server's heap is large and long-lived: glibc's malloc costs a third more per command on
// it (PERFORMANCE.md, the storage bench's mimalloc rows).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const USAGE: &str = "usage:
  baton run FILE [--pretty]   run a scenario script (one JSON object a line); '-' reads stdin
  baton tools                 print every tool's definition (LLM function-calling shape)
  baton host-inputs           print every host input with its argument schema
  baton schemas               print every JSON Schema: tools (arguments, results), host inputs (arguments, results), effects
  baton host-table            print the tables of docs/HOST.md (effects a host handles, host inputs it sends)
  baton typescript            print TypeScript types of tools, host inputs and effects (pkg/tools.d.ts)
  baton python                print Python types of tools, host inputs and effects (python/src/baton/types.py)
  baton serve --db PATH       serve workspaces over HTTP (baton serve --help)
  baton workspace ...         create, key, export, import workspaces of a serve database (baton workspace --help)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("run") => {
            let Some(file) = args.get(1) else {
                eprintln!("{USAGE}");
                return ExitCode::from(2);
            };
            let script =
                if file == "-" { std::io::read_to_string(std::io::stdin()) } else { std::fs::read_to_string(file) };
            let script = match script {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("baton: cannot read {file}: {e}");
                    return ExitCode::from(1);
                }
            };
            let output = run_script(&script);
            if args.iter().any(|a| a == "--pretty") {
                for line in output.lines() {
                    out(&format!("{}\n", narrate(&serde_json::from_str(line).unwrap_or(Value::Null))));
                }
            } else {
                out(&output);
            }
            ExitCode::SUCCESS
        }
        Some("serve") => match serve::parse_args(&args[1..]) {
            Ok(opts) => match serve::main(opts) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("baton serve: {e}");
                    ExitCode::from(1)
                }
            },
            Err(e) if e.is_empty() => {
                println!("{}", serve::USAGE);
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("baton serve: {e}\n\n{}", serve::USAGE);
                ExitCode::from(2)
            }
        },
        Some("workspace") => match serve::admin::main(&args[1..]) {
            Ok(text) => {
                out(&text);
                ExitCode::SUCCESS
            }
            Err(e) if e.is_empty() => {
                println!("{}", serve::admin::USAGE);
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("baton workspace: {e}\n\n{}", serve::admin::USAGE);
                ExitCode::from(2)
            }
        },
        Some("tools") => {
            out(&format!("{}\n", serde_json::to_string_pretty(&surface::definitions()).expect("json")));
            ExitCode::SUCCESS
        }
        Some("schemas") => {
            out(&format!("{}\n", serde_json::to_string_pretty(&baton_core::schemas()).expect("json")));
            ExitCode::SUCCESS
        }
        Some("host-table") => {
            out(&host_table::generate(&baton_core::schemas()));
            ExitCode::SUCCESS
        }
        Some("typescript") => {
            out(&typescript::generate(&baton_core::schemas()));
            ExitCode::SUCCESS
        }
        Some("python") => {
            out(&python::generate(&baton_core::schemas()));
            ExitCode::SUCCESS
        }
        Some("host-inputs") => {
            let all: Vec<Value> = HOST_INPUTS
                .iter()
                .map(|h| json!({"name": h.name, "description": h.description, "parameters": h.parameters()}))
                .collect();
            out(&format!("{}\n", serde_json::to_string_pretty(&all).expect("json")));
            ExitCode::SUCCESS
        }
        _ => {
            eprintln!("{USAGE}");
            ExitCode::from(2)
        }
    }
}

/// Writes to standard output. A reader that went away (`baton tools | head`) ends the output
/// quietly instead of a panic; another write error is reported.
fn out(text: &str) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("baton: cannot write the output: {e}");
        std::process::exit(1);
    }
}

/// One output line as a sentence a person can follow.
fn narrate(v: &Value) -> String {
    let s = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("");
    let when = if v.get("advance_to").is_some() { s("advance_to") } else { s("at") };
    let what = if let Some(t) = v.get("call").and_then(Value::as_str) {
        format!("call {t}")
    } else if let Some(h) = v.get("host").and_then(Value::as_str) {
        format!("host {h}")
    } else if v.get("tick").is_some() {
        "tick".into()
    } else if v.get("advance_to").is_some() {
        let n = v["ticks"].as_array().map_or(0, Vec::len);
        format!("clock runs ({n} deadline(s))")
    } else {
        "script".into()
    };
    let mut out = format!("{when:<24} {what}");
    if let Some(e) = v.get("error") {
        out.push_str(&format!(
            "\n    ✗ {} {}: {}",
            e["code"],
            e["name"].as_str().unwrap_or(""),
            e["message"].as_str().unwrap_or("")
        ));
    }
    if let Some(r) = v.get("result") {
        let keys =
            ["success", "status", "handoff_id", "thread_id", "delivery", "error", "result", "count", "hint", "outcome"];
        let parts: Vec<String> =
            keys.iter().filter_map(|k| r.get(*k).filter(|x| !x.is_null()).map(|x| format!("{k}={x}"))).collect();
        if !parts.is_empty() {
            out.push_str(&format!("\n    → {}", parts.join("  ")));
        }
        for item in r.get("items").and_then(Value::as_array).into_iter().flatten() {
            out.push_str(&format!(
                "\n    ▸ {} from {} [{}] unread={}",
                item["thread_id"], item["sender"]["handle"], item["status"], item["unread_messages"]
            ));
        }
        for entry in r.get("entries").and_then(Value::as_array).into_iter().flatten() {
            out.push_str(&format!("\n    ▸ audit: {} {} — {}", entry["actor"], entry["action"], entry["summary"]));
        }
    }
    for e in v.get("effects").and_then(Value::as_array).into_iter().flatten() {
        let kind = e["effect"].as_str().unwrap_or("");
        let detail = match kind {
            "start_child" => format!("start {} on {} for {}", e["thread_id"], e["bot_id"], e["handoff_id"]),
            "watch_returned" => format!("watch of {} returns {}", e["handoff_id"], e["status"]),
            "wake" => format!(
                "wake {} with {} message(s), identity {}",
                e["thread_id"],
                e["message_ids"].as_array().map_or(0, Vec::len),
                e["identity"]
            ),
            "nudge" => format!("remind {} (#{})", e["thread_id"], e["nudge_no"]),
            "follow_up" => format!("follow-up to {}", e["thread_id"]),
            "callback" => format!("POST {} (attempt {})", e["url"], e["attempt"]),
            "relay_notify" => format!("tell {} that {} {}", e["to"], e["thread_id"], e["event"]),
            "start_sibling" => {
                format!("hand {} to {} (session {})", e["originator_thread_id"], e["bot_id"], e["session_id"])
            }
            "system_message" => {
                format!("to {}: {}", e["thread_id"], e["text"].as_str().unwrap_or("").replace('\n', " "))
            }
            _ => e.to_string(),
        };
        out.push_str(&format!("\n    ⇒ {kind}: {detail}"));
    }
    if let Some(e) = v.get("script_error") {
        out.push_str(&format!("\n    ! script error: {e}"));
    }
    out
}
