//! The lab tests' support: the synthetic runs of the results tests (one file, included
//! from `crates/results/tests/support`), and which platform runners are ready for the
//! tests that go through them.
#![allow(dead_code)]

#[path = "../../../results/tests/support/mod.rs"]
mod synthetic;
pub use synthetic::*;

use cipherlab_platforms::{RUNTIMES, missing, platforms_dir};

/// Whether the runner of runtime `name` is ready; when it is not, prints a `SKIP` line with
/// why and the command that fixes it (a developer without the runtime still runs the rest).
pub fn runner_ready(name: &str) -> bool {
    let rt = RUNTIMES
        .iter()
        .find(|rt| rt.name == name)
        .unwrap_or_else(|| panic!("{name} is not among the runtimes"));
    match missing(rt, &platforms_dir(None)) {
        Some((why, fix)) => {
            println!("SKIP {name}: {why} (install: {fix})");
            false
        }
        None => true,
    }
}

/// The runtimes whose runners are ready, in [`RUNTIMES`]' order (a `SKIP` line for each other).
pub fn ready_runtimes() -> Vec<&'static str> {
    RUNTIMES
        .iter()
        .map(|rt| rt.name)
        .filter(|name| runner_ready(name))
        .collect()
}
