//! The third round of PDF forgeries: each attack file is built from a genuine one, as an
//! attacker without the password would build it, and each test fails on a cipherlab that
//! lets the attack through (docs/pdf-lwc.md, "Threat model").

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use cipherlab_testkit::files::listing;
use cipherlab_testkit::pdf::{append_update, classic_file, minimal_pdf, replace_once};
use cipherlab_testkit::process::stderr;
use serde_json::Value;

/// Runs cipherlab with `env` as the only password variables.
fn cl_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cipherlab"))
        .args(args)
        .env_remove("CIPHERLAB_PDF_PASSWORD")
        .env_remove("CIPHERLAB_PDF_USER_PASSWORD")
        .env_remove("CIPHERLAB_PDF_OWNER_PASSWORD")
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run cipherlab")
}

fn cl(args: &[&str]) -> Output {
    cl_env(args, &[])
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn put(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

/// `pdf encrypt` of `input` with `cipher` and the two passwords (from files); the output.
fn encrypt(dir: &Path, input: &[u8], cipher: &str, user: &str, owner: &str) -> (Vec<u8>, Output) {
    let i = put(dir, "plain.pdf", input);
    let u = put(dir, "user.txt", format!("{user}\n").as_bytes());
    let o = put(dir, "owner.txt", format!("{owner}\n").as_bytes());
    let out = dir.join(format!("enc-{cipher}.pdf"));
    let r = cl(&[
        "pdf",
        "encrypt",
        s(&i),
        "-o",
        s(&out),
        "--force",
        "--cipher",
        cipher,
        "--user-password-file",
        s(&u),
        "--owner-password-file",
        s(&o),
    ]);
    assert!(r.status.success(), "encrypt {cipher}: {}", stderr(&r));
    (std::fs::read(&out).unwrap(), r)
}

/// `pdf decrypt FILE -o OUT` with `extra` arguments; the run and whether OUT was written.
fn decrypt(dir: &Path, file: &[u8], extra: &[&str], env: &[(&str, &str)]) -> (Output, bool) {
    let f = put(dir, "attack.pdf", file);
    let out = dir.join("out.pdf");
    let _ = std::fs::remove_file(&out);
    let mut args = vec!["pdf", "decrypt", s(&f), "-o", s(&out)];
    args.extend_from_slice(extra);
    let r = cl_env(&args, env);
    (r, out.exists())
}

/// Refused with exit 1 and nothing written.
fn assert_refused(r: &(Output, bool), words: &[&str], what: &str) {
    let e = stderr(&r.0);
    assert_eq!(r.0.status.code(), Some(1), "{what}: {e}");
    assert!(!r.1, "{what}: an output was written");
    for w in words {
        assert!(e.contains(w), "{what}: no {w:?} in: {e}");
    }
}

fn info_json(dir: &Path, file: &[u8], extra: &[&str]) -> Value {
    let f = put(dir, "info.pdf", file);
    let mut args = vec!["pdf", "info", "--json", s(&f)];
    args.extend_from_slice(extra);
    let r = cl(&args);
    assert!(r.status.success(), "info: {}", stderr(&r));
    serde_json::from_slice(&r.stdout).unwrap()
}

#[test]
fn an_lwc_file_that_the_empty_password_opens_is_never_authenticated() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // The attacker's own file: empty user password, an owner password of their choosing.
    let (forged, made) = encrypt(d, &minimal_pdf(), "ascon-aead128", "", "attacker-owner");
    assert!(
        stderr(&made).contains("user password is EMPTY"),
        "no warning when encrypting with an empty user password: {}",
        stderr(&made)
    );

    // The victim's flow that `pdf info` suggests: no password given.
    let r = decrypt(d, &forged, &["--require-authenticated"], &[]);
    assert_refused(&r, &["EMPTY", "nothing was written"], "empty password");
    // Nor does the owner password (known to the attacker) make it authenticated.
    let r = decrypt(
        d,
        &forged,
        &["--require-authenticated", "--password", "attacker-owner"],
        &[],
    );
    assert_refused(&r, &["EMPTY"], "owner password of an empty-user file");
    // Without --require-authenticated it opens, and says what it is.
    let (r, written) = decrypt(d, &forged, &[], &[]);
    let e = stderr(&r);
    assert!(r.status.success() && written, "{e}");
    assert!(
        e.contains("opened with the EMPTY user password") && !e.contains("every one authenticated"),
        "{e}"
    );

    let j = info_json(d, &forged, &[]);
    assert_eq!(j["encrypted_payload"]["needs_password"], Value::Bool(false));
    assert_eq!(j["encrypted_payload"]["authenticated"], Value::Bool(false));
    let f = put(d, "text.pdf", &forged);
    let text = String::from_utf8(cl(&["pdf", "info", s(&f)]).stdout).unwrap();
    assert!(
        text.contains("EMPTY user password") && text.contains("authenticated: NO"),
        "{text}"
    );

    // The genuine file, with a user password, still passes.
    let (genuine, made) = encrypt(d, &minimal_pdf(), "ascon-aead128", "u-secret", "o-secret");
    assert!(!stderr(&made).contains("EMPTY"), "{}", stderr(&made));
    let (r, written) = decrypt(
        d,
        &genuine,
        &[
            "--require-authenticated",
            "--password-file",
            s(&d.join("user.txt")),
        ],
        &[],
    );
    assert!(r.status.success() && written, "{}", stderr(&r));
    assert!(
        stderr(&r).contains("every one authenticated"),
        "{}",
        stderr(&r)
    );
    assert_eq!(
        info_json(d, &genuine, &[])["encrypted_payload"]["authenticated"],
        Value::Bool(true)
    );

    // The Standard handler: the same warning when encrypting, the same words decrypting.
    let (std_file, made) = encrypt(d, &minimal_pdf(), "aes-256", "", "o-secret");
    assert!(
        stderr(&made).contains("user password is EMPTY"),
        "{}",
        stderr(&made)
    );
    let (r, _) = decrypt(d, &std_file, &[], &[]);
    assert!(
        stderr(&r).contains("opened with the EMPTY user password"),
        "{}",
        stderr(&r)
    );
}

#[test]
fn a_refusal_after_staging_leaves_the_directory_as_it_was() {
    // The output is written to its temporary file (and synced, replacing) while it is read
    // back; a refusal decided after that -- here a password given for a file that is not
    // encrypted -- must still put nothing in place, leave no temporary file behind, and
    // keep the file --force would have replaced. Both kinds of temporary file.
    for named in ["0", "1"] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let pw = put(d, "pw.txt", b"u-secret\n");
        let f = put(d, "plain.pdf", &minimal_pdf());
        let out = put(d, "out.pdf", b"the old output");
        let before = listing(d);
        let args = [
            "pdf",
            "decrypt",
            s(&f),
            "-o",
            s(&out),
            "--force",
            "--password-file",
            s(&pw),
        ];
        let r = cl_env(&args, &[("CIPHERLAB_OUTFILE_NAMED", named)]);
        assert_eq!(r.status.code(), Some(1), "named {named}: {}", stderr(&r));
        assert!(stderr(&r).contains("NOT encrypted"), "{}", stderr(&r));
        assert_eq!(
            std::fs::read(&out).unwrap(),
            b"the old output",
            "named {named}"
        );
        assert_eq!(listing(d), before, "named {named}");
        // Allowed, the same staging puts the output in place.
        let mut allowed = args.to_vec();
        allowed.push("--allow-unencrypted");
        let r = cl_env(&allowed, &[("CIPHERLAB_OUTFILE_NAMED", named)]);
        assert!(r.status.success(), "named {named}: {}", stderr(&r));
        assert!(
            std::fs::read(&out).unwrap().starts_with(b"%PDF-"),
            "named {named}"
        );
        assert_eq!(listing(d), before, "named {named}");
    }
}

#[test]
fn a_password_for_a_file_that_is_not_encrypted_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pw = put(d, "pw.txt", b"u-secret\n");
    let pw_arg = ["--password-file", s(&pw)];
    let plain = minimal_pdf();
    let r = decrypt(d, &plain, &pw_arg, &[]);
    assert_refused(&r, &["NOT encrypted", "--allow-unencrypted"], "plain file");
    let r = decrypt(d, &plain, &[], &[("CIPHERLAB_PDF_PASSWORD", "u-secret")]);
    assert_refused(
        &r,
        &["NOT encrypted"],
        "plain file, password in the environment",
    );
    // Asked for, it is copied through, saying the password went unused.
    let (r, written) = decrypt(
        d,
        &plain,
        &[pw_arg[0], pw_arg[1], "--allow-unencrypted"],
        &[],
    );
    assert!(r.status.success() && written, "{}", stderr(&r));
    assert!(stderr(&r).contains("not used"), "{}", stderr(&r));
    // No password: an unencrypted file is rewritten as before.
    let (r, written) = decrypt(d, &plain, &[], &[]);
    assert!(r.status.success() && written, "{}", stderr(&r));

    // A genuine wrapper whose payload is no longer linked: /AFRelationship renamed, or the
    // catalog's /AF renamed (same lengths, so the file stays well-formed).
    let (wrapper, _) = encrypt(d, &minimal_pdf(), "xoodyak", "u-secret", "o-secret");
    for (from, to) in [
        (
            &b"/AFRelationship/EncryptedPayload"[..],
            &b"/AFRelationship/EncryptedPayloaX"[..],
        ),
        (b"/AF[", b"/AX["),
    ] {
        let stripped = replace_once(&wrapper, from, to);
        let r = decrypt(d, &stripped, &pw_arg, &[]);
        assert_refused(&r, &["NOT encrypted"], &String::from_utf8_lossy(to));
    }
    // The cover page tells the reader to require authentication.
    let plain_wrapper = cipherlab_pdf::Pdf::parse(&wrapper)
        .unwrap()
        .load(None)
        .unwrap();
    let cover = plain_wrapper
        .objects
        .values()
        .filter_map(|(_, o)| match o {
            cipherlab_pdf::object::Object::Stream(st) => {
                cipherlab_pdf::filters::decode(&st.dict, &st.data, "cover").ok()
            }
            _ => None,
        })
        .find(|b| b.windows(13).any(|w| w == b"pdf decrypt T"))
        .expect("the cover page's content");
    assert!(
        cover.windows(23).any(|w| w == b"--require-authenticated"),
        "the cover page does not recommend --require-authenticated"
    );
}

/// A wrapper around a payload stream that inflates to `mib` MiB of zeros.
fn payload_bomb(mib: usize) -> Vec<u8> {
    let data = cipherlab_pdf::filters::deflate(&vec![0u8; mib << 20]);
    let mut stream = format!(
        "<</Type/EmbeddedFile/Filter/FlateDecode/Length {}>>\nstream\n",
        data.len()
    )
    .into_bytes();
    stream.extend_from_slice(&data);
    stream.extend_from_slice(b"\nendstream");
    // classic_file takes text; the stream goes in by replacing a placeholder.
    let f = classic_file(
        &[
            "<</Type/Catalog/Pages 2 0 R/AF[4 0 R]>>",
            "<</Type/Pages/Kids[3 0 R]/Count 1>>",
            "<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]>>",
            "<</Type/Filespec/UF(encrypted-payload.pdf)/AFRelationship/EncryptedPayload\
             /EP<</Type/EncryptedPayload/Subtype/CipherlabAEAD/Version/2>>/EF<</F 5 0 R>>>>",
            "PLACEHOLDER",
        ],
        "",
    );
    // The stream replaces the placeholder; the xref offsets of objects 1-5 stay right
    // because it is the last object, and the xref table moves: the reader repairs the
    // startxref offset, which is not what is tested here.
    replace_once(&f, b"PLACEHOLDER", &stream)
}

#[test]
fn the_wrappers_payload_is_decoded_within_max_stream_mib() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bomb = payload_bomb(24);
    let f = put(d, "bomb.pdf", &bomb);
    for cmd in ["info", "decrypt"] {
        let mut args = vec!["pdf", cmd, s(&f), "--max-stream-mib", "16"];
        if cmd == "decrypt" {
            args.extend(["-o", "unused.pdf"]);
        }
        let r = cl(&args);
        assert_eq!(r.status.code(), Some(8), "{cmd}: {}", stderr(&r));
        assert!(
            stderr(&r).contains("--max-stream-mib"),
            "{cmd}: {}",
            stderr(&r)
        );
    }
    // Raised, the limit is the user's: the payload is decoded (and then found not to be a
    // PDF), not cut at a fixed size.
    let r = cl(&["pdf", "info", s(&f), "--max-stream-mib", "32"]);
    assert_ne!(r.status.code(), Some(8), "{}", stderr(&r));
    assert!(!stderr(&r).contains("--max-stream-mib"), "{}", stderr(&r));
}

#[test]
fn plaintext_and_javascript_in_a_standard_file_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (genuine, _) = encrypt(d, &minimal_pdf(), "aes-256", "u-secret", "o-secret");
    // An incremental update without the password: a plaintext catalog whose /OpenAction
    // runs JavaScript kept in a stream under the Identity crypt filter.
    let js = b"app.alert(1)";
    let stream = [
        format!(
            "<</Length {}/Filter[/Crypt]/DecodeParms[<</Name/Identity>>]>>\nstream\n",
            js.len()
        )
        .into_bytes(),
        js.to_vec(),
        b"\nendstream".to_vec(),
    ]
    .concat();
    let attack = append_update(
        &genuine,
        &[
            (1, b"<</Type/Catalog/Pages 2 0 R/OpenAction 20 0 R>>"),
            (20, b"<</S/JavaScript/JS 21 0 R>>"),
            (21, &stream),
        ],
        |t| t,
    );
    let (r, written) = decrypt(d, &attack, &["--password", "u-secret"], &[]);
    let e = stderr(&r);
    assert!(r.status.success() && written, "{e}");
    assert!(
        e.contains("NOT ENCRYPTED: object 21 0 stored in the clear"),
        "{e}"
    );
    assert!(
        e.contains("JavaScript actions (objects 20 0, 21 0; object 21 0 came IN THE CLEAR)")
            && e.contains("/OpenAction"),
        "{e}"
    );
    let r = decrypt(
        d,
        &attack,
        &["--password", "u-secret", "--require-authenticated"],
        &[],
    );
    assert_refused(&r, &["not authenticated"], "--require-authenticated");
    // The genuine file has neither warning.
    let (r, _) = decrypt(d, &genuine, &["--password", "u-secret"], &[]);
    let e = stderr(&r);
    assert!(
        !e.contains("NOT ENCRYPTED") && !e.contains("JavaScript"),
        "{e}"
    );
}

#[test]
fn secrets_on_the_command_line_are_called_out_and_bad_characters_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let f = put(d, "plain.pdf", &minimal_pdf());
    let r = cl(&["pdf", "info", s(&f), "--password", "p"]);
    assert!(
        stderr(&r).contains("--password on the command line"),
        "{}",
        stderr(&r)
    );
    let out = d.join("raw.bin");
    let r = cl(&[
        "encrypt",
        "--raw",
        "--cipher",
        "aes-128-cbc",
        "--key",
        "000102030405060708090a0b0c0d0e0f",
        "--iv",
        "000102030405060708090a0b0c0d0e0f",
        s(&f),
        "-o",
        s(&out),
    ]);
    assert!(r.status.success(), "{}", stderr(&r));
    assert!(
        stderr(&r).contains("--key on the command line"),
        "{}",
        stderr(&r)
    );

    // A control character in a new password: refused, and not printed raw.
    let u = put(d, "u.txt", b"a\x07b\n");
    let o = put(d, "o.txt", b"owner\n");
    let r = cl(&[
        "pdf",
        "encrypt",
        s(&f),
        "-o",
        s(&d.join("x.pdf")),
        "--user-password-file",
        s(&u),
        "--owner-password-file",
        s(&o),
    ]);
    let e = stderr(&r);
    assert_eq!(r.status.code(), Some(2), "{e}");
    assert!(!e.contains('\x07') && e.contains("\\u{7}"), "{e:?}");
}
