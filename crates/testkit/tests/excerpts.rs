//! The built-in excerpts (`kat-excerpts/`) are what they say: each names its source, and
//! each of its records is a record of the whole KAT file, byte for byte.

use std::path::{Path, PathBuf};

use cipherlab_testkit::kat::{Source, excerpts_dir, kat_dir};
use cipherlab_testkit::{lwc, parse};

/// Every file under `dir`, as paths relative to `root`.
fn files(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for e in entries {
        let path = e.unwrap_or_else(|e| panic!("{e}")).path();
        if path.is_dir() {
            files(root, &path, out);
        } else if let Ok(rel) = path.strip_prefix(root) {
            out.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
}

fn excerpts() -> Vec<String> {
    let root = excerpts_dir();
    let mut out = Vec::new();
    files(&root, &root, &mut out);
    out.sort();
    assert!(!out.is_empty(), "no excerpts in {}", root.display());
    out
}

/// The records of a file: its blocks between blank lines, comments left out.
fn blocks(path: &PathBuf) -> Vec<String> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
        .replace("\r\n", "\n");
    text.split("\n\n")
        .map(|b| {
            b.lines()
                .filter(|l| !l.starts_with('#'))
                .collect::<Vec<_>>()
                .join("\n")
        })
        .filter(|b| !b.trim().is_empty())
        .collect()
}

#[test]
fn every_excerpt_names_its_source_and_parses() {
    let root = excerpts_dir();
    for rel in excerpts() {
        let text = std::fs::read_to_string(root.join(&rel)).unwrap_or_default();
        let header: Vec<&str> = text.lines().take_while(|l| l.starts_with('#')).collect();
        assert!(
            header.iter().any(|l| l.contains("Source:")) && header.iter().any(|l| l.contains(&rel)),
            "{rel}: the header comment must name the KAT file and its source"
        );
        let src = Source {
            dir: root.clone(),
            rel: rel.clone(),
            whole: false,
        };
        // NIST LWC files are read as typed vectors (which fails on a field the format
        // does not have); the others by the generic parser.
        let n = if rel.contains("_LWC_AEAD_") {
            lwc::aead_vectors(&src).len()
        } else if lwc::inventory(&rel).is_some() {
            lwc::hash_vectors(&src).len()
        } else {
            parse(&src.path(), &src.label())
                .unwrap_or_else(|e| panic!("{e}"))
                .len()
        };
        assert!(n > 0, "{}: no records", src.label());
        println!("{}: {n} records", src.label());
    }
}

#[test]
fn every_excerpt_record_is_in_the_whole_file() {
    let Some(kat) = kat_dir() else { return };
    let mut total = 0;
    for rel in excerpts() {
        let whole = blocks(&kat.join(&rel));
        let part = blocks(&excerpts_dir().join(&rel));
        for b in &part {
            assert!(
                whole.contains(b),
                "kat-excerpts/{rel}: a record that is not in kat/{rel}:\n{b}"
            );
        }
        total += part.len();
    }
    println!("{total} excerpt blocks (records and section headers) found in the whole KAT files");
}
