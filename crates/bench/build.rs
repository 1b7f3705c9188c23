//! Captures, at build time, what the machine block reports about the build: the rustc
//! version (`rustc --version`), the target, the profile, and the versions of the crates
//! whose speed the studies measure (read from the workspace's `Cargo.lock`).

use std::path::Path;
use std::process::Command;

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
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    let version = Command::new(&rustc)
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=CIPHERLAB_RUSTC_VERSION={version}");
    println!(
        "cargo:rustc-env=CIPHERLAB_TARGET={}",
        std::env::var("TARGET").unwrap_or_default()
    );
    println!(
        "cargo:rustc-env=CIPHERLAB_PROFILE={}",
        std::env::var("PROFILE").unwrap_or_default()
    );

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
