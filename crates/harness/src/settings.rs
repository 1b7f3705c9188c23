//! What a measurement is asked to do: mode, warm-up, samples, batching, forks, and the
//! thresholds of the validity checks.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::stats::Bootstrap;

/// How calls are grouped into samples and what a sample's statistic means (JMH's modes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Batches of calls, auto-sized so a sample lasts [`Settings::sample_time`]; the
    /// statistic is nanoseconds per call. The default.
    AverageTime,
    /// The same batches, reported as calls per second (bytes per second beside).
    Throughput,
    /// One call per sample and no warm-up: the cost of a cold call (first use, key
    /// schedule, a whole file). With forks, each fork's first call is truly cold.
    SingleShot,
    /// Every call timed alone after warm-up, for the distribution of call times
    /// (percentiles, tails). Calls shorter than ~100x the timer resolution are better
    /// measured with [`Mode::AverageTime`]; a warning says so.
    Sample,
}

impl Mode {
    /// Every mode, in documentation order.
    pub const ALL: [Mode; 4] = [
        Mode::AverageTime,
        Mode::Throughput,
        Mode::SingleShot,
        Mode::Sample,
    ];

    /// The kebab-case name (`average-time`, `throughput`, `single-shot`, `sample`).
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::AverageTime => "average-time",
            Mode::Throughput => "throughput",
            Mode::SingleShot => "single-shot",
            Mode::Sample => "sample",
        }
    }

    /// The unit of this mode's statistic.
    pub fn unit(self) -> Unit {
        match self {
            Mode::Throughput => Unit::OpsPerSecond,
            _ => Unit::NanosPerOp,
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A mode name that is not one of [`Mode::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown mode '{0}': use average-time, throughput, single-shot or sample")]
pub struct UnknownMode(pub String);

impl FromStr for Mode {
    type Err = UnknownMode;

    fn from_str(s: &str) -> Result<Mode, UnknownMode> {
        Mode::ALL
            .into_iter()
            .find(|m| m.as_str() == s)
            .ok_or_else(|| UnknownMode(s.to_string()))
    }
}

/// Which clock a benchmark's samples are read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Clock {
    /// The measuring thread's CPU time ([`crate::timer::ThreadCpuTime`]): time the
    /// scheduler gave other processes is left out, so a figure describes the code even on
    /// a loaded machine. The default for per-call figures of work done on the calling
    /// thread. Where the platform has no thread CPU clock the wall clock is used instead
    /// (and the measurement says so).
    ThreadCpu,
    /// The CPU time of every thread of the process ([`crate::timer::ProcessCpuTime`]):
    /// for work the measured code spreads over a pool of threads, which the measuring
    /// thread's CPU time would not see. Like [`Clock::ThreadCpu`] it leaves out other
    /// processes' time; it counts the work done, not how long a user waits for it (on
    /// two idle cores a job on two threads takes about half its CPU time). Where the
    /// platform has no such clock the wall clock is used instead (and the measurement
    /// says so).
    ProcessCpu,
    /// Real time ([`crate::timer::WallClock`]): for work that waits (I/O) or spreads over
    /// other threads, which the thread's CPU time would not see, and for whole jobs timed
    /// as a user waits for them.
    Wall,
}

impl Clock {
    /// The name of the timer it reads, as stored (`thread-cpu`, `wall-clock`).
    pub fn as_str(self) -> &'static str {
        match self {
            Clock::ThreadCpu => "thread-cpu",
            Clock::ProcessCpu => "process-cpu",
            Clock::Wall => "wall-clock",
        }
    }
}

/// Settings stored before the clock was a setting were all timed with the wall clock.
fn wall_clock() -> Clock {
    Clock::Wall
}

/// The unit of a measurement's summary statistics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Unit {
    /// Nanoseconds per call (lower is better).
    #[serde(rename = "ns/op")]
    NanosPerOp,
    /// Calls per second (higher is better).
    #[serde(rename = "op/s")]
    OpsPerSecond,
}

impl Unit {
    /// `ns/op` or `op/s`.
    pub fn as_str(self) -> &'static str {
        match self {
            Unit::NanosPerOp => "ns/op",
            Unit::OpsPerSecond => "op/s",
        }
    }

    /// Parses [`Unit::as_str`]'s spelling.
    pub fn parse(s: &str) -> Option<Unit> {
        match s {
            "ns/op" => Some(Unit::NanosPerOp),
            "op/s" => Some(Unit::OpsPerSecond),
            _ => None,
        }
    }

    /// Whether a larger value is better.
    pub fn higher_is_better(self) -> bool {
        matches!(self, Unit::OpsPerSecond)
    }
}

impl fmt::Display for Unit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Settings of a measurement, in JMH's terms.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// What a sample is.
    pub mode: Mode,
    /// Warm-up iterations (JMH `-wi`): results discarded; ignored in single-shot mode.
    pub warmup_iterations: u32,
    /// Length of one warm-up iteration (JMH `-w`).
    pub warmup_time: Duration,
    /// Measured samples (JMH `-i`). In sample mode, the minimum number of timed calls
    /// (calls go on until `iterations x sample_time` has passed, up to
    /// [`Settings::max_sample_calls`]).
    pub iterations: u32,
    /// Target length of one measured sample on [`Settings::clock`] (so on the thread's
    /// CPU time a sample holds the same work however busy the machine is); the batch size
    /// is calibrated to reach it (and at least 1000x the timer's resolution).
    pub sample_time: Duration,
    /// A fixed batch size (calls per sample) instead of calibration.
    pub batch: Option<u64>,
    /// The clock the samples are read from.
    #[serde(default = "wall_clock")]
    pub clock: Clock,
    /// Separate processes per benchmark (JMH `-f`); 0 measures in this process.
    pub forks: u32,
    /// Passes over the whole suite ([`crate::Suite::run`] in this process):
    /// each benchmark's samples are taken in `rounds` slices spread over the run, at the
    /// batch size of its first slice, and pooled. A slow spell of the machine (on a
    /// virtual machine, another guest on the host's sibling hyperthread slows every
    /// instruction for seconds or minutes) then touches every benchmark a little
    /// instead of a few a lot, and shows in the intervals. 1: all samples at once.
    #[serde(default = "one_round")]
    pub rounds: u32,
    /// Upper bound of timed calls in sample mode.
    pub max_sample_calls: u32,
    /// Confidence interval settings.
    pub bootstrap: Bootstrap,
    /// Warn when the median's confidence interval is wider than this share of the
    /// median: such results cannot be ranked against near neighbours.
    pub max_relative_ci_width: f64,
    /// Warn when more than this share of samples are Tukey outliers.
    pub max_outlier_share: f64,
}

impl Default for Settings {
    /// Average time on the thread's CPU time; 3 warm-up iterations of 200 ms; 30 samples
    /// of 20 ms; no forks.
    fn default() -> Settings {
        Settings {
            mode: Mode::AverageTime,
            clock: Clock::ThreadCpu,
            warmup_iterations: 3,
            warmup_time: Duration::from_millis(200),
            iterations: 30,
            sample_time: Duration::from_millis(20),
            batch: None,
            forks: 0,
            rounds: 1,
            max_sample_calls: 100_000,
            bootstrap: Bootstrap::default(),
            max_relative_ci_width: 0.05,
            max_outlier_share: 0.10,
        }
    }
}

fn one_round() -> u32 {
    1
}

impl Settings {
    /// For quick runs: 1 warm-up iteration of 20 ms, 15 samples of 5 ms, 2000 resamples.
    /// Calibration has already run the code for several batches before the warm-up
    /// starts, so 20 ms is ample for compiled code; the lab's `--quick` (600 benchmarks
    /// in three slices each) spent 45 of its 130 CPU-seconds warming up at 50 ms.
    pub fn quick() -> Settings {
        Settings {
            warmup_iterations: 1,
            warmup_time: Duration::from_millis(20),
            iterations: 15,
            sample_time: Duration::from_millis(5),
            bootstrap: Bootstrap {
                resamples: 2000,
                ..Bootstrap::default()
            },
            ..Settings::default()
        }
    }

    /// For publication: 5 warm-up iterations of 1 s, 50 samples of 100 ms, 3 forks.
    pub fn thorough() -> Settings {
        Settings {
            warmup_iterations: 5,
            warmup_time: Duration::from_secs(1),
            iterations: 50,
            sample_time: Duration::from_millis(100),
            forks: 3,
            ..Settings::default()
        }
    }

    /// The same settings on another clock.
    pub fn with_clock(mut self, clock: Clock) -> Settings {
        self.clock = clock;
        self
    }

    /// The same settings in another mode.
    pub fn with_mode(mut self, mode: Mode) -> Settings {
        self.mode = mode;
        self
    }
}
