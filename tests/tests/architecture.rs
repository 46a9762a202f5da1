//! The core's shape: its source files import each other without a circle, so every layer
//! points one way (transaction and records below the capabilities, surface tables on top).
//! The graph is read from the source text: every `crate::…`, `super::…` and `self::…` path,
//! in `use` lines and inline, resolved to the file of the module it names. `lib.rs` only
//! assembles (its re-exports resolve to the file that defines the item).
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Module path (`["handoff", "lifecycle"]`) of every source file under `core/src`.
fn modules(src: &Path) -> BTreeMap<Vec<String>, PathBuf> {
    let mut out = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).expect("read core/src") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            if p.extension().is_none_or(|x| x != "rs") {
                continue;
            }
            let rel = p.strip_prefix(src).expect("under src").with_extension("");
            let mut parts: Vec<String> = rel.iter().map(|s| s.to_string_lossy().into_owned()).collect();
            if parts.last().is_some_and(|l| l == "mod" || l == "lib") {
                parts.pop();
            }
            out.insert(parts, p);
        }
    }
    out
}

/// Paths written in a file: `crate::a::b`, `super::x`, and each leaf of `use crate::{a, b::{c, d}}`.
fn paths(text: &str) -> Vec<Vec<String>> {
    // Comments off: a line's `//` that starts it or follows white space (not `https://`).
    let code: String = text
        .lines()
        .map(|l| {
            let cut = l.match_indices("//").find(|(i, _)| *i == 0 || l[..*i].ends_with(char::is_whitespace));
            format!("{}\n", cut.map_or(l, |(i, _)| &l[..i]))
        })
        .collect();
    let bytes = code.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if !code.is_char_boundary(i) {
            i += 1;
            continue;
        }
        let rest = &code[i..];
        let start = ["crate::", "super::", "self::"].iter().find(|p| rest.starts_with(**p));
        let boundary =
            i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_' || bytes[i - 1] == b':');
        match start {
            Some(_) if boundary => {
                let (len, mut leaves) = expand(rest);
                found.append(&mut leaves);
                i += len.max(1);
            }
            _ => i += 1,
        }
    }
    found
}

/// Reads one path starting at `s` (with a `{…}` group, recursively); returns its length and leaves.
fn expand(s: &str) -> (usize, Vec<Vec<String>>) {
    let mut prefix = Vec::new();
    let mut seg = String::new();
    let chars: Vec<char> = s.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_alphanumeric() || c == '_' {
            seg.push(c);
            i += 1;
        } else if c == ':' && chars.get(i + 1) == Some(&':') {
            prefix.push(std::mem::take(&mut seg));
            i += 2;
            if chars.get(i) == Some(&'{') {
                // A group: split at top-level commas, expand each part.
                let mut depth = 0;
                let mut j = i;
                let mut parts = Vec::new();
                let mut part_start = i + 1;
                while j < chars.len() {
                    match chars[j] {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                parts.push(chars[part_start..j].iter().collect::<String>());
                                break;
                            }
                        }
                        ',' if depth == 1 => {
                            parts.push(chars[part_start..j].iter().collect::<String>());
                            part_start = j + 1;
                        }
                        _ => {}
                    }
                    j += 1;
                }
                let mut leaves = Vec::new();
                for p in parts {
                    let p = p.trim();
                    if p.is_empty() {
                        continue;
                    }
                    let (_, sub) = expand(&format!("{p} "));
                    for mut leaf in sub {
                        let mut full = prefix.clone();
                        full.append(&mut leaf);
                        leaves.push(full);
                    }
                }
                let consumed: usize = chars[..=j.min(chars.len() - 1)].iter().map(|c| c.len_utf8()).sum();
                return (consumed, leaves);
            }
        } else {
            break;
        }
    }
    if !seg.is_empty() {
        prefix.push(seg);
    }
    let consumed: usize = chars[..i].iter().map(|c| c.len_utf8()).sum();
    (consumed, vec![prefix])
}

/// Items `lib.rs` re-exports, by name, with the module they come from.
fn reexports(lib: &str) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    for line in lib.lines().filter(|l| l.starts_with("pub use ")) {
        for leaf in paths(&line.replacen("pub use ", "pub use crate::", 1)) {
            if let Some((item, module)) = leaf.split_last() {
                out.insert(item.clone(), module[1..].to_vec());
            }
        }
    }
    out
}

/// The file-level import graph of the core: file → files it names.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../core/src");
    let mods = modules(&src);
    let lib = std::fs::read_to_string(src.join("lib.rs")).expect("lib.rs");
    let reexported = reexports(&lib);
    let name = |m: &[String]| if m.is_empty() { "lib".to_string() } else { m.join("/") };
    let mut g = BTreeMap::new();
    for (module, file) in &mods {
        if module.is_empty() {
            continue; // lib.rs assembles; it is not a layer
        }
        let text = std::fs::read_to_string(file).expect("source");
        let text = text.split("#[cfg(test)]").next().unwrap_or(&text); // unit tests may look anywhere
        let mut deps = BTreeSet::new();
        for p in paths(text) {
            if p.len() == 1 {
                continue; // `use super::*;`: an inline module's glob of its own file
            }
            let mut abs: Vec<String> = match p[0].as_str() {
                "crate" => p[1..].to_vec(),
                "super" | "self" => {
                    // `super` is the parent module, `self` this one, whatever the file layout.
                    let mut base = module.clone();
                    let supers = p.iter().take_while(|s| *s == "super").count();
                    base.truncate(base.len().saturating_sub(supers));
                    let skip = if p[0] == "self" { 1 } else { supers };
                    base.extend(p[skip..].iter().cloned());
                    base
                }
                _ => continue,
            };
            if abs.len() == 1 {
                if let Some(m) = reexported.get(&abs[0]) {
                    abs = m.clone();
                }
            }
            // The longest prefix that is a module file.
            let target = (1..=abs.len()).rev().map(|n| &abs[..n]).find(|m| mods.contains_key(*m));
            if let Some(t) = target {
                if t != module.as_slice() && !t.is_empty() {
                    deps.insert(name(t));
                }
            }
        }
        g.insert(name(module), deps);
    }
    g
}

/// Strongly connected components with more than one file (Tarjan).
fn circles(g: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct T<'a> {
        g: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(t: &mut T<'a>, v: &'a str) {
        let i = t.index.len();
        t.index.insert(v, i);
        t.low.insert(v, i);
        t.stack.push(v);
        t.on.insert(v);
        for w in t.g.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !t.g.contains_key(w) {
                continue;
            }
            if !t.index.contains_key(w) {
                visit(t, w);
                let lw = t.low[w];
                let lv = t.low[v];
                t.low.insert(v, lv.min(lw));
            } else if t.on.contains(w) {
                let iw = t.index[w];
                let lv = t.low[v];
                t.low.insert(v, lv.min(iw));
            }
        }
        if t.low[v] == t.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = t.stack.pop() {
                t.on.remove(w);
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                t.out.push(comp);
            }
        }
    }
    let mut t =
        T { g, index: BTreeMap::new(), low: BTreeMap::new(), stack: Vec::new(), on: BTreeSet::new(), out: Vec::new() };
    for v in g.keys() {
        if !t.index.contains_key(v.as_str()) {
            visit(&mut t, v);
        }
    }
    t.out
}

#[test]
fn the_path_reader_sees_groups_and_inline_paths() {
    let p = paths("use crate::a::{b, c::{d, e}};\nlet x = super::f::g(1); // crate::not::this\n");
    let want: Vec<Vec<String>> =
        [vec!["crate", "a", "b"], vec!["crate", "a", "c", "d"], vec!["crate", "a", "c", "e"], vec!["super", "f", "g"]]
            .iter()
            .map(|v| v.iter().map(|s| s.to_string()).collect())
            .collect();
    assert_eq!(p, want);
    let g = BTreeMap::from([
        ("a".to_string(), BTreeSet::from(["b".to_string()])),
        ("b".to_string(), BTreeSet::from(["a".to_string()])),
        ("c".to_string(), BTreeSet::from(["a".to_string()])),
    ]);
    assert_eq!(circles(&g), vec![vec!["a".to_string(), "b".to_string()]]);
}

#[test]
fn no_import_circle_in_the_core() {
    let g = graph();
    assert!(g.len() > 30, "read {} files", g.len());
    let found = circles(&g);
    let show: Vec<String> = found
        .iter()
        .map(|c| {
            let edges: Vec<String> = c
                .iter()
                .flat_map(|a| g[a].iter().filter(|b| c.contains(b)).map(move |b| format!("{a} → {b}")))
                .collect();
            format!("{} files: {}", c.len(), edges.join(", "))
        })
        .collect();
    assert!(found.is_empty(), "import circles:\n{}", show.join("\n"));
}
