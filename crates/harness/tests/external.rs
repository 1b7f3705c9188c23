//! Samples measured elsewhere (a platform runner's `samples_ns`, platforms/PROTOCOL.md)
//! get the same statistics and validity checks as the harness's own.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cipherlab_harness::rng::Rng;
use cipherlab_harness::validity::Validity;
use cipherlab_harness::{ExternalTimer, Measurement, Mode, RawSample, Settings, Unit, Warning};

/// `n` per-call times around `ns` with relative spread `spread`, seeded, rounded to the
/// clock's `step`.
fn samples(ns: f64, spread: f64, n: usize, step: u64, seed: u64) -> Vec<u64> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| {
            let x = (ns * (1.0 + spread * rng.normal())).max(1.0) as u64;
            x / step * step
        })
        .collect()
}

fn java() -> ExternalTimer {
    ExternalTimer::named("System.nanoTime")
}

#[test]
fn clean_samples_give_the_figures_and_no_warning() {
    let ns = samples(400_000.0, 0.01, 200, 1, 1);
    let m = Measurement::from_external_samples(
        "java-sunjce/aes-128-cbc/encrypt/1048576".to_string(),
        &ns,
        &java(),
        Some(1 << 20),
        &Settings::quick(),
    )
    .unwrap();
    assert_eq!(m.mode, Mode::Sample);
    assert_eq!(m.unit, Unit::NanosPerOp);
    assert_eq!(m.timer, "System.nanoTime");
    assert_eq!((m.summary.n, m.batch, m.forks), (200, 1, 0));
    assert!(
        (m.summary.median / 400_000.0 - 1.0).abs() < 0.01,
        "{}",
        m.summary.median
    );
    let mb_s = m.bytes_per_second.unwrap() / 1e6;
    assert!(
        (mb_s / (1048576.0 / 400e-6 / 1e6) - 1.0).abs() < 0.01,
        "{mb_s} MB/s"
    );
    assert_eq!(m.ticks_per_op, None, "no counter was read over there");
    assert!(m.warnings.is_empty(), "{:?}", m.warnings);
    assert!(m.can_rank());
}

#[test]
fn the_statistics_are_the_harness_own() {
    // The same numbers as in-process samples of one call each, in sample mode: the same
    // summary, the same warnings.
    let ns = samples(50_000.0, 0.2, 60, 1, 2);
    let settings = Settings::quick();
    let external =
        Measurement::from_external_samples("x".to_string(), &ns, &java(), None, &settings).unwrap();
    let raw: Vec<RawSample> = ns
        .iter()
        .map(|&ns| RawSample {
            fork: 0,
            iterations: 1,
            ns,
            ticks: None,
        })
        .collect();
    let validity = Validity {
        timer: "System.nanoTime".to_string(),
        resolution_ns: 1,
        timer_overhead_ns: 0.0,
        counter: None,
        counter_resolution: None,
        counter_invariant: None,
        counter_ticks_per_ns: None,
        empty_op_ns: 0.0,
        empty_call_ns: 0.0,
        steadiness: None,
        keep_awake: None,
        steal: None,
    };
    let internal = Measurement::from_samples(
        "x".to_string(),
        &settings.clone().with_mode(Mode::Sample),
        &validity,
        None,
        1,
        raw,
    )
    .unwrap();
    assert_eq!(external.summary, internal.summary);
    assert_eq!(external.warnings, internal.warnings);
    // 20% spread over 60 samples: a wide interval, warned of (the ranking then blocks
    // only the comparisons it overlaps, not the figure).
    assert!(
        external
            .warnings
            .iter()
            .any(|w| matches!(w, Warning::WideInterval { .. })),
        "{:?}",
        external.warnings
    );
    assert!(external.can_rank());
}

#[test]
fn a_coarse_clock_and_few_samples_are_flagged() {
    // A 2 µs call read on a clock that steps by 1 µs: the samples are whole
    // microseconds, and the estimated resolution says so.
    let ns = samples(2_000.0, 0.3, 100, 1_000, 3);
    let m = Measurement::from_external_samples(
        "coarse".to_string(),
        &ns,
        &ExternalTimer::named("hrtime"),
        None,
        &Settings::quick(),
    )
    .unwrap();
    let near = m.warnings.iter().find_map(|w| match w {
        Warning::NearResolution { resolution_ns, .. } => Some(*resolution_ns),
        _ => None,
    });
    assert_eq!(near, Some(1_000), "{:?}", m.warnings);

    // A resolution the caller knows wins over the estimate.
    let fine = ExternalTimer {
        resolution_ns: Some(1),
        ..ExternalTimer::named("hrtime")
    };
    let m =
        Measurement::from_external_samples("c".to_string(), &ns, &fine, None, &Settings::quick())
            .unwrap();
    assert!(!m.warnings.iter().any(|w| w.kind() == "near-resolution"));

    // Five samples: no interval worth ranking on.
    let m = Measurement::from_external_samples(
        "few".to_string(),
        &[1_000_000, 1_000_100, 999_900, 1_000_050, 1_000_020],
        &java(),
        None,
        &Settings::quick(),
    )
    .unwrap();
    assert!(
        m.warnings.contains(&Warning::FewSamples { n: 5 }),
        "{:?}",
        m.warnings
    );
    assert!(!m.can_rank());

    // A known per-call cost of the runner's clock reads is checked like the harness's.
    let slow_clock = ExternalTimer {
        empty_call_ns: Some(500.0),
        ..java()
    };
    let m = Measurement::from_external_samples(
        "cheap call".to_string(),
        &samples(5_000.0, 0.01, 100, 1, 4),
        &slow_clock,
        None,
        &Settings::quick(),
    )
    .unwrap();
    assert!(
        m.warnings.iter().any(|w| w.kind() == "harness-overhead"),
        "{:?}",
        m.warnings
    );
}

#[test]
fn external_and_internal_figures_compare() {
    // A runner's figure against one of this process: the ratio of medians with its
    // bootstrap interval, as `compare` and the rankings use it.
    let settings = Settings::quick();
    let slow = Measurement::from_external_samples(
        "node".to_string(),
        &samples(300_000.0, 0.01, 100, 1, 5),
        &ExternalTimer::named("process.hrtime.bigint"),
        None,
        &settings,
    )
    .unwrap();
    let fast = Measurement::from_external_samples(
        "go".to_string(),
        &samples(100_000.0, 0.01, 100, 1, 6),
        &ExternalTimer::named("time.Now"),
        None,
        &settings,
    )
    .unwrap();
    let r = slow.time_ratio(&fast, &settings.bootstrap).unwrap();
    assert!(
        r.is_significant() && (r.interval.estimate - 3.0).abs() < 0.1,
        "{r:?}"
    );
}

#[test]
fn no_samples_is_an_error_not_a_figure() {
    let e = Measurement::from_external_samples(
        "empty".to_string(),
        &[],
        &java(),
        None,
        &Settings::quick(),
    );
    assert!(e.is_err());
}
