//! What a measurement is of: the benchmark identifier, and the lab's names for the
//! harness's generic types.

use std::fmt;

use cipherlab_ciphers::CipherSpec;
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

    /// The catalogue cipher the figure is of, where it is one (a hash, a public-key
    /// operation or a baseline has none). Names are parsed here, once per lookup, because
    /// an identity also comes back from the store and from other runtimes as text.
    pub fn cipher(&self) -> Option<CipherSpec> {
        CipherSpec::parse(&self.algorithm).ok()
    }

    /// Whether the figure is of `spec` (any padding: the studies' own choice).
    pub fn is_cipher(&self, spec: &CipherSpec) -> bool {
        self.cipher().is_some_and(|c| same_cipher(&c, spec))
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

/// Whether two specs name the same cipher: algorithm, key size, mode and RC2's effective
/// bits; padding is how a study feeds it, not which cipher it is.
pub fn same_cipher(a: &CipherSpec, b: &CipherSpec) -> bool {
    a.algorithm == b.algorithm
        && a.key_bits == b.key_bits
        && a.mode == b.mode
        && a.effective_bits.unwrap_or(a.key_bits) == b.effective_bits.unwrap_or(b.key_bits)
}
