//! `cipherlab pdf info` and `cipherlab pdf decrypt` end to end, checked against qpdf,
//! poppler (pdftotext, pdfinfo, pdftoppm) and the table of ../shared/pdf/README.md.
//! Each test prints SKIP when a tool or ../shared/pdf is missing; the synthetic hostile
//! inputs run everywhere.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::{Command, Output};

use cipherlab_testkit::pdf::{
    append_update, classic_file, minimal_pdf, readme_rows, replace_once, shared_dir as shared,
};
use cipherlab_testkit::process::{have, stderr};
use serde_json::Value;

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_cipherlab")
}

fn tmpdir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

fn cl(args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .env_remove("CIPHERLAB_PDF_PASSWORD")
        .env_remove("CIPHERLAB_PDF_USER_PASSWORD")
        .env_remove("CIPHERLAB_PDF_OWNER_PASSWORD")
        .output()
        .expect("run cipherlab")
}

/// A run must end with success or a clean error (an exit code of the table, 1 to 8, with
/// "cipherlab: error:"), never a panic (exit 101) or a signal.
fn assert_clean(o: &Output, what: &str) {
    let e = stderr(o);
    assert!(!e.contains("panicked"), "{what}: panic: {e}");
    match o.status.code() {
        Some(0) => {}
        Some(c @ 1..=8) => assert!(
            e.contains("cipherlab: error:"),
            "{what}: exit {c} without an error message: {e}"
        ),
        c => panic!("{what}: exit {c:?}: {e}"),
    }
}

fn info_json(file: &Path, password: Option<&str>) -> Value {
    let mut args = vec!["pdf", "info", "--json", file.to_str().unwrap()];
    if let Some(p) = password {
        args.extend(["--password", p]);
    }
    let o = cl(&args);
    assert!(
        o.status.success(),
        "info {}: {}",
        file.display(),
        stderr(&o)
    );
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn info_reports_what_the_readme_table_says() {
    let Some(dir) = shared() else {
        println!("SKIP: ../shared/pdf is missing");
        return;
    };
    let rows = readme_rows(&dir);
    let (mut checked, mut enc_checked, mut pw_checked) = (0, 0, 0);
    for row in &rows {
        let f = dir.join(&row.file);
        assert_eq!(
            std::fs::metadata(&f).unwrap().len(),
            row.bytes,
            "{}",
            row.file
        );
        let j = info_json(&f, None);
        assert_eq!(
            j["encrypted"],
            Value::Bool(row.enc.is_some()),
            "{}",
            row.file
        );
        if row.structure.contains("in ObjStm") {
            assert!(
                j["objects_in_object_streams"].as_u64().unwrap() > 0,
                "{}",
                row.file
            );
        }
        if row.structure.contains("xref stream") {
            assert_eq!(j["xref_stream"], Value::Bool(true), "{}", row.file);
        }
        checked += 1;
        let Some(e) = &row.enc else { continue };
        let je = &j["encryption"];
        assert_eq!(je["V"].as_i64(), Some(e.v), "{} V", row.file);
        assert_eq!(je["R"].as_i64(), Some(e.r), "{} R", row.file);
        assert_eq!(je["Length"].as_i64(), Some(e.length), "{} Length", row.file);
        assert_eq!(je["P"].as_i64(), Some(e.p), "{} P", row.file);
        assert_eq!(
            je["EncryptMetadata"].as_bool(),
            Some(e.encrypt_metadata),
            "{} EncryptMetadata",
            row.file
        );
        let filters = je["crypt_filters"].as_array().unwrap();
        match &e.cfm {
            None => assert!(filters.is_empty(), "{}: V<4 has no /CF", row.file),
            Some(cfm) => {
                let stmf = je["StmF"].as_str().unwrap();
                let f = filters.iter().find(|f| f["name"] == stmf).unwrap();
                assert_eq!(f["CFM"].as_str(), Some(cfm.as_str()), "{} CFM", row.file);
            }
        }
        // Permission words agree with the bits of P.
        let perms = je["permissions"].as_object().unwrap();
        assert_eq!(
            perms["print"].as_bool(),
            Some(e.p & 4 != 0),
            "{} print",
            row.file
        );
        assert_eq!(
            perms["copy"].as_bool(),
            Some(e.p & 16 != 0),
            "{} copy",
            row.file
        );
        assert_eq!(
            je["needs_password"].as_bool(),
            Some(row.user.as_deref() != Some("")),
            "{} needs_password",
            row.file
        );
        enc_checked += 1;
        if let Some(u) = &row.user {
            let j = info_json(&f, Some(u));
            let said = j["encryption"]["password"].as_str().unwrap().to_string();
            assert!(
                said.starts_with("user"),
                "{}: user password reported as {said}",
                row.file
            );
            pw_checked += 1;
        }
        if let Some(o) = &row.owner {
            let j = info_json(&f, Some(o));
            let said = j["encryption"]["password"].as_str().unwrap().to_string();
            assert!(
                said.contains("owner"),
                "{}: owner password reported as {said}",
                row.file
            );
            pw_checked += 1;
        }
    }
    println!(
        "info: {checked} files checked against the README table, {enc_checked} encrypted, \
         {pw_checked} passwords identified"
    );
}

fn run_text(args: &[&str]) -> Vec<u8> {
    let o = Command::new(args[0]).args(&args[1..]).output().unwrap();
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    o.stdout
}

/// pdfinfo's document-information lines (strings: decrypted /Info).
fn pdfinfo_meta(args: &[&str]) -> Vec<String> {
    let out = run_text(args);
    String::from_utf8_lossy(&out)
        .lines()
        .filter(|l| {
            [
                "Title:",
                "Subject:",
                "Keywords:",
                "Author:",
                "Creator:",
                "Producer:",
                "CreationDate:",
                "ModDate:",
                "Pages:",
            ]
            .iter()
            .any(|k| l.starts_with(k))
        })
        .map(str::to_string)
        .collect()
}

/// Decrypts `f` with `pw` into `out` and checks the result against poppler and qpdf
/// reading the original with the same password.
fn check_decrypt(f: &Path, pw: &str, owner: bool, out: &Path, tools: &Tools) {
    let name = f.file_name().unwrap().to_string_lossy().into_owned();
    let o = cl(&[
        "pdf",
        "decrypt",
        f.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--password",
        pw,
        "--force",
    ]);
    assert!(o.status.success(), "decrypt {name}: {}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("was not encrypted")
            || e.contains(if owner {
                "owner password"
            } else {
                "user password"
            }),
        "{name}: {e}"
    );
    let j = info_json(out, None);
    assert_eq!(
        j["encrypted"],
        Value::Bool(false),
        "{name}: output still encrypted"
    );
    let (o_s, f_s, out_s) = (
        if owner { "-opw" } else { "-upw" },
        f.to_str().unwrap(),
        out.to_str().unwrap(),
    );
    if tools.poppler {
        // Poppler passes passwords as UTF-8 bytes; for a non-ASCII R2-R4 password (which
        // is PDFDocEncoded) qpdf --decrypt makes the reference.
        let plain = out.with_extension("qpdf-ref.pdf");
        let r6 = info_json(f, None)["encryption"]["R"].as_i64() >= Some(5);
        let (o_s, pw, f_s) = if pw.is_ascii() || r6 {
            (o_s, pw, f_s)
        } else {
            let q = Command::new("qpdf")
                .args([
                    &format!("--password={pw}"),
                    "--decrypt",
                    f_s,
                    plain.to_str().unwrap(),
                ])
                .output()
                .unwrap();
            assert!(q.status.success(), "{name}: qpdf --decrypt: {}", stderr(&q));
            ("-upw", "", plain.to_str().unwrap())
        };
        let want = run_text(&["pdftotext", o_s, pw, f_s, "-"]);
        let got = run_text(&["pdftotext", out_s, "-"]);
        assert!(
            want == got,
            "{name}: text differs from pdftotext {o_s} of the original"
        );
        let want = pdfinfo_meta(&["pdfinfo", o_s, pw, f_s]);
        let got = pdfinfo_meta(&["pdfinfo", out_s]);
        assert_eq!(want, got, "{name}: document information differs");
        let want = run_text(&[
            "pdftoppm", o_s, pw, "-r", "24", "-f", "1", "-l", "1", "-gray", f_s,
        ]);
        let got = run_text(&["pdftoppm", "-r", "24", "-f", "1", "-l", "1", "-gray", out_s]);
        assert!(want == got, "{name}: page 1 renders differently");
    }
    if tools.qpdf {
        let q = Command::new("qpdf")
            .args(["--check", out_s])
            .output()
            .unwrap();
        assert_eq!(
            q.status.code(),
            Some(0),
            "{name}: qpdf --check: {}{}",
            String::from_utf8_lossy(&q.stdout),
            stderr(&q)
        );
    }
}

struct Tools {
    poppler: bool,
    qpdf: bool,
}

fn tools() -> Tools {
    let t = Tools {
        poppler: have("pdftotext") && have("pdfinfo") && have("pdftoppm"),
        qpdf: have("qpdf"),
    };
    if !t.poppler {
        println!(
            "SKIP: poppler-utils missing; text, metadata and rendering checks skipped (.ci/setup installs it)"
        );
    }
    if !t.qpdf {
        println!("SKIP: qpdf missing; qpdf --check skipped (.ci/setup installs it)");
    }
    t
}

#[test]
fn every_encrypted_file_decrypts_with_user_and_owner_password() {
    let Some(dir) = shared() else {
        println!("SKIP: ../shared/pdf is missing");
        return;
    };
    let t = tools();
    let tmp = tmpdir();
    let (mut user, mut owner) = (0, 0);
    for row in readme_rows(&dir).iter().filter(|r| r.enc.is_some()) {
        let f = dir.join(&row.file);
        if let Some(u) = &row.user {
            check_decrypt(&f, u, false, &tmp.path().join("u.pdf"), &t);
            user += 1;
        }
        if let Some(o) = &row.owner {
            check_decrypt(&f, o, true, &tmp.path().join("o.pdf"), &t);
            owner += 1;
        }
    }
    assert!(user >= 16 && owner >= 15, "user {user}, owner {owner}");
    println!(
        "decrypt: {user} files with the user password, {owner} with the owner password; \
         text, /Info, page-1 rendering{} equal to the original's",
        if t.qpdf { " and qpdf --check" } else { "" }
    );
}

#[test]
fn unencrypted_files_are_rewritten_faithfully_and_compactly() {
    let Some(dir) = shared() else {
        println!("SKIP: ../shared/pdf is missing");
        return;
    };
    let t = tools();
    let tmp = tmpdir();
    let mut n = 0;
    for row in readme_rows(&dir) {
        let f = dir.join(&row.file);
        let out = tmp.path().join("r.pdf");
        if row.enc.is_none() {
            check_decrypt(
                &f,
                "",
                false,
                &out,
                &Tools {
                    poppler: t.poppler,
                    qpdf: t.qpdf,
                },
            );
        } else {
            let pw = row.user.clone().unwrap_or_default();
            let o = cl(&[
                "pdf",
                "decrypt",
                f.to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
                "--password",
                &pw,
                "--force",
            ]);
            assert!(o.status.success(), "{}", stderr(&o));
        }
        // Size: never more than 2% (+2 KiB) above the input; object streams kept.
        let size = std::fs::metadata(&out).unwrap().len();
        assert!(
            size <= row.bytes + row.bytes / 50 + 2048,
            "{}: output {size} bytes, input {}",
            row.file,
            row.bytes
        );
        let j = info_json(&out, None);
        if row.structure.contains("in ObjStm") {
            assert!(
                j["objects_in_object_streams"].as_u64().unwrap() > 0,
                "{}: object streams dropped",
                row.file
            );
            assert_eq!(j["xref_stream"], Value::Bool(true), "{}", row.file);
        }
        println!("size: {} {} -> {size} bytes", row.file, row.bytes);
        n += 1;
    }
    println!("rewrite: {n} files, all within 2% of their input size");
}

#[test]
fn wrong_password_is_a_clear_error_and_writes_nothing() {
    let Some(dir) = shared() else {
        println!("SKIP: ../shared/pdf is missing");
        return;
    };
    let tmp = tmpdir();
    let out = tmp.path().join("never.pdf");
    let mut n = 0;
    for row in readme_rows(&dir).iter().filter(|r| r.enc.is_some()) {
        let f = dir.join(&row.file);
        let f = f.to_str().unwrap();
        let o = cl(&[
            "pdf",
            "decrypt",
            f,
            "-o",
            out.to_str().unwrap(),
            "--password",
            "not-the-password",
        ]);
        assert_clean(&o, &row.file);
        assert_eq!(
            o.status.code(),
            Some(1),
            "{}: wrong password accepted",
            row.file
        );
        assert!(
            stderr(&o).contains("wrong password"),
            "{}: {}",
            row.file,
            stderr(&o)
        );
        assert!(
            !out.exists(),
            "{}: output written despite the error",
            row.file
        );
        let o = cl(&["pdf", "info", f, "--password", "not-the-password"]);
        assert_eq!(o.status.code(), Some(1), "{}", row.file);
        assert!(stderr(&o).contains("wrong password"), "{}", row.file);
        if row.user.as_deref() != Some("") {
            let o = cl(&["pdf", "decrypt", f, "-o", out.to_str().unwrap()]);
            assert_eq!(o.status.code(), Some(1), "{}", row.file);
            assert!(
                stderr(&o).contains("needs a password"),
                "{}: {}",
                row.file,
                stderr(&o)
            );
        }
        n += 1;
    }
    println!("wrong password: {n} files refuse it, nothing written");
}

#[test]
fn existing_output_needs_force() {
    let tmp = tmpdir();
    let input = tmp.path().join("in.pdf");
    std::fs::write(&input, minimal_pdf()).unwrap();
    let out = tmp.path().join("out.pdf");
    std::fs::write(&out, b"keep me").unwrap();
    let o = cl(&[
        "pdf",
        "decrypt",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(4));
    assert!(stderr(&o).contains("--force"), "{}", stderr(&o));
    assert_eq!(std::fs::read(&out).unwrap(), b"keep me");
    let o = cl(&[
        "pdf",
        "decrypt",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--force",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::read(&out).unwrap().starts_with(b"%PDF-"));
    // No temporary files left behind.
    let left: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
    assert_eq!(left.len(), 2);
}

// ---- hostile input ---------------------------------------------------------------

/// Runs info and decrypt on `bytes`; both must end cleanly. Returns decrypt's output.
fn hostile(name: &str, bytes: &[u8], password: Option<&str>) -> (Output, Option<Vec<u8>>) {
    let tmp = tmpdir();
    let f = tmp.path().join("h.pdf");
    std::fs::write(&f, bytes).unwrap();
    let out = tmp.path().join("o.pdf");
    let mut a = vec!["pdf", "info", f.to_str().unwrap()];
    if let Some(p) = password {
        a.extend(["--password", p]);
    }
    assert_clean(&cl(&a), &format!("{name} (info)"));
    let mut a = vec![
        "pdf",
        "decrypt",
        f.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ];
    if let Some(p) = password {
        // Damage can cut an encrypted file's /Encrypt away; this test is about reading
        // damage, so such a file is rewritten as `pdf encrypt` reads it
        // (pdf_forgeries.rs tests the refusal).
        a.extend(["--password", p, "--allow-unencrypted"]);
    }
    let o = cl(&a);
    assert_clean(&o, &format!("{name} (decrypt)"));
    let bytes = o.status.success().then(|| std::fs::read(&out).unwrap());
    hostile_encrypt(name, &f, password, bytes.as_deref(), &stderr(&o));
    (o, bytes)
}

/// The same hostile input through `pdf encrypt`, standard and lightweight: a clean end
/// either way; it succeeds exactly when decryption did (both read the input the same
/// way), and what it writes decrypts to the same text as decryption gave.
fn hostile_encrypt(name: &str, f: &Path, password: Option<&str>, plain: Option<&[u8]>, why: &str) {
    let dir = f.parent().unwrap();
    let e = dir.join("e.pdf");
    let back = dir.join("back.pdf");
    for cipher in ["aes-256", "ascon-aead128"] {
        let mut a = vec![
            "pdf",
            "encrypt",
            f.to_str().unwrap(),
            "-o",
            e.to_str().unwrap(),
            "--cipher",
            cipher,
            "--user-password",
            "hu",
            "--owner-password",
            "ho",
            "--force",
        ];
        if let Some(p) = password {
            a.extend(["--password", p]);
        }
        let o = cl(&a);
        let what = format!("{name} (encrypt {cipher})");
        assert_clean(&o, &what);
        let Some(plain) = plain else {
            assert!(
                !o.status.success(),
                "{what}: decryption refused ({why}) but encryption went ahead"
            );
            continue;
        };
        assert!(o.status.success(), "{what}: {}", stderr(&o));
        let d = cl(&[
            "pdf",
            "decrypt",
            e.to_str().unwrap(),
            "-o",
            back.to_str().unwrap(),
            "--password",
            "hu",
            "--force",
        ]);
        assert!(
            d.status.success(),
            "{what}: our output does not decrypt: {}",
            stderr(&d)
        );
        if let (Some(want), Some(got)) = (
            text_of(plain, None),
            text_of(&std::fs::read(&back).unwrap(), None),
        ) {
            assert!(
                want == got,
                "{what}: text differs from what decryption gave"
            );
        }
    }
}

/// `bytes` must be refused with exit `code` and a message with one of `words`.
fn expect_error(name: &str, bytes: &[u8], password: Option<&str>, code: i32, words: &[&str]) {
    let (o, _) = hostile(name, bytes, password);
    assert_eq!(
        o.status.code(),
        Some(code),
        "{name}: expected exit {code}: {}",
        stderr(&o)
    );
    let e = stderr(&o);
    assert!(
        words.iter().any(|w| e.contains(w)),
        "{name}: error does not name the problem: {e}"
    );
}

/// Text of a PDF through pdftotext, or None without poppler.
fn text_of(bytes: &[u8], password: Option<&str>) -> Option<Vec<u8>> {
    if !have("pdftotext") {
        return None;
    }
    let tmp = tmpdir();
    let f = tmp.path().join("t.pdf");
    std::fs::write(&f, bytes).unwrap();
    let mut c = Command::new("pdftotext");
    if let Some(p) = password {
        c.args(["-upw", p]);
    }
    let o = c.arg(&f).arg("-").output().unwrap();
    Some(o.stdout)
}

#[test]
fn synthetic_hostile_inputs_never_panic() {
    let count = std::cell::Cell::new(0);
    let run = |name: &str, bytes: &[u8], words: Option<&[&str]>| {
        match words {
            Some(w) => expect_error(name, bytes, None, 3, w),
            None => {
                let (o, out) = hostile(name, bytes, None);
                assert!(o.status.success(), "{name}: {}", stderr(&o));
                if let Some(t) = text_of(out.as_ref().unwrap(), None) {
                    assert!(
                        String::from_utf8_lossy(&t).contains("Hello hostile world"),
                        "{name}: text lost"
                    );
                }
            }
        }
        count.set(count.get() + 1);
    };
    let good = minimal_pdf();
    run("minimal", &good, None);
    run("empty file", b"", Some(&["not a PDF"]));
    run("garbage", &lcg_bytes(4096, 7), Some(&["not a PDF"]));
    run("header only", b"%PDF-1.7\n", Some(&["damaged"]));
    let mut g = b"%PDF-1.7\n".to_vec();
    g.extend(lcg_bytes(20000, 9));
    run("header and garbage", &g, Some(&["damaged"]));
    run(
        "unterminated",
        b"%PDF-1.7\n1 0 obj << /Type /Catalog /Pages [[[ (",
        Some(&["damaged", "catalog"]),
    );
    // Wrong startxref: the table is rebuilt.
    let s = String::from_utf8_lossy(&good).into_owned();
    let x = s.rfind("startxref\n").unwrap();
    let mut w = good[..x].to_vec();
    w.extend_from_slice(b"startxref\n17\n%%EOF\n");
    run("wrong startxref", &w, None);
    let mut w = good[..x].to_vec();
    w.extend_from_slice(b"startxref\n99999999999999\n%%EOF\n");
    run("startxref past the end", &w, None);
    run("no startxref", &good[..x], None);
    // Offsets all wrong (junk inserted before the header shifts everything).
    let mut w = b"JUNK JUNK JUNK\n".to_vec();
    w.extend_from_slice(&good);
    run("junk before the header", &w, None);
    // /Prev pointing at itself.
    let xo: usize = s[x + 10..].lines().next().unwrap().parse().unwrap();
    let looped = s.replacen("/Root 1 0 R", &format!("/Root 1 0 R/Prev {xo}"), 1);
    run("/Prev loop", looped.as_bytes(), None);
    // A subsection claiming four billion entries.
    let huge = s.replacen("xref\n0 6\n", "xref\n0 4000000000\n", 1);
    run("xref count 4e9", huge.as_bytes(), None);
    // Huge and negative stream lengths.
    let hl = s.replacen("<</Length 50>>", "<</Length 99999999999999999999>>", 1);
    assert_ne!(hl, s);
    run("huge /Length", hl.as_bytes(), None);
    run(
        "negative /Length",
        s.replacen("<</Length 50>>", "<</Length -50>>", 1)
            .as_bytes(),
        None,
    );
    run(
        "/Length 7 0 R (missing)",
        s.replacen("<</Length 50>>", "<</Length 7 0 R>>", 1)
            .as_bytes(),
        None,
    );
    // Deep nesting in an object: an error for that object, not a stack overflow.
    let deep = classic_file(
        &[
            "<</Type/Catalog/Pages 2 0 R/X 6 0 R>>",
            "<</Type/Pages/Kids[]/Count 0>>",
            "null",
            "null",
            "null",
            &"[".repeat(100_000),
        ],
        "",
    );
    let (o, _) = hostile("deep nesting", &deep, None);
    assert!(
        stderr(&o).contains("nested"),
        "deep nesting: {}",
        stderr(&o)
    );
    let mut n = count.get() + 1;
    // Object stream claiming a billion objects, /First past its end, and an xref stream
    // with 9-byte fields.
    let objstm = classic_file(
        &[
            "<</Type/Catalog/Pages 2 0 R>>",
            "<</Type/Pages/Kids[]/Count 0>>",
            "<</Type/ObjStm/N 1000000000/First 999999/Length 3>>\nstream\n1 0\nendstream",
        ],
        "",
    );
    let (o, _) = hostile("objstm /N 1e9", &objstm, None);
    assert!(o.status.success(), "{}", stderr(&o));
    n += 1;
    let xs = b"%PDF-1.5\n1 0 obj <</Type/Catalog/Pages 2 0 R>> endobj\n2 0 obj <</Type/Pages/Kids[]/Count 0>> endobj\n3 0 obj <</Type/XRef/W[1 9 2]/Size 4/Root 1 0 R/Length 4>>\nstream\nabcd\nendstream endobj\nstartxref\n100\n%%EOF\n";
    let (o, _) = hostile("xref stream /W [1 9 2]", xs, None);
    assert!(o.status.success(), "{}", stderr(&o));
    n += 1;
    // Encryption dictionaries that are wrong in every way we know.
    for (name, enc, words) in [
        (
            "public-key handler",
            "<</Filter/Adobe.PubSec/V 4/R 4/P -4>>",
            &["Standard"][..],
        ),
        (
            "V 3",
            "<</Filter/Standard/V 3/R 3/P -4/O<00>/U<00>>>",
            &["V 3"],
        ),
        ("R 7", "<</Filter/Standard/V 5/R 7/P -4>>", &["/R 7"]),
        (
            "short /O",
            "<</Filter/Standard/V 2/R 3/Length 128/P -4/O<00>/U<00>>>",
            &["/O has 1 bytes"],
        ),
        (
            "unknown /CFM",
            "<</Filter/Standard/V 4/R 4/P -4/O<0000000000000000000000000000000000000000000000000000000000000000>/U<0000000000000000000000000000000000000000000000000000000000000000>/CF<</StdCF<</CFM/AESV9>>>>/StmF/StdCF/StrF/StdCF>>",
            &["/CFM /AESV9"],
        ),
        (
            "undefined /StmF",
            "<</Filter/Standard/V 4/R 4/P -4/O<0000000000000000000000000000000000000000000000000000000000000000>/U<0000000000000000000000000000000000000000000000000000000000000000>/StmF/Foo>>",
            &["/Foo"],
        ),
        ("/Encrypt not a dictionary", "42", &["/Encrypt"]),
        ("missing /Encrypt object", "9 0 R", &["/Encrypt"]),
    ] {
        let f = String::from_utf8_lossy(&good).replacen(
            "/Root 1 0 R",
            &format!("/Root 1 0 R/Encrypt {enc}/ID[<00><00>]"),
            1,
        );
        expect_error(name, f.as_bytes(), Some("x"), 3, words);
        n += 1;
    }
    println!("hostile (synthetic): {n} inputs, every one a correct result or a clear error");
}

/// Deterministic pseudo-random bytes.
fn lcg_bytes(n: usize, seed: u64) -> Vec<u8> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 56) as u8
        })
        .collect()
}

#[test]
fn damaged_real_files_decrypt_correctly_or_fail_clearly() {
    let Some(dir) = shared() else {
        println!("SKIP: ../shared/pdf is missing");
        return;
    };
    let read = |f: &str| std::fs::read(dir.join(f)).unwrap();
    let count = std::cell::Cell::new(0);
    // Each case: the damaged file decrypts to the original's text.
    let same_text = |name: &str, orig: &[u8], damaged: &[u8], pw: &str| {
        let (o, out) = hostile(name, damaged, Some(pw));
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        if let (Some(want), Some(got)) = (
            text_of(orig, Some(pw)),
            text_of(out.as_ref().unwrap(), None),
        ) {
            assert!(want == got, "{name}: text differs");
        }
        count.set(count.get() + 1);
    };
    // Wrong startxref, classic table and cross-reference stream.
    for (f, pw) in [
        ("enc-r3-rc4-128-libreoffice.pdf", "openpassword"),
        ("gen-qpdf-r4-aes128.pdf", "user"),
        ("enc-r6-aes256-acrobatXI.pdf", "view"),
    ] {
        let b = read(f);
        let sx = b
            .windows(10)
            .rposition(|w| w == b"startxref\n" || w == b"startxref\r")
            .unwrap();
        let mut d = b[..sx].to_vec();
        d.extend_from_slice(b"startxref\n123\n%%EOF\n");
        same_text(&format!("{f}: wrong startxref"), &b, &d, pw);
    }
    // Missing /ID: R6 does not need it; R3 cannot work without it (clear error).
    let b = read("gen-qpdf-r6-aes256.pdf");
    let i = b.windows(4).rposition(|w| w == b"/ID ").unwrap();
    let j = i + b[i..].iter().position(|&c| c == b']').unwrap() + 1;
    let mut d = b.clone();
    d[i..j].fill(b' ');
    same_text("R6 without /ID", &b, &d, "user");
    let b = read("enc-r3-rc4-128-libreoffice.pdf");
    let i = b.windows(4).rposition(|w| w == b"/ID ").unwrap();
    let j = i + b[i..].iter().position(|&c| c == b']').unwrap() + 1;
    let mut d = b.clone();
    d[i..j].fill(b' ');
    expect_error("R3 without /ID", &d, Some("openpassword"), 3, &["no /ID"]);
    count.set(count.get() + 1);
    // A direct /Encrypt dictionary made from an indirect one.
    let enc_obj = {
        let k = b.windows(9).position(|w| w == b"\n14 0 obj").unwrap() + 9;
        let e = k + b[k..].windows(6).position(|w| w == b"endobj").unwrap();
        b[k..e].to_vec()
    };
    let mut with = b"/Encrypt ".to_vec();
    with.extend_from_slice(&enc_obj);
    let d = replace_once(&b, b"/Encrypt 14 0 R", &with);
    same_text("direct /Encrypt (made)", &b, &d, "openpassword");
    // An indirect /CF (incremental update adding the /CF object).
    let b = read("enc-r4-aes128-libreoffice.pdf");
    let cf: &[u8] = b"<</StdCF<</Length 16/AuthEvent/DocOpen/CFM/AESV2>>>>";
    let d = append_update(&b, &[(15, cf)], |t| {
        let t = replace_once(
            &t,
            b"/CF<</StdCF<</Length 16/AuthEvent/DocOpen/CFM/AESV2>>>>",
            b"/CF 15 0 R",
        );
        replace_once(&t, b"/Size 15", b"/Size 16")
    });
    same_text("indirect /CF", &b, &d, "baz");
    // Unknown /CFM.
    let d = replace_once(&b, b"/CFM/AESV2", b"/CFM/AESV9");
    expect_error("unknown /CFM", &d, Some("baz"), 3, &["/CFM /AESV9"]);
    count.set(count.get() + 1);
    // Huge /Length on a real encrypted stream (offsets after it shift: repaired by scan).
    let b = read("enc-r3-rc4-128-libreoffice.pdf");
    let direct = |b: &[u8]| {
        (0..b.len() - 8)
            .filter(|&k| &b[k..k + 8] == b"/Length ")
            .map(|k| {
                let i = k + 8;
                (
                    i,
                    i + b[i..].iter().position(|c| !c.is_ascii_digit()).unwrap(),
                )
            })
            .find(|&(i, j)| j > i && b[j] != b' ')
            .unwrap()
    };
    let (i, j) = direct(&b);
    let mut d = b[..i].to_vec();
    d.extend_from_slice(b"99999999999999999999");
    d.extend_from_slice(&b[j..]);
    same_text("huge /Length", &b, &d, "openpassword");
    let mut d = b.clone();
    d[i..j].fill(b'9');
    same_text("/Length past the end", &b, &d, "openpassword");
    // A broken indirect /Length in the page's content stream: that object is unreadable,
    // and as the document uses it, decryption refuses rather than drop the page content.
    let d = replace_once(
        &b,
        b"<</Length 3 0 R/Filter",
        b"<</Length 99999999999999999999 0 R/Filter",
    );
    expect_error(
        "broken content stream object",
        &d,
        Some("openpassword"),
        7,
        &["object 2 (used by object 1) is unreadable"],
    );
    count.set(count.get() + 1);
    // Truncated files: never a panic; count what still opens.
    let (mut ok, mut err) = (0, 0);
    for (f, pw) in [
        ("enc-r6-aes256-acrobatXI.pdf", "view"),
        ("gen-qpdf-r4-aes128.pdf", "user"),
        ("enc-r2-rc4-40-acrobat5.pdf", "view"),
        ("enc-r4-aes128-xfa-form-emptyuser.pdf", ""),
        ("form-acrobat-incremental-xrefstm.pdf", ""),
    ] {
        let b = read(f);
        for cut in [
            b.len() / 10,
            b.len() / 2,
            b.len() * 9 / 10,
            b.len() - 30,
            b.len() - 1,
        ] {
            let name = format!("{f} cut at {cut}");
            let (o, out) = hostile(&name, &b[..cut], Some(pw));
            if o.status.success() {
                // What opens must be complete: the same text as the whole file.
                if let (Some(want), Some(got)) =
                    (text_of(&b, Some(pw)), text_of(out.as_ref().unwrap(), None))
                {
                    assert!(want == got, "{name}: opened, but the text differs");
                }
                ok += 1
            } else {
                err += 1
            }
        }
    }
    let n = count.get();
    println!(
        "hostile (real files): {n} damaged files decrypted right or refused clearly; truncated: {ok} opened, {err} refused, 0 panics"
    );
}

// ---- variants made with qpdf -------------------------------------------------------

fn qpdf(args: &[&str]) {
    let o = Command::new("qpdf").args(args).output().unwrap();
    assert!(
        matches!(o.status.code(), Some(0 | 3)),
        "qpdf {args:?}: {}",
        stderr(&o)
    );
}

/// The embedded file `name` as qpdf extracts it (with `pw`, if any).
fn attachment(f: &Path, name: &str, pw: Option<&str>) -> Vec<u8> {
    let mut c = Command::new("qpdf");
    if let Some(p) = pw {
        c.arg(format!("--password={p}"));
    }
    let o = c
        .arg(format!("--show-attachment={name}"))
        .arg(f)
        .output()
        .unwrap();
    assert!(o.status.success(), "qpdf --show-attachment: {}", stderr(&o));
    o.stdout
}

fn pdfinfo_xmp(f: &Path, opt: Option<(&str, &str)>) -> Vec<u8> {
    let mut c = Command::new("pdfinfo");
    if let Some((o, p)) = opt {
        c.args([o, p]);
    }
    c.arg("-meta").arg(f).output().unwrap().stdout
}

#[test]
fn qpdf_made_variants_decrypt() {
    let Some(dir) = shared() else {
        println!("SKIP: ../shared/pdf is missing");
        return;
    };
    let t = tools();
    if !t.qpdf || !t.poppler {
        println!("SKIP: qpdf and poppler-utils are needed to make and check the variants");
        return;
    }
    let tmp = tmpdir();
    let p = |n: &str| tmp.path().join(n);
    let s = |n: &str| dir.join(n).to_str().unwrap().to_string();
    let mut n = 0;
    // (name, input, qpdf encryption args, user pw, owner pw, expected V, R, CFM, EncryptMetadata)
    let pdfa = s("text-pdfa-ghostscript-1.4.pdf");
    let att = s("attachment-pypdf.pdf");
    let four = s("text-pdflatex-4-pages.pdf");
    type Case<'a> = (
        &'a str,
        String,
        Vec<&'a str>,
        &'a str,
        &'a str,
        i64,
        i64,
        &'a str,
        bool,
    );
    let cases: Vec<Case> = vec![
        (
            "r4-aes-cleartext-metadata",
            pdfa.clone(),
            vec!["128", "--use-aes=y", "--cleartext-metadata"],
            "u",
            "o",
            4,
            4,
            "AESV2",
            false,
        ),
        (
            "r6-cleartext-metadata",
            pdfa.clone(),
            vec!["256", "--cleartext-metadata"],
            "u",
            "o",
            5,
            6,
            "AESV3",
            false,
        ),
        (
            "r4-rc4-crypt-filters",
            four.clone(),
            vec!["128", "--use-aes=n", "--force-V4"],
            "u",
            "o",
            4,
            4,
            "V2",
            true,
        ),
        (
            "r4-rc4-cleartext-metadata",
            pdfa.clone(),
            vec!["128", "--use-aes=n", "--force-V4", "--cleartext-metadata"],
            "u",
            "o",
            4,
            4,
            "V2",
            false,
        ),
        (
            "r5-aes256",
            four.clone(),
            vec!["256", "--force-R5"],
            "u",
            "o",
            5,
            5,
            "AESV3",
            true,
        ),
        (
            "r6-attachment",
            att.clone(),
            vec!["256"],
            "u",
            "o",
            5,
            6,
            "AESV3",
            true,
        ),
        (
            "r4-attachment",
            att.clone(),
            vec!["128", "--use-aes=y"],
            "u",
            "o",
            4,
            4,
            "AESV2",
            true,
        ),
        (
            "r3-attachment",
            att.clone(),
            vec!["128", "--use-aes=n"],
            "u",
            "o",
            2,
            3,
            "",
            true,
        ),
        (
            "r3-latin1-password",
            four.clone(),
            vec!["128", "--use-aes=n"],
            "\u{e9}t\u{e9}",
            "\u{fc}ber",
            2,
            3,
            "",
            true,
        ),
        (
            "r6-unicode-password",
            four.clone(),
            vec!["256"],
            "\u{3b1}\u{3b2}\u{3b3} \u{fc}",
            "\u{5bc6}\u{7801}",
            5,
            6,
            "AESV3",
            true,
        ),
    ];
    for (name, input, enc_args, u, o, v, r, cfm, em) in cases {
        let f = p(&format!("{name}.pdf"));
        let mut a = vec!["--allow-weak-crypto", "--encrypt", u, o];
        a.extend(enc_args.iter().copied());
        a.extend(["--", &input, f.to_str().unwrap()]);
        qpdf(&a);
        let j = info_json(&f, Some(o));
        let e = &j["encryption"];
        assert_eq!(
            (e["V"].as_i64(), e["R"].as_i64()),
            (Some(v), Some(r)),
            "{name}"
        );
        assert_eq!(e["EncryptMetadata"].as_bool(), Some(em), "{name}");
        if !cfm.is_empty() {
            let stmf = e["StmF"].as_str().unwrap();
            let cf = e["crypt_filters"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["name"] == stmf)
                .unwrap();
            assert_eq!(cf["CFM"].as_str(), Some(cfm), "{name}");
        }
        for (pw, owner, opt) in [(u, false, "-upw"), (o, true, "-opw")] {
            let out = p(&format!("{name}-{opt}.pdf"));
            check_decrypt(&f, pw, owner, &out, &t);
            // Against the unencrypted input: poppler 22.12 and mupdf 1.21 wrongly decrypt a
            // cleartext (EncryptMetadata false) metadata stream; qpdf agrees with us.
            assert_eq!(
                pdfinfo_xmp(Path::new(&input), None),
                pdfinfo_xmp(&out, None),
                "{name}: XMP metadata differs from the unencrypted input's"
            );
            if input == att {
                assert_eq!(
                    attachment(&f, "image.png", Some(pw)),
                    attachment(&out, "image.png", None),
                    "{name}: embedded file differs"
                );
            }
            n += 1;
        }
    }
    // SASLprep (RFC 4013) for R6: U+00A0 maps to a space, U+00AD to nothing.
    let f = p("r6-space.pdf");
    qpdf(&[
        "--encrypt",
        "a b",
        "own",
        "256",
        "--",
        &four,
        f.to_str().unwrap(),
    ]);
    let base = p("r6-space-base.pdf");
    check_decrypt(&f, "a b", false, &base, &t);
    // Poppler does not SASLprep, so the other spellings are checked against this output.
    for pw in ["a\u{a0}b", "a\u{ad} b"] {
        let out = p("r6-space-out.pdf");
        let o = cl(&[
            "pdf",
            "decrypt",
            f.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--password",
            pw,
            "--force",
        ]);
        assert!(o.status.success(), "SASLprep {pw:?}: {}", stderr(&o));
        assert!(
            std::fs::read(&out).unwrap() == std::fs::read(&base).unwrap(),
            "SASLprep {pw:?}"
        );
        n += 1;
    }
    println!(
        "qpdf-made variants: {n} decryptions (EncryptMetadata false, R4 RC4 crypt filters, R5, embedded files, Latin-1, Unicode and SASLprep'd passwords) equal to poppler's reading and qpdf's attachments"
    );
}

// ---- /EFF and per-stream /Crypt filters, crafted ------------------------------------

/// Makes an R4 file whose embedded file is encrypted with its own RC4 crypt filter (/EFF)
/// while other streams use AESV2, and which holds a stream with an /Identity /Crypt filter;
/// checks the file with qpdf, then our decryption of it.
#[test]
fn embedded_file_filter_and_identity_crypt_filter() {
    use cipherlab_pdf::object::{ObjId, Object};
    use cipherlab_pdf::security::{Cfm, CryptFilter};
    let Some(dir) = shared() else {
        println!("SKIP: ../shared/pdf is missing");
        return;
    };
    if !have("qpdf") {
        println!("SKIP: qpdf is needed to make and check this file");
        return;
    }
    let tmp = tmpdir();
    let p = |n: &str| tmp.path().join(n);
    let src = dir.join("attachment-pypdf.pdf");
    let r4 = p("r4.pdf");
    qpdf(&[
        "--encrypt",
        "u",
        "o",
        "128",
        "--use-aes=y",
        "--",
        src.to_str().unwrap(),
        r4.to_str().unwrap(),
    ]);
    let want_att = attachment(&src, "image.png", None);
    let b = std::fs::read(&r4).unwrap();

    // Our reader finds the embedded file stream and the file key.
    let pdf = cipherlab_pdf::Pdf::parse(&b).unwrap();
    let (h, _) = pdf.authenticate(Some("u")).unwrap().unwrap();
    let doc = pdf.load(Some(&h)).unwrap();
    let (&ef_num, _) = doc
        .objects
        .iter()
        .find(|(_, (_, o))| o.dict().is_some_and(|d| d.has_type(b"EmbeddedFile")))
        .unwrap();
    let Object::Stream(plain) = &doc.objects[&ef_num].1 else {
        panic!()
    };
    let Some(Object::Ref(enc_num, _)) = pdf.xref.trailer.get(b"Encrypt") else {
        panic!()
    };
    let size = pdf.xref.trailer.int(b"Size").unwrap() as u32;

    // The embedded file, re-encrypted with RC4 (/V2) -- RC4 is its own inverse.
    let rc4 = CryptFilter {
        name: "EFFRC4".into(),
        cfm: Cfm::Rc4,
        length: Some(16),
        auth_event: None,
    };
    let id: ObjId = (ef_num, 0);
    let (rc4_data, _) = h.decrypt(&rc4, id, &plain.data);
    let head = format!("\n{ef_num} 0 obj\n");
    let k = b
        .windows(head.len())
        .position(|w| w == head.as_bytes())
        .unwrap()
        + head.len();
    let st = k + b[k..].windows(6).position(|w| w == b"stream").unwrap();
    let dict = String::from_utf8_lossy(&b[k..st]).into_owned();
    let l = dict.find("/Length ").unwrap() + 8;
    let le = l + dict[l..].find(|c: char| !c.is_ascii_digit()).unwrap();
    let dict = format!("{}{}{}", &dict[..l], rc4_data.len(), &dict[le..]);
    let mut ef_obj = dict.into_bytes();
    ef_obj.extend_from_slice(b"stream\n");
    ef_obj.extend_from_slice(&rc4_data);
    ef_obj.extend_from_slice(b"\nendstream");
    // The /Encrypt dictionary with /EFF.
    let head = format!("\n{enc_num} 0 obj\n");
    let k = b
        .windows(head.len())
        .position(|w| w == head.as_bytes())
        .unwrap()
        + head.len();
    let e = k + b[k..].windows(6).position(|w| w == b"endobj").unwrap();
    let enc = String::from_utf8_lossy(&b[k..e]).into_owned();
    let enc = enc
        .replacen(
            "/CF <<",
            "/CF << /EFFRC4 << /CFM /V2 /Length 16 /AuthEvent /EFOpen >>",
            1,
        )
        .replacen("<<", "<< /EFF /EFFRC4", 1);
    assert!(enc.contains("/EFFRC4 << /CFM /V2"), "{enc}");
    // A stream stored in clear with the /Identity crypt filter.
    let clear = b"This stream is stored in clear under the Identity crypt filter.";
    let mut id_obj = format!(
        "<< /Length {} /Filter [/Crypt] /DecodeParms [<< /Type /CryptFilterDecodeParms /Name /Identity >>] >>\nstream\n",
        clear.len()
    )
    .into_bytes();
    id_obj.extend_from_slice(clear);
    id_obj.extend_from_slice(b"\nendstream");
    let crafted = append_update(
        &b,
        &[
            (*enc_num, enc.as_bytes()),
            (ef_num, &ef_obj[..]),
            (size, &id_obj[..]),
        ],
        |t| {
            replace_once(
                &t,
                format!("/Size {size}").as_bytes(),
                format!("/Size {}", size + 1).as_bytes(),
            )
        },
    );
    let cf = p("crafted.pdf");
    std::fs::write(&cf, &crafted).unwrap();

    // qpdf reads the clear stream as we wrote it. (For the attachment, qpdf 11.3, poppler
    // 22.12 and mupdf 1.21 all apply /StmF (AESV2) rather than /EFF to this file, so the
    // unencrypted original is the reference.)
    let q = Command::new("qpdf")
        .args([
            "--password=u",
            &format!("--show-object={size}"),
            "--filtered-stream-data",
            cf.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(
        q.stdout,
        clear,
        "qpdf reads the /Identity stream: {}",
        stderr(&q)
    );
    let j = info_json(&cf, None);
    assert_eq!(j["encryption"]["EFF"].as_str(), Some("EFFRC4"));

    // Ours, with the user and the owner password.
    for pw in ["u", "o"] {
        let out = p("out.pdf");
        let o = cl(&[
            "pdf",
            "decrypt",
            cf.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--password",
            pw,
            "--force",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(
            attachment(&out, "image.png", None),
            want_att,
            "embedded file through /EFF"
        );
        let ob = std::fs::read(&out).unwrap();
        let pdf = cipherlab_pdf::Pdf::parse(&ob).unwrap();
        let doc = pdf.load(None).unwrap();
        let Object::Stream(s) = &doc.objects[&size].1 else {
            panic!()
        };
        assert_eq!(s.data, clear, "identity stream");
        assert!(
            s.dict.get(b"Filter").is_none() && s.dict.get(b"DecodeParms").is_none(),
            "/Crypt filter removed"
        );
        if have("pdftotext") {
            assert_eq!(text_of(&ob, None), text_of(&b, Some("u")), "text");
        }
    }
    println!(
        "crafted: /EFF (RC4 embedded file, AESV2 elsewhere) and an /Identity /Crypt stream (qpdf reads it as written), decrypted with both passwords"
    );
}

// ---- pdf encrypt: the Standard security handler -------------------------------------

const UPW: &str = "user-pw";
const OPW: &str = "owner-pw";

/// The tools the encryption checks use; missing ones are reported as SKIP.
struct EncTools {
    qpdf: bool,
    pdftotext: bool,
    mutool: bool,
}

fn enc_tools() -> EncTools {
    let t = EncTools {
        qpdf: have("qpdf"),
        pdftotext: have("pdftotext"),
        mutool: Command::new("mutool").output().is_ok(),
    };
    for (ok, what) in [
        (
            t.qpdf,
            "qpdf (qpdf --check, --show-encryption, size reference)",
        ),
        (t.pdftotext, "pdftotext (text with -upw/-opw)"),
        (t.mutool, "mutool (mutool draw with both passwords)"),
    ] {
        if !ok {
            println!("SKIP: {what} is missing; those checks are skipped (.ci/setup installs it)");
        }
    }
    t
}

/// `pdftotext [-upw|-opw PW] f -`.
fn pdftotext(f: &Path, opt: Option<(&str, &str)>) -> Vec<u8> {
    let mut c = Command::new("pdftotext");
    if let Some((o, p)) = opt {
        c.args([o, p]);
    }
    let o = c.arg(f).arg("-").output().unwrap();
    assert!(
        o.status.success(),
        "pdftotext {opt:?} {}: {}",
        f.display(),
        stderr(&o)
    );
    o.stdout
}

/// The lines of mutool's stderr that say something is wrong (the ICC notice is not).
fn mutool_problems(f: &Path, pw: &str) -> (bool, Vec<String>) {
    let o = Command::new("mutool")
        .args([
            "draw",
            "-q",
            "-p",
            pw,
            "-r",
            "20",
            "-F",
            "pgm",
            "-o",
            "/dev/null",
        ])
        .arg(f)
        .output()
        .unwrap();
    let lines = stderr(&o)
        .lines()
        .filter(|l| !l.contains("ICC support"))
        .map(str::to_string)
        .collect();
    (o.status.success(), lines)
}

/// qpdf's own encryption of the same input with the same cipher (the size reference).
fn qpdf_encrypt(f: &Path, input_pw: Option<&str>, cipher: &str, out: &Path) -> u64 {
    let mut c = Command::new("qpdf");
    if let Some(p) = input_pw {
        c.arg(format!("--password={p}"));
    }
    c.args(["--allow-weak-crypto", "--encrypt", UPW, OPW]);
    c.args(match cipher {
        "aes-256" => &["256"][..],
        "aes-128" => &["128", "--use-aes=y"],
        _ => &["128", "--use-aes=n"],
    });
    let o = c.arg("--").arg(f).arg(out).output().unwrap();
    assert!(
        matches!(o.status.code(), Some(0 | 3)),
        "qpdf --encrypt {}: {}",
        f.display(),
        stderr(&o)
    );
    std::fs::metadata(out).unwrap().len()
}

/// `cipherlab pdf encrypt` with the test passwords.
fn cl_encrypt(
    f: &Path,
    out: &Path,
    cipher: &str,
    input_pw: Option<&str>,
    extra: &[&str],
) -> Output {
    let mut a = vec![
        "pdf",
        "encrypt",
        f.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--cipher",
        cipher,
        "--user-password",
        UPW,
        "--owner-password",
        OPW,
        "--force",
    ];
    if let Some(p) = input_pw {
        a.extend(["--password", p]);
    }
    a.extend_from_slice(extra);
    cl(&a)
}

/// Encrypts every PDF of ../shared/pdf with `cipher` and checks the result with qpdf,
/// poppler, mupdf and our own decryption, with both passwords; and its size.
fn encrypt_every_file(cipher: &str, v: i64, r: i64, qpdf_method: Option<&str>) {
    let Some(dir) = shared() else {
        println!("SKIP: ../shared/pdf is missing");
        return;
    };
    let t = enc_tools();
    let tmp = tmpdir();
    let out = tmp.path().join("enc.pdf");
    let (mut files, mut over10) = (0, 0);
    for row in readme_rows(&dir) {
        let f = dir.join(&row.file);
        let name = &row.file;
        // Encrypted inputs are decrypted first with their README user password.
        let input_pw = row
            .enc
            .as_ref()
            .map(|_| row.user.clone().unwrap_or_default());
        let extra: &[&str] = if cipher == "rc4-128" {
            &["--allow-weak"]
        } else {
            &[]
        };
        let o = cl_encrypt(&f, &out, cipher, input_pw.as_deref(), extra);
        assert!(o.status.success(), "encrypt {name}: {}", stderr(&o));
        assert!(
            stderr(&o).contains(&format!("encrypted with {cipher} (V {v}, R {r})")),
            "{name}: {}",
            stderr(&o)
        );
        // Our own reading: what info says, and decryption with both passwords.
        let j = info_json(&out, None);
        assert_eq!(j["encryption"]["R"].as_i64(), Some(r), "{name}");
        assert_eq!(j["encryption"]["V"].as_i64(), Some(v), "{name}");
        assert_eq!(
            j["encryption"]["needs_password"],
            Value::Bool(true),
            "{name}"
        );
        assert_eq!(info_json(&out, Some(UPW))["encryption"]["password"], "user");
        assert_eq!(
            info_json(&out, Some(OPW))["encryption"]["password"],
            "owner"
        );
        if row.structure.contains("in ObjStm") {
            assert!(
                j["objects_in_object_streams"].as_u64().unwrap() > 0,
                "{name}: object streams dropped"
            );
            assert_eq!(
                j["xref_stream"],
                Value::Bool(true),
                "{name}: xref stream dropped"
            );
        }
        let want = t
            .pdftotext
            .then(|| pdftotext(&f, input_pw.as_deref().map(|p| ("-upw", p))));
        for pw in [UPW, OPW] {
            let d = tmp.path().join("dec.pdf");
            let o = cl(&[
                "pdf",
                "decrypt",
                out.to_str().unwrap(),
                "-o",
                d.to_str().unwrap(),
                "--password",
                pw,
                "--force",
            ]);
            assert!(
                o.status.success(),
                "{name}: our decrypt ({pw}): {}",
                stderr(&o)
            );
            if let Some(w) = &want {
                assert!(
                    pdftotext(&d, None) == *w,
                    "{name}: text after our own round trip ({pw}) differs"
                );
            }
        }
        if let Some(w) = &want {
            for opt in [("-upw", UPW), ("-opw", OPW)] {
                assert!(
                    pdftotext(&out, Some(opt)) == *w,
                    "{name}: pdftotext {} {} differs from the original's text",
                    opt.0,
                    opt.1
                );
            }
            // Pages render as the original's (streams re-compressed from LZW, ASCII85,
            // RunLength or a weak Flate must decode to the same data): the first page of
            // every file, every page of the one with six image filters.
            let pages = if name.contains("6-filters") { 6 } else { 1 };
            for page in 1..=pages {
                let pg = page.to_string();
                let render = |f: &Path, pw: &str| {
                    run_text(&[
                        "pdftoppm",
                        "-upw",
                        pw,
                        "-r",
                        "24",
                        "-f",
                        &pg,
                        "-l",
                        &pg,
                        "-gray",
                        f.to_str().unwrap(),
                    ])
                };
                assert!(
                    render(&out, UPW) == render(&f, input_pw.as_deref().unwrap_or("")),
                    "{name}: page {page} renders differently"
                );
            }
        }
        if t.qpdf {
            let q = Command::new("qpdf")
                .args(["--check", &format!("--password={UPW}")])
                .arg(&out)
                .output()
                .unwrap();
            assert_eq!(
                q.status.code(),
                Some(0),
                "{name}: qpdf --check: {}{}",
                String::from_utf8_lossy(&q.stdout),
                stderr(&q)
            );
            for (pw, kind) in [(UPW, "user"), (OPW, "owner")] {
                let q = Command::new("qpdf")
                    .args(["--show-encryption", &format!("--password={pw}")])
                    .arg(&out)
                    .output()
                    .unwrap();
                let s = String::from_utf8_lossy(&q.stdout);
                assert!(
                    q.status.success(),
                    "{name}: qpdf --show-encryption: {}",
                    stderr(&q)
                );
                // qpdf names the crypt filter methods of V 4 and 5 only.
                let methods = match qpdf_method {
                    Some(m) => {
                        s.contains(&format!("stream encryption method: {m}\n"))
                            && s.contains(&format!("string encryption method: {m}\n"))
                    }
                    None => !s.contains("encryption method"),
                };
                assert!(
                    s.contains(&format!("R = {r}\n"))
                        && s.contains("P = -4\n")
                        && s.contains(&format!("Supplied password is {kind} password"))
                        && methods,
                    "{name} ({kind}): qpdf --show-encryption says:\n{s}"
                );
            }
        }
        if t.mutool {
            let (ok0, base) = mutool_problems(&f, input_pw.as_deref().unwrap_or(""));
            for pw in [UPW, OPW] {
                let (ok, problems) = mutool_problems(&out, pw);
                assert!(
                    ok || !ok0,
                    "{name}: mutool draw -p {pw} failed: {problems:?}"
                );
                assert!(
                    problems.len() <= base.len(),
                    "{name}: mutool draw -p {pw} reports {problems:?}; the original only {base:?}"
                );
            }
        }
        // Size: within 10% of the input, or no larger than qpdf's output.
        let size = std::fs::metadata(&out).unwrap().len();
        if size > row.bytes + row.bytes / 10 {
            over10 += 1;
            assert!(
                t.qpdf,
                "{name}: {size} bytes from {} (no qpdf to compare)",
                row.bytes
            );
            let q = qpdf_encrypt(&f, input_pw.as_deref(), cipher, &tmp.path().join("q.pdf"));
            assert!(
                size <= q,
                "{name}: {size} bytes, more than 10% over the input ({}) and over qpdf's {q}",
                row.bytes
            );
        }
        println!("{cipher}: {name}: {} -> {size} bytes", row.bytes);
        files += 1;
    }
    assert!(files >= 30, "{files} files");
    println!(
        "encrypt {cipher}: {files} files; our decryption, pdftotext -upw/-opw{}{}; \
         {over10} more than 10% over their input (none over qpdf's output)",
        if t.qpdf {
            ", qpdf --check and --show-encryption"
        } else {
            ""
        },
        if t.mutool { ", mutool draw" } else { "" },
    );
}

#[test]
fn encrypt_aes256_every_file() {
    encrypt_every_file("aes-256", 5, 6, Some("AESv3"));
}

#[test]
fn encrypt_aes128_every_file() {
    encrypt_every_file("aes-128", 4, 4, Some("AESv2"));
}

#[test]
fn encrypt_rc4_128_every_file() {
    encrypt_every_file("rc4-128", 2, 3, None);
}

#[test]
fn encrypt_options_and_refusals() {
    let tmp = tmpdir();
    let f = tmp.path().join("in.pdf");
    std::fs::write(&f, minimal_pdf()).unwrap();
    let out = tmp.path().join("out.pdf");
    let o_s = out.to_str().unwrap();
    let mut n = 0;
    // RC4 needs --allow-weak, and says it is weak when allowed.
    let o = cl_encrypt(&f, &out, "rc4-128", None, &[]);
    assert_clean(&o, "rc4 refused");
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--allow-weak") && !out.exists(),
        "{}",
        stderr(&o)
    );
    let o = cl_encrypt(&f, &out, "rc4-128", None, &["--allow-weak"]);
    assert!(
        o.status.success() && stderr(&o).contains("weak"),
        "{}",
        stderr(&o)
    );
    n += 2;
    // Unknown cipher, unknown permission, empty owner password: clear errors, no output.
    std::fs::remove_file(&out).unwrap();
    for (args, words) in [
        (vec!["--cipher", "aes-512"], "aes-256"),
        (vec!["--permissions", "print,fly"], "`fly`"),
    ] {
        let mut a = vec![
            "pdf",
            "encrypt",
            f.to_str().unwrap(),
            "-o",
            o_s,
            "--user-password",
            "u",
            "--owner-password",
            "o",
        ];
        a.extend(args);
        let o = cl(&a);
        assert_clean(&o, words);
        assert!(
            o.status.code() == Some(2) && stderr(&o).contains(words) && !out.exists(),
            "{words}: {}",
            stderr(&o)
        );
        n += 1;
    }
    let o = cl(&[
        "pdf",
        "encrypt",
        f.to_str().unwrap(),
        "-o",
        o_s,
        "--user-password",
        "u",
        "--owner-password",
        "",
    ]);
    assert!(
        o.status.code() == Some(2) && stderr(&o).contains("owner password is empty"),
        "{}",
        stderr(&o)
    );
    assert!(!out.exists());
    n += 1;
    // An existing output is kept without --force.
    std::fs::write(&out, b"keep me").unwrap();
    let o = cl(&[
        "pdf",
        "encrypt",
        f.to_str().unwrap(),
        "-o",
        o_s,
        "--user-password",
        "u",
        "--owner-password",
        "o",
    ]);
    assert!(o.status.code() == Some(4) && stderr(&o).contains("--force"));
    assert_eq!(std::fs::read(&out).unwrap(), b"keep me");
    n += 1;
    // Permissions and EncryptMetadata reach the /Encrypt dictionary.
    let o = cl_encrypt(
        &f,
        &out,
        "aes-128",
        None,
        &["--permissions", "print,copy", "--no-encrypt-metadata"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let j = info_json(&out, Some(UPW));
    let perms = &j["encryption"]["permissions"];
    assert_eq!(perms["print"], Value::Bool(true));
    assert_eq!(perms["copy"], Value::Bool(true));
    assert_eq!(perms["modify"], Value::Bool(false));
    assert_eq!(j["encryption"]["EncryptMetadata"], Value::Bool(false));
    if have("qpdf") {
        let q = Command::new("qpdf")
            .args(["--show-encryption", &format!("--password={UPW}")])
            .arg(&out)
            .output()
            .unwrap();
        let s = String::from_utf8_lossy(&q.stdout);
        assert!(
            s.contains("modify anything: not allowed")
                && s.contains("print high resolution: not allowed"),
            "{s}"
        );
    }
    n += 1;
    // An encrypted input: refused without its password, re-encrypted with it.
    let enc1 = tmp.path().join("enc1.pdf");
    let o = cl_encrypt(&f, &enc1, "aes-256", None, &[]);
    assert!(o.status.success());
    let o = cl_encrypt(&enc1, &out, "aes-128", None, &[]);
    assert_clean(&o, "encrypted input");
    assert!(
        o.status.code() == Some(1) && stderr(&o).contains("--password-file"),
        "{}",
        stderr(&o)
    );
    let o = cl_encrypt(&enc1, &out, "aes-128", Some("wrong"), &[]);
    assert!(o.status.code() == Some(1) && stderr(&o).contains("wrong password"));
    let o = cl_encrypt(&enc1, &out, "aes-128", Some(OPW), &[]);
    assert!(
        o.status.success() && stderr(&o).contains("decrypted first with its owner password"),
        "{}",
        stderr(&o)
    );
    if let Some(t) = text_of(&std::fs::read(&out).unwrap(), Some(UPW)) {
        assert!(String::from_utf8_lossy(&t).contains("Hello hostile world"));
    }
    n += 3;
    // No temporary files left behind.
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".cipherlab-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    println!("encrypt options and refusals: {n} cases");
}

// ---- pdf encrypt with lightweight ciphers: the authenticated payload in a wrapper --------

/// Encrypts every PDF of ../shared/pdf with the lightweight `cipher`: the wrapper opens in
/// every reader and shows its cover page; `pdf info` describes it; `pdf decrypt` with
/// either password gives the original's text; a wrong password is a clear error.
/// `readers`: also run qpdf --check and mutool draw on the wrappers.
fn lwc_every_file(cipher: &str, readers: bool) {
    let Some(dir) = shared() else {
        println!("SKIP: ../shared/pdf is missing");
        return;
    };
    let t = enc_tools();
    let tmp = tmpdir();
    let out = tmp.path().join("wrapped.pdf");
    let dec = tmp.path().join("dec.pdf");
    let mut files = 0;
    for row in readme_rows(&dir) {
        let f = dir.join(&row.file);
        let name = &row.file;
        let input_pw = row
            .enc
            .as_ref()
            .map(|_| row.user.clone().unwrap_or_default());
        let o = cl_encrypt(&f, &out, cipher, input_pw.as_deref(), &[]);
        assert!(o.status.success(), "encrypt {name}: {}", stderr(&o));
        assert!(
            stderr(&o).contains(&format!("encrypted with {cipher} (authenticated")),
            "{name}: {}",
            stderr(&o)
        );
        let j = info_json(&out, None);
        let p = &j["encrypted_payload"];
        assert_eq!(
            j["encrypted"],
            Value::Bool(false),
            "{name}: the wrapper is not encrypted"
        );
        assert_eq!(p["cipher"], cipher, "{name}: {j}");
        assert_eq!(p["subtype"], "CipherlabAEAD", "{name}");
        assert_eq!(p["needs_password"], Value::Bool(true), "{name}");
        assert_eq!(
            info_json(&out, Some(UPW))["encrypted_payload"]["password"],
            "user"
        );
        assert_eq!(
            info_json(&out, Some(OPW))["encrypted_payload"]["password"],
            "owner"
        );
        if t.pdftotext {
            let cover = String::from_utf8_lossy(&pdftotext(&out, None)).into_owned();
            assert!(
                cover.contains("Encrypted document")
                    && cover.contains(cipher)
                    && cover.contains("cipherlab pdf decrypt"),
                "{name}: the cover page says:\n{cover}"
            );
        }
        if readers && t.qpdf {
            let q = Command::new("qpdf")
                .arg("--check")
                .arg(&out)
                .output()
                .unwrap();
            assert_eq!(
                q.status.code(),
                Some(0),
                "{name}: qpdf --check: {}",
                stderr(&q)
            );
        }
        if readers && t.mutool {
            let (ok, problems) = mutool_problems(&out, "");
            assert!(
                ok && problems.is_empty(),
                "{name}: mutool draw: {problems:?}"
            );
        }
        let want = t
            .pdftotext
            .then(|| pdftotext(&f, input_pw.as_deref().map(|p| ("-upw", p))));
        for pw in [UPW, OPW] {
            let o = cl(&[
                "pdf",
                "decrypt",
                out.to_str().unwrap(),
                "-o",
                dec.to_str().unwrap(),
                "--password",
                pw,
                "--force",
            ]);
            assert!(o.status.success(), "{name}: decrypt ({pw}): {}", stderr(&o));
            assert!(
                stderr(&o).contains("authenticated and decrypted"),
                "{name}: {}",
                stderr(&o)
            );
            if let Some(w) = &want {
                assert!(
                    pdftotext(&dec, None) == *w,
                    "{name}: text after decryption with {pw} differs from the original's"
                );
            }
        }
        std::fs::remove_file(&dec).unwrap();
        let o = cl(&[
            "pdf",
            "decrypt",
            out.to_str().unwrap(),
            "-o",
            dec.to_str().unwrap(),
            "--password",
            "not it",
        ]);
        assert_clean(&o, name);
        assert!(
            o.status.code() == Some(1) && stderr(&o).contains("wrong password") && !dec.exists(),
            "{name}: {}",
            stderr(&o)
        );
        files += 1;
    }
    assert!(files >= 30);
    println!(
        "lwc {cipher}: {files} files wrapped{} and decrypted with both passwords, text equal \
         to the original's",
        if readers {
            " (qpdf --check, mutool draw on the wrappers)"
        } else {
            ""
        }
    );
}

#[test]
fn lwc_ascon_aead128_every_file() {
    lwc_every_file("ascon-aead128", true);
}
#[test]
fn lwc_ascon_128_every_file() {
    lwc_every_file("ascon-128", false);
}
#[test]
fn lwc_ascon_128a_every_file() {
    lwc_every_file("ascon-128a", false);
}
#[test]
fn lwc_ascon_80pq_every_file() {
    lwc_every_file("ascon-80pq", false);
}
#[test]
fn lwc_xoodyak_every_file() {
    lwc_every_file("xoodyak", true);
}
#[test]
fn lwc_isap_a_128a_every_file() {
    lwc_every_file("isap-a-128a", false);
}
#[test]
fn lwc_isap_a_128_every_file() {
    lwc_every_file("isap-a-128", false);
}
#[test]
fn lwc_isap_k_128a_every_file() {
    lwc_every_file("isap-k-128a", false);
}
#[test]
fn lwc_isap_k_128_every_file() {
    lwc_every_file("isap-k-128", false);
}

#[test]
fn lwc_tampered_wrapper_releases_nothing() {
    let tmp = tmpdir();
    let f = tmp.path().join("in.pdf");
    std::fs::write(&f, minimal_pdf()).unwrap();
    let w = tmp.path().join("w.pdf");
    let o = cl_encrypt(&f, &w, "ascon-aead128", None, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let good = std::fs::read(&w).unwrap();
    // The payload is stored as is: find it (its header) and flip bytes all through it.
    let start = good
        .windows(8)
        .enumerate()
        .skip(20)
        .find(|(_, x)| x.starts_with(b"%PDF-"))
        .map(|(i, _)| i)
        .unwrap();
    let end = start
        + good[start..]
            .windows(5)
            .position(|x| x == b"%%EOF")
            .unwrap();
    let out = tmp.path().join("out.pdf");
    let mut n = 0;
    let mut step = (end - start) / 40;
    step = step.max(1);
    for i in (start + 16..end).step_by(step) {
        let mut b = good.clone();
        b[i] ^= 0x01;
        let bad = tmp.path().join("bad.pdf");
        std::fs::write(&bad, &b).unwrap();
        let o = cl(&[
            "pdf",
            "decrypt",
            bad.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--password",
            UPW,
            "--force",
        ]);
        assert_clean(&o, &format!("byte {i}"));
        if o.status.success() {
            // A flip in the plaintext structure (an offset, a name) may be repaired or
            // harmless: the output must then be the original document.
            if let (Some(t), Some(want)) = (
                text_of(&std::fs::read(&out).unwrap(), None),
                text_of(&minimal_pdf(), None),
            ) {
                assert_eq!(t, want, "byte {i}: a modified payload gave other text");
            }
        } else {
            assert!(!out.exists(), "byte {i}: output written despite an error");
        }
        let _ = std::fs::remove_file(&out);
        n += 1;
    }
    println!("lwc tampered wrappers: {n} flipped bytes, none released other content");
}

// ---- password sources, `-`, exit codes -----------------------------------------------

/// `cipherlab` with `args`, environment variables `env` set, standard input `stdin` and
/// standard output to `stdout` (a file; else captured).
fn cl_with(
    args: &[&str],
    env: &[(&str, &str)],
    stdin: Option<&[u8]>,
    stdout: Option<std::fs::File>,
) -> Output {
    use std::io::Write;
    use std::process::Stdio;
    let mut c = Command::new(bin());
    c.args(args)
        .env_remove("CIPHERLAB_PDF_PASSWORD")
        .env_remove("CIPHERLAB_PDF_USER_PASSWORD")
        .env_remove("CIPHERLAB_PDF_OWNER_PASSWORD")
        .envs(env.iter().copied())
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stderr(Stdio::piped());
    match stdout {
        Some(f) => c.stdout(f),
        None => c.stdout(Stdio::piped()),
    };
    let mut child = c.spawn().expect("run cipherlab");
    if let Some(bytes) = stdin {
        let mut i = child.stdin.take().unwrap();
        i.write_all(bytes).unwrap();
    }
    child.wait_with_output().unwrap()
}

/// The password `pdf info` says `pw` is for `f` ("user", "owner", "user+owner").
fn password_kind(f: &Path, pw_args: &[&str], env: &[(&str, &str)]) -> Option<String> {
    let mut a = vec!["pdf", "info", f.to_str().unwrap(), "--json"];
    a.extend_from_slice(pw_args);
    let o = cl_with(&a, env, None, None);
    assert!(o.status.success(), "info {pw_args:?}: {}", stderr(&o));
    let j: Value = serde_json::from_slice(&o.stdout).unwrap();
    j["encryption"]["password"].as_str().map(str::to_string)
}

#[test]
fn passwords_come_from_files_the_environment_or_the_command_line() {
    let tmp = tmpdir();
    let p = |n: &str| tmp.path().join(n);
    let s = |n: &str| p(n).to_str().unwrap().to_string();
    std::fs::write(p("in.pdf"), minimal_pdf()).unwrap();
    // First line only; CRLF and LF both end it.
    std::fs::write(p("user.txt"), "u-secret\nignored second line\n").unwrap();
    std::fs::write(p("owner.txt"), "o secret with spaces\r\n").unwrap();
    let o = cl_with(
        &[
            "pdf",
            "encrypt",
            &s("in.pdf"),
            "-o",
            &s("enc.pdf"),
            "--user-password-file",
            &s("user.txt"),
            "--owner-password-file",
            &s("owner.txt"),
        ],
        &[],
        None,
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let enc = p("enc.pdf");
    // The input's password: from a file, the environment, the command line.
    assert_eq!(
        password_kind(&enc, &["--password-file", &s("user.txt")], &[]).as_deref(),
        Some("user")
    );
    assert_eq!(
        password_kind(
            &enc,
            &[],
            &[("CIPHERLAB_PDF_PASSWORD", "o secret with spaces")]
        )
        .as_deref(),
        Some("owner")
    );
    assert_eq!(
        password_kind(&enc, &["--password", "u-secret"], &[]).as_deref(),
        Some("user")
    );
    // An explicit one wins over the environment.
    assert_eq!(
        password_kind(
            &enc,
            &["--password", "u-secret"],
            &[("CIPHERLAB_PDF_PASSWORD", "o secret with spaces")]
        )
        .as_deref(),
        Some("user")
    );
    let owner_file = s("owner.txt");
    let want = text_of(&minimal_pdf(), None);
    for (args, env) in [
        (vec!["--password-file", owner_file.as_str()], vec![]),
        (vec![], vec![("CIPHERLAB_PDF_PASSWORD", "u-secret")]),
    ] {
        let mut a = vec!["pdf", "decrypt", enc.to_str().unwrap(), "-o", "-"];
        a.extend(args);
        let o = cl_with(&a, &env, None, None);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(o.stdout.starts_with(b"%PDF-"));
        if let Some(w) = &want {
            assert_eq!(text_of(&o.stdout, None).as_ref(), Some(w));
        }
    }
    // The password file from standard input, the PDF from a file.
    let o = cl_with(
        &[
            "pdf",
            "decrypt",
            enc.to_str().unwrap(),
            "-o",
            &s("d.pdf"),
            "--password-file",
            "-",
        ],
        &[],
        Some(b"u-secret\n"),
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    // New passwords from the environment.
    let o = cl_with(
        &[
            "pdf",
            "encrypt",
            &s("in.pdf"),
            "-o",
            &s("enc2.pdf"),
            "--cipher",
            "ascon-aead128",
        ],
        &[
            ("CIPHERLAB_PDF_USER_PASSWORD", "env-user"),
            ("CIPHERLAB_PDF_OWNER_PASSWORD", "env-owner"),
        ],
        None,
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let o = cl_with(
        &["pdf", "decrypt", &s("enc2.pdf"), "-o", &s("d2.pdf")],
        &[("CIPHERLAB_PDF_PASSWORD", "env-owner")],
        None,
        None,
    );
    assert!(
        o.status.success() && stderr(&o).contains("owner password"),
        "{}",
        stderr(&o)
    );
    // Without a terminal to ask on: exit 1 for a missing password, 2 for a missing new one,
    // each naming where to give it.
    let o = cl_with(
        &["pdf", "decrypt", enc.to_str().unwrap(), "-o", &s("x.pdf")],
        &[],
        None,
        None,
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--password-file") && stderr(&o).contains("CIPHERLAB_PDF_PASSWORD")
    );
    let o = cl_with(
        &[
            "pdf",
            "encrypt",
            &s("in.pdf"),
            "-o",
            &s("x.pdf"),
            "--owner-password",
            "o",
        ],
        &[],
        None,
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--user-password-file")
            && stderr(&o).contains("CIPHERLAB_PDF_USER_PASSWORD"),
        "{}",
        stderr(&o)
    );
    assert!(!p("x.pdf").exists());
    // --password and --password-file exclude each other; help says ps shows --password.
    let o = cl_with(
        &[
            "pdf",
            "decrypt",
            enc.to_str().unwrap(),
            "-o",
            &s("x.pdf"),
            "--password",
            "a",
            "--password-file",
            &s("user.txt"),
        ],
        &[],
        None,
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    for sub in ["info", "decrypt", "encrypt"] {
        let o = cl(&["pdf", sub, "--help"]);
        let help = String::from_utf8_lossy(&o.stdout);
        assert!(
            help.contains("`ps`") && help.contains("--password-file"),
            "{sub} --help: {help}"
        );
        assert!(help.contains("Exit codes"), "{sub} --help");
    }
    // A password file that does not exist: input/output error.
    let o = cl_with(
        &[
            "pdf",
            "decrypt",
            enc.to_str().unwrap(),
            "-o",
            &s("x.pdf"),
            "--password-file",
            &s("nope.txt"),
        ],
        &[],
        None,
        None,
    );
    assert_eq!(o.status.code(), Some(5), "{}", stderr(&o));
    println!(
        "password sources: files (LF, CRLF, stdin), environment, command line, precedence, refusals"
    );
}

#[test]
fn dash_is_standard_input_and_output() {
    let tmp = tmpdir();
    let pw = tmp.path().join("pw.txt");
    std::fs::write(&pw, "pw\n").unwrap();
    let pws = pw.to_str().unwrap();
    // PDF in on stdin, encrypted PDF out on stdout.
    let o = cl_with(
        &[
            "pdf",
            "encrypt",
            "-",
            "-o",
            "-",
            "--user-password-file",
            pws,
            "--owner-password",
            "owner",
        ],
        &[],
        Some(&minimal_pdf()),
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("standard input") && stderr(&o).contains("standard output"));
    let enc = o.stdout;
    assert!(enc.starts_with(b"%PDF-"));
    // And back through stdin/stdout.
    let o = cl_with(
        &["pdf", "decrypt", "-", "-o", "-", "--password-file", pws],
        &[],
        Some(&enc),
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    if let (Some(a), Some(b)) = (text_of(&o.stdout, None), text_of(&minimal_pdf(), None)) {
        assert_eq!(a, b);
    }
    // info from stdin.
    let o = cl_with(
        &["pdf", "info", "-", "--json", "--password-file", pws],
        &[],
        Some(&enc),
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let j: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["file"], "standard input");
    assert_eq!(j["encryption"]["password"], "user");
    // A password file cannot be standard input when the PDF is.
    let o = cl_with(
        &["pdf", "decrypt", "-", "-o", "-", "--password-file", "-"],
        &[],
        Some(&enc),
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
}

/// A classic PDF whose cross-reference stream (the only one) inflates to `mib` MiB.
fn xref_stream_bomb(mib: usize) -> Vec<u8> {
    let mut f = b"%PDF-1.5\n".to_vec();
    f.extend_from_slice(b"1 0 obj <</Type/Catalog/Pages 2 0 R>> endobj\n");
    f.extend_from_slice(b"2 0 obj <</Type/Pages/Kids[]/Count 0>> endobj\n");
    let x = f.len();
    let z = cipherlab_pdf::filters::deflate(&vec![0u8; mib << 20]);
    f.extend_from_slice(
        format!(
            "3 0 obj <</Type/XRef/W[1 2 1]/Size 4/Root 1 0 R/Filter/FlateDecode/Length {}>>\nstream\n",
            z.len()
        )
        .as_bytes(),
    );
    f.extend_from_slice(&z);
    f.extend_from_slice(format!("\nendstream endobj\nstartxref\n{x}\n%%EOF\n").as_bytes());
    f
}

#[test]
fn every_exit_code() {
    let tmp = tmpdir();
    let p = |n: &str| tmp.path().join(n).to_str().unwrap().to_string();
    std::fs::write(p("in.pdf"), minimal_pdf()).unwrap();
    std::fs::write(p("exists.pdf"), b"keep").unwrap();
    std::fs::write(p("not.pdf"), b"hello, world").unwrap();
    // A page whose content stream is cut away: the document cannot be kept whole.
    let good = minimal_pdf();
    let cut = good.windows(8).position(|w| w == b"4 0 obj\n").unwrap();
    let mut lossy = good[..cut].to_vec();
    lossy.extend_from_slice(b"\n%%EOF\n");
    std::fs::write(p("lossy.pdf"), &lossy).unwrap();
    std::fs::write(p("bomb.pdf"), xref_stream_bomb(2)).unwrap();
    let enc = |input: &str, out: &str, extra: &[&str]| {
        let mut a = vec![
            "pdf",
            "encrypt",
            input,
            "-o",
            out,
            "--user-password",
            "u",
            "--owner-password",
            "o",
        ];
        a.extend_from_slice(extra);
        cl(&a)
    };
    let o = enc(&p("in.pdf"), &p("enc.pdf"), &[]);
    let mut seen = vec![(0, o)];
    seen.push((
        1,
        cl(&[
            "pdf",
            "decrypt",
            &p("enc.pdf"),
            "-o",
            &p("x.pdf"),
            "--password",
            "wrong",
        ]),
    ));
    seen.push((2, enc(&p("in.pdf"), &p("x.pdf"), &["--cipher", "des"])));
    seen.push((2, cl(&["pdf", "decrypt", &p("in.pdf"), "--no-such-option"])));
    seen.push((3, cl(&["pdf", "decrypt", &p("not.pdf"), "-o", &p("x.pdf")])));
    seen.push((4, enc(&p("in.pdf"), &p("exists.pdf"), &[])));
    seen.push((
        5,
        cl(&["pdf", "decrypt", &p("missing.pdf"), "-o", &p("x.pdf")]),
    ));
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .ok();
    let have_full = full.is_some();
    if let Some(f) = full {
        seen.push((
            6,
            cl_with(
                &["pdf", "decrypt", &p("in.pdf"), "-o", "-"],
                &[],
                None,
                Some(f),
            ),
        ));
    }
    seen.push((7, enc(&p("lossy.pdf"), &p("x.pdf"), &[])));
    seen.push((
        7,
        cl(&["pdf", "decrypt", &p("lossy.pdf"), "-o", &p("x.pdf")]),
    ));
    seen.push((
        8,
        cl(&[
            "pdf",
            "decrypt",
            &p("bomb.pdf"),
            "-o",
            &p("x.pdf"),
            "--max-stream-mib",
            "1",
        ]),
    ));
    seen.push((
        8,
        cl(&["pdf", "info", &p("bomb.pdf"), "--max-stream-mib", "1"]),
    ));
    for (want, o) in &seen {
        assert_eq!(
            o.status.code(),
            Some(*want),
            "exit {want} expected: {}",
            stderr(o)
        );
        if *want != 0 {
            assert!(stderr(o).contains("error"), "exit {want} without a message");
        }
    }
    assert!(
        !tmp.path().join("x.pdf").exists(),
        "a failed run left its output"
    );
    assert_eq!(std::fs::read(p("exists.pdf")).unwrap(), b"keep");
    let msg = |i: usize| stderr(&seen[i].1);
    let k = seen.iter().position(|(c, _)| *c == 3).unwrap();
    assert!(msg(k).contains("not a PDF"), "{}", msg(k));
    let k = seen.iter().position(|(c, _)| *c == 7).unwrap();
    assert!(
        msg(k).contains("cannot be kept whole") && msg(k).contains("qpdf"),
        "{}",
        msg(k)
    );
    let k = seen.iter().position(|(c, _)| *c == 8).unwrap();
    assert!(msg(k).contains("--max-stream-mib"), "{}", msg(k));
    if have_full {
        let k = seen.iter().position(|(c, _)| *c == 6).unwrap();
        assert!(msg(k).contains("disk full"), "{}", msg(k));
    }
    // With the default limits the same file reads.
    let o = cl(&["pdf", "info", &p("bomb.pdf")]);
    assert!(o.status.success(), "{}", stderr(&o));
    println!("exit codes 0-8 each seen ({} runs)", seen.len());
}

/// `pdf decrypt` says which kind of file it opened, and `--require-authenticated` refuses
/// all but an authenticated one: exit 1 and nothing written.
#[test]
fn decrypt_says_what_protected_the_file_and_can_require_authentication() {
    let d = tmpdir();
    let plain = d.path().join("plain.pdf");
    std::fs::write(&plain, minimal_pdf()).unwrap();
    let p = plain.to_str().unwrap();
    let std_pdf = d.path().join("std.pdf");
    let lwc_pdf = d.path().join("lwc.pdf");
    for (cipher, out) in [("aes-256", &std_pdf), ("ascon-aead128", &lwc_pdf)] {
        let o = cl(&[
            "pdf",
            "encrypt",
            p,
            "-o",
            out.to_str().unwrap(),
            "--cipher",
            cipher,
            "--user-password",
            "u",
            "--owner-password",
            "o",
        ]);
        assert!(o.status.success(), "{cipher}: {}", stderr(&o));
    }
    let decrypt = |f: &Path, require: bool| {
        let out = d.path().join(format!(
            "out-{}-{require}.pdf",
            f.file_stem().unwrap().to_str().unwrap()
        ));
        let mut args = vec![
            "pdf",
            "decrypt",
            f.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--password",
            "u",
        ];
        if require {
            args.push("--require-authenticated");
        }
        (cl(&args), out.exists())
    };
    let (o, written) = decrypt(&lwc_pdf, true);
    assert!(o.status.success() && written, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("is an authenticated PDF"),
        "{}",
        stderr(&o)
    );
    let (o, written) = decrypt(&std_pdf, false);
    assert!(o.status.success() && written, "{}", stderr(&o));
    assert!(stderr(&o).contains("NOT authenticated"), "{}", stderr(&o));
    for f in [&std_pdf, &plain] {
        let (o, written) = decrypt(f, true);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        assert!(
            !written,
            "{}: output written despite --require-authenticated",
            f.display()
        );
        assert!(
            stderr(&o).contains("--require-authenticated"),
            "{}",
            stderr(&o)
        );
    }
}

/// A file whose cross-reference stream (uncompressed) lists `objs` at their offsets and
/// `packed` (object number, container) as the first object of an object stream.
fn with_object_streams(objs: &[(u32, Vec<u8>)], packed: &[(u32, u32)]) -> Vec<u8> {
    let mut f = b"%PDF-1.7\n".to_vec();
    let mut offs = std::collections::BTreeMap::new();
    for (n, body) in objs {
        offs.insert(*n, f.len());
        f.extend_from_slice(format!("{n} 0 obj\n").as_bytes());
        f.extend_from_slice(body);
        f.extend_from_slice(b"\nendobj\n");
    }
    let x = objs.iter().map(|o| o.0).max().unwrap() + 1;
    offs.insert(x, f.len());
    let mut rows = vec![0u8, 0, 0, 0, 0, 0xff, 0xff];
    for n in 1..=x {
        if let Some(o) = offs.get(&n) {
            rows.push(1);
            rows.extend_from_slice(&(*o as u32).to_be_bytes());
            rows.extend_from_slice(&[0, 0]);
        } else if let Some((_, c)) = packed.iter().find(|p| p.0 == n) {
            rows.push(2);
            rows.extend_from_slice(&c.to_be_bytes());
            rows.extend_from_slice(&[0, 0]);
        } else {
            rows.extend_from_slice(&[0; 7]);
        }
    }
    f.extend_from_slice(
        format!(
            "{x} 0 obj\n<</Type/XRef/Size {}/W[1 4 2]/Root 1 0 R/Length {}>>\nstream\n",
            x + 1,
            rows.len()
        )
        .as_bytes(),
    );
    f.extend_from_slice(&rows);
    f.extend_from_slice(
        format!("\nendstream\nendobj\nstartxref\n{}\n%%EOF\n", offs[&x]).as_bytes(),
    );
    f
}

/// An object stream holding object 2 (`body`), with `dict` entries, its data
/// Flate-compressed after `pad` zero bytes.
fn object_stream(body: &[u8], dict: &str, pad: usize) -> Vec<u8> {
    let mut data = b"2 0 ".to_vec();
    data.extend_from_slice(body);
    data.resize(data.len() + pad, 0);
    let z = cipherlab_pdf::filters::deflate(&data);
    let mut s = format!(
        "<</Type/ObjStm/First 4{dict}/Filter/FlateDecode/Length {}>>\nstream\n",
        z.len()
    )
    .into_bytes();
    s.extend_from_slice(&z);
    s.extend_from_slice(b"\nendstream");
    s
}

/// Hostile sizes with the default limits: an object stream of a few hundred KB that
/// inflates beyond --max-stream-mib (256 MiB), one that claims 4,000,000,000 objects
/// (/N), and arrays nested 200,000 deep (in the file, and in an object stream). `pdf
/// decrypt` and `encrypt` refuse each with exit 8, naming the option that raises the
/// limit, and write nothing; `pdf info`, which reads no object stream, answers.
#[test]
fn bombs_are_refused_with_the_limits_exit_code() {
    let tmp = tmpdir();
    let p = |n: &str| tmp.path().join(n).to_str().unwrap().to_string();
    let catalog = b"<</Type/Catalog/Pages 2 0 R>>".to_vec();
    let pages = b"<</Type/Pages/Kids[3 0 R]/Count 1>>";
    let page = b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Contents 4 0 R>>".to_vec();
    let content = b"<</Length 5>>\nstream\nBT ET\nendstream".to_vec();
    let nested = |d: usize| {
        let mut v = vec![b'['; d];
        v.resize(2 * d, b']');
        v
    };
    let mut deep_pages = b"<</Type/Pages/Kids[3 0 R]/Count 1/X ".to_vec();
    deep_pages.extend_from_slice(&nested(200_000));
    deep_pages.extend_from_slice(b">>");
    let mut deep_catalog = b"<</Type/Catalog/Pages 2 0 R/X ".to_vec();
    deep_catalog.extend_from_slice(&nested(200_000));
    deep_catalog.extend_from_slice(b">>");
    let packed = |stream: Vec<u8>, root: Vec<u8>| {
        with_object_streams(
            &[
                (1, root),
                (3, page.clone()),
                (4, content.clone()),
                (5, stream),
            ],
            &[(2, 5)],
        )
    };
    let cases = [
        (
            "inflates",
            packed(object_stream(pages, "/N 1", 260 << 20), catalog.clone()),
            "--max-stream-mib",
        ),
        (
            "n",
            packed(object_stream(pages, "/N 4000000000", 0), catalog.clone()),
            "--max-objects",
        ),
        (
            "deep-objstm",
            packed(object_stream(&deep_pages, "/N 1", 0), catalog.clone()),
            "--max-depth",
        ),
        (
            "deep",
            packed(object_stream(pages, "/N 1", 0), deep_catalog),
            "--max-depth",
        ),
    ];
    for (name, file, flag) in cases {
        let input = p(&format!("{name}.pdf"));
        std::fs::write(&input, &file).unwrap();
        assert!(file.len() < 1 << 20, "{name}: {} bytes", file.len());
        let out = p(&format!("{name}-out.pdf"));
        let o = cl(&["pdf", "info", input.as_str()]);
        assert!(o.status.success(), "{name} info: {}", stderr(&o));
        for args in [
            vec!["pdf", "decrypt", input.as_str(), "-o", out.as_str()],
            vec![
                "pdf",
                "encrypt",
                input.as_str(),
                "-o",
                out.as_str(),
                "--user-password",
                "u",
                "--owner-password",
                "o",
            ],
        ] {
            let o = cl(&args);
            assert_eq!(o.status.code(), Some(8), "{name} {args:?}: {}", stderr(&o));
            assert!(stderr(&o).contains(flag), "{name} {args:?}: {}", stderr(&o));
            assert!(!Path::new(&out).exists(), "{name} {args:?}: output written");
        }
    }
}
