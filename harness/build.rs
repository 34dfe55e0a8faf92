//! Builds the shipped suite into the crate: every file under the repository's `scenarios/`
//! folder (the YAML scenarios, `requirements.yaml`, `schema.json`, its README) becomes one
//! `(name, text)` entry of `$OUT_DIR/embedded_suite.rs`, named as it is in the repository
//! (`scenarios/kip1324-client/x.yaml`), so an installed `kipcheck` runs the suite from any
//! directory. A new or changed scenario file rebuilds the crate (the folder is watched).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        let hidden = p
            .file_name()
            .and_then(|n| n.to_str())
            .is_none_or(|n| n.starts_with('.'));
        if hidden {
            continue;
        }
        if p.is_dir() {
            // A file added to a sub-folder changes that folder, not `scenarios/`: watch each.
            println!("cargo:rerun-if-changed={}", p.display());
            collect(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let repo = manifest
        .parent()
        .expect("harness/ sits in the repository")
        .to_owned();
    let root = repo.join("scenarios");
    println!("cargo:rerun-if-changed={}", root.display());
    println!("cargo:rerun-if-changed=build.rs");
    let mut files = Vec::new();
    collect(&root, &mut files);
    files.sort();
    let mut src = String::from("&[\n");
    for f in &files {
        let rel = f.strip_prefix(&repo).expect("under the repository");
        let name: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if std::fs::read_to_string(f).is_err() {
            continue; // not text: nothing kipcheck reads
        }
        writeln!(
            src,
            "    EmbeddedFile {{ path: {:?}, text: include_str!({:?}) }},",
            name.join("/"),
            f.display().to_string()
        )
        .expect("writing to a String");
    }
    src.push_str("]\n");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets it"));
    std::fs::write(out.join("embedded_suite.rs"), src).expect("OUT_DIR is writable");
}
