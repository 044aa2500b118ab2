//! The layers of DESIGN.md, checked on the sources: no paper's module imports the gathering
//! (`reproduce`, `calibrate`), and the evidence layer imports no paper's module. A `use` of a
//! module above is what makes an import circle, so scanning for the path is enough.

use std::fs;
use std::path::{Path, PathBuf};

fn sources(under: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![under.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Every (file, line) under `dirs` of `src` that names one of `paths`.
fn uses(dirs: &[&str], paths: &[&str]) -> Vec<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    for dir in dirs {
        let at = src.join(dir);
        let files = if at.is_dir() { sources(&at) } else { vec![at.with_extension("rs")] };
        assert!(!files.is_empty() && files.iter().all(|f| f.exists()), "no sources at {}", at.display());
        for f in files {
            for (i, line) in fs::read_to_string(&f).unwrap().lines().enumerate() {
                if paths.iter().any(|p| line.contains(&format!("crate::{p}")) || line.contains(&format!("cellblade::{p}"))) {
                    found.push(format!("{}:{}: {}", f.strip_prefix(&src).unwrap().display(), i + 1, line.trim()));
                }
            }
        }
    }
    found
}

/// The papers' programs and everything below them.
const BELOW_GATHERING: &[&str] =
    &["evidence", "coll", "affinity", "stats", "model", "cluster", "mpi", "machine", "sim", "spu", "ppe", "blade", "error"];

#[test]
fn no_paper_module_imports_the_gathering() {
    assert_eq!(uses(BELOW_GATHERING, &["reproduce", "calibrate"]), Vec::<String>::new());
}

#[test]
fn the_evidence_layer_imports_no_paper_module() {
    let papers = ["coll", "affinity", "stats", "model", "cluster", "mpi", "blade", "spu", "ppe", "reproduce", "calibrate"];
    assert_eq!(uses(&["evidence"], &papers), Vec::<String>::new());
}

#[test]
fn the_scan_finds_what_it_looks_for() {
    // reproduce.rs gathers the papers' claims: the scan must see it name them.
    assert!(!uses(&["reproduce"], &["coll"]).is_empty());
}
