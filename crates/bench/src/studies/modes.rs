//! `modes`: ECB, CBC, CFB, CFB8, CFB1, OFB, CTR and GCM. The file-features paper's
//! related work compared modes ([4]: "OFB block mode gives better performance than other
//! block modes"; [6]: "CFB takes more time than ECB") with AES, DES and Blowfish; we time
//! every mode of those ciphers (and 3DES), encryption and decryption apart, since they
//! differ for the chained modes.

use cipherlab_ciphers::{CipherSpec, Mode, Padding, catalogue};

use super::elsewhere::{self, FileJobs};
use super::find::{self, distinct};
use super::inputs::Input;
use super::timing::{Target, add_decrypt, add_encrypt};
use super::{Config, Elsewhere, Study, StudyError, err};
use crate::corpus::DataType;
use cipherlab_harness::Settings;
use cipherlab_harness::machine::MachineInfo;
use cipherlab_results::artifact::Artifact;
use cipherlab_results::artifact::table::{Cell, Table, text};
use cipherlab_results::id::{Measurement, Phase, Suite};
use cipherlab_results::verdict::{Agreement, Order, Tally};

pub struct ModesStudy;

const NAME: &str = "modes";

fn specs() -> Vec<CipherSpec> {
    use catalogue::{AES, BLOWFISH, DES, TDES};
    let mut out: Vec<CipherSpec> = Mode::ALL
        .into_iter()
        .map(|m| CipherSpec::of(&AES, 128, Some(m)))
        .collect();
    // CFB1 runs the block cipher once per bit: at DES speeds that is minutes per
    // megabyte, so it is timed for AES only.
    for (a, bits) in [(&DES, 56), (&TDES, 168), (&BLOWFISH, 128)] {
        for m in Mode::ALL {
            if !matches!(m, Mode::Cfb1 | Mode::Gcm) {
                out.push(CipherSpec::of(a, bits, Some(m)));
            }
        }
    }
    out
}

/// The study's one input: BMP data.
fn input(cfg: &Config) -> Input {
    Input::corpus(DataType::Bmp, cfg.scale.pick(64 << 10, 4 << 20, 50_000_000))
}

impl Study for ModesStudy {
    fn name(&self) -> &'static str {
        NAME
    }

    fn title(&self) -> &'static str {
        "block cipher modes: ECB, CBC, CFB, CFB8, CFB1, OFB, CTR, GCM"
    }

    fn source(&self) -> &'static str {
        "file-features paper, related work [4], [6]"
    }

    fn plan<'a>(&self, cfg: &Config, suite: &mut Suite<'a>) -> Result<(), StudyError> {
        let input = input(cfg);
        for spec in specs().into_iter().filter(|s| cfg.filter.accepts_spec(s)) {
            for s in Target::each(NAME, spec, cfg) {
                add_encrypt(suite, &s, &input).map_err(|e| err(NAME, e))?;
                add_decrypt(suite, &s, &input).map_err(|e| err(NAME, e))?;
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
        let specs = specs()
            .into_iter()
            .filter(|s| cfg.filter.accepts_spec(s))
            .collect();
        let inputs = [input(cfg)];
        let jobs = FileJobs {
            study: NAME,
            specs,
            inputs: &inputs,
            phases: &["encrypt", "decrypt"],
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
        let modes = Mode::ALL;
        let mut columns = vec!["cipher".to_string(), "phase".to_string()];
        columns.extend(modes.iter().map(|m| format!("{} / ecb", m.as_str())));
        let cols: Vec<&str> = columns.iter().map(String::as_str).collect();
        let mut t = Table::new(&cols);
        let mut claims = Table::new(&[
            "cipher",
            "OFB against the fastest other mode",
            "[4]: OFB fastest",
            "CFB / ECB [99% CI]",
            "[6]: CFB slower than ECB",
        ]);
        let (mut ofb_verdicts, mut cfb_verdicts) = (Vec::new(), Vec::new());
        // A family is a block cipher at one key size, named without its mode.
        let families = distinct(ms, |m| {
            m.id.cipher()
                .filter(|s| s.mode.is_some())
                .map(|s| CipherSpec {
                    mode: None,
                    padding: Padding::default(),
                    ..*s
                })
        });
        for fam in families.into_iter().flatten() {
            let fam_name = fam.to_string();
            for phase in [Phase::Encrypt, Phase::Decrypt] {
                let get = |mode: Mode| {
                    let spec = CipherSpec {
                        mode: Some(mode),
                        ..fam
                    };
                    find::of(ms, &spec, phase, None, None)
                };
                let Some(ecb) = get(Mode::Ecb) else { continue };
                let mut row = vec![text(&fam_name), text(phase)];
                for mode in modes {
                    row.push(text(match get(mode) {
                        Some(m) => find::ratio_text(find::ratio(m, ecb)),
                        None => "-".to_string(),
                    }));
                }
                t.row(row);
                // Related-work claims, checked on encryption.
                if phase == Phase::Encrypt {
                    let ofb = ofb_order(get, &modes);
                    let cfb = get(Mode::Cfb).and_then(|cfb| find::ratio(cfb, ecb));
                    let cfb_order = Order::of(cfb.as_ref());
                    let (v4, v6) = (
                        Agreement::of(Order::Faster, ofb),
                        Agreement::of(Order::Slower, cfb_order),
                    );
                    ofb_verdicts.push(v4);
                    cfb_verdicts.push(v6);
                    claims.row::<Cell>(vec![
                        text(&fam_name).into(),
                        text(ofb.word()).into(),
                        v4.into(),
                        find::ratio_cell(cfb),
                        v6.into(),
                    ]);
                }
            }
        }
        t.note = "Each cell: the mode's time over ECB's for the same cipher, with its 99% interval. \
                  CBC encryption is serial (each block waits for the previous one) while ECB, CTR and \
                  CBC decryption let AES-NI work on several blocks at once; CFB8 and CFB1 run the \
                  block cipher once per byte and once per bit."
            .to_string();
        claims.note = format!(
            "Related work, checked on encryption: [4] found OFB the fastest mode ({} here: OFB is \
             faster when its interval against every other unauthenticated mode is below 0.95); [6] \
             found CFB slower than ECB ({} here).",
            Tally::of(ofb_verdicts.iter().copied()),
            Tally::of(cfb_verdicts.iter().copied()),
        );
        Ok(vec![
            t.artifact(NAME, "mode-ratios", "Modes: time relative to ECB"),
            claims.artifact(NAME, "related-work", "Modes: the related work's claims"),
        ])
    }
}

/// OFB against every other unauthenticated mode of one family: `Faster` when it is
/// faster than each, `Slower` when one is faster than it or the same, `CantTell` otherwise.
fn ofb_order<'m>(get: impl Fn(Mode) -> Option<&'m Measurement>, modes: &[Mode]) -> Order {
    let Some(ofb) = get(Mode::Ofb) else {
        return Order::CantTell;
    };
    let orders: Vec<Order> = modes
        .iter()
        .filter(|m| !matches!(m, Mode::Gcm | Mode::Ofb))
        .filter_map(|m| get(*m))
        .map(|other| Order::of(find::ratio(ofb, other).as_ref()))
        .collect();
    if orders.is_empty() {
        Order::CantTell
    } else if orders.iter().all(|o| *o == Order::Faster) {
        Order::Faster
    } else if orders
        .iter()
        .any(|o| matches!(o, Order::Slower | Order::Same))
    {
        Order::Slower
    } else {
        Order::CantTell
    }
}
