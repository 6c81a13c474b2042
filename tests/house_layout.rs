//! The layout of `src/` as its map in `src/lib.rs` draws it, checked: no
//! import cycle between files, and no file importing a room above its floor
//! (the rules core at the bottom, the front ends at the top, beside each
//! other but never importing each other).
//!
//! An import is a `use` line (braces expanded) or a path in code
//! (`crate::a::b`, `super::x`, `self::y`); comments and string literals are
//! skipped. A path goes to the file of the deepest module it names, so a
//! name re-exported by a `mod.rs` counts as an import of that `mod.rs`:
//! a child importing its siblings through its parent makes a cycle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Each room of `src/` and its floor: a file may import rooms on its own
/// floor or below. Rooms on one floor are independent of each other unless
/// named in [`SAME_FLOOR`].
const FLOORS: &[(&str, u32)] = &[
    ("go", 0),
    ("log", 0),
    ("memory", 0),
    ("input_line", 0),
    ("sync", 0),
    ("config", 1),
    ("nn", 1),
    ("engine", 2),
    ("time", 2),
    ("search", 3),
    ("katago", 4),
    ("bench", 5),
    ("sgf", 5),
    ("gtp", 5),
    ("analysis", 5),
    ("match_runner", 5),
    ("clock_bench", 6),
    ("main", 7),
];

/// Rooms on one floor that may import another (importer, imported).
const SAME_FLOOR: &[(&str, &str)] = &[("gtp", "sgf"), ("match_runner", "sgf"), ("time", "engine")];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read src/") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file: `src/a/b.rs` and `src/a/b/mod.rs` → `[a, b]`.
fn module_of(file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src()).expect("under src/");
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().expect("a file name");
    let stem = last.trim_end_matches(".rs");
    if !matches!(stem, "mod" | "lib") {
        parts.push(stem.to_string());
    }
    parts
}

/// The text with comments, string and char literals blanked out.
fn code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            let mut depth = 0;
            while i < b.len() {
                if b[i..].starts_with(b"/*") {
                    depth += 1;
                    i += 2;
                } else if b[i..].starts_with(b"*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if b[i] == b'r' && (b[i + 1..].starts_with(b"\"") || b[i + 1..].starts_with(b"#")) {
            // A raw string: r"…", r#"…"#.
            let mut j = i + 1;
            let mut hashes = 0;
            while j < b.len() && b[j] == b'#' {
                hashes += 1;
                j += 1;
            }
            if j < b.len() && b[j] == b'"' {
                let end: Vec<u8> = std::iter::once(b'"')
                    .chain(std::iter::repeat_n(b'#', hashes))
                    .collect();
                j += 1;
                while j < b.len() && !b[j..].starts_with(&end) {
                    j += 1;
                }
                i = (j + end.len()).min(b.len());
                out.push_str("\"\"");
            } else {
                out.push('r');
                i += 1;
            }
        } else if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if b[i] == b'\'' && i + 2 < b.len() && (b[i + 2] == b'\'' || b[i + 1] == b'\\') {
            // A char literal ('x', '\n'), not a lifetime.
            i += 1;
            while i < b.len() && b[i] != b'\'' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("' '");
        } else {
            let c = text[i..].chars().next().expect("a char");
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// `a::{b, c::{d, e}}` → `a::b`, `a::c::d`, `a::c::e`.
fn expand(tree: &str) -> Vec<String> {
    // `x as y` names x: the alias is dropped.
    let words: Vec<&str> = tree.split_whitespace().collect();
    let mut plain = String::new();
    let mut k = 0;
    while k < words.len() {
        if words[k] == "as" {
            // Skip the alias, but keep what follows it in the same word.
            let alias = words.get(k + 1).copied().unwrap_or("");
            let cut = alias.find([',', '}']).unwrap_or(alias.len());
            plain.push_str(&alias[cut..]);
            k += 2;
        } else {
            plain.push_str(words[k]);
            k += 1;
        }
    }
    expand_plain(&plain)
}

fn expand_plain(tree: &str) -> Vec<String> {
    let Some(open) = tree.find('{') else {
        return vec![tree.to_string()];
    };
    let prefix = &tree[..open];
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
        .into_iter()
        .filter(|p| !p.is_empty())
        .flat_map(|p| {
            expand_plain(p)
                .into_iter()
                .map(move |e| format!("{prefix}{e}"))
        })
        .collect()
}

/// Every path the file's code names, with the module it is named in (inline
/// `mod name { … }` blocks nest the file's module).
fn paths_in(code: &str, module: &[String]) -> Vec<(Vec<String>, String)> {
    let mut out = Vec::new();
    let mut stack: Vec<(usize, String)> = Vec::new();
    let mut depth = 0usize;
    let here = |stack: &[(usize, String)]| {
        let mut m = module.to_vec();
        m.extend(stack.iter().map(|(_, n)| n.clone()));
        m
    };
    let bytes = code.as_bytes();
    let mut i = 0;
    let word_start = |i: usize| {
        i == 0
            || !(bytes[i - 1].is_ascii_alphanumeric()
                || bytes[i - 1] == b'_'
                || bytes[i - 1] == b':')
    };
    while i < bytes.len() {
        if !code.is_char_boundary(i) {
            i += 1;
            continue;
        }
        let rest = &code[i..];
        if rest.starts_with("mod ") && word_start(i) {
            let name: String = rest[4..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let after = rest[4 + name.len()..].trim_start();
            if after.starts_with('{') {
                stack.push((depth, name.clone()));
            }
            i += 4 + name.len();
            continue;
        }
        if rest.starts_with("use ") && word_start(i) {
            let end = rest.find(';').unwrap_or(rest.len());
            for path in expand(&rest[4..end]) {
                out.push((here(&stack), path));
            }
            i += end;
            continue;
        }
        // Any path of two or more segments: `crate::a`, `super::b`,
        // `child::f` (its first segment resolved later).
        let ident = rest
            .char_indices()
            .find(|&(_, c)| !(c.is_alphanumeric() || c == '_'))
            .map_or(rest.len(), |(j, _)| j);
        if ident > 0 && word_start(i) && rest[ident..].starts_with("::") {
            let len = rest
                .char_indices()
                .find(|&(_, c)| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .map_or(rest.len(), |(j, _)| j);
            out.push((here(&stack), rest[..len].to_string()));
            i += len;
            continue;
        }
        if ident > 0 {
            i += ident;
            continue;
        }
        match bytes[i] {
            b'{' => depth += 1,
            b'}' => {
                depth = depth.saturating_sub(1);
                if stack.last().is_some_and(|(d, _)| *d == depth) {
                    stack.pop();
                }
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// The module a path names, absolute; `None` for a path outside the crate.
fn absolute(
    path: &str,
    here: &[String],
    in_main: bool,
    is_module: &dyn Fn(&[String]) -> bool,
) -> Option<Vec<String>> {
    let mut segments: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
    if segments.last().is_some_and(|s| *s == "*" || *s == "self") {
        segments.pop();
    }
    let mut out: Vec<String> = match segments.first().copied()? {
        "crate" if !in_main => Vec::new(),
        "tengen" => Vec::new(),
        "super" => {
            let mut m = here.to_vec();
            while segments.first() == Some(&"super") {
                m.pop();
                segments.remove(0);
            }
            segments.insert(0, "");
            m
        }
        "self" => here.to_vec(),
        child => {
            // A child module named from its parent (`write::to_sgf`).
            let mut m = here.to_vec();
            m.push(child.to_string());
            if !is_module(&m) {
                return None;
            }
            segments.insert(0, "");
            here.to_vec()
        }
    };
    out.extend(
        segments[1..]
            .iter()
            .filter(|s| !s.is_empty())
            .map(|s| s.to_string()),
    );
    Some(out)
}

struct House {
    /// Module path → file, for every file of the library.
    files: BTreeMap<Vec<String>, PathBuf>,
    /// File → the files it imports.
    edges: BTreeMap<PathBuf, BTreeSet<PathBuf>>,
}

impl House {
    fn read() -> House {
        let mut all = Vec::new();
        rust_files(&src(), &mut all);
        let main = src().join("main.rs");
        let files: BTreeMap<Vec<String>, PathBuf> = all
            .iter()
            .filter(|f| **f != main)
            .map(|f| (module_of(f), f.clone()))
            .collect();
        let mut house = House {
            files,
            edges: BTreeMap::new(),
        };
        for file in &all {
            let in_main = *file == main;
            let module = if in_main {
                vec!["main".to_string()]
            } else {
                module_of(file)
            };
            let text = std::fs::read_to_string(file).expect("read a source file");
            let mut targets = BTreeSet::new();
            for (here, path) in paths_in(&code_only(&text), &module) {
                let is_module = |m: &[String]| house.files.contains_key(m);
                let Some(abs) = absolute(&path, &here, in_main, &is_module) else {
                    continue;
                };
                if let Some(target) = house.file_of(&abs) {
                    if target != *file {
                        targets.insert(target);
                    }
                }
            }
            house.edges.insert(file.clone(), targets);
        }
        house
    }

    /// The file of the deepest module `path` names.
    fn file_of(&self, path: &[String]) -> Option<PathBuf> {
        (1..=path.len())
            .rev()
            .find_map(|n| self.files.get(&path[..n]).cloned())
    }

    /// Groups of files that import each other in a circle (Tarjan).
    fn cycles(&self) -> Vec<Vec<PathBuf>> {
        struct State<'a> {
            house: &'a House,
            index: BTreeMap<&'a PathBuf, usize>,
            low: BTreeMap<&'a PathBuf, usize>,
            stack: Vec<&'a PathBuf>,
            on_stack: BTreeSet<&'a PathBuf>,
            out: Vec<Vec<PathBuf>>,
        }
        fn visit<'a>(s: &mut State<'a>, v: &'a PathBuf) {
            let n = s.index.len();
            s.index.insert(v, n);
            s.low.insert(v, n);
            s.stack.push(v);
            s.on_stack.insert(v);
            for w in &s.house.edges[v] {
                if !s.index.contains_key(w) {
                    visit(s, w);
                    let lw = s.low[w];
                    let lv = s.low.get_mut(v).expect("visited");
                    *lv = (*lv).min(lw);
                } else if s.on_stack.contains(w) {
                    let iw = s.index[w];
                    let lv = s.low.get_mut(v).expect("visited");
                    *lv = (*lv).min(iw);
                }
            }
            if s.low[v] == s.index[v] {
                let mut group = Vec::new();
                while let Some(w) = s.stack.pop() {
                    s.on_stack.remove(w);
                    group.push(w.clone());
                    if w == v {
                        break;
                    }
                }
                if group.len() > 1 {
                    s.out.push(group);
                }
            }
        }
        let mut s = State {
            house: self,
            index: BTreeMap::new(),
            low: BTreeMap::new(),
            stack: Vec::new(),
            on_stack: BTreeSet::new(),
            out: Vec::new(),
        };
        for v in self.edges.keys() {
            if !s.index.contains_key(v) {
                visit(&mut s, v);
            }
        }
        s.out
    }
}

/// The room of a file: the first part of its path under `src/`.
fn room(file: &Path) -> String {
    let rel = file.strip_prefix(src()).expect("under src/");
    let first = rel.iter().next().expect("a part").to_string_lossy();
    first.trim_end_matches(".rs").to_string()
}

fn short(file: &Path) -> String {
    file.strip_prefix(src())
        .map_or_else(|_| file.display().to_string(), |r| r.display().to_string())
}

#[test]
fn no_file_imports_another_that_imports_it_back() {
    let house = House::read();
    assert!(
        house.edges.len() > 50,
        "read only {} files",
        house.edges.len()
    );
    let cycles: Vec<String> = house
        .cycles()
        .iter()
        .map(|g| g.iter().map(|f| short(f)).collect::<Vec<_>>().join(" ↔ "))
        .collect();
    assert!(cycles.is_empty(), "import cycles:\n{}", cycles.join("\n"));
}

#[test]
fn no_file_imports_a_room_above_its_floor() {
    let house = House::read();
    let floor = |room: &str| {
        FLOORS
            .iter()
            .find(|(r, _)| *r == room)
            .map(|&(_, f)| f)
            .unwrap_or_else(|| panic!("src/{room}: a room without a floor in FLOORS"))
    };
    let mut wrong = Vec::new();
    for (file, targets) in &house.edges {
        let from = room(file);
        for target in targets {
            let to = room(target);
            if from == to || to == "lib" || from == "lib" {
                continue;
            }
            let allowed =
                floor(&to) < floor(&from) || SAME_FLOOR.contains(&(from.as_str(), to.as_str()));
            if !allowed {
                wrong.push(format!("{} imports {}", short(file), short(target)));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports above the floor:\n{}",
        wrong.join("\n")
    );
}

/// The checker itself: it sees `use` trees, paths in code and `super::`,
/// and not comments or strings.
#[test]
fn the_checker_reads_paths_as_rust_does() {
    assert_eq!(
        expand("crate::a::{b, c::{d, e as f}, g}"),
        [
            "crate::a::b",
            "crate::a::c::d",
            "crate::a::c::e",
            "crate::a::g"
        ]
    );
    let code =
        code_only("use crate::x; // crate::y\nlet s = \"crate::z\"; /* super::w */ self::v::f();");
    let here = vec!["m".to_string()];
    let paths: Vec<String> = paths_in(&code, &here).into_iter().map(|(_, p)| p).collect();
    assert_eq!(paths, ["crate::x", "self::v::f"]);
    let tests = paths_in("mod tests { use super::*; }", &here);
    let none = |_: &[String]| false;
    assert_eq!(
        absolute(&tests[0].1, &tests[0].0, false, &none),
        Some(vec!["m".to_string()])
    );
    assert_eq!(
        absolute(
            "super::a::B",
            &["x".to_string(), "y".to_string()],
            false,
            &none
        ),
        Some(vec!["x".to_string(), "a".to_string(), "B".to_string()])
    );
    let child = |m: &[String]| m == ["x".to_string(), "w".to_string()];
    assert_eq!(
        absolute("w::f", &["x".to_string()], false, &child),
        Some(vec!["x".to_string(), "w".to_string(), "f".to_string()])
    );
    assert_eq!(
        absolute("std::mem::take", &["x".to_string()], false, &child),
        None
    );
}
