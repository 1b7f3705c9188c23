//! The PDF paper on its own platform: PDFBox 3 with BouncyCastle in the JVM, timed by JMH
//! (the Java runner's `pdf` op, platforms/PROTOCOL.md). The paper put Ascon-128 and
//! Xoodyak in place of AES-128 in iText's Standard handler at revision 4 and timed the
//! encryption and decryption of its PDFs with JMH; here PDFBox's Standard handler does
//! AES-128 (R4) and AES-256 (R6) as users run it, the paper's swap (`ascon-128-r4`,
//! `xoodyak-r4`, tags dropped) and Ascon-AEAD128 with its tags (`ascon-aead128-r4`) beside
//! them. Each scheme is checked against cipherlab first ([`super::jvm_check`]); then, as
//! cipherlab's own figures are, the study's set is timed in average time (Fig. 10, all its
//! files in one operation) and its single-shot file in single shot (Fig. 11), encryption
//! and decryption. Each JMH iteration is one sample, so the figures get the same intervals
//! and verdicts as cipherlab's. With `--profile`, the Flight Recorder says where the JVM's
//! time went (flame graph and hottest methods) beside cipherlab's profiles.

use std::path::PathBuf;

use cipherlab_harness::{ExternalTimer, Settings};
use cipherlab_platforms::{platforms_dir, ready, runtime};
use cipherlab_results::artifact::profile::Profile;
use cipherlab_results::artifact::table::{Cell, Table, num, text};
use cipherlab_results::artifact::{Artifact, Content};
use cipherlab_results::id::{BenchId, Measurement, Phase, Runtime, Subject};
use cipherlab_results::verdict::{Agreement, Order};
use serde_json::{Value, json};

use super::super::find;
use super::super::{Config, Elsewhere, Scale};
use super::findings::get;
use super::inputs::{PdfFile, PdfSet};
use super::jvm_check::{self, Checked, OWNER, USER, ask};
use super::{NAME, SET_LABEL, wanted};
use crate::profile::Work;
use cipherlab_pdf::{Cipher, LwcCipher, StdCipher};

/// What the Java figures are stored under.
pub const IMPLEMENTATION: &str = "pdfbox";

/// The Java runner's schemes, the PDF cipher each is the figure of, and what it is.
const SCHEMES: [(&str, Cipher, &str); 5] = [
    (
        "aes-128-r4",
        Cipher::Standard(StdCipher::Aes128),
        "PDFBox, R4 AESV2",
    ),
    (
        "aes-256-r6",
        Cipher::Standard(StdCipher::Aes256),
        "PDFBox, R6 AESV3",
    ),
    (
        "ascon-128-r4",
        Cipher::Lwc(LwcCipher::ASCON_128),
        "the paper's swap: BouncyCastle's Ascon-128 at R4, tag dropped",
    ),
    (
        "xoodyak-r4",
        Cipher::Lwc(LwcCipher::XOODYAK),
        "the paper's swap: BouncyCastle's Xoodyak at R4, tag dropped",
    ),
    (
        "ascon-aead128-r4",
        Cipher::Lwc(LwcCipher::ASCON_AEAD128),
        "BouncyCastle's Ascon-AEAD128 at R4, tag kept and checked",
    ),
];

/// JMH's settings per scale: (warm-up iterations, iterations, forks, ms per iteration).
/// The paper's are 5, 10 and 2 (`--paper-sizes`); `--quick` keeps the JVM's share of the
/// main job to a few seconds.
fn jmh(scale: Scale) -> (u32, u32, u32, u32) {
    scale.pick((2, 5, 1, 60), (5, 10, 1, 500), (5, 10, 2, 1000))
}

/// How long `--profile` samples each JVM figure (the Flight Recorder, after a quarter as
/// long unrecorded).
fn profile_ms(scale: Scale) -> u32 {
    scale.pick(1_000, 3_000, 5_000)
}

/// The JVM's two figures of the paper: its average time over the study's set (Fig. 10)
/// and its single shot on one file (Fig. 11), as cipherlab's own are labelled.
struct Shape<'a> {
    mode: &'static str,
    label: &'a str,
    files: Vec<&'a PdfFile>,
}

/// The Java figures, with a table of what was checked and timed, or why nothing was.
pub(super) fn measure(cfg: &Config, settings: &Settings) -> Elsewhere {
    let mut out = Elsewhere::default();
    let mut notes = Table::new(&["scheme", "what", "result"]);
    let schemes: Vec<_> = SCHEMES.iter().filter(|(_, c, _)| wanted(cfg, *c)).collect();
    if schemes.is_empty() {
        return out;
    }
    let set = PdfSet::for_config(cfg);
    let Some(sel) = set.selection(cfg.scale) else {
        return out;
    };
    let Some(single) = set.files.get(sel.single) else {
        return out;
    };
    let shapes = [
        Shape {
            mode: "avgt",
            label: SET_LABEL,
            files: sel
                .average
                .iter()
                .filter_map(|&i| set.files.get(i))
                .collect(),
        },
        Shape {
            mode: "ss",
            label: &single.label,
            files: vec![single],
        },
    ];
    let runner = match runtime("java").map(|rt| ready(rt, &platforms_dir(None))) {
        Ok(Ok((runner, info))) => {
            out.runtimes.insert("java".into(), info.version);
            runner
        }
        Ok(Err(not)) => {
            notes.row(vec![
                text("-"),
                text("the Java runner"),
                text(format!("not timed: {} (install: {})", not.why, not.fix)),
            ]);
            out.artifacts.push(note(notes));
            return out;
        }
        Err(e) => {
            notes.row(vec![
                text("-"),
                text("the Java runner"),
                text(e.to_string()),
            ]);
            out.artifacts.push(note(notes));
            return out;
        }
    };
    // The files the runner reads: the study's plaintext bytes (a file decrypted first with
    // its README password is timed as the plain file it became), in a folder of this
    // process's, removed afterwards.
    let scratch = match Scratch::new() {
        Ok(s) => s,
        Err(e) => {
            notes.row(vec![text("-"), text("a scratch folder"), text(e)]);
            out.artifacts.push(note(notes));
            return out;
        }
    };
    let plain_path = |f: &PdfFile| scratch.0.join(format!("plain-{}.pdf", index_of(&set, f)));
    for f in set.files.iter() {
        if let Err(e) = std::fs::write(plain_path(f), &f.plain[..]) {
            notes.row(vec![text("-"), text(&f.label), text(e.to_string())]);
            out.artifacts.push(note(notes));
            return out;
        }
    }
    let (warmup, iterations, forks, iteration_ms) = jmh(cfg.scale);
    for (scheme, cipher, what) in &schemes {
        let encrypted = |f: &PdfFile| {
            scratch
                .0
                .join(format!("{scheme}-{}.pdf", index_of(&set, f)))
        };
        // Conformance first, on every file the JVM times: nothing is timed without it.
        let mut files: Vec<&PdfFile> = Vec::new();
        for f in shapes.iter().flat_map(|s| s.files.iter().copied()) {
            if !files.iter().any(|g| std::ptr::eq(*g, f)) {
                files.push(f);
            }
        }
        let checked: Vec<Checked<'_>> = files
            .iter()
            .map(|f| Checked {
                label: &f.label,
                plain: &f.plain,
                input: plain_path(f),
                encrypted: encrypted(f),
            })
            .collect();
        match jvm_check::check(&runner, scheme, *cipher, &checked, &scratch.0) {
            Ok(said) => notes.row(vec![text(scheme), text(what), text(said)]),
            Err(why) => {
                notes.row(vec![
                    text(scheme),
                    text(what),
                    text(format!("not timed: {why}")),
                ]);
                continue;
            }
        }
        for shape in &shapes {
            let size: u64 = shape.files.iter().map(|f| f.plain.len() as u64).sum();
            for (direction, phase) in [
                ("encrypt", Phase::EncryptJob),
                ("decrypt", Phase::DecryptJob),
            ] {
                // Each JMH request starts a JVM; at --quick the single-shot decryption is
                // the one left out, to keep the main job within its minutes.
                if cfg.scale == Scale::Quick && shape.mode == "ss" && direction == "decrypt" {
                    continue;
                }
                let input: Vec<PathBuf> = shape
                    .files
                    .iter()
                    .map(|f| {
                        if direction == "encrypt" {
                            plain_path(f)
                        } else {
                            encrypted(f)
                        }
                    })
                    .collect();
                let mut request = json!({"op": "pdf", "input": input, "direction": direction,
                    "scheme": scheme, "mode": shape.mode, "iterations": iterations, "forks": forks});
                if direction == "encrypt" {
                    request["user_password"] = json!(USER);
                    request["owner_password"] = json!(OWNER);
                } else {
                    request["password"] = json!(USER);
                }
                // Single shot (Fig. 11): each iteration one call, no warm-up, in a fresh
                // fork's JVM.
                let warmup = if shape.mode == "ss" { 0 } else { warmup };
                request["warmup_iterations"] = json!(warmup);
                if shape.mode == "avgt" {
                    request["iteration_ms"] = json!(iteration_ms);
                }
                let id = id_of(*cipher, phase, size, shape.label);
                let figure = ask(&runner, request.clone()).and_then(|answer| {
                    figure(&answer, id.clone(), size, settings).map(|m| (answer, m))
                });
                let (answer, m) = match figure {
                    Ok(x) => x,
                    Err(e) => {
                        notes.row(vec![
                            text(scheme),
                            text(what),
                            text(format!("{direction} {}: not timed: {e}", shape.mode)),
                        ]);
                        continue;
                    }
                };
                notes.row(vec![
                    text(scheme),
                    text(what),
                    text(format!(
                        "{direction}, {}: {} JMH iterations ({}, {warmup} warm-up, {forks} fork(s)), {} file(s), {} pages, {} B in, PDFBox {}",
                        shape.label,
                        m.summary.n,
                        shape.mode,
                        answer["files"],
                        answer["pages"],
                        answer["in_len"],
                        answer["library_version"].as_str().unwrap_or("?")
                    )),
                ]);
                if let Some(v) = answer["library_version"].as_str() {
                    out.runtimes
                        .insert(IMPLEMENTATION.into(), format!("PDFBox {v}"));
                }
                // --profile: the average-time figure's operation once more, under the
                // Flight Recorder, in the runner's JVM.
                if cfg.profile && shape.mode == "avgt" {
                    let mut request = request.clone();
                    request["mode"] = json!("profile");
                    request["profile_ms"] = json!(profile_ms(cfg.scale));
                    for field in ["warmup_iterations", "iterations", "forks", "iteration_ms"] {
                        request.as_object_mut().map(|o| o.remove(field));
                    }
                    match ask(&runner, request) {
                        Ok(p) => out.artifacts.extend(profile_artifacts(&p, &id, &m, scheme)),
                        Err(e) => notes.row(vec![
                            text(scheme),
                            text(what),
                            text(format!("{direction}: no profile: {e}")),
                        ]),
                    }
                }
                out.measurements.push(m);
            }
        }
    }
    out.artifacts.push(note(notes));
    out
}

/// A file's place in the set (the scratch files' names).
fn index_of(set: &PdfSet, f: &PdfFile) -> usize {
    set.files
        .iter()
        .position(|g| std::ptr::eq(g, f))
        .unwrap_or(usize::MAX)
}

/// A folder of this process's for the runner's files, removed with what it holds.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Result<Scratch, String> {
        let dir = std::env::temp_dir().join(format!("cipherlab-pdf-jvm-{}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        Ok(Scratch(dir))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn note(mut t: Table) -> Artifact {
    t.note = "The Java runner's `pdf` op (platforms/PROTOCOL.md): Apache PDFBox 3 encrypts and \
        decrypts as a user runs it (load, protect or remove the security, save, in memory), \
        timed by JMH in a forked JVM: the study's set in average time, all its files in one \
        operation (Fig. 10), and its single-shot file in single shot (Fig. 11). Before anything \
        is timed, each scheme is checked against cipherlab on every file it times: for the \
        Standard handler, cipherlab decrypts PDFBox's file and PDFBox cipherlab's, with the \
        same pages and streams; for the lightweight schemes, every string and stream PDFBox \
        wrote is cipherlab's encryption of the same bytes under the same key and nonce. A \
        scheme that fails is not timed. Each JMH iteration's mean time per operation is one \
        sample here. At --quick the single-shot decryption is not timed (each JMH request \
        starts a JVM, and the main job has minutes); every other scale times it."
        .into();
    t.artifact(
        NAME,
        "jvm/timed",
        "The PDF paper's platform: PDFBox in the JVM, checked against cipherlab, timed by JMH",
    )
}

fn id_of(cipher: Cipher, phase: Phase, size: u64, label: &str) -> BenchId {
    let id = BenchId::new(
        NAME,
        Subject::named(cipher.name()),
        IMPLEMENTATION,
        phase,
        size,
        label,
    );
    match Runtime::parse("java") {
        Some(rt) => id.with_runtime(rt),
        None => id,
    }
}

/// One answer as a figure: each JMH iteration's mean (avgt) or call (ss) is a sample.
fn figure(
    answer: &Value,
    id: BenchId,
    size: u64,
    settings: &Settings,
) -> Result<Measurement, String> {
    let samples: Vec<u64> = answer["iteration_scores"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_array)
        .flatten()
        .filter_map(Value::as_f64)
        .map(|ns| ns.round() as u64)
        .collect();
    if samples.is_empty() {
        return Err("JMH gave no iteration".into());
    }
    Measurement::from_external_samples(
        id,
        &samples,
        &ExternalTimer::named("JMH avgt (System.nanoTime)"),
        Some(size),
        settings,
    )
    .map_err(|e| e.to_string())
}

/// The Flight Recorder's answer as a flame graph (the figure's profile, named as
/// cipherlab's own profiles are, so the study's profile findings read both) and a table of
/// the hottest methods, with what profiling cost.
fn profile_artifacts(answer: &Value, id: &BenchId, m: &Measurement, scheme: &str) -> Vec<Artifact> {
    let mut profile = Profile::default();
    for (stack, n) in answer["stacks"].as_object().into_iter().flatten() {
        let frames: Vec<&str> = stack.split(';').collect();
        profile.add(&frames, n.as_u64().unwrap_or(0));
    }
    let samples = profile.samples();
    if samples == 0 {
        return Vec::new();
    }
    let title = format!(
        "{} · {} · {} · {} · {} B · {}",
        id.algorithm, id.implementation, id.runtime, id.phase, id.size, id.data_type
    );
    let mut t = Table::new(&["method", "self", "self %", "total %", "kind of work"]);
    // A method's kind of work is that of most of the samples it is on top of (their whole
    // stacks decide: PDFBox's RC4 under the password algorithms is key derivation).
    let kind_of = |method: &str| {
        let mut counts = [0u64; 5];
        for (stack, n) in &profile.stacks {
            if stack.rsplit(';').next() == Some(method) {
                let w = Work::of_stack(stack);
                if let Some(i) = Work::ALL.iter().position(|k| *k == w) {
                    counts[i] += n;
                }
            }
        }
        let best = (0..5).max_by_key(|&i| counts[i]).unwrap_or(4);
        Work::ALL[best].as_str()
    };
    for row in answer["hot_methods"].as_array().into_iter().flatten() {
        let method = row["method"].as_str().unwrap_or("?");
        let share = |f: &str| {
            text(format!(
                "{:.1}%",
                100.0 * row[f].as_f64().unwrap_or(0.0) / samples as f64
            ))
        };
        t.row(vec![
            text(method),
            num(row["self"].as_f64().unwrap_or(0.0)),
            share("self"),
            share("total"),
            text(kind_of(method)),
        ]);
    }
    let cost = match (
        answer["ns_per_op"].as_f64(),
        answer["baseline_ns_per_op"].as_f64(),
    ) {
        (Some(p), Some(b)) if b > 0.0 => format!(
            "{:.2}x ({:.2} ms under the recorder, {:.2} ms without it (the mean of the quarters before and after); the JMH \
             figure's median is {:.2} ms, from a shorter warm-up at --quick)",
            p / b,
            p / 1e6,
            b / 1e6,
            m.summary.median / 1e6
        ),
        _ => "not measured".into(),
    };
    t.note = format!(
        "The JDK's Flight Recorder (jdk.ExecutionSample every 1 ms) over {} ms of the same \
         operation in the runner's JVM, after a quarter as long to warm up, between two quarters \
         timed without the recorder: {samples} samples, {} calls. Self: samples with the \
         method on top; total: samples with it anywhere on the stack; kind of work: that of \
         most samples with the method on top, decided by their whole stacks as in 'where the \
         CPU time went'. What recording cost, in the same JVM: an operation took {cost}.",
        answer["profile_ms"], answer["calls"]
    );
    let flame = Artifact::new(
        NAME,
        &format!("profile/{}", id.key()),
        &title,
        Content::Profile(profile),
    );
    vec![
        flame,
        t.artifact(
            NAME,
            &format!("jvm/hot-methods/{}/{scheme}", id.phase),
            &format!(
                "The JVM's hottest methods: {scheme}, {}, {} (JFR)",
                id.phase, id.data_type
            ),
        ),
    ]
}

/// Figs. 10 and 11 on the paper's own platform: each scheme's time against PDFBox's
/// AES-128 (R4) in the same direction, with the paper's order (AES the slowest) decided
/// from the intervals, and PDFBox against cipherlab's whole job on the same files.
pub(super) fn findings(
    java: &[&Measurement],
    rust: &[&Measurement],
    single: &str,
) -> Vec<Artifact> {
    [
        (
            SET_LABEL,
            "jvm/fig-10",
            "Fig. 10 on the paper's platform: PDFBox in the JVM (JMH average time over the set), and against cipherlab",
            "The paper's Fig. 10 (iText, JMH average time)",
        ),
        (
            single,
            "jvm/fig-11",
            "Fig. 11 on the paper's platform: PDFBox in the JVM (JMH single shot), and against cipherlab",
            "The paper's Fig. 11 (iText, JMH single shot)",
        ),
    ]
    .into_iter()
    .filter_map(|(label, name, title, paper)| figure_table(java, rust, label, name, title, paper))
    .collect()
}

fn figure_table(
    java: &[&Measurement],
    rust: &[&Measurement],
    label: &str,
    name: &str,
    title: &str,
    paper: &str,
) -> Option<Artifact> {
    let mut t = Table::new(&[
        "scheme",
        "direction",
        "the paper: against AES-128",
        "PDFBox ms/op",
        "PDFBox / its AES-128 R4 [99% CI]",
        "PDFBox",
        "PDFBox verdict",
        "cipherlab ms (whole job)",
        "cipherlab / its AES-128 R4 [99% CI]",
        "cipherlab",
        "cipherlab verdict",
        "PDFBox / cipherlab [99% CI]",
    ]);
    let aes128 = Cipher::Standard(StdCipher::Aes128);
    for phase in [Phase::EncryptJob, Phase::DecryptJob] {
        let Some(aes) = get(java, aes128, phase, label) else {
            continue;
        };
        let ours_aes = get(rust, aes128, phase, label);
        for (scheme, cipher, _) in SCHEMES {
            let Some(m) = get(java, cipher, phase, label) else {
                continue;
            };
            let ours = get(rust, cipher, phase, label);
            let against_aes = |a: Option<&Measurement>, b: Option<&Measurement>| {
                (cipher != aes128)
                    .then(|| a.zip(b).and_then(|(a, b)| find::ratio(a, b)))
                    .flatten()
            };
            let ratio = against_aes(Some(m), Some(aes));
            let ours_ratio = against_aes(ours, ours_aes);
            // The paper: AES the slowest in every case, for the two ciphers it swapped in;
            // it had no AES-256 and no Ascon-AEAD128.
            let published = matches!(cipher, Cipher::Lwc(c) if c != LwcCipher::ASCON_AEAD128)
                .then_some(Order::Faster);
            let order = |r: &Option<cipherlab_harness::stats::Ratio>| {
                let here = Order::of(r.as_ref());
                let word = text(if r.is_some() { here.word() } else { "-" });
                let verdict: Cell = match (published, r) {
                    (Some(p), Some(_)) => Agreement::of(p, here).into(),
                    _ => text("-").into(),
                };
                (word, verdict)
            };
            let (here, verdict) = order(&ratio);
            let (ours_here, ours_verdict) = order(&ours_ratio);
            t.row(vec![
                text(scheme).into(),
                text(if phase == Phase::EncryptJob {
                    "encrypt"
                } else {
                    "decrypt"
                })
                .into(),
                text(published.map_or("-", |p| p.word())).into(),
                num(m.summary.median / 1e6).into(),
                find::ratio_cell(ratio),
                here.into(),
                verdict,
                ours.map_or(Value::Null, |o| num(o.summary.median / 1e6))
                    .into(),
                find::ratio_cell(ours_ratio),
                ours_here.into(),
                ours_verdict,
                find::ratio_cell(ours.and_then(|o| find::ratio(m, o))),
            ]);
        }
    }
    if t.rows.is_empty() {
        return None;
    }
    t.note = format!(
        "{paper} found AES-128 the slowest, encrypting and decrypting: Ascon-128 and Xoodyak \
         faster. The three platforms side by side: the paper's order; the same swap in \
         PDFBox's Standard handler on the same files as cipherlab's figure ({label}); and \
         cipherlab's own; each verdict from the 99% interval of the time ratio to the same \
         platform's AES-128 in the same direction. A scheme missing here failed its check \
         against cipherlab or was not asked for (see the JVM's table). cipherlab's figure is \
         its whole job on the same files (encrypt-job, decrypt-job), so the last column \
         compares two whole jobs, parsing and writing included; cipherlab's lightweight \
         files are its authenticated format (docs/pdf-lwc.md), not the paper's swap."
    );
    Some(t.artifact(NAME, name, title))
}

/// PDFBox against cipherlab per phase (from `--profile`): each side's whole job on the
/// study's set (its median) split by the share of its profile's samples in each kind of
/// work -- opening (parsing), keys (key derivation), the cipher, writing, the rest. The
/// JVM's profile is the Flight Recorder's of the same operation, cipherlab's the sampling
/// profiler's of its figure; both sorted by [`Work::of_stack`].
pub(super) fn phases(profiles: &[&Artifact], all: &[&Measurement]) -> Option<Artifact> {
    let profile_of = |m: &Measurement| {
        let name = format!("profile/{}", m.id.key());
        profiles.iter().find_map(|a| match &a.content {
            Content::Profile(p) if a.name == name && p.samples() > 0 => Some(p),
            _ => None,
        })
    };
    let mut t = Table::new(&[
        "scheme",
        "direction",
        "kind of work",
        "PDFBox ms",
        "cipherlab ms",
        "PDFBox / cipherlab",
        "samples (PDFBox / cipherlab)",
    ]);
    for phase in [Phase::EncryptJob, Phase::DecryptJob] {
        for (scheme, cipher, _) in SCHEMES {
            let figure = |java: bool| {
                all.iter().copied().find(|m| {
                    m.id.algorithm == Subject::named(cipher.name())
                        && m.id.phase == phase
                        && m.id.data_type == SET_LABEL
                        && (m.id.implementation == IMPLEMENTATION) == java
                })
            };
            let (Some(j), Some(r)) = (figure(true), figure(false)) else {
                continue;
            };
            let (Some(pj), Some(pr)) = (profile_of(j), profile_of(r)) else {
                continue;
            };
            let (sj, sr) = (Work::shares(pj), Work::shares(pr));
            for (i, work) in Work::ALL.iter().enumerate() {
                let (a, b) = (
                    j.summary.median * sj[i] / 1e6,
                    r.summary.median * sr[i] / 1e6,
                );
                t.row(vec![
                    text(scheme),
                    text(if phase == Phase::EncryptJob {
                        "encrypt"
                    } else {
                        "decrypt"
                    }),
                    text(work.as_str()),
                    num(a),
                    num(b),
                    if b > 0.0 { num(a / b) } else { text("-") },
                    text(format!("{} / {}", pj.samples(), pr.samples())),
                ]);
            }
        }
    }
    if t.rows.is_empty() {
        return None;
    }
    t.note = "From --profile: each side's whole job over the study's set (the median of its \
              figure) split by the share of its CPU samples in each kind of work: parsing is \
              opening the file, key derivation the keys from the password, the cipher every \
              string and stream, writing the new file. Estimates from sample shares, not \
              timed apart (PDFBox encrypts while it writes), and only as good as the samples \
              behind them (cipherlab's profile at --quick has tens: a kind with no sample \
              reads 0); 'where the CPU time went' gives each profile's shares and which side \
              dominates."
        .into();
    Some(t.artifact(
        NAME,
        "jvm/phases",
        "PDFBox against cipherlab, per phase (from --profile)",
    ))
}
