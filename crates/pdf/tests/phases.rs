//! The phase API (`cipherlab_pdf::phases`) gives the same files as the one-call API: a
//! file encrypted phase by phase opens with `decrypt`, and a file decrypted phase by phase
//! has the same objects as `decrypt` gives.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use cipherlab_pdf::lwc::keys::{LwcKeys, id_bytes};
use cipherlab_pdf::object::Object;
use cipherlab_pdf::writer::{self, Layout};
use cipherlab_pdf::{Cipher, LwcCipher, Options, Pdf, StdCipher, encrypt, phases, standard};
use cipherlab_testkit::pdf::shared_dir;

fn inputs() -> Vec<(String, Vec<u8>, Option<&'static str>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut v = vec![(
        "r6-aes-256.pdf".to_string(),
        std::fs::read(dir.join("tests/data/r6-aes-256.pdf")).unwrap(),
        Some("user"),
    )];
    let Some(shared) = shared_dir() else {
        println!("SKIP: ../shared/pdf is missing; only the built-in file is used");
        return v;
    };
    for f in [
        "text-geotopo-117p-linearized.pdf",
        "form-acrobat-incremental-xrefstm.pdf",
    ] {
        v.push((f.to_string(), std::fs::read(shared.join(f)).unwrap(), None));
    }
    v
}

fn objects(doc: &cipherlab_pdf::Document) -> Vec<(u32, Object)> {
    doc.objects
        .iter()
        .map(|(n, (_, o))| (*n, o.clone()))
        .collect()
}

#[test]
fn standard_phases_match_the_one_call_api() {
    for (name, input, pw) in inputs() {
        for c in StdCipher::ALL {
            // Encrypt, phase by phase.
            let mut doc = cipherlab_pdf::open::open(&input, pw).unwrap().doc;
            let (id0, _) = cipherlab_pdf::prepare::prepare(&mut doc, c, true).unwrap();
            let new = standard::new_handler(c, "u", "o", -4, true, &id0).unwrap();
            let layout = Layout::like_input(&doc);
            let mut file = writer::pack(doc, layout);
            phases::encrypt_standard(&mut file, &new.handler).unwrap();
            phases::finish_standard(&mut file, new.dict);
            let bytes = writer::serialize(&file);
            let want = cipherlab_pdf::decrypt(&bytes, Some("u")).unwrap();
            let want = Pdf::parse(&want.bytes).unwrap().load(None).unwrap();
            // Decrypt, phase by phase.
            let (h, _) = Pdf::parse(&bytes)
                .unwrap()
                .authenticate(Some("u"))
                .unwrap()
                .unwrap();
            let mut raw = phases::read_raw(&bytes).unwrap();
            let counts = phases::decrypt_standard(&mut raw, &h).unwrap();
            assert!(counts.streams > 0, "{name} {c:?}");
            let doc = phases::expand(raw).unwrap();
            let layout = Layout::like_input(&doc);
            let again = Pdf::parse(&writer::write(doc, layout))
                .unwrap()
                .load(None)
                .unwrap();
            assert_eq!(objects(&again), objects(&want), "{name} {c:?}");
        }
    }
}

#[test]
fn lwc_phases_match_the_one_call_api() {
    for (name, input, pw) in inputs() {
        for c in [
            LwcCipher::ASCON_AEAD128,
            LwcCipher::XOODYAK,
            LwcCipher::ISAP_A_128A,
        ] {
            let w = cipherlab_pdf::encrypt(
                &input,
                &Options {
                    cipher: Cipher::Lwc(c),
                    user_password: "u",
                    owner_password: "o",
                    permissions: -4,
                    encrypt_metadata: true,
                    input_password: pw,
                    allow_weak: true,
                },
            )
            .unwrap();
            let payload = {
                let d = Pdf::parse(&w.bytes).unwrap().load(None).unwrap();
                cipherlab_pdf::wrapper::find(&d, &Default::default())
                    .unwrap()
                    .unwrap()
                    .bytes
            };
            let want = cipherlab_pdf::lwc::open::decrypt_payload(&payload, Some("u")).unwrap();
            let pdf = Pdf::parse(&payload).unwrap();
            let (d, _) = cipherlab_pdf::lwc::open::encrypt_dict(&pdf).unwrap();
            let (keys, _) = LwcKeys::open(&d, id_bytes(&pdf.xref.trailer), "u").unwrap();
            let mut raw = phases::read_raw(&payload).unwrap();
            phases::decrypt_lwc(&mut raw, &keys).unwrap();
            let doc = phases::expand(raw).unwrap();
            assert_eq!(objects(&doc), objects(&want.doc), "{name} {c:?}");
        }
    }
}

/// `encrypt` is the phases one after the other: the same calls, made one by one, give a
/// file that opens with both passwords to the document `encrypt`'s output holds, for
/// every cipher; and the phases' counts are `encrypt`'s.
#[test]
fn encrypt_is_the_phases_in_order() {
    let limits = cipherlab_pdf::Limits::default();
    let ciphers = StdCipher::ALL
        .iter()
        .map(|c| Cipher::Standard(*c))
        .chain(LwcCipher::all().map(Cipher::Lwc));
    let (name, input, pw) = inputs().swap_remove(0);
    for cipher in ciphers {
        let mut doc = phases::open(&input, pw, &limits).unwrap().doc;
        phases::prepare(&mut doc, cipher, true, &limits).unwrap();
        let keys = phases::keys(&doc, cipher, "u", "o", -4, true).unwrap();
        assert_eq!(
            keys.handler().is_some(),
            matches!(cipher, Cipher::Standard(_))
        );
        let mut file = phases::pack(doc, &keys);
        let counts = phases::encrypt(&mut file, &keys).unwrap();
        let written = phases::write(&mut file, &keys).unwrap();
        assert_eq!(
            written.payload_bytes.is_some(),
            matches!(cipher, Cipher::Lwc(_))
        );
        let one_call = encrypt(
            &input,
            &Options {
                cipher,
                user_password: "u",
                owner_password: "o",
                permissions: -4,
                encrypt_metadata: true,
                input_password: pw,
                allow_weak: true,
            },
        )
        .unwrap();
        assert_eq!(
            (counts.strings, counts.streams),
            (one_call.strings, one_call.streams),
            "{name} {cipher:?}"
        );
        let read = |bytes: &[u8], pw: &str| {
            let d = cipherlab_pdf::decrypt(bytes, Some(pw)).unwrap();
            objects(&Pdf::parse(&d.bytes).unwrap().load(None).unwrap())
        };
        let want = read(&one_call.bytes, "u");
        assert_eq!(read(&written.bytes, "u"), want, "{name} {cipher:?}");
        assert_eq!(read(&written.bytes, "o"), want, "{name} {cipher:?}");
        assert!(cipherlab_pdf::decrypt(&written.bytes, Some("wrong")).is_err());
    }
}

#[test]
fn decrypt_is_unlock_open_and_write_in_order() {
    let limits = cipherlab_pdf::Limits::default();
    let (_, input, pw) = inputs().swap_remove(0);
    let encrypted = |cipher| {
        encrypt(
            &input,
            &Options {
                cipher,
                user_password: "u",
                owner_password: "o",
                permissions: -4,
                encrypt_metadata: true,
                input_password: pw,
                allow_weak: true,
            },
        )
        .unwrap()
        .bytes
    };
    let ciphers: Vec<Cipher> = StdCipher::ALL
        .iter()
        .map(|c| Cipher::Standard(*c))
        .chain(LwcCipher::all().map(Cipher::Lwc))
        .collect();
    let files: Vec<Vec<u8>> = ciphers.iter().map(|c| encrypted(*c)).collect();
    for (cipher, file) in ciphers.iter().zip(&files) {
        let keys = phases::unlock(file, Some("u"), &limits).unwrap();
        assert_eq!(
            matches!(keys, cipherlab_pdf::Unlocked::Lwc { .. }),
            matches!(cipher, Cipher::Lwc(_)),
            "{cipher:?}"
        );
        let opened = phases::open_unlocked(file, &keys, &limits).unwrap();
        let by_phases = phases::write_plain(opened, &limits).unwrap();
        let one_call = cipherlab_pdf::decrypt(file, Some("u")).unwrap();
        assert_eq!(by_phases.bytes, one_call.bytes, "{cipher:?}");
        assert_eq!(by_phases.protection, one_call.protection, "{cipher:?}");
        // A wrong password is refused at unlocking, before any object is read.
        assert!(phases::unlock(file, Some("wrong"), &limits).is_err());
    }
    // Keys recovered from one file do not open another: an error, never garbage.
    for (i, a) in files.iter().enumerate() {
        let keys = phases::unlock(a, Some("u"), &limits).unwrap();
        for (j, b) in files.iter().enumerate() {
            if i != j {
                assert!(
                    phases::open_unlocked(b, &keys, &limits).is_err(),
                    "keys of {:?} opened a {:?} file",
                    ciphers[i],
                    ciphers[j]
                );
            }
        }
        let plain = phases::unlock(&input, pw, &limits).unwrap();
        assert!(phases::open_unlocked(a, &plain, &limits).is_err());
    }
}
