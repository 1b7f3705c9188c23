//! In CI (`CIPHERLAB_REQUIRE_KAT=1`) a missing KAT folder fails the tests that want it;
//! elsewhere they print `SKIP` and run the built-in excerpts. Proved end to end: this test
//! binary runs its own `child_runs_a_kat_file` test in a child process, with the KAT
//! folder pointed at a path that does not exist, once with and once without the variable.

use std::process::{Command, Output};

use cipherlab_testkit::kat::{KAT_DIR_VAR, REQUIRE_VAR};
use cipherlab_testkit::lwc::for_each_hash;

/// A KAT file with a built-in excerpt.
const FILE: &str = "ascon/sp800-232/asconhash256_LWC_HASH_KAT_128_256.txt";

/// What a KAT test does: the excerpt, then the whole file if the folder is there. Run only
/// by [`a_missing_kat_folder_fails_in_ci_and_skips_elsewhere`], in a child process.
#[test]
#[ignore = "run in a child process by a_missing_kat_folder_fails_in_ci_and_skips_elsewhere"]
fn child_runs_a_kat_file() {
    let n = for_each_hash(FILE, |v| assert!(!v.md.is_empty(), "{}", v.id));
    println!("child checked {n} vectors");
}

/// Runs `child_runs_a_kat_file` in a child process with the KAT folder missing.
fn child(require: Option<&str>) -> Output {
    let exe = std::env::current_exe().unwrap_or_else(|e| panic!("current_exe: {e}"));
    let nowhere = std::env::temp_dir().join("cipherlab-no-such-kat-folder");
    assert!(!nowhere.exists(), "{} exists", nowhere.display());
    let mut cmd = Command::new(exe);
    cmd.args([
        "child_runs_a_kat_file",
        "--exact",
        "--ignored",
        "--nocapture",
    ])
    .args(["--test-threads", "1"])
    .env(KAT_DIR_VAR, &nowhere)
    .env_remove(REQUIRE_VAR);
    if let Some(v) = require {
        cmd.env(REQUIRE_VAR, v);
    }
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("running the child: {e}"));
    println!(
        "child with {REQUIRE_VAR}={require:?}: {}\n--- stdout\n{}--- stderr\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

#[test]
fn a_missing_kat_folder_fails_in_ci_and_skips_elsewhere() {
    // A developer's machine: SKIP, the excerpt runs, the test passes.
    for require in [None, Some("0")] {
        let out = child(require);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "the child should pass with a SKIP");
        assert!(stdout.contains("SKIP: KAT folder"), "no SKIP line");
        assert!(
            stdout.contains(&format!("kat-excerpts/{FILE}")),
            "the excerpt did not run"
        );
        assert!(stdout.contains("1 passed"), "the child test did not run");
    }
    // CI: the same run fails, naming the folder and the variable.
    let out = child(Some("1"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "a missing KAT folder passed in CI");
    assert!(
        stderr.contains("cipherlab-no-such-kat-folder") && stderr.contains(REQUIRE_VAR),
        "the failure does not say why"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("1 failed"));
}
