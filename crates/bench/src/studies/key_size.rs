//! `key-size`: every key size each cipher supports. The file-features paper's case study
//! 4 (Fig. 5): a 50.5 MB BMP in ECB with PKCS#5 at each key size of Table 1. We time the
//! key schedule (`init`) apart from encryption, which the paper could not: that is where
//! Blowfish's, RC2's and RC4's key sizes show.

use cipherlab_ciphers::{CipherSpec, Mode, catalogue};

use super::elsewhere::{self, FileJobs};
use super::find::{self, distinct};
use super::inputs::Input;
use super::paper::file_features::CASE4_SIZE;
use super::timing::{Target, add_encrypt, add_init};
use super::{Config, Elsewhere, Scale, Study, StudyError, err};
use crate::corpus::DataType;
use cipherlab_harness::Settings;
use cipherlab_harness::machine::MachineInfo;
use cipherlab_results::artifact::Artifact;
use cipherlab_results::artifact::table::{Cell, Table, num, text};
use cipherlab_results::id::{Measurement, Phase, Suite};
use cipherlab_results::verdict::{Agreement, Order, Tally};

pub struct KeySizeStudy;

const NAME: &str = "key-size";

/// Every cipher of Table 1 at the key sizes timed. The quick run takes the ends and a
/// few steps between; the full run adds more steps of the variable-key ciphers.
fn specs(scale: Scale) -> Vec<CipherSpec> {
    use catalogue::{AES, BLOWFISH, DES, RC2, RC4, SKIPJACK, TDES};
    let (rc2, blowfish, rc4): (&[u16], &[u16], &[u16]) = match scale {
        Scale::Quick => (
            &[40, 64, 128, 256, 1024],
            &[32, 64, 128, 256, 448],
            &[40, 128, 256, 1024, 2048],
        ),
        Scale::Full | Scale::Paper => (
            &[40, 56, 64, 80, 128, 192, 256, 512, 768, 1024],
            &[32, 40, 64, 80, 128, 192, 256, 320, 384, 448],
            &[40, 56, 64, 80, 128, 192, 256, 512, 1024, 2048],
        ),
    };
    let ecb = |a, bits| CipherSpec::of(a, bits, Some(Mode::Ecb));
    let mut out: Vec<CipherSpec> = AES.key_bits.all().map(|b| ecb(&AES, b)).collect();
    out.push(ecb(&DES, 56));
    out.extend(TDES.key_bits.all().map(|b| ecb(&TDES, b)));
    out.extend(rc2.iter().map(|&b| ecb(&RC2, b)));
    out.extend(blowfish.iter().map(|&b| ecb(&BLOWFISH, b)));
    out.push(ecb(&SKIPJACK, 80));
    out.extend(rc4.iter().map(|&b| CipherSpec::of(&RC4, b, None)));
    out
}

/// The study's one input: BMP data (the paper's case 4 file's size at `--paper-sizes`).
fn input(cfg: &Config) -> Input {
    Input::corpus(
        DataType::Bmp,
        cfg.scale.pick(64 << 10, 4 << 20, CASE4_SIZE as usize),
    )
}

impl Study for KeySizeStudy {
    fn name(&self) -> &'static str {
        NAME
    }

    fn title(&self) -> &'static str {
        "every key size of each cipher: key schedule and encryption"
    }

    fn source(&self) -> &'static str {
        "file-features paper, case study 4 (Fig. 5)"
    }

    fn plan<'a>(&self, cfg: &Config, suite: &mut Suite<'a>) -> Result<(), StudyError> {
        let input = input(cfg);
        for spec in specs(cfg.scale)
            .into_iter()
            .filter(|s| cfg.filter.accepts_spec(s))
        {
            for s in Target::each(NAME, spec, cfg) {
                add_init(suite, &s).map_err(|e| err(NAME, e))?;
                add_encrypt(suite, &s, &input).map_err(|e| err(NAME, e))?;
            }
        }
        Ok(())
    }

    /// `java-bc` (the paper's platform) when the Java runner is installed, or the runner
    /// providers of `--provider` (see [`elsewhere`]).
    fn runs_elsewhere(&self) -> bool {
        true
    }

    fn elsewhere(&self, cfg: &Config, settings: &Settings) -> Result<Elsewhere, StudyError> {
        let specs = specs(cfg.scale)
            .into_iter()
            .filter(|s| cfg.filter.accepts_spec(s))
            .collect();
        let inputs = [input(cfg)];
        let jobs = FileJobs {
            study: NAME,
            specs,
            inputs: &inputs,
            // `init` (the key schedule alone) where the runner has it (the Java runner).
            phases: &["init", "encrypt"],
            quick_seconds: 3,
            by_input: false,
            paper_platform: true,
        };
        elsewhere::file_study(jobs, cfg, settings)
    }

    fn per_platform(&self) -> bool {
        true
    }

    fn findings(
        &self,
        _cfg: &Config,
        ms: &[&Measurement],
        _machine: &MachineInfo,
    ) -> Result<Vec<Artifact>, StudyError> {
        // Per family: largest key against smallest key, for init and for encrypt.
        let family = |m: &Measurement| m.id.cipher().map(|s| (s.algorithm.name, s.key_bits));
        let mut t = Table::new(&[
            "cipher",
            "key bits",
            "encrypt MB/s (smallest key)",
            "encrypt: largest/smallest key [99% CI]",
            "init: largest/smallest key [99% CI]",
            "init µs (largest key)",
            "encryption with the largest key",
            "paper (Fig. 5): block ciphers slower with a larger key, RC4 faster",
        ]);
        let mut verdicts = Vec::new();
        for fam in distinct(ms, |m| family(m).map(|f| f.0))
            .into_iter()
            .flatten()
        {
            let of = |phase: Phase| {
                let mut v: Vec<(&Measurement, u16)> = ms
                    .iter()
                    .copied()
                    .filter(|m| m.id.phase == phase)
                    .filter_map(|m| family(m).filter(|f| f.0 == fam).map(|f| (m, f.1)))
                    .collect();
                v.sort_by_key(|x| x.1);
                v
            };
            let (enc, init) = (of(Phase::Encrypt), of(Phase::Init));
            let (Some(e0), Some(e1)) = (enc.first(), enc.last()) else {
                continue;
            };
            let ends = |v: &[(&Measurement, u16)]| {
                v.first()
                    .zip(v.last())
                    .filter(|(a, b)| a.1 != b.1)
                    .and_then(|(a, b)| find::ratio(b.0, a.0))
            };
            let enc_ratio = ends(&enc);
            let (ours, verdict) = if e0.1 == e1.1 {
                ("one key size", Cell::from(text("-")))
            } else {
                // The paper's claim for this family (Fig. 5's text).
                let published = if fam == catalogue::RC4.name {
                    Order::Faster
                } else {
                    Order::Slower
                };
                let ours = Order::of(enc_ratio.as_ref());
                let v = Agreement::of(published, ours);
                verdicts.push(v);
                (ours.word(), Cell::from(v))
            };
            t.row::<Cell>(vec![
                text(fam).into(),
                text(if e0.1 == e1.1 {
                    e0.1.to_string()
                } else {
                    format!("{}..{}", e0.1, e1.1)
                })
                .into(),
                find::mb_per_s(e0.0)
                    .map_or(serde_json::Value::Null, num)
                    .into(),
                find::ratio_cell(enc_ratio),
                find::ratio_cell(ends(&init)),
                init.last()
                    .map_or(serde_json::Value::Null, |m| {
                        num(m.0.median_ns_per_op() / 1e3)
                    })
                    .into(),
                text(ours).into(),
                verdict,
            ]);
        }
        t.note = format!(
            "This run against the paper's Fig. 5: {} (a verdict needs the 99% interval of largest/smallest \
             wholly above 1.05, below 0.95, or within 5% of 1). Background, not measured: the paper \
             says \"encryption time increases with increase in key size for block ciphers\" and \
             \"reduces with increase in key size for ... RC4\"; it timed the key schedule together with \
             encryption. Of the algorithms, only AES runs more rounds with a larger key (10, 12, 14); \
             3DES runs 48 rounds at both sizes, and Blowfish's, RC2's and RC4's key shapes only their \
             key schedule, which the init column times apart.",
            Tally::of(verdicts.iter().copied())
        );
        Ok(vec![t.artifact(
            NAME,
            "paper/fig-5",
            "Key size: largest against smallest key",
        )])
    }
}
