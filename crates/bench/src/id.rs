//! What a measurement is of: the benchmark identifier, and the lab's names for the
//! harness's generic types.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The lab's measurements: a [`cipherlab_harness::Measurement`] identified by a
/// [`BenchId`].
pub type Measurement = cipherlab_harness::Measurement<BenchId>;

/// The lab's suites of benchmarks.
pub type Suite<'a> = cipherlab_harness::Suite<'a, BenchId>;

/// The lab's progress reports.
pub type Progress<'a> = cipherlab_harness::Progress<'a, BenchId>;

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

impl cipherlab_harness::Identity for BenchId {
    fn key(&self) -> String {
        BenchId::key(self)
    }
}

impl fmt::Display for BenchId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.key())
    }
}
