//! Forks: the test binary re-executes itself as the child. This file holds a single test
//! so that the child, which runs the same test, rebuilds the same suite and serves the
//! request instead of running anything else.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::cell::Cell;
use std::hint::black_box;
use std::process::Command;
use std::time::Duration;

use cipherlab_harness::fork::{self, ForkRequest};
use cipherlab_harness::{BenchError, Harness, Identity, Progress, Settings, Suite};

fn spin(n: u64) -> u64 {
    let mut x = black_box(1u64);
    for i in 0..n {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(black_box(i));
    }
    x
}

/// This test binary, running only this test.
fn this_test() -> std::io::Result<Command> {
    let mut c = Command::new(std::env::current_exe()?);
    c.args([
        "--exact",
        "forks_measure_in_child_processes",
        "--nocapture",
        "--test-threads=1",
    ]);
    Ok(c)
}

#[test]
fn forks_measure_in_child_processes() {
    let settings = Settings {
        warmup_iterations: 1,
        warmup_time: Duration::from_millis(10),
        iterations: 12,
        sample_time: Duration::from_millis(1),
        forks: 2,
        ..Settings::quick()
    };
    let harness = Harness::new(settings.clone());
    let runs_here = Cell::new(0u32);
    let mut suite = Suite::new();
    suite
        .add("fork/spin-1000".to_string(), None, |b| {
            runs_here.set(runs_here.get() + 1);
            b.iter(|| spin(1000))
        })
        .add("fork/spin-4000".to_string(), None, |b| {
            runs_here.set(runs_here.get() + 1);
            b.iter(|| spin(4000))
        })
        .fork_command(this_test);
    let mut forks_done = 0;
    // In a child this call serves the request and exits the process.
    let ms = suite
        .run(&harness, &mut |p| {
            if let Progress::Fork { .. } = p {
                forks_done += 1;
            }
        })
        .unwrap_or_else(|e| panic!("{e}"));
    // Only the parent gets here.
    assert_eq!(runs_here.get(), 0, "with forks, nothing runs in the parent");
    assert_eq!(forks_done, 4);
    assert_eq!(ms.len(), 2);
    for m in &ms {
        assert_eq!(m.samples.len(), 24, "2 forks x 12 samples");
        assert_eq!(m.forks, 2);
        let from = |k| m.samples.iter().filter(|s| s.fork == k).count();
        assert_eq!((from(1), from(2)), (12, 12));
        assert!(m.batch > 1);
    }
    let ratio = ms[1].summary.min / ms[0].summary.min;
    println!(
        "forked: spin-1000 {:.0} ns, spin-4000 {:.0} ns (medians); minima ratio {ratio:.2}",
        ms[0].summary.median, ms[1].summary.median
    );
    assert!((3.0..5.0).contains(&ratio), "ratio {ratio}");

    // The child is another process.
    let request = ForkRequest {
        key: ms[0].id.key(),
        fork: 7,
        settings: Settings {
            forks: 0,
            ..settings.clone()
        },
    };
    let out = fork::run_child(this_test(), &request).unwrap();
    assert_ne!(out.pid, std::process::id());
    assert_eq!((out.fork, out.samples.len()), (7, 12));
    assert!(out.samples.iter().all(|s| s.fork == 7));

    // A request for a benchmark the suite lacks fails with the child's explanation.
    let missing = ForkRequest {
        key: "fork/none".to_string(),
        ..request
    };
    let e = fork::run_child(this_test(), &missing).unwrap_err();
    println!("missing benchmark: {e}");
    assert!(matches!(e, BenchError::ForkFailed { .. }), "{e}");
    assert!(e.to_string().contains("does not contain"), "{e}");

    // A child that never answers is reported too.
    let e = fork::run_child(Ok(Command::new("true")), &missing).unwrap_err();
    assert!(matches!(e, BenchError::ForkNoResult { .. }), "{e}");
}
