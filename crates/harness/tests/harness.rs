//! The harness on operations of known cost.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::cell::Cell;
use std::hint::black_box;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use cipherlab_harness::rng::Rng;
use cipherlab_harness::{
    BatchSize, BenchError, Harness, Identity, Measurement, Mode, Progress, RawSample, Settings,
    Suite, Unit, Validity, Warning,
};

/// `n` dependent multiply-adds: cost linear in `n`, never optimized away.
fn spin(n: u64) -> u64 {
    let mut x = black_box(1u64);
    for i in 0..n {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(black_box(i));
    }
    x
}

/// Timing tests run one at a time: two of them sharing the 2 cores would each see
/// the other as noise.
fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn fast() -> Settings {
    Settings {
        warmup_iterations: 1,
        warmup_time: Duration::from_millis(20),
        iterations: 20,
        sample_time: Duration::from_millis(2),
        ..Settings::quick()
    }
}

fn id(name: &str) -> String {
    format!("test/{name}")
}

#[test]
fn validity_figures_are_measured() {
    let _serial = serial();
    let h = Harness::new(fast());
    let v = h.validity();
    println!("validity: {v:?}");
    // The default clock is the thread's CPU time (on Linux).
    assert_eq!(v.timer, "thread-cpu");
    assert_eq!(
        h.validity_of(cipherlab_harness::Clock::Wall).timer,
        "wall-clock"
    );
    assert!(v.resolution_ns > 0 && v.resolution_ns < 10_000, "{v:?}");
    assert!(v.timer_overhead_ns > 0.0 && v.timer_overhead_ns < 10_000.0);
    assert!(v.empty_op_ns < 10.0, "empty op {} ns", v.empty_op_ns);
    assert!(v.empty_call_ns < 20_000.0);
    if cfg!(target_arch = "x86_64") {
        assert_eq!(v.counter.as_deref(), Some("tsc"));
        let ghz = v.counter_ticks_per_ns.unwrap();
        assert!((0.1..10.0).contains(&ghz), "TSC at {ghz} GHz");
    }
}

/// Work done on another thread: the process's CPU time counts it, the measuring
/// thread's does not (it only waits for the join).
#[test]
fn process_cpu_time_sees_work_on_other_threads() {
    let _serial = serial();
    let work = || {
        std::thread::scope(|s| {
            let t = s.spawn(|| spin(black_box(200_000)));
            black_box(t.join().unwrap())
        })
    };
    let median = |clock| {
        let h = Harness::new(fast().with_clock(clock));
        let m = h
            .measure(id("on-another-thread"), None, |b| b.iter(work))
            .unwrap();
        assert_eq!(m.timer, clock.as_str());
        m.summary.median
    };
    let process = median(cipherlab_harness::Clock::ProcessCpu);
    let thread = median(cipherlab_harness::Clock::ThreadCpu);
    let wall = median(cipherlab_harness::Clock::Wall);
    println!("per call: process-cpu {process:.0} ns, thread-cpu {thread:.0} ns, wall {wall:.0} ns");
    // The spin alone costs about 200k dependent multiply-adds (well over 100 us); the
    // thread's own share is the spawn and the join.
    // (The wall clock also counts the time the spawned thread waited for a core, which
    // on a loaded machine is anything: printed, not asserted.)
    assert!(process > 3.0 * thread, "process {process} thread {thread}");
}

#[test]
fn cost_scales_linearly_with_work() {
    let _serial = serial();
    let h = Harness::new(fast());
    let mut medians = Vec::new();
    let mut minima = Vec::new();
    let mut rankable = true;
    for n in [2_000u64, 8_000] {
        let m = h
            .measure(id(&format!("spin-{n}")), None, |b| {
                b.iter(|| spin(black_box(n)))
            })
            .unwrap();
        assert_eq!(m.unit, Unit::NanosPerOp);
        assert_eq!(m.summary.n, 20);
        medians.push(m.summary.median);
        minima.push(m.summary.min);
        rankable &= m.can_rank();
        // Batches were calibrated to the sample time (2 ms).
        let sample_ns = m.samples[m.samples.len() / 2].ns;
        assert!(
            m.batch > 1 && sample_ns > 1_000_000,
            "batch {} sample {sample_ns} ns",
            m.batch
        );
        assert!(
            m.samples
                .iter()
                .all(|s| s.iterations == m.batch && s.fork == 0)
        );
        if cfg!(target_arch = "x86_64") {
            assert!(m.ticks_per_op.unwrap() > 0.0);
        }
    }
    let ratio = medians[1] / medians[0];
    let min_ratio = minima[1] / minima[0];
    println!(
        "spin 8000 / spin 2000: medians {:.0} / {:.0} ns = {ratio:.2}; minima ratio {min_ratio:.2}",
        medians[1], medians[0]
    );
    // The minimum is the least disturbed by other programs on a shared machine.
    assert!(
        (3.4..4.6).contains(&min_ratio),
        "minima ratio {min_ratio}, want ~4"
    );
    // On a busy machine the medians may be inflated; then the harness must say so.
    assert!(
        (3.2..4.8).contains(&ratio) || !rankable,
        "median ratio {ratio}, want ~4, and no spread warning"
    );
}

#[test]
fn single_shot_times_one_cold_call_per_sample() {
    let _serial = serial();
    let calls = Cell::new(0u32);
    let settings = Settings {
        mode: Mode::SingleShot,
        iterations: 7,
        ..fast()
    };
    let h = Harness::new(settings);
    let m = h
        .measure(id("single"), Some(100), |b| {
            b.iter(|| {
                calls.set(calls.get() + 1);
                spin(10_000)
            })
        })
        .unwrap();
    assert_eq!(
        calls.get(),
        7,
        "no warm-up, no calibration: one call per sample"
    );
    assert_eq!(m.samples.len(), 7);
    assert!(m.samples.iter().all(|s| s.iterations == 1));
    assert_eq!(m.batch, 1);
    assert!(
        m.warnings
            .iter()
            .any(|w| matches!(w, Warning::FewSamples { n: 7 }))
    );
}

#[test]
fn sample_mode_times_every_call() {
    let _serial = serial();
    let settings = Settings {
        mode: Mode::Sample,
        iterations: 200,
        sample_time: Duration::from_micros(200),
        ..fast()
    };
    let h = Harness::new(settings);
    let m = h
        .measure(id("sample"), None, |b| b.iter(|| spin(5_000)))
        .unwrap();
    assert!(m.samples.len() >= 200);
    assert!(m.samples.iter().all(|s| s.iterations == 1));
    println!(
        "sample mode: {} calls, median {:.0} ns, p-range {:.0}..{:.0}",
        m.samples.len(),
        m.summary.median,
        m.summary.min,
        m.summary.max
    );
}

#[test]
fn throughput_reports_operations_and_bytes_per_second() {
    let _serial = serial();
    // An odd number of samples: the median is one sample, not the mean of two.
    let settings = Settings {
        iterations: 21,
        ..fast()
    }
    .with_mode(Mode::Throughput);
    let h = Harness::new(settings);
    let mut buf = vec![0u8; 4096];
    let m = h
        .measure(id("xor"), Some(4096), |b| {
            b.iter_on(&mut buf, |buf| {
                for x in buf.iter_mut() {
                    *x ^= 0x5a;
                }
            })
        })
        .unwrap();
    assert_eq!(m.unit, Unit::OpsPerSecond);
    let ns = m.median_ns_per_op();
    // The median of rates is the rate of the median time (a monotone map; exact with
    // an odd number of samples).
    assert!(
        (m.summary.median * ns / 1e9 - 1.0).abs() < 1e-9,
        "{} op/s vs {ns} ns",
        m.summary.median
    );
    let bps = m.bytes_per_second.unwrap();
    assert!((bps / (m.summary.median * 4096.0) - 1.0).abs() < 1e-9);
    if let Some(tpb) = m.ticks_per_byte {
        assert!(tpb > 0.0 && tpb < 100.0, "{tpb} ticks/byte");
    }
    println!(
        "xor 4 KiB: {:.2} GB/s, {:?} ticks/byte",
        bps / 1e9,
        m.ticks_per_byte
    );
}

#[test]
fn setup_stays_outside_the_timed_region() {
    let _serial = serial();
    let h = Harness::new(fast());
    let setups = Cell::new(0u64);
    // Setup costs ~100x the routine.
    let m = h
        .measure(id("batched"), None, |b| {
            b.iter_batched(
                || {
                    setups.set(setups.get() + 1);
                    spin(20_000)
                },
                |x| spin(black_box(*x) % 2 + 200),
                BatchSize::Small,
            )
        })
        .unwrap();
    let plain = h
        .measure(id("plain"), None, |b| b.iter(|| spin(200)))
        .unwrap();
    let setup_only = h
        .measure(id("setup"), None, |b| b.iter(|| spin(20_000)))
        .unwrap();
    println!(
        "routine with setup: {:.0} ns; routine alone {:.0} ns; setup {:.0} ns; {} setups",
        m.summary.median,
        plain.summary.median,
        setup_only.summary.median,
        setups.get()
    );
    assert!(setups.get() > 20);
    assert!(
        m.summary.median < 3.0 * plain.summary.median + 50.0,
        "setup leaked into the timing"
    );
    assert!(m.summary.median * 10.0 < setup_only.summary.median);
}

#[test]
fn a_noisy_operation_is_flagged() {
    let _serial = serial();
    let settings = Settings {
        mode: Mode::SingleShot,
        iterations: 30,
        ..fast()
    };
    let h = Harness::new(settings);
    let k = Cell::new(0u64);
    // Alternates cheap and 50x dearer calls: no median can be trusted to 5%.
    let m = h
        .measure(id("noisy"), None, |b| {
            b.iter(|| {
                k.set(k.get() + 1);
                spin(if k.get().is_multiple_of(2) {
                    2_000
                } else {
                    100_000
                })
            })
        })
        .unwrap();
    println!("noisy: {:?}", m.warnings);
    assert!(
        m.warnings
            .iter()
            .any(|w| matches!(w, Warning::WideInterval { .. }))
    );
    // Warned of, but not set apart: the ranking compares its interval pair by pair.
    assert!(m.can_rank());
    let msg = m.warnings[0].to_string();
    assert!(!msg.is_empty());

    // A steady one is not.
    let steady = Harness::new(fast())
        .measure(id("steady"), None, |b| b.iter(|| spin(50_000)))
        .unwrap();
    println!("steady: {:?}", steady.warnings);
    assert!(
        !steady
            .warnings
            .iter()
            .any(|w| matches!(w, Warning::HarnessOverhead { .. })),
        "{:?}",
        steady.warnings
    );
}

#[test]
fn misuse_is_reported() {
    let _serial = serial();
    let h = Harness::new(fast());
    let e = h.measure(id("nothing"), None, |_| {}).unwrap_err();
    assert!(matches!(e, BenchError::NothingTimed(_)), "{e}");
    assert!(
        e.to_string().contains("benchmark test/nothing never"),
        "{e}"
    );
    let e = h
        .measure(id("twice"), None, |b| {
            b.iter(|| 1);
            b.iter(|| 2);
        })
        .unwrap_err();
    assert!(matches!(e, BenchError::TimedTwice(_)), "{e}");

    let mut suite = Suite::new();
    suite.add(id("same"), None, |b| b.iter(|| 1));
    suite.add(id("same"), None, |b| b.iter(|| 2));
    let e = suite.run(&h, &mut |_| {}).unwrap_err();
    assert!(matches!(e, BenchError::DuplicateId(_)), "{e}");
}

#[test]
fn a_suite_runs_in_order_and_reports_progress() {
    let _serial = serial();
    let h = Harness::new(fast());
    let mut suite = Suite::new();
    suite
        .add(id("a"), Some(8), |b| b.iter(|| spin(100)))
        .add(id("b"), Some(8), |b| b.iter(|| spin(300)));
    assert_eq!(suite.len(), 2);
    let mut events = Vec::new();
    let start = Instant::now();
    let ms = suite
        .run(&h, &mut |p| {
            events.push(match p {
                Progress::Started { index, total, .. } => format!("start {index}/{total}"),
                Progress::WarmUp { done, of } => format!("warm {done}/{of}"),
                Progress::Measuring { done, of } if done == of => format!("measured {of}"),
                Progress::Measuring { .. } => String::new(),
                Progress::Fork { done, of } => format!("fork {done}/{of}"),
                Progress::Finished {
                    index, measurement, ..
                } => {
                    format!("done {index} {}", measurement.id)
                }
            })
        })
        .unwrap();
    events.retain(|e| !e.is_empty());
    println!("suite of 2 in {:?}: {events:?}", start.elapsed());
    assert_eq!(
        events,
        [
            "start 0/2",
            "warm 1/1",
            "measured 20",
            "done 0 test/a",
            "start 1/2",
            "warm 1/1",
            "measured 20",
            "done 1 test/b"
        ]
    );
    assert_eq!(ms.len(), 2);
    assert!(ms[1].summary.median > ms[0].summary.median);
    assert_eq!(ms[0].id.key(), "test/a");
    assert_eq!(ms[0].timer, "thread-cpu");
}

#[test]
fn rounds_spread_each_benchmarks_samples_over_the_run() {
    let _serial = serial();
    let h = Harness::new(Settings {
        iterations: 7,
        rounds: 3,
        ..fast()
    });
    let calls = [Cell::new(0u32), Cell::new(0u32)];
    let mut suite = Suite::new();
    suite
        .add(id("a"), None, |b| {
            calls[0].set(calls[0].get() + 1);
            b.iter(|| spin(100))
        })
        .add(id("b"), None, |b| {
            calls[1].set(calls[1].get() + 1);
            b.iter(|| spin(300))
        })
        .add_with_settings(id("once"), None, fast(), |b| b.iter(|| spin(10)));
    // A progress total: 3 + 3 + 1 slices, not 3 per benchmark.
    assert_eq!(suite.planned_slices(&h), 7);
    let mut events = Vec::new();
    let ms = suite
        .run(&h, &mut |p| match p {
            Progress::Started { index, .. } => events.push(format!("start {index}")),
            Progress::Finished { index, .. } => events.push(format!("done {index}")),
            _ => {}
        })
        .unwrap();
    // Interleaved: every benchmark's first slice before any second slice; a benchmark
    // with its own one-round settings runs once, in the first pass.
    assert_eq!(
        events,
        [
            "start 0", "start 1", "start 2", "done 2", "start 0", "start 1", "start 0", "done 0",
            "start 1", "done 1"
        ]
    );
    let started = events.iter().filter(|e| e.starts_with("start")).count();
    assert_eq!(started, suite.planned_slices(&h));
    assert_eq!((calls[0].get(), calls[1].get()), (3, 3));
    // The slices' samples are pooled: 3 + 2 + 2 = 7, all at one batch size.
    assert_eq!(ms.len(), 3);
    for m in &ms[..2] {
        assert_eq!(m.samples.len(), 7, "{}", m.id);
        let batch = m.samples[0].iterations;
        assert!(m.samples.iter().all(|s| s.iterations == batch));
    }
    assert_eq!(ms[2].samples.len(), 20);
    assert!(ms[1].summary.median > ms[0].summary.median);
}

#[test]
fn ratios_between_measurements_are_called_only_outside_their_interval() {
    let _serial = serial();
    let validity = Harness::new(fast()).validity().clone();
    let synthetic = |name: &str, mean_ns: f64, seed: u64, validity: &Validity| {
        let mut rng = Rng::new(seed);
        let samples = (0..30)
            .map(|_| RawSample {
                fork: 0,
                iterations: 100,
                ns: (100.0 * (mean_ns + 0.01 * mean_ns * rng.normal())) as u64,
                ticks: None,
            })
            .collect();
        Measurement::from_samples(id(name), &fast(), validity, Some(64), 100, samples).unwrap()
    };
    let a = synthetic("a", 1000.0, 1, &validity);
    let a2 = synthetic("a2", 1000.0, 2, &validity);
    let slower = synthetic("slower", 1030.0, 3, &validity);
    let b = fast().bootstrap;
    let same = a.time_ratio(&a2, &b).unwrap();
    let diff = slower.time_ratio(&a, &b).unwrap();
    println!("same: {:?}\n3% slower: {:?}", same.interval, diff.interval);
    assert!(!same.is_significant(), "{:?}", same.interval);
    assert!(
        diff.is_significant() && diff.interval.low > 1.0,
        "{:?}",
        diff.interval
    );
    assert!(a.can_rank() && slower.can_rank(), "{:?}", a.warnings);
}

#[test]
fn only_few_samples_block_ranking() {
    let wide = Warning::WideInterval {
        relative_width: 0.2,
        limit: 0.05,
    };
    let few = Warning::FewSamples { n: 3 };
    let outliers = Warning::ManyOutliers { outliers: 3, n: 15 };
    assert!(few.blocks_ranking() && !wide.blocks_ranking());
    assert!(!outliers.blocks_ranking());
}

/// On the thread CPU clock, ticks per call follow the CPU time, not the raw counter:
/// samples during which the thread was preempted (the counter, a wall clock, ran on)
/// must not raise the figure even when they are the majority. On the wall clock the
/// raw counter's median stays.
#[test]
fn ticks_follow_the_cpu_time_on_the_thread_cpu_clock() {
    let _serial = serial();
    let cpu = Harness::new(fast()).validity().clone();
    assert_eq!(cpu.timer, "thread-cpu");
    // 1000 ns per call at 2.6 ticks/ns; 8 of 15 samples also waited, preempted, for
    // 0.8x their CPU time (the counter read 4.7 ticks per CPU nanosecond).
    let samples: Vec<RawSample> = (0..15)
        .map(|i| RawSample {
            fork: 0,
            iterations: 100,
            ns: 100_000,
            ticks: Some(if i % 2 == 0 { 470_000 } else { 260_000 }),
        })
        .collect();
    let m = Measurement::from_samples(id("cpu"), &fast(), &cpu, Some(100), 100, samples.clone())
        .unwrap();
    let t = m.ticks_per_op.unwrap();
    assert!((t - 2600.0).abs() < 1e-6, "{t}");
    assert!((m.ticks_per_byte.unwrap() - 26.0).abs() < 1e-9);
    let wall = Validity {
        timer: "wall-clock".into(),
        ..cpu
    };
    let m = Measurement::from_samples(id("wall"), &fast(), &wall, Some(100), 100, samples).unwrap();
    assert_eq!(m.ticks_per_op, Some(4700.0));
}
