//! The harness: JMH's method in Rust.
//!
//! A benchmark is a closure that does its setup, then hands the operation to a
//! [`Bencher`] once: [`Bencher::iter`] (a closure), [`Bencher::iter_on`] (a closure on a
//! piece of state, e.g. an initialised cipher and its buffer) or [`Bencher::iter_batched`]
//! (a fresh input per call, made outside the timed region, e.g. ciphertexts to decrypt).
//! The Bencher then runs the protocol of the [`Mode`]:
//!
//! 1. *calibration*: the batch (calls per sample) grows until one batch lasts
//!    [`Settings::sample_time`] and at least 1000x the timer's resolution;
//! 2. *warm-up*: [`Settings::warmup_iterations`] iterations of
//!    [`Settings::warmup_time`], results discarded (skipped in single-shot mode);
//! 3. *measurement*: [`Settings::iterations`] samples.
//!
//! The timed region holds only the loop over the operation: the clock reads, a counter,
//! and `std::hint::black_box` on each call's input and output so the compiler can
//! neither hoist nor drop the work. No allocation, I/O or progress reporting happens
//! inside it.
//!
//! [`Suite`] runs a list of benchmarks, in this process or each in
//! [`Settings::forks`] child processes (see [`fork`]), and reports [`Progress`] through
//! a callback. Every [`Measurement`] carries its raw samples, a
//! [`crate::stats::Summary`], bytes/s, TSC ticks/byte and validity [`Warning`]s; the
//! [`Harness`] measures [`Validity`] (timer resolution and overhead, the cost of an
//! empty operation) once, when it is made.
//!
//! ```
//! use cipherlab_bench::harness::{BenchId, Harness, Settings};
//! use std::time::Duration;
//!
//! let settings = Settings { iterations: 10, sample_time: Duration::from_millis(1),
//!                           warmup_time: Duration::from_millis(5), ..Settings::quick() };
//! let harness = Harness::new(settings);
//! let id = BenchId::new("example", "xor", "std", "encrypt", 1024, "dense");
//! let m = harness.measure(id, Some(1024), |b| {
//!     let mut buf = vec![0u8; 1024];                       // setup: not timed
//!     b.iter_on(&mut buf, |buf| buf.iter_mut().for_each(|x| *x ^= 0x5a));
//! })?;
//! assert_eq!(m.summary.n, 10);
//! assert!(m.bytes_per_second.unwrap() > 0.0);
//! # Ok::<(), cipherlab_bench::harness::BenchError>(())
//! ```
//!
//! A catalogue cipher, as a study times it: the key schedule and the buffer are set up
//! in the closure, and only `encrypt` runs in the timed region.
//!
//! ```
//! # use cipherlab_bench::harness::{BenchId, Harness, Settings};
//! # use std::time::Duration;
//! use cipherlab_ciphers::{CipherSpec, generate_iv, generate_key, providers};
//!
//! # let harness = Harness::new(Settings { iterations: 10, sample_time: Duration::from_millis(1),
//! #     warmup_time: Duration::from_millis(5), ..Settings::quick() });
//! let spec = CipherSpec::parse("aes-128-cbc")?;
//! let (key, iv, len) = (generate_key(&spec), generate_iv(&spec), 16 * 1024);
//! let id = BenchId::new("modes", "aes-128-cbc", "rustcrypto", "encrypt", len as u64, "dense");
//! let m = harness.measure(id, Some(len as u64), |b| {
//!     let cipher = providers::init(&spec, &key, None).expect("key schedule");
//!     let mut state = (cipher, vec![0u8; spec.output_len(len)]);
//!     b.iter_on(&mut state, |(cipher, buf)| cipher.encrypt(&iv, &[], buf, len));
//! })?;
//! println!("{:.2} ticks/byte", m.ticks_per_byte.unwrap_or(f64::NAN));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod fork;
mod result;
mod settings;
mod validity;

use std::hint::black_box;
use std::process::Command;
use std::time::Duration;

pub use result::{BenchId, Measurement, RawSample, Warning};
pub use settings::{Mode, Settings, Unit, UnknownMode};
pub use validity::Validity;

use crate::measure::{self, Timer, Tsc, WallClock};
use crate::stats::{self, StatsError};

/// Why a benchmark could not be measured.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// The benchmark closure returned without timing anything.
    #[error(
        "benchmark {0} never called Bencher::iter, iter_on or iter_batched: its closure must hand the operation to the Bencher once"
    )]
    NothingTimed(String),
    /// The benchmark's setup failed (its closure called [`Bencher::fail`]).
    #[error("benchmark {key} could not be set up: {reason}")]
    Setup {
        /// The benchmark.
        key: String,
        /// What went wrong, and what to do.
        reason: String,
    },
    /// The benchmark closure timed twice.
    #[error(
        "benchmark {0} called the Bencher twice: one benchmark times one operation; register a second benchmark for the second operation"
    )]
    TimedTwice(String),
    /// Two benchmarks in one suite have the same identifier.
    #[error(
        "two benchmarks are named {0}: identifiers must be unique in a suite (they name the benchmark a fork runs)"
    )]
    DuplicateId(String),
    /// The samples could not be summarized.
    #[error("benchmark {key}: {source}")]
    Stats {
        /// The benchmark.
        key: String,
        /// The statistics error.
        source: StatsError,
    },
    /// A fork child could not be started.
    #[error(
        "benchmark {key}: could not start fork process {program}: {source}; check that the program still exists and can be executed"
    )]
    ForkSpawn {
        /// The benchmark.
        key: String,
        /// The program.
        program: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A fork child failed.
    #[error(
        "benchmark {key}: fork process failed ({status}); its error output ends with:\n{stderr}\nrun without forks to see the failure directly"
    )]
    ForkFailed {
        /// The benchmark.
        key: String,
        /// Exit status.
        status: String,
        /// The tail of its standard error.
        stderr: String,
    },
    /// A fork child exited without printing its samples.
    #[error(
        "benchmark {key}: the fork process printed no result line; its output ends with:\n{stdout}\nthe child must build the same suite and call Suite::run, which serves the request in ${env}, before doing other work",
        env = fork::ENV_VAR
    )]
    ForkNoResult {
        /// The benchmark.
        key: String,
        /// The tail of its standard output.
        stdout: String,
    },
    /// A fork child's result line did not parse.
    #[error("benchmark {key}: the fork's result line is not valid: {reason}")]
    ForkBadResult {
        /// The benchmark.
        key: String,
        /// What was wrong.
        reason: String,
    },
    /// The fork request in the environment is malformed.
    #[error(
        "the environment variable {var} holds no valid fork request ({reason}); unset it: it is set only by the harness for its child processes",
        var = fork::ENV_VAR
    )]
    BadForkRequest {
        /// What was wrong.
        reason: String,
    },
    /// A fork child was asked for a benchmark its suite does not have.
    #[error(
        "this process was started as a fork for benchmark {0}, which its suite does not contain: the child must build the same suite as the parent (same program, same arguments)"
    )]
    ForkNotFound(String),
    /// The result line could not be written.
    #[error("could not write the fork result to standard output: {0}")]
    ForkEmit(std::io::Error),
}

/// What the harness is doing, for a progress bar. Sent between samples, never inside a
/// timed region.
#[derive(Debug, Clone, Copy)]
pub enum Progress<'a> {
    /// Benchmark `index` (0-based) of `total` starts.
    Started {
        /// Position in the suite.
        index: usize,
        /// Benchmarks in the suite.
        total: usize,
        /// Which one.
        id: &'a BenchId,
    },
    /// A warm-up iteration finished.
    WarmUp {
        /// Iterations done (1-based).
        done: u32,
        /// Warm-up iterations in all.
        of: u32,
    },
    /// Measured samples so far.
    Measuring {
        /// Samples done.
        done: u32,
        /// Samples planned (in sample mode, the minimum).
        of: u32,
    },
    /// A fork process finished.
    Fork {
        /// Forks done (1-based).
        done: u32,
        /// Forks in all.
        of: u32,
    },
    /// Benchmark `index` finished.
    Finished {
        /// Position in the suite.
        index: usize,
        /// Benchmarks in the suite.
        total: usize,
        /// Its result.
        measurement: &'a Measurement,
    },
}

/// The clocks read around a timed region.
struct Clocks<'a> {
    wall: &'a WallClock,
    counter: Option<&'a dyn Timer>,
}

impl Clocks<'_> {
    /// Times `n` calls of `call`: the only code inside the timed region is the loop.
    #[inline(always)]
    fn time<F: FnMut()>(&self, n: u64, mut call: F) -> (u64, Option<u64>) {
        match self.counter {
            Some(c) => {
                let t0 = c.now();
                let w0 = self.wall.now();
                for _ in 0..n {
                    call();
                }
                let w1 = self.wall.now();
                let t1 = c.now();
                (w1.saturating_sub(w0), Some(t1.saturating_sub(t0)))
            }
            None => {
                let w0 = self.wall.now();
                for _ in 0..n {
                    call();
                }
                let w1 = self.wall.now();
                (w1.saturating_sub(w0), None)
            }
        }
    }
}

/// Something that can be run `n` times in a timed region.
trait Routine {
    fn run(&mut self, clocks: &Clocks<'_>, n: u64) -> RawSample;
}

struct Plain<F>(F);

impl<O, F: FnMut() -> O> Routine for Plain<F> {
    #[inline(never)]
    fn run(&mut self, clocks: &Clocks<'_>, n: u64) -> RawSample {
        let f = &mut self.0;
        let (ns, ticks) = clocks.time(n, || {
            black_box(f());
        });
        RawSample {
            fork: 0,
            iterations: n,
            ns,
            ticks,
        }
    }
}

struct OnInput<'i, I, F> {
    input: &'i mut I,
    f: F,
}

impl<I, O, F: FnMut(&mut I) -> O> Routine for OnInput<'_, I, F> {
    #[inline(never)]
    fn run(&mut self, clocks: &Clocks<'_>, n: u64) -> RawSample {
        let (input, f) = (&mut *self.input, &mut self.f);
        let (ns, ticks) = clocks.time(n, || {
            black_box(f(black_box(&mut *input)));
        });
        RawSample {
            fork: 0,
            iterations: n,
            ns,
            ticks,
        }
    }
}

struct Batched<S, R> {
    setup: S,
    routine: R,
    max_inputs: u64,
}

impl<I, O, S: FnMut() -> I, R: FnMut(&mut I) -> O> Routine for Batched<S, R> {
    #[inline(never)]
    fn run(&mut self, clocks: &Clocks<'_>, n: u64) -> RawSample {
        let mut total = RawSample {
            fork: 0,
            iterations: n,
            ns: 0,
            ticks: clocks.counter.map(|_| 0),
        };
        let mut left = n;
        let mut inputs: Vec<I> = Vec::new();
        while left > 0 {
            let k = left.min(self.max_inputs.max(1));
            // Setup: outside the timed region.
            inputs.clear();
            inputs.extend((0..k).map(|_| (self.setup)()));
            let routine = &mut self.routine;
            let mut it = inputs.iter_mut();
            let (ns, ticks) = clocks.time(k, || {
                if let Some(input) = it.next() {
                    black_box(routine(black_box(input)));
                }
            });
            // Teardown (drop of the inputs and outputs): outside too.
            drop(it);
            inputs.clear();
            total.ns += ns;
            total.ticks = total.ticks.zip(ticks).map(|(a, b)| a + b);
            left -= k;
        }
        total
    }
}

/// How many fresh inputs [`Bencher::iter_batched`] keeps in memory at once (as in
/// criterion.rs). Each group of inputs is made, then timed, then dropped; a sample sums
/// its groups.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BatchSize {
    /// Small inputs (up to a few KiB): up to 1000 at once.
    Small,
    /// Large inputs (up to a few MiB): up to 10 at once.
    Large,
    /// Each call's input is made and dropped alone (huge inputs).
    PerIteration,
    /// Up to this many at once.
    Inputs(u64),
}

impl BatchSize {
    fn max_inputs(self) -> u64 {
        match self {
            BatchSize::Small => 1000,
            BatchSize::Large => 10,
            BatchSize::PerIteration => 1,
            BatchSize::Inputs(n) => n.max(1),
        }
    }
}

/// Runs the protocol for the one operation a benchmark closure hands it.
pub struct Bencher<'a> {
    clocks: Clocks<'a>,
    settings: &'a Settings,
    resolution_ns: u64,
    progress: &'a mut dyn FnMut(Progress<'_>),
    outcome: Option<(u64, Vec<RawSample>)>,
    timed_twice: bool,
    failure: Option<String>,
}

impl Bencher<'_> {
    /// Reports that the benchmark's setup failed (an input could not be read, a key
    /// schedule refused the key): the benchmark ends with [`BenchError::Setup`] instead
    /// of a measurement. Call it instead of timing anything.
    pub fn fail(&mut self, reason: impl Into<String>) {
        self.failure.get_or_insert_with(|| reason.into());
    }

    /// Times `f()`; its output goes through `black_box`. Captured inputs should be read
    /// through `black_box` by `f`, or use [`Bencher::iter_on`].
    pub fn iter<O, F: FnMut() -> O>(&mut self, f: F) {
        self.protocol(&mut Plain(f));
    }

    /// Times `f(input)` on the same state each call, both through `black_box`: the way
    /// to time an initialised cipher encrypting its buffer in place.
    pub fn iter_on<I, O, F: FnMut(&mut I) -> O>(&mut self, input: &mut I, f: F) {
        self.protocol(&mut OnInput { input, f });
    }

    /// Times `routine(input)` on a fresh `setup()` input per call; setup and dropping
    /// happen outside the timed region, in groups of `size`.
    pub fn iter_batched<I, O, S, R>(&mut self, setup: S, routine: R, size: BatchSize)
    where
        S: FnMut() -> I,
        R: FnMut(&mut I) -> O,
    {
        self.protocol(&mut Batched {
            setup,
            routine,
            max_inputs: size.max_inputs(),
        });
    }

    fn protocol(&mut self, r: &mut impl Routine) {
        if self.outcome.is_some() {
            self.timed_twice = true;
            return;
        }
        let outcome = run_protocol(
            r,
            &self.clocks,
            self.settings,
            self.resolution_ns,
            &mut *self.progress,
        );
        self.outcome = Some(outcome);
    }
}

fn duration_ns(d: Duration) -> u64 {
    d.as_nanos().min(u128::from(u64::MAX)) as u64
}

/// Calibration, warm-up and measurement; returns the batch and the samples.
fn run_protocol(
    r: &mut impl Routine,
    clocks: &Clocks<'_>,
    s: &Settings,
    resolution_ns: u64,
    progress: &mut dyn FnMut(Progress<'_>),
) -> (u64, Vec<RawSample>) {
    let iterations = s.iterations.max(1);
    if s.mode == Mode::SingleShot {
        let mut samples = Vec::with_capacity(iterations as usize);
        for i in 0..iterations {
            samples.push(r.run(clocks, 1));
            progress(Progress::Measuring {
                done: i + 1,
                of: iterations,
            });
        }
        return (1, samples);
    }

    // Calibration: grow the batch until a batch lasts the target sample time.
    let target = duration_ns(s.sample_time).max(1000 * resolution_ns).max(1);
    let mut n = s.batch.unwrap_or(1).max(1);
    let mut per_op = r.run(clocks, n).ns_per_op();
    if s.batch.is_none() {
        const MAX_BATCH: u64 = 1 << 40;
        while (per_op * n as f64) < target as f64 && n < MAX_BATCH {
            let want = (target as f64 / per_op.max(0.01)).ceil() as u64;
            n = want
                .clamp(n.saturating_mul(2), n.saturating_mul(16))
                .min(MAX_BATCH);
            per_op = r.run(clocks, n).ns_per_op();
        }
    }

    // Warm-up: whole iterations of warmup_time, at the calibrated batch.
    let mut warm = Vec::new();
    let warmup_ns = duration_ns(s.warmup_time);
    for i in 0..s.warmup_iterations {
        let start = clocks.wall.now();
        loop {
            warm.push(r.run(clocks, n).ns_per_op());
            if clocks.wall.now().saturating_sub(start) >= warmup_ns {
                break;
            }
        }
        progress(Progress::WarmUp {
            done: i + 1,
            of: s.warmup_iterations,
        });
    }
    // The fastest warm batch estimates the undisturbed cost: batches sized from it
    // reach the sample time even when other programs slowed some warm-up batches.
    if let Some(fastest) = warm.into_iter().reduce(f64::min) {
        per_op = per_op.min(fastest);
    }
    let batch = match s.batch {
        Some(b) => b.max(1),
        None => ((target as f64 / per_op.max(0.01)).ceil() as u64).clamp(1, 1 << 40),
    };

    if s.mode == Mode::Sample {
        let deadline = clocks
            .wall
            .now()
            .saturating_add(duration_ns(s.sample_time).saturating_mul(u64::from(iterations)));
        let max_calls = s.max_sample_calls.max(iterations);
        let mut samples = Vec::with_capacity(iterations as usize);
        let step = (iterations / 100).max(1);
        let mut done = 0u32;
        while done < iterations || (done < max_calls && clocks.wall.now() < deadline) {
            samples.push(r.run(clocks, 1));
            done += 1;
            if done.is_multiple_of(step) {
                progress(Progress::Measuring {
                    done,
                    of: iterations,
                });
            }
        }
        return (1, samples);
    }

    let mut samples = Vec::with_capacity(iterations as usize);
    for i in 0..iterations {
        samples.push(r.run(clocks, batch));
        progress(Progress::Measuring {
            done: i + 1,
            of: iterations,
        });
    }
    (batch, samples)
}

/// Measures benchmarks with one set of [`Settings`] and one set of clocks.
pub struct Harness {
    settings: Settings,
    wall: WallClock,
    counter: Option<Box<dyn Timer>>,
    validity: Validity,
}

impl Harness {
    /// A harness with the wall clock and, where the CPU has one, the TSC; measures the
    /// [`Validity`] figures (a few tens of milliseconds).
    pub fn new(settings: Settings) -> Harness {
        let tsc = Tsc::detect();
        let invariant = tsc.map(|t| t.is_invariant());
        let counter = tsc.map(|t| Box::new(t) as Box<dyn Timer>);
        let mut h = Harness::with_counter(settings, counter);
        h.validity.counter_invariant = invariant;
        h
    }

    /// A harness reading `counter` (any [`Timer`]) beside the wall clock, or none.
    pub fn with_counter(settings: Settings, counter: Option<Box<dyn Timer>>) -> Harness {
        let wall = WallClock::new();
        let validity = measure_validity(&wall, counter.as_deref());
        Harness {
            settings,
            wall,
            counter,
            validity,
        }
    }

    /// The settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The timer and harness figures measured when the harness was made.
    pub fn validity(&self) -> &Validity {
        &self.validity
    }

    fn clocks(&self) -> Clocks<'_> {
        Clocks {
            wall: &self.wall,
            counter: self.counter.as_deref(),
        }
    }

    /// Measures `bench` in this process (whatever [`Settings::forks`] says: forks need a
    /// [`Suite`], which a child process can rebuild).
    pub fn measure<F>(
        &self,
        id: BenchId,
        bytes_per_op: Option<u64>,
        bench: F,
    ) -> Result<Measurement, BenchError>
    where
        F: FnOnce(&mut Bencher<'_>),
    {
        self.measure_with_progress(id, bytes_per_op, &mut |_| {}, bench)
    }

    /// [`Harness::measure`], reporting [`Progress`] (as benchmark 0 of 1).
    pub fn measure_with_progress<F>(
        &self,
        id: BenchId,
        bytes_per_op: Option<u64>,
        progress: &mut dyn FnMut(Progress<'_>),
        bench: F,
    ) -> Result<Measurement, BenchError>
    where
        F: FnOnce(&mut Bencher<'_>),
    {
        progress(Progress::Started {
            index: 0,
            total: 1,
            id: &id,
        });
        let (batch, samples) = self.samples(&id, &self.settings, progress, bench)?;
        let m = self.summarize(id, &self.settings, bytes_per_op, batch, samples)?;
        progress(Progress::Finished {
            index: 0,
            total: 1,
            measurement: &m,
        });
        Ok(m)
    }

    /// Runs `bench` and returns its batch and raw samples.
    fn samples<F>(
        &self,
        id: &BenchId,
        settings: &Settings,
        progress: &mut dyn FnMut(Progress<'_>),
        bench: F,
    ) -> Result<(u64, Vec<RawSample>), BenchError>
    where
        F: FnOnce(&mut Bencher<'_>),
    {
        let mut b = Bencher {
            clocks: self.clocks(),
            settings,
            resolution_ns: self.validity.resolution_ns,
            progress,
            outcome: None,
            timed_twice: false,
            failure: None,
        };
        bench(&mut b);
        if let Some(reason) = b.failure {
            return Err(BenchError::Setup {
                key: id.key(),
                reason,
            });
        }
        if b.timed_twice {
            return Err(BenchError::TimedTwice(id.key()));
        }
        b.outcome.ok_or_else(|| BenchError::NothingTimed(id.key()))
    }

    fn summarize(
        &self,
        id: BenchId,
        settings: &Settings,
        bytes_per_op: Option<u64>,
        batch: u64,
        samples: Vec<RawSample>,
    ) -> Result<Measurement, BenchError> {
        let key = id.key();
        Measurement::from_samples(id, settings, &self.validity, bytes_per_op, batch, samples)
            .map_err(|source| BenchError::Stats { key, source })
    }
}

/// Measures the timer and the harness's floor.
fn measure_validity(wall: &WallClock, counter: Option<&dyn Timer>) -> Validity {
    let resolution_ns = measure::resolution(wall, 200);
    let timer_overhead_ns = measure::read_overhead(wall, 20_000);
    let counter_resolution = counter.map(|c| measure::resolution(c, 200));
    let counter_ticks_per_ns = counter.map(|c| {
        // Spin ~5 ms between two reads of both clocks.
        let (w0, t0) = (wall.now(), c.now());
        while wall.now().saturating_sub(w0) < 5_000_000 {
            std::hint::spin_loop();
        }
        let (w1, t1) = (wall.now(), c.now());
        t1.saturating_sub(t0) as f64 / w1.saturating_sub(w0).max(1) as f64
    });
    let clocks = Clocks { wall, counter };
    let probe = Settings {
        mode: Mode::AverageTime,
        warmup_iterations: 1,
        warmup_time: Duration::from_millis(2),
        iterations: 11,
        sample_time: Duration::from_micros(200),
        ..Settings::default()
    };
    let median_of = |samples: &[RawSample]| {
        stats::Sample::new(samples.iter().map(RawSample::ns_per_op).collect())
            .map(|s| s.median())
            .unwrap_or(0.0)
    };
    let (_, batched) = run_protocol(
        &mut Plain(|| ()),
        &clocks,
        &probe,
        resolution_ns,
        &mut |_| {},
    );
    let single = Settings {
        mode: Mode::Sample,
        iterations: 1001,
        max_sample_calls: 1001,
        ..probe
    };
    let (_, calls) = run_protocol(
        &mut Plain(|| ()),
        &clocks,
        &single,
        resolution_ns,
        &mut |_| {},
    );
    Validity {
        timer: wall.name().to_string(),
        resolution_ns,
        timer_overhead_ns,
        counter: counter.map(|c| c.name().to_string()),
        counter_resolution,
        counter_invariant: None,
        counter_ticks_per_ns,
        empty_op_ns: median_of(&batched),
        empty_call_ns: median_of(&calls),
    }
}

/// The settings of slice `round` of `rounds`: its share of the samples; after the
/// first slice, the first slice's batch (so all samples time the same number of calls)
/// and a short warm-up (the code is warm, the caches may not be).
fn slice_settings(whole: &Settings, round: u32, rounds: u32, first_batch: u64) -> Settings {
    if rounds <= 1 {
        return whole.clone();
    }
    let share = whole.iterations / rounds + u32::from(round < whole.iterations % rounds);
    let mut s = Settings {
        iterations: share.max(1),
        rounds: 1,
        ..whole.clone()
    };
    if round > 0 {
        if whole.batch.is_none() && first_batch > 0 {
            s.batch = Some(first_batch);
        }
        s.warmup_iterations = whole.warmup_iterations.min(1);
        s.warmup_time = whole.warmup_time / 4;
    }
    s
}

type BenchFn<'a> = Box<dyn FnMut(&mut Bencher<'_>) + 'a>;

struct Entry<'a> {
    id: BenchId,
    bytes_per_op: Option<u64>,
    /// Settings for this benchmark alone (e.g. single-shot for RSA key generation);
    /// `None`: the harness's.
    settings: Option<Settings>,
    bench: BenchFn<'a>,
}

/// A list of benchmarks, run in this process or each in forks.
///
/// With [`Settings::forks`] `= N > 0`, [`Suite::run`] starts, per benchmark, N child
/// processes of the current program (same arguments, see [`fork`]) with the benchmark's
/// key in the environment. The child builds the same suite and calls [`Suite::run`],
/// which in a child runs only the requested benchmark, prints its samples as one JSON
/// line on standard output and exits. So a program must build its suite and call `run`
/// before it does anything a child should not do (write files, print reports).
#[derive(Default)]
pub struct Suite<'a> {
    entries: Vec<Entry<'a>>,
    command: Option<Box<dyn Fn() -> std::io::Result<Command> + 'a>>,
}

impl<'a> Suite<'a> {
    /// An empty suite.
    pub fn new() -> Suite<'a> {
        Suite::default()
    }

    /// Adds a benchmark; `bytes_per_op` enables bytes/s and ticks/byte.
    pub fn add<F>(&mut self, id: BenchId, bytes_per_op: Option<u64>, bench: F) -> &mut Suite<'a>
    where
        F: FnMut(&mut Bencher<'_>) + 'a,
    {
        self.entries.push(Entry {
            id,
            bytes_per_op,
            settings: None,
            bench: Box::new(bench),
        });
        self
    }

    /// Adds a benchmark measured with its own `settings` (mode, samples, forks) instead
    /// of the harness's: a study can time RSA key generation single-shot beside
    /// average-time AES. The validity figures stay the harness's.
    pub fn add_with_settings<F>(
        &mut self,
        id: BenchId,
        bytes_per_op: Option<u64>,
        settings: Settings,
        bench: F,
    ) -> &mut Suite<'a>
    where
        F: FnMut(&mut Bencher<'_>) + 'a,
    {
        self.add(id, bytes_per_op, bench);
        if let Some(e) = self.entries.last_mut() {
            e.settings = Some(settings);
        }
        self
    }

    /// Uses `command` to start fork children instead of [`fork::current_command`] (the
    /// current program with its arguments). The harness adds the request to the
    /// environment and captures standard output.
    pub fn fork_command<C>(&mut self, command: C) -> &mut Suite<'a>
    where
        C: Fn() -> std::io::Result<Command> + 'a,
    {
        self.command = Some(Box::new(command));
        self
    }

    /// The benchmarks' identifiers, in order.
    pub fn ids(&self) -> impl Iterator<Item = &BenchId> {
        self.entries.iter().map(|e| &e.id)
    }

    /// Number of benchmarks.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the suite is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Runs every benchmark in order and returns their measurements.
    ///
    /// In a fork child (the environment holds a [`fork::ForkRequest`]), runs only the
    /// requested benchmark, prints its samples and exits the process; it returns only on
    /// error.
    pub fn run(
        &mut self,
        harness: &Harness,
        progress: &mut dyn FnMut(Progress<'_>),
    ) -> Result<Vec<Measurement>, BenchError> {
        let mut keys: Vec<String> = self.entries.iter().map(|e| e.id.key()).collect();
        keys.sort();
        if let Some(w) = keys.windows(2).find(|w| w[0] == w[1]) {
            return Err(BenchError::DuplicateId(w[0].clone()));
        }
        if let Some(request) = fork::ForkRequest::from_env()? {
            return Err(self.serve(harness, &request));
        }
        let total = self.entries.len();
        let settings: Vec<Settings> = self
            .entries
            .iter()
            .map(|e| {
                e.settings
                    .clone()
                    .unwrap_or_else(|| harness.settings.clone())
            })
            .collect();
        // Forked benchmarks run whole in round 0; the others in `rounds` slices.
        let rounds_of = |s: &Settings| if s.forks > 0 { 1 } else { s.rounds.max(1) };
        let passes = settings.iter().map(rounds_of).max().unwrap_or(1);
        let mut pooled: Vec<(u64, Vec<RawSample>)> = vec![(0, Vec::new()); total];
        let mut out: Vec<Option<Measurement>> = (0..total).map(|_| None).collect();
        for round in 0..passes {
            for index in 0..total {
                let rounds = rounds_of(&settings[index]);
                if round >= rounds {
                    continue;
                }
                let entry = &mut self.entries[index];
                progress(Progress::Started {
                    index,
                    total,
                    id: &entry.id,
                });
                let whole = &settings[index];
                let (batch, samples) = if whole.forks > 0 {
                    self.command_forks(index, whole, progress)?
                } else {
                    let slice = slice_settings(whole, round, rounds, pooled[index].0);
                    harness.samples(&entry.id, &slice, progress, &mut entry.bench)?
                };
                let acc = &mut pooled[index];
                acc.0 = acc.0.max(batch);
                acc.1.extend(samples);
                if round + 1 < rounds {
                    continue;
                }
                let entry = &self.entries[index];
                let (batch, samples) = std::mem::take(&mut pooled[index]);
                let m = harness.summarize(
                    entry.id.clone(),
                    whole,
                    entry.bytes_per_op,
                    batch,
                    samples,
                )?;
                progress(Progress::Finished {
                    index,
                    total,
                    measurement: &m,
                });
                out[index] = Some(m);
            }
        }
        Ok(out.into_iter().flatten().collect())
    }

    /// Runs entry `index` in its forks and pools their samples.
    fn command_forks(
        &self,
        index: usize,
        settings: &Settings,
        progress: &mut dyn FnMut(Progress<'_>),
    ) -> Result<(u64, Vec<RawSample>), BenchError> {
        let entry = &self.entries[index];
        let forks = settings.forks;
        let mut samples = Vec::new();
        let mut batch = 0;
        for k in 1..=forks {
            let command = match &self.command {
                Some(c) => c(),
                None => fork::current_command(),
            };
            let request = fork::ForkRequest {
                key: entry.id.key(),
                fork: k,
                settings: Settings {
                    forks: 0,
                    rounds: 1,
                    ..settings.clone()
                },
            };
            let output = fork::run_child(command, &request)?;
            batch = batch.max(output.batch);
            samples.extend(output.samples);
            progress(Progress::Fork { done: k, of: forks });
        }
        Ok((batch, samples))
    }

    /// Serves a fork request: runs the benchmark, prints the result line and exits; on
    /// error returns it.
    fn serve(&mut self, harness: &Harness, request: &fork::ForkRequest) -> BenchError {
        let Some(entry) = self.entries.iter_mut().find(|e| e.id.key() == request.key) else {
            return BenchError::ForkNotFound(request.key.clone());
        };
        let settings = Settings {
            forks: 0,
            ..request.settings.clone()
        };
        match harness.samples(&entry.id, &settings, &mut |_| {}, &mut entry.bench) {
            Ok((batch, mut samples)) => {
                for s in &mut samples {
                    s.fork = request.fork;
                }
                let output = fork::ForkOutput {
                    key: request.key.clone(),
                    fork: request.fork,
                    pid: std::process::id(),
                    batch,
                    samples,
                };
                match output.emit() {
                    Ok(()) => std::process::exit(0),
                    Err(e) => BenchError::ForkEmit(e),
                }
            }
            Err(e) => e,
        }
    }
}
