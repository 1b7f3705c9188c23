//! `data-type`: does the kind of file change how long encryption takes? The
//! file-features paper's case study 1 (Fig. 2): same-size files of different types, the
//! seven ciphers at minimal key sizes in ECB with PKCS#5 padding, encryption time without
//! I/O. We add the modern ciphers, and test the paper's "no dependence" claim with
//! confidence intervals instead of reading a bar chart.

use super::ciphers::file_study_ciphers;
use super::elsewhere::{self, FileJobs};
use super::find::{self, distinct};
use super::inputs::Input;
use super::timing::{Target, add_encrypt};
use super::{Config, Elsewhere, Study, StudyError, err};
use crate::corpus::DataType;
use cipherlab_harness::Settings;
use cipherlab_harness::machine::MachineInfo;
use cipherlab_results::artifact::Artifact;
use cipherlab_results::artifact::table::{Cell, Table, num, text};
use cipherlab_results::id::{Measurement, Phase, Suite};
use cipherlab_results::verdict::{Agreement, Order, Tally};

pub struct DataTypeStudy;

const NAME: &str = "data-type";

/// The inputs: the user's files, or one corpus file of every type.
fn inputs(cfg: &Config) -> Vec<Input> {
    match &cfg.data {
        Some(d) => d.files.clone(),
        None => {
            let size = cfg.scale.pick(
                64 << 10,
                4 << 20,
                super::paper::file_features::CASE1_SIZE as usize,
            );
            DataType::ALL
                .iter()
                .map(|&k| Input::corpus(k, size))
                .collect()
        }
    }
}

impl Study for DataTypeStudy {
    fn name(&self) -> &'static str {
        NAME
    }

    fn title(&self) -> &'static str {
        "same-size files of nine types (text, UTF-16, BMP, WAV, AIFF, compressed, sparse, dense)"
    }

    fn source(&self) -> &'static str {
        "file-features paper, case study 1 (Fig. 2)"
    }

    fn plan<'a>(&self, cfg: &Config, suite: &mut Suite<'a>) -> Result<(), StudyError> {
        // Input-major order: each input is made once and reused by every cipher.
        for input in inputs(cfg) {
            for spec in file_study_ciphers().filter(|s| cfg.filter.accepts_spec(s)) {
                for s in Target::each(NAME, spec, cfg) {
                    add_encrypt(suite, &s, &input).map_err(|e| err(NAME, e))?;
                }
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
        let specs = file_study_ciphers()
            .filter(|s| cfg.filter.accepts_spec(s))
            .collect();
        let inputs = inputs(cfg);
        let jobs = FileJobs {
            study: NAME,
            specs,
            inputs: &inputs,
            phases: &["encrypt"],
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
        // Per cipher: the slowest and fastest type, and whether they differ significantly.
        // Sizes can differ between user files, so compare time per byte.
        let mut t = Table::new(&[
            "cipher",
            "MB/s (mean over types)",
            "fastest type",
            "slowest type",
            "slowest/fastest time per byte [99% CI]",
            "ours: slowest type against fastest",
            "paper (Fig. 2): the same",
        ]);
        let mut verdicts = Vec::new();
        let mut differ = Vec::new();
        for alg in distinct(ms, |m| m.id.algorithm.clone()) {
            let mine: Vec<&Measurement> = ms
                .iter()
                .copied()
                .filter(|m| m.id.algorithm == alg && m.id.phase == Phase::Encrypt)
                .collect();
            let per_byte = |m: &Measurement| m.median_ns_per_op() / m.id.size.max(1) as f64;
            let (Some(fast), Some(slow)) = (
                mine.iter()
                    .copied()
                    .min_by(|a, b| per_byte(a).total_cmp(&per_byte(b))),
                mine.iter()
                    .copied()
                    .max_by(|a, b| per_byte(a).total_cmp(&per_byte(b))),
            ) else {
                continue;
            };
            if mine.len() < 2 {
                continue;
            }
            let mean_rate = mine.iter().filter_map(|m| find::mb_per_s(m)).sum::<f64>()
                / mine.len().max(1) as f64;
            // Ratio of per-call times, scaled by the sizes so it is per byte.
            let r = find::ratio(slow, fast).map(|mut r| {
                let scale = fast.id.size.max(1) as f64 / slow.id.size.max(1) as f64;
                r.interval.estimate *= scale;
                r.interval.low *= scale;
                r.interval.high *= scale;
                r
            });
            // "The same" within 5% both ways: sub-percent effects of memory layout are
            // real but nobody chooses a cipher by them.
            let ours = Order::of(r.as_ref());
            let v = Agreement::of(Order::Same, ours);
            if v == Agreement::Differs {
                differ.push(alg.to_string());
            }
            verdicts.push(v);
            t.row::<Cell>(vec![
                text(&alg).into(),
                num(mean_rate).into(),
                text(&fast.id.data_type).into(),
                text(&slow.id.data_type).into(),
                find::ratio_cell(r),
                text(ours.word()).into(),
                v.into(),
            ]);
        }
        t.note = format!(
            "Paper (Fig. 2): \"encryption time does not vary according to the type of the data\". \
             This run, per cipher (the slowest type's time per byte against the fastest's, the \
             same when the whole 99% interval is within 5% of 1): {}.{}",
            Tally::of(verdicts.iter().copied()),
            if differ.is_empty() {
                String::new()
            } else {
                format!(
                    " The type matters for {}: look for inputs of different sizes, whose cache \
                     behaviour differs, or data-dependent table lookups.",
                    differ.join(", ")
                )
            }
        );
        t.note.push_str(
            " Why it should not matter: these ciphers' work does not depend on the bytes' values \
             (table-free AES-NI, data-independent ARX and sponge rounds).",
        );
        Ok(vec![t.artifact(
            NAME,
            "paper/fig-2",
            "Encryption time by data type: does the type matter?",
        )])
    }
}
