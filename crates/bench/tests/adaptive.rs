//! Adaptive rounds on a deterministic clock: a benchmark's "time" is what its closure
//! adds to a virtual counter (plus the little real time that passes), so the samples are
//! known in advance and the test cannot be flaky. Figures whose intervals overlap a
//! neighbour get extra slices until they separate; a clear order gets none.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use cipherlab_harness::timer::{CounterUnit, Timer, WallClock};
use cipherlab_harness::{Extra, ExtraReport, Harness, Settings};
use cipherlab_results::id::{BenchId, Measurement, Phase, Subject, Suite};
use cipherlab_results::ranking;

/// Real nanoseconds plus the virtual ones the benchmarks add.
struct Virtual {
    wall: WallClock,
    extra: Arc<AtomicU64>,
}

impl Timer for Virtual {
    fn name(&self) -> &'static str {
        "virtual"
    }
    fn unit(&self) -> CounterUnit {
        CounterUnit::Nanoseconds
    }
    fn now(&self) -> u64 {
        self.wall.now() + self.extra.load(Ordering::Relaxed)
    }
}

/// One call per sample, ten samples in two rounds, almost no warm-up.
fn settings() -> Settings {
    Settings {
        iterations: 10,
        rounds: 2,
        batch: Some(1),
        warmup_iterations: 1,
        warmup_time: Duration::from_micros(1),
        ..Settings::quick()
    }
}

/// A benchmark whose calls cost `ns` virtual nanoseconds times (1 +/- `spread`), the
/// factors drawn from a fixed sequence.
fn add(suite: &mut Suite<'_>, clock: &Arc<AtomicU64>, alg: &str, ns: u64, spread: f64, seed: u64) {
    let clock = Arc::clone(clock);
    let id = BenchId::new("t", Subject::named(alg), "x", Phase::Encrypt, 1024, "bmp");
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    suite.add(id, Some(1024), move |b| {
        b.iter(|| {
            // xorshift: a fixed sequence per benchmark.
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let u = (state >> 11) as f64 / (1u64 << 53) as f64; // [0, 1)
            let cost = ns as f64 * (1.0 + spread * (2.0 * u - 1.0));
            clock.fetch_add(cost as u64, Ordering::Relaxed);
        });
    });
}

fn harness(clock: &Arc<AtomicU64>) -> Harness {
    let fake = Virtual {
        wall: WallClock::new(),
        extra: Arc::clone(clock),
    };
    Harness::with_timers(settings(), Some(Box::new(fake)), None)
}

fn extra(budget: Duration, max_rounds: u32) -> Extra<'static, BenchId> {
    Extra {
        budget,
        max_rounds,
        run_limit: None,
        undecided: &ranking::undecided,
    }
}

/// A benchmark: its name, virtual nanoseconds per call, and spread (see [`add`]).
type Bench = (&'static str, u64, f64);

const A: Bench = ("a", 1_000_000, 0.02);
/// 15% slower than `A`, but each call anywhere in +/-60%: ten samples cannot order them.
const B: Bench = ("b", 1_150_000, 0.60);
const C: Bench = ("c", 5_000_000, 0.02);

/// `benches` on a fresh virtual clock (the n-th with seed n + 1), run adaptively.
fn run(benches: &[Bench], extra: &Extra<'_, BenchId>) -> (Vec<Measurement>, ExtraReport) {
    let clock = Arc::new(AtomicU64::new(0));
    let mut suite = Suite::new();
    for (seed, &(alg, ns, spread)) in (1..).zip(benches) {
        add(&mut suite, &clock, alg, ns, spread, seed);
    }
    suite
        .run_adaptive(&harness(&clock), &mut |_| {}, extra)
        .unwrap()
}

#[test]
fn a_clear_order_stops_after_the_planned_rounds() {
    let (ms, report) = run(
        &[A, ("b", 3_000_000, 0.02)],
        &extra(Duration::from_secs(10), 20),
    );
    assert_eq!(ms[0].timer, "virtual");
    assert_eq!((report.slices, report.passes, report.undecided), (0, 0, 0));
    assert!(ms.iter().all(|m| m.summary.n == 10));
}

#[test]
fn an_overlap_gets_extra_rounds_until_it_separates() {
    let (planned, _) = run(&[A, B, C], &extra(Duration::ZERO, 0));
    assert_eq!(
        ranking::undecided(&planned),
        vec![0, 1],
        "the test's premise"
    );

    let (ms, report) = run(&[A, B, C], &extra(Duration::from_secs(30), 40));
    assert!(report.slices > 0 && report.passes > 0, "{report:?}");
    assert!(!report.budget_spent, "{report:?}");
    assert_eq!(report.undecided, 0, "{report:?}");
    assert!(ranking::undecided(&ms).is_empty());
    assert!(
        ms[1].summary.n > 10,
        "b got more samples: {}",
        ms[1].summary.n
    );
    // c was ordered against both from the start: no extra samples.
    assert_eq!(ms[2].summary.n, 10);
    let r = ranking::rank(ms.iter().collect(), "t".into());
    let order: Vec<(usize, &str)> = r
        .ranked
        .iter()
        .map(|(k, m)| (*k, m.id.algorithm.name()))
        .collect();
    assert_eq!(order, vec![(1, "a"), (2, "b"), (3, "c")]);
}

#[test]
fn the_budget_and_the_round_limit_bound_the_extra_rounds() {
    let (_, report) = run(&[A, B], &extra(Duration::ZERO, 40));
    assert!(report.budget_spent && report.slices == 0, "{report:?}");

    let (ms, report) = run(&[A, B], &extra(Duration::from_secs(30), 1));
    assert_eq!((report.slices, report.passes), (2, 1), "{report:?}");
    assert!(ms.iter().all(|m| m.summary.n == 15));

    // A run limit already reached leaves no time for extra slices.
    let limited = Extra {
        run_limit: Some(Duration::ZERO),
        ..extra(Duration::from_secs(30), 40)
    };
    let (_, report) = run(&[A, B], &limited);
    assert!(report.budget_spent && report.slices == 0, "{report:?}");
}
