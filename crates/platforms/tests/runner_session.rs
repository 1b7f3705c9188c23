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

#[test]
fn a_runner_that_hangs_is_killed_at_its_time_limit_with_the_last_lines_of_its_stderr() {
    let _turn = one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("fake");
    std::fs::create_dir_all(&d).unwrap();
    let run = d.join("run");
    // Answers one line, then says why on stderr and never answers again.
    std::fs::write(
        &run,
        "#!/bin/sh\nread -r line\necho '{\"ok\":1}'\nread -r line\nfor i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25; do echo \"line $i\" >&2; done\necho 'stuck: waiting for a lock' >&2\nexec sleep 600\n",
    )
    .unwrap();
    std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o755)).unwrap();
    let runner = Runner::new(dir.path(), "fake")
        .unwrap()
        .with_base_limit(std::time::Duration::from_millis(500));
    let started = std::time::Instant::now();
    let e = runner
        .exchange(&[json!({"op": "a"}), json!({"op": "b"})])
        .unwrap_err();
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    let msg = format!("{e:#}");
    assert!(msg.contains("no answer within its time limit"), "{msg}");
    assert!(msg.contains("after 1 of 2 answers"), "{msg}");
    assert!(msg.contains("stuck: waiting for a lock"), "{msg}");
    assert!(
        msg.contains("line 25") && !msg.contains("line 1\n"),
        "the last lines: {msg}"
    );
    assert!(msg.contains("killed"), "{msg}");
}

#[test]
fn a_user_runners_provider_named_as_a_built_in_one_is_prefixed_both_ways() {
    let _turn = one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("mine.sh");
    // info lists providers `go` (a built-in runner's) and `own`; other lines are echoed.
    std::fs::write(
        &run,
        "#!/bin/sh\nread -r line\necho '{\"runtime\":\"sh\",\"version\":\"1\",\"startup_ns\":0,\"providers\":[{\"name\":\"go\",\"library\":\"l\",\"version\":\"1\",\"algorithms\":[]},{\"name\":\"own\",\"library\":\"l\",\"version\":\"1\",\"algorithms\":[]}]}'\nwhile IFS= read -r line; do printf '%s\\n' \"$line\"; done\n",
    )
    .unwrap();
    std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o755)).unwrap();
    let u = cipherlab_platforms::user::parse_flag(&format!("mine={}", run.display())).unwrap();
    let (runner, info) = cipherlab_platforms::ready_user(&u).unwrap();
    assert_eq!(info.runtime, "sh");
    let names: Vec<&str> = info.providers.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["mine-go", "own"]);
    // The runner is asked for its own name and its answer shows the prefixed one.
    let a = runner
        .exchange(&[
            json!({"op": "x", "provider": "mine-go"}),
            json!({"provider": "own"}),
        ])
        .unwrap();
    assert_eq!(a[0]["provider"], "mine-go");
    assert_eq!(a[1]["provider"], "own");
}
