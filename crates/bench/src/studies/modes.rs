//! `modes`: ECB, CBC, CFB, CFB8, CFB1, OFB, CTR and GCM. The file-features paper's
//! related work compared modes ([4]: "OFB block mode gives better performance than other
//! block modes"; [6]: "CFB takes more time than ECB") with AES, DES and Blowfish; we time
//! every mode of those ciphers (and 3DES), encryption and decryption apart, since they
//! differ for the chained modes.

use cipherlab_ciphers::{CipherSpec, Mode, Padding, catalogue};

use super::find::{self, distinct};
use super::inputs::Input;
use super::timing::{Target, add_decrypt, add_encrypt};
use super::{Config, Study, StudyError, err};
use crate::artifact::Artifact;
use crate::artifact::table::{Table, text};
use crate::corpus::DataType;
use crate::id::{Measurement, Phase, Suite};
use cipherlab_harness::machine::MachineInfo;

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
        let size = cfg.scale.pick(64 << 10, 4 << 20, 50_000_000);
        let input = Input::corpus(DataType::Bmp, size);
        for spec in specs().into_iter().filter(|s| cfg.filter.accepts_spec(s)) {
            let s = Target::new(NAME, spec);
            add_encrypt(suite, &s, &input).map_err(|e| err(NAME, e))?;
            add_decrypt(suite, &s, &input).map_err(|e| err(NAME, e))?;
        }
        Ok(())
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
        let mut ofb_fastest = Vec::new();
        let mut cfb_slower = Vec::new();
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
                    let fastest = modes
                        .iter()
                        .filter(|m| **m != Mode::Gcm)
                        .filter_map(|m| get(*m).map(|x| (*m, x.median_ns_per_op())))
                        .min_by(|a, b| a.1.total_cmp(&b.1));
                    if fastest.is_some_and(|f| f.0 == Mode::Ofb) {
                        ofb_fastest.push(fam_name.clone());
                    }
                    if let Some(cfb) = get(Mode::Cfb)
                        && find::ratio(cfb, ecb)
                            .is_some_and(|r| r.is_significant() && r.interval.low > 1.0)
                    {
                        cfb_slower.push(fam_name.clone());
                    }
                }
            }
        }
        t.note = format!(
            "Each cell: the mode's time over ECB's for the same cipher, with its 99% interval. \
             Related work: [4] found OFB fastest (here fastest of the unauthenticated modes for: {}); \
             [6] found CFB slower than ECB (here significantly slower for: {}). CBC encryption is \
             serial (each block waits for the previous one) while ECB, CTR and CBC decryption let \
             AES-NI work on several blocks at once; CFB8 and CFB1 run the block cipher once per byte \
             and once per bit.",
            list(&ofb_fastest),
            list(&cfb_slower)
        );
        Ok(vec![t.artifact(
            NAME,
            "mode-ratios",
            "Modes: time relative to ECB",
        )])
    }
}

fn list(v: &[String]) -> String {
    if v.is_empty() {
        "none".to_string()
    } else {
        v.join(", ")
    }
}
