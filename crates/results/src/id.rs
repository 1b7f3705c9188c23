//! What a measurement is of: the benchmark identifier, and the lab's names for the
//! harness's generic types.
//!
//! An identity is typed: the phase and the runtime are enums, and the subject carries the
//! catalogue's [`CipherSpec`] where the figure is of a catalogue cipher. Names are parsed
//! only where an identity arrives as text — from the store, from a fork child's command
//! line, from another runtime — by [`Phase::parse`], [`Runtime::parse`] and
//! [`Subject::parse`].

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};

use cipherlab_ciphers::CipherSpec;
use cipherlab_platforms::Descriptor;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The lab's measurements: a [`cipherlab_harness::Measurement`] identified by a
/// [`BenchId`].
pub type Measurement = cipherlab_harness::Measurement<BenchId>;

/// The lab's suites of benchmarks.
pub type Suite<'a> = cipherlab_harness::Suite<'a, BenchId>;

/// The lab's progress reports.
pub type Progress<'a> = cipherlab_harness::Progress<'a, BenchId>;

/// Declares a closed set of names: the enum, its spelling, and parsing back.
macro_rules! names {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident = $text:literal,)* }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $($(#[$vdoc])* $variant,)*
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant,)*];

            /// The name the store, the exports and the command line use.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)*
                }
            }

            /// The value spelled `s` ([`Self::as_str`]'s spelling), if there is one.
            pub fn parse(s: &str) -> Option<$name> {
                Self::ALL.iter().copied().find(|v| v.as_str() == s)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<$name, D::Error> {
                let s = String::deserialize(d)?;
                $name::parse(&s).ok_or_else(|| {
                    serde::de::Error::custom(format!(
                        concat!("unknown ", stringify!($name), " '{}'"),
                        s
                    ))
                })
            }
        }
    };
}

names! {
    /// What part of the work a figure times, declared in the order people think of them
    /// (the report's plots and tables follow it).
    Phase {
        /// Generating a key (and, for public-key schemes, a key pair).
        Keygen = "keygen",
        /// Deriving a document's keys from its passwords (PDF).
        Keys = "keys",
        /// Checking a password and recovering the file key (PDF).
        Unlock = "unlock",
        /// Building a cipher object from a key: the key schedule.
        Init = "init",
        /// Encrypting one input with a ready cipher.
        Encrypt = "encrypt",
        /// Decrypting one input with a ready cipher.
        Decrypt = "decrypt",
        /// A whole encryption job as a user runs it (a PDF: open, encrypt, write).
        EncryptJob = "encrypt-job",
        /// A whole decryption job as a user runs it.
        DecryptJob = "decrypt-job",
        /// Serializing an object graph through an encrypting stream.
        Write = "write",
        /// Reading it back through a decrypting stream.
        Read = "read",
        /// One call of a permutation.
        Permute = "permute",
    }
}

/// The language runtime a figure was measured in: this process ([`Runtime::RUST`]), one
/// of the runtimes with a runner, which are those of the one list
/// ([`cipherlab_platforms::runtimes`], platforms/runtimes.toml), or a runner of the user's
/// that this process declared ([`Runtime::declare`]: `--runner`, runners.toml). Any other
/// name does not parse, so stored data of a runtime nobody declared is refused. Ordered
/// as the list is, after Rust, then the user's in the order they were declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Runtime(u16);

/// The user runners' names this process declared, in order (leaked: a handful per
/// process, and a [`Runtime`] is `Copy` and names itself as `&'static str`).
static DECLARED: std::sync::RwLock<Vec<&'static str>> = std::sync::RwLock::new(Vec::new());

fn declared() -> Vec<&'static str> {
    DECLARED.read().unwrap_or_else(|p| p.into_inner()).clone()
}

impl Runtime {
    /// This process: cipherlab's own Rust code and the Rust crates it links.
    pub const RUST: Runtime = Runtime(0);

    /// The name of [`Runtime::RUST`] in the store.
    const RUST_NAME: &'static str = "rust";

    /// Every runtime: Rust, then the list's, then the declared user runners'.
    pub fn all() -> Vec<Runtime> {
        (0..=cipherlab_platforms::runtimes().len() + declared().len())
            .filter_map(|i| u16::try_from(i).ok().map(Runtime))
            .collect()
    }

    /// The user runners declared in this process, in order.
    pub fn users() -> Vec<Runtime> {
        Runtime::all().into_iter().filter(|r| r.is_user()).collect()
    }

    /// Declares a user runner's runtime (its NAME: `--runner NAME=...`, `[runner.NAME]`),
    /// so figures and stored data can name it; the same name again gives the same
    /// runtime. Refused: `rust`, a runtime of the list, a name that is not lower-case
    /// letters, digits and `-`.
    pub fn declare(name: &str) -> Result<Runtime, String> {
        cipherlab_platforms::user::check_name(name)?;
        let mut list = DECLARED.write().unwrap_or_else(|p| p.into_inner());
        let i = match list.iter().position(|n| *n == name) {
            Some(i) => i,
            None => {
                list.push(Box::leak(name.to_string().into_boxed_str()));
                list.len() - 1
            }
        };
        u16::try_from(cipherlab_platforms::runtimes().len() + 1 + i)
            .map(Runtime)
            .map_err(|_| "too many user runners".to_string())
    }

    /// Whether it is a user runner's ([`Runtime::declare`]).
    pub fn is_user(self) -> bool {
        usize::from(self.0) > cipherlab_platforms::runtimes().len()
    }

    /// The runtime with a runner that `d` describes.
    pub fn of(d: &Descriptor) -> Option<Runtime> {
        Runtime::parse(&d.id)
    }

    /// Its descriptor in the list; `None` for Rust and the user's.
    pub fn descriptor(self) -> Option<&'static Descriptor> {
        let i = usize::from(self.0).checked_sub(1)?;
        cipherlab_platforms::runtimes().get(i)
    }

    /// The name the store, the exports and the command line use (the list's id, or the
    /// user runner's NAME).
    pub fn as_str(self) -> &'static str {
        if let Some(d) = self.descriptor() {
            return d.id.as_str();
        }
        let listed = cipherlab_platforms::runtimes().len();
        match usize::from(self.0).checked_sub(listed + 1) {
            Some(i) => declared().get(i).copied().unwrap_or("?"),
            None => Runtime::RUST_NAME,
        }
    }

    /// The runtime spelled `s`: `rust`, an id of the list, or a declared user runner.
    pub fn parse(s: &str) -> Option<Runtime> {
        if s == Runtime::RUST_NAME {
            return Some(Runtime::RUST);
        }
        let listed = cipherlab_platforms::runtimes();
        let i = match listed.iter().position(|d| d.id == s) {
            Some(i) => i,
            None => listed.len() + declared().iter().position(|n| *n == s)?,
        };
        u16::try_from(i + 1).ok().map(Runtime)
    }
}

impl fmt::Display for Runtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Runtime {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Runtime {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Runtime, D::Error> {
        let s = String::deserialize(d)?;
        Runtime::parse(&s).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "unknown Runtime '{s}' (not rust, nor in platforms/runtimes.toml, nor a user runner: \
                 declare it with --runner {s}=COMMAND or in runners.toml)"
            ))
        })
    }
}

/// What a figure is of: a catalogue cipher (with its typed spec), or something else by
/// name — a hash, a permutation (`ascon-p12`), a public-key scheme (`rsa-2048`), a PDF
/// cipher, a baseline (`none`). Two subjects are the same when their names are.
#[derive(Debug, Clone)]
pub struct Subject {
    name: String,
    cipher: Option<CipherSpec>,
}

impl Subject {
    /// A catalogue cipher. The padding is how a study feeds it, not which cipher it is,
    /// so it is not part of the identity.
    pub fn cipher(spec: CipherSpec) -> Subject {
        Subject {
            name: spec.to_string(),
            cipher: Some(spec),
        }
    }

    /// Anything that is not a catalogue cipher, by its name.
    pub fn named(name: impl Into<String>) -> Subject {
        Subject {
            name: name.into(),
            cipher: None,
        }
    }

    /// A subject read back as text (the store, another runtime): a catalogue cipher if
    /// the catalogue knows the name, else a named subject.
    pub fn parse(name: &str) -> Subject {
        match CipherSpec::parse(name) {
            Ok(spec) => Subject::cipher(spec),
            Err(_) => Subject::named(name),
        }
    }

    /// Its name: the catalogue's canonical name for a cipher.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The catalogue cipher, where the subject is one.
    pub fn spec(&self) -> Option<&CipherSpec> {
        self.cipher.as_ref()
    }
}

impl From<CipherSpec> for Subject {
    fn from(spec: CipherSpec) -> Subject {
        Subject::cipher(spec)
    }
}

impl From<&CipherSpec> for Subject {
    fn from(spec: &CipherSpec) -> Subject {
        Subject::cipher(*spec)
    }
}

impl PartialEq for Subject {
    fn eq(&self, other: &Subject) -> bool {
        self.name == other.name
    }
}

impl Eq for Subject {}

impl Hash for Subject {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name.hash(state);
    }
}

impl PartialOrd for Subject {
    fn partial_cmp(&self, other: &Subject) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Subject {
    fn cmp(&self, other: &Subject) -> Ordering {
        self.name.cmp(&other.name)
    }
}

impl fmt::Display for Subject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

impl Serialize for Subject {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.name)
    }
}

impl<'de> Deserialize<'de> for Subject {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Subject, D::Error> {
        Ok(Subject::parse(&String::deserialize(d)?))
    }
}

/// A benchmark identifier that spells out everything the figure depends on.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct BenchId {
    /// The study it belongs to (`data-type`, `phases`, `lwc`, ...).
    pub study: String,
    /// What is timed: a catalogue cipher, or a named subject.
    pub algorithm: Subject,
    /// The implementation (provider): `rustcrypto`, `openssl`, `cipherlab`, `java-bc`, ...
    pub implementation: String,
    /// The language runtime.
    pub runtime: Runtime,
    /// The phase timed.
    pub phase: Phase,
    /// Input size in bytes (0 where there is no input, e.g. key generation).
    pub size: u64,
    /// The input's data type (a corpus `DataType` name (`cipherlab_bench::corpus`), or a user file).
    pub data_type: String,
}

impl BenchId {
    /// An identifier for a Rust implementation (runtime `rust`).
    pub fn new(
        study: &str,
        algorithm: impl Into<Subject>,
        implementation: &str,
        phase: Phase,
        size: u64,
        data_type: &str,
    ) -> BenchId {
        BenchId {
            study: study.to_string(),
            algorithm: algorithm.into(),
            implementation: implementation.to_string(),
            runtime: Runtime::RUST,
            phase,
            size,
            data_type: data_type.to_string(),
        }
    }

    /// The same identifier for another runtime.
    pub fn with_runtime(mut self, runtime: Runtime) -> BenchId {
        self.runtime = runtime;
        self
    }

    /// The catalogue cipher the figure is of, where it is one (a hash, a public-key
    /// operation or a baseline has none).
    pub fn cipher(&self) -> Option<&CipherSpec> {
        self.algorithm.spec()
    }

    /// Whether the figure is of `spec` (any padding: the studies' own choice).
    pub fn is_cipher(&self, spec: &CipherSpec) -> bool {
        self.cipher().is_some_and(|c| same_cipher(c, spec))
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

#[cfg(test)]
mod tests {
    use super::*;
    use cipherlab_ciphers::catalogue;

    #[test]
    fn names_round_trip() {
        for p in Phase::ALL {
            assert_eq!(Phase::parse(p.as_str()), Some(*p));
        }
        for r in Runtime::all() {
            assert_eq!(Runtime::parse(r.as_str()), Some(r));
        }
        assert_eq!(Phase::parse("encrypt "), None);
        let json = serde_json::to_string(&Phase::EncryptJob).unwrap();
        assert_eq!(json, "\"encrypt-job\"");
        assert!(serde_json::from_str::<Phase>("\"warp\"").is_err());
    }

    #[test]
    fn every_runtime_round_trips_through_the_list() {
        let all = Runtime::all();
        assert_eq!(all[0], Runtime::RUST);
        assert_eq!(Runtime::RUST.descriptor(), None);
        let list = cipherlab_platforms::runtimes();
        assert!(
            all.len() > list.len(),
            "Rust and every runtime of the list (then any declared user runner)"
        );
        for (r, d) in all[1..].iter().zip(list) {
            assert_eq!(r.descriptor(), Some(d));
            assert_eq!(Runtime::of(d), Some(*r));
            assert_eq!(r.as_str(), d.id, "the stored name is the list's id");
            let json = serde_json::to_string(r).unwrap();
            assert_eq!(serde_json::from_str::<Runtime>(&json).unwrap(), *r);
        }
        assert!(all.windows(2).all(|w| w[0] < w[1]), "ordered as the list");
        assert_eq!(Runtime::parse("cobol"), None);
        assert!(serde_json::from_str::<Runtime>("\"cobol\"").is_err());
    }

    #[test]
    fn a_declared_user_runner_is_a_runtime_and_an_undeclared_one_is_not() {
        assert_eq!(Runtime::parse("perl-mine"), None);
        assert!(serde_json::from_str::<Runtime>("\"perl-mine\"").is_err());
        let r = Runtime::declare("perl-mine").unwrap();
        assert_eq!(Runtime::declare("perl-mine").unwrap(), r, "declared once");
        assert!(r.is_user() && r.descriptor().is_none());
        assert_eq!(r.as_str(), "perl-mine");
        assert_eq!(Runtime::parse("perl-mine"), Some(r));
        assert_eq!(serde_json::from_str::<Runtime>("\"perl-mine\"").unwrap(), r);
        assert!(Runtime::all().contains(&r) && Runtime::users().contains(&r));
        assert!(!Runtime::RUST.is_user());
        assert!(Runtime::declare("java").is_err(), "a built-in runtime");
        assert!(Runtime::declare("rust").is_err());
        assert!(Runtime::declare("Perl").is_err());
    }

    #[test]
    fn a_subject_read_back_is_the_cipher_it_was() {
        let spec = CipherSpec::aead(&catalogue::ASCON_AEAD128);
        let s = Subject::cipher(spec);
        let back = Subject::parse(s.name());
        assert_eq!(back, s);
        assert!(back.spec().is_some_and(|b| same_cipher(b, &spec)));
        let perm = Subject::parse("ascon-p12");
        assert!(perm.spec().is_none());
        assert_eq!(perm, Subject::named("ascon-p12"));
        assert_ne!(perm, s);
    }
}
