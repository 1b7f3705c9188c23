//! The PDF paper on its own platform: PDFBox 3 with BouncyCastle in the JVM, timed by JMH
//! (the Java runner's `pdf` op, platforms/PROTOCOL.md). The paper put Ascon-128 and
//! Xoodyak in place of AES-128 in iText's Standard handler at revision 4 and timed the
//! whole job with JMH; here PDFBox's Standard handler does AES-128 (R4) and AES-256 (R6) as
//! users run it, and the paper's swap (`ascon-128-r4`, `xoodyak-r4`) beside them, on the
//! study's single-shot file. Each JMH iteration's mean time per operation is one sample, so
//! the figures get the same intervals and verdicts as cipherlab's own; the findings put
//! Fig. 10's order on this platform beside the paper's and PDFBox beside cipherlab.

use cipherlab_harness::{ExternalTimer, Settings};
use cipherlab_platforms::{platforms_dir, ready, runtime};
use cipherlab_results::artifact::Artifact;
use cipherlab_results::artifact::table::{Cell, Table, num, text};
use cipherlab_results::id::{BenchId, Measurement, Phase, Runtime, Subject};
use cipherlab_results::verdict::{Agreement, Order};
use serde_json::{Value, json};

use super::super::find;
use super::super::{Config, Elsewhere, Scale};
use super::inputs::PdfSet;
use super::{NAME, wanted};
use cipherlab_pdf::{Cipher, LwcCipher, StdCipher};

/// What the Java figures are stored under.
pub const IMPLEMENTATION: &str = "pdfbox";

/// The Java runner's schemes, the PDF cipher each is the figure of, and what it is.
const SCHEMES: [(&str, Cipher, &str); 4] = [
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
];

/// JMH's settings per scale: (warm-up iterations, iterations, forks, ms per iteration).
/// The paper's are 5, 10 and 2 (`--paper-sizes`); `--quick` keeps the JVM's share of the
/// main job to a few seconds.
fn jmh(scale: Scale) -> (u32, u32, u32, u32) {
    scale.pick((3, 5, 1, 100), (5, 10, 1, 500), (5, 10, 2, 1000))
}

/// The Java figures of the study's single-shot file, with a table of what was timed, or
/// why nothing was.
pub(super) fn measure(cfg: &Config, settings: &Settings) -> Elsewhere {
    let mut out = Elsewhere::default();
    let mut notes = Table::new(&["scheme", "what", "result"]);
    let schemes: Vec<_> = SCHEMES.iter().filter(|(_, c, _)| wanted(cfg, *c)).collect();
    if schemes.is_empty() {
        return out;
    }
    let set = PdfSet::for_config(cfg);
    let Some(file) = set
        .selection(cfg.scale)
        .and_then(|s| set.files.get(s.single).cloned())
    else {
        return out;
    };
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
    // The file the runner reads: the study's plaintext bytes (a file decrypted first with
    // its README password is timed as the plain file it became), removed afterwards.
    let input = std::env::temp_dir().join(format!("cipherlab-pdf-jvm-{}.pdf", std::process::id()));
    let written = std::fs::write(&input, &file.plain[..]);
    let _remove = Remove(&input);
    if let Err(e) = written {
        notes.row(vec![text("-"), text(input.display()), text(e.to_string())]);
        out.artifacts.push(note(notes));
        return out;
    }
    let (warmup, iterations, forks, iteration_ms) = jmh(cfg.scale);
    for mode in ["avgt", "ss"] {
        // Single shot (Fig. 11): each iteration one call, no warm-up, in a fresh fork's JVM.
        let warmup = if mode == "ss" { 0 } else { warmup };
        for (scheme, cipher, what) in &schemes {
            let mut request = json!({"op": "pdf", "input": input, "direction": "encrypt",
                "scheme": scheme, "user_password": "user", "owner_password": "owner",
                "mode": mode, "warmup_iterations": warmup, "iterations": iterations,
                "forks": forks});
            if mode == "avgt" {
                request["iteration_ms"] = json!(iteration_ms);
            }
            let answer = match runner.exchange(&[request]) {
                Ok(mut a) if !a.is_empty() => a.remove(0),
                Ok(_) => json!({"error": "no answer"}),
                Err(e) => json!({"error": format!("{e:#}")}),
            };
            let label = label_of(&file.label, mode);
            let size = file.plain.len() as u64;
            match figure(&answer, *cipher, &label, size, settings) {
                Ok(m) => {
                    notes.row(vec![
                        text(scheme),
                        text(what),
                        text(format!(
                            "{} JMH iterations ({mode}, {warmup} warm-up, {forks} fork(s)); {} pages, {} B out, PDFBox {}",
                            m.summary.n,
                            answer["pages"],
                            answer["out_len"],
                            answer["library_version"].as_str().unwrap_or("?")
                        )),
                    ]);
                    if let Some(v) = answer["library_version"].as_str() {
                        out.runtimes
                            .insert(IMPLEMENTATION.into(), format!("PDFBox {v}"));
                    }
                    out.measurements.push(m);
                }
                Err(e) => notes.row(vec![
                    text(scheme),
                    text(what),
                    text(format!("{mode}: not timed: {e}")),
                ]),
            }
        }
    }
    out.artifacts.push(note(notes));
    out
}

/// Removes a file when dropped.
struct Remove<'a>(&'a std::path::Path);

impl Drop for Remove<'_> {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(self.0);
    }
}

fn note(mut t: Table) -> Artifact {
    t.note = "The Java runner's `pdf` op (platforms/PROTOCOL.md): Apache PDFBox 3 encrypts the \
        study's single-shot file as a user runs it (load, protect, save, in memory), timed by \
        JMH in a forked JVM; every result is opened again by PDFBox with both passwords before \
        anything is timed. Each JMH iteration's mean time per operation is one sample here."
        .into();
    t.artifact(
        NAME,
        "jvm/timed",
        "The PDF paper's platform: PDFBox in the JVM, timed by JMH",
    )
}

/// The figures' data type: the file's name, with ` (single shot)` for JMH's
/// `SingleShotTime`.
fn label_of(file: &str, mode: &str) -> String {
    match mode {
        "ss" => format!("{file} (single shot)"),
        _ => file.to_string(),
    }
}

/// One answer as a figure: each JMH iteration's mean (avgt) or call (ss) is a sample.
fn figure(
    answer: &Value,
    cipher: Cipher,
    label: &str,
    size: u64,
    settings: &Settings,
) -> Result<Measurement, String> {
    if let Some(e) = answer.get("error") {
        return Err(e.to_string());
    }
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
    let id = BenchId::new(
        NAME,
        Subject::named(cipher.name()),
        IMPLEMENTATION,
        Phase::EncryptJob,
        size,
        label,
    )
    .with_runtime(Runtime::parse("java").ok_or("no java runtime")?);
    Measurement::from_external_samples(
        id,
        &samples,
        &ExternalTimer::named("JMH avgt (System.nanoTime)"),
        Some(size),
        settings,
    )
    .map_err(|e| e.to_string())
}

/// Figs. 10 and 11 on the paper's own platform: each scheme's time against PDFBox's
/// AES-128 (R4) with the paper's order (AES the slowest) decided from the intervals, and
/// PDFBox against cipherlab's whole job on the same file.
pub(super) fn findings(java: &[&Measurement], rust: &[&Measurement]) -> Vec<Artifact> {
    [
        (
            "avgt",
            "jvm/fig-10",
            "Fig. 10 on the paper's platform: PDFBox in the JVM (JMH average time), and against cipherlab",
            "The paper's Fig. 10 (iText, JMH average time)",
        ),
        (
            "ss",
            "jvm/fig-11",
            "Fig. 11 on the paper's platform: PDFBox in the JVM (JMH single shot), and against cipherlab",
            "The paper's Fig. 11 (iText, JMH single shot)",
        ),
    ]
    .into_iter()
    .filter_map(|(mode, name, title, paper)| figure_table(java, rust, mode, name, title, paper))
    .collect()
}

fn figure_table(
    java: &[&Measurement],
    rust: &[&Measurement],
    mode: &str,
    name: &str,
    title: &str,
    paper: &str,
) -> Option<Artifact> {
    let of = |c: Cipher| {
        java.iter().copied().find(|m| {
            m.id.algorithm == Subject::named(c.name())
                && (mode == "ss") == m.id.data_type.ends_with(" (single shot)")
        })
    };
    let aes = of(Cipher::Standard(StdCipher::Aes128))?;
    let mut t = Table::new(&[
        "scheme",
        "PDFBox ms/op",
        "time / AES-128 R4 [99% CI]",
        "the paper: against AES-128",
        "here",
        "verdict",
        "cipherlab ms (same file, whole job, single shot)",
        "PDFBox / cipherlab [99% CI]",
    ]);
    for (scheme, cipher, _) in SCHEMES {
        let Some(m) = of(cipher) else { continue };
        let file = m.id.data_type.trim_end_matches(" (single shot)");
        let ours = rust.iter().copied().find(|r| {
            r.id.algorithm == Subject::named(cipher.name())
                && r.id.phase == Phase::EncryptJob
                && r.id.data_type == file
        });
        let ratio = (cipher != Cipher::Standard(StdCipher::Aes128))
            .then(|| find::ratio(m, aes))
            .flatten();
        // The paper: AES the slowest in every case; it had no AES-256.
        let published = matches!(cipher, Cipher::Lwc(_)).then_some(Order::Faster);
        let here = Order::of(ratio.as_ref());
        let verdict: Cell = match published {
            Some(p) => Agreement::of(p, here).into(),
            None => text("-").into(),
        };
        t.row(vec![
            text(scheme).into(),
            num(m.summary.median / 1e6).into(),
            find::ratio_cell(ratio),
            text(published.map_or("-", |p| p.word())).into(),
            text(if ratio.is_some() { here.word() } else { "-" }).into(),
            verdict,
            ours.map_or(Value::Null, |o| num(o.summary.median / 1e6))
                .into(),
            find::ratio_cell(ours.and_then(|o| find::ratio(m, o))),
        ]);
    }
    t.note = format!(
        "{paper} found AES-128 the slowest: Ascon-128 and Xoodyak faster. Here the same swap \
         in PDFBox's Standard handler, on the study's single-shot file, each verdict from the \
         99% interval of the time ratio. cipherlab's figure is its single-shot whole job on \
         the same file (encrypt-job), so the last column compares the two whole jobs, parsing \
         and writing included."
    );
    Some(t.artifact(NAME, name, title))
}
