//! # cipherlab-bench: the measuring lab
//!
//! The experiments `cipherlab bench` runs, on the measuring engine of `cipherlab-harness`
//! (timers, statistics, the JMH-style harness, the machine block). What becomes of their
//! results (identities, artifacts, rankings, the store, the report) is
//! `cipherlab-results`'; talking to the runners of other runtimes is
//! `cipherlab-platforms`'.
//!
//! | module | job |
//! |---|---|
//! | [`corpus`] | deterministic realistic files (text, UTF-16, BMP, WAV, AIFF, compressed, sparse, dense) and a loader for a user's folder |
//! | [`pipeline`] | one run as a library call: plan, time the other runtimes, measure, find, store ([`pipeline::run`]) |
//! | [`profile`] | `--profile`: a sampling CPU profile of each figure, as an artifact the report draws as a flame graph |
//! | [`studies`] | the experiments `cipherlab bench` runs: plans of benchmarks, and findings (the papers' figures beside ours, histograms, pictures) |
//!
//! Examples: `time_cipher` times catalogue ciphers (encrypt and decrypt, optional forks
//! and store), `write_corpus DIR [SIZE] [SEED]` writes one file of every corpus kind:
//! `cargo run --release -p cipherlab-bench --example time_cipher -- --quick`.
//!
//! Timing a cipher the way a study does: set up outside, hand the bare operation to
//! the harness's `Bencher`, keep the result with the machine block.
//!
//! ```
//! use cipherlab_bench::corpus;
//! use cipherlab_results::{id::{BenchId, Phase, Subject}, store::{NewRun, Store}};
//! use cipherlab_harness::{Harness, Settings};
//! use std::time::Duration;
//!
//! let data = corpus::generate(corpus::DataType::Bmp, 4096, 1);   // the same bytes every time
//! let settings = Settings { iterations: 10, sample_time: Duration::from_millis(1),
//!                           warmup_time: Duration::from_millis(5), ..Settings::quick() };
//! let harness = Harness::new(settings.clone());
//! let id = BenchId::new("data-type", Subject::named("rot13"), "example", Phase::Encrypt, 4096, "bmp");
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
//!                    ..NewRun::now("doc example", cipherlab_bench::this_machine()) };
//! let id = store.save_run(&run, &[m], cipherlab_results::time::now_ms())?;
//! assert_eq!(store.load_run(id)?.measurements.len(), 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod corpus;
pub mod native;
pub mod pipeline;
pub mod profile;
pub mod studies;

use cipherlab_harness::machine::MachineInfo;

/// This machine and build, with the versions of the crates the studies time (read from
/// `Cargo.lock` when this crate was built): the machine block of every run.
pub fn this_machine() -> MachineInfo {
    MachineInfo::detect().with_crate_versions(env!("CIPHERLAB_CRATE_VERSIONS"))
}
