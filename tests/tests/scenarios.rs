//! The conformance suite: every `scenarios/*.jsonl` runs and must print exactly its
//! `.out` file; then its log is written out as JSON lines, read back, replayed, and the
//! rebuilt state must equal the live one. `UPDATE_EXPECT=1 cargo test` rewrites the `.out` files.
use baton_core::scenario::run;
use baton_core::{Engine, LogRecord, MemoryStorage, SeededIds};
use std::path::PathBuf;

fn scenario_files() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/scenarios exists")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_scenario_prints_its_expected_output_and_reloads_identically() {
    let update = std::env::var_os("UPDATE_EXPECT").is_some();
    let files = scenario_files();
    assert!(files.len() >= 50, "the suite has {} scenario files", files.len());
    let mut failures = Vec::new();
    for file in &files {
        let script = std::fs::read_to_string(file).expect("readable scenario");
        let ran = run(&script);
        let expected_path = file.with_extension("out");
        if update {
            std::fs::write(&expected_path, &ran.output).expect("write expected output");
        } else {
            match std::fs::read_to_string(&expected_path) {
                Ok(expected) if expected == ran.output => {}
                Ok(expected) => {
                    let at = expected.lines().zip(ran.output.lines()).position(|(a, b)| a != b);
                    let detail = match at {
                        Some(i) => format!(
                            "first difference at output line {}:\n  expected: {}\n  actual:   {}",
                            i + 1,
                            expected.lines().nth(i).unwrap_or(""),
                            ran.output.lines().nth(i).unwrap_or("")
                        ),
                        None => format!(
                            "line counts differ: expected {}, actual {}",
                            expected.lines().count(),
                            ran.output.lines().count()
                        ),
                    };
                    failures.push(format!("{}: {detail}", file.display()));
                }
                Err(_) => failures.push(format!("{}: no .out file (run with UPDATE_EXPECT=1)", file.display())),
            }
        }
        // Reload: the stored form round-trips and replays to the identical state.
        let lines: Vec<String> = ran.engine.storage().records().iter().map(LogRecord::to_json_line).collect();
        let records: Vec<LogRecord> = lines
            .iter()
            .enumerate()
            .map(|(i, l)| LogRecord::from_json_line(l, i).expect("stored record reads back"))
            .collect();
        let seed = script
            .lines()
            .find_map(|l| serde_json::from_str::<serde_json::Value>(l).ok()?.get("seed")?.as_u64())
            .unwrap_or(baton_core::scenario::DEFAULT_SEED);
        let reloaded =
            Engine::open(MemoryStorage::from_records(records), Box::new(SeededIds::new(seed))).expect("log replays");
        if reloaded.state() != ran.engine.state() {
            failures.push(format!("{}: state after reload differs from the live state", file.display()));
        }
        if reloaded.next_deadline() != ran.engine.next_deadline() {
            failures.push(format!("{}: next_deadline after reload differs", file.display()));
        }
    }
    assert!(failures.is_empty(), "{} scenario(s) failed:\n{}", failures.len(), failures.join("\n"));
}
