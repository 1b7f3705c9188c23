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

use cipherlab_ciphers::{CipherSpec, Padding};
use cipherlab_testkit::{Ctx, Record, Totals, kat_dir, run_file, same};
use common::{data_dir, dec, each_provider, enc, must_reject, named_spec, spec};

/// FAIL records per decrypt file (../shared/kat/README.md).
const FAILS: [(usize, usize); 3] = [(128, 4011), (192, 3978), (256, 3919)];

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
        let got_fails = r.ctx.noted("FAIL");
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

/// McGrew and Viega's test cases in `tests/data/gcm.txt`, which run without the KAT
/// folder: encryption, decryption, and rejection of a flipped bit, other associated data
/// and a message shorter than a tag.
#[test]
fn builtin_vectors() {
    run_file(&data_dir(), "gcm.txt", None, |rec, ctx| {
        let id = rec.id();
        rec.decrypting()?;
        let s = named_spec(rec)?;
        let (iv, aad, pt) = (rec.hex("IV")?, rec.hex("AAD")?, rec.hex("PT")?);
        let mut ct = rec.hex("CT")?;
        ct.extend_from_slice(&rec.hex("Tag")?);
        each_provider(&id, &s, &rec.hex("Key")?, ctx, |_, c| {
            let got = enc(c, &iv, &aad, &pt).map_err(|e| format!("{id}: encrypt: {e}"))?;
            same(&id, "encrypt", &got, &ct)?;
            let got = dec(c, &iv, &aad, &ct).map_err(|e| format!("{id}: decrypt: {e}"))?;
            same(&id, "decrypt", &got, &pt)?;
            let mut bad = ct.clone();
            bad[0] ^= 0x80;
            must_reject(&id, "flipped bit", c, &iv, &aad, &bad)?;
            must_reject(&id, "other AAD", c, &iv, b"x", &ct)?;
            must_reject(&id, "short", c, &iv, &aad, &ct[..15])
        })
    });
}
