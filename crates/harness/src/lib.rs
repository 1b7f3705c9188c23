//! # cipherlab-harness: the measuring engine
//!
//! Everything cipherlab measures with, and nothing it measures: no cipher depends on
//! this crate and it depends on no cipher, so the lab (`cipherlab-bench`), the speed
//! tables of `cipherlab-lwc` and `cipherlab-ciphers` (as a dev-dependency) and the
//! runners of other languages' samples share one set of clocks, statistics and validity
//! checks. One job per module:
//!
//! | module | job |
//! |---|---|
//! | [`timer`] | clocks behind the [`timer::Timer`] trait: wall clock, TSC ticks, the thread's CPU time; resolution and overhead estimates |
//! | [`stats`] | median, mean, standard deviation, percentiles, bootstrap confidence intervals (also of a ratio of medians), Tukey and MAD outliers, Welch's t, byte entropy, chi-square; each with its reference; no reporting |
//! | [`rng`] | the seeded generator behind the bootstrap (and the lab's corpus) |
//! | [`machine`] | the machine block: CPU model and flags, cores, memory, OS, kernel, rustc, crate versions, hashed host name, frequency governor and boost, caches, hypervisor |
//! | [`settings`] | JMH's modes (average time, throughput, single shot, sample) and the settings of a measurement |
//! | [`measurement`] | what a benchmark produces: raw samples, summary, rates, warnings; also from samples taken elsewhere ([`Measurement::from_external_samples`]) |
//! | [`validity`] | how far a run's figures can be trusted: timer resolution and overhead, the harness's floor, and the warnings each figure gets |
//! | [`protocol`] | the [`Bencher`] protocol (calibration, warm-up, samples) and the [`Harness`] that runs it |
//! | [`suite`] | the [`Suite`] scheduler: benchmarks in rounds over the run, or each in forks; extra rounds for the figures a caller names undecided ([`Suite::run_adaptive`]) |
//! | [`keep_awake`] | idle-priority spinners on the other CPUs while a run measures, so the measuring core's speed holds still |
//! | [`steadiness`] | how steady the core's speed stayed through a run: a fixed reference loop timed between slices |
//! | [`fork`] | the protocol between a parent and its fork children |
//! | [`interleave`] | several operations timed turn about, on the TSC and the thread's CPU time: how the speed tables compare implementations |
//!
//! A benchmark is named by any [`Identity`]; a `String` will do:
//!
//! ```
//! use cipherlab_harness::{Harness, Settings};
//! use std::time::Duration;
//!
//! let settings = Settings { iterations: 10, sample_time: Duration::from_millis(1),
//!                           warmup_time: Duration::from_millis(5), ..Settings::quick() };
//! let harness = Harness::new(settings);
//! let m = harness.measure("xor 1 KiB".to_string(), Some(1024), |b| {
//!     let mut buf = vec![0u8; 1024];                       // setup: not timed
//!     b.iter_on(&mut buf, |buf| buf.iter_mut().for_each(|x| *x ^= 0x5a));
//! })?;
//! assert_eq!(m.summary.n, 10);
//! assert!(m.bytes_per_second.unwrap() > 0.0);
//! # Ok::<(), cipherlab_harness::BenchError>(())
//! ```

pub mod fork;
pub mod interleave;
pub mod keep_awake;
pub mod machine;
pub mod measurement;
pub mod protocol;
pub mod rng;
pub mod settings;
pub mod stats;
pub mod steadiness;
pub mod suite;
pub mod timer;
pub mod validity;

mod error;

pub use error::BenchError;
pub use measurement::{ExternalTimer, Identity, Measurement, RawSample};
pub use protocol::{BatchSize, Bencher, Harness};
pub use settings::{Clock, Mode, Settings, Unit, UnknownMode};
pub use suite::{Extra, ExtraReport, Progress, Suite};
pub use validity::{Validity, Warning};
