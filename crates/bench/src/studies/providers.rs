//! `providers`: one algorithm through each of its implementations, as the file-features
//! paper compared Java's Sun and BouncyCastle providers. Every provider is proven against
//! the others first (the same ciphertext for the same key, IV and message), then timed on
//! the same input, short and long messages. Java's own two providers, `java-sunjce` and
//! `java-bc`, join through the Java runner (platforms/) where it is installed, after its
//! conformance vectors, with the keyed cipher kept between calls as the Rust providers'
//! figures keep theirs (except for the AEADs, which the JCA will not reuse with one nonce).

use cipherlab_ciphers::{CipherSpec, Mode, catalogue, providers};

use super::find::{self, distinct};
use super::inputs::Input;
use super::platforms::{Job, Target, measure};
use super::table::{Table, int, num, text};
use super::timing::{Subject, add_encrypt};
use super::{Config, Elsewhere, Study, StudyError, err};
use crate::corpus::DataType;
use crate::id::{Measurement, Suite};
use crate::store::Artifact;
use cipherlab_harness::Settings;
use cipherlab_harness::machine::MachineInfo;

pub struct ProvidersStudy;

/// The message sizes (bytes).
fn sizes(cfg: &Config) -> &'static [usize] {
    cfg.scale.pick(
        &[64, 16 << 10],
        &[64, 16 << 10, 1 << 20],
        &[64, 16 << 10, 1 << 20],
    )
}

const NAME: &str = "providers";

const CIPHERS: [CipherSpec; 14] = [
    CipherSpec::of(&catalogue::AES, 128, Some(Mode::Gcm)),
    CipherSpec::of(&catalogue::AES, 256, Some(Mode::Gcm)),
    CipherSpec::aead(&catalogue::CHACHA20_POLY1305),
    CipherSpec::of(&catalogue::AES, 128, Some(Mode::Ctr)),
    CipherSpec::of(&catalogue::AES, 128, Some(Mode::Cbc)),
    CipherSpec::of(&catalogue::AES, 128, Some(Mode::Ecb)),
    CipherSpec::of(&catalogue::AES, 256, Some(Mode::Cbc)),
    CipherSpec::of(&catalogue::DES, 56, Some(Mode::Ecb)),
    CipherSpec::of(&catalogue::TDES, 168, Some(Mode::Cbc)),
    CipherSpec::of(&catalogue::BLOWFISH, 128, Some(Mode::Cbc)),
    CipherSpec::of(&catalogue::RC2, 128, Some(Mode::Cbc)),
    CipherSpec::of(&catalogue::RC4, 128, None),
    CipherSpec::aead(&catalogue::ASCON_AEAD128),
    CipherSpec::of(&catalogue::SKIPJACK, 80, Some(Mode::Ecb)),
];

impl Study for ProvidersStudy {
    fn name(&self) -> &'static str {
        NAME
    }

    fn title(&self) -> &'static str {
        "one algorithm through each of its implementations (rustcrypto, openssl, ring, aws-lc, cipherlab)"
    }

    fn source(&self) -> &'static str {
        "file-features paper (Sun against BouncyCastle providers)"
    }

    fn plan<'a>(&self, cfg: &Config, suite: &mut Suite<'a>) -> Result<(), StudyError> {
        let sizes = sizes(cfg);
        for &size in sizes {
            let input = Input::corpus(DataType::Dense, size);
            for spec in CIPHERS.into_iter().filter(|s| cfg.filter.accepts_spec(s)) {
                let available: Vec<&'static str> = providers::supporting(&spec)
                    .into_iter()
                    .filter(|p| {
                        providers::by_name(p).is_ok_and(|prov| prov.available(&spec).is_ok())
                    })
                    .collect();
                // With one implementation there is nothing to compare (it is timed in
                // the other studies).
                if available.len() < 2 {
                    continue;
                }
                for p in available {
                    let s = Subject {
                        provider: Some(p),
                        ..Subject::new(NAME, spec)
                    };
                    add_encrypt(suite, &s, &input).map_err(|e| err(NAME, e))?;
                }
            }
        }
        Ok(())
    }

    /// `java-sunjce` and `java-bc` through the Java runner, on every cipher of the study
    /// they agreed on.
    fn elsewhere(&self, cfg: &Config, settings: &Settings) -> Result<Elsewhere, StudyError> {
        let jobs: Vec<Job> = CIPHERS
            .into_iter()
            .filter(|s| cfg.filter.accepts_spec(s))
            .map(|spec| Job {
                spec,
                sizes: sizes(cfg).iter().map(|&s| s as u64).collect(),
                reps: cfg.scale.pick(20, 30, 30),
                warmup_bytes: cfg.scale.pick(4 << 20, 32 << 20, 32 << 20),
                min_warmup_calls: 50,
            })
            .collect();
        if jobs.is_empty() {
            return Ok(Elsewhere::default());
        }
        let target = Target {
            study: NAME,
            runtimes: &["java"],
            all_providers: true,
            phases: &["encrypt"],
            reuse: true,
        };
        measure(&jobs, &target, settings).map_err(|e| err(NAME, e))
    }

    fn findings(
        &self,
        _cfg: &Config,
        ms: &[&Measurement],
        _machine: &MachineInfo,
    ) -> Result<Vec<Artifact>, StudyError> {
        let mut t = Table::new(&[
            "cipher",
            "bytes",
            "fastest",
            "MB/s",
            "others: time / fastest [99% CI]",
            "default",
            "default is fastest?",
        ]);
        let mut mismatches = Vec::new();
        for (alg, size) in distinct(ms, |m| (m.id.algorithm.clone(), m.id.size)) {
            let group: Vec<&Measurement> = ms
                .iter()
                .copied()
                .filter(|m| m.id.algorithm == alg && m.id.size == size)
                .collect();
            let Some(fastest) = group
                .iter()
                .copied()
                .min_by(|a, b| a.median_ns_per_op().total_cmp(&b.median_ns_per_op()))
            else {
                continue;
            };
            let others: Vec<String> = group
                .iter()
                .filter(|m| m.id.implementation != fastest.id.implementation)
                .map(|m| {
                    format!(
                        "{} {}",
                        m.id.implementation,
                        find::ratio_text(find::ratio(m, fastest))
                    )
                })
                .collect();
            let default = cipherlab_ciphers::CipherSpec::parse(&alg)
                .ok()
                .and_then(|s| providers::default_at(&s, size as usize).ok())
                .unwrap_or("-");
            // The default is "fastest" unless another Rust provider is significantly
            // faster (it is chosen among them; Java's providers are for comparison).
            let rust_fastest = group
                .iter()
                .copied()
                .filter(|m| m.id.runtime == "rust")
                .min_by(|a, b| a.median_ns_per_op().total_cmp(&b.median_ns_per_op()))
                .unwrap_or(fastest);
            let default_ok = default == rust_fastest.id.implementation
                || group
                    .iter()
                    .find(|m| m.id.implementation == default)
                    .and_then(|d| find::ratio(d, rust_fastest))
                    .is_some_and(|r| !r.is_significant());
            if !default_ok {
                mismatches.push(format!(
                    "{alg} at {size} B ({} is faster)",
                    rust_fastest.id.implementation
                ));
            }
            t.row(vec![
                text(&alg),
                int(size),
                text(&fastest.id.implementation),
                find::mb_per_s(fastest).map_or(serde_json::Value::Null, num),
                text(others.join("; ")),
                text(default),
                text(if default_ok { "yes" } else { "no" }),
            ]);
        }
        t.note = if mismatches.is_empty() {
            "The default provider (crates/ciphers providers::preference, measured in docs/BENCHMARKS.md) \
             is the fastest, or not significantly slower, for every cipher and size here."
                .to_string()
        } else {
            format!(
                "The default provider comes from measurements at 1 MiB on the project's machines \
                 (docs/BENCHMARKS.md); on this machine another is significantly faster for: {}. \
                 Use --provider, or report the run.",
                mismatches.join("; ")
            )
        };
        if ms.iter().any(|m| m.id.runtime == "java") {
            t.note.push_str(
                " java-sunjce and java-bc are the JDK's SunJCE and BouncyCastle through the Java \
                 runner (platforms/), timed per call with the keyed cipher re-initialised (the AEADs \
                 created per call: the JCA refuses one key and nonce twice), after conformance.",
            );
        }
        Ok(vec![t.artifact(
            NAME,
            "provider-ratios",
            "Providers side by side",
        )])
    }
}
