//! `cipherlab impl check` end to end, on the C code of crates/native/tests/c/: exit 0 when
//! a build agrees, 10 when none does (a forged tag accepted, a changed round constant, a
//! file that does not compile, whose compiler message is shown), 2 for sizes that are
//! not the algorithm's, 5 for a folder that is not there; the same for a hash under the
//! `crypto_hash` API (a changed IV differs at Count 1, MD); and `bench --impl` with the
//! `lwc` study, through the binary, times the implementation as its own provider, and
//! refuses a hash.
//!
//! Needs a C compiler and the KAT folder: without them it prints SKIP (and fails when
//! `CI` is set).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use cipherlab_testkit::process::{run_in, stderr};
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_cipherlab");

fn c_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../native/tests/c")
        .join(name)
}

fn have_cc() -> bool {
    let found = ["gcc", "clang", "cc"].iter().any(|c| {
        std::process::Command::new(c)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "no C compiler and CI is set"
        );
        println!("SKIP: no C compiler (gcc, clang or cc) on PATH");
    }
    found
}

fn ready() -> bool {
    have_cc() && cipherlab_testkit::kat::kat_dir().is_some()
}

fn check(dir: &str, alg: &str, json: bool) -> std::process::Output {
    let d = c_dir(dir);
    let mut args = vec!["impl", "check", d.to_str().unwrap(), "--algorithm", alg];
    if json {
        args.push("--json");
    }
    run_in(BIN, &args, Path::new(env!("CARGO_MANIFEST_DIR")))
}

#[test]
fn impl_check_exit_codes() {
    if !ready() {
        return;
    }
    let o = check("ascon-aead128", "ascon-aead128", false);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
    assert!(out.contains("1089 vectors"), "{out}");
    assert!(out.contains("fastest"), "{out}");
    assert!(!out.contains("differs"), "{out}");

    let o = check("ascon-aead128", "ascon-aead128", true);
    assert_eq!(o.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["algorithm"], "ascon-aead128");
    assert_eq!(v["vectors"], 1089);
    let builds = v["builds"].as_array().unwrap();
    assert_eq!(builds.len() % 5, 0);
    assert!(builds.iter().all(|b| b["outcome"]["result"] == "agrees"));
    assert!(
        builds
            .iter()
            .all(|b| b["build"]["source_hash"] == v["source_hash"])
    );

    let o = check("no-tag-check", "ascon-aead128", false);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(10), "{out}");
    assert!(out.contains("differs   Count = 1, tag"), "{out}");
    assert!(stderr(&o).contains("no build"), "{}", stderr(&o));

    let o = check("wrong-round-constant", "ascon-aead128", true);
    assert_eq!(o.status.code(), Some(10));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let first = &v["builds"][0]["outcome"];
    assert_eq!(
        (first["result"].as_str(), first["count"].as_u64()),
        (Some("differs"), Some(1))
    );
    assert_eq!(first["field"], "CT");

    let o = check("syntax-error", "ascon-aead128", false);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(10));
    assert!(out.contains("build failed"), "{out}");
    assert!(out.contains("expected"), "the compiler's message: {out}");

    let o = check("ascon-aead128", "ascon-80pq", false);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("key 20 B"), "{}", stderr(&o));

    let o = check("no-such-folder", "ascon-aead128", false);
    assert_eq!(o.status.code(), Some(5), "{}", stderr(&o));

    let o = check("ascon-aead128", "no-such-cipher", false);
    assert_eq!(o.status.code(), Some(2));

    // Without --algorithm, the KAT finds it.
    let d = c_dir("ascon-aead128");
    let o = run_in(
        BIN,
        &["impl", "check", d.to_str().unwrap(), "--json"],
        Path::new(env!("CARGO_MANIFEST_DIR")),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["algorithm"], "ascon-aead128");
}

#[test]
fn impl_check_hashes() {
    if !ready() {
        return;
    }
    let o = check("ascon-hash256", "ascon-hash256", false);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
    assert!(out.contains("crypto_hash, CRYPTO_BYTES 32"), "{out}");
    assert!(out.contains("1025 vectors"), "{out}");
    assert!(out.contains("fastest"), "{out}");
    assert!(!out.contains("forged"), "{out}");

    let o = check("wrong-hash-iv", "ascon-hash256", true);
    assert_eq!(o.status.code(), Some(10));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["api"]["kind"], "hash");
    assert_eq!(v["api"]["bytes"], 32);
    let first = &v["builds"][0]["outcome"];
    assert_eq!(
        (first["result"].as_str(), first["count"].as_u64()),
        (Some("differs"), Some(1))
    );
    assert_eq!(first["field"], "MD");

    // Without --algorithm: CRYPTO_BYTES and no CRYPTO_KEYBYTES, so a hash; the KAT finds
    // which one.
    let d = c_dir("ascon-hash256");
    let o = run_in(
        BIN,
        &["impl", "check", d.to_str().unwrap(), "--json"],
        Path::new(env!("CARGO_MANIFEST_DIR")),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["algorithm"], "ascon-hash256");
    assert_eq!(v["vectors"], 1025);

    // The other API, the wrong length, a customizable XOF: usage.
    let o = check("ascon-hash256", "ascon-aead128", false);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("crypto_hash"), "{}", stderr(&o));
    let o = check("ascon-aead128", "ascon-hash256", false);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("crypto_aead"), "{}", stderr(&o));
    let o = check("ascon-hash256", "ascon-xof128", false);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("64 B"), "{}", stderr(&o));
    let o = check("ascon-hash256", "ascon-cxof128", false);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("customization"), "{}", stderr(&o));

    // bench --impl times AEADs only: a hash is refused before anything is built.
    let dir = tempfile::tempdir().unwrap();
    let arg = format!("c-hash={}", d.display());
    let o = run_in(
        BIN,
        &[
            "bench",
            "lwc",
            "--quick",
            "--impl",
            &arg,
            "--no-report",
            "--db",
            dir.path().join("r.sqlite").to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("hashes are checked by `impl check` only"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn impl_check_help_warns_that_loading_runs_code() {
    let o = run_in(BIN, &["impl", "check", "--help"], Path::new("."));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success());
    assert!(out.contains("runs its code"), "{out}");
    assert!(out.contains("Exit codes"), "{out}");
    let o = run_in(BIN, &["bench", "--help"], Path::new("."));
    assert!(String::from_utf8_lossy(&o.stdout).contains("--impl <NAME=DIR>"));
}

#[test]
fn bench_impl_times_the_c_code_as_a_provider() {
    if !ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.sqlite");
    let arg = format!("c-ascon={}", c_dir("ascon-aead128").display());
    let o = run_in(
        BIN,
        &[
            "bench",
            "lwc",
            "--quick",
            "--impl",
            &arg,
            "--cipher",
            "ascon-aead128",
            "--no-report",
            "--no-keep-awake",
            "--json",
            "--db",
            db.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("c-ascon"), "{text}");
    assert!(text.contains("Native builds"), "{text}");

    // With forks: each child loads the library its parent chose (CIPHERLAB_NATIVE_LIBS)
    // and checks it again; a child that could not would fail the run.
    let o = run_in(
        BIN,
        &[
            "bench",
            "lwc",
            "--quick",
            "--forks",
            "1",
            "--impl",
            &arg,
            "--cipher",
            "ascon-aead128",
            "--no-report",
            "--no-keep-awake",
            "--json",
            "--db",
            db.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("c-ascon"));

    // Without the lwc study, --impl is refused as usage.
    let o = run_in(
        BIN,
        &[
            "bench",
            "modes",
            "--quick",
            "--impl",
            &arg,
            "--no-report",
            "--db",
            db.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("lwc"));
}
