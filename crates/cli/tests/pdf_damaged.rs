//! Damaged variants of every file of ../shared/pdf (tests/damaged: wrong startxref,
//! deleted or cut-out cross-reference section, damaged main section of a linearized file,
//! truncated tails, shuffled and shifted offsets, junk before the header), each checked
//! against qpdf's repair. Every variant must either round-trip -- `pdf encrypt`, then
//! `pdf decrypt` of that, gives the pages and the text (pdftotext) of qpdf's repaired file
//! -- or be refused (exit 7, the document cannot be kept whole; or 3, not readable as a
//! PDF) with no output file. None may give fewer pages than the original with exit 0.
//! `pdf decrypt` of the variant itself must agree with `pdf encrypt`.
//!
//! `CIPHERLAB_DAMAGED_DIR=DIR` also writes the variants to DIR. Prints SKIP without
//! ../shared/pdf, qpdf or poppler.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod damaged;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use cipherlab_testkit::pdf::shared_dir as shared;
use cipherlab_testkit::process::{have, stderr};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_cipherlab")
}

fn run(cmd: &str, args: &[&str]) -> Output {
    Command::new(cmd).args(args).output().expect(cmd)
}

/// The files of the README's table with the password that opens each: the user
/// password, or the owner password when the user one is not published. Unencrypted
/// files have none.
fn files(dir: &Path) -> Vec<(String, Option<String>)> {
    let text = std::fs::read_to_string(dir.join("README.md")).unwrap();
    let cell = |s: &str| match s.trim() {
        "-" | "unknown" => None,
        "(empty)" => Some(String::new()),
        s => s
            .strip_prefix('`')
            .and_then(|s| s.strip_suffix('`'))
            .map(str::to_string),
    };
    text.lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let c: Vec<&str> = l.split('|').collect();
            let name = c[1].trim().trim_matches('`').to_string();
            (name, cell(c[7]).or_else(|| cell(c[8])))
        })
        .collect()
}

/// Pages (pdfinfo) and text (pdftotext) of a file, opened with `pw`; `None` if poppler
/// cannot open it.
fn pages_and_text(f: &Path, pw: Option<&str>) -> Option<(usize, Vec<u8>)> {
    let mut a: Vec<&str> = Vec::new();
    if let Some(p) = pw {
        a.extend(["-upw", p]);
    }
    let fs = f.to_str().unwrap();
    let info = run("pdfinfo", &[&a[..], &[fs]].concat());
    if !info.status.success() {
        return None;
    }
    let pages = String::from_utf8_lossy(&info.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("Pages:").map(|p| p.trim().parse().unwrap()))?;
    let text = run("pdftotext", &[&a[..], &[fs, "-"]].concat());
    text.status.success().then_some((pages, text.stdout))
}

/// How one variant went.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    /// Encrypted and decrypted back to qpdf's repair (pages and text).
    RoundTrip,
    /// As RoundTrip, but qpdf could not repair it (or lost pages): compared with the
    /// original instead.
    RoundTripBeyondQpdf,
    /// Refused: the document cannot be kept whole (exit 7).
    RefusedIncomplete,
    /// Refused: not readable as a PDF (exit 3).
    RefusedUnreadable,
}

struct Case<'a> {
    name: String,
    pw: Option<&'a str>,
    original: (usize, Vec<u8>),
}

fn check(case: &Case<'_>, kind: &str, bytes: &[u8], tmp: &Path) -> Outcome {
    let what = format!("{} {kind}", case.name);
    let v = tmp.join("variant.pdf");
    std::fs::write(&v, bytes).unwrap();
    let vs = v.to_str().unwrap();
    let pw_arg = case.pw.map(|p| format!("--password={p}"));

    // qpdf's repair.
    let q = tmp.join("qpdf.pdf");
    let _ = std::fs::remove_file(&q);
    let mut a = vec!["--decrypt", vs, q.to_str().unwrap()];
    if let Some(p) = &pw_arg {
        a.insert(0, p);
    }
    let qo = run("qpdf", &a);
    let repaired = matches!(qo.status.code(), Some(0 | 3))
        .then(|| pages_and_text(&q, None))
        .flatten();

    // Ours: encrypt, then decrypt what we wrote.
    let e = tmp.join("enc.pdf");
    let _ = std::fs::remove_file(&e);
    let es = e.to_str().unwrap();
    let mut a = vec![
        "pdf",
        "encrypt",
        vs,
        "-o",
        es,
        "--user-password",
        "u",
        "--owner-password",
        "o",
    ];
    if let Some(p) = &pw_arg {
        a.push(p);
    }
    let eo = run(bin(), &a);
    let err = stderr(&eo);
    assert!(!err.contains("panicked"), "{what}: panic: {err}");

    // And `pdf decrypt` of the variant itself, which reads it the same way.
    let d = tmp.join("dec.pdf");
    let _ = std::fs::remove_file(&d);
    let mut a = vec!["pdf", "decrypt", vs, "-o", d.to_str().unwrap()];
    if let Some(p) = &pw_arg {
        a.push(p);
    }
    let dout = run(bin(), &a);
    assert_eq!(
        dout.status.code(),
        eo.status.code(),
        "{what}: pdf decrypt ({}) and pdf encrypt ({err}) disagree",
        stderr(&dout)
    );

    match eo.status.code() {
        Some(0) => {}
        Some(code @ (3 | 7)) => {
            assert!(
                !e.exists() && !d.exists(),
                "{what}: refused but wrote a file"
            );
            let reason: String = err.lines().next().unwrap_or("").chars().take(260).collect();
            println!("refused (exit {code}): {what}: {reason}");
            if code == 7 {
                assert!(
                    err.contains("cannot be kept whole") && err.contains("qpdf"),
                    "{what}: exit 7 without the reason: {err}"
                );
                return Outcome::RefusedIncomplete;
            }
            return Outcome::RefusedUnreadable;
        }
        c => panic!("{what}: exit {c:?}: {err}"),
    }
    let back = tmp.join("back.pdf");
    let _ = std::fs::remove_file(&back);
    let o = run(
        bin(),
        &[
            "pdf",
            "decrypt",
            es,
            "-o",
            back.to_str().unwrap(),
            "--password=u",
        ],
    );
    assert!(
        o.status.success(),
        "{what}: our output does not decrypt: {}",
        stderr(&o)
    );
    let ours = pages_and_text(&back, None)
        .unwrap_or_else(|| panic!("{what}: poppler cannot open our round trip"));
    let direct = pages_and_text(&d, None)
        .unwrap_or_else(|| panic!("{what}: poppler cannot open pdf decrypt's output"));
    assert_eq!(
        ours.0, direct.0,
        "{what}: pdf decrypt and the round trip differ in pages"
    );
    assert!(
        ours.0 >= case.original.0,
        "{what}: exit 0 with {} pages where the original has {}: {err}",
        ours.0,
        case.original.0
    );
    match repaired.filter(|r| r.0 == case.original.0) {
        Some(r) => {
            assert_eq!(ours.0, r.0, "{what}: pages differ from qpdf's repair");
            assert!(ours.1 == r.1, "{what}: text differs from qpdf's repair");
            Outcome::RoundTrip
        }
        None => {
            assert_eq!(
                ours.0, case.original.0,
                "{what}: pages differ from the original"
            );
            assert!(
                ours.1 == case.original.1,
                "{what}: text differs from the original"
            );
            Outcome::RoundTripBeyondQpdf
        }
    }
}

#[test]
fn damaged_variants_round_trip_as_qpdf_repairs_them_or_are_refused() {
    let Some(dir) = shared() else {
        println!("SKIP: ../shared/pdf is missing");
        return;
    };
    if !(have("qpdf") && have("pdfinfo") && have("pdftotext")) {
        println!("SKIP: qpdf or poppler-utils is missing (bash .ci/setup installs them)");
        return;
    }
    let dump = std::env::var_os("CIPHERLAB_DAMAGED_DIR").map(PathBuf::from);
    let tmp = tempfile::tempdir().unwrap();
    let mut table: BTreeMap<&'static str, BTreeMap<Outcome, usize>> = BTreeMap::new();
    let mut total = 0;
    for (name, pw) in files(&dir) {
        let path = dir.join(&name);
        let original = pages_and_text(&path, pw.as_deref())
            .unwrap_or_else(|| panic!("{name}: poppler cannot open the original"));
        let case = Case {
            name: name.clone(),
            pw: pw.as_deref(),
            original,
        };
        for v in damaged::variants(&std::fs::read(&path).unwrap()) {
            if let Some(d) = &dump {
                std::fs::create_dir_all(d).unwrap();
                let stem = name.trim_end_matches(".pdf");
                std::fs::write(d.join(format!("{stem}.{}.pdf", v.kind)), &v.bytes).unwrap();
            }
            let outcome = check(&case, v.kind, &v.bytes, tmp.path());
            *table.entry(v.kind).or_default().entry(outcome).or_default() += 1;
            total += 1;
        }
    }
    println!(
        "damaged variants: {total}, by kind (round trip as qpdf repairs it / round trip where qpdf could not / refused: incomplete / refused: unreadable)"
    );
    for (kind, o) in &table {
        let n = |k| o.get(&k).copied().unwrap_or(0);
        println!(
            "  {kind:24} {:3} {:3} {:3} {:3}",
            n(Outcome::RoundTrip),
            n(Outcome::RoundTripBeyondQpdf),
            n(Outcome::RefusedIncomplete),
            n(Outcome::RefusedUnreadable)
        );
    }
    // Repair must be the rule, not refusal: every file survives a wrong startxref, junk
    // before the header and shifted offsets.
    for kind in ["startxref-wrong", "junk-before-header", "offsets-shifted"] {
        let o = &table[kind];
        assert_eq!(
            o.keys()
                .filter(|k| **k >= Outcome::RefusedIncomplete)
                .count(),
            0,
            "{kind}: refused some files: {o:?}"
        );
    }
}
