//! The lab tests' support: the synthetic runs of the results tests (one file, included
//! from `crates/results/tests/support`), and which platform runners are ready for the
//! tests that go through them.
#![allow(dead_code)]

#[path = "../../../results/tests/support/mod.rs"]
mod synthetic;
pub use synthetic::*;

use cipherlab_platforms::{platforms_dir, ready, runtime, runtimes};

/// Whether the runner of runtime `name` is ready ([`cipherlab_platforms::ready`]); when it
/// is not, prints a `SKIP` line with why and the command that fixes it (a developer
/// without the runtime still runs the rest). Under CI (`CI` set), where .ci/setup
/// installs every runner, a runner that is not ready fails the test instead.
pub fn runner_ready(name: &str) -> bool {
    let rt = runtime(name).unwrap();
    match ready(rt, &platforms_dir(None)) {
        Err(not) if std::env::var_os("CI").is_some() => {
            panic!(
                "CI: the {name} runner is not ready: {} (install: {})",
                not.why, not.fix
            )
        }
        Err(not) => {
            println!("SKIP {name}: {} (install: {})", not.why, not.fix);
            false
        }
        Ok(_) => true,
    }
}

/// The runtimes whose runners are ready, in the list's order (a `SKIP` line for each other).
pub fn ready_runtimes() -> Vec<&'static str> {
    runtimes()
        .iter()
        .map(|rt| rt.id.as_str())
        .filter(|name| runner_ready(name))
        .collect()
}
