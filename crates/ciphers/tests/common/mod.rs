//! The catalogue side of the known-answer tests: the helpers that push a vector through
//! every provider of the catalogue that supports it. Finding, parsing and running the
//! vector files is `cipherlab-testkit`'s.

#![allow(dead_code)] // each test binary uses a different part of this module
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use cipherlab_ciphers::providers::{self, supporting};
use cipherlab_ciphers::{Cipher, CipherSpec, Error, Padding};
use cipherlab_testkit::{Ctx, FileReport, Record, run_file, same};

/// This crate's own vector files (`tests/data`): vectors printed in the specifications,
/// each file naming its sources.
pub fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

// ---------------------------------------------------------------------------
// the catalogue

/// The spec called `name`, with `padding`.
pub fn spec(name: &str, padding: Padding) -> CipherSpec {
    match CipherSpec::parse(name) {
        Ok(s) => s.with_padding(padding),
        Err(e) => panic!("the catalogue has no {name}: {e}"),
    }
}

/// Whether `spec` is a size the catalogue itself offers (tests build others, such as
/// 8-bit Blowfish keys, to reach vectors outside it).
pub fn in_catalogue(spec: &CipherSpec) -> bool {
    spec.algorithm.key_bits.accepts(spec.key_bits)
}

/// Encrypts `pt` with a ready cipher; returns the output.
pub fn enc(c: &mut dyn Cipher, iv: &[u8], ad: &[u8], pt: &[u8]) -> Result<Vec<u8>, Error> {
    let mut buf = pt.to_vec();
    buf.resize(c.spec().output_len(pt.len()).max(pt.len()), 0);
    let n = c.encrypt(iv, ad, &mut buf, pt.len())?;
    buf.truncate(n);
    Ok(buf)
}

/// Decrypts `ct` with a ready cipher; returns the plaintext.
pub fn dec(c: &mut dyn Cipher, iv: &[u8], ad: &[u8], ct: &[u8]) -> Result<Vec<u8>, Error> {
    let mut buf = ct.to_vec();
    let n = c.decrypt(iv, ad, &mut buf)?;
    buf.truncate(n);
    Ok(buf)
}

/// Runs `f` with a cipher keyed with `key` from every provider that supports `spec`
/// (so a provider added to the registry is tested without touching the tests), and
/// counts each in `ctx`. A provider may refuse a key size outside the catalogue (noted);
/// inside it, a refusal is a failure. At least one provider must run.
pub fn each_provider(
    id: &str,
    spec: &CipherSpec,
    key: &[u8],
    ctx: &mut Ctx,
    mut f: impl FnMut(&str, &mut dyn Cipher) -> Result<(), String>,
) -> Result<(), String> {
    let names = supporting(spec);
    if names.is_empty() {
        return Err(format!("{id}: no provider supports {spec}"));
    }
    let mut ran = 0;
    for name in names {
        let mut c = match providers::init(spec, key, Some(name)) {
            Ok(c) => c,
            Err(_) if !in_catalogue(spec) => {
                ctx.note(&format!("{name} refused {}-bit key", spec.key_bits));
                continue;
            }
            Err(e) => return Err(format!("{id}: {name} {spec}: init: {e}")),
        };
        f(name, c.as_mut()).map_err(|e| format!("{e} [{name} {spec}]"))?;
        ctx.ran(name);
        ran += 1;
    }
    if ran == 0 {
        return Err(format!("{id}: every provider refused {spec}"));
    }
    Ok(())
}

/// Decrypting `ct_tag` (an AEAD's ciphertext || tag) must fail authentication and leave the buffer all zeros.
pub fn must_reject(
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

/// The usual check of an unauthenticated vector: with each provider, encrypting `pt`
/// gives `ct`, decrypting `ct` gives `pt`, and encrypting again on the same instance
/// gives `ct` again (no state leaks from one message to the next).
pub fn check_vector(
    id: &str,
    spec: &CipherSpec,
    key: &[u8],
    iv: &[u8],
    pt: &[u8],
    ct: &[u8],
    ctx: &mut Ctx,
) -> Result<(), String> {
    each_provider(id, spec, key, ctx, |_, c| {
        let got = enc(c, iv, &[], pt).map_err(|e| format!("{id}: encrypt: {e}"))?;
        same(id, "encrypt", &got, ct)?;
        let got = dec(c, iv, &[], ct).map_err(|e| format!("{id}: decrypt: {e}"))?;
        same(id, "decrypt", &got, pt)?;
        let got = enc(c, iv, &[], pt).map_err(|e| format!("{id}: encrypt again: {e}"))?;
        same(id, "encrypt again", &got, ct)
    })
}

// ---------------------------------------------------------------------------
// CFB1 bit strings

/// Packs bits (one 0/1 per element, most significant first) into bytes, zero-filling
/// the last byte.
pub fn pack_bits(bits: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8; bits.len().div_ceil(8)];
    for (i, b) in bits.iter().enumerate() {
        out[i / 8] |= (b & 1) << (7 - i % 8);
    }
    out
}

/// The first `n` bits of `bytes`, one per element.
pub fn unpack_bits(bytes: &[u8], n: usize) -> Vec<u8> {
    (0..n).map(|i| (bytes[i / 8] >> (7 - i % 8)) & 1).collect()
}

/// A CFB1 vector through the catalogue's `-cfb1` mode of every provider. CFB1 output
/// bit i depends only on input bits 0..=i, so a bit string that is not whole bytes is
/// zero-filled to whole bytes, run, and the first bits compared.
pub fn check_cfb1_catalogue(
    id: &str,
    spec: &CipherSpec,
    key: &[u8],
    iv: &[u8],
    pt_bits: &[u8],
    ct_bits: &[u8],
    ctx: &mut Ctx,
) -> Result<(), String> {
    let n = pt_bits.len();
    if n.is_multiple_of(8) {
        return check_vector(
            id,
            spec,
            key,
            iv,
            &pack_bits(pt_bits),
            &pack_bits(ct_bits),
            ctx,
        );
    }
    each_provider(id, spec, key, ctx, |_, c| {
        let got = enc(c, iv, &[], &pack_bits(pt_bits)).map_err(|e| format!("{id}: {e}"))?;
        same(id, "encrypt (bits)", &unpack_bits(&got, n), ct_bits)?;
        let got = dec(c, iv, &[], &pack_bits(ct_bits)).map_err(|e| format!("{id}: {e}"))?;
        same(id, "decrypt (bits)", &unpack_bits(&got, n), pt_bits)
    })
}

/// A CFB1 vector through `providers::cfb1::{encrypt_bits, decrypt_bits}` on the
/// key-scheduled RustCrypto cipher `C` (any bit length). Counted as `cfb1-bits`.
pub fn check_cfb1_bits<C>(
    id: &str,
    key: &[u8],
    iv: &[u8],
    pt_bits: &[u8],
    ct_bits: &[u8],
    ctx: &mut Ctx,
) -> Result<(), String>
where
    C: cipher::KeyInit + cipher::BlockCipherEncrypt,
{
    use cipherlab_ciphers::providers::cfb1::{decrypt_bits, encrypt_bits};
    let c = C::new_from_slice(key).map_err(|e| format!("{id}: key rejected: {e}"))?;
    let mut b = pt_bits.to_vec();
    encrypt_bits(&c, iv, &mut b).map_err(|e| format!("{id}: {e}"))?;
    same(id, "cfb1::encrypt_bits", &b, ct_bits)?;
    let mut b = ct_bits.to_vec();
    decrypt_bits(&c, iv, &mut b).map_err(|e| format!("{id}: {e}"))?;
    same(id, "cfb1::decrypt_bits", &b, pt_bits)?;
    ctx.ran("cfb1-bits");
    Ok(())
}

// ---------------------------------------------------------------------------
// the built-in files

/// Runs a file of `tests/data` whose records name their cipher (`CIPHER`, `KEY`, `IV`,
/// `PLAINTEXT`, `CIPHERTEXT`) through [`check_vector`].
pub fn run_builtin(rel: &str) -> FileReport {
    run_file(&data_dir(), rel, None, |rec, ctx| {
        rec.decrypting()?;
        let s = named_spec(rec)?;
        check_vector(
            &rec.id(),
            &s,
            &rec.hex("KEY")?,
            &rec.hex("IV")?,
            &rec.hex("PLAINTEXT")?,
            &rec.hex("CIPHERTEXT")?,
            ctx,
        )
    })
}

/// The record's `CIPHER`, parsed (a name in a vector file is parsed at the edge), without
/// padding: vector files give whole blocks.
pub fn named_spec(rec: &Record) -> Result<CipherSpec, String> {
    let name = rec.text("CIPHER")?;
    CipherSpec::parse(name)
        .map(|s| s.with_padding(Padding::None))
        .map_err(|e| format!("{}: CIPHER {name}: {e}", rec.id()))
}
