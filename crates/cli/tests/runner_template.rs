//! The runner template of docs/platforms.md (docs/runner-template/run, Perl, written from
//! platforms/PROTOCOL.md alone): it passes `platforms check --runner` on every vector of
//! its one algorithm, and `bench platforms --quick --runner` times it after conformance.
//! Without perl (and its core JSON::PP) the tests print SKIP, and fail under CI.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn template() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/runner-template/run")
}

fn runner() -> String {
    format!("perl=perl '{}'", template().display())
}

fn perl() -> bool {
    let ok = Command::new("perl")
        .args(["-MJSON::PP", "-MDigest::SHA", "-e", "1"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI: perl with JSON::PP is missing (.ci/setup installs perl)"
        );
        eprintln!("SKIP: perl with JSON::PP is not installed (the template is a Perl script)");
    }
    ok
}

/// cipherlab with `args`, no built-in runner (an empty platforms directory), no runners file.
fn cipherlab(args: &[&str], cwd: &Path) -> Output {
    let empty = tempfile::tempdir().unwrap();
    Command::new(env!("CARGO_BIN_EXE_cipherlab"))
        .args(args)
        .current_dir(cwd)
        .env("CIPHERLAB_PLATFORMS_DIR", empty.path())
        .env_remove("CIPHERLAB_RUNNERS")
        .output()
        .expect("run cipherlab")
}

fn json_of(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

#[test]
fn the_template_agrees_on_every_vector_of_its_algorithm() {
    if !perl() {
        return;
    }
    let here = tempfile::tempdir().unwrap();
    let out = cipherlab(
        &[
            "platforms",
            "check",
            "--seed",
            "7",
            "--json",
            "--runner",
            &runner(),
        ],
        here.path(),
    );
    let check = json_of(&out);
    assert!(out.status.success(), "{check:#}");
    let p = check["providers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["provider"] == "perl-ascon")
        .unwrap_or_else(|| panic!("no perl-ascon: {check:#}"));
    assert_eq!(p["runtime"], "perl");
    let verdict = &p["algorithms"]["ascon-aead128"];
    assert_eq!(verdict["verdict"], "agree", "{check:#}");
    assert_eq!(check["startup"]["perl"]["reported_runtime"], "perl");
}

#[test]
fn bench_platforms_times_the_template_after_conformance() {
    if !perl() {
        return;
    }
    let here = tempfile::tempdir().unwrap();
    let db = here.path().join("r.sqlite");
    let out = cipherlab(
        &[
            "bench",
            "platforms",
            "--quick",
            "--cipher",
            "ascon-aead128",
            "--json",
            "--no-report",
            "--no-keep-awake",
            "--db",
            db.to_str().unwrap(),
            "--runner",
            &runner(),
        ],
        here.path(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = json_of(&out);
    let study = run["studies"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "platforms")
        .unwrap();
    let tables = study["tables"].to_string();
    assert!(
        tables.contains("perl-ascon"),
        "the template's provider is not in the study: {study:#}"
    );
    // Its encryption and decryption at the AEADs' --quick size are figures of the run.
    let costs = study["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "start-up-and-warm-up")
        .unwrap()["table"]
        .clone();
    let row = costs["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r[1] == "perl-ascon")
        .unwrap_or_else(|| panic!("no costs row: {costs:#}"));
    assert_eq!(row[7], 2, "figures of perl-ascon: {row:?}");
}
