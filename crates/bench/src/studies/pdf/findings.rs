//! The `pdf` study's findings: per mode, our ratios to AES-128 beside the paper's
//! (Figs. 10 and 11); the whole job and the cipher's share of it; key derivation; the
//! PDFs used and skipped; and the paper's conclusion checked, with the reason.

use serde_json::Value;

use super::super::find;
use super::super::paper::pdf_lwc;
use super::inputs::{PdfSet, Selection};
use super::{CIPHERS, NAME, SET_LABEL, handler, subject};
use crate::profile::Work;
use cipherlab_harness::machine::MachineInfo;
use cipherlab_harness::stats::Ratio;
use cipherlab_pdf::Cipher;
use cipherlab_results::artifact::table::{Cell, Table, int, num, sig3, text};
use cipherlab_results::artifact::{Artifact, Content};
use cipherlab_results::id::{Measurement, Phase};
use cipherlab_results::verdict::{Agreement, Order};

/// A mode as the findings see it: its label (the benchmarks' data type) and figure.
struct ModeView {
    label: String,
    name: &'static str,
    figure: &'static str,
    files: String,
}

fn modes(set: &PdfSet, sel: &Selection) -> [ModeView; 2] {
    let single = set.files.get(sel.single);
    [
        ModeView {
            label: SET_LABEL.to_string(),
            name: "average time",
            figure: pdf_lwc::FIG_AVERAGE,
            files: format!(
                "{} PDFs ({} bytes)",
                sel.average.len(),
                sel.average
                    .iter()
                    .filter_map(|&i| set.files.get(i))
                    .map(|f| f.plain.len())
                    .sum::<usize>()
            ),
        },
        ModeView {
            label: single.map(|f| f.label.clone()).unwrap_or_default(),
            name: "single shot",
            figure: pdf_lwc::FIG_SINGLE,
            files: single.map_or_else(String::new, |f| {
                format!("{} ({} bytes)", f.label, f.plain.len())
            }),
        },
    ]
}

/// The figure of `c` in `phase` on the data labelled `label`.
pub(super) fn get<'m>(
    ms: &[&'m Measurement],
    c: Cipher,
    phase: Phase,
    label: &str,
) -> Option<&'m Measurement> {
    find::one(ms, &subject(c), phase, None, Some(label))
}

fn micros(m: Option<&Measurement>) -> Value {
    m.map_or(Value::Null, |m| num(m.median_ns_per_op() / 1e3))
}

fn mb_s(m: Option<&Measurement>) -> Value {
    m.and_then(find::mb_per_s).map_or(Value::Null, num)
}

fn ratio(a: Option<&Measurement>, b: Option<&Measurement>) -> Option<Ratio> {
    a.zip(b).and_then(|(a, b)| find::ratio(a, b))
}

/// A ratio as a percentage with its interval, three significant digits: `12.3% [11.0%,
/// 13.1%]`, `0.118% [0.101%, 0.130%]`.
fn share_text(r: Option<Ratio>) -> String {
    let pct = |x: f64| {
        let s = sig3(100.0 * x);
        format!("{s}%")
    };
    match r {
        Some(r) => format!(
            "{} [{}, {}]",
            pct(r.interval.estimate),
            pct(r.interval.low),
            pct(r.interval.high)
        ),
        None => "-".to_string(),
    }
}

fn paper_ratio(cipher: Cipher) -> &'static str {
    pdf_lwc::RATIO_TO_AES
        .iter()
        .find(|(a, _)| *a == cipher)
        .map_or("not timed", |(_, r)| r)
}

/// Every artifact of the study.
pub fn artifacts(
    set: &PdfSet,
    sel: &Selection,
    ms: &[&Measurement],
    machine: &MachineInfo,
) -> Vec<Artifact> {
    let views = modes(set, sel);
    let mut out: Vec<Artifact> = views.iter().map(|v| mode_table(v, ms, set)).collect();
    out.push(jobs_table(&views, ms));
    out.push(keys_table(ms, &views[1]));
    out.push(conclusion_table(&views, ms, machine));
    out.push(inputs_table(set, sel));
    out
}

/// Figs. 10 and 11: the cipher phases, ratios to AES-128 beside the paper's.
fn mode_table(v: &ModeView, ms: &[&Measurement], set: &PdfSet) -> Artifact {
    let mut t = Table::new(&[
        "cipher",
        "handler",
        &format!("paper / aes-128 ({})", v.figure),
        "enc µs",
        "dec µs",
        "enc MB/s",
        "dec MB/s",
        "ours enc / aes-128 [99% CI]",
        "ours dec / aes-128 [99% CI]",
    ]);
    let aes = |phase| get(ms, pdf_lwc::AES, phase, &v.label);
    for c in CIPHERS {
        let enc = get(ms, c, Phase::Encrypt, &v.label);
        let dec = get(ms, c, Phase::Decrypt, &v.label);
        if enc.is_none() && dec.is_none() {
            continue;
        }
        t.row(vec![
            text(c.name()).into(),
            text(handler(c)).into(),
            text(paper_ratio(c)).into(),
            micros(enc).into(),
            micros(dec).into(),
            mb_s(enc).into(),
            mb_s(dec).into(),
            find::ratio_cell(ratio(enc, aes(Phase::Encrypt))),
            find::ratio_cell(ratio(dec, aes(Phase::Decrypt))),
        ]);
    }
    t.note = format!(
        "Paper ({}, JMH {}, µs/op; iText, AES-128 at revision 4 against ASCON-128 and Xoodyak with their \
         tags dropped, on an i5-7200U, a Ryzen 7 3700U and an i7-5500U): the plot's values are not in \
         the text, only the order, \"in every one of the cases AES performs poorly with respect to ASCON \
         and XOODYAK\". Ours: {} of {}, every string and stream, {}; MB/s count the plaintext bytes of \
         those strings and streams. The LWC ciphers authenticate every object (nonce, associated data, \
         tag); the Standard handler's RC4 and AES-CBC do not.",
        v.figure,
        v.name,
        v.files,
        set.origin.describe(),
        match v.name {
            "average time" => "all files in one call, warm, calibrated batches",
            _ => "one call per sample, no warm-up, a fresh input each time",
        }
    );
    let (name, title) = match v.name {
        "average time" => (
            "paper/fig-10-average-time",
            "Average time over many PDFs (the paper's Fig. 10)",
        ),
        _ => (
            "paper/fig-11-single-shot",
            "Single shot on one PDF (the paper's Fig. 11)",
        ),
    };
    t.artifact(NAME, name, title)
}

/// The whole job per mode, and the cipher's share of it.
fn jobs_table(views: &[ModeView], ms: &[&Measurement]) -> Artifact {
    let mut t = Table::new(&[
        "cipher",
        "mode",
        "encrypt job µs",
        "encryption's share [99% CI]",
        "decrypt job µs",
        "decryption's share [99% CI]",
        "encrypt job MB/s",
    ]);
    for c in CIPHERS {
        for v in views {
            let job = get(ms, c, Phase::EncryptJob, &v.label);
            let djob = get(ms, c, Phase::DecryptJob, &v.label);
            if job.is_none() && djob.is_none() {
                continue;
            }
            let enc = get(ms, c, Phase::Encrypt, &v.label);
            let dec = get(ms, c, Phase::Decrypt, &v.label);
            t.row(vec![
                text(c.name()),
                text(v.name),
                micros(job),
                text(share_text(ratio(enc, job))),
                micros(djob),
                text(share_text(ratio(dec, djob))),
                mb_s(job),
            ]);
        }
    }
    t.note = "The job is what `cipherlab pdf encrypt` does with the keys already made: parse, prepare \
              (objects nothing refers to dropped, unfiltered and weakly compressed streams compressed, a \
              new /ID), lay out, encrypt, write the /Encrypt dictionary (LWC: seal the manifest) and \
              serialize (LWC: wrap in the PDF 2.0 cover document); decryption parses (LWC: the wrapper \
              and the payload), decrypts (LWC: checks the manifest), expands object streams and writes. \
              The share is the cipher phase's median over the job's. Flate compression is most of an \
              encryption job (prepare compresses streams that are not, or only weakly, compressed, and \
              object streams are written compressed; perf on incremental-quartz-classic-xref.pdf), \
              which is why encryption jobs cost more than decryption jobs. The paper timed the cipher \
              only; files over 256 KiB of work use up to 8 threads in both."
        .to_string();
    t.artifact(NAME, "jobs", "The whole job, and the cipher's share of it")
}

/// Key derivation, timed apart.
fn keys_table(ms: &[&Measurement], single: &ModeView) -> Artifact {
    let mut t = Table::new(&[
        "cipher",
        "keys µs",
        "unlock µs",
        &format!("keys as a share of the encrypt job of {}", single.label),
    ]);
    for c in CIPHERS {
        let keys = get(ms, c, Phase::Keys, "none");
        let unlock = get(ms, c, Phase::Unlock, "none");
        if keys.is_none() && unlock.is_none() {
            continue;
        }
        let job = get(ms, c, Phase::EncryptJob, &single.label);
        t.row(vec![
            text(c.name()),
            micros(keys),
            micros(unlock),
            text(share_text(ratio(keys, job))),
        ]);
    }
    t.note = "keys: a new file key and the /Encrypt entries from the user and owner passwords; unlock: the \
              user password checked and the file key recovered, as a reader does on opening. Revision 6 \
              (aes-256, and every LWC cipher, whose passwords use revision 6's algorithm) is slow on \
              purpose: a chain of at least 64 SHA-256/384/512 rounds per password, four of them to write \
              a file; revisions 3 and 4 use MD5 and RC4 rounds. An LWC unlock also tries the empty \
              password (a file it opens is never called authenticated), one more such chain. A file pays \
              this once, whatever its size, so it is timed apart and left out of every other figure."
        .to_string();
    t.artifact(
        NAME,
        "keys",
        "Key derivation from the passwords, timed apart",
    )
}

/// What the CPU offers AES, for the reason.
fn aes_hardware(machine: &MachineInfo) -> String {
    let flag = |f: &str| machine.cpu_flags.get(f).copied().unwrap_or(false);
    match (find::has_aes_ni(machine), flag("vaes")) {
        (true, true) => "AES instructions (AES-NI, and VAES)".to_string(),
        (true, false) => "AES instructions (AES-NI)".to_string(),
        _ => "no AES instructions".to_string(),
    }
}

/// The paper's conclusion (Ascon faster than AES) against ours, per mode and direction.
fn conclusion_table(views: &[ModeView], ms: &[&Measurement], machine: &MachineInfo) -> Artifact {
    let mut t = Table::new(&[
        "mode",
        "phase",
        "paper",
        &format!(
            "ours: {} / {} [99% CI]",
            pdf_lwc::ASCON.name(),
            pdf_lwc::AES.name()
        ),
        "Ascon faster here?",
        "verdict",
    ]);
    let mut rows: Vec<(Option<Ratio>, bool)> = Vec::new();
    for v in views {
        for phase in [Phase::Encrypt, Phase::Decrypt] {
            let a = get(ms, pdf_lwc::ASCON, phase, &v.label);
            let b = get(ms, pdf_lwc::AES, phase, &v.label);
            let r = ratio(a, b);
            let clean = a.zip(b).is_some_and(|(a, b)| a.can_rank() && b.can_rank());
            let verdict = match r {
                None => "not measured",
                Some(_) if !clean => "can't tell (noisy)",
                Some(r) if r.interval.high < 1.0 => "yes",
                Some(r) if r.interval.low > 1.0 => "no: AES is faster",
                Some(_) => "can't tell (the interval includes 1)",
            };
            if r.is_some() {
                rows.push((r, clean));
            }
            // The paper's claim, Ascon faster than AES, by the rule every study uses.
            let claim: Cell = match r {
                None => text("-").into(),
                Some(_) if !clean => Agreement::CantTell.into(),
                Some(r) => Agreement::of(Order::Faster, Order::of(Some(&r))).into(),
            };
            t.row(vec![
                text(v.name).into(),
                text(phase).into(),
                text(format!("< 1 ({})", v.figure)).into(),
                find::ratio_cell(r),
                text(verdict).into(),
                claim,
            ]);
        }
    }
    let hw = aes_hardware(machine);
    let n = rows.len();
    let above = rows
        .iter()
        .filter(|(r, _)| r.is_some_and(|r| r.interval.low > 1.0))
        .count();
    let below = rows
        .iter()
        .filter(|(r, _)| r.is_some_and(|r| r.interval.high < 1.0))
        .count();
    let noisy = rows.iter().filter(|(_, clean)| !clean).count();
    let hedge = if noisy == 0 {
        String::new()
    } else {
        format!(
            " ({noisy} of the {n} comparisons involve figures too noisy to rank, so this is what the \
             intervals say, not a verdict: run on an idle machine to settle it)"
        )
    };
    let summary = if n > 0 && above == n {
        format!(
            "Not reproduced: AES-128 is faster than Ascon-128 here, in both modes, both ways{hedge}. \
             Why: this CPU has {hw}, which RustCrypto's aes crate uses (a round is one instruction; the \
             paper's AES was iText's pure-Java engine, without them), while Ascon and Xoodyak are \
             permutations computed in software; CBC decryption also runs its blocks in parallel, which \
             is why decryption differs most; and our Ascon pays for authentication the paper dropped: \
             per string and stream a 16-byte nonce, associated data (file /ID, object number, \
             generation, kind, dictionary) and a 16-byte tag."
        )
    } else if n > 0 && below == n {
        format!(
            "Reproduced: Ascon-128 is faster than AES-128 here, in both modes, both ways{hedge}, with \
             {hw} on this CPU and although our Ascon also authenticates every string and stream \
             (nonce, associated data, tag). Why: revision 4's AES pays per object an MD5 for the object \
             key, a key schedule, a random IV and CBC padding, which weighs most where objects are \
             small."
        )
    } else {
        format!(
            "Not settled: the comparisons disagree or their intervals include 1 ({above} say AES is \
             faster, {below} say Ascon is{hedge}). This CPU has {hw}; CBC decryption runs its blocks \
             in parallel, CBC encryption cannot; our Ascon authenticates, the paper's did not."
        )
    };
    t.note = format!("The paper: {}. {summary}", pdf_lwc::CONCLUSION);
    t.artifact(
        NAME,
        "conclusion",
        "The paper's conclusion, checked: is Ascon faster than AES?",
    )
}

/// The PDFs: used in which mode, what their encryption processes, and the ones skipped.
fn inputs_table(set: &PdfSet, sel: &Selection) -> Artifact {
    let mut t = Table::new(&[
        "file",
        "file bytes",
        "plaintext bytes",
        "used in",
        "strings + streams (Standard)",
        "their bytes",
        "strings + streams (LWC)",
        "their bytes",
        "note",
    ]);
    for (i, f) in set.files.iter().enumerate() {
        let used = match (sel.average.contains(&i), sel.single == i) {
            (true, true) => "both modes",
            (true, false) => "average time",
            (false, true) => "single shot",
            (false, false) => "-",
        };
        t.row(vec![
            text(&f.label),
            int(f.file_bytes),
            int(f.plain.len() as u64),
            text(used),
            text(format!(
                "{} + {}",
                f.payload_std.strings, f.payload_std.streams
            )),
            int(f.payload_std.bytes),
            text(format!(
                "{} + {}",
                f.payload_lwc.strings, f.payload_lwc.streams
            )),
            int(f.payload_lwc.bytes),
            text(f.note.clone().unwrap_or_default()),
        ]);
    }
    for s in &set.skipped() {
        t.row(vec![
            text(&s.label),
            Value::Null,
            Value::Null,
            text("skipped"),
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Null,
            text(&s.reason),
        ]);
    }
    let mut note = format!(
        "{}. The Standard handler encrypts each string of an object outside an object stream on its \
         own; the LWC layout puts every object that is not a stream into object streams, sealed whole.",
        set.origin.describe()
    );
    for n in &set.notes {
        note.push(' ');
        note.push_str(n);
        if !n.ends_with('.') {
            note.push('.');
        }
    }
    t.note = note;
    t.artifact(NAME, "inputs", "The PDFs")
}

/// The paper profiled each cipher to show where the CPU time went (YourKit); this is
/// ours from `--profile`: for every profiled figure, the share of its samples in key
/// derivation, the cipher, parsing, writing and the rest ([`Work::of_stack`] says which
/// frame decides), and whether the cipher or the PDF handling (parsing and writing)
/// took more. That verdict comes from the samples' own uncertainty: the difference of
/// the two shares must exceed 2.58 standard errors (99%) of a multinomial count, else
/// "can't tell".
pub fn where_the_time_went(profiles: &[&Artifact]) -> Option<Artifact> {
    let mut rows: Vec<(String, u64, [f64; 5])> = profiles
        .iter()
        .filter_map(|a| match &a.content {
            Content::Profile(p) if p.samples() > 0 => {
                Some((a.title.clone(), p.samples(), Work::shares(p)))
            }
            _ => None,
        })
        .collect();
    if rows.is_empty() {
        return None;
    }
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    let mut columns = vec!["figure", "samples"];
    columns.extend(Work::ALL.iter().map(|w| w.as_str()));
    columns.push("more time in");
    let mut t = Table::new(&columns);
    for (title, n, shares) in rows {
        let cipher = shares[1];
        let handling = shares[2] + shares[3];
        let d = cipher - handling;
        let se = ((cipher + handling - d * d).max(0.0) / n as f64).sqrt();
        // Below 20 samples the normal approximation does not hold (one sample would
        // "decide" with a zero standard error).
        let verdict = if n < 20 || d.abs() <= 2.58 * se {
            "can't tell"
        } else if d > 0.0 {
            "the cipher"
        } else {
            "PDF handling"
        };
        let mut cells = vec![text(title), int(n)];
        cells.extend(shares.iter().map(|s| text(format!("{:.0}%", 100.0 * s))));
        cells.push(text(verdict));
        t.row(cells);
    }
    t.note = "From --profile: each figure's CPU samples (997 per CPU-second) by the most \
              specific frame of their stack: the password algorithms are key derivation even \
              where they run AES or a hash; cipher code is the cipher even when the writer \
              calls it; then the writer, then the lexer, cross-reference, repair and \
              decompression code (the read-back check of every output, in repair, counts as \
              parsing). 'More time in' compares the cipher with parsing + writing, \
              and says so only where the difference exceeds 2.58 standard errors of the \
              sample counts, from 20 samples up."
        .to_string();
    Some(t.artifact(
        NAME,
        "profile/where-the-time-went",
        "pdf: where the CPU time went, by kind of work (from --profile)",
    ))
}
