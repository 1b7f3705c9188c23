//! `objects`: an object graph serialized through an encrypting stream and read back, as
//! the Java stream-security paper did with `ObjectOutputStream` over
//! `CipherOutputStream` (100 objects of about 5 KB). Ours: serde with postcard, the
//! integers written whole (fixed-width little-endian, like Java's serialization: many
//! zero bytes) through
//! [`SealWriter`]/[`SealReader`], the authenticated container, for the AEADs; and, for the
//! paper's legacy ciphers, the raw mode (`cipherlab encrypt --raw`: what
//! `CipherOutputStream` gives, no integrity) after serializing to memory.
//!
//! Phases: `write` (serialize, encrypt, finish the stream) and `read` (decrypt,
//! verify, deserialize); `none` is serialization alone, the baseline the others are read
//! against.
//!
//! The paper's experiment in Java itself comes from the Java runner ([`java_stream`]):
//! its figures (runtime `java`) get a table of their own beside ours, since they are of
//! Java's serialization format, not ours.

use std::hint::black_box;
use std::io::BufWriter;

use cipherlab_ciphers::{CipherSpec, Mode, catalogue, generate_iv, generate_key};
use cipherlab_seal::raw::{self, RawParams};
use cipherlab_seal::{KeyFile, SealOptions, SealReader, SealWriter, Secret};
use serde::{Deserialize, Serialize};

use super::find::{self, distinct};
use super::java_stream;
use super::paper::java_stream::OBJECT_BYTES;
use super::{Config, Elsewhere, Study, StudyError, err};
use cipherlab_harness::Settings;
use cipherlab_harness::machine::MachineInfo;
use cipherlab_harness::rng::Rng;
use cipherlab_harness::{BatchSize, Bencher};
use cipherlab_results::artifact::Artifact;
use cipherlab_results::artifact::table::{Table, num, text};
use cipherlab_results::id::{BenchId, Measurement, Phase, Subject, Suite};
use cipherlab_results::verdict::{self, Agreement, Order};

pub struct ObjectsStudy;

const NAME: &str = "objects";

/// Container AEADs, then the paper's ciphers in raw mode.
const CIPHERS: [CipherSpec; 10] = [
    CipherSpec::of(&catalogue::AES, 256, Some(Mode::Gcm)),
    CipherSpec::aead(&catalogue::CHACHA20_POLY1305),
    CipherSpec::aead(&catalogue::ASCON_AEAD128),
    CipherSpec::aead(&catalogue::XOODYAK),
    CipherSpec::aead(&catalogue::ISAP_A_128A),
    CipherSpec::of(&catalogue::DES, 56, Some(Mode::Ecb)),
    CipherSpec::of(&catalogue::TDES, 168, Some(Mode::Ecb)),
    CipherSpec::of(&catalogue::BLOWFISH, 128, Some(Mode::Ecb)),
    CipherSpec::of(&catalogue::AES, 128, Some(Mode::Ecb)),
    CipherSpec::of(&catalogue::AES, 128, Some(Mode::Cbc)),
];

/// AES as the paper's conclusion names it, and the ciphers it outperformed there.
const PAPER_AES: CipherSpec = CipherSpec::of(&catalogue::AES, 128, Some(Mode::Ecb));
const PAPER_OUTPERFORMED: [CipherSpec; 3] = [
    CipherSpec::of(&catalogue::DES, 56, Some(Mode::Ecb)),
    CipherSpec::of(&catalogue::TDES, 168, Some(Mode::Ecb)),
    CipherSpec::of(&catalogue::BLOWFISH, 128, Some(Mode::Ecb)),
];

/// A medical record: the kind of object the paper's project sent (text, small integers,
/// references to other records).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Record {
    #[serde(with = "postcard::fixint::le")]
    id: u64,
    name: String,
    #[serde(with = "postcard::fixint::le")]
    born: u16,
    #[serde(with = "postcard::fixint::le")]
    ward: u32,
    notes: String,
    /// Pulse readings, one a minute: small integers, mostly zero bytes when fixed-width.
    pulse: Vec<Int32>,
    allergies: Vec<String>,
    /// Ids of related records (the graph's edges).
    related: Vec<Int64>,
}

/// A `u32` written whole (4 bytes), as Java's `writeInt` does; postcard alone would write
/// a varint, and the study's byte counts would no longer be the paper's kind of data.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
pub struct Int32(#[serde(with = "postcard::fixint::le")] u32);

/// A `u64` written whole (8 bytes), as Java's `writeLong` does.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
pub struct Int64(#[serde(with = "postcard::fixint::le")] u64);

/// The graph: records and who refers whom.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Registry {
    records: Vec<Record>,
}

const WORDS: [&str; 16] = [
    "stable",
    "pain",
    "rest",
    "fluids",
    "fever",
    "review",
    "scan",
    "dose",
    "sleep",
    "walk",
    "nausea",
    "follow-up",
    "discharge",
    "observe",
    "improved",
    "ward",
];

/// `n` records of about [`OBJECT_BYTES`] each when serialized, from a fixed seed.
pub fn registry(n: usize) -> Registry {
    let mut rng = Rng::new(0x0b1ec7);
    let records = (0..n as u64)
        .map(|id| {
            let mut notes = String::new();
            while notes.len() < 1200 {
                notes.push_str(WORDS[rng.index(WORDS.len())]);
                notes.push(' ');
            }
            Record {
                id,
                name: format!("patient {id:05}"),
                born: 1930 + rng.below(90) as u16,
                ward: rng.below(40) as u32,
                notes,
                pulse: (0..900).map(|_| Int32(55 + rng.below(70) as u32)).collect(),
                allergies: (0..rng.below(3))
                    .map(|i| ["penicillin", "latex", "nuts"][i as usize].to_string())
                    .collect(),
                related: (0..4).map(|_| Int64(rng.below(n as u64))).collect(),
            }
        })
        .collect();
    Registry { records }
}

/// The registry's bytes, as the `write` phase serializes them.
pub fn serialized(registry: &Registry) -> Vec<u8> {
    postcard::to_stdvec(registry).unwrap_or_default()
}

/// Scratch space for reading from a stream: postcard copies each string through it, so it
/// must hold the longest one (a record's notes, about 1.2 KB).
const READ_SCRATCH: usize = 64 << 10;

/// Deserializes the registry from a stream, as `ObjectInputStream` reads from a
/// `CipherInputStream`.
fn read_registry(r: impl std::io::Read) -> Result<Registry, String> {
    let mut scratch = vec![0u8; READ_SCRATCH];
    postcard::from_io((r, &mut scratch))
        .map(|(reg, _)| reg)
        .map_err(|e| e.to_string())
}

fn objects(cfg: &Config) -> usize {
    cfg.scale.pick(100, 1000, 100)
}

/// How one cipher streams: the container (AEADs) or raw mode.
enum Channel {
    Container(KeyFile),
    Raw(RawParams),
}

impl Channel {
    fn new(spec: CipherSpec) -> Result<Channel, String> {
        if spec.is_aead() {
            Ok(Channel::Container(KeyFile::generate(spec)))
        } else {
            RawParams::new(spec, &generate_key(&spec), &generate_iv(&spec), None)
                .map(Channel::Raw)
                .map_err(|e| e.to_string())
        }
    }

    fn write(&self, reg: &Registry, out: Vec<u8>) -> Result<Vec<u8>, String> {
        match self {
            Channel::Container(key) => {
                let sealed = SealWriter::new(out, Secret::Key(key), &SealOptions::default())
                    .map_err(|e| e.to_string())?;
                // Serde writes many small pieces; the buffer turns them into chunk-sized
                // writes, as a BufferedOutputStream would in Java.
                let mut w = BufWriter::with_capacity(64 << 10, sealed);
                postcard::to_io(reg, &mut w).map_err(|e| e.to_string())?;
                let sealed = w.into_inner().map_err(|e| e.error().to_string())?;
                sealed.finish().map_err(|e| e.to_string())
            }
            Channel::Raw(p) => {
                let plain = postcard::to_stdvec(reg).map_err(|e| e.to_string())?;
                let mut out = out;
                raw::encrypt(plain.as_slice(), &mut out, p, None).map_err(|e| e.to_string())?;
                Ok(out)
            }
        }
    }

    fn read(&self, sealed: &[u8]) -> Result<Registry, String> {
        match self {
            Channel::Container(key) => {
                let r = SealReader::new(sealed, Secret::Key(key)).map_err(|e| e.to_string())?;
                read_registry(std::io::BufReader::with_capacity(64 << 10, r))
            }
            Channel::Raw(p) => {
                let mut plain = Vec::with_capacity(sealed.len());
                raw::decrypt(sealed, &mut plain, p, None).map_err(|e| e.to_string())?;
                postcard::from_bytes(&plain).map_err(|e| e.to_string())
            }
        }
    }
}

fn id(subject: impl Into<Subject>, provider: &str, phase: Phase, size: u64) -> BenchId {
    BenchId::new(NAME, subject, provider, phase, size, "object-graph")
}

/// The serialization-only baseline's subject: no cipher.
fn no_cipher() -> Subject {
    Subject::named("none")
}

impl Study for ObjectsStudy {
    fn name(&self) -> &'static str {
        NAME
    }

    fn title(&self) -> &'static str {
        "an object graph (records of ~5 KB) serialized through the encrypting stream and back"
    }

    fn source(&self) -> &'static str {
        "Java stream-security paper (ObjectOutputStream over CipherOutputStream)"
    }

    fn plan<'a>(&self, cfg: &Config, suite: &mut Suite<'a>) -> Result<(), StudyError> {
        let n = objects(cfg);
        let reg = registry(n);
        let size = serialized(&reg).len() as u64;
        // Baselines: serialization alone.
        let r = reg.clone();
        suite.add(
            id(no_cipher(), "serde-postcard", Phase::Write, size),
            Some(size),
            move |b| {
                b.iter_batched(
                    || Vec::with_capacity(size as usize + 4096),
                    |out| postcard::to_io(black_box(&r), out).is_ok(),
                    BatchSize::Inputs(4),
                );
            },
        );
        let plain = serialized(&reg);
        suite.add(
            id(no_cipher(), "serde-postcard", Phase::Read, size),
            Some(size),
            move |b| {
                b.iter(|| postcard::from_bytes::<Registry>(black_box(&plain)).is_ok());
            },
        );
        for spec in CIPHERS.into_iter().filter(|s| cfg.filter.accepts_spec(s)) {
            let channel = Channel::new(spec).map_err(|e| err(NAME, e))?;
            // Prove the round trip before timing it.
            let sealed = channel
                .write(&reg, Vec::new())
                .map_err(|e| err(NAME, format!("{spec}: {e}")))?;
            match channel.read(&sealed) {
                Ok(back) if back == reg => {}
                Ok(_) => return Err(err(NAME, format!("{spec}: the graph read back differs"))),
                Err(e) => return Err(err(NAME, format!("{spec}: {e}"))),
            }
            let provider = super::check::prove(&spec, None).map_err(|e| err(NAME, e))?;
            let (w, r) = (std::rc::Rc::new(channel), reg.clone());
            let w2 = std::rc::Rc::clone(&w);
            let cap = sealed.len() + 4096;
            suite.add(
                id(spec, provider, Phase::Write, size),
                Some(size),
                move |b| {
                    b.iter_batched(
                        || Vec::with_capacity(cap),
                        |out| w.write(black_box(&r), std::mem::take(out)).is_ok(),
                        BatchSize::Inputs(4),
                    );
                },
            );
            suite.add(
                id(spec, provider, Phase::Read, size),
                Some(size),
                move |b: &mut Bencher<'_>| {
                    b.iter(|| w2.read(black_box(&sealed)).is_ok());
                },
            );
        }
        Ok(())
    }

    /// The same experiment in the JVM, when the Java runner is ready.
    fn runs_elsewhere(&self) -> bool {
        true
    }

    fn elsewhere(&self, cfg: &Config, settings: &Settings) -> Result<Elsewhere, StudyError> {
        Ok(java_stream::measure(NAME, cfg, settings))
    }

    fn findings(
        &self,
        cfg: &Config,
        all: &[&Measurement],
        _machine: &MachineInfo,
    ) -> Result<Vec<Artifact>, StudyError> {
        let (java, ms): (Vec<&Measurement>, Vec<&Measurement>) =
            all.iter().partition(|m| super::java_stream::in_java(m));
        let ms = &ms[..];
        let base_w = find::one(ms, &no_cipher(), Phase::Write, None, None);
        let base_r = find::one(ms, &no_cipher(), Phase::Read, None, None);
        let mut t = Table::new(&[
            "cipher",
            "channel",
            "write ms",
            "read ms",
            "write / serialization alone [99% CI]",
            "read / deserialization alone [99% CI]",
        ]);
        for alg in distinct(ms, |m| m.id.algorithm.clone()) {
            let w = find::one(ms, &alg, Phase::Write, None, None);
            let r = find::one(ms, &alg, Phase::Read, None, None);
            let channel = match alg.spec() {
                Some(s) if s.is_aead() => "container (authenticated)",
                Some(_) => "raw (no integrity)",
                None => "serialization only",
            };
            t.row(vec![
                text(&alg).into(),
                text(channel).into(),
                w.map_or(serde_json::Value::Null, |m| num(m.median_ns_per_op() / 1e6))
                    .into(),
                r.map_or(serde_json::Value::Null, |m| num(m.median_ns_per_op() / 1e6))
                    .into(),
                find::ratio_cell(w.zip(base_w).and_then(|(w, b)| find::ratio(w, b))),
                find::ratio_cell(r.zip(base_r).and_then(|(r, b)| find::ratio(r, b))),
            ]);
        }
        // The paper's conclusion: AES outperformed DES, 3DES and Blowfish (written through
        // the stream). Ours: AES-128 in the same raw mode against each.
        let write_of = |spec: &CipherSpec| find::of(ms, spec, Phase::Write, None, None);
        let aes = write_of(&PAPER_AES);
        let checked: Vec<(String, Agreement)> = PAPER_OUTPERFORMED
            .iter()
            .filter_map(|spec| {
                let (a, o) = (aes?, write_of(spec)?);
                let v = Agreement::of(Order::Faster, Order::of(find::ratio(a, o).as_ref()));
                Some((spec.algorithm.title.to_string(), v))
            })
            .collect();
        let verdicts: Vec<String> = checked
            .iter()
            .map(|(title, v)| format!("against {title} {v}"))
            .collect();
        t.note = format!(
            "{} records of about {} bytes, serialized with serde + postcard (fixed-width integers) as one graph. \
             The paper concluded that AES outperformed DES, 3DES and Blowfish; this run (AES-128 written in \
             the same raw mode, decided by the 99% interval of the write-time ratio): {}. The container \
             authenticates every 64 KiB chunk, so a reader never gets an object built from modified bytes; \
             raw mode, like Java's CipherOutputStream, does not.",
            objects(cfg),
            OBJECT_BYTES,
            if verdicts.is_empty() {
                "not measured".to_string()
            } else {
                verdicts.join(", ")
            }
        );
        let mut out = vec![t.artifact(
            NAME,
            "object-stream",
            "Object graph through the encrypting stream",
        )];
        if !checked.is_empty() {
            let claims = checked.into_iter().map(|(title, v)| {
                (
                    format!("AES outperformed {title} (written through the stream)"),
                    v,
                )
            });
            out.push(verdict::claims_table(claims).artifact(
                NAME,
                "paper/aes-outperformed",
                "The paper's conclusion, AES outperformed DES, 3DES and Blowfish: checked",
            ));
        }
        out.extend(java_stream::findings(NAME, &java, ms));
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_are_about_five_kilobytes_and_deterministic() {
        let a = serialized(&registry(10));
        assert_eq!(a, serialized(&registry(10)));
        let per = a.len() / 10;
        assert!((4000..6500).contains(&per), "{per} bytes per record");
        // Fixed-width integers: plenty of zero bytes, as in Java's stream (Fig. 1).
        let zeros = a.iter().filter(|&&b| b == 0).count();
        assert!(zeros * 4 > a.len(), "{zeros} zeros of {}", a.len());
    }

    #[test]
    fn every_channel_round_trips() {
        let reg = registry(3);
        for spec in CIPHERS {
            let c = Channel::new(spec).unwrap();
            let sealed = c.write(&reg, Vec::new()).unwrap();
            assert_eq!(c.read(&sealed).unwrap(), reg, "{spec}");
        }
    }
}
