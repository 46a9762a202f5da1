//! Tidy: what keeps the house legible, checked on every run. Each Rust source file opens
//! with its `//!` line (what it is for); every repository path a document names in backticks
//! (`server/src/…`, `tests/…`, …) exists, outside what the test command builds (the rooted
//! entries of `.gitignore`, such as `pkg/node/`). The protocols' method tables are checked
//! against `--help` and the README by the server's in-process tests.
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn every_rust_source_file_opens_with_what_it_is_for() {
    let mut files = Vec::new();
    for dir in [
        "core/src",
        "core/benches",
        "server/src",
        "server/tests",
        "server/benches",
        "bindings/src",
        "bindings/tests",
        "web/src",
        "tests/tests",
    ] {
        rust_files(&root().join(dir), &mut files);
    }
    assert!(files.len() > 100, "read {} files", files.len());
    let missing: Vec<String> = files
        .iter()
        .filter(|f| !std::fs::read_to_string(f).unwrap_or_default().starts_with("//!"))
        .map(|f| f.strip_prefix(root()).unwrap_or(f).display().to_string())
        .collect();
    assert!(missing.is_empty(), "files without a `//!` line at the top: {missing:?}");
}

/// The top-level folders a document's path may start with.
const ROOTS: &[&str] = &[
    "core", "server", "bindings", "web", "pkg", "python", "tests", "docs", "scripts", "bench", "examples", "demo",
    ".ci",
];

/// The repository paths named in backticks in `text` (no patterns: `*`, `{…}`, `<…>`, `$`).
fn named_paths(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|t| !t.contains(char::is_whitespace) && ROOTS.iter().any(|r| t.starts_with(&format!("{r}/"))))
        .filter(|t| !t.contains(['*', '{', '}', '<', '>', '$']))
        .map(|t| t.split([':', '#']).next().unwrap_or(t).to_string())
        .collect()
}

#[test]
fn the_path_reader_takes_paths_and_leaves_patterns() {
    let text = "see `server/src/main.rs:12`, `tests/*.mjs`, `cargo test`, `docs/X.md#part` and `web/`";
    assert_eq!(named_paths(text), vec!["server/src/main.rs", "docs/X.md", "web/"]);
}

#[test]
fn every_path_a_document_names_exists() {
    let built: Vec<String> = std::fs::read_to_string(root().join(".gitignore"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.strip_prefix('/'))
        .map(|l| l.trim_end_matches('/').to_string())
        .collect();
    let mut docs = vec![root().join("README.md"), root().join("ARCHITECTURE.md")];
    docs.extend(
        std::fs::read_dir(root().join("docs"))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "md")),
    );
    let mut gone = Vec::new();
    for doc in &docs {
        let text = std::fs::read_to_string(doc).unwrap();
        for p in named_paths(&text) {
            if built.iter().any(|b| p.trim_end_matches('/') == b || p.starts_with(&format!("{b}/"))) {
                continue;
            }
            if !root().join(&p).exists() {
                gone.push(format!("{}: {p}", doc.file_name().unwrap().to_string_lossy()));
            }
        }
    }
    assert!(gone.is_empty(), "documents name paths that do not exist:\n{}", gone.join("\n"));
}

/// The places in `text` that index JSON by a key (`v["status"]`, `x)["name"]`): line numbers.
fn keyed_reads(text: &str) -> Vec<usize> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let b = line.as_bytes();
        let hit = line.match_indices("[\"").any(|(i, _)| {
            let before = i.checked_sub(1).map(|j| b[j]);
            let ident = before.is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b')' || c == b']');
            let key_end = line[i + 2..].find('"').map(|k| i + 2 + k);
            let key = key_end.map(|e| &line[i + 2..e]);
            ident
                && key.is_some_and(|k| !k.is_empty() && k.bytes().all(|c| c.is_ascii_lowercase() || c == b'_'))
                && key_end.is_some_and(|e| line[e + 1..].starts_with(']'))
        });
        if hit {
            out.push(n + 1);
        }
    }
    out
}

#[test]
fn the_keyed_read_finder_finds_keyed_reads_only() {
    assert_eq!(keyed_reads("let s = v[\"status\"].as_str();\nlet t = it[\"sender\"][\"name\"];"), [1, 2]);
    assert_eq!(keyed_reads("let xs = [\"adam\", \"eve\"];\nfor k in [\"anyOf\"] {}"), Vec::<usize>::new());
}

/// The console reads engine answers as their types (typed previews, typed host inputs), and
/// what crosses the network or a file as types parsed once at that edge: nowhere does it
/// index JSON by a key. (The one JSON document it reads as JSON is a tool's parameter
/// schema, which the act form walks by JSON Schema's own keywords.)
#[test]
fn the_console_indexes_no_json_by_key() {
    let mut files = Vec::new();
    rust_files(&root().join("web/src"), &mut files);
    assert!(files.len() > 10, "read {} files", files.len());
    let found: Vec<String> = files
        .iter()
        .flat_map(|f| {
            let rel = f.strip_prefix(root()).unwrap_or(f).display().to_string();
            keyed_reads(&std::fs::read_to_string(f).unwrap_or_default()).into_iter().map(move |n| format!("{rel}:{n}"))
        })
        .collect();
    assert!(found.is_empty(), "JSON indexed by key in the console (read the typed answer instead): {found:?}");
}
