//! Operations timed turn about on the TSC and the thread's CPU time: the method of the
//! speed tables.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::time::Duration;

use cipherlab_harness::interleave::{self, Calls, Plan, Warmup};

fn spin(n: u64) -> u64 {
    let mut x = black_box(1u64);
    for i in 0..n {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(black_box(i));
    }
    x
}

#[test]
fn costs_in_a_known_ratio_come_out_in_it() {
    let plan = Plan {
        calls: Calls::Calibrate {
            min_ticks: 200_000,
            max: 1 << 20,
        },
        warmup: Warmup::Time(Duration::from_millis(5)),
        samples: 15,
    };
    let mut sink = 0u64;
    let cost = [1_000, 4_000];
    let r = interleave::run(&plan, &mut sink, 2, |i, s| *s ^= spin(cost[i]));
    assert_eq!(r.samples.len(), 2);
    assert!(r.samples.iter().all(|s| s.len() == 15));
    let calls = r.samples[0][0].calls;
    assert!(calls > 1, "calibrated to {calls} calls");
    assert!(r.samples.iter().flatten().all(|s| s.calls == calls));
    assert!(
        (0.1..10.0).contains(&r.ticks_per_ns),
        "counter at {} ticks/ns",
        r.ticks_per_ns
    );
    let (a, b) = (r.figure(0), r.figure(1));
    let ratio = b.median_cpu_ticks / a.median_cpu_ticks;
    println!(
        "spin 1000: {:.0} ticks (CPU), {:.0} (TSC), min {:.0}; spin 4000: {:.0}; ratio {ratio:.2}",
        a.median_cpu_ticks, a.median_ticks, a.min_ticks, b.median_cpu_ticks
    );
    assert!((3.0..5.0).contains(&ratio), "ratio {ratio}");
    assert!(a.min_ticks <= a.median_ticks);
    // The thread never runs longer than the wall clock says.
    for s in r.samples.iter().flatten() {
        assert!(s.cpu_ns <= s.wall_ns + 100_000, "{s:?}");
    }
    // At a rate given apart, CPU nanoseconds convert the same way.
    let at_one = r.figure_at(0, 1.0);
    assert_eq!(at_one.median_cpu_ticks, at_one.median_cpu_ns);
}

#[test]
fn fixed_calls_and_sample_warmup() {
    let plan = Plan {
        calls: Calls::Fixed(7),
        warmup: Warmup::Samples(2),
        samples: 3,
    };
    let mut count = 0u64;
    let r = interleave::run(&plan, &mut count, 1, |_, n| *n += 1);
    assert_eq!(
        count,
        7 * (2 + 3),
        "two warm-up samples and three timed, of 7 calls"
    );
    assert!(r.samples[0].iter().all(|s| s.calls == 7));
}
