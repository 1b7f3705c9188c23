//! A runner is one process for all of a `Runner`'s exchanges (a warm runtime is asked
//! again without a new start-up), a new `Runner` is a new process, and a runner that
//! dies mid-exchange is an error that carries its stderr.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use cipherlab_platforms::Runner;
use serde_json::{Value, json};

/// A runner for `name` under `dir`: a shell script that answers each line with its
/// process id and the line's number, and dies with a message at a line saying "die".
fn fake(dir: &Path, name: &str) {
    let d = dir.join(name);
    std::fs::create_dir_all(&d).unwrap();
    let run = d.join("run");
    std::fs::write(
        &run,
        "#!/bin/sh\nn=0\nwhile IFS= read -r line; do\n  n=$((n+1))\n  case \"$line\" in *die*) echo \"fatal: asked to die\" >&2; exit 3;; esac\n  echo \"{\\\"pid\\\":$$,\\\"n\\\":$n}\"\ndone\n",
    )
    .unwrap();
    std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Held by each test for its whole run. A test writing its script while the other forks
/// a runner would leave the script open for writing in that child until it execs, and
/// exec of a file open for writing fails with "Text file busy" (seen once in CI): the
/// two tests of this process take turns.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

fn pids(answers: &[Value]) -> Vec<u64> {
    answers.iter().map(|a| a["pid"].as_u64().unwrap()).collect()
}

#[test]
fn one_process_per_runner_until_dropped() {
    let _turn = one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    fake(dir.path(), "fake");
    let runner = Runner::new(dir.path(), "fake").unwrap();
    let first = runner
        .exchange(&[json!({"op": "a"}), json!({"op": "b"})])
        .unwrap();
    let second = runner.exchange(&[json!({"op": "c"})]).unwrap();
    let p = pids(&first);
    assert_eq!(p[0], p[1]);
    assert_eq!(
        pids(&second),
        vec![p[0]],
        "the second exchange reused the process"
    );
    assert_eq!(second[0]["n"], 3, "the process saw every line in order");
    drop(runner);

    let again = Runner::new(dir.path(), "fake").unwrap();
    let third = again.exchange(&[json!({"op": "d"})]).unwrap();
    assert_ne!(pids(&third), vec![p[0]], "a new Runner is a new process");
    assert_eq!(third[0]["n"], 1);
}

#[test]
fn a_runner_that_dies_is_an_error_with_its_stderr_and_the_next_exchange_restarts() {
    let _turn = one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    fake(dir.path(), "fake");
    let runner = Runner::new(dir.path(), "fake").unwrap();
    let e = runner
        .exchange(&[json!({"op": "a"}), json!({"op": "die"}), json!({"op": "b"})])
        .unwrap_err();
    let msg = format!("{e:#}");
    assert!(msg.contains("asked to die"), "{msg}");
    assert!(msg.contains("after 1 of 3 answers"), "{msg}");
    let next = runner.exchange(&[json!({"op": "c"})]).unwrap();
    assert_eq!(next[0]["n"], 1, "a fresh process after the failure");
}

#[test]
fn info_sends_the_probe_set() {
    let _turn = one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("fake");
    std::fs::create_dir_all(&d).unwrap();
    let run = d.join("run");
    // Keeps the request it was sent and answers a minimal info.
    std::fs::write(
        &run,
        "#!/bin/sh\nwhile IFS= read -r line; do\n  printf '%s\\n' \"$line\" >>\"$(dirname \"$0\")/asked\"\n  echo '{\"version\":\"1\",\"startup_ns\":0,\"providers\":[]}'\ndone\n",
    )
    .unwrap();
    std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o755)).unwrap();
    let runner = Runner::new(dir.path(), "fake").unwrap();
    let info = runner.info().unwrap();
    assert_eq!(info.version, "1");
    drop(runner);
    let asked: Value =
        serde_json::from_str(std::fs::read_to_string(d.join("asked")).unwrap().trim()).unwrap();
    assert_eq!(asked, cipherlab_platforms::info_request());
    assert_eq!(
        asked["probe"]["rc4"]["bits"],
        json!([40, 64, 128, 256, 2048])
    );
}
