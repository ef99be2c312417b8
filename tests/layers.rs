//! The house rules of `src/`, checked on every test run (ARCHITECTURE.md has them in words): which folder may
//! import which, no import cycle between files of different folders, and no production file or function that
//! has grown past what one person reads in one sitting. Test code (files named `*tests*`, `testing/`, and the
//! `#[cfg(test)] mod … { }` at the end of a file) is left out: tests may reach anywhere.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// `(folder, folders it must not import)`. A folder is the first part of a module path (`files` for
/// `src/files.rs`).
const FORBIDDEN: &[(&str, &[&str])] = &[
    // Leaves: plain data and rules, nothing of the project.
    ("config", &["*"]),
    ("trust", &["*"]),
    ("files", &["*"]),
    // The network as a client: it neither draws, nor stores, nor serves, nor knows who called it.
    (
        "remote",
        &["app", "ui", "tui", "cli", "store", "push", "demo", "markup"],
    ),
    // The task model shared by app/, cli/ and store/: below all three.
    (
        "task",
        &[
            "app", "ui", "tui", "cli", "store", "remote", "push", "demo", "markup",
        ],
    ),
    (
        "markup",
        &["app", "ui", "tui", "cli", "store", "remote", "demo"],
    ),
    (
        "store",
        &["app", "ui", "tui", "cli", "remote", "push", "demo"],
    ),
    (
        "push",
        &["app", "ui", "tui", "cli", "store", "demo", "markup"],
    ),
    // The state machine: no terminal, no I/O; the demo agent is reached through the runtime.
    // Suites and checks are a client's work: the protocol and task layers, never the console or the store.
    (
        "suite",
        &["app", "ui", "tui", "cli", "store", "push", "demo", "markup"],
    ),
    (
        "check",
        &["app", "ui", "tui", "cli", "store", "push", "demo", "markup"],
    ),
    ("app", &["ui", "tui", "cli", "demo", "push"]),
    ("ui", &["tui", "cli", "demo", "push", "store"]),
    ("cli", &["app", "tui", "ui"]),
    ("demo", &["app", "ui", "tui", "cli", "store"]),
];

/// The longest production file and function (in lines) the house allows.
const MAX_FILE_LINES: usize = 700;
const MAX_FN_LINES: usize = 150;

struct Source {
    path: PathBuf,
    module: Vec<String>,
    /// The file without its comments and its trailing test module.
    code: String,
}

fn module_of(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .with_extension("")
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

fn is_test(module: &[String]) -> bool {
    module.first().is_some_and(|m| m == "testing") || module.iter().any(|m| m.contains("test"))
}

/// The production part of a file: comments dropped (doc links name modules without importing them) and the
/// `#[cfg(test)] mod x { … }` that ends a file cut off.
fn production(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if line.trim() == "#[cfg(test)]"
            && lines.peek().is_some_and(|next| {
                let next = next.trim();
                next.starts_with("mod ") && next.ends_with('{')
            })
        {
            break;
        }
        let code = match line.find("//") {
            Some(i) => &line[..i],
            None => line,
        };
        out.push_str(code);
        out.push('\n');
    }
    out
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `src/`, in path order.
fn rs_files() -> Vec<PathBuf> {
    let mut stack = vec![src()];
    let mut out = Vec::new();
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The production files, each with its module path and its production text.
fn sources() -> Vec<Source> {
    let root = src();
    rs_files()
        .into_iter()
        .filter_map(|path| {
            let module = module_of(path.strip_prefix(&root).unwrap());
            if is_test(&module) {
                return None;
            }
            let code = production(&std::fs::read_to_string(&path).unwrap());
            Some(Source { path, module, code })
        })
        .collect()
}

fn ident_at(s: &str, i: usize) -> Option<(&str, usize)> {
    let rest = s.get(i..)?;
    let len = rest
        .char_indices()
        .find(|(_, c)| !(c.is_alphanumeric() || *c == '_'))
        .map_or(rest.len(), |(j, _)| j);
    (len > 0).then(|| (&rest[..len], i + len))
}

/// The paths a `crate::…` or `super::…` at `i` names: `a::b::c`, or each item of `a::{b, c::d}`.
fn paths_at(s: &str, mut i: usize) -> Vec<Vec<String>> {
    let mut prefix = Vec::new();
    loop {
        if s[i..].starts_with('{') {
            // A group: each comma-separated item at depth one, by its first segment.
            let mut depth = 0;
            let mut item_start = i + 1;
            let mut out = vec![prefix.clone()];
            for (j, c) in s[i..].char_indices() {
                let at = i + j;
                match c {
                    '{' => depth += 1,
                    '}' | ',' if depth == 1 => {
                        let item = s[item_start..at].trim();
                        if let Some((first, _)) = ident_at(item, 0)
                            && first != "self"
                        {
                            let mut p = prefix.clone();
                            p.push(first.to_string());
                            out.push(p);
                        }
                        item_start = at + 1;
                        if c == '}' {
                            return out;
                        }
                    }
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            return out;
        }
        let Some((id, end)) = ident_at(s, i) else {
            return vec![prefix];
        };
        prefix.push(id.to_string());
        if s[end..].starts_with("::") {
            i = end + 2;
        } else {
            return vec![prefix];
        }
    }
}

/// Which files each file imports (by module path).
fn imports(files: &[Source]) -> BTreeMap<usize, BTreeSet<usize>> {
    let by_module: BTreeMap<&[String], usize> = files
        .iter()
        .enumerate()
        .map(|(i, f)| (f.module.as_slice(), i))
        .collect();
    let resolve = |path: &[String]| {
        (1..=path.len())
            .rev()
            .find_map(|n| by_module.get(&path[..n]).copied())
    };
    let mut edges: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
    for (from, f) in files.iter().enumerate() {
        let code = &f.code;
        let mut found = Vec::new();
        for (at, _) in code.match_indices("crate::") {
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            found.extend(paths_at(code, at + "crate::".len()));
        }
        for (at, _) in code.match_indices("super::") {
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let mut ups = 0;
            let mut i = at;
            while code[i..].starts_with("super::") {
                ups += 1;
                i += "super::".len();
            }
            let base = &f.module[..f.module.len().saturating_sub(ups)];
            for p in paths_at(code, i) {
                found.push(base.iter().cloned().chain(p).collect());
            }
        }
        for path in found {
            if let Some(to) = resolve(&path)
                && to != from
            {
                edges.entry(from).or_default().insert(to);
            }
        }
    }
    edges
}

fn folder(module: &[String]) -> &str {
    module.first().map_or("lib", String::as_str)
}

fn shown(f: &Source) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    f.path
        .strip_prefix(root)
        .unwrap_or(&f.path)
        .display()
        .to_string()
}

#[test]
fn no_folder_imports_what_its_layer_must_not() {
    let files = sources();
    let edges = imports(&files);
    let mut broken = Vec::new();
    for (from, tos) in &edges {
        let here = folder(&files[*from].module);
        let Some((_, banned)) = FORBIDDEN.iter().find(|(f, _)| *f == here) else {
            continue;
        };
        for to in tos {
            let there = folder(&files[*to].module);
            if there != here && there != "lib" && (banned.contains(&"*") || banned.contains(&there))
            {
                broken.push(format!(
                    "{} imports {}",
                    shown(&files[*from]),
                    shown(&files[*to])
                ));
            }
        }
    }
    assert!(
        broken.is_empty(),
        "imports against the layers (ARCHITECTURE.md):\n{}",
        broken.join("\n")
    );
}

#[test]
fn every_file_is_the_module_its_path_says() {
    // A `#[path]` include makes a file another module than where it lives: readers (and this test's import
    // graph) would look for it in the wrong place.
    let found: Vec<String> = rs_files()
        .into_iter()
        .filter(|path| {
            let text = std::fs::read_to_string(path).unwrap();
            text.lines().any(|l| l.trim_start().starts_with("#[path"))
        })
        .map(|path| path.display().to_string())
        .collect();
    assert!(found.is_empty(), "#[path] includes in: {found:?}");
}

#[test]
fn no_import_cycle_runs_between_files_of_different_folders() {
    let files = sources();
    let edges = imports(&files);
    // Tarjan's strongly connected components, iteratively over the file graph.
    let n = files.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut next = 0;
    let mut cycles = Vec::new();
    let empty = BTreeSet::new();
    for start in 0..n {
        if index[start] != usize::MAX {
            continue;
        }
        let mut work: Vec<(usize, Vec<usize>)> = Vec::new();
        index[start] = next;
        low[start] = next;
        next += 1;
        stack.push(start);
        on_stack[start] = true;
        work.push((
            start,
            edges
                .get(&start)
                .unwrap_or(&empty)
                .iter()
                .copied()
                .collect(),
        ));
        while let Some((v, mut todo)) = work.pop() {
            if let Some(w) = todo.pop() {
                work.push((v, todo));
                if index[w] == usize::MAX {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    work.push((w, edges.get(&w).unwrap_or(&empty).iter().copied().collect()));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            if let Some((parent, _)) = work.last() {
                low[*parent] = low[*parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut comp = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    comp.push(w);
                    if w == v {
                        break;
                    }
                }
                let dirs: BTreeSet<_> = comp
                    .iter()
                    .map(|i| files[*i].path.parent().map(Path::to_path_buf))
                    .collect();
                if dirs.len() > 1 {
                    let mut names: Vec<String> = comp.iter().map(|i| shown(&files[*i])).collect();
                    names.sort();
                    cycles.push(names.join(" ↔ "));
                }
            }
        }
    }
    assert!(
        cycles.is_empty(),
        "import cycles across folders:\n{}",
        cycles.join("\n")
    );
}

#[test]
fn no_production_file_or_function_is_past_its_size() {
    let mut big = Vec::new();
    for f in sources() {
        // Comments are blanked, not removed: a file's count is its lines up to the trailing test module.
        let lines = f.code.lines().count();
        if lines > MAX_FILE_LINES {
            big.push(format!("{}: {lines} lines", shown(&f)));
        }
        for (name, len) in functions(&f.code) {
            if len > MAX_FN_LINES {
                big.push(format!("{}: fn {name} is {len} lines", shown(&f)));
            }
        }
    }
    assert!(
        big.is_empty(),
        "over {MAX_FILE_LINES} lines a file or {MAX_FN_LINES} a function:\n{}",
        big.join("\n")
    );
}

/// Each `fn` with a body and its length in lines, from the line of `fn` to its closing brace (braces in
/// strings and chars are rare enough in this code base not to matter for a bound this loose).
fn functions(code: &str) -> Vec<(String, usize)> {
    let lines: Vec<&str> = code.lines().collect();
    let mut out = Vec::new();
    for (start, line) in lines.iter().enumerate() {
        let t = line.trim_start();
        let Some(at) = t.find("fn ") else {
            continue;
        };
        let head = &t[..at];
        if !(head.is_empty()
            || head.ends_with("pub ")
            || head.ends_with(") ")
            || head.ends_with("async ")
            || head.ends_with("const ")
            || head.ends_with("unsafe "))
        {
            continue;
        }
        let Some((name, _)) = ident_at(t, at + 3) else {
            continue;
        };
        let mut depth = 0i32;
        let mut opened = false;
        'scan: for (i, l) in lines.iter().enumerate().skip(start) {
            for c in l.chars() {
                match c {
                    '{' => {
                        depth += 1;
                        opened = true;
                    }
                    '}' => depth -= 1,
                    ';' if !opened => break 'scan,
                    _ => {}
                }
                if opened && depth == 0 {
                    out.push((name.to_string(), i - start + 1));
                    break 'scan;
                }
            }
        }
    }
    out
}
