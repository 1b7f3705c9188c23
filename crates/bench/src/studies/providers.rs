//! `providers`: one algorithm through each of its implementations, as the file-features
//! paper compared Java's Sun and BouncyCastle providers. Every provider is proven against
//! the others first (the same ciphertext for the same key, IV and message), then timed on
//! the same input, short and long messages.

use cipherlab_ciphers::providers;

use super::ciphers::spec;
use super::find::{self, distinct};
use super::inputs::Input;
use super::table::{Table, int, num, text};
use super::timing::{Subject, add_encrypt};
use super::{Config, Study, StudyError, err};
use crate::corpus::DataType;
use crate::harness::{Measurement, Suite};
use crate::machine::MachineInfo;
use crate::store::Artifact;

pub struct ProvidersStudy;

const NAME: &str = "providers";

const CIPHERS: [&str; 14] = [
    "aes-128-gcm",
    "aes-256-gcm",
    "chacha20-poly1305",
    "aes-128-ctr",
    "aes-128-cbc",
    "aes-128-ecb",
    "aes-256-cbc",
    "des-ecb",
    "3des-168-cbc",
    "blowfish-128-cbc",
    "rc2-128-cbc",
    "rc4-128",
    "ascon-aead128",
    "skipjack-ecb",
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
        let sizes: &[usize] = cfg.scale.pick(
            &[64, 16 << 10],
            &[64, 16 << 10, 1 << 20],
            &[64, 16 << 10, 1 << 20],
        );
        for &size in sizes {
            let input = Input::corpus(DataType::Dense, size);
            for name in CIPHERS.iter().filter(|n| cfg.filter.accepts(n)) {
                let spec = spec(name).map_err(|e| err(NAME, e))?;
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
            // The default is "fastest" unless another provider is significantly faster.
            let default_ok = default == fastest.id.implementation
                || group
                    .iter()
                    .find(|m| m.id.implementation == default)
                    .and_then(|d| find::ratio(d, fastest))
                    .is_some_and(|r| !r.is_significant());
            if !default_ok {
                mismatches.push(format!(
                    "{alg} at {size} B ({} is faster)",
                    fastest.id.implementation
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
        Ok(vec![t.artifact(
            NAME,
            "provider-ratios",
            "Providers side by side",
        )])
    }
}
