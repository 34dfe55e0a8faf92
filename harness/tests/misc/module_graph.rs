//! The files of each crate import each other without cycles (ARCHITECTURE.md: data flows one
//! way): the harness (`harness/src`) and the two sans-IO crates (`crates/codec/src`,
//! `crates/model/src`). A cheap reading of `use` lines: every `use crate::..`, `use super::..`
//! and `use self::..` path is resolved to the deepest module file it names, through the
//! `pub use` re-exports of `mod.rs`/`lib.rs` files (a name such a file defines itself lands in
//! it), bare ones (`pub use child::X` for a `mod child;` of that file) included. Between the crates Cargo enforces the direction (codec <- model <- harness: an upward
//! import does not compile); what Cargo cannot see, that codec and model stay free of async
//! runtimes and I/O crates, is checked here on their manifests' dependency lists.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Module path (e.g. `["adapter", "tcp"]`) of every `.rs` file under `src`.
fn modules(src: &Path) -> BTreeMap<Vec<String>, PathBuf> {
    let mut out = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).expect("reads src").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let rel = p.strip_prefix(src).expect("under src");
                let mut path: Vec<String> = rel
                    .with_extension("")
                    .iter()
                    .map(|c| c.to_string_lossy().into_owned())
                    .collect();
                if path.last().is_some_and(|l| l == "mod" || l == "lib") {
                    path.pop();
                }
                if path == ["main"] || path.first().is_some_and(|f| f == "cli" || f == "bin") {
                    continue;
                }
                out.insert(path, p);
            }
        }
    }
    out
}

/// The `use` items of a file, each as its full path (groups `{a, b::c}` expanded) and the
/// name it is known by in the file (the last segment, or the `as` alias), with whether it is
/// a `pub use` (a re-export).
fn use_paths(text: &str) -> Vec<(bool, Vec<String>, String)> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("use ") {
        // Only the file's own `use` lines (column 0): an indented one belongs to an inline
        // module (`mod tests { use super::*; }`) or a function, whose `super` is the file.
        let line = rest[..i].rsplit('\n').next().unwrap_or("");
        let indented = line.starts_with(char::is_whitespace);
        let before = line.trim_end();
        let is_pub = before == "pub" || before.starts_with("pub(");
        let at_line_start = !indented && (before.is_empty() || is_pub);
        rest = &rest[i + 4..];
        if !at_line_start {
            continue;
        }
        let Some(end) = rest.find(';') else { break };
        // `D as E` becomes `D@E` before the whitespace goes, so a name containing "as"
        // (`Base`, `kafka_protocol`) is not cut.
        let spaced = rest[..end].split_whitespace().collect::<Vec<_>>().join(" ");
        let item: String = spaced
            .replace(" as ", "@")
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        let mut paths = Vec::new();
        expand(&item, &mut Vec::new(), &mut paths);
        out.extend(paths.into_iter().map(|(p, name)| (is_pub, p, name)));
        rest = &rest[end..];
    }
    out
}

/// Paths written out in code rather than imported (`super::repeat::repeated(..)`,
/// `crate::fuzzing::pick_response(..)`): the file depends on those modules just the same.
/// Lines of comments and everything from the file's `#[cfg(test)]` on (an inline test module,
/// whose `super` is the file itself) are skipped; `use` lines are [`use_paths`]'.
fn inline_paths(text: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with("#[cfg(test)]") {
            break;
        }
        if t.starts_with("//") || t.starts_with("use ") || t.starts_with("pub use ") {
            continue;
        }
        for root in ["crate::", "super::"] {
            let mut rest = t;
            while let Some(i) = rest.find(root) {
                let preceded = rest[..i]
                    .chars()
                    .last()
                    .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':');
                let tail = &rest[i..];
                let end = tail
                    .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                    .unwrap_or(tail.len());
                if !preceded {
                    let path: Vec<String> = tail[..end]
                        .split("::")
                        .filter(|s| !s.is_empty())
                        .map(str::to_owned)
                        .collect();
                    out.push(path);
                }
                rest = &tail[end.max(root.len())..];
            }
        }
    }
    out
}

/// The child modules a file declares at column 0 (`mod x;`, `pub mod x;`, `pub(crate) mod x;`),
/// the names a bare `use x::..` in that file resolves through. Inline modules (`mod x { .. }`)
/// are not files and are left out.
fn declared_modules(text: &str) -> BTreeSet<String> {
    text.lines()
        .filter_map(|line| {
            let rest = line
                .strip_prefix("pub ")
                .or_else(|| {
                    line.strip_prefix("pub(")
                        .and_then(|r| r.split_once(") "))
                        .map(|(_, r)| r)
                })
                .unwrap_or(line);
            let name = rest.strip_prefix("mod ")?.strip_suffix(';')?.trim();
            Some(name.to_owned())
        })
        .collect()
}

fn expand(item: &str, prefix: &mut Vec<String>, out: &mut Vec<(Vec<String>, String)>) {
    if let Some(open) = item.find('{') {
        let head: Vec<String> = item[..open]
            .split("::")
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect();
        let inner = &item[open + 1..item.len() - 1];
        let n = prefix.len();
        prefix.extend(head);
        let mut depth = 0;
        let mut start = 0;
        for (i, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    expand(&inner[start..i], prefix, out);
                    start = i + 1;
                }
                _ => {}
            }
        }
        expand(&inner[start..], prefix, out);
        prefix.truncate(n);
    } else if !item.is_empty() {
        let (path, alias) = match item.split_once('@') {
            Some((path, alias)) => (path, Some(alias)),
            None => (item, None),
        };
        let mut p = prefix.clone();
        p.extend(
            path.split("::")
                .filter(|s| !s.is_empty())
                .map(str::to_owned),
        );
        let name = alias
            .map(str::to_owned)
            .or_else(|| p.last().cloned())
            .unwrap_or_default();
        out.push((p, name));
    }
}

/// The repository root.
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn no_two_files_import_each_other_in_a_cycle() {
    let mut all = Vec::new();
    for src in ["harness/src", "crates/codec/src", "crates/model/src"] {
        let dir = repo().join(src);
        assert!(dir.join("lib.rs").is_file(), "{src}/lib.rs");
        all.extend(cycles(&dir).into_iter().map(|c| format!("{src}: {c}")));
    }
    assert!(all.is_empty(), "import cycles:\n{}", all.join("\n"));
}

/// The checker finds a cycle when there is one (two files of a made-up crate).
#[test]
fn a_cycle_is_found() {
    let dir = std::env::temp_dir().join(format!("kipcheck-module-graph-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join("lib.rs"), "pub mod a;\npub mod b;\n").expect("write");
    std::fs::write(dir.join("a.rs"), "use crate::b::B;\npub struct A;\n").expect("write");
    std::fs::write(dir.join("b.rs"), "use crate::a::A;\npub struct B;\n").expect("write");
    let found = cycles(&dir);
    std::fs::remove_dir_all(&dir).expect("clean up");
    assert_eq!(found, ["a -> b", "b -> a"]);
}

/// A `pub use child::X` in a `lib.rs`/`mod.rs` written without `self::` is followed too: an
/// import of `crate::X` lands in `child.rs`, so the cycle through it is found.
#[test]
fn a_cycle_through_a_bare_reexport_is_found() {
    let dir =
        std::env::temp_dir().join(format!("kipcheck-module-graph-bare-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("m")).expect("temp dir");
    std::fs::write(dir.join("lib.rs"), "pub mod a;\npub mod m;\n").expect("write");
    std::fs::write(
        dir.join("m/mod.rs"),
        "mod b;\npub(crate) mod c;\npub use b::B;\npub use c::{C, D as E};\n",
    )
    .expect("write");
    std::fs::write(dir.join("a.rs"), "use crate::m::E;\npub struct A;\n").expect("write");
    std::fs::write(dir.join("m/b.rs"), "pub struct B;\n").expect("write");
    std::fs::write(
        dir.join("m/c.rs"),
        "use crate::a::A;\npub struct C;\npub struct D;\n",
    )
    .expect("write");
    let found = cycles(&dir);
    std::fs::remove_dir_all(&dir).expect("clean up");
    assert_eq!(found, ["a -> m::c", "m::c -> a"]);
}

/// The names under a manifest's `[dependencies]` table.
fn dependencies(manifest: &str) -> BTreeSet<String> {
    let text = std::fs::read_to_string(repo().join(manifest)).expect("reads the manifest");
    text.lines()
        .skip_while(|l| l.trim() != "[dependencies]")
        .skip(1)
        .take_while(|l| !l.trim_start().starts_with('['))
        .filter_map(|l| l.split_once('=').map(|(k, _)| k.trim().to_owned()))
        .filter(|k| !k.is_empty() && !k.starts_with('#'))
        .collect()
}

/// The sans-IO crates depend on exactly these (no tokio, no I/O crates, nothing of the
/// harness): a new dependency is a decision to make here, in the open.
#[test]
fn the_sans_io_crates_depend_only_on_data_crates() {
    let set = |names: &[&str]| names.iter().map(|n| n.to_string()).collect::<BTreeSet<_>>();
    assert_eq!(
        dependencies("crates/codec/Cargo.toml"),
        set(&[
            "arbitrary",
            "base64",
            "compact_str",
            "crc32c",
            "serde",
            "simdutf8",
            "smallvec",
            "thiserror"
        ])
    );
    assert_eq!(
        dependencies("crates/model/Cargo.toml"),
        set(&[
            "kipcheck-codec",
            "schemars",
            "serde",
            "serde-saphyr",
            "thiserror"
        ])
    );
}

/// Every import cycle among the files under `src` (a crate's source root), as `from -> to`.
fn cycles(src: &Path) -> Vec<String> {
    let mods = modules(src);
    // Names a `mod.rs` re-exports, and the full path of the item each names.
    let mut reexports: BTreeMap<(Vec<String>, String), Vec<String>> = BTreeMap::new();
    // Modules a `mod.rs` re-exports whole (`pub use generated::*`).
    let mut globs: BTreeMap<Vec<String>, Vec<Vec<String>>> = BTreeMap::new();
    let mut texts: BTreeMap<Vec<String>, String> = BTreeMap::new();
    let mut uses: BTreeMap<Vec<String>, Vec<Vec<String>>> = BTreeMap::new();
    for (m, file) in &mods {
        let text = std::fs::read_to_string(file).expect("reads");
        let is_dir_module = file
            .file_name()
            .is_some_and(|n| n == "mod.rs" || n == "lib.rs");
        let children = declared_modules(&text);
        let mut resolved = Vec::new();
        let inline = inline_paths(&text)
            .into_iter()
            .map(|p| (false, p, String::new()));
        for (is_pub, p, name) in use_paths(&text).into_iter().chain(inline) {
            // `self` is the file's own module, each `super` one level up.
            let (mut full, rest): (Vec<String>, &[String]) = match p.first().map(String::as_str) {
                Some("crate") => (Vec::new(), &p[1..]),
                Some("self") => (m.clone(), &p[1..]),
                Some("super") => {
                    let mut base = m.clone();
                    let mut rest = &p[..];
                    while rest.first().is_some_and(|s| s == "super") {
                        base.pop();
                        rest = &rest[1..];
                    }
                    (base, rest)
                }
                // A bare path through a child the file declares (`pub use child::X`,
                // `use child::y`) is relative to the file's own module.
                Some(first) if children.contains(first) => (m.clone(), &p[..]),
                _ => continue,
            };
            full.extend(rest.iter().cloned());
            if is_dir_module && is_pub {
                if name == "*" {
                    globs
                        .entry(m.clone())
                        .or_default()
                        .push(full[..full.len() - 1].to_vec());
                } else {
                    reexports.insert((m.clone(), name), full);
                }
            } else {
                resolved.push(full);
            }
        }
        uses.insert(m.clone(), resolved);
        texts.insert(m.clone(), text);
    }
    // The file a path lands in: its deepest module, following re-exports of `mod.rs` names.
    let target = |p: &[String]| -> Option<Vec<String>> {
        let mut cur: Vec<String> = p.to_vec();
        for _ in 0..8 {
            let k = (0..=cur.len())
                .rev()
                .find(|&k| mods.contains_key(&cur[..k]))?;
            let m = cur[..k].to_vec();
            let is_leaf = mods[&m]
                .file_name()
                .is_some_and(|n| n != "mod.rs" && n != "lib.rs");
            if is_leaf {
                return Some(m);
            }
            let Some(next) = cur.get(k) else {
                return Some(m);
            };
            // A name of a glob re-export's module: one its file spells out as a word (the
            // name of an item it defines, re-exports or builds with a macro).
            let globbed = || {
                globs.get(&m)?.iter().find_map(|g| {
                    let text = texts.get(g)?;
                    let word = |c: char| c.is_alphanumeric() || c == '_';
                    let found = text.split(|c: char| !word(c)).any(|w| w == next.as_str());
                    found.then(|| [g.clone(), vec![next.clone()]].concat())
                })
            };
            let Some(via) = reexports
                .get(&(m.clone(), next.clone()))
                .cloned()
                .or_else(globbed)
            else {
                // Defined in the `mod.rs` itself.
                return Some(m);
            };
            let mut again = via;
            again.extend(cur[k + 1..].iter().cloned());
            cur = again;
        }
        None
    };
    let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for (m, paths) in &uses {
        for p in paths {
            if let Some(t) = target(p) {
                // A child reading its own parent `mod.rs` (shared constants) is not counted.
                if &t != m && !t.is_empty() && !m.starts_with(&t) {
                    edges.entry(m.clone()).or_default().insert(t);
                }
            }
        }
    }
    // Every pair of files that reach each other.
    let reach = |from: &Vec<String>| -> BTreeSet<Vec<String>> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.clone()];
        while let Some(n) = stack.pop() {
            for t in edges.get(&n).into_iter().flatten() {
                if seen.insert(t.clone()) {
                    stack.push(t.clone());
                }
            }
        }
        seen
    };
    let mut cycles = Vec::new();
    for m in edges.keys() {
        for t in edges[m].iter() {
            if reach(t).contains(m) {
                cycles.push(format!("{} -> {}", m.join("::"), t.join("::")));
            }
        }
    }
    cycles
}
