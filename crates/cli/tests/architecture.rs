//! docs/architecture.md is kept true where a test can read the truth: its crate graph is
//! the workspace's `Cargo.toml` files, and no arrow runs back up.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Each crate's cipherlab path dependencies (short names), read from its `Cargo.toml`'s
/// `[dependencies]` table.
fn cargo_graph() -> BTreeMap<String, BTreeSet<String>> {
    let mut graph = BTreeMap::new();
    for entry in std::fs::read_dir(root().join("crates")).unwrap() {
        let dir = entry.unwrap().path();
        let Ok(toml) = std::fs::read_to_string(dir.join("Cargo.toml")) else {
            continue;
        };
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let mut section = String::new();
        let mut deps = BTreeSet::new();
        for line in toml.lines() {
            let line = line.trim();
            if line.starts_with('[') {
                section = line.to_string();
            } else if section == "[dependencies]"
                && let Some(rest) = line.strip_prefix("cipherlab-")
                && line.contains("path =")
            {
                deps.insert(rest.split([' ', '=']).next().unwrap().to_string());
            }
        }
        graph.insert(name, deps);
    }
    graph
}

/// The graph drawn in docs/architecture.md (the first fenced block of "The crates and the
/// arrows"), with the crates in the order of its lines, top first.
fn documented_graph() -> (BTreeMap<String, BTreeSet<String>>, Vec<String>) {
    let doc = std::fs::read_to_string(root().join("docs/architecture.md")).unwrap();
    let block = doc
        .split("```")
        .nth(1)
        .expect("a fenced block with the crate graph");
    let (mut graph, mut order) = (BTreeMap::new(), Vec::new());
    for line in block.lines().filter(|l| !l.trim().is_empty()) {
        if let Some((from, to)) = line.split_once("──►") {
            let from = from.trim().to_string();
            let to = to.split(',').map(|s| s.trim().to_string()).collect();
            order.push(from.clone());
            graph.insert(from, to);
        } else if let Some((names, _)) = line.split_once(':') {
            for n in names.split(',') {
                order.push(n.trim().to_string());
                graph.insert(n.trim().to_string(), BTreeSet::new());
            }
        }
    }
    (graph, order)
}

#[test]
fn the_documented_crate_graph_is_the_cargo_graph() {
    let (documented, _) = documented_graph();
    assert_eq!(
        documented,
        cargo_graph(),
        "docs/architecture.md's crate graph differs from the Cargo.toml files"
    );
}

#[test]
fn no_arrow_runs_back_up() {
    let (graph, order) = documented_graph();
    let rank = |c: &str| order.iter().position(|o| o == c).unwrap();
    for (from, tos) in &graph {
        for to in tos {
            assert!(
                rank(from) < rank(to),
                "{from} depends on {to}, which docs/architecture.md draws above it"
            );
        }
    }
}

/// The lab is three crates with one job each: the results crate measures nothing and
/// knows no study (from the runners' client it reads only the list of runtimes, which its
/// `Runtime` is made of); the runners' client knows neither studies nor the store.
#[test]
fn the_lab_crates_keep_to_their_jobs() {
    let graph = cargo_graph();
    for lower in ["results", "platforms"] {
        for upper in ["bench", "pdf", "seal", "lwc", "platforms", "results"] {
            if upper != lower && (lower, upper) != ("results", "platforms") {
                assert!(!graph[lower].contains(upper), "{lower} depends on {upper}");
            }
        }
    }
}
