//! Several operations timed turn about, sample by sample: the method of ascon-c's
//! `getcycles.c` and of cipherlab's own speed tables (`cargo bench -p cipherlab-lwc
//! --bench lwc`, `cargo bench -p cipherlab-ciphers --bench catalogue`), for comparing
//! implementations of one thing.
//!
//! 1. *calls per sample*: fixed, or doubled from 1 until one sample of the first
//!    operation lasts a given number of counter ticks;
//! 2. *warm-up*: every operation runs for a while (or for a few samples) before any
//!    sample counts, so caches, branch predictors and the clock reach their steady state;
//! 3. *samples*: operation 0, 1, ..., then 0, 1, ... again: frequency drift and other
//!    processes' load hit every operation alike instead of whichever ran at the time.
//!
//! Each sample is read on three clocks: the time-stamp counter (where there is one), the
//! thread's CPU time ([`ThreadCpuTime`]: the time the thread actually ran, so a sample
//! during which the scheduler ran another process does not count that process's time)
//! and the wall clock. On a quiet machine the first and the last agree; on a loaded one
//! only the CPU time still describes the code. [`Interleaved::figure`] converts the CPU
//! time into counter ticks at the counter's rate measured over the same samples, so the
//! figures read as "cycles" where the CPU has a constant-rate TSC.

use std::hint::black_box;
use std::time::Duration;

use crate::stats::Sample;
use crate::timer::{Counter, ThreadCpuTime, Timer, WallClock};

/// How many calls one sample times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Calls {
    /// Always this many.
    Fixed(u64),
    /// Doubled from 1 until one sample of the first operation lasts at least
    /// `min_ticks` counter ticks (nanoseconds without a counter), or reaches `max`.
    Calibrate {
        /// The shortest sample wanted, in counter ticks.
        min_ticks: u64,
        /// The most calls per sample.
        max: u64,
    },
}

/// How long every operation runs before its samples count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Warmup {
    /// Calls, one after another, for this long (wall clock).
    Time(Duration),
    /// This many whole samples, discarded.
    Samples(u32),
}

/// What to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// Calls per sample.
    pub calls: Calls,
    /// Warm-up per operation.
    pub warmup: Warmup,
    /// Samples per operation.
    pub samples: usize,
}

/// One sample of one operation: `calls` back-to-back calls read on three clocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CpuSample {
    /// Calls timed together.
    pub calls: u64,
    /// Counter ticks (the TSC; nanoseconds where the CPU has none).
    pub ticks: u64,
    /// The thread's CPU time, nanoseconds.
    pub cpu_ns: u64,
    /// Wall-clock time, nanoseconds.
    pub wall_ns: u64,
}

/// The samples of every operation, in the order given.
#[derive(Debug, Clone, PartialEq)]
pub struct Interleaved {
    /// Per operation, its samples in the order taken.
    pub samples: Vec<Vec<CpuSample>>,
    /// Counter ticks per wall-clock nanosecond over all samples: the TSC's rate (1.0
    /// without a counter).
    pub ticks_per_ns: f64,
}

/// One operation's figures, per call.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Figure {
    /// Median thread CPU time per call, converted to counter ticks.
    pub median_cpu_ticks: f64,
    /// Median counter ticks per call (wall time: includes time the thread was
    /// preempted).
    pub median_ticks: f64,
    /// Fewest counter ticks per call.
    pub min_ticks: f64,
    /// Median thread CPU time per call, nanoseconds.
    pub median_cpu_ns: f64,
}

/// Runs `ops` operations on `state` by `plan`: calibration on operation 0, warm-up of
/// each, then `plan.samples` rounds of one sample of each operation in turn.
/// `op(i, state)` does operation `i` once; it gets the state through [`black_box`].
/// (One closure with an index, rather than a slice of closures, so that the operations
/// may share the state and the callers need no boxes.)
///
/// # Panics
///
/// Where the thread CPU clock cannot be read (a platform without
/// `CLOCK_THREAD_CPUTIME_ID`): these comparisons mean nothing without it.
pub fn run<S>(
    plan: &Plan,
    state: &mut S,
    ops: usize,
    mut op: impl FnMut(usize, &mut S),
) -> Interleaved {
    let counter = Counter::detect();
    let wall = WallClock::new();
    #[allow(clippy::expect_used)] // documented: no comparison without the CPU clock
    let cpu = ThreadCpuTime::detect().expect("this platform has no thread CPU clock");
    let mut calls = match plan.calls {
        Calls::Fixed(k) => k.max(1),
        Calls::Calibrate { .. } => 1,
    };
    if let (Calls::Calibrate { min_ticks, max }, true) = (plan.calls, ops > 0) {
        loop {
            let t0 = counter.now();
            for _ in 0..calls {
                op(0, black_box(&mut *state));
            }
            if counter.now().saturating_sub(t0) >= min_ticks || calls >= max {
                break;
            }
            calls *= 2;
        }
    }
    for i in 0..ops {
        match plan.warmup {
            Warmup::Time(d) => {
                let (w0, d) = (wall.now(), d.as_nanos() as u64);
                while wall.now().saturating_sub(w0) < d {
                    op(i, black_box(&mut *state));
                }
            }
            Warmup::Samples(n) => {
                for _ in 0..n {
                    for _ in 0..calls {
                        op(i, black_box(&mut *state));
                    }
                }
            }
        }
    }
    let mut samples: Vec<Vec<CpuSample>> = vec![Vec::with_capacity(plan.samples); ops];
    let (mut all_ticks, mut all_wall) = (0u64, 0u64);
    for _ in 0..plan.samples {
        for (i, samples) in samples.iter_mut().enumerate() {
            let w0 = wall.now();
            let c0 = cpu.now();
            let t0 = counter.now();
            for _ in 0..calls {
                op(i, black_box(&mut *state));
            }
            let ticks = counter.now().saturating_sub(t0);
            let cpu_ns = cpu.now().saturating_sub(c0);
            let wall_ns = wall.now().saturating_sub(w0);
            all_ticks += ticks;
            all_wall += wall_ns;
            samples.push(CpuSample {
                calls,
                ticks,
                cpu_ns,
                wall_ns,
            });
        }
    }
    Interleaved {
        samples,
        ticks_per_ns: match counter {
            Counter::Tsc(_) => all_ticks as f64 / all_wall.max(1) as f64,
            Counter::Wall(_) => 1.0,
        },
    }
}

fn median(values: impl Iterator<Item = f64>) -> f64 {
    Sample::new(values.collect()).map_or(f64::NAN, |s| s.median())
}

impl Interleaved {
    /// Operation `op`'s figures, CPU time converted at the rate measured over the run.
    pub fn figure(&self, op: usize) -> Figure {
        self.figure_at(op, self.ticks_per_ns)
    }

    /// Operation `op`'s figures, CPU time converted at `ticks_per_ns` (a rate measured
    /// apart, e.g. by [`crate::timer::tsc_ticks_per_ns`]).
    pub fn figure_at(&self, op: usize, ticks_per_ns: f64) -> Figure {
        let s = self.samples.get(op).map_or(&[][..], Vec::as_slice);
        let per_call = |x: u64, c: u64| x as f64 / c.max(1) as f64;
        let median_cpu_ns = median(s.iter().map(|x| per_call(x.cpu_ns, x.calls)));
        Figure {
            median_cpu_ticks: median_cpu_ns * ticks_per_ns,
            median_ticks: median(s.iter().map(|x| per_call(x.ticks, x.calls))),
            min_ticks: s
                .iter()
                .map(|x| per_call(x.ticks, x.calls))
                .fold(f64::INFINITY, f64::min),
            median_cpu_ns,
        }
    }
}
