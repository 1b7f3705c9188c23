//! Captures, at build time, what the machine block reports about the build: the rustc
//! version (`rustc --version`), the target and the profile. (The versions of the crates a
//! program's figures depend on are that program's to say: see
//! `MachineInfo::with_crate_versions`.)

use std::process::Command;

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
    println!("cargo:rerun-if-changed=build.rs");
}
