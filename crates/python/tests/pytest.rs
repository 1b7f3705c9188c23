//! Runs the Python test suite (`tests/test_*.py`, pytest) from `cargo test`, against the
//! package `crates/python/setup` built and installed into `crates/python/.venv`, so the
//! README's test command (`bash .ci/setup && cargo test --workspace --locked`) builds the
//! package and runs pytest. The `cipherlab` binary this same `cargo test` built is handed
//! to the tests that exchange containers with the command line.

use std::path::Path;
use std::process::Command;
use std::time::SystemTime;

/// The newest modification time of `path` or of the files under it (recursively); the
/// epoch if it does not exist.
fn newest(path: &Path) -> SystemTime {
    let mtime = |p: &Path| {
        std::fs::metadata(p)
            .and_then(|m| m.modified())
            .unwrap_or(SystemTime::UNIX_EPOCH)
    };
    let Ok(entries) = std::fs::read_dir(path) else {
        return mtime(path);
    };
    entries
        .flatten()
        .map(|e| newest(&e.path()))
        .max()
        .unwrap_or(SystemTime::UNIX_EPOCH)
}

/// Whether a missing environment must fail the test rather than skip it: in CI (`CI` set,
/// as every CI service sets it) and wherever `CIPHERLAB_REQUIRE_KAT` asks that nothing be
/// skipped.
fn required() -> bool {
    std::env::var_os("CI").is_some()
        || std::env::var_os("CIPHERLAB_REQUIRE_KAT").is_some_and(|v| !v.is_empty() && v != "0")
}

#[test]
fn pytest_suite_passes() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = here.join(".venv/bin/python");
    let ready = here.join(".built/ready");
    if !python.exists() || !ready.exists() {
        let why = format!(
            "{} is missing or crates/python/setup never finished: run `bash crates/python/setup` \
             (`bash .ci/setup` runs it), which builds the package and installs it there",
            python.display()
        );
        assert!(
            !required(),
            "{why} (CI or CIPHERLAB_REQUIRE_KAT is set: no skipping)"
        );
        println!("SKIP pytest_suite_passes: {why}");
        return;
    }
    // setup touches .built/ready whenever the installed wheel is the one the current
    // sources make; a source edited after it means the installed package is stale.
    let ready_at = std::fs::metadata(&ready)
        .and_then(|m| m.modified())
        .expect("the time of .built/ready");
    let root = here
        .parent()
        .and_then(Path::parent)
        .expect("the workspace root");
    let sources = [
        "crates/python/src",
        "crates/python/python",
        "crates/python/pyproject.toml",
        "crates/lwc/src",
        "crates/ciphers/src",
        "crates/seal/src",
        "crates/outfile/src",
        "Cargo.lock",
    ]
    .iter()
    .map(|p| newest(&root.join(p)))
    .max()
    .unwrap_or(SystemTime::UNIX_EPOCH);
    assert!(
        ready_at >= sources,
        "the installed package is older than its sources: run `bash crates/python/setup` \
         to rebuild and reinstall it"
    );

    let mut cmd = Command::new(&python);
    cmd.args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .arg(here.join("tests"))
        .current_dir(here);
    // target/<profile>/deps/pytest-<hash> -> target/<profile>/cipherlab
    let cli = std::env::current_exe()
        .ok()
        .and_then(|e| Some(e.parent()?.parent()?.join("cipherlab")))
        .filter(|p| p.is_file());
    if let Some(cli) = cli {
        cmd.env("CIPHERLAB_BIN", cli)
            .env("CIPHERLAB_REQUIRE_CLI", "1");
    }
    let status = cmd.status().expect("start pytest");
    assert!(status.success(), "pytest failed (its report is above)");
}
