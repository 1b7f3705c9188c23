//! Authenticated lightweight-cipher PDFs (docs/pdf-lwc.md), through the library: round
//! trips for every cipher, wrong passwords, and every kind of tampering -- a flipped byte
//! in any encrypted object, ciphertext moved or swapped between objects, plaintext objects
//! slipped in, objects removed, a truncated payload -- which must give an error and never
//! a document. The built-in files run everywhere; ../shared/pdf adds real documents when
//! it is there.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::Path;

use cipherlab_pdf::lexer::indirect_object;
use cipherlab_pdf::lwc::open::decrypt_payload;
use cipherlab_pdf::object::{Dict, Object, StrForm, write_dict};
use cipherlab_pdf::xref::Entry;
use cipherlab_pdf::{Cipher, Error, LwcCipher, Options, Pdf, wrapper};
use cipherlab_testkit::pdf::{readme_rows, replace_once, shared_dir};

const U: &str = "user pw";
const O: &str = "owner pw";

fn data(name: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(name),
    )
    .unwrap()
}

/// The shared PDFs with the password that opens the encrypted ones.
fn shared_files() -> Vec<(String, Vec<u8>, Option<String>)> {
    let Some(dir) = shared_dir() else {
        println!("SKIP: ../shared/pdf is missing; only the built-in files are used");
        return Vec::new();
    };
    readme_rows(&dir)
        .into_iter()
        .map(|r| {
            let bytes = std::fs::read(dir.join(&r.file)).unwrap();
            let pw = r.open_password();
            (r.file, bytes, pw)
        })
        .collect()
}

fn encrypt(input: &[u8], pw: Option<&str>, cipher: LwcCipher) -> Vec<u8> {
    cipherlab_pdf::encrypt(
        input,
        &Options {
            cipher: Cipher::Lwc(cipher),
            user_password: U,
            owner_password: O,
            permissions: -4,
            encrypt_metadata: true,
            input_password: pw,
            allow_weak: true,
        },
    )
    .unwrap()
    .bytes
}

fn payload_of(wrapped: &[u8]) -> Vec<u8> {
    let doc = Pdf::parse(wrapped).unwrap().load(None).unwrap();
    wrapper::find(&doc, &Default::default())
        .unwrap()
        .unwrap()
        .bytes
}

/// Every object's content after decryption, for comparisons: streams by their decoded
/// data where the filters are general-purpose (the encryptor may recompress), dictionaries
/// without /Length, /Filter and /DecodeParms.
fn fingerprint(doc: &cipherlab_pdf::Document) -> Vec<(u32, String)> {
    doc.objects
        .iter()
        .map(|(n, (_, o))| {
            let s = match o {
                Object::Stream(s) => {
                    let data = cipherlab_pdf::filters::decode(&s.dict, &s.data, "t")
                        .unwrap_or_else(|_| s.data.clone());
                    let d = Dict(
                        s.dict
                            .0
                            .iter()
                            .filter(|(k, _)| {
                                !matches!(&k[..], b"Length" | b"Filter" | b"DecodeParms")
                            })
                            .cloned()
                            .collect(),
                    );
                    let mut b = Vec::new();
                    cipherlab_pdf::object::write_object(&mut b, &hexed(&Object::Dict(d)));
                    format!("{} {:x?}", String::from_utf8_lossy(&b), md5sum(&data))
                }
                other => {
                    let mut b = Vec::new();
                    cipherlab_pdf::object::write_object(&mut b, &hexed(other));
                    String::from_utf8_lossy(&b).into_owned()
                }
            };
            (*n, s)
        })
        .collect()
}

/// `o` with every string in hex form: encryption writes ciphertext as literal strings, so
/// a string's form is not kept through a round trip; its bytes are.
fn hexed(o: &Object) -> Object {
    match o {
        Object::Str(s, _) => Object::Str(s.clone(), StrForm::Hex),
        Object::Array(a) => Object::Array(a.iter().map(hexed).collect()),
        Object::Dict(d) => Object::Dict(Dict(
            d.0.iter().map(|(k, v)| (k.clone(), hexed(v))).collect(),
        )),
        other => other.clone(),
    }
}

fn md5sum(b: &[u8]) -> u64 {
    // A cheap content hash for comparisons (not security).
    b.iter().fold(0xcbf29ce484222325u64, |h, &x| {
        (h ^ u64::from(x)).wrapping_mul(0x100000001b3)
    })
}

/// The document the encryptor starts from: the input decrypted, unreachable objects
/// dropped, every generation 0.
fn reference(input: &[u8], pw: Option<&str>) -> cipherlab_pdf::Document {
    let mut doc = cipherlab_pdf::open::open(input, pw).unwrap().doc;
    cipherlab_pdf::prepare::prepare_lwc(&mut doc).unwrap();
    doc
}

/// Must fail as tampering (an object that does not authenticate, a plaintext object, a
/// manifest mismatch), not for any other reason.
fn must_be_tampered(what: &str, payload: &[u8]) {
    match decrypt_payload(payload, Some(U)) {
        Err(Error::Tampered(_)) => {}
        Ok(_) => panic!("{what}: a tampered payload was decrypted"),
        Err(e) => panic!("{what}: expected an authentication failure, got: {e}"),
    }
}

fn must_fail(what: &str, payload: &[u8]) {
    match decrypt_payload(payload, Some(U)) {
        Ok(_) => panic!("{what}: a tampered payload was decrypted"),
        Err(
            Error::Tampered(_) | Error::Damaged(_) | Error::Syntax { .. } | Error::BadEncrypt(_),
        ) => {}
        Err(e) => panic!("{what}: unexpected error kind: {e}"),
    }
}

/// (number, generation, offset of the data, data length) of every top-level stream of
/// the payload except the cross-reference stream.
fn streams(payload: &[u8]) -> Vec<(u32, u16, usize, usize)> {
    let pdf = Pdf::parse(payload).unwrap();
    let mut v = Vec::new();
    for (&n, e) in &pdf.xref.entries {
        if let Entry::Offset { offset, .. } = *e
            && !pdf.xref.xref_stream_objects.contains(&n)
            && let Ok((id, Object::Stream(s), _)) = indirect_object(payload, offset, &|_| None)
        {
            let at =
                offset + memchr_find(&payload[offset..], &s.data[..s.data.len().min(48)]).unwrap();
            v.push((id.0, id.1, at, s.data.len()));
        }
    }
    v
}

fn memchr_find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The body (`<<...>> stream ... endstream`) of object `num` in `payload`.
fn body(payload: &[u8], num: u32) -> Vec<u8> {
    let pdf = Pdf::parse(payload).unwrap();
    let Some(Entry::Offset { offset, .. }) = pdf.xref.entries.get(&num).copied() else {
        panic!("object {num}")
    };
    let (_, _, end) = indirect_object(payload, offset, &|_| None).unwrap();
    let text = &payload[offset..end];
    let start = memchr_find(text, b"obj").unwrap() + 3;
    let stop = text.len() - if text.ends_with(b"endobj") { 6 } else { 0 };
    text[start..stop].to_vec()
}

/// Appends an incremental update: `objs` (number, body) and `free` object numbers.
fn update(payload: &[u8], objs: &[(u32, Vec<u8>)], free: &[u32]) -> Vec<u8> {
    update_with(payload, objs, free, |_| {})
}

/// [`update`] whose new trailer `edit` changes.
fn update_with(
    payload: &[u8],
    objs: &[(u32, Vec<u8>)],
    free: &[u32],
    edit: impl Fn(&mut Dict),
) -> Vec<u8> {
    let pdf = Pdf::parse(payload).unwrap();
    let prev = {
        let p = payload.windows(9).rposition(|w| w == b"startxref").unwrap();
        let s = String::from_utf8_lossy(&payload[p + 9..]);
        s.split_whitespace()
            .next()
            .unwrap()
            .parse::<usize>()
            .unwrap()
    };
    let mut out = payload.to_vec();
    let mut entries = Vec::new();
    for (n, b) in objs {
        entries.push((*n, out.len(), false));
        writeln!(out, "{n} 0 obj").unwrap();
        out.extend_from_slice(b);
        out.extend_from_slice(b"\nendobj\n");
    }
    for &n in free {
        entries.push((n, 0, true));
    }
    let x = out.len();
    out.extend_from_slice(b"xref\n");
    for (n, off, f) in entries {
        write!(
            out,
            "{n} 1\n{off:010} {} {} \n",
            if f { "00001" } else { "00000" },
            if f { "f" } else { "n" }
        )
        .unwrap();
    }
    let mut t = Dict::new();
    for k in [&b"Root"[..], b"Info", b"ID", b"Encrypt"] {
        if let Some(v) = pdf.xref.trailer.get(k) {
            t.set(k, v.clone());
        }
    }
    let size = pdf.xref.entries.keys().max().unwrap() + 10;
    t.set(b"Size", Object::Int(i64::from(size)));
    t.set(b"Prev", Object::Int(prev as i64));
    edit(&mut t);
    out.extend_from_slice(b"trailer\n");
    write_dict(&mut out, &t);
    write!(out, "\nstartxref\n{x}\n%%EOF\n").unwrap();
    out
}

#[test]
fn round_trip_every_cipher_builtin() {
    let input = data("r6-aes-256.pdf");
    let want = fingerprint(&reference(&input, Some("user")));
    for c in LwcCipher::all() {
        let w = encrypt(&input, Some("user"), c);
        for pw in [U, O] {
            let d = cipherlab_pdf::decrypt(&w, Some(pw)).unwrap();
            assert_eq!(d.protection.lwc(), Some(c));
            assert_eq!(d.auth.as_ref().unwrap().owner, pw == O, "{c:?}");
            let doc = Pdf::parse(&d.bytes).unwrap().load(None).unwrap();
            assert_eq!(fingerprint(&doc), want, "{c:?} with {pw}");
        }
        assert!(matches!(
            cipherlab_pdf::decrypt(&w, Some("wrong")),
            Err(Error::WrongPassword(_))
        ));
        // The payload taken out of its wrapper opens the same way, and info says what it is.
        let payload = payload_of(&w);
        let d = cipherlab_pdf::decrypt(&payload, Some(U)).unwrap();
        let doc = Pdf::parse(&d.bytes).unwrap().load(None).unwrap();
        assert_eq!(fingerprint(&doc), want, "{c:?} bare payload");
        let i = cipherlab_pdf::info(&payload, Some(O)).unwrap();
        let wi = i.wrapper.unwrap();
        assert!(!wi.in_wrapper && wi.password.as_deref() == Some("owner"));
        assert_eq!(wi.cipher.as_deref(), Some(c.name()));
        assert!(matches!(
            cipherlab_pdf::decrypt(&w, None),
            Err(Error::PasswordRequired)
        ));
        // Re-encrypting the wrapper opens it first.
        let again = cipherlab_pdf::encrypt(
            &w,
            &Options {
                cipher: Cipher::Lwc(LwcCipher::XOODYAK),
                user_password: "x",
                owner_password: "y",
                permissions: -4,
                encrypt_metadata: true,
                input_password: Some(U),
                allow_weak: true,
            },
        )
        .unwrap();
        let d = cipherlab_pdf::decrypt(&again.bytes, Some("x")).unwrap();
        let doc = Pdf::parse(&d.bytes).unwrap().load(None).unwrap();
        assert_eq!(fingerprint(&doc), want, "{c:?} re-encrypted");
    }
    println!(
        "lwc round trip: {} ciphers, user and owner password",
        LwcCipher::all().count()
    );
}

/// Every tampering on one payload; returns how many were tried.
fn tamper_all(name: &str, payload: &[u8], every_object: bool) -> usize {
    let mut n = 0;
    let ss = streams(payload);
    assert!(!ss.is_empty(), "{name}");
    // A flipped byte in the data of each (or one) encrypted object, in its first and
    // last byte (nonce, tag) and in the middle.
    let pick: Vec<_> = if every_object {
        ss.clone()
    } else {
        vec![ss[ss.len() / 2]]
    };
    for &(num, _, at, len) in &pick {
        for i in [at, at + len / 2, at + len - 1] {
            let mut b = payload.to_vec();
            b[i] ^= 0x20;
            must_fail(&format!("{name}: byte {i} of object {num} flipped"), &b);
            n += 1;
        }
    }
    // The manifest flipped.
    let m = memchr_find(payload, b"/Manifest<").unwrap() + 12;
    let mut b = payload.to_vec();
    b[m] = if b[m] == b'0' { b'1' } else { b'0' };
    must_fail(&format!("{name}: manifest"), &b);
    n += 1;
    if ss.len() >= 2 {
        let (a, c) = (ss[0].0, ss[ss.len() - 1].0);
        let (ba, bc) = (body(payload, a), body(payload, c));
        must_be_tampered(
            &format!("{name}: object {c}'s ciphertext moved into object {a}"),
            &update(payload, &[(a, bc.clone())], &[]),
        );
        must_be_tampered(
            &format!("{name}: objects {a} and {c} swapped"),
            &update(payload, &[(a, bc), (c, ba)], &[]),
        );
        must_be_tampered(
            &format!("{name}: object {a} removed"),
            &update(payload, &[], &[a]),
        );
        n += 3;
    }
    // Plaintext objects slipped in: a new action dictionary, and a clear stream in place
    // of an encrypted one.
    let next = Pdf::parse(payload)
        .unwrap()
        .xref
        .entries
        .keys()
        .max()
        .unwrap()
        + 1;
    must_be_tampered(
        &format!("{name}: a plaintext dictionary added"),
        &update(
            payload,
            &[(
                next,
                b"<</Type/Action/S/URI/URI(http://attacker.example/)>>".to_vec(),
            )],
            &[],
        ),
    );
    must_be_tampered(
        &format!("{name}: a plaintext stream in place of object {}", ss[0].0),
        &update(
            payload,
            &[(
                ss[0].0,
                b"<</Length 26>>stream\nBT (pwned) Tj ET ..........\nendstream".to_vec(),
            )],
            &[],
        ),
    );
    n += 2;
    // Truncated anywhere before the final end-of-line (losing only that loses nothing).
    for cut in [
        payload.len() / 4,
        payload.len() / 2,
        payload.len() - 40,
        payload.len() - 3,
    ] {
        let r = decrypt_payload(&payload[..cut], Some(U));
        assert!(r.is_err(), "{name}: truncated to {cut} bytes was decrypted");
        n += 1;
    }
    n
}

#[test]
fn tampering_is_always_an_error_builtin() {
    let input = data("r6-aes-256.pdf");
    let mut n = 0;
    for c in LwcCipher::all() {
        let payload = payload_of(&encrypt(&input, Some("user"), c));
        assert!(decrypt_payload(&payload, Some(U)).is_ok());
        n += tamper_all(&format!("built-in {c:?}"), &payload, true);
    }
    println!("lwc tampering (built-in): {n} tampered payloads, every one rejected");
}

#[test]
fn every_shared_pdf_round_trips_and_resists_tampering() {
    let files = shared_files();
    let (mut n, mut t) = (0, 0);
    for (name, input, pw) in &files {
        let want = fingerprint(&reference(input, pw.as_deref()));
        for c in LwcCipher::all() {
            let w = encrypt(input, pw.as_deref(), c);
            let d = cipherlab_pdf::decrypt(&w, Some(U)).unwrap();
            let doc = Pdf::parse(&d.bytes).unwrap().load(None).unwrap();
            assert_eq!(fingerprint(&doc), want, "{name} {c:?}");
            n += 1;
            // Every object of every file with the default cipher; one per file with
            // the others.
            let payload = payload_of(&w);
            t += tamper_all(
                &format!("{name} {c:?}"),
                &payload,
                c == LwcCipher::ASCON_AEAD128,
            );
        }
    }
    println!(
        "lwc (shared PDFs): {} files x {} ciphers = {n} round trips; {t} tampered payloads, \
         every one rejected",
        files.len(),
        LwcCipher::all().count()
    );
}

fn err_of(wrapped: &[u8]) -> String {
    match cipherlab_pdf::decrypt(wrapped, Some(U)) {
        Ok(_) => panic!("decrypted"),
        Err(e) => e.to_string(),
    }
}

/// Hostile wrappers and payloads: a correct result or an error naming the problem.
#[test]
fn hostile_wrappers_and_payloads() {
    let input = data("r6-aes-256.pdf");
    let c = LwcCipher::ASCON_AEAD128;
    let w = encrypt(&input, Some("user"), c);
    let payload = payload_of(&w);
    let wrap = |p: &[u8]| wrapper::wrap(p, c).unwrap();
    let mut n = 0;
    // Another cryptographic filter in /EP: named in the error. (Edits of the wrapper keep
    // lengths, so that its cross-reference table stays right.)
    let e = err_of(&replace_once(
        &w,
        b"/Subtype/CipherlabAEAD",
        b"/Subtype/SomeoneElse12",
    ));
    assert!(e.contains("/SomeoneElse12"), "{e}");
    // No /EF, no /EP.
    let e = err_of(&replace_once(&w, b"/EF<<", b"/XX<<"));
    assert!(e.contains("/EF"), "{e}");
    let e = err_of(&replace_once(&w, b"/EP<<", b"/XP<<"));
    assert!(e.contains("/EP"), "{e}");
    n += 3;
    // Payload /Encrypt: another handler, an unknown /CFM, an indirect /CF, /Identity.
    for (from, to, words) in [
        (
            &b"/Filter/CipherlabAEAD"[..],
            &b"/Filter/Standard     "[..],
            "/CipherlabAEAD",
        ),
        (
            b"/CFM/AsconAEAD128",
            b"/CFM/AsconAEAD999",
            "/CFM /AsconAEAD999",
        ),
        (b"/StrF/AEAD", b"/StrF/Iden", "/Identity"),
    ] {
        let e = err_of(&wrap(&replace_once(&payload, from, to)));
        assert!(e.contains(words), "{}: {e}", String::from_utf8_lossy(to));
        n += 1;
    }
    // An indirect /CF (an object that does not even exist): our own format has it direct.
    let cf = b"/CF<</AEAD<</Type/CryptFilter/CFM/AsconAEAD128/AuthEvent/DocOpen>>>>";
    let mut to = b"/CF 999 0 R".to_vec();
    to.resize(cf.len(), b' '); // same length: the offsets after it stay right
    let e = err_of(&wrap(&replace_once(&payload, cf, &to)));
    assert!(e.contains("/CF"), "{e}");
    n += 1;
    // A wrong startxref: a payload is never repaired.
    let sx = payload
        .windows(10)
        .rposition(|w| w == b"startxref\n")
        .unwrap();
    let mut d = payload[..sx].to_vec();
    d.extend_from_slice(b"startxref\n17\n%%EOF\n");
    let e = err_of(&wrap(&d));
    assert!(e.contains("cross-reference"), "{e}");
    // The /ID removed from the trailer: every object is bound to it.
    let i = payload.windows(4).rposition(|w| w == b"/ID[").unwrap();
    let j = i + payload[i..].iter().position(|&b| b == b']').unwrap() + 1;
    let mut d = payload.clone();
    d[i..j].fill(b' ');
    let e = err_of(&wrap(&d));
    assert!(e.contains("authentication failed"), "{e}");
    n += 2;
    // The /Encrypt dictionary made direct in the payload's trailer: its old object is then
    // a plaintext dictionary outside the object streams, and named as such.
    let pdf = Pdf::parse(&payload).unwrap();
    let Some(Object::Ref(en, _)) = pdf.xref.trailer.get(b"Encrypt") else {
        panic!()
    };
    let Object::Dict(ed) = pdf.top_object((*en, 0)).unwrap() else {
        panic!()
    };
    let mut direct = b"/Encrypt".to_vec();
    write_dict(&mut direct, &ed);
    let d = replace_once(&payload, format!("/Encrypt {en} 0 R").as_bytes(), &direct);
    let e = err_of(&wrap(&d));
    assert!(
        e.contains(&format!("object {en} 0 is a plaintext dictionary")),
        "{e}"
    );
    n += 1;
    // The payload replaced by an unencrypted PDF, by garbage, by nothing.
    let e = err_of(&wrap(&input[..0]));
    assert!(!e.is_empty());
    let e = err_of(&wrap(
        &cipherlab_pdf::decrypt(&input, Some("user")).unwrap().bytes,
    ));
    assert!(e.contains("no /Encrypt"), "{e}");
    let e = err_of(&wrap(b"%PDF-1.7\ngarbage"));
    assert!(!e.is_empty());
    n += 3;
    println!(
        "lwc hostile wrappers and payloads: {n} cases, each a correct result or a clear error"
    );
}

/// A direct /Info dictionary an attacker appends to a payload that had none.
fn forged_info(t: &mut Dict) {
    let mut info = Dict::new();
    info.set(
        b"Title",
        Object::Str(b"Forged title".to_vec(), StrForm::Literal),
    );
    info.set(
        b"Author",
        Object::Str(b"Mallory".to_vec(), StrForm::Literal),
    );
    t.set(b"Info", Object::Dict(info));
}

/// Forgery 1 of the audit: without the password, an incremental update whose trailer
/// carries a direct /Info, on a payload that had none. Version 2 refuses it; a version-1
/// payload (written before the fix, kept as a fixture) opens without it, with a warning.
#[test]
fn forgery_unauthenticated_trailer_info() {
    let input = data("minimal-no-info.pdf");
    for c in LwcCipher::all() {
        let payload = payload_of(&encrypt(&input, None, c));
        assert!(decrypt_payload(&payload, Some(U)).is_ok());
        let forged = update_with(&payload, &[], &[], forged_info);
        must_be_tampered(&format!("{c:?}: a direct /Info appended"), &forged);
        // A reference to an object of the payload that the manifest does not name.
        let forged = update_with(&payload, &[], &[], |t| t.set(b"Info", Object::Ref(1, 0)));
        must_be_tampered(&format!("{c:?}: an /Info reference appended"), &forged);
        let forged = update_with(&payload, &[], &[], |t| t.set(b"Root", Object::Int(1)));
        must_be_tampered(&format!("{c:?}: a direct /Root"), &forged);
    }

    let v1 = payload_of(&data("v1-ascon-aead128-no-info.pdf"));
    let genuine = decrypt_payload(&v1, Some(U)).unwrap();
    assert_eq!(genuine.version, 1);
    let forged = update_with(&v1, &[], &[], forged_info);
    let opened = decrypt_payload(&forged, Some(U)).unwrap();
    assert!(
        opened.doc.trailer.get(b"Info").is_none(),
        "a version-1 payload released an unauthenticated /Info"
    );
    assert!(
        opened.doc.warnings.iter().any(|w| w.contains("/Info")),
        "{:?}",
        opened.doc.warnings
    );
    let out = cipherlab_pdf::decrypt(&forged, Some(U)).unwrap();
    assert!(!String::from_utf8_lossy(&out.bytes).contains("Mallory"));
    println!(
        "forgery 1 (direct /Info): refused for {} ciphers; dropped from a version-1 payload",
        LwcCipher::all().count()
    );
}

/// The /Encrypt dictionary of a payload.
fn encrypt_dict_of(payload: &[u8]) -> (Dict, Object) {
    let pdf = Pdf::parse(payload).unwrap();
    let id = pdf.xref.trailer.get(b"ID").unwrap().clone();
    let d = match pdf.xref.trailer.get(b"Encrypt").unwrap() {
        Object::Ref(n, g) => pdf.top_object((*n, *g)).unwrap(),
        o => o.clone(),
    };
    (d.dict().unwrap().clone(), id)
}

/// Forgery 2's file: a Standard-handler V 5 R 6 PDF made without the password, with the
/// /U /UE /O /OE /Perms and /ID of a payload, the /Identity crypt filter for strings and
/// streams, and the attacker's text in the clear.
fn standard_forgery(payload: &[u8]) -> Vec<u8> {
    let (lwc, id) = encrypt_dict_of(payload);
    let mut e = Dict::new();
    e.set(b"Filter", Object::name(b"Standard"));
    e.set(b"V", Object::Int(5));
    e.set(b"R", Object::Int(6));
    e.set(b"Length", Object::Int(256));
    let mut f = Dict::new();
    f.set(b"CFM", Object::name(b"AESV3"));
    f.set(b"AuthEvent", Object::name(b"DocOpen"));
    f.set(b"Length", Object::Int(32));
    let mut cf = Dict::new();
    cf.set(b"StdCF", Object::Dict(f));
    e.set(b"CF", Object::Dict(cf));
    e.set(b"StmF", Object::name(b"Identity"));
    e.set(b"StrF", Object::name(b"Identity"));
    for k in [&b"O"[..], b"U", b"OE", b"UE", b"Perms", b"P"] {
        e.set(k, lwc.get(k).unwrap().clone());
    }
    let content = b"BT /F1 24 Tf 72 700 Td (Pay Mallory) Tj ET";
    let objs: Vec<Vec<u8>> = vec![
        b"<</Type/Catalog/Pages 2 0 R>>".to_vec(),
        b"<</Type/Pages/Kids[3 0 R]/Count 1>>".to_vec(),
        b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Contents 4 0 R/Resources<</Font<</F1<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>>>>>>>".to_vec(),
        [
            format!("<</Length {}>>stream\n", content.len()).as_bytes(),
            content,
            b"\nendstream",
        ]
        .concat(),
        {
            let mut b = Vec::new();
            write_dict(&mut b, &e);
            b
        },
    ];
    let mut out = b"%PDF-1.7\n".to_vec();
    let mut offs = Vec::new();
    for (i, o) in objs.iter().enumerate() {
        offs.push(out.len());
        writeln!(out, "{} 0 obj", i + 1).unwrap();
        out.extend_from_slice(o);
        out.extend_from_slice(b"\nendobj\n");
    }
    let x = out.len();
    write!(out, "xref\n0 {}\n0000000000 65535 f \n", objs.len() + 1).unwrap();
    for o in offs {
        writeln!(out, "{o:010} 00000 n ").unwrap();
    }
    let mut t = Dict::new();
    t.set(b"Size", Object::Int(objs.len() as i64 + 1));
    t.set(b"Root", Object::Ref(1, 0));
    t.set(b"Encrypt", Object::Ref(objs.len() as u32, 0));
    t.set(b"ID", id);
    out.extend_from_slice(b"trailer\n");
    write_dict(&mut out, &t);
    write!(out, "\nstartxref\n{x}\n%%EOF\n").unwrap();
    out
}

/// Forgery 2 of the audit: the payload's password entries copied into a Standard-handler
/// file of the attacker's making. From version 2 on they open nothing there; a version-1
/// payload's still do, and then decryption says loudly that the file is neither
/// authenticated nor even encrypted.
#[test]
fn forgery_standard_handler_downgrade() {
    let input = data("minimal-no-info.pdf");
    for c in LwcCipher::all() {
        let forged = standard_forgery(&payload_of(&encrypt(&input, None, c)));
        for pw in [U, O] {
            match cipherlab_pdf::decrypt(&forged, Some(pw)) {
                Err(Error::WrongPassword(_)) => {}
                Ok(d) => {
                    panic!("{c:?}: the victim's password opened a forged Standard file: {d:?}")
                }
                Err(e) => panic!("{c:?}: expected a wrong password, got {e}"),
            }
        }
    }

    let forged = standard_forgery(&payload_of(&data("v1-ascon-aead128-no-info.pdf")));
    let d = cipherlab_pdf::decrypt(&forged, Some(U)).unwrap();
    assert!(!d.protection.authenticated());
    assert!(matches!(
        &d.protection,
        cipherlab_pdf::Protection::Standard { revision: 6, plaintext } if plaintext.contains(&"strings") && plaintext.contains(&"streams")
    ));
    assert!(
        d.warnings.iter().any(|w| w.starts_with("NOT ENCRYPTED")),
        "{:?}",
        d.warnings
    );
    println!(
        "forgery 2 (Standard downgrade): refused for {} ciphers; a version-1 payload's entries \
         open it, reported as not authenticated and not encrypted",
        LwcCipher::all().count()
    );
}

/// A version-1 payload (written before version 2) still opens, says it is version 1, and
/// gives the original document.
#[test]
fn version_1_payloads_still_open() {
    let w = data("v1-ascon-aead128-no-info.pdf");
    let d = cipherlab_pdf::decrypt(&w, Some(O)).unwrap();
    assert_eq!(
        d.protection,
        cipherlab_pdf::Protection::Authenticated {
            cipher: LwcCipher::ASCON_AEAD128,
            version: 1
        }
    );
    assert!(d.warnings.iter().any(|w| w.contains("before version 2")));
    let doc = Pdf::parse(&d.bytes).unwrap().load(None).unwrap();
    let want = reference(&data("minimal-no-info.pdf"), None);
    assert_eq!(fingerprint(&doc), fingerprint(&want));
    assert!(matches!(
        cipherlab_pdf::decrypt(&w, Some("wrong")),
        Err(Error::WrongPassword(_))
    ));
}

/// A version-2 payload (written before version 3) still opens, says its header version is
/// not authenticated, and gives the original document.
#[test]
fn version_2_payloads_still_open() {
    let w = data("v2-xoodyak-no-info.pdf");
    let d = cipherlab_pdf::decrypt(&w, Some(U)).unwrap();
    assert_eq!(
        d.protection,
        cipherlab_pdf::Protection::Authenticated {
            cipher: LwcCipher::XOODYAK,
            version: 2
        }
    );
    assert!(
        d.warnings
            .iter()
            .any(|w| w.contains("does not authenticate its %PDF-"))
    );
    let doc = Pdf::parse(&d.bytes).unwrap().load(None).unwrap();
    let want = reference(&data("minimal-no-info.pdf"), None);
    assert_eq!(fingerprint(&doc), fingerprint(&want));
}

/// Version 3 binds the payload's `%PDF-x.y` header: an edited header is tampering.
#[test]
fn forgery_payload_header_version() {
    let w = encrypt(&data("minimal-no-info.pdf"), None, LwcCipher::ASCON_AEAD128);
    let payload = payload_of(&w);
    let d = cipherlab_pdf::decrypt(&w, Some(U)).unwrap();
    assert!(d.protection.authenticated());
    let header = &payload[..8];
    assert!(header.starts_with(b"%PDF-"), "{header:?}");
    for forged in [&b"%PDF-2.0"[..], b"%PDF-9.9", b"%PDF-1.0"] {
        if forged == header {
            continue;
        }
        let mut p = payload.clone();
        p[..8].copy_from_slice(forged);
        match decrypt_payload(&p, Some(U)) {
            Err(Error::Tampered(m)) => assert!(m.contains("header"), "{m}"),
            other => panic!(
                "{}: {:?}",
                String::from_utf8_lossy(forged),
                other.map(|o| o.doc.version)
            ),
        }
        // The same edit inside the wrapper.
        let wf = replace_once(&w, header, forged);
        assert!(matches!(
            cipherlab_pdf::decrypt(&wf, Some(U)),
            Err(Error::Tampered(_))
        ));
    }
}

/// Version 3 gives the payload a fresh /ID: the document's permanent /ID is not in the
/// encrypted file, and decryption gives it back.
#[test]
fn the_payload_does_not_carry_the_documents_id() {
    let id = b"permanent-id-0123";
    let input = cipherlab_testkit::pdf::classic_file(
        &[
            "<</Type/Catalog/Pages 2 0 R>>",
            "<</Type/Pages/Kids[3 0 R]/Count 1>>",
            "<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]>>",
        ],
        "/ID[(permanent-id-0123)(permanent-id-0123)]",
    );
    let w = encrypt(&input, None, LwcCipher::XOODYAK);
    let hex: String = id.iter().map(|b| format!("{b:02x}")).collect();
    for needle in [&id[..], hex.as_bytes(), hex.to_uppercase().as_bytes()] {
        assert!(
            !w.windows(needle.len()).any(|x| x == needle),
            "the encrypted file shows the document's /ID"
        );
    }
    let d = cipherlab_pdf::decrypt(&w, Some(U)).unwrap();
    let out = Pdf::parse(&d.bytes).unwrap();
    match out.xref.trailer.get(b"ID") {
        Some(Object::Array(a)) => assert_eq!(a[0].as_str(), Some(&id[..])),
        other => panic!("/ID {other:?}"),
    }
}
