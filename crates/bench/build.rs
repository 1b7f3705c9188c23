//! Captures, at build time, the versions of the crates whose speed the studies measure
//! (read from the workspace's `Cargo.lock`), for the machine block of every run
//! (`cipherlab_bench::this_machine`). The rest of the block (rustc, target, profile) is
//! the harness's.

use std::path::Path;

/// Crates whose versions every result records (those a study times, and the store).
const KEY_CRATES: &[&str] = &[
    "aes",
    "des",
    "blowfish",
    "rc2",
    "rc4",
    "skipjack",
    "cbc",
    "ctr",
    "cfb-mode",
    "ofb",
    "aes-gcm",
    "chacha20poly1305",
    "ascon-aead",
    "isap-aead",
    "xoodyak",
    "openssl",
    "openssl-sys",
    "ring",
    "aws-lc-rs",
    "serde",
    "serde_json",
    "rusqlite",
    "libsqlite3-sys",
];

fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    let lock = Path::new(&manifest).join("../../Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock.display());
    println!("cargo:rerun-if-changed=build.rs");
    let text = std::fs::read_to_string(&lock).unwrap_or_default();
    let mut versions: Vec<String> = Vec::new();
    let mut name: Option<String> = None;
    for line in text.lines() {
        let line = line.trim();
        if line == "[[package]]" {
            name = None;
        } else if let Some(v) = line.strip_prefix("name = ") {
            name = Some(v.trim_matches('"').to_string());
        } else if let Some(v) = line.strip_prefix("version = ")
            && let Some(n) = name.take()
            && KEY_CRATES.contains(&n.as_str())
        {
            versions.push(format!("{n}={}", v.trim_matches('"')));
        }
    }
    versions.sort();
    versions.dedup();
    println!(
        "cargo:rustc-env=CIPHERLAB_CRATE_VERSIONS={}",
        versions.join(";")
    );
}
