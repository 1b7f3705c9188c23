//! TDES and DES known answers: every NIST CAVP TDES file (TMOVS KATs and MMT1-3; both
//! halves) in ECB, CBC, CFB1, CFB8, CFB64 and OFB, through every provider of the
//! catalogue that supports the spec.
//!
//! Keying: K1 = K2 = K3 is single DES, so such records run as `des-*`, `3des-112-*`
//! (K1 || K2) and `3des-168-*`; K1 = K3 != K2 runs as `3des-112-*` and `3des-168-*`;
//! three keys run as `3des-168-*`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use cipherlab_ciphers::Padding;
use cipherlab_testkit::{Totals, kat_dir, run_file};
use common::{check_cfb1_bits, check_cfb1_catalogue, check_vector, run_builtin, spec};

/// The TMOVS KATs and the MMTs with their record counts (../shared/kat/README.md).
const TESTS: [(&str, usize); 8] = [
    ("invperm", 128),
    ("permop", 64),
    ("subtab", 38),
    ("varkey", 112),
    ("vartext", 128),
    ("MMT1", 20),
    ("MMT2", 20),
    ("MMT3", 20),
];

/// The keyings a record's keys allow: (spec prefix, key bytes).
fn keyings(k1: &[u8], k2: &[u8], k3: &[u8]) -> Vec<(&'static str, Vec<u8>)> {
    let mut out = Vec::new();
    if k1 == k2 && k2 == k3 {
        out.push(("des", k1.to_vec()));
    }
    if k1 == k3 {
        out.push(("3des-112", [k1, k2].concat()));
    }
    out.push(("3des-168", [k1, k2, k3].concat()));
    out
}

fn tdes_mode(dir: &str, prefix: &str, mode: &str) {
    let Some(kat) = kat_dir() else { return };
    let mut totals = Totals::default();
    for (test, count) in TESTS {
        let rel = format!("tdes/{dir}/{prefix}{test}.rsp");
        let r = run_file(&kat, &rel, Some(count), |rec, ctx| {
            let id = rec.id();
            rec.decrypting()?;
            let (k1, k2, k3) = match rec.opt_hex("KEYs")? {
                Some(k) => (k.clone(), k.clone(), k),
                None => (rec.hex("KEY1")?, rec.hex("KEY2")?, rec.hex("KEY3")?),
            };
            let iv = if mode == "ecb" {
                Vec::new()
            } else {
                rec.hex("IV")?
            };
            let cfb1 = mode == "cfb1";
            let (pt, ct) = if cfb1 {
                (rec.bits("PLAINTEXT")?, rec.bits("CIPHERTEXT")?)
            } else {
                (rec.hex("PLAINTEXT")?, rec.hex("CIPHERTEXT")?)
            };
            for (alg, key) in keyings(&k1, &k2, &k3) {
                ctx.note(alg);
                let s = spec(&format!("{alg}-{mode}"), Padding::None);
                if !cfb1 {
                    check_vector(&id, &s, &key, &iv, &pt, &ct, ctx)?;
                    continue;
                }
                match alg {
                    "des" => check_cfb1_bits::<des::Des>(&id, &key, &iv, &pt, &ct, ctx)?,
                    "3des-112" => check_cfb1_bits::<des::TdesEde2>(&id, &key, &iv, &pt, &ct, ctx)?,
                    _ => check_cfb1_bits::<des::TdesEde3>(&id, &key, &iv, &pt, &ct, ctx)?,
                }
                check_cfb1_catalogue(&id, &s, &key, &iv, &pt, &ct, ctx)?;
            }
            Ok(())
        });
        // The keying the README states, checked against the data.
        let n = |k: &str| r.ctx.noted(k);
        let (des, two, three) = (n("des"), n("3des-112"), n("3des-168"));
        let want = match test {
            "MMT2" => (0, count, count),
            "MMT3" => (0, 0, count),
            _ => (count, count, count),
        };
        assert_eq!(
            (des, two, three),
            want,
            "{rel}: keyings (des, 3des-112, 3des-168)"
        );
        totals.add(&r);
    }
    totals.print(&format!("TDES {prefix}"));
    assert_eq!(totals.records, 530, "TDES {prefix}: the inventory says 530");
}

#[test]
fn tdes_ecb() {
    tdes_mode("ecb", "TECB", "ecb");
}

#[test]
fn tdes_cbc() {
    tdes_mode("cbc", "TCBC", "cbc");
}

#[test]
fn tdes_cfb1() {
    tdes_mode("cfb", "TCFB1", "cfb1");
}

#[test]
fn tdes_cfb8() {
    tdes_mode("cfb", "TCFB8", "cfb8");
}

#[test]
fn tdes_cfb64() {
    tdes_mode("cfb", "TCFB64", "cfb");
}

#[test]
fn tdes_ofb() {
    tdes_mode("ofb", "TOFB", "ofb");
}

/// The DES and TDES examples of `tests/data/des.txt`, which run without the KAT folder.
#[test]
fn builtin_vectors() {
    run_builtin("des.txt");
}
