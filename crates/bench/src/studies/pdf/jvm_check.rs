//! Conformance before any JVM figure is kept: PDFBox must do what cipherlab does.
//!
//! - **The Standard handler** (`aes-128-r4`, `aes-256-r6`): cipherlab decrypts the file
//!   PDFBox encrypted, and PDFBox decrypts a file cipherlab encrypted; each time the pages
//!   and the data of every stream equal the input's. Streams are compared decoded (a writer
//!   may compress a stream the input left uncompressed), as a sorted list: the writers
//!   number objects their own way, and PDFBox packs objects into object streams, so the
//!   object and cross-reference streams, each writer's own, are left out.
//! - **The lightweight schemes** (the paper's swap and Ascon-AEAD128 at R4, a format only
//!   the runner opens): the runner traces its untimed encryption, each string and stream
//!   with its object key, nonce, plaintext and what PDFBox wrote; cipherlab encrypts each
//!   plaintext with its own cipher under the same key and nonce, and the bytes must be the
//!   same (without the tag where the paper dropped it). The object key is PDFBox's (AESV2's
//!   MD5 of the file key, object, generation and `sAlT`), which the Standard handler's
//!   check above covers at R4.

use std::path::{Path, PathBuf};

use cipherlab_ciphers::CipherSpec;
use cipherlab_pdf::object::Object;
use cipherlab_pdf::{Cipher, Pdf};
use cipherlab_platforms::Runner;
use serde_json::{Value, json};

/// The passwords of every encryption the study makes through the runner.
pub(super) const USER: &str = "user";
pub(super) const OWNER: &str = "owner";

/// One file of the check: its name, its plaintext, where the runner reads it, and where
/// PDFBox's encryption of it goes (the input of its timed decryption).
pub(super) struct Checked<'a> {
    pub label: &'a str,
    pub plain: &'a [u8],
    pub input: PathBuf,
    pub encrypted: PathBuf,
}

/// PDFBox's encryption of `files` (in one request), checked against cipherlab; `scratch`
/// is a folder for the check's other files. `Ok` says what was shown.
pub(super) fn check(
    runner: &Runner,
    scheme: &str,
    cipher: Cipher,
    files: &[Checked<'_>],
    scratch: &Path,
) -> Result<String, String> {
    let trace = scratch.join(format!("{scheme}.trace"));
    let inputs: Vec<&PathBuf> = files.iter().map(|f| &f.input).collect();
    let encrypted: Vec<&PathBuf> = files.iter().map(|f| &f.encrypted).collect();
    let mut request = json!({"op": "pdf", "input": inputs, "direction": "encrypt",
        "scheme": scheme, "user_password": USER, "owner_password": OWNER, "mode": "check",
        "output": encrypted});
    if matches!(cipher, Cipher::Lwc(_)) {
        request["trace"] = json!(trace);
    }
    ask(runner, request)?;
    match cipher {
        Cipher::Lwc(_) => {
            let kept = scheme == "ascon-aead128-r4";
            let text = std::fs::read_to_string(&trace)
                .map_err(|e| format!("the runner's trace {}: {e}", trace.display()))?;
            let said = same_ciphertexts(&text, cipher, kept)?;
            Ok(format!("{} file(s), {said}", files.len()))
        }
        Cipher::Standard(_) => {
            let mut wants = Vec::new();
            let mut ours = Vec::new();
            let mut back = Vec::new();
            for (i, f) in files.iter().enumerate() {
                let want = contents(f.plain, None).map_err(|e| format!("{}: {e}", f.label))?;
                let got = contents(&read(&f.encrypted)?, Some(USER))
                    .map_err(|e| format!("cipherlab does not open PDFBox's {}: {e}", f.label))?;
                same(
                    &want,
                    &got,
                    &format!("cipherlab's decryption of PDFBox's {}", f.label),
                )?;
                let options = cipherlab_pdf::Options {
                    cipher,
                    user_password: USER,
                    owner_password: OWNER,
                    permissions: cipherlab_pdf::permissions::ALL,
                    encrypt_metadata: true,
                    input_password: None,
                    allow_weak: false,
                };
                let bytes = cipherlab_pdf::encrypt(f.plain, &options)
                    .map_err(|e| format!("cipherlab's encryption of {}: {e}", f.label))?
                    .bytes;
                let path = scratch.join(format!("{scheme}-cipherlab-{i}.pdf"));
                std::fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
                ours.push(path);
                back.push(scratch.join(format!("{scheme}-cipherlab-by-pdfbox-{i}.pdf")));
                wants.push(want);
            }
            ask(
                runner,
                json!({"op": "pdf", "input": ours, "direction": "decrypt", "scheme": scheme,
                    "password": USER, "mode": "check", "output": back}),
            )
            .map_err(|e| format!("PDFBox does not decrypt cipherlab's files: {e}"))?;
            for ((f, want), path) in files.iter().zip(&wants).zip(&back) {
                let got = contents(&read(path)?, None)
                    .map_err(|e| format!("PDFBox's decryption of cipherlab's {}: {e}", f.label))?;
                same(
                    want,
                    &got,
                    &format!("PDFBox's decryption of cipherlab's {}", f.label),
                )?;
            }
            Ok(format!(
                "{} file(s): cipherlab decrypts PDFBox's and PDFBox cipherlab's, {} page(s) and \
                 {} stream(s) the same both ways",
                files.len(),
                wants.iter().map(|w| w.pages).sum::<usize>(),
                wants.iter().map(|w| w.streams.len()).sum::<usize>()
            ))
        }
    }
}

/// One request to the runner; its answer, or its error.
pub(super) fn ask(runner: &Runner, request: Value) -> Result<Value, String> {
    let answer = match runner.exchange(&[request]) {
        Ok(mut a) if !a.is_empty() => a.remove(0),
        Ok(_) => return Err("no answer".into()),
        Err(e) => return Err(format!("{e:#}")),
    };
    match answer.get("error") {
        Some(e) => Err(e.as_str().map_or_else(|| e.to_string(), str::to_string)),
        None => Ok(answer),
    }
}

fn read(path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// What must survive another library's encryption: the pages, and every stream's data.
#[derive(Debug, PartialEq)]
struct Contents {
    pages: usize,
    /// Decoded where the filters are general-purpose (else as stored); sorted; object and
    /// cross-reference streams left out.
    streams: Vec<Vec<u8>>,
}

/// The contents of a PDF, decrypted with `password` when it is encrypted.
fn contents(bytes: &[u8], password: Option<&str>) -> Result<Contents, String> {
    let pdf = Pdf::parse(bytes).map_err(|e| e.to_string())?;
    let handler = pdf.authenticate(password).map_err(|e| e.to_string())?;
    let (doc, census) = pdf
        .load_whole(handler.as_ref().map(|(h, _)| h))
        .map_err(|e| e.to_string())?;
    let mut streams: Vec<Vec<u8>> = doc
        .objects
        .values()
        .filter_map(|(_, o)| match o {
            Object::Stream(s) => {
                let kind = s.dict.get(b"Type");
                let structural =
                    matches!(kind, Some(Object::Name(n)) if n == b"ObjStm" || n == b"XRef");
                (!structural).then(|| {
                    cipherlab_pdf::filters::decode(&s.dict, &s.data, "a stream")
                        .unwrap_or_else(|_| s.data.clone())
                })
            }
            _ => None,
        })
        .collect();
    streams.sort();
    Ok(Contents {
        pages: census.pages,
        streams,
    })
}

fn same(want: &Contents, got: &Contents, what: &str) -> Result<(), String> {
    if got.pages != want.pages {
        return Err(format!(
            "{what} has {} page(s), the input {}",
            got.pages, want.pages
        ));
    }
    if got.streams != want.streams {
        let missing = want
            .streams
            .iter()
            .filter(|s| !got.streams.contains(s))
            .count();
        return Err(format!(
            "{what} has {} stream(s) where the input has {}; {missing} of the input's are not in it",
            got.streams.len(),
            want.streams.len()
        ));
    }
    Ok(())
}

/// Every traced string and stream (JSON lines: `obj`, `gen`, `kind`, and in hex `key`,
/// `nonce`, `plain`, `sealed` = nonce ‖ ciphertext [‖ tag]) against cipherlab's own
/// encryption of `plain` under `key` and `nonce`, without associated data.
fn same_ciphertexts(trace: &str, cipher: Cipher, tag_kept: bool) -> Result<String, String> {
    let name = cipher.name();
    let spec = CipherSpec::parse(name).map_err(|e| e.to_string())?;
    let mut n = 0usize;
    let mut bytes = 0usize;
    for line in trace.lines().filter(|l| !l.trim().is_empty()) {
        let r: Value =
            serde_json::from_str(line).map_err(|e| format!("the runner's trace: {e}"))?;
        let field = |f: &str| {
            r[f].as_str()
                .and_then(|h| hex::decode(h).ok())
                .ok_or_else(|| format!("the runner's trace: no hex \"{f}\" in {line:.80}"))
        };
        let (key, nonce, plain, sealed) = (
            field("key")?,
            field("nonce")?,
            field("plain")?,
            field("sealed")?,
        );
        let mut c = cipherlab_ciphers::providers::init(&spec, &key, Some("cipherlab"))
            .map_err(|e| format!("cipherlab's {name}: {e}"))?;
        let mut buf = plain.clone();
        buf.resize(spec.output_len(plain.len()), 0);
        let out = c
            .encrypt(&nonce, &[], &mut buf, plain.len())
            .map_err(|e| format!("cipherlab's {name}: {e}"))?;
        let kept = if tag_kept { out } else { plain.len() };
        let mut ours = nonce.clone();
        ours.extend_from_slice(&buf[..kept]);
        if ours != sealed {
            let at = ours
                .iter()
                .zip(&sealed)
                .position(|(a, b)| a != b)
                .unwrap_or(ours.len().min(sealed.len()));
            return Err(format!(
                "file {}, object {} {} ({}, {} B): BouncyCastle's bytes are not cipherlab's \
                 {name} under the same key and nonce (they differ from byte {at} of nonce ‖ \
                 ciphertext{})",
                r["file"],
                r["obj"],
                r["gen"],
                r["kind"].as_str().unwrap_or("?"),
                plain.len(),
                if tag_kept { " ‖ tag" } else { "" }
            ));
        }
        n += 1;
        bytes += plain.len();
    }
    if n == 0 {
        return Err("the runner's trace is empty: it encrypted no string or stream".into());
    }
    Ok(format!(
        "{n} strings and streams ({bytes} B): BouncyCastle's bytes are cipherlab's {name} under \
         the same object key and nonce, byte for byte{}",
        if tag_kept {
            ", tag included"
        } else {
            " (tag dropped)"
        }
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use cipherlab_pdf::LwcCipher;

    fn line(plain: &[u8], sealed: &[u8]) -> String {
        format!(
            "{{\"obj\":4,\"gen\":0,\"kind\":\"stream\",\"key\":\"{}\",\"nonce\":\"{}\",\"plain\":\"{}\",\"sealed\":\"{}\"}}",
            hex::encode([7u8; 16]),
            hex::encode([9u8; 16]),
            hex::encode(plain),
            hex::encode(sealed)
        )
    }

    /// cipherlab's own encryption, as the runner would trace it.
    fn sealed(name: &str, plain: &[u8], tag_kept: bool) -> Vec<u8> {
        let spec = CipherSpec::parse(name).unwrap();
        let mut c = cipherlab_ciphers::providers::init(&spec, &[7u8; 16], None).unwrap();
        let mut buf = plain.to_vec();
        buf.resize(spec.output_len(plain.len()), 0);
        let n = c.encrypt(&[9u8; 16], &[], &mut buf, plain.len()).unwrap();
        let mut out = vec![9u8; 16];
        out.extend_from_slice(&buf[..if tag_kept { n } else { plain.len() }]);
        out
    }

    #[test]
    fn a_trace_agrees_only_when_every_byte_is_cipherlabs() {
        let ascon = Cipher::Lwc(LwcCipher::ASCON_128);
        let plain = b"BT /F1 12 Tf (hello) Tj ET";
        let good = sealed(ascon.name(), plain, false);
        let ok = same_ciphertexts(&line(plain, &good), ascon, false).unwrap();
        assert!(ok.starts_with("1 strings and streams"), "{ok}");

        let mut bad = good.clone();
        bad[20] ^= 1;
        let err = same_ciphertexts(&line(plain, &bad), ascon, false).unwrap_err();
        assert!(err.contains("differ from byte 20"), "{err}");
        // With the tag where the paper dropped it, the lengths differ.
        let tagged = sealed(ascon.name(), plain, true);
        assert!(same_ciphertexts(&line(plain, &tagged), ascon, false).is_err());
        // Ascon-AEAD128 keeps its tag, and a wrong tag fails.
        let aead = Cipher::Lwc(LwcCipher::ASCON_AEAD128);
        let mut t = sealed(aead.name(), plain, true);
        assert!(same_ciphertexts(&line(plain, &t), aead, true).is_ok());
        let last = t.len() - 1;
        t[last] ^= 0x80;
        assert!(same_ciphertexts(&line(plain, &t), aead, true).is_err());
        assert!(same_ciphertexts("", aead, true).is_err());
    }

    #[test]
    fn contents_are_pages_and_sorted_streams() {
        let file = cipherlab_testkit::pdf::classic_file(
            &[
                "<</Type/Catalog/Pages 2 0 R>>",
                "<</Type/Pages/Kids[3 0 R]/Count 1>>",
                "<</Type/Page/Parent 2 0 R/Contents 4 0 R>>",
                "<</Length 5>>\nstream\nhello\nendstream",
            ],
            "",
        );
        let c = contents(&file, None).unwrap();
        assert_eq!(c.pages, 1);
        assert_eq!(c.streams, vec![b"hello".to_vec()]);
        let mut other = Contents {
            pages: 1,
            streams: vec![b"hellO".to_vec()],
        };
        assert!(same(&c, &other, "x").is_err());
        other.streams = c.streams.clone();
        other.pages = 2;
        assert!(same(&c, &other, "x").unwrap_err().contains("2 page(s)"));
    }
}
