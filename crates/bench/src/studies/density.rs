//! `density`: sparse against dense files of similar size. The file-features paper's case
//! study 3 (Table 4): a dense AIFF of 61.4 MB and a sparse one of 72.0 MB; the
//! encryption *rate* is the same for both. We compare rates with confidence intervals.

use super::ciphers::MODERN;
use super::elsewhere::{self, FileJobs};
use super::find::{self, distinct};
use super::inputs::Input;
use super::paper::file_features::{TABLE4, TABLE4_CIPHERS};
use super::timing::{Target, add_encrypt};
use super::{Config, Elsewhere, Study, StudyError, err};
use crate::corpus::DataType;
use cipherlab_harness::Settings;
use cipherlab_harness::machine::MachineInfo;
use cipherlab_results::artifact::Artifact;
use cipherlab_results::artifact::table::{Cell, Table, num, text};
use cipherlab_results::id::{Measurement, Suite, same_cipher};
use cipherlab_results::verdict::{Agreement, Order, Tally};

pub struct DensityStudy;

const NAME: &str = "density";

/// The paper's Table 4 sizes, in bytes.
const PAPER_DENSE: usize = 61_392_454;
const PAPER_SPARSE: usize = 72_000_118;

fn inputs(cfg: &Config) -> Vec<Input> {
    if let Some(d) = &cfg.data {
        return d.files.clone();
    }
    // Similar, not equal, sizes as in the paper (sparse about 17% larger).
    let (dense, sparse) = cfg.scale.pick(
        (1 << 20, 1_200_000),
        (8 << 20, 9_800_000),
        (PAPER_DENSE, PAPER_SPARSE),
    );
    vec![
        Input::corpus(DataType::Dense, dense),
        Input::corpus(DataType::Sparse, sparse),
    ]
}

/// A user file counts as sparse when its guessed type is.
fn is_sparse(label: &str, ms_type: Option<DataType>) -> bool {
    label == "sparse" || ms_type == Some(DataType::Sparse)
}

impl Study for DensityStudy {
    fn name(&self) -> &'static str {
        NAME
    }

    fn title(&self) -> &'static str {
        "sparse (mostly zero) against dense files of similar size"
    }

    fn source(&self) -> &'static str {
        "file-features paper, case study 3 (Table 4)"
    }

    fn plan<'a>(&self, cfg: &Config, suite: &mut Suite<'a>) -> Result<(), StudyError> {
        for input in inputs(cfg) {
            for spec in TABLE4_CIPHERS
                .into_iter()
                .chain(MODERN)
                .filter(|s| cfg.filter.accepts_spec(s))
            {
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
        let specs = TABLE4_CIPHERS
            .into_iter()
            .chain(MODERN)
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
        cfg: &Config,
        ms: &[&Measurement],
        _machine: &MachineInfo,
    ) -> Result<Vec<Artifact>, StudyError> {
        let type_of = |label: &str| {
            cfg.data.as_ref().and_then(|d| {
                d.files
                    .iter()
                    .find(|f| f.label == label)
                    .map(|f| f.data_type)
            })
        };
        let mut t = Table::new(&[
            "cipher",
            "paper dense MB/s",
            "paper sparse/dense rate",
            "ours dense MB/s",
            "ours sparse/dense rate [99% CI]",
            "paper sparse/dense time",
            "ours sparse/dense time [99% CI]",
            "ours: sparse against dense",
            "paper (Table 4): the same",
        ]);
        let mut verdicts = Vec::new();
        let mut differ = Vec::new();
        for alg in distinct(ms, |m| m.id.algorithm.clone()) {
            let mine = ms.iter().copied().filter(|m| m.id.algorithm == alg);
            let (sparse, dense): (Vec<&Measurement>, Vec<&Measurement>) =
                mine.partition(|m| is_sparse(&m.id.data_type, type_of(&m.id.data_type)));
            let (Some(s), Some(d)) = (sparse.first(), dense.first()) else {
                continue;
            };
            // Rate ratio sparse/dense = (size_s / t_s) / (size_d / t_d)
            //                         = (size_s / size_d) / (t_s / t_d).
            let k = s.id.size as f64 / d.id.size.max(1) as f64;
            let r = find::ratio(s, d).map(|mut r| {
                let (e, lo, hi) = (r.interval.estimate, r.interval.low, r.interval.high);
                r.interval.estimate = k / e;
                r.interval.low = k / hi;
                r.interval.high = k / lo;
                r
            });
            let ours = Order::of(r.as_ref());
            let v = Agreement::of(Order::Same, ours);
            if v == Agreement::Differs {
                differ.push(alg.to_string());
            }
            verdicts.push(v);
            let paper = TABLE4_CIPHERS
                .iter()
                .position(|c| alg.spec().is_some_and(|s| same_cipher(s, c)))
                .map(|i| TABLE4[i]);
            t.row::<Cell>(vec![
                text(&alg).into(),
                paper.map_or(serde_json::Value::Null, |p| num(p.1)).into(),
                paper
                    .map_or(serde_json::Value::Null, |p| num(p.3 / p.1))
                    .into(),
                find::mb_per_s(d)
                    .map_or(serde_json::Value::Null, num)
                    .into(),
                find::ratio_cell(r),
                paper
                    .map_or(serde_json::Value::Null, |p| num(p.2 / p.0))
                    .into(),
                find::ratio_cell(find::ratio(s, d)),
                // The ratio is of rates: "slower" is a higher rate, so say it plainly.
                text(match ours {
                    Order::Slower => "sparse faster",
                    Order::Faster => "sparse slower",
                    other => other.word(),
                })
                .into(),
                v.into(),
            ]);
        }
        t.note = format!(
            "Paper (Table 4): \"the encryption rate for a particular cipher algorithm remains the \
             same, even if the file is sparse or dense\". This run, per cipher (the same when the \
             whole 99% interval of the rates' ratio is within 5% of 1): {}.{} The times' ratio \
             follows the files' sizes (the paper's sparse file is 72.0 MB, its dense one 61.4 MB; \
             ours are the sizes of the inputs above).",
            Tally::of(verdicts.iter().copied()),
            if differ.is_empty() {
                String::new()
            } else {
                format!(
                    " Density matters for {}: check whether the two inputs' sizes put them on \
                     different sides of a cache size.",
                    differ.join(", ")
                )
            }
        );
        Ok(vec![t.artifact(
            NAME,
            "paper/table-4",
            "Table 4: encryption rate of sparse and dense files",
        )])
    }
}
