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
use super::platforms::{Job, Target as Runners, measure};
use super::timing::{Target, add_encrypt};
use super::{Config, Elsewhere, Study, StudyError, err};
use crate::corpus::DataType;
use cipherlab_harness::Settings;
use cipherlab_harness::machine::MachineInfo;
use cipherlab_results::artifact::Artifact;
use cipherlab_results::artifact::table::{Table, int, num, text};
use cipherlab_results::id::{Measurement, Runtime, Suite};
use cipherlab_results::verdict::Order;

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
                // `--provider` names narrow the field to those of this process named.
                let available: Vec<&'static str> = if cfg.providers.is_empty() {
                    providers::PROVIDERS
                        .iter()
                        .filter(|p| p.supports(&spec) && p.available(&spec).is_ok())
                        .map(|p| p.name())
                        .collect()
                } else {
                    cfg.rust_providers(&spec).into_iter().flatten().collect()
                };
                // With one implementation there is nothing to compare (it is timed in
                // the other studies).
                if available.len() < 2 {
                    continue;
                }
                for p in available {
                    let s = Target {
                        provider: Some(p),
                        ..Target::new(NAME, spec)
                    };
                    add_encrypt(suite, &s, &input).map_err(|e| err(NAME, e))?;
                }
            }
        }
        Ok(())
    }

    /// `java-sunjce` and `java-bc` through the Java runner, on every cipher of the study
    /// they agreed on.
    fn runs_elsewhere(&self) -> bool {
        true
    }

    fn elsewhere(&self, cfg: &Config, settings: &Settings) -> Result<Elsewhere, StudyError> {
        let jobs: Vec<Job> = CIPHERS
            .into_iter()
            .filter(|s| cfg.filter.accepts_spec(s))
            .map(|spec| Job {
                spec,
                inputs: sizes(cfg)
                    .iter()
                    .map(|&s| Input::corpus(DataType::Dense, s))
                    .collect(),
                reps: cfg.scale.pick(20, 30, 30),
                warmup_bytes: cfg.scale.pick(4 << 20, 32 << 20, 32 << 20),
                min_warmup_calls: 50,
            })
            .collect();
        if jobs.is_empty() {
            return Ok(Elsewhere::default());
        }
        // Java's two providers by default; with `--provider`, the runners' providers named.
        let named = cfg.runner_providers();
        if !cfg.providers.is_empty() && named.is_empty() {
            return Ok(Elsewhere::default());
        }
        let target = Runners {
            study: NAME,
            runtimes: if named.is_empty() {
                &[super::java_stream::JAVA]
            } else {
                &[]
            },
            all_providers: true,
            phases: &["encrypt"],
            reuse: true,
            // Java alone: at --quick about what its share of 6 s over the five runtimes was
            // before the budget went to the runtimes asked for only.
            extra: std::time::Duration::from_secs(cfg.scale.pick(2, 20, 0)),
            warm_once: false,
            chunk_above: None,
            providers: named,
            budget: None,
        };
        measure(&jobs, &target, &cfg.runners, settings).map_err(|e| err(NAME, e))
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
        let mut undecided = 0;
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
            let default = alg
                .spec()
                .and_then(|s| providers::default_at(s, size as usize).ok())
                .unwrap_or("-");
            // Is the default the fastest? It is chosen among the Rust providers (Java's are
            // for comparison): its time over the fastest Rust provider's (over the
            // runner-up's when it is that one), decided by the 99% interval.
            let rust: Vec<&Measurement> = group
                .iter()
                .copied()
                .filter(|m| m.id.runtime == Runtime::RUST)
                .collect();
            let rust_fastest = rust
                .iter()
                .copied()
                .min_by(|a, b| a.median_ns_per_op().total_cmp(&b.median_ns_per_op()))
                .unwrap_or(fastest);
            let default_m = rust
                .iter()
                .copied()
                .find(|m| m.id.implementation == default);
            let rival = if default == rust_fastest.id.implementation {
                rust.iter()
                    .copied()
                    .filter(|m| m.id.implementation != default)
                    .min_by(|a, b| a.median_ns_per_op().total_cmp(&b.median_ns_per_op()))
            } else {
                Some(rust_fastest)
            };
            let order = Order::of(
                default_m
                    .zip(rival)
                    .and_then(|(d, r)| find::ratio(d, r))
                    .as_ref(),
            );
            let verdict = match order {
                Order::Faster => "yes",
                Order::Same => "yes (within 5%)",
                Order::Slower => "no",
                Order::CantTell => "can't tell",
            };
            if order == Order::Slower {
                mismatches.push(format!(
                    "{alg} at {size} B ({} is faster)",
                    rust_fastest.id.implementation
                ));
            }
            undecided += usize::from(order == Order::CantTell);
            t.row(vec![
                text(&alg),
                int(size),
                text(&fastest.id.implementation),
                find::mb_per_s(fastest).map_or(serde_json::Value::Null, num),
                text(others.join("; ")),
                text(default),
                text(verdict),
            ]);
        }
        t.note = if mismatches.is_empty() {
            "The default provider (crates/ciphers providers::preference, measured in \
             docs/BENCHMARKS.md) is not slower than another here, by the 99% intervals, for any \
             cipher and size this run decided."
                .to_string()
        } else {
            format!(
                "The default provider comes from measurements at 1 MiB on the project's machines \
                 (docs/BENCHMARKS.md); on this machine another is faster, by its 99% interval, \
                 for: {}. Use --provider, or report the run.",
                mismatches.join("; ")
            )
        };
        if undecided > 0 {
            t.note.push_str(&format!(
                " For {undecided} cipher and size pairs the intervals do not decide whether the \
                 default is the fastest."
            ));
        }
        if ms.iter().any(|m| super::java_stream::in_java(m)) {
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
