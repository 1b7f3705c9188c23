//! How far a run's figures can be trusted: the timer and harness figures measured once
//! per run ([`Validity`]: how fine the timer is, what it costs, what the harness itself
//! costs for an empty operation), and the [`Warning`]s each figure gets from them and from
//! its own spread ([`warnings`]).

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::measurement::RawSample;
use crate::protocol::{Clocks, Plain, run_protocol};
use crate::settings::{Mode, Settings};
use crate::stats::{self, Summary};
use crate::steadiness::Steadiness;
use crate::timer::{self, Timer, WallClock};

/// The timer and harness figures a reader needs to judge the results of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Validity {
    /// The timer the samples' nanoseconds are read from (`thread-cpu`, `wall-clock`).
    pub timer: String,
    /// Its resolution in ns: the smallest non-zero step between two reads.
    pub resolution_ns: u64,
    /// The cost of one read of it, in ns.
    pub timer_overhead_ns: f64,
    /// The secondary counter read around each sample (`tsc`), if any.
    pub counter: Option<String>,
    /// Its resolution in its own ticks.
    pub counter_resolution: Option<u64>,
    /// Whether the CPU reports the TSC as invariant (constant rate).
    pub counter_invariant: Option<bool>,
    /// Counter ticks per nanosecond (the TSC frequency in GHz), measured over a few ms.
    pub counter_ticks_per_ns: Option<f64>,
    /// Per-call cost of an empty operation in the batched loop (average-time and
    /// throughput modes), in ns: the floor under every such figure.
    pub empty_op_ns: f64,
    /// Cost of timing one empty call on its own (single-shot and sample modes), in ns:
    /// the floor under every per-call figure.
    pub empty_call_ns: f64,
    /// How steady the core's speed stayed through the run (a reference loop timed
    /// between slices), when the run probed it; older runs have none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steadiness: Option<Steadiness>,
    /// How many idle-priority spinners kept the other CPUs awake during the run
    /// ([`crate::keep_awake`]); `None` in runs that did not say (older ones).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keep_awake: Option<u32>,
    /// The share of the machine's CPU time the hypervisor gave other guests while the run
    /// measured (steal time, [`StealClock`]), where the OS shows it; `None` in older runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steal: Option<f64>,
}

/// The 1-minute load average, where the OS tells it (`/proc/loadavg`).
pub fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
}

/// A load average read at the end of a run, less what the run's own `spinners`
/// ([`crate::keep_awake`]: always runnable, so counted in it) added: Linux's 1-minute
/// figure is an exponential average with a 60 s time constant, so a task runnable for
/// `elapsed` adds 1 - e^(-elapsed / 60 s). What is left is comparable with the start's
/// reading and with runs without spinners: the measuring thread and any other program.
pub fn load_without_spinners(load: f64, spinners: usize, elapsed: Duration) -> f64 {
    let own = spinners as f64 * (1.0 - (-elapsed.as_secs_f64() / 60.0).exp());
    (load - own).max(0.0)
}

/// A load average above half the `cores` means other programs compete for the CPU:
/// the load when it is that high.
pub fn high_load(load: Option<f64>, cores: u32) -> Option<f64> {
    load.filter(|l| *l > f64::from(cores) / 2.0)
}

/// The machine's steal time from a starting point: how much of its CPU time the
/// hypervisor gave other guests (`/proc/stat`'s `cpu` line: user nice system idle iowait
/// irq softirq steal ...), where the OS shows it.
#[derive(Debug, Clone, Copy)]
pub struct StealClock {
    start: Option<(u64, u64)>,
}

impl StealClock {
    /// Starts counting now.
    pub fn start() -> StealClock {
        StealClock {
            start: steal_ticks(),
        }
    }

    /// The share of CPU time stolen since [`StealClock::start`], 0 to 1.
    pub fn fraction(&self) -> Option<f64> {
        let ((s1, t1), (s0, t0)) = steal_ticks().zip(self.start)?;
        Some(s1.saturating_sub(s0) as f64 / t1.saturating_sub(t0).max(1) as f64)
    }
}

/// Steal and total CPU time so far, in clock ticks.
fn steal_ticks() -> Option<(u64, u64)> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .take(8)
        .filter_map(|x| x.parse().ok())
        .collect();
    (v.len() == 8).then(|| (v[7], v.iter().sum()))
}

/// Measures the timer `main` (its samples' nanoseconds) and the harness's floor on it;
/// `wall` paces the measurement.
pub(crate) fn measure(wall: &WallClock, main: &dyn Timer, counter: Option<&dyn Timer>) -> Validity {
    let resolution_ns = timer::resolution(main, 200);
    let timer_overhead_ns = timer::read_overhead(main, 20_000);
    let counter_resolution = counter.map(|c| timer::resolution(c, 200));
    let counter_ticks_per_ns = counter.map(|c| {
        // Spin ~5 ms between two reads of both clocks.
        let (w0, t0) = (wall.now(), c.now());
        while wall.now().saturating_sub(w0) < 5_000_000 {
            std::hint::spin_loop();
        }
        let (w1, t1) = (wall.now(), c.now());
        t1.saturating_sub(t0) as f64 / w1.saturating_sub(w0).max(1) as f64
    });
    let clocks = Clocks {
        wall,
        main,
        counter,
    };
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
        timer: main.name().to_string(),
        resolution_ns,
        timer_overhead_ns,
        counter: counter.map(|c| c.name().to_string()),
        counter_resolution,
        counter_invariant: None,
        counter_ticks_per_ns,
        empty_op_ns: median_of(&batched),
        empty_call_ns: median_of(&calls),
        steadiness: None,
        keep_awake: None,
        steal: None,
    }
}

/// Reads an `f64` that JSON stored as `null`: serde_json writes a non-finite number
/// (a relative width of 0 / 0, say) as `null`, and a stored warning must read back.
fn nan_if_null<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
}

/// A reason not to trust, or not to rank, a result. Each message names the remedy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Warning {
    /// The median's confidence interval is too wide to rank near neighbours.
    WideInterval {
        /// `(high - low) / median`.
        #[serde(deserialize_with = "nan_if_null")]
        relative_width: f64,
        /// The configured limit.
        #[serde(deserialize_with = "nan_if_null")]
        limit: f64,
    },
    /// Many samples are Tukey outliers.
    ManyOutliers {
        /// Outlier count (mild and severe).
        outliers: u32,
        /// Samples.
        n: u32,
    },
    /// Samples are too short for the timer.
    NearResolution {
        /// Median sample length in ns.
        #[serde(deserialize_with = "nan_if_null")]
        sample_ns: f64,
        /// Timer resolution in ns.
        resolution_ns: u64,
    },
    /// The harness's own cost is a visible share of the result.
    HarnessOverhead {
        /// Overhead per call in ns (an empty operation's cost).
        #[serde(deserialize_with = "nan_if_null")]
        overhead_ns: f64,
        /// Measured time per call in ns.
        #[serde(deserialize_with = "nan_if_null")]
        per_op_ns: f64,
    },
    /// Too few samples for a meaningful interval.
    FewSamples {
        /// Samples.
        n: u32,
    },
}

impl Warning {
    /// The kind's name, as stored (`wide-interval`, `many-outliers`, `near-resolution`,
    /// `harness-overhead`, `few-samples`).
    pub fn kind(&self) -> &'static str {
        match self {
            Warning::WideInterval { .. } => "wide-interval",
            Warning::ManyOutliers { .. } => "many-outliers",
            Warning::NearResolution { .. } => "near-resolution",
            Warning::HarnessOverhead { .. } => "harness-overhead",
            Warning::FewSamples { .. } => "few-samples",
        }
    }

    /// Whether this warning means the figure should not be ranked at all: only too few
    /// samples. A wide interval does not set a figure apart: the ranking compares
    /// intervals pair by pair, so a wide one blocks only the comparisons it overlaps
    /// (AES at 11 GB/s against ciphers at 0.5 GB/s is an order no interval overturns).
    ///
    /// Outliers do not either: rankings compare medians through the bootstrap interval of
    /// the median, which outliers barely move (a preempted sample is one slow sample),
    /// and a spread that does move it widens the interval, which blocks. Blocking on the
    /// outlier share as well left most figures of a 15-sample run unranked on a 2-core
    /// machine (2 Tukey outliers of 15 are already 13%) while their intervals were 1%
    /// wide.
    pub fn blocks_ranking(&self) -> bool {
        matches!(self, Warning::FewSamples { .. })
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::WideInterval {
                relative_width,
                limit,
            } => write!(
                f,
                "spread too wide to rank: the median's confidence interval spans {:.1}% of it (limit {:.1}%); run on an idle machine, or raise the sample count or sample time",
                100.0 * relative_width,
                100.0 * limit
            ),
            Warning::ManyOutliers { outliers, n } => write!(
                f,
                "{outliers} of {n} samples are outliers (Tukey fences): something else used the CPU; close other programs or use forks"
            ),
            Warning::NearResolution {
                sample_ns,
                resolution_ns,
            } => write!(
                f,
                "samples last {sample_ns:.0} ns, under 100x the timer's resolution ({resolution_ns} ns): use average-time mode or a larger input"
            ),
            Warning::HarnessOverhead {
                overhead_ns,
                per_op_ns,
            } => write!(
                f,
                "the harness's own cost ({overhead_ns:.2} ns per call) is over 5% of the measured {per_op_ns:.2} ns: the figure is inflated; time a larger input"
            ),
            Warning::FewSamples { n } => write!(
                f,
                "only {n} samples: confidence intervals need at least 10; raise the iteration count"
            ),
        }
    }
}

/// The warnings of a figure summarized as `summary` from `samples` in `mode`: its own
/// spread against `settings`' limits, and its samples against the timer and the
/// harness's floor in `validity`.
pub fn warnings(
    summary: &Summary,
    samples: &[RawSample],
    mode: Mode,
    settings: &Settings,
    validity: &Validity,
) -> Vec<Warning> {
    let mut w = Vec::new();
    let s = summary;
    if s.n < 10 {
        w.push(Warning::FewSamples { n: s.n });
    }
    let width = s.median_ci.relative_width();
    if width > settings.max_relative_ci_width {
        w.push(Warning::WideInterval {
            relative_width: width,
            limit: settings.max_relative_ci_width,
        });
    }
    if s.outlier_share() > settings.max_outlier_share {
        w.push(Warning::ManyOutliers {
            outliers: s.outliers.total(),
            n: s.n,
        });
    }
    if let Some(sample_ns) = median(samples.iter().map(|s| s.ns as f64))
        && sample_ns < 100.0 * validity.resolution_ns as f64
    {
        w.push(Warning::NearResolution {
            sample_ns,
            resolution_ns: validity.resolution_ns,
        });
    }
    let per_op_ns = median(samples.iter().map(RawSample::ns_per_op)).unwrap_or(0.0);
    let overhead_ns = match mode {
        Mode::AverageTime | Mode::Throughput => validity.empty_op_ns,
        Mode::SingleShot | Mode::Sample => validity.empty_call_ns,
    };
    if per_op_ns > 0.0 && overhead_ns > 0.05 * per_op_ns {
        w.push(Warning::HarnessOverhead {
            overhead_ns,
            per_op_ns,
        });
    }
    w
}

fn median(values: impl Iterator<Item = f64>) -> Option<f64> {
    stats::Sample::new(values.collect())
        .ok()
        .map(|s| s.median())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_runs_own_spinners_are_taken_out_of_the_end_load() {
        // One spinner for 3 minutes adds 1 - e^-3 = 0.95 to the 1-minute load average.
        let end = load_without_spinners(2.05, 1, Duration::from_secs(180));
        assert!((end - 1.10).abs() < 0.01, "{end}");
        // For 30 s it has added only 1 - e^-0.5 = 0.39.
        let end = load_without_spinners(1.5, 1, Duration::from_secs(30));
        assert!((end - 1.11).abs() < 0.01, "{end}");
        assert_eq!(load_without_spinners(0.2, 3, Duration::from_secs(600)), 0.0);
        assert_eq!(load_without_spinners(1.3, 0, Duration::from_secs(600)), 1.3);
    }

    #[test]
    fn a_warning_with_a_non_finite_figure_reads_back() {
        let w = Warning::WideInterval {
            relative_width: f64::NAN,
            limit: 0.05,
        };
        let json = serde_json::to_string(&[w]).unwrap();
        assert!(json.contains("null"), "{json}");
        let back: Vec<Warning> = serde_json::from_str(&json).unwrap();
        match back[0] {
            Warning::WideInterval {
                relative_width,
                limit,
            } => assert!(relative_width.is_nan() && limit == 0.05),
            _ => panic!("{back:?}"),
        }
    }

    #[test]
    fn high_load_is_above_half_the_cores() {
        assert_eq!(high_load(Some(1.1), 2), Some(1.1));
        assert_eq!(high_load(Some(1.0), 2), None);
        assert_eq!(high_load(None, 2), None);
    }

    #[test]
    fn steal_is_a_share_where_the_os_shows_it() {
        let clock = StealClock::start();
        if let Some(f) = clock.fraction() {
            assert!((0.0..=1.0).contains(&f), "{f}");
        } else {
            assert!(!std::path::Path::new("/proc/stat").exists());
        }
    }
}
