//! The shape of every crate: no source file imports another in a circle (core, server,
//! bindings, console), and the server's `serve/` folders stand in the layer order
//! ARCHITECTURE.md gives — each imports only its own layer and those below.
//! The graph is read from the source text: every `crate::…`, `super::…` and `self::…` path,
//! and every path through a module the file declares (`mod x;` … `x::…`), in `use` lines and
//! inline, resolved to the file of the module it names. The crate root (`lib.rs`, `main.rs`)
//! only assembles (its re-exports resolve to the file that defines the item); a `tests.rs`
//! file and a file's `#[cfg(test)]` part are tests, which may look anywhere.
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Module path (`["handoff", "lifecycle"]`) of every source file under a crate's `src`.
fn modules(src: &Path) -> BTreeMap<Vec<String>, PathBuf> {
    let mut out = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).expect("read src") {
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
            let root = parts.len() == 1 && (parts[0] == "lib" || parts[0] == "main");
            if root || parts.last().is_some_and(|l| l == "mod") {
                parts.pop();
            }
            out.insert(parts, p);
        }
    }
    out
}

/// The modules a file declares as files of their own (`mod x;`, `pub(crate) mod x;`).
fn declared(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| {
            let l = l.trim();
            let rest =
                ["mod ", "pub mod ", "pub(crate) mod ", "pub(super) mod "].iter().find_map(|p| l.strip_prefix(p))?;
            let name = rest.strip_suffix(';')?.trim();
            name.chars().all(|c| c.is_alphanumeric() || c == '_').then(|| name.to_string())
        })
        .collect()
}

/// Paths written in a file: `crate::a::b`, `super::x`, `child::y` for a module `child` it
/// declares (read as `self::child::y`), and each leaf of `use crate::{a, b::{c, d}}`.
fn paths(text: &str, children: &[String]) -> Vec<Vec<String>> {
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
        let start = ["crate::", "super::", "self::"].iter().any(|p| rest.starts_with(*p));
        let child = children.iter().any(|c| rest.starts_with(c.as_str()) && rest[c.len()..].starts_with("::"));
        let boundary =
            i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_' || bytes[i - 1] == b':');
        if boundary && (start || child) {
            let (len, mut leaves) = expand(rest);
            if child {
                leaves.iter_mut().for_each(|l| l.insert(0, "self".to_string()));
            }
            found.append(&mut leaves);
            i += len.max(1);
        } else {
            i += 1;
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
        for leaf in paths(&line.replacen("pub use ", "pub use crate::", 1), &[]) {
            if let Some((item, module)) = leaf.split_last() {
                out.insert(item.clone(), module[1..].to_vec());
            }
        }
    }
    out
}

/// The file-level import graph of a crate (`core`, `server`, …: its folder under the
/// repository): file → files it names.
fn graph(krate: &str) -> BTreeMap<String, BTreeSet<String>> {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join(krate).join("src");
    let mods = modules(&src);
    let root =
        ["lib.rs", "main.rs"].iter().find_map(|f| std::fs::read_to_string(src.join(f)).ok()).expect("a crate root");
    let reexported = reexports(&root);
    let name = |m: &[String]| if m.is_empty() { "lib".to_string() } else { m.join("/") };
    let mut g = BTreeMap::new();
    for (module, file) in &mods {
        if module.is_empty() || module.last().is_some_and(|m| m == "tests") {
            continue; // the root assembles, and tests may look anywhere: neither is a layer
        }
        let text = std::fs::read_to_string(file).expect("source");
        let text = text.split("#[cfg(test)]").next().unwrap_or(&text); // unit tests may look anywhere
        let mut deps = BTreeSet::new();
        for p in paths(text, &declared(text)) {
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
    let p = paths("use crate::a::{b, c::{d, e}};\nlet x = super::f::g(1); // crate::not::this\n", &[]);
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
fn the_path_reader_sees_paths_through_declared_modules() {
    let text =
        "mod host;\npub(crate) mod typed;\nmod tests {}\nuse host::HOST_INPUTS;\nlet t = typed::x(); log::warn!();\n";
    assert_eq!(declared(text), vec!["host".to_string(), "typed".to_string()]);
    let p = paths(text, &declared(text));
    let want: Vec<Vec<String>> = [vec!["self", "host", "HOST_INPUTS"], vec!["self", "typed", "x"]]
        .iter()
        .map(|v| v.iter().map(|s| s.to_string()).collect())
        .collect();
    assert_eq!(p, want, "`log::` is a crate's, not a declared module's");
}

/// The circles of a graph, each with the arrows that tie it, for a failure message.
fn show(g: &BTreeMap<String, BTreeSet<String>>, found: &[Vec<String>]) -> String {
    found
        .iter()
        .map(|c| {
            let edges: Vec<String> = c
                .iter()
                .flat_map(|a| g[a].iter().filter(|b| c.contains(b)).map(move |b| format!("{a} → {b}")))
                .collect();
            format!("{} files: {}", c.len(), edges.join(", "))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn no_import_circle_in_any_crate() {
    for (krate, at_least) in [("core", 30), ("server", 30), ("bindings", 4), ("web", 10)] {
        let g = graph(krate);
        assert!(g.len() >= at_least, "{krate}: read {} files", g.len());
        let found = circles(&g);
        assert!(found.is_empty(), "import circles in {krate}:\n{}", show(&g, &found));
    }
}

/// The server's layers, lowest first, as ARCHITECTURE.md lists them: a file imports files of
/// its own layer and those below, never above.
const SERVE_LAYERS: &[&[&str]] = &[
    &["serve/keys", "serve/clock"],
    &["serve/storage"],
    &["serve/writer"],
    &["serve/app"],
    &["serve/protocol"],
    &["serve/config", "serve/admin", "serve"],
];

fn serve_layer(file: &str) -> Option<usize> {
    // The longest prefix names the layer (`serve` itself is the top).
    SERVE_LAYERS
        .iter()
        .enumerate()
        .flat_map(|(i, l)| l.iter().map(move |p| (i, *p)))
        .filter(|(_, p)| file == *p || file.starts_with(&format!("{p}/")))
        .max_by_key(|(_, p)| p.len())
        .map(|(i, _)| i)
}

#[test]
fn the_servers_layers_point_down() {
    let g = graph("server");
    let mut up = Vec::new();
    let mut placed = 0;
    for (file, deps) in &g {
        let Some(from) = serve_layer(file) else { continue };
        placed += 1;
        for dep in deps {
            if let Some(to) = serve_layer(dep) {
                if to > from {
                    up.push(format!("{file} (layer {from}) → {dep} (layer {to})"));
                }
            }
        }
    }
    assert!(placed > 25, "placed {placed} files of serve/ in layers");
    assert!(up.is_empty(), "imports that run up the server's layers:\n{}", up.join("\n"));
    // Every file of serve/ has a layer.
    let unplaced: Vec<&String> = g.keys().filter(|f| f.starts_with("serve") && serve_layer(f).is_none()).collect();
    assert!(unplaced.is_empty(), "files of serve/ in no layer: {unplaced:?}");
}

/// The core's folders, lowest first, as ARCHITECTURE.md draws them: each imports only its own
/// and lower ones. `ground/` names no capability; each capability reads and stages through
/// traits of its own (`store.rs`); `engine/`, the assembly (state, log, transaction, snapshot),
/// implements them above every capability.
const CORE_LAYERS: &[&str] = &["ground", "handoff", "coord", "sibling", "relay", "engine", "surface", "script", "view"];

fn core_layer(file: &str) -> Option<(usize, &'static str)> {
    let folder = file.split('/').next()?;
    CORE_LAYERS.iter().position(|l| *l == folder).map(|i| (i, CORE_LAYERS[i]))
}

#[test]
fn the_cores_folders_point_down() {
    let g = graph("core");
    let mut up = Vec::new();
    let mut placed = 0;
    for (file, deps) in &g {
        let Some((from, from_name)) = core_layer(file) else { continue };
        placed += 1;
        for dep in deps {
            if let Some((to, to_name)) = core_layer(dep) {
                if to > from {
                    up.push(format!("{file} ({from_name}) → {dep} ({to_name})"));
                }
            }
        }
    }
    assert!(placed > 70, "placed {placed} files of core/src in folders");
    let unplaced: Vec<&String> = g.keys().filter(|f| core_layer(f).is_none()).collect();
    assert!(unplaced.is_empty(), "files of core/src in no layer: {unplaced:?}");
    assert!(up.is_empty(), "imports that run up the core's folders:\n{}", up.join("\n"));
}
