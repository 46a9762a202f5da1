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
