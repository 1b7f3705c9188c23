//! Built-in files (made once with qpdf 11.3 from a one-page PDF: content "Hello from
//! cipherlab", /Info /Title "Secret title"; passwords user/owner) decrypted by the library,
//! and the fuzz corpus replayed. These run without ../shared/pdf or any tool.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use cipherlab_pdf::object::Object;
use cipherlab_pdf::{Error, Pdf};

const FILES: &[(&str, i64, &str)] = &[
    ("r2-rc4-40.pdf", 2, "user"),
    ("r3-rc4-128.pdf", 3, "user"),
    ("r4-aes-128.pdf", 4, "user"),
    ("r5-aes-256.pdf", 5, "user"),
    ("r6-aes-256.pdf", 6, "user"),
    ("r6-aes-256-emptyuser.pdf", 6, ""),
];

fn data(name: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(name),
    )
    .unwrap()
}

/// The page's content stream and the /Info title of a loaded document.
fn content_and_title(doc: &cipherlab_pdf::Document) -> (Vec<u8>, Vec<u8>) {
    let get = |o: &Object| match o {
        Object::Ref(n, _) => doc.objects[n].1.clone(),
        other => other.clone(),
    };
    let dict = |o: Object, k: &[u8]| o.dict().unwrap().get(k).unwrap().clone();
    let root = get(doc.trailer.get(b"Root").unwrap());
    let pages = get(&dict(root, b"Pages"));
    let Object::Array(kids) = get(&dict(pages, b"Kids")) else {
        panic!("kids")
    };
    let page = get(&kids[0]);
    let Object::Stream(s) = get(&dict(page, b"Contents")) else {
        panic!("contents")
    };
    let info = get(doc.trailer.get(b"Info").unwrap());
    let title = dict(info, b"Title").as_str().unwrap().to_vec();
    (s.data.clone(), title)
}

#[test]
fn builtin_files_decrypt_with_user_and_owner_password() {
    let mut n = 0;
    for &(name, r, user) in FILES {
        let b = data(name);
        let pdf = Pdf::parse(&b).unwrap();
        assert_eq!(pdf.encrypt_dict().unwrap().unwrap().r, r, "{name}");
        for (pw, owner) in [(user, false), ("owner", true)] {
            let (h, auth) = pdf.authenticate(Some(pw)).unwrap().unwrap();
            assert_eq!(auth.owner, owner, "{name} {pw}");
            if !owner {
                assert!(auth.user, "{name}");
            }
            if r <= 4 && owner {
                assert_eq!(
                    auth.recovered_user_password.as_deref().map(|p| &p[..]),
                    Some(user.as_bytes()),
                    "{name}"
                );
            }
            if r == 6 {
                assert_eq!(auth.perms_ok, Some(true), "{name}");
            }
            let doc = pdf.load(Some(&h)).unwrap();
            let (content, title) = content_and_title(&doc);
            assert_eq!(
                content, b"BT /F1 24 Tf 72 700 Td (Hello from cipherlab) Tj ET",
                "{name}"
            );
            assert_eq!(title, b"Secret title", "{name}");
            // The written file reads back, unencrypted, with the same content.
            let out = cipherlab_pdf::decrypt(&b, Some(pw)).unwrap();
            let again = Pdf::parse(&out.bytes).unwrap();
            assert!(again.encrypt_dict().unwrap().is_none());
            let doc2 = again.load(None).unwrap();
            assert_eq!(content_and_title(&doc2), (content, title), "{name}");
            n += 1;
        }
        match pdf.authenticate(Some("wrong")) {
            Err(Error::WrongPassword(_)) => {}
            other => panic!("{name}: wrong password gave {other:?}"),
        }
        if !user.is_empty() {
            assert!(
                matches!(pdf.authenticate(None), Err(Error::PasswordRequired)),
                "{name}"
            );
        }
    }
    println!(
        "built-in: {n} decryptions of {} files (R2-R6), user and owner",
        FILES.len()
    );
}

#[test]
fn fuzz_corpus_replays_without_panic() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/pdf_info_decrypt");
    let Ok(rd) = std::fs::read_dir(&dir) else {
        println!("SKIP: {} is missing", dir.display());
        return;
    };
    let (mut n, mut opened) = (0, 0);
    for e in rd {
        let path = e.unwrap().path();
        let b = std::fs::read(&path).unwrap();
        let _ = cipherlab_pdf::info(&b, None);
        let _ = cipherlab_pdf::info(&b, Some("user"));
        if let Ok(d) =
            cipherlab_pdf::decrypt(&b, None).or_else(|_| cipherlab_pdf::decrypt(&b, Some("user")))
        {
            if let Err(e) = cipherlab_pdf::decrypt(&d.bytes, None) {
                panic!("{}: our output does not read back: {e}", path.display());
            }
            opened += 1;
        }
        n += 1;
    }
    println!("fuzz corpus: {n} inputs replayed, {opened} decrypted (and read back), 0 panics");
}

/// The `pdf_encrypt` fuzz corpus replayed as the target does: the first byte picks the
/// cipher; what encrypts must decrypt with the new password.
#[test]
fn encrypt_fuzz_corpus_replays_without_panic() {
    use cipherlab_pdf::{Cipher, LwcCipher, Options, StdCipher};
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/pdf_encrypt");
    let Ok(rd) = std::fs::read_dir(&dir) else {
        println!("SKIP: {} is missing", dir.display());
        return;
    };
    let (mut n, mut done) = (0, 0);
    for e in rd {
        let b = std::fs::read(e.unwrap().path()).unwrap();
        let Some((&pick, input)) = b.split_first() else {
            continue;
        };
        let cipher = match pick % 6 {
            0 => Cipher::Standard(StdCipher::Aes256),
            1 => Cipher::Standard(StdCipher::Aes128),
            2 => Cipher::Standard(StdCipher::Rc4_128),
            3 => Cipher::Lwc(LwcCipher::ASCON_AEAD128),
            4 => Cipher::Lwc(LwcCipher::XOODYAK),
            _ => Cipher::Lwc(LwcCipher::ISAP_A_128A),
        };
        let opts = Options {
            cipher,
            user_password: "u",
            owner_password: "o",
            permissions: -4,
            encrypt_metadata: pick & 0x80 == 0 || matches!(cipher, Cipher::Lwc(_)),
            input_password: Some("user"),
            allow_weak: true,
        };
        if let Ok(out) = cipherlab_pdf::encrypt(input, &opts) {
            let d = cipherlab_pdf::decrypt(&out.bytes, Some("u")).expect("our output decrypts");
            cipherlab_pdf::decrypt(&d.bytes, None).expect("and reads back");
            done += 1;
        }
        n += 1;
    }
    println!(
        "encrypt fuzz corpus: {n} inputs replayed, {done} encrypted and decrypted back, 0 panics"
    );
}
