//! AES-GCM known answers: the NIST CAVP `gcmEncryptExtIV*` and `gcmDecrypt*` files
//! (each parsed once), through every provider of the catalogue that supports the spec.
//!
//! The catalogue's AES-GCM takes a 12-byte nonce and a 16-byte tag (appended). So:
//! * records with a 96-bit IV and a 128-bit tag are checked in full: encryption gives
//!   `CT || Tag`, decryption gives `PT`, a flipped tag bit is rejected with the buffer
//!   wiped, and every `FAIL` record is rejected with `Error::Authentication` and the
//!   buffer wiped;
//! * valid records with a 96-bit IV and a truncated tag are checked by encryption (the
//!   ciphertext, and the tag as a prefix of the full tag);
//! * `FAIL` records with a 96-bit IV and a truncated tag (which the API cannot take)
//!   have their plaintext recovered through the catalogue's CTR mode; encryption must
//!   give the ciphertext back and a tag that does not start with the given one;
//! * records with other IV lengths are skipped, counted and printed.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use cipherlab_ciphers::{Cipher, CipherSpec, Error, Padding};
use common::{Ctx, Record, Totals, dec, each_provider, enc, kat_dir, run_file, same, spec};

/// FAIL records per decrypt file (../shared/kat/README.md).
const FAILS: [(usize, usize); 3] = [(128, 4011), (192, 3978), (256, 3919)];

/// Decrypting `ct_tag` must fail authentication and leave the buffer all zeros.
fn must_reject(
    id: &str,
    what: &str,
    c: &mut dyn Cipher,
    iv: &[u8],
    aad: &[u8],
    ct_tag: &[u8],
) -> Result<(), String> {
    let mut buf = ct_tag.to_vec();
    match c.decrypt(iv, aad, &mut buf) {
        Err(Error::Authentication) if buf.iter().all(|&b| b == 0) => Ok(()),
        Err(Error::Authentication) => Err(format!(
            "{id}: {what}: rejected but the buffer was not wiped: {}",
            hex::encode(&buf)
        )),
        other => Err(format!(
            "{id}: {what}: expected Error::Authentication, got {other:?}"
        )),
    }
}

/// GCM's plaintext for `ct` under `key` and a 96-bit `iv`, through the catalogue's
/// `aes-<bits>-ctr` (whole-block big-endian counter) started at `iv || 00000002`.
fn ctr_plaintext(gcm: &CipherSpec, key: &[u8], iv: &[u8], ct: &[u8]) -> Result<Vec<u8>, String> {
    let s = spec(&format!("aes-{}-ctr", gcm.key_bits), Padding::None);
    let mut c = cipherlab_ciphers::providers::init(&s, key, None).map_err(|e| e.to_string())?;
    let mut j0 = iv.to_vec();
    j0.extend_from_slice(&[0, 0, 0, 2]);
    dec(c.as_mut(), &j0, &[], ct).map_err(|e| e.to_string())
}

/// One GCM record (encrypt or decrypt file).
fn check_record(s: &CipherSpec, rec: &Record, ctx: &mut Ctx) -> Result<(), String> {
    let id = rec.id();
    let key = rec.hex("Key")?;
    let iv = rec.hex("IV")?;
    let aad = rec.hex("AAD")?;
    let ct = rec.hex("CT")?;
    let tag = rec.hex("Tag")?;
    let fail = rec.has("FAIL");
    let pt = rec.opt_hex("PT")?;
    // The headers must describe the record (a check on the parser and the file).
    let lens = [
        ("Keylen", key.len()),
        ("IVlen", iv.len()),
        ("AADlen", aad.len()),
        ("Taglen", tag.len()),
        ("PTlen", ct.len()),
    ];
    for (p, bytes) in lens {
        if rec.param(p)? != bytes * 8 {
            return Err(format!(
                "{id}: [{p}] does not match the record ({bytes} bytes)"
            ));
        }
    }
    if fail {
        ctx.note("FAIL");
    }
    let pt = match (fail, pt) {
        (true, None) => None,
        (false, Some(pt)) if pt.len() == ct.len() => Some(pt),
        _ => return Err(format!("{id}: needs either FAIL or a PT as long as CT")),
    };
    if iv.len() != 12 {
        ctx.skip(format!("IV {} bits", iv.len() * 8));
        return Ok(());
    }
    let full_tag = tag.len() == 16;
    // A FAIL record with a truncated tag cannot be fed to decrypt; its plaintext is
    // recovered with the catalogue's CTR mode (GCM's keystream starts at IV || 2), and
    // encryption must then give a full tag that does not start with the given one.
    let pt = match pt {
        None if !full_tag => {
            Some(ctr_plaintext(s, &key, &iv, &ct).map_err(|e| format!("{id}: {e}"))?)
        }
        pt => pt,
    };
    let mut ct_tag = ct.clone();
    ct_tag.extend_from_slice(&tag);
    each_provider(&id, s, &key, ctx, |_, c| {
        let Some(pt) = &pt else {
            return must_reject(&id, "FAIL record", c, &iv, &aad, &ct_tag);
        };
        let out = enc(c, &iv, &aad, pt).map_err(|e| format!("{id}: encrypt: {e}"))?;
        same(&id, "ciphertext", &out[..ct.len()], &ct)?;
        let got_tag = &out[ct.len()..ct.len() + tag.len()];
        if fail {
            return if got_tag == tag.as_slice() {
                Err(format!("{id}: FAIL record, but its truncated tag matches"))
            } else {
                Ok(())
            };
        }
        same(&id, "tag", got_tag, &tag)?;
        if !full_tag {
            return Ok(());
        }
        let got = dec(c, &iv, &aad, &ct_tag).map_err(|e| format!("{id}: decrypt: {e}"))?;
        same(&id, "decrypt", &got, pt)?;
        let mut bad = ct_tag.clone();
        if let Some(last) = bad.last_mut() {
            *last ^= 1;
        }
        must_reject(&id, "flipped tag bit", c, &iv, &aad, &bad)
    })?;
    match (fail, full_tag) {
        (true, true) => ctx.note("FAIL rejected"),
        (true, false) => ctx.note("FAIL truncated tag differs"),
        (false, true) => ctx.note("full"),
        (false, false) => ctx.note("truncated tag checked by encryption"),
    }
    Ok(())
}

fn gcm_files(kind: &str) {
    let Some(kat) = kat_dir() else { return };
    let mut totals = Totals::default();
    for (bits, fails) in FAILS {
        let rel = format!("aes/gcm/{kind}{bits}.rsp");
        let s = spec(&format!("aes-{bits}-gcm"), Padding::None);
        let r = run_file(&kat, &rel, Some(7875), |rec, ctx| {
            check_record(&s, rec, ctx)
        });
        let got_fails = r.ctx.notes.get("FAIL").copied().unwrap_or(0);
        let want_fails = if kind == "gcmDecrypt" { fails } else { 0 };
        assert_eq!(got_fails, want_fails, "{rel}: FAIL records");
        totals.add(&r);
    }
    totals.print(kind);
}

#[test]
fn gcm_encrypt() {
    gcm_files("gcmEncryptExtIV");
}

#[test]
fn gcm_decrypt() {
    gcm_files("gcmDecrypt");
}

/// McGrew and Viega's GCM specification, test cases 1, 2, 4 (AES-128), 13 and 14
/// (AES-256); written into the source so they run without the KAT folder. Columns: name,
/// key, IV, plaintext, AAD, ciphertext || tag.
const BUILTIN: [[&str; 6]; 5] = [
    [
        "aes-128-gcm",
        "00000000000000000000000000000000",
        "000000000000000000000000",
        "",
        "",
        "58e2fccefa7e3061367f1d57a4e7455a",
    ],
    [
        "aes-128-gcm",
        "00000000000000000000000000000000",
        "000000000000000000000000",
        "00000000000000000000000000000000",
        "",
        "0388dace60b6a392f328c2b971b2fe78ab6e47d42cec13bdf53a67b21257bddf",
    ],
    [
        "aes-128-gcm",
        "feffe9928665731c6d6a8f9467308308",
        "cafebabefacedbaddecaf888",
        "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39",
        "feedfacedeadbeeffeedfacedeadbeefabaddad2",
        "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e0915bc94fbc3221a5db94fae95ae7121a47",
    ],
    [
        "aes-256-gcm",
        "0000000000000000000000000000000000000000000000000000000000000000",
        "000000000000000000000000",
        "",
        "",
        "530f8afbc74536b9a963b4f1c4cb738b",
    ],
    [
        "aes-256-gcm",
        "0000000000000000000000000000000000000000000000000000000000000000",
        "000000000000000000000000",
        "00000000000000000000000000000000",
        "",
        "cea7403d4d606b6e074ec5d3baf39d18d0d1c8a799996bf0265b98b5d48ab919",
    ],
];

#[test]
fn builtin_vectors() {
    let h = |s: &str| hex::decode(s).unwrap();
    let mut ctx = Ctx::default();
    for [name, key, iv, pt, aad, ct] in BUILTIN {
        let s = spec(name, Padding::None);
        let (pt, aad, ct) = (h(pt), h(aad), h(ct));
        each_provider(name, &s, &h(key), &mut ctx, |_, c| {
            same(name, "encrypt", &enc(c, &h(iv), &aad, &pt).unwrap(), &ct)?;
            same(name, "decrypt", &dec(c, &h(iv), &aad, &ct).unwrap(), &pt)?;
            let mut bad = ct.clone();
            bad[0] ^= 0x80;
            must_reject(name, "flipped bit", c, &h(iv), &aad, &bad)?;
            // Wrong AAD, and a buffer shorter than a tag, are rejected too.
            must_reject(name, "other AAD", c, &h(iv), b"x", &ct)?;
            must_reject(name, "short", c, &h(iv), &aad, &ct[..15])
        })
        .unwrap();
    }
    println!("built-in GCM vectors: {:?}", ctx.runs);
}
