//! What a measurement produces: its raw samples, summary, rates and warnings, named by
//! any [`Identity`] (the lab's typed benchmark identifier; a `String` will do).
//!
//! [`Measurement::from_samples`] summarizes what this process timed;
//! [`Measurement::from_external_samples`] applies the same statistics and validity checks
//! to samples another process took (a platform runner in Java, Node.js, Python, PHP or
//! Go, which answers one nanosecond figure per timed call: platforms/PROTOCOL.md).

use std::fmt::Debug;

use serde::{Deserialize, Serialize};

use crate::settings::{Mode, Settings, Unit};
use crate::stats::{self, Bootstrap, Ratio, StatsError, Summary};
use crate::validity::{self, Validity, Warning};

/// What names a benchmark: unique within a suite, and how a fork child is told which
/// benchmark to run.
pub trait Identity: Clone + Debug {
    /// The benchmark's name as text, unique within a suite.
    fn key(&self) -> String;
}

impl Identity for String {
    fn key(&self) -> String {
        self.clone()
    }
}

/// One timed sample: `iterations` back-to-back calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RawSample {
    /// Which process measured it: 0 for this process, 1..=N for forks.
    pub fork: u32,
    /// Calls in the sample.
    pub iterations: u64,
    /// Nanoseconds for all of them, on the measurement's timer ([`Measurement::timer`]:
    /// the thread's CPU time or the wall clock).
    pub ns: u64,
    /// Counter ticks (the TSC) over the same region, where a counter was available.
    pub ticks: Option<u64>,
}

impl RawSample {
    /// Nanoseconds per call.
    pub fn ns_per_op(&self) -> f64 {
        self.ns as f64 / self.iterations.max(1) as f64
    }
}

/// A finished measurement.
#[derive(Debug, Clone, PartialEq)]
pub struct Measurement<I> {
    /// What was measured.
    pub id: I,
    /// The clock the samples' nanoseconds were read from ([`crate::timer::Timer::name`],
    /// or the other runtime's clock: `System.nanoTime`, `time.perf_counter_ns`, ...).
    pub timer: String,
    /// How.
    pub mode: Mode,
    /// The unit of [`Measurement::summary`].
    pub unit: Unit,
    /// Bytes processed per call, for bytes/s and ticks/byte.
    pub bytes_per_op: Option<u64>,
    /// Calls per sample in the measured samples (1 in single-shot and sample modes).
    pub batch: u64,
    /// Forks the samples came from (0: this process).
    pub forks: u32,
    /// Summary statistics of the per-sample values in `unit`.
    pub summary: Summary,
    /// Median bytes per second over samples.
    pub bytes_per_second: Option<f64>,
    /// Median counter ticks per call, where a counter was read.
    pub ticks_per_op: Option<f64>,
    /// Median counter ticks per byte (TSC "cycles/byte"), where both are known.
    pub ticks_per_byte: Option<f64>,
    /// Validity warnings.
    pub warnings: Vec<Warning>,
    /// The raw samples, in the order taken.
    pub samples: Vec<RawSample>,
}

fn median(values: impl Iterator<Item = f64>) -> Option<f64> {
    stats::Sample::new(values.collect())
        .ok()
        .map(|s| s.median())
}

/// The name of the thread CPU clock ([`crate::timer::ThreadCpuTime`]).
const THREAD_CPU: &str = "thread-cpu";

/// Median counter ticks per call.
///
/// The counter (the TSC) runs on wall time. On the thread's CPU clock the samples'
/// nanoseconds leave out the time the thread was preempted, and the raw ticks do not:
/// on a loaded machine the median of the raw ticks describes the other processes as
/// much as the code (a `bench --quick` figure with 8 of its 15 samples preempted read
/// 1.8x the ticks its CPU time gave, while its neighbours, less preempted, read true;
/// that made one AEAD look 30-70% slower per byte in one study than in another). So
/// there the median CPU time is converted at the counter's rate, taken as the smallest
/// ticks per nanosecond of any sample: CPU time never exceeds wall time, so
/// preemption only raises a sample's ratio. On the other clocks the samples'
/// nanoseconds cover the same wall time as the ticks, and the raw ticks stay.
fn ticks_per_op(samples: &[RawSample], timer: &str) -> Option<f64> {
    let raw = || {
        median(
            samples
                .iter()
                .filter_map(|s| s.ticks.map(|t| t as f64 / s.iterations.max(1) as f64)),
        )
    };
    if timer != THREAD_CPU {
        return raw();
    }
    let rate = samples
        .iter()
        .filter(|s| s.ns > 0)
        .filter_map(|s| s.ticks.map(|t| t as f64 / s.ns as f64))
        .filter(|r| *r > 0.0)
        .min_by(f64::total_cmp)?;
    median(samples.iter().map(RawSample::ns_per_op)).map(|ns| ns * rate)
}

impl<I> Measurement<I> {
    /// Summarizes `samples` and runs the validity checks.
    pub fn from_samples(
        id: I,
        settings: &Settings,
        validity: &Validity,
        bytes_per_op: Option<u64>,
        batch: u64,
        samples: Vec<RawSample>,
    ) -> Result<Measurement<I>, StatsError> {
        let mode = settings.mode;
        let unit = mode.unit();
        // A sample with 0 ns (faster than the timer) counts as 1 ns so that rates stay
        // finite; the near-resolution warning flags such runs.
        let values: Vec<f64> = samples
            .iter()
            .map(|s| match unit {
                Unit::NanosPerOp => s.ns_per_op(),
                Unit::OpsPerSecond => 1e9 * s.iterations as f64 / s.ns.max(1) as f64,
            })
            .collect();
        let summary = stats::summarize(&values, &settings.bootstrap)?;
        let bytes_per_second = bytes_per_op.and_then(|b| {
            median(
                samples
                    .iter()
                    .map(|s| 1e9 * (b as f64) * s.iterations as f64 / s.ns.max(1) as f64),
            )
        });
        let ticks_per_op = ticks_per_op(&samples, &validity.timer);
        let ticks_per_byte = match (ticks_per_op, bytes_per_op) {
            (Some(t), Some(b)) if b > 0 => Some(t / b as f64),
            _ => None,
        };
        let forks = samples.iter().map(|s| s.fork).max().unwrap_or(0);
        let warnings = validity::warnings(&summary, &samples, mode, settings, validity);
        Ok(Measurement {
            id,
            timer: validity.timer.clone(),
            mode,
            unit,
            bytes_per_op,
            batch,
            forks,
            summary,
            bytes_per_second,
            ticks_per_op,
            ticks_per_byte,
            warnings,
            samples,
        })
    }

    /// Summarizes samples measured elsewhere -- another process, another language's
    /// runtime -- with the same statistics and validity checks as
    /// [`Measurement::from_samples`]: `samples_ns` holds one figure per timed call, in the order
    /// taken, read on `timer` (platforms/PROTOCOL.md, `time`: `samples_ns` and `clock`).
    /// The measurement is in [`Mode::Sample`] (every call timed alone) whatever
    /// `settings.mode` says; `settings` gives the bootstrap and the validity limits.
    /// Its samples carry fork 0: they come from one process, not from this one's forks.
    pub fn from_external_samples(
        id: I,
        samples_ns: &[u64],
        timer: &ExternalTimer,
        bytes_per_op: Option<u64>,
        settings: &Settings,
    ) -> Result<Measurement<I>, StatsError> {
        let samples: Vec<RawSample> = samples_ns
            .iter()
            .map(|&ns| RawSample {
                fork: 0,
                iterations: 1,
                ns,
                ticks: None,
            })
            .collect();
        let validity = timer.validity(samples_ns);
        let settings = settings.clone().with_mode(Mode::Sample);
        Measurement::from_samples(id, &settings, &validity, bytes_per_op, 1, samples)
    }

    /// Nanoseconds per call of every sample, in the order taken: the data `compare`
    /// bootstraps ratios from.
    pub fn ns_per_op(&self) -> Vec<f64> {
        self.samples.iter().map(RawSample::ns_per_op).collect()
    }

    /// Median nanoseconds per call, whatever the mode.
    pub fn median_ns_per_op(&self) -> f64 {
        median(self.samples.iter().map(RawSample::ns_per_op)).unwrap_or(f64::NAN)
    }

    /// `median(self) / median(other)` of the per-call times, with its bootstrap
    /// interval ([`stats::ratio_ci`]): above 1 with [`Ratio::is_significant`] means
    /// `self` is slower at the interval's confidence; an interval that includes 1 means
    /// no difference may be claimed.
    pub fn time_ratio<J>(
        &self,
        other: &Measurement<J>,
        bootstrap: &Bootstrap,
    ) -> Result<Ratio, StatsError> {
        let a = stats::Sample::new(self.ns_per_op())?;
        let b = stats::Sample::new(other.ns_per_op())?;
        stats::ratio_ci(&a, &b, bootstrap)
    }

    /// Whether the spread allows ranking this result against others (no warning that
    /// [`Warning::blocks_ranking`]).
    pub fn can_rank(&self) -> bool {
        !self.warnings.iter().any(Warning::blocks_ranking)
    }
}

/// The clock of samples measured elsewhere, as far as the caller knows it.
#[derive(Debug, Clone, PartialEq)]
pub struct ExternalTimer {
    /// Its name (`System.nanoTime`, `process.hrtime.bigint`, `time.perf_counter_ns`,
    /// `hrtime`, `time.Now`).
    pub name: String,
    /// Its resolution in nanoseconds, if known; else it is estimated from the samples
    /// (the smallest gap between two distinct values: every value is a whole number of
    /// the clock's steps, so no gap is smaller than one step).
    pub resolution_ns: Option<u64>,
    /// What timing one empty call costs in that runtime, in nanoseconds, if known; the
    /// harness-overhead check needs it and is skipped without it.
    pub empty_call_ns: Option<f64>,
}

impl ExternalTimer {
    /// A clock known by its name only.
    pub fn named(name: &str) -> ExternalTimer {
        ExternalTimer {
            name: name.to_string(),
            resolution_ns: None,
            empty_call_ns: None,
        }
    }

    /// The validity figures the checks read, for these samples.
    fn validity(&self, samples_ns: &[u64]) -> Validity {
        let resolution_ns = self
            .resolution_ns
            .unwrap_or_else(|| smallest_gap(samples_ns));
        Validity {
            timer: self.name.clone(),
            resolution_ns,
            timer_overhead_ns: 0.0,
            counter: None,
            counter_resolution: None,
            counter_invariant: None,
            counter_ticks_per_ns: None,
            empty_op_ns: 0.0,
            empty_call_ns: self.empty_call_ns.unwrap_or(0.0),
            steadiness: None,
            keep_awake: None,
            steal: None,
        }
    }
}

/// The smallest non-zero difference between two sample values (0 with fewer than two
/// distinct values).
fn smallest_gap(samples: &[u64]) -> u64 {
    let mut v = samples.to_vec();
    v.sort_unstable();
    v.dedup();
    v.windows(2).map(|w| w[1] - w[0]).min().unwrap_or(0)
}
