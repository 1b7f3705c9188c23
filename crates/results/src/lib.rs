//! # cipherlab-results: what becomes of a measurement
//!
//! The results half of the lab, below the studies and the runners: it knows what a figure
//! is of and what a run holds, and never how a figure was measured.
//!
//! | module | job |
//! |---|---|
//! | [`id`] | what a measurement is of: the benchmark identifier |
//! | [`artifact`] | what a study makes besides timings, as values: tables, histograms, pictures, notes |
//! | [`ranking`] | a study's headline ranking: fastest first, ties where intervals overlap |
//! | [`compare`] | two runs figure by figure: ratio of medians with its bootstrap interval, verdicts, rank agreement |
//! | [`store`] | the results database, SQLite or PostgreSQL (schema in `docs/results.md`) |
//! | [`report`] | the self-contained HTML report (SVG plots, tables, histograms, pictures) and the CSV/JSON/JMH/Google Benchmark exporters |
//! | [`time`] | Unix milliseconds and their UTC spelling |
//! | [`verdict`] | one answer to "is A faster than B" (`Order`) and "does this run agree with the paper" (`Agreement`), the margin for "the same", and a run's claims summary |
//!
//! Keeping a measurement and reading it back:
//!
//! ```
//! use cipherlab_results::{id::{BenchId, Phase, Subject}, store::{NewRun, Store}};
//! use cipherlab_harness::{Harness, Settings, machine::MachineInfo};
//! use std::time::Duration;
//!
//! let settings = Settings { iterations: 10, sample_time: Duration::from_millis(1),
//!                           warmup_time: Duration::from_millis(5), ..Settings::quick() };
//! let harness = Harness::new(settings.clone());
//! let id = BenchId::new("example", Subject::named("rot13"), "example", Phase::Encrypt, 4096, "bmp");
//! let m = harness.measure(id, Some(4096), |b| {
//!     let mut buf = vec![7u8; 4096];                             // setup: not timed
//!     b.iter_on(&mut buf, |buf| buf.iter_mut().for_each(|x| *x = x.wrapping_add(13)));
//! })?;
//! let mut store = Store::open_in_memory()?;
//! let run = NewRun { settings, validity: harness.validity().clone(),
//!                    ..NewRun::now("doc example", MachineInfo::detect()) };
//! let id = store.save_run(&run, &[m], cipherlab_results::time::now_ms())?;
//! assert_eq!(store.load_run(id)?.measurements.len(), 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod artifact;
pub mod compare;
pub mod id;
pub mod ranking;
pub mod report;
pub mod store;
pub mod time;
pub mod verdict;
