//! `data-size`: time against size. The file-features paper's case study 2 (Table 3,
//! Figs. 3-4): BMP files of 10.7, 50 and 100 MB and FLV (compressed video) files of 50,
//! 100 and 482 MB, seven ciphers at minimal keys, ECB with PKCS#5. We print its ratios to
//! AES beside ours, and test its "time is proportional to size" claim by the time per
//! byte at the smallest and largest sizes.

use super::ciphers::file_study_ciphers;
use super::elsewhere::{self, FileJobs};
use super::find::{self, distinct};
use super::inputs::Input;
use super::paper::file_features::{CASE2_SIZES, TABLE3, TABLE3_CIPHERS};
use super::timing::{Target, add_encrypt};
use super::{Config, Elsewhere, Scale, Study, StudyError, err};
use crate::corpus::DataType;
use cipherlab_ciphers::CipherSpec;
use cipherlab_harness::Settings;
use cipherlab_harness::machine::MachineInfo;
use cipherlab_results::artifact::Artifact;
use cipherlab_results::artifact::table::{Table, num, text};
use cipherlab_results::id::{Measurement, Phase, Suite};
use cipherlab_results::verdict::{self, Agreement, Order, Tally};

pub struct DataSizeStudy;

const NAME: &str = "data-size";

/// BMP at every size, and compressed data (the paper's FLV) at the largest sizes.
fn inputs(cfg: &Config) -> Vec<Input> {
    if let Some(d) = &cfg.data {
        let mut files = d.files.clone();
        files.sort_by_key(|f| f.size);
        return files;
    }
    let (bmp, compressed): (Vec<u64>, Vec<u64>) = match cfg.scale {
        Scale::Quick => (vec![16 << 10, 256 << 10, 1 << 20], vec![1 << 20]),
        Scale::Full => (vec![64 << 10, 1 << 20, 10_700_000], vec![10_700_000]),
        Scale::Paper => (CASE2_SIZES[..3].to_vec(), CASE2_SIZES[1..].to_vec()),
    };
    bmp.into_iter()
        .map(|s| Input::corpus(DataType::Bmp, s as usize))
        .chain(
            compressed
                .into_iter()
                .map(|s| Input::corpus(DataType::Compressed, s as usize)),
        )
        .collect()
}

impl Study for DataSizeStudy {
    fn name(&self) -> &'static str {
        NAME
    }

    fn title(&self) -> &'static str {
        "encryption time against file size (BMP and compressed media)"
    }

    fn source(&self) -> &'static str {
        "file-features paper, case study 2 (Table 3, Figs. 3-4)"
    }

    fn plan<'a>(&self, cfg: &Config, suite: &mut Suite<'a>) -> Result<(), StudyError> {
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
        // Table 3 compares the largest files: they go first, so a budget cuts the others.
        let mut inputs = inputs(cfg);
        inputs.sort_by_key(|i| std::cmp::Reverse(i.size));
        let jobs = FileJobs {
            study: NAME,
            specs,
            inputs: &inputs,
            phases: &["encrypt"],
            quick_seconds: 8,
            by_input: true,
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
        machine: &MachineInfo,
    ) -> Result<Vec<Artifact>, StudyError> {
        let mut out = Vec::new();
        // Table 3, every row: each of the paper's files beside our input of the same kind
        // (BMP with BMP, the paper's FLV video with our compressed data), largest with
        // largest, so like is compared with like at every scale.
        let enc: Vec<&Measurement> = ms
            .iter()
            .copied()
            .filter(|m| m.id.phase == Phase::Encrypt)
            .collect();
        let Some(largest) = enc.iter().map(|m| m.id.size).max() else {
            return Ok(out);
        };
        let mut pairs = table3_rows(&enc);
        let matched = !pairs.is_empty();
        if !matched {
            // The user's own files: our largest input against the paper's largest BMP.
            let label = enc
                .iter()
                .find(|m| m.id.size == largest)
                .map(|m| m.id.data_type.clone())
                .unwrap_or_default();
            pairs.push((2, label, largest));
        }
        let mut t = Table::new(&[
            "paper file",
            "cipher",
            "paper: time / AES",
            "our input",
            "ours: time / AES [99% CI]",
            "ours MB/s",
        ]);
        let [aes_spec, des_spec, ..] = TABLE3_CIPHERS;
        let mut verdicts = Vec::new();
        let mut des_over_aes: Option<(f64, f64)> = None;
        for (row, label, size) in &pairs {
            let (kind, paper_mb, paper) = &TABLE3[*row];
            let at = |spec: &CipherSpec| {
                enc.iter().copied().find(|m| {
                    m.id.is_cipher(spec) && m.id.data_type == *label && m.id.size == *size
                })
            };
            let aes = at(&aes_spec);
            for (i, spec) in TABLE3_CIPHERS.iter().enumerate() {
                let ours = at(spec);
                t.row(vec![
                    text(format!("{kind} {paper_mb} MB")).into(),
                    text(spec).into(),
                    num(paper[i] / paper[0]).into(),
                    text(format!("{label} {size} B")).into(),
                    find::ratio_cell(ours.zip(aes).and_then(|(o, a)| find::ratio(o, a))),
                    ours.and_then(find::mb_per_s)
                        .map_or(serde_json::Value::Null, num)
                        .into(),
                ]);
            }
            let file = format!("{kind} {paper_mb} MB");
            verdicts.extend(table3_pairs(&TABLE3_CIPHERS, paper, &at, &file));
            if des_over_aes.is_none()
                && let Some(low) = at(&des_spec)
                    .zip(aes)
                    .and_then(|(d, a)| find::ratio(d, a))
                    .map(|r| r.interval.low)
            {
                des_over_aes = Some((low, paper[1] / paper[0]));
            }
        }
        let aes_ni = find::has_aes_ni(machine);
        t.note = format!(
            "Paper: Java 6 (Sun/BouncyCastle providers) on a Core i7-2600, Table 3's six files; \
             ours: {}. The ranking, pair by pair of Table 3's ciphers in every file compared \
             (ours decided by the 99% interval of their time ratio): {}.{}",
            if matched {
                "each paper file beside our input of the same kind (BMP with BMP, FLV video with \
                 compressed data), largest with largest; paper files without a counterpart at this \
                 scale are left out (--paper-sizes times them all)"
            } else {
                "your largest file beside the paper's 100 MB BMP"
            },
            Tally::of(verdicts.iter().map(|(_, v)| *v)),
            match des_over_aes {
                Some((low, paper_des_aes)) if aes_ni && low > 2.0 * paper_des_aes => format!(
                    " AES pulls far ahead here (DES/AES at least {low:.1} against the paper's {paper_des_aes:.1}): \
                     this CPU has AES-NI, which Java 6 did not use, while DES and the other legacy ciphers \
                     still run in software."
                ),
                _ => String::new(),
            }
        );
        out.push(t.artifact(NAME, "paper/table-3", "Table 3 as ratios to AES-128"));
        if !verdicts.is_empty() {
            out.push(verdict::claims_table(verdicts).artifact(
                NAME,
                "paper/table-3-pairs",
                "Table 3, pair by pair: the paper's order against ours",
            ));
        }
        let label = pairs.first().map(|p| p.1.clone()).unwrap_or_default();

        // Proportionality: time per byte at the largest against the smallest size.
        let Some(smallest) = enc.iter().map(|m| m.id.size).min() else {
            return Ok(out);
        };
        let mut p = Table::new(&[
            "cipher",
            "ns/byte at smallest",
            "ns/byte at largest",
            "largest/smallest per byte [99% CI]",
        ]);
        for alg in distinct(&enc, |m| m.id.algorithm.clone()) {
            let pick = |size| {
                enc.iter()
                    .copied()
                    .find(|m| m.id.algorithm == alg && m.id.size == size && m.id.data_type == label)
            };
            let (Some(s), Some(l)) = (pick(smallest), pick(largest)) else {
                continue;
            };
            let per_byte = |m: &Measurement| m.median_ns_per_op() / m.id.size.max(1) as f64;
            let r = find::ratio(l, s).map(|mut r| {
                let k = smallest as f64 / largest as f64;
                r.interval.estimate *= k;
                r.interval.low *= k;
                r.interval.high *= k;
                r
            });
            p.row(vec![
                text(&alg).into(),
                num(per_byte(s)).into(),
                num(per_byte(l)).into(),
                find::ratio_cell(r),
            ]);
        }
        p.note = format!(
            "Paper: \"encryption time increases as file size increases in multiples of data size\". \
             A ratio of 1 means time is exactly proportional to size between {smallest} and {largest} bytes; \
             above 1, large inputs cost more per byte (they no longer fit the CPU caches); below 1, \
             fixed per-call costs (padding, tag, set-up) weigh on small inputs."
        );
        out.push(p.artifact(NAME, "proportionality", "Is time proportional to size?"));
        Ok(out)
    }
}

/// Table 3's rows matched with this run's inputs: (row, data type, size), each paper file
/// with our input of the same kind, largest with largest.
fn table3_rows(enc: &[&Measurement]) -> Vec<(usize, String, u64)> {
    let mut out = Vec::new();
    for (paper_kind, ours) in [("BMP", DataType::Bmp), ("FLV", DataType::Compressed)] {
        let mut paper_rows: Vec<usize> = (0..TABLE3.len())
            .filter(|r| TABLE3[*r].0 == paper_kind)
            .collect();
        paper_rows.sort_by(|a, b| TABLE3[*b].1.total_cmp(&TABLE3[*a].1));
        let mut sizes: Vec<u64> = distinct(enc, |m| m.id.size)
            .into_iter()
            .filter(|s| {
                enc.iter()
                    .any(|m| m.id.size == *s && m.id.data_type == ours.name())
            })
            .collect();
        sizes.sort_unstable_by(|a, b| b.cmp(a));
        for (row, size) in paper_rows.into_iter().zip(sizes) {
            out.push((row, ours.name().to_string(), size));
        }
    }
    out.sort_by_key(|p| p.0);
    out
}

/// Every pair of Table 3's ciphers: does this run order them as the paper's times do?
/// `agrees`, `differs` or `can't tell`, per pair with both measured, with the claim in
/// words (`file` is the paper's file the pair was timed on).
fn table3_pairs<'m>(
    ciphers: &[CipherSpec],
    paper: &[f64],
    at: &dyn Fn(&CipherSpec) -> Option<&'m Measurement>,
    file: &str,
) -> Vec<(String, Agreement)> {
    let mut out = Vec::new();
    for i in 0..ciphers.len() {
        for j in i + 1..ciphers.len() {
            let (Some(a), Some(b)) = (at(&ciphers[i]), at(&ciphers[j])) else {
                continue;
            };
            let published = if paper[i] > paper[j] {
                Order::Slower
            } else if paper[i] < paper[j] {
                Order::Faster
            } else {
                Order::Same
            };
            out.push((
                format!(
                    "{} {} than {} ({file})",
                    ciphers[i],
                    published.word(),
                    ciphers[j]
                ),
                Agreement::of(published, Order::of(find::ratio(a, b).as_ref())),
            ));
        }
    }
    out
}
