//! AES known answers: every NIST CAVP AESAVS file (GFSbox, KeySbox, VarKey, VarTxt, MMT;
//! both halves) in ECB, CBC, CFB1, CFB8, CFB128 and OFB, and the RFC 3686 CTR vectors,
//! through every provider of the catalogue that supports the spec.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use cipherlab_ciphers::Padding;
use common::{
    Ctx, Totals, check_cfb1_bits, check_cfb1_catalogue, check_vector, kat_dir, run_file, spec,
};

const SIZES: [usize; 3] = [128, 192, 256];

/// The AESVS tests and their record counts for 128/192/256-bit keys (the same in every
/// mode; ../shared/kat/README.md).
const TESTS: [(&str, [usize; 3]); 5] = [
    ("GFSbox", [14, 12, 10]),
    ("KeySbox", [42, 48, 32]),
    ("VarKey", [256, 384, 512]),
    ("VarTxt", [256, 256, 256]),
    ("MMT", [20, 20, 20]),
];

/// Runs the 15 files of one mode: `dir/PREFIX<test><bits>.rsp` as `aes-<bits>-<mode>`.
fn aes_mode(dir: &str, prefix: &str, mode: &str) {
    let Some(kat) = kat_dir() else { return };
    let mut totals = Totals::default();
    for (test, counts) in TESTS {
        for (bits, count) in SIZES.into_iter().zip(counts) {
            let rel = format!("aes/{dir}/{prefix}{test}{bits}.rsp");
            let s = spec(&format!("aes-{bits}-{mode}"), Padding::None);
            let r = run_file(&kat, &rel, Some(count), |rec, ctx| {
                let id = rec.id();
                rec.decrypting()?;
                let key = rec.hex("KEY")?;
                let iv = if mode == "ecb" {
                    Vec::new()
                } else {
                    rec.hex("IV")?
                };
                if mode == "cfb1" {
                    let pt = rec.bits("PLAINTEXT")?;
                    let ct = rec.bits("CIPHERTEXT")?;
                    match bits {
                        128 => check_cfb1_bits::<aes::Aes128>(&id, &key, &iv, &pt, &ct, ctx)?,
                        192 => check_cfb1_bits::<aes::Aes192>(&id, &key, &iv, &pt, &ct, ctx)?,
                        _ => check_cfb1_bits::<aes::Aes256>(&id, &key, &iv, &pt, &ct, ctx)?,
                    }
                    return check_cfb1_catalogue(&id, &s, &key, &iv, &pt, &ct, ctx);
                }
                let pt = rec.hex("PLAINTEXT")?;
                let ct = rec.hex("CIPHERTEXT")?;
                check_vector(&id, &s, &key, &iv, &pt, &ct, ctx)
            });
            totals.add(&r);
        }
    }
    totals.print(&format!("AES {prefix}"));
    assert_eq!(
        totals.records, 2138,
        "AES {prefix}: the inventory says 2138"
    );
}

#[test]
fn aes_ecb() {
    aes_mode("ecb", "ECB", "ecb");
}

#[test]
fn aes_cbc() {
    aes_mode("cbc", "CBC", "cbc");
}

#[test]
fn aes_cfb128() {
    aes_mode("cfb", "CFB128", "cfb");
}

#[test]
fn aes_cfb8() {
    aes_mode("cfb", "CFB8", "cfb8");
}

#[test]
fn aes_cfb1() {
    aes_mode("cfb", "CFB1", "cfb1");
}

#[test]
fn aes_ofb() {
    aes_mode("ofb", "OFB", "ofb");
}

/// RFC 3686: `IV` is the whole initial counter block, which the catalogue's CTR takes.
#[test]
fn aes_ctr_rfc3686() {
    let Some(kat) = kat_dir() else { return };
    let mut totals = Totals::default();
    for bits in SIZES {
        let rel = format!("aes/ctr/aes-{bits}-ctr.txt");
        let s = spec(&format!("aes-{bits}-ctr"), Padding::None);
        let r = run_file(&kat, &rel, Some(3), |rec, ctx| {
            rec.decrypting()?;
            check_vector(
                &rec.id(),
                &s,
                &rec.hex("KEY")?,
                &rec.hex("IV")?,
                &rec.hex("PLAINTEXT")?,
                &rec.hex("CIPHERTEXT")?,
                ctx,
            )
        });
        totals.add(&r);
    }
    totals.print("AES CTR");
}

/// Vectors written into the source, so something runs without the KAT folder:
/// FIPS-197 Appendix C and NIST SP 800-38A F.2.1, F.3.1, F.3.7, F.3.13, F.4.1 and F.5.1
/// (first block or segments). Columns: name, key, IV, plaintext, ciphertext.
const BUILTIN: [[&str; 5]; 9] = [
    [
        "aes-128-ecb",
        "000102030405060708090a0b0c0d0e0f",
        "",
        "00112233445566778899aabbccddeeff",
        "69c4e0d86a7b0430d8cdb78070b4c55a",
    ],
    [
        "aes-192-ecb",
        "000102030405060708090a0b0c0d0e0f1011121314151617",
        "",
        "00112233445566778899aabbccddeeff",
        "dda97ca4864cdfe06eaf70a0ec0d7191",
    ],
    [
        "aes-256-ecb",
        "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
        "",
        "00112233445566778899aabbccddeeff",
        "8ea2b7ca516745bfeafc49904b496089",
    ],
    [
        "aes-128-cbc",
        "2b7e151628aed2a6abf7158809cf4f3c",
        "000102030405060708090a0b0c0d0e0f",
        "6bc1bee22e409f96e93d7e117393172a",
        "7649abac8119b246cee98e9b12e9197d",
    ],
    [
        "aes-128-cfb1",
        "2b7e151628aed2a6abf7158809cf4f3c",
        "000102030405060708090a0b0c0d0e0f",
        "6bc1",
        "68b3",
    ],
    [
        "aes-128-cfb8",
        "2b7e151628aed2a6abf7158809cf4f3c",
        "000102030405060708090a0b0c0d0e0f",
        "6bc1",
        "3b79",
    ],
    [
        "aes-128-cfb",
        "2b7e151628aed2a6abf7158809cf4f3c",
        "000102030405060708090a0b0c0d0e0f",
        "6bc1bee22e409f96e93d7e117393172a",
        "3b3fd92eb72dad20333449f8e83cfb4a",
    ],
    [
        "aes-128-ofb",
        "2b7e151628aed2a6abf7158809cf4f3c",
        "000102030405060708090a0b0c0d0e0f",
        "6bc1bee22e409f96e93d7e117393172a",
        "3b3fd92eb72dad20333449f8e83cfb4a",
    ],
    [
        "aes-128-ctr",
        "2b7e151628aed2a6abf7158809cf4f3c",
        "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff",
        "6bc1bee22e409f96e93d7e117393172a",
        "874d6191b620e3261bef6864990db6ce",
    ],
];

#[test]
fn builtin_vectors() {
    let h = |s: &str| hex::decode(s).unwrap();
    let mut ctx = Ctx::default();
    for [name, key, iv, pt, ct] in BUILTIN {
        let s = spec(name, Padding::None);
        check_vector(name, &s, &h(key), &h(iv), &h(pt), &h(ct), &mut ctx).unwrap();
    }
    println!("built-in AES vectors: {:?}", ctx.runs);
}
