//! AES known answers: every NIST CAVP AESAVS file (GFSbox, KeySbox, VarKey, VarTxt, MMT;
//! both halves) in ECB, CBC, CFB1, CFB8, CFB128 and OFB, and the RFC 3686 CTR vectors,
//! through every provider of the catalogue that supports the spec.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use cipherlab_ciphers::Padding;
use cipherlab_testkit::{Totals, kat_dir, run_file};
use common::{check_cfb1_bits, check_cfb1_catalogue, check_vector, run_builtin, spec};

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

/// The vectors of FIPS 197 and SP 800-38A in `tests/data/aes.txt`, which run without the
/// KAT folder.
#[test]
fn builtin_vectors() {
    run_builtin("aes.txt");
}
