//! Running a workspace binary in a test and reading its outcome: one way for every
//! command-line test, so each states only its arguments.

use std::path::Path;
use std::process::{Command, Output, Stdio};

/// Runs `program` (a test's `env!("CARGO_BIN_EXE_…")`) with `args` in `dir`, with no
/// standard input and without `CIPHERLAB_DB`, so a developer's own results database is
/// never read or written by a test.
pub fn run_in(program: &str, args: &[&str], dir: &Path) -> Output {
    Command::new(program)
        .args(args)
        .current_dir(dir)
        .env_remove("CIPHERLAB_DB")
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"))
}

/// The standard output of a run that must have succeeded; a failure panics with its exit
/// code and standard error.
pub fn ok(o: &Output) -> String {
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "exit {:?}\n{err}", o.status.code());
    String::from_utf8(o.stdout.clone()).unwrap_or_else(|e| panic!("stdout is not UTF-8: {e}"))
}

/// The standard error of a run that must have failed, and failed without a panic.
pub fn fails(o: &Output) -> String {
    assert!(
        !o.status.success(),
        "should fail; stdout:\n{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let err =
        String::from_utf8(o.stderr.clone()).unwrap_or_else(|e| panic!("stderr is not UTF-8: {e}"));
    assert!(!err.contains("panicked"), "{err}");
    err
}

/// A run's standard error as text (lossy), for messages and assertions.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Whether `tool` can be started (`tool -v`): the tests that compare with an outside
/// program skip it, with a line saying so, where it is not installed.
pub fn have(tool: &str) -> bool {
    Command::new(tool).arg("-v").output().is_ok()
}
