//! # cipherlab-bench: the measuring lab
//!
//! The parts `cipherlab bench`, its studies, `compare` and the report stand on, one job
//! per module:
//!
//! | module | job |
//! |---|---|
//! | [`stats`] | median, mean, standard deviation, percentiles, bootstrap confidence intervals (also of a ratio of medians), Tukey and MAD outliers, byte entropy; each with its reference; no reporting |
//! | [`measure`] | timers behind the [`measure::Timer`] trait: wall-clock nanoseconds, TSC ticks; resolution and overhead estimates |
//! | [`harness`] | JMH's method: warm-up, calibrated batches, modes average-time / throughput / single-shot / sample, forks in child processes, validity checks, progress callbacks |
//! | [`machine`] | the machine block: CPU model and flags, cores, memory, OS, kernel, rustc and crate versions, hashed host name |
//! | [`store`] | the SQLite results store (schema in `docs/results.md`) |
//! | [`corpus`] | deterministic realistic files (text, UTF-16, BMP, WAV, AIFF, compressed, sparse, dense) and a loader for a user's folder |
//! | [`rng`] | the seeded generator behind the bootstrap and the corpus |
//! | [`studies`] | the experiments `cipherlab bench` runs: plans of benchmarks, and findings (the papers' figures beside ours, histograms, pictures) |
//! | [`ranking`] | a study's headline ranking: fastest first, ties where intervals overlap |
//! | [`compare`] | two runs figure by figure: ratio of medians with its bootstrap interval, verdicts, rank agreement |
//! | [`report`] | the self-contained HTML report (SVG plots, tables, histograms, pictures) and the CSV/JSON exporters |
//!
//! Examples: `time_cipher` times catalogue ciphers (encrypt and decrypt, optional forks
//! and store), `write_corpus DIR [SIZE] [SEED]` writes one file of every corpus kind:
//! `cargo run --release -p cipherlab-bench --example time_cipher -- --quick`.
//!
//! Timing a cipher the way a study does: set up outside, hand the bare operation to
//! the [`harness::Bencher`], keep the result with the machine block.
//!
//! ```
//! use cipherlab_bench::{corpus, harness::{BenchId, Harness, Settings}, machine::MachineInfo,
//!                       store::{NewRun, Store}};
//! use std::time::Duration;
//!
//! let data = corpus::generate(corpus::DataType::Bmp, 4096, 1);   // the same bytes every time
//! let settings = Settings { iterations: 10, sample_time: Duration::from_millis(1),
//!                           warmup_time: Duration::from_millis(5), ..Settings::quick() };
//! let harness = Harness::new(settings.clone());
//! let id = BenchId::new("data-type", "rot13", "example", "encrypt", 4096, "bmp");
//! let m = harness.measure(id, Some(4096), |b| {
//!     let mut buf = data.clone();                                // setup: not timed
//!     b.iter_on(&mut buf, |buf| buf.iter_mut().for_each(|x| *x = x.wrapping_add(13)));
//! })?;
//! println!("{:.0} ns/op, 99% CI [{:.0}, {:.0}], {:.2} GB/s", m.summary.median,
//!          m.summary.median_ci.low, m.summary.median_ci.high,
//!          m.bytes_per_second.unwrap_or(0.0) / 1e9);
//!
//! let mut store = Store::open_in_memory()?;
//! let run = NewRun { settings, validity: harness.validity().clone(),
//!                    ..NewRun::now("doc example") };
//! let id = store.save_run(&run, &[m], cipherlab_bench::store::now_ms())?;
//! assert_eq!(store.load_run(id)?.measurements.len(), 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod compare;
pub mod corpus;
pub mod harness;
pub mod machine;
pub mod measure;
pub mod ranking;
pub mod report;
pub mod rng;
pub mod stats;
pub mod store;
pub mod studies;
