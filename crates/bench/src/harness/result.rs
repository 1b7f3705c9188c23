//! What a measurement produces: its identifier, raw samples, summary and warnings.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::settings::{Mode, Settings, Unit};
use super::validity::Validity;
use crate::stats::{self, Bootstrap, Ratio, StatsError, Summary};

/// A benchmark identifier that spells out everything the figure depends on.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct BenchId {
    /// The study it belongs to (`data-type`, `phases`, `lwc`, ...).
    pub study: String,
    /// The algorithm as the catalogue names it (`aes-128-ctr`).
    pub algorithm: String,
    /// The implementation (provider): `rustcrypto`, `openssl`, `cipherlab`, ...
    pub implementation: String,
    /// The language runtime: `rust`, `java`, `node`, ...
    pub runtime: String,
    /// The phase timed: `keygen`, `init`, `encrypt`, `decrypt`, ...
    pub phase: String,
    /// Input size in bytes (0 where there is no input, e.g. key generation).
    pub size: u64,
    /// The input's data type (a corpus [`crate::corpus::DataType`] name, or a user file).
    pub data_type: String,
}

impl BenchId {
    /// An identifier for a Rust implementation (runtime `rust`).
    pub fn new(
        study: &str,
        algorithm: &str,
        implementation: &str,
        phase: &str,
        size: u64,
        data_type: &str,
    ) -> BenchId {
        BenchId {
            study: study.to_string(),
            algorithm: algorithm.to_string(),
            implementation: implementation.to_string(),
            runtime: "rust".to_string(),
            phase: phase.to_string(),
            size,
            data_type: data_type.to_string(),
        }
    }

    /// The same identifier for another runtime.
    pub fn with_runtime(mut self, runtime: &str) -> BenchId {
        self.runtime = runtime.to_string();
        self
    }

    /// `study/algorithm/implementation/runtime/phase/size/data_type`: unique within a
    /// run, and the name a fork child is asked to run.
    pub fn key(&self) -> String {
        format!(
            "{}/{}/{}/{}/{}/{}/{}",
            self.study,
            self.algorithm,
            self.implementation,
            self.runtime,
            self.phase,
            self.size,
            self.data_type
        )
    }
}

impl fmt::Display for BenchId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.key())
    }
}

/// One timed sample: `iterations` back-to-back calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RawSample {
    /// Which process measured it: 0 for this process, 1..=N for forks.
    pub fork: u32,
    /// Calls in the sample.
    pub iterations: u64,
    /// Wall-clock nanoseconds for all of them.
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

/// A reason not to trust, or not to rank, a result. Each message names the remedy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Warning {
    /// The median's confidence interval is too wide to rank near neighbours.
    WideInterval {
        /// `(high - low) / median`.
        relative_width: f64,
        /// The configured limit.
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
        sample_ns: f64,
        /// Timer resolution in ns.
        resolution_ns: u64,
    },
    /// The harness's own cost is a visible share of the result.
    HarnessOverhead {
        /// Overhead per call in ns (an empty operation's cost).
        overhead_ns: f64,
        /// Measured time per call in ns.
        per_op_ns: f64,
    },
    /// Too few samples for a meaningful interval.
    FewSamples {
        /// Samples.
        n: u32,
    },
}

impl Warning {
    /// Whether this warning means two results should not be ranked on this figure.
    ///
    /// Outliers alone do not: rankings compare medians through the bootstrap interval of
    /// the median, which outliers barely move (a preempted sample is one slow sample),
    /// and a spread that does move it widens the interval, which blocks. Blocking on the
    /// outlier share as well left most figures of a 15-sample run unranked on a 2-core
    /// machine (2 Tukey outliers of 15 are already 13%) while their intervals were 1%
    /// wide.
    pub fn blocks_ranking(&self) -> bool {
        matches!(
            self,
            Warning::WideInterval { .. } | Warning::FewSamples { .. }
        )
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

/// A finished measurement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Measurement {
    /// What was measured.
    pub id: BenchId,
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

impl Measurement {
    /// Summarizes `samples` and runs the validity checks.
    pub fn from_samples(
        id: BenchId,
        settings: &Settings,
        validity: &Validity,
        bytes_per_op: Option<u64>,
        batch: u64,
        samples: Vec<RawSample>,
    ) -> Result<Measurement, StatsError> {
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
        let ticks_per_op = median(
            samples
                .iter()
                .filter_map(|s| s.ticks.map(|t| t as f64 / s.iterations.max(1) as f64)),
        );
        let ticks_per_byte = match (ticks_per_op, bytes_per_op) {
            (Some(t), Some(b)) if b > 0 => Some(t / b as f64),
            _ => None,
        };
        let forks = samples.iter().map(|s| s.fork).max().unwrap_or(0);
        let mut m = Measurement {
            id,
            mode,
            unit,
            bytes_per_op,
            batch,
            forks,
            summary,
            bytes_per_second,
            ticks_per_op,
            ticks_per_byte,
            warnings: Vec::new(),
            samples,
        };
        m.warnings = m.validity_warnings(settings, validity);
        Ok(m)
    }

    fn validity_warnings(&self, settings: &Settings, validity: &Validity) -> Vec<Warning> {
        let mut w = Vec::new();
        let s = &self.summary;
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
        if let Some(sample_ns) = median(self.samples.iter().map(|s| s.ns as f64))
            && sample_ns < 100.0 * validity.resolution_ns as f64
        {
            w.push(Warning::NearResolution {
                sample_ns,
                resolution_ns: validity.resolution_ns,
            });
        }
        let per_op_ns = median(self.samples.iter().map(RawSample::ns_per_op)).unwrap_or(0.0);
        let overhead_ns = match self.mode {
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
    pub fn time_ratio(
        &self,
        other: &Measurement,
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
