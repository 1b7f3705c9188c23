//! `lwc`: the lightweight AEADs at the ISAP library's sizes (32 B associated data, 64 to
//! 4096 B messages, encryption and decryption) and the permutations under them by
//! rounds. The library's README table (Google Benchmark, Core i5-8279U) is printed beside
//! ours as ratios between ISAP variants and between permutations.

use std::hint::black_box;

use cipherlab_lwc::permutation::{
    ascon::AsconState, keccak_p400::KeccakP400State, xoodoo::XoodooState,
};

use super::ciphers::lwc_aeads;
use super::elsewhere::{self, FileJobs};
use super::find;
use super::inputs::Input;
use super::paper::isap_library::{DECRYPT_NS, ENCRYPT_NS, PERMUTATION_NS, SIZES};
use super::timing::{Target, add_decrypt, add_encrypt};
use super::{Config, Elsewhere, Scale, Study, StudyError, err};
use crate::corpus::DataType;
use cipherlab_harness::Settings;
use cipherlab_harness::machine::MachineInfo;
use cipherlab_results::artifact::Artifact;
use cipherlab_results::artifact::table::{Cell, Table, int, num, text};
use cipherlab_results::id::{BenchId, Measurement, Phase, Subject, Suite};
use cipherlab_results::verdict::{Agreement, Order, Tally};

pub struct LwcStudy;

const NAME: &str = "lwc";

/// Associated data per message, as in the ISAP library's table.
const AD_LEN: usize = 32;

fn sizes(scale: Scale) -> Vec<u64> {
    match scale {
        Scale::Quick => vec![64, 512, 4096],
        Scale::Full | Scale::Paper => SIZES.to_vec(),
    }
}

/// (name, rounds): the permutations timed, the library's and Xoodyak's.
const PERMUTATIONS: [(&str, usize); 10] = [
    ("ascon-p", 1),
    ("ascon-p", 6),
    ("ascon-p", 12),
    ("keccak-p400", 1),
    ("keccak-p400", 8),
    ("keccak-p400", 12),
    ("keccak-p400", 16),
    ("keccak-p400", 20),
    ("xoodoo", 6),
    ("xoodoo", 12),
];

/// A permutation at a round count as a figure's subject: `ascon-p12`.
fn permutation(perm: &str, rounds: usize) -> Subject {
    Subject::named(format!("{perm}{rounds}"))
}

fn add_permutation(suite: &mut Suite<'_>, perm: &'static str, rounds: usize) {
    let state_bytes: u64 = match perm {
        "ascon-p" => 40,
        "keccak-p400" => 50,
        _ => 48,
    };
    let id = BenchId::new(
        NAME,
        permutation(perm, rounds),
        "cipherlab",
        Phase::Permute,
        state_bytes,
        "none",
    );
    // The round count goes through black_box so the compiler cannot specialise the
    // call; the state carries over from call to call, as in a mode.
    suite.add(id, Some(state_bytes), move |b| match perm {
        "ascon-p" => {
            let mut st = AsconState([1, 2, 3, 4, 5]);
            b.iter_on(&mut st, |st| st.permute(black_box(rounds)));
        }
        "keccak-p400" => {
            let mut st = KeccakP400State::from_bytes(&[7; 50]);
            b.iter_on(&mut st, |st| st.permute(black_box(rounds)));
        }
        _ => {
            let mut st = XoodooState::from_bytes(&[7; 48]);
            b.iter_on(&mut st, |st| st.permute(black_box(rounds)));
        }
    });
}

/// The code `cipherlab-lwc` runs for `subject` on this CPU, from the library's own
/// selection (the same choice its dispatch makes): a catalogue AEAD by its family
/// (`cipherlab_lwc::kernels`), a permutation figure (`ascon-p12`, `xoodoo6`) by its
/// permutation (`cipherlab_lwc::permutation_kernels`, what `permute(rounds)` runs).
fn kernel_of(subject: &str) -> Option<&'static str> {
    let by_rounds = cipherlab_lwc::permutation_kernels()
        .into_iter()
        .find(|(p, _)| {
            subject
                .strip_prefix(p)
                .is_some_and(|r| !r.is_empty() && r.bytes().all(|b| b.is_ascii_digit()))
        });
    if let Some((_, k)) = by_rounds {
        return Some(k);
    }
    let family = if subject.starts_with("ascon-") {
        "ascon"
    } else if subject == "xoodyak" {
        "xoodyak"
    } else if subject.starts_with("isap-a-") {
        "isap-a"
    } else if subject.starts_with("isap-k-") {
        "isap-k"
    } else {
        return None;
    };
    cipherlab_lwc::kernels()
        .into_iter()
        .find(|(f, _)| *f == family)
        .map(|(_, k)| k)
}

/// The run-time providers (`--impl`) that implement `spec`.
fn registered_for(spec: &cipherlab_ciphers::CipherSpec) -> Vec<&'static str> {
    cipherlab_ciphers::providers::registered()
        .into_iter()
        .filter(|p| p.supports(spec))
        .map(|p| p.name())
        .collect()
}

/// Each run-time provider's figures against cipherlab's own for the same cipher, phase
/// and size (`None` when there is no such provider).
fn native_against_ours(ms: &[&Measurement]) -> Option<Artifact> {
    let theirs: Vec<&Measurement> = ms
        .iter()
        .copied()
        .filter(|m| {
            m.id.implementation != "cipherlab"
                && cipherlab_ciphers::providers::registered()
                    .iter()
                    .any(|p| p.name() == m.id.implementation)
        })
        .collect();
    if theirs.is_empty() {
        return None;
    }
    let mut t = Table::new(&[
        "provider",
        "cipher",
        "phase",
        "bytes",
        "theirs ns",
        "cipherlab ns",
        "theirs / cipherlab [99% CI]",
        "order",
    ]);
    for m in theirs {
        let ours = ms.iter().copied().find(|o| {
            o.id.implementation == "cipherlab"
                && o.id.algorithm == m.id.algorithm
                && o.id.phase == m.id.phase
                && o.id.size == m.id.size
                && o.id.data_type == m.id.data_type
        });
        let r = ours.and_then(|o| find::ratio(m, o));
        let order = Order::of(r.as_ref());
        t.row::<Cell>(vec![
            text(&m.id.implementation).into(),
            text(m.id.algorithm.name()).into(),
            text(m.id.phase).into(),
            int(m.id.size).into(),
            num(m.median_ns_per_op()).into(),
            ours.map_or(serde_json::Value::Null, |o| num(o.median_ns_per_op()))
                .into(),
            find::ratio_cell(r),
            text(order).into(),
        ]);
    }
    t.note = "C implementations under the NIST LWC crypto_aead API (`--impl`), each the \
              fastest build that agreed with the official KAT, timed by the same harness on \
              the same inputs as cipherlab's own; a ratio below 1 means theirs is faster. \
              Their calls copy the ciphertext through a scratch buffer once per call (the C \
              API does not promise in-place work)."
        .to_string();
    Some(t.artifact(NAME, "native", "C implementations against cipherlab"))
}

impl Study for LwcStudy {
    fn name(&self) -> &'static str {
        NAME
    }

    fn title(&self) -> &'static str {
        "lightweight AEADs at 32 B AD x 64..4096 B messages; permutations by rounds"
    }

    fn source(&self) -> &'static str {
        "ISAP library README (Google Benchmark table)"
    }

    fn plan<'a>(&self, cfg: &Config, suite: &mut Suite<'a>) -> Result<(), StudyError> {
        for size in sizes(cfg.scale) {
            let input = Input::corpus(DataType::Dense, size as usize);
            for spec in lwc_aeads().filter(|s| cfg.filter.accepts_spec(s)) {
                // cipherlab's default (or the providers `--provider` names), then the
                // providers registered at run time (`--impl`: C implementations that passed
                // the KAT), timed the same way beside them.
                let mut chosen = cfg.rust_providers(&spec);
                for p in registered_for(&spec) {
                    if !chosen.contains(&Some(p)) {
                        chosen.push(Some(p));
                    }
                }
                for provider in chosen {
                    let s = Target {
                        provider,
                        ad_len: AD_LEN,
                        ..Target::new(NAME, spec)
                    };
                    add_encrypt(suite, &s, &input).map_err(|e| err(NAME, e))?;
                    add_decrypt(suite, &s, &input).map_err(|e| err(NAME, e))?;
                }
            }
        }
        for (perm, rounds) in PERMUTATIONS {
            if cfg.filter.accepts(perm) || !cfg.filter.is_restricted() {
                add_permutation(suite, perm, rounds);
            }
        }
        Ok(())
    }

    /// Only the runner providers `--provider` names (their figures carry no associated
    /// data: the runners' `time` requests encrypt the file alone); nothing by default.
    fn elsewhere(&self, cfg: &Config, settings: &Settings) -> Result<Elsewhere, StudyError> {
        let inputs: Vec<Input> = sizes(cfg.scale)
            .into_iter()
            .map(|s| Input::corpus(DataType::Dense, s as usize))
            .collect();
        let jobs = FileJobs {
            study: NAME,
            specs: lwc_aeads().filter(|s| cfg.filter.accepts_spec(s)).collect(),
            inputs: &inputs,
            phases: &["encrypt", "decrypt"],
            quick_seconds: 4,
            by_input: false,
            paper_platform: false,
        };
        elsewhere::file_study(jobs, cfg, settings)
    }

    /// Each named provider's variants compared among themselves.
    fn per_platform(&self) -> bool {
        true
    }

    fn findings(
        &self,
        _cfg: &Config,
        ms: &[&Measurement],
        _machine: &MachineInfo,
    ) -> Result<Vec<Artifact>, StudyError> {
        let mut out = Vec::new();
        // ISAP variants relative to ISAP-A-128A, at each size both tables have, encryption
        // and decryption, with the throughput as the library counts it (message and
        // associated data, MiB/s).
        let mut t = Table::new(&[
            "variant",
            "phase",
            "bytes",
            "paper ns",
            "paper MiB/s",
            "paper / isap-a-128a",
            "ours ns",
            "ours MiB/s",
            "ours / isap-a-128a [99% CI]",
            "order against isap-a-128a",
        ]);
        let mib_s = |size: u64, ns: f64| (size as f64 + AD_LEN as f64) / ns * 1e9 / 1048576.0;
        let mut verdicts = Vec::new();
        for (phase, table) in [(Phase::Encrypt, ENCRYPT_NS), (Phase::Decrypt, DECRYPT_NS)] {
            let (baseline, baseline_ns) = table[0];
            for (variant, paper_ns) in table {
                for (i, &size) in SIZES.iter().enumerate() {
                    let Some(ours) = find::of(ms, &variant, phase, Some(size), None) else {
                        continue;
                    };
                    let base = find::of(ms, &baseline, phase, Some(size), None);
                    let r = base.and_then(|b| find::ratio(ours, b));
                    let paper_ratio = paper_ns[i] / baseline_ns[i];
                    let verdict = if variant == baseline {
                        Cell::from(text("-"))
                    } else {
                        let published = Order::of_value(paper_ratio);
                        let v = Agreement::of(published, Order::of(r.as_ref()));
                        verdicts.push(v);
                        Cell::from(v)
                    };
                    t.row::<Cell>(vec![
                        text(variant).into(),
                        text(phase).into(),
                        int(size).into(),
                        num(paper_ns[i]).into(),
                        num(mib_s(size, paper_ns[i])).into(),
                        num(paper_ratio).into(),
                        num(ours.median_ns_per_op()).into(),
                        num(mib_s(size, ours.median_ns_per_op())).into(),
                        find::ratio_cell(r),
                        verdict,
                    ]);
                }
            }
        }
        t.note = format!(
            "Paper: the ISAP library's Google-Benchmark table (Core i5-8279U, Clang), encryption and \
             decryption. Ratios between variants cancel the machine; each variant's order against \
             ISAP-A-128A here (by the 99% interval, the same within 5%) beside the paper's: {}. \
             Background: ISAP-K (Keccak-p[400]) against ISAP-A (Ascon-p) shows the permutations' \
             cost, and the -128 variants' 12-round re-keying per message weighs most on short \
             messages; decryption does the same work as encryption.",
            Tally::of(verdicts.iter().copied())
        );
        out.push(t.artifact(
            NAME,
            "paper/isap-table",
            "ISAP variants against the ISAP library",
        ));

        // Which kernel produced each figure (AEADs and permutations): the library picks
        // portable, AVX2 or AVX-512 code at run time, so a figure without it cannot be
        // compared across machines.
        let mut k = Table::new(&["cipher", "phase", "bytes", "ours ns", "kernel"]);
        for m in ms.iter().filter(|m| m.id.implementation == "cipherlab") {
            let name = m.id.algorithm.name();
            if let Some(kernel) = kernel_of(name) {
                k.row(vec![
                    text(name),
                    text(m.id.phase),
                    int(m.id.size),
                    num(m.median_ns_per_op()),
                    text(kernel),
                ]);
            }
        }
        let pairs = |v: &[(&str, &str)]| {
            v.iter()
                .map(|(f, k)| format!("{f} {k}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        k.note = format!(
            "The code cipherlab-lwc selected on this CPU for each figure (its run-time \
             dispatch, as cipherlab_lwc::kernels() and, for the permutations timed by \
             rounds, cipherlab_lwc::permutation_kernels() report it; all families: {}; \
             permutations: {}).",
            pairs(&cipherlab_lwc::kernels()),
            pairs(&cipherlab_lwc::permutation_kernels()),
        );
        out.push(k.artifact(NAME, "kernels", "Kernel behind each figure"));

        let mut p = Table::new(&[
            "permutation",
            "rounds",
            "paper ns",
            "paper / ascon-p12",
            "ours ns",
            "ours / ascon-p12 [99% CI]",
        ]);
        let base = find::one(ms, &permutation("ascon-p", 12), Phase::Permute, None, None);
        for (perm, rounds) in PERMUTATIONS {
            let subject = permutation(perm, rounds);
            let Some(ours) = find::one(ms, &subject, Phase::Permute, None, None) else {
                continue;
            };
            let paper = PERMUTATION_NS
                .iter()
                .find(|(p, r, _)| *p == perm && *r == rounds)
                .map(|x| x.2);
            p.row(vec![
                text(perm).into(),
                int(rounds as u64).into(),
                paper.map_or(serde_json::Value::Null, num).into(),
                paper
                    .map_or(serde_json::Value::Null, |x| num(x / 45.9))
                    .into(),
                num(ours.median_ns_per_op()).into(),
                find::ratio_cell(base.and_then(|b| find::ratio(ours, b))),
            ]);
        }
        p.note =
            "Paper: the same library's permutation benchmarks (ascon-p12: 45.9 ns). Xoodoo has no \
                  figure there; it is Xoodyak's permutation."
                .to_string();
        out.push(p.artifact(NAME, "paper/permutations", "Permutations by rounds"));
        out.extend(native_against_ours(ms));
        out.extend(crate::native::builds_artifact(NAME));
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every AEAD this study times gets a kernel, the one the library names for its
    /// family; every permutation figure gets its permutation's, Xoodoo's being
    /// Xoodyak's (one selection for both).
    #[test]
    fn every_figure_names_its_kernel() {
        let kernels = cipherlab_lwc::kernels();
        for spec in lwc_aeads() {
            let name = spec.to_string();
            let kernel = kernel_of(&name).unwrap_or_else(|| panic!("{name}: no kernel"));
            assert!(
                kernels.iter().any(|(_, k)| *k == kernel),
                "{name}: {kernel}"
            );
        }
        let xoodyak = kernels
            .iter()
            .find(|(f, _)| *f == "xoodyak")
            .map(|(_, k)| *k);
        assert_eq!(kernel_of("xoodyak"), xoodyak);
        let perms = cipherlab_lwc::permutation_kernels();
        for (perm, rounds) in PERMUTATIONS {
            let want = perms.iter().find(|(p, _)| *p == perm).map(|(_, k)| *k);
            assert!(want.is_some(), "{perm}: not in permutation_kernels()");
            assert_eq!(
                kernel_of(permutation(perm, rounds).name()),
                want,
                "{perm}{rounds}"
            );
        }
        assert_eq!(kernel_of("xoodoo12"), xoodyak);
        assert_eq!(kernel_of("ascon-128"), kernel_of("ascon-aead128"));
    }
}
