//! The bencher protocol: JMH's method in Rust.
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
//! The [`Harness`] holds the settings and the clocks, measures the [`Validity`] figures
//! once, when it is made, and measures one benchmark in this process
//! ([`Harness::measure`]); a [`crate::Suite`] runs many, in rounds or in forks.
//!
//! A catalogue cipher, as a study times it: the key schedule and the buffer are set up
//! in the closure, and only `encrypt` runs in the timed region.
//!
//! ```
//! use cipherlab_harness::{Harness, Settings};
//! use std::time::Duration;
//!
//! let harness = Harness::new(Settings { iterations: 10, sample_time: Duration::from_millis(1),
//!     warmup_time: Duration::from_millis(5), ..Settings::quick() });
//! let m = harness.measure("sum/4096".to_string(), Some(4096), |b| {
//!     let data: Vec<u64> = (0..512).collect();             // setup: not timed
//!     b.iter(|| std::hint::black_box(&data).iter().sum::<u64>());
//! })?;
//! println!("{:.2} ticks/byte", m.ticks_per_byte.unwrap_or(f64::NAN));
//! # Ok::<(), cipherlab_harness::BenchError>(())
//! ```

use std::hint::black_box;
use std::time::Duration;

use crate::error::BenchError;
use crate::measurement::{Identity, Measurement, RawSample};
use crate::settings::{Clock, Mode, Settings};
use crate::suite::Progress;
use crate::timer::{ProcessCpuTime, ThreadCpuTime, Timer, Tsc, WallClock};
use crate::validity::{self, Validity};

/// Where the protocol is, for a progress bar: sent between samples, never inside a
/// timed region. [`crate::Suite`] passes them on as [`crate::Progress`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
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
}

/// The clocks read around a timed region.
pub(crate) struct Clocks<'a> {
    /// Real time: the deadlines of warm-up and sample mode.
    pub(crate) wall: &'a WallClock,
    /// What a sample's nanoseconds are read from ([`Settings::clock`]).
    pub(crate) main: &'a dyn Timer,
    /// The counter read beside it (the TSC), if any.
    pub(crate) counter: Option<&'a dyn Timer>,
}

impl Clocks<'_> {
    /// Times `n` calls of `call`: the only code inside the timed region is the loop.
    #[inline(always)]
    pub(crate) fn time<F: FnMut()>(&self, n: u64, mut call: F) -> (u64, Option<u64>) {
        match self.counter {
            Some(c) => {
                let t0 = c.now();
                let m0 = self.main.now();
                for _ in 0..n {
                    call();
                }
                let m1 = self.main.now();
                let t1 = c.now();
                (m1.saturating_sub(m0), Some(t1.saturating_sub(t0)))
            }
            None => {
                let m0 = self.main.now();
                for _ in 0..n {
                    call();
                }
                let m1 = self.main.now();
                (m1.saturating_sub(m0), None)
            }
        }
    }
}

/// Something that can be run `n` times in a timed region.
pub(crate) trait Routine {
    fn run(&mut self, clocks: &Clocks<'_>, n: u64) -> RawSample;
}

pub(crate) struct Plain<F>(pub(crate) F);

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
    progress: &'a mut dyn FnMut(Step),
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
pub(crate) fn run_protocol(
    r: &mut impl Routine,
    clocks: &Clocks<'_>,
    s: &Settings,
    resolution_ns: u64,
    progress: &mut dyn FnMut(Step),
) -> (u64, Vec<RawSample>) {
    let iterations = s.iterations.max(1);
    if s.mode == Mode::SingleShot {
        let mut samples = Vec::with_capacity(iterations as usize);
        for i in 0..iterations {
            samples.push(r.run(clocks, 1));
            progress(Step::Measuring {
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
        progress(Step::WarmUp {
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
                progress(Step::Measuring {
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
        progress(Step::Measuring {
            done: i + 1,
            of: iterations,
        });
    }
    (batch, samples)
}

/// Measures benchmarks with one set of [`Settings`] and one set of clocks: the wall
/// clock, the thread's CPU time where the platform has it, and the TSC beside either.
pub struct Harness {
    settings: Settings,
    wall: WallClock,
    /// The wall clock's validity figures.
    wall_validity: Validity,
    /// The per-call clock ([`Clock::ThreadCpu`]) and its validity figures; `None` where
    /// the platform has none (the wall clock stands in).
    cpu: Option<(Box<dyn Timer>, Validity)>,
    /// The process's CPU time ([`Clock::ProcessCpu`]) and its validity figures; `None`
    /// where the platform has none (the wall clock stands in).
    process: Option<(Box<dyn Timer>, Validity)>,
    counter: Option<Box<dyn Timer>>,
}

impl Harness {
    /// A harness with the wall clock, the thread's CPU time and, where the CPU has one,
    /// the TSC; measures the [`Validity`] figures of both clocks (a few tens of
    /// milliseconds).
    pub fn new(settings: Settings) -> Harness {
        let tsc = Tsc::detect();
        let invariant = tsc.map(|t| t.is_invariant());
        let counter = tsc.map(|t| Box::new(t) as Box<dyn Timer>);
        let mut h = Harness::with_counter(settings, counter);
        h.wall_validity.counter_invariant = invariant;
        for (_, v) in h.cpu.iter_mut().chain(h.process.iter_mut()) {
            v.counter_invariant = invariant;
        }
        h
    }

    /// A harness reading `counter` (any [`Timer`]) beside the wall clock and the
    /// thread's CPU time, or none.
    pub fn with_counter(settings: Settings, counter: Option<Box<dyn Timer>>) -> Harness {
        let cpu = ThreadCpuTime::detect().map(|c| Box::new(c) as Box<dyn Timer>);
        Harness::with_timers(settings, cpu, counter)
    }

    /// A harness whose [`Clock::ThreadCpu`] benchmarks read `per_call` instead of the
    /// thread's CPU time (`None`: the wall clock): how a test drives the protocol with a
    /// deterministic clock.
    pub fn with_timers(
        settings: Settings,
        per_call: Option<Box<dyn Timer>>,
        counter: Option<Box<dyn Timer>>,
    ) -> Harness {
        let wall = WallClock::new();
        let wall_validity = validity::measure(&wall, &wall, counter.as_deref());
        let with_validity = |c: Box<dyn Timer>| {
            let v = validity::measure(&wall, c.as_ref(), counter.as_deref());
            (c, v)
        };
        let cpu = per_call.map(with_validity);
        let process =
            ProcessCpuTime::detect().map(|c| with_validity(Box::new(c) as Box<dyn Timer>));
        Harness {
            settings,
            wall,
            wall_validity,
            cpu,
            process,
            counter,
        }
    }

    /// The settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The timer and harness figures of the settings' clock, measured when the harness
    /// was made.
    pub fn validity(&self) -> &Validity {
        self.validity_of(self.settings.clock)
    }

    /// The timer and harness figures of `clock` (the wall clock's where `clock` is not
    /// available here).
    pub fn validity_of(&self, clock: Clock) -> &Validity {
        match (clock, &self.cpu, &self.process) {
            (Clock::ThreadCpu, Some((_, v)), _) | (Clock::ProcessCpu, _, Some((_, v))) => v,
            _ => &self.wall_validity,
        }
    }

    fn clocks(&self, clock: Clock) -> Clocks<'_> {
        let main: &dyn Timer = match (clock, &self.cpu, &self.process) {
            (Clock::ThreadCpu, Some((c, _)), _) | (Clock::ProcessCpu, _, Some((c, _))) => {
                c.as_ref()
            }
            _ => &self.wall,
        };
        Clocks {
            wall: &self.wall,
            main,
            counter: self.counter.as_deref(),
        }
    }

    /// Measures `bench` in this process (whatever [`Settings::forks`] says: forks need a
    /// [`crate::Suite`], which a child process can rebuild).
    pub fn measure<I, F>(
        &self,
        id: I,
        bytes_per_op: Option<u64>,
        bench: F,
    ) -> Result<Measurement<I>, BenchError>
    where
        I: Identity,
        F: FnOnce(&mut Bencher<'_>),
    {
        self.measure_with_progress(id, bytes_per_op, &mut |_| {}, bench)
    }

    /// [`Harness::measure`], reporting [`Progress`] (as benchmark 0 of 1).
    pub fn measure_with_progress<I, F>(
        &self,
        id: I,
        bytes_per_op: Option<u64>,
        progress: &mut dyn FnMut(Progress<'_, I>),
        bench: F,
    ) -> Result<Measurement<I>, BenchError>
    where
        I: Identity,
        F: FnOnce(&mut Bencher<'_>),
    {
        progress(Progress::Started {
            index: 0,
            total: 1,
            id: &id,
        });
        let (batch, samples) = self.samples(
            &id.key(),
            &self.settings,
            &mut |s| progress(s.into()),
            bench,
        )?;
        let m = self.summarize(id, &self.settings, bytes_per_op, batch, samples)?;
        progress(Progress::Finished {
            index: 0,
            total: 1,
            measurement: &m,
        });
        Ok(m)
    }

    /// Runs `bench` (the benchmark called `key`) and returns its batch and raw samples.
    pub(crate) fn samples<F>(
        &self,
        key: &str,
        settings: &Settings,
        progress: &mut dyn FnMut(Step),
        bench: F,
    ) -> Result<(u64, Vec<RawSample>), BenchError>
    where
        F: FnOnce(&mut Bencher<'_>),
    {
        let mut b = Bencher {
            clocks: self.clocks(settings.clock),
            settings,
            resolution_ns: self.validity_of(settings.clock).resolution_ns,
            progress,
            outcome: None,
            timed_twice: false,
            failure: None,
        };
        bench(&mut b);
        if let Some(reason) = b.failure {
            return Err(BenchError::Setup {
                key: key.to_string(),
                reason,
            });
        }
        if b.timed_twice {
            return Err(BenchError::TimedTwice(key.to_string()));
        }
        b.outcome
            .ok_or_else(|| BenchError::NothingTimed(key.to_string()))
    }

    /// Summarizes a benchmark's samples with this harness's validity figures.
    pub(crate) fn summarize<I: Identity>(
        &self,
        id: I,
        settings: &Settings,
        bytes_per_op: Option<u64>,
        batch: u64,
        samples: Vec<RawSample>,
    ) -> Result<Measurement<I>, BenchError> {
        let key = id.key();
        let validity = self.validity_of(settings.clock);
        Measurement::from_samples(id, settings, validity, bytes_per_op, batch, samples)
            .map_err(|source| BenchError::Stats { key, source })
    }
}
