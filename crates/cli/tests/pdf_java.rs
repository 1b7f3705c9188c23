//! Apache PDFBox (the Java runner's `pdf` op, platforms/PROTOCOL.md) and cipherlab's
//! Standard security handler open each other's files, both ways:
//!
//! - PDFBox encrypts (AES-128 at revision 4, AES-256 at revision 6, with a user and an
//!   owner password; the op's `output`) and `cipherlab pdf decrypt` decrypts with the user
//!   password;
//! - `cipherlab pdf encrypt --cipher aes-128` / `aes-256` encrypts and the op decrypts
//!   (direction `decrypt`, its `output`) with the user password.
//!
//! Every decrypted document must equal the original in its page text (`pdftotext`), its
//! document title (`pdfinfo`: a string, so string decryption counts too) and its streams:
//! the decoded stream data of `qpdf --qdf --object-streams=disable`, compared as a sorted
//! list (the writers number objects differently, so objects are not paired by number).
//! The paper's swap (`ascon-128-r4`, `xoodyak-r4`: a format only the `pdf` op opens) is
//! round-tripped through PDFBox alone, and the Ascon file read as Xoodyak must not give the
//! original (it is really encrypted).
//! Inputs: a one-page file made here with an /Info title, and `text-pdflatex-4-pages.pdf`
//! of ../shared/pdf (object streams, a cross-reference stream) when that folder is there.
//!
//! Without the Java runner (or a build of it that predates `pdf`), qpdf or pdftotext the
//! test prints SKIP, and fails under CI (`bash platforms/setup` builds the runner).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Command;

use cipherlab_platforms::{platforms_dir, ready, runtime};
use cipherlab_testkit::pdf::{classic_file, shared_dir};
use cipherlab_testkit::process::{have, stderr};
use serde_json::{Value, json};

const USER: &str = "user pw 1";
const OWNER: &str = "owner pw 2";

/// Prints SKIP with `why`, or fails under CI.
fn skip(why: &str) {
    assert!(std::env::var_os("CI").is_none(), "CI: {why}");
    println!("SKIP: {why}");
}

/// A one-page file with text, a Helvetica font and a document title.
fn made_pdf() -> Vec<u8> {
    let content =
        "BT /F1 18 Tf 72 700 Td (PDFBox and cipherlab agree) Tj 0 -30 Td (on every page) Tj ET";
    classic_file(
        &[
            "<</Type/Catalog/Pages 2 0 R>>",
            "<</Type/Pages/Kids[3 0 R]/Count 1>>",
            "<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Contents 4 0 R/Resources<</Font<</F1 5 0 R>>>>>>",
            &format!(
                "<</Length {}>>\nstream\n{content}\nendstream",
                content.len()
            ),
            "<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>",
            "<</Title(A title that is a string)/Producer(cipherlab tests)>>",
        ],
        "/Info 6 0 R",
    )
}

fn run(args: &[&str]) -> Vec<u8> {
    let o = Command::new(args[0]).args(&args[1..]).output().unwrap();
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    o.stdout
}

fn text(f: &Path) -> Vec<u8> {
    run(&["pdftotext", f.to_str().unwrap(), "-"])
}

fn title(f: &Path) -> Option<String> {
    String::from_utf8_lossy(&run(&["pdfinfo", f.to_str().unwrap()]))
        .lines()
        .find(|l| l.starts_with("Title:"))
        .map(|l| l["Title:".len()..].trim().to_string())
}

/// The decoded data of every stream of `f` (qpdf's QDF form, object streams expanded),
/// sorted. qpdf's exit 3 (warnings) still gives the whole file.
fn streams(f: &Path) -> Vec<Vec<u8>> {
    let o = Command::new("qpdf")
        .args(["--qdf", "--object-streams=disable"])
        .arg(f)
        .arg("-")
        .output()
        .unwrap();
    assert!(
        matches!(o.status.code(), Some(0 | 3)),
        "qpdf --qdf {}: {}",
        f.display(),
        stderr(&o)
    );
    let data = o.stdout;
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(s) = find(&data[at..], b"\nstream\n") {
        let start = at + s + b"\nstream\n".len();
        let len = find(&data[start..], b"endstream").expect("endstream");
        out.push(data[start..start + len].to_vec());
        at = start + len;
    }
    out.sort();
    out
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// `got` is `original` decrypted: same page text, title and streams.
fn assert_same_document(original: &Path, got: &Path, what: &str) {
    let (t, g) = (text(original), text(got));
    assert!(
        !t.trim_ascii().is_empty(),
        "{what}: the original has no text"
    );
    assert_eq!(
        String::from_utf8_lossy(&t),
        String::from_utf8_lossy(&g),
        "{what}: page text"
    );
    assert_eq!(title(original), title(got), "{what}: title");
    let (s, d) = (streams(original), streams(got));
    assert!(!s.is_empty(), "{what}: no streams in the original");
    assert!(
        s == d,
        "{what}: the streams differ ({} against {})",
        s.len(),
        d.len()
    );
}

fn cipherlab(args: &[&str]) {
    let o = Command::new(env!("CARGO_BIN_EXE_cipherlab"))
        .args(args)
        .env_remove("CIPHERLAB_PDF_PASSWORD")
        .env_remove("CIPHERLAB_PDF_USER_PASSWORD")
        .env_remove("CIPHERLAB_PDF_OWNER_PASSWORD")
        .output()
        .expect("run cipherlab");
    assert!(o.status.success(), "cipherlab {args:?}: {}", stderr(&o));
}

#[test]
fn pdfbox_and_cipherlab_decrypt_each_others_standard_handler_files() {
    for tool in ["qpdf", "pdftotext", "pdfinfo"] {
        if !have(tool) {
            return skip(&format!("{tool} is not installed (poppler-utils, qpdf)"));
        }
    }
    let rt = runtime("java").unwrap();
    let (runner, _info) = match ready(rt, &platforms_dir(None)) {
        Ok(r) => r,
        Err(not) => return skip(&format!("the Java runner is not ready: {}", not.why)),
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pw = |name: &str, p: &str| {
        let f = d.join(name);
        std::fs::write(&f, format!("{p}\n")).unwrap();
        f.to_str().unwrap().to_string()
    };
    let (user_file, owner_file) = (pw("user.pw", USER), pw("owner.pw", OWNER));

    let mut inputs = vec![d.join("made.pdf")];
    std::fs::write(&inputs[0], made_pdf()).unwrap();
    match shared_dir() {
        Some(s) => inputs.push(s.join("text-pdflatex-4-pages.pdf")),
        None => println!("SKIP (part): ../shared/pdf is not there; the made file only"),
    }

    let pdf_op = |request: Value| -> Value {
        let answer = runner
            .exchange(std::slice::from_ref(&request))
            .unwrap()
            .remove(0);
        assert!(answer.get("error").is_none(), "{request}: {answer}");
        assert_eq!(answer["unit"], json!("ns/op"), "{answer}");
        let scores = &answer["iteration_scores"];
        assert_eq!(scores.as_array().unwrap().len(), 1, "one fork: {answer}");
        assert!(answer["score"].as_f64().unwrap() > 0.0, "{answer}");
        answer
    };

    for (n, input) in inputs.iter().enumerate() {
        let inp = input.to_str().unwrap();
        for (scheme, cipher, r) in [("aes-128-r4", "aes-128", 4), ("aes-256-r6", "aes-256", 6)] {
            let what = format!("{} {scheme}", input.display());
            // (a) PDFBox encrypts, cipherlab decrypts. One fork, one single shot: the JMH
            // machinery runs (a forked JVM on the runner's class path) at little cost.
            let boxed = d.join(format!("{n}-pdfbox-{scheme}.pdf"));
            let first = runner
                .exchange(&[json!({"op": "pdf", "input": inp, "direction": "encrypt",
                    "scheme": scheme, "user_password": USER, "owner_password": OWNER,
                    "mode": "ss", "warmup_iterations": 0, "iterations": 1, "forks": 1,
                    "output": boxed})])
                .unwrap()
                .remove(0);
            if first["error"]
                .as_str()
                .is_some_and(|e| e.contains("is not one of"))
            {
                return skip(&format!(
                    "the Java runner was built before its pdf op: bash platforms/setup ({first})"
                ));
            }
            assert!(first.get("error").is_none(), "{what}: {first}");
            assert_eq!(first["r"], json!(r), "{what}: {first}");
            let back = d.join(format!("{n}-pdfbox-{scheme}-by-cipherlab.pdf"));
            cipherlab(&[
                "pdf",
                "decrypt",
                boxed.to_str().unwrap(),
                "-o",
                back.to_str().unwrap(),
                "--password-file",
                &user_file,
            ]);
            assert_same_document(input, &back, &format!("{what}: PDFBox -> cipherlab"));

            // (b) cipherlab encrypts, PDFBox decrypts.
            let ours = d.join(format!("{n}-cipherlab-{cipher}.pdf"));
            cipherlab(&[
                "pdf",
                "encrypt",
                "--cipher",
                cipher,
                inp,
                "-o",
                ours.to_str().unwrap(),
                "--user-password-file",
                &user_file,
                "--owner-password-file",
                &owner_file,
            ]);
            let opened = d.join(format!("{n}-cipherlab-{cipher}-by-pdfbox.pdf"));
            let answer = pdf_op(json!({"op": "pdf", "input": ours, "password": USER,
                "direction": "decrypt", "scheme": scheme, "mode": "ss",
                "warmup_iterations": 0, "iterations": 1, "forks": 1, "output": opened}));
            assert_eq!(answer["direction"], json!("decrypt"));
            assert_same_document(input, &opened, &format!("{what}: cipherlab -> PDFBox"));
        }
    }

    // The paper's swap (PDFBox only: no other reader opens it): Ascon-128 and Xoodyak in
    // place of AES-128 at revision 4, tags dropped. PDFBox encrypts and decrypts again;
    // the made file's text and title must not be readable in the encrypted one.
    for (n, input) in inputs.iter().enumerate() {
        for scheme in ["ascon-128-r4", "xoodyak-r4"] {
            let what = format!("{} {scheme}", input.display());
            let sealed = d.join(format!("{n}-pdfbox-{scheme}.pdf"));
            let enc = pdf_op(json!({"op": "pdf", "input": input, "direction": "encrypt",
                "scheme": scheme, "user_password": USER, "owner_password": OWNER,
                "mode": "ss", "warmup_iterations": 0, "iterations": 1, "forks": 1,
                "output": sealed}));
            assert_eq!(enc["filter"], json!("CipherlabLWC"), "{what}: {enc}");
            let bytes = std::fs::read(&sealed).unwrap();
            if n == 0 {
                for plain in [&b"cipherlab agree"[..], b"A title that is a string"] {
                    assert!(
                        !bytes.windows(plain.len()).any(|w| w == plain),
                        "{what}: plaintext in the encrypted file"
                    );
                }
            }
            if scheme == "ascon-128-r4" {
                // Really encrypted (object streams are compressed anyway, so plaintext
                // would not show): read as Xoodyak, the file does not give the original.
                let relabelled = d.join(format!("{n}-relabelled.pdf"));
                let swapped =
                    cipherlab_testkit::pdf::replace_once(&bytes, b"/Ascon128", b"/Xoodyak ");
                std::fs::write(&relabelled, swapped).unwrap();
                let wrong_out = d.join(format!("{n}-relabelled-opened.pdf"));
                let wrong = runner
                    .exchange(&[json!({"op": "pdf", "input": relabelled, "password": USER,
                        "direction": "decrypt", "mode": "ss", "warmup_iterations": 0,
                        "iterations": 1, "forks": 0, "output": wrong_out})])
                    .unwrap()
                    .remove(0);
                assert!(
                    wrong.get("error").is_some() || text(&wrong_out) != text(input),
                    "{what}: the file reads the same with the other cipher: {wrong}"
                );
            }
            let opened = d.join(format!("{n}-pdfbox-{scheme}-opened.pdf"));
            pdf_op(json!({"op": "pdf", "input": sealed, "password": USER,
                "direction": "decrypt", "scheme": scheme, "mode": "ss",
                "warmup_iterations": 0, "iterations": 1, "forks": 1, "output": opened}));
            assert_same_document(input, &opened, &format!("{what}: PDFBox -> PDFBox"));
        }
    }

    // A wrong password is an error, and nothing is written.
    let never = d.join("never.pdf");
    let ours = d.join("0-cipherlab-aes-256.pdf");
    let wrong = runner
        .exchange(&[json!({"op": "pdf", "input": ours, "password": "not it",
            "direction": "decrypt", "output": never})])
        .unwrap()
        .remove(0);
    assert!(
        wrong["error"].as_str().unwrap().contains("password"),
        "{wrong}"
    );
    assert!(!never.exists());
}
