//! ISAP v2.0 known-answer tests: every record of the four NIST LWC KAT files, after
//! their built-in excerpts (cipherlab-testkit's `kat-excerpts/`), so something always runs.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use cipherlab_lwc::aead::{AeadInOut, KeyInit};
use cipherlab_lwc::{IsapA128, IsapA128a, IsapK128, IsapK128a};
use cipherlab_testkit::lwc::for_each_aead;

/// Encrypts, decrypts, and checks that a one-bit tag error fails and zeroes the
/// output buffer. `ct` is ciphertext || tag as in the KAT files.
fn check<A: AeadInOut + KeyInit>(
    key: &[u8],
    nonce: &[u8],
    ad: &[u8],
    pt: &[u8],
    ct: &[u8],
    what: &str,
) {
    let cipher = A::new_from_slice(key).unwrap();
    let nonce = nonce.try_into().unwrap();
    let mut buf = pt.to_vec();
    let tag = cipher
        .encrypt_inout_detached(nonce, ad, buf.as_mut_slice().into())
        .unwrap();
    let mut got = buf.clone();
    got.extend_from_slice(&tag);
    assert_eq!(
        hex::encode_upper(&got),
        hex::encode_upper(ct),
        "{what}: encryption"
    );

    let (c, t) = ct.split_at(ct.len() - 16);
    let mut buf = c.to_vec();
    cipher
        .decrypt_inout_detached(nonce, ad, buf.as_mut_slice().into(), t.try_into().unwrap())
        .unwrap_or_else(|_| panic!("{what}: decryption rejected"));
    assert_eq!(buf, pt, "{what}: decryption");

    let mut bad = t.to_vec();
    bad[(pt.len() + ad.len()) % 16] ^= 1 << (pt.len() % 8);
    let mut buf = c.to_vec();
    let r = cipher.decrypt_inout_detached(
        nonce,
        ad,
        buf.as_mut_slice().into(),
        bad.as_slice().try_into().unwrap(),
    );
    assert!(r.is_err(), "{what}: flipped tag bit accepted");
    assert!(
        buf.iter().all(|&b| b == 0),
        "{what}: buffer not zeroed after failure"
    );
}

fn run_file<A: AeadInOut + KeyInit>(name: &str) -> usize {
    for_each_aead(&format!("isap/{name}_LWC_AEAD_KAT_128_128.txt"), |v| {
        check::<A>(&v.key, &v.nonce, &v.ad, &v.pt, &v.ct, &v.id);
    })
}

#[test]
fn kat_isap_a_128a() {
    assert!(run_file::<IsapA128a>("isapa128av20") > 0);
}

#[test]
fn kat_isap_a_128() {
    assert!(run_file::<IsapA128>("isapa128v20") > 0);
}

#[test]
fn kat_isap_k_128a() {
    assert!(run_file::<IsapK128a>("isapk128av20") > 0);
}

#[test]
fn kat_isap_k_128() {
    assert!(run_file::<IsapK128>("isapk128v20") > 0);
}
