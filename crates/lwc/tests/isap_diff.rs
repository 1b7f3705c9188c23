//! Differential tests of ISAP v2.0 against the independent `isap-aead` 0.3 crate:
//! every AD length and every message length from 0 to 3*rate+1 (so each rate
//! boundary), and a few random long messages up to 1 MiB.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use cipherlab_lwc::aead::{AeadInOut, KeyInit};
use cipherlab_lwc::{IsapA128, IsapA128a, IsapK128, IsapK128a};
use rand::{Rng, RngCore, SeedableRng, rngs::StdRng};

fn encrypt<A: AeadInOut + KeyInit>(
    key: &[u8],
    nonce: &[u8],
    ad: &[u8],
    pt: &[u8],
) -> (Vec<u8>, Vec<u8>) {
    let c = A::new_from_slice(key).unwrap();
    let mut buf = pt.to_vec();
    let tag = c
        .encrypt_inout_detached(nonce.try_into().unwrap(), ad, buf.as_mut_slice().into())
        .unwrap();
    (buf, tag.to_vec())
}

fn decrypt<A: AeadInOut + KeyInit>(
    key: &[u8],
    nonce: &[u8],
    ad: &[u8],
    ct: &[u8],
    tag: &[u8],
) -> Option<Vec<u8>> {
    let c = A::new_from_slice(key).unwrap();
    let mut buf = ct.to_vec();
    c.decrypt_inout_detached(
        nonce.try_into().unwrap(),
        ad,
        buf.as_mut_slice().into(),
        tag.try_into().unwrap(),
    )
    .ok()
    .map(|()| buf)
}

fn agree<Ours: AeadInOut + KeyInit, Peer: AeadInOut + KeyInit>(
    rng: &mut StdRng,
    ad_len: usize,
    len: usize,
    what: &str,
) {
    let mut key = [0u8; 16];
    let mut nonce = [0u8; 16];
    rng.fill_bytes(&mut key);
    rng.fill_bytes(&mut nonce);
    let mut ad = vec![0u8; ad_len];
    let mut pt = vec![0u8; len];
    rng.fill_bytes(&mut ad);
    rng.fill_bytes(&mut pt);
    let (c1, t1) = encrypt::<Ours>(&key, &nonce, &ad, &pt);
    let (c2, t2) = encrypt::<Peer>(&key, &nonce, &ad, &pt);
    assert!(
        c1 == c2,
        "{what}: ciphertext differs at AD {ad_len}, PT {len}"
    );
    assert_eq!(t1, t2, "{what}: tag differs at AD {ad_len}, PT {len}");
    assert!(
        decrypt::<Ours>(&key, &nonce, &ad, &c1, &t1).as_deref() == Some(&pt[..]),
        "{what}: our decryption, AD {ad_len}, PT {len}"
    );
    assert!(
        decrypt::<Peer>(&key, &nonce, &ad, &c1, &t1).as_deref() == Some(&pt[..]),
        "{what}: peer decryption, AD {ad_len}, PT {len}"
    );
}

fn run<Ours: AeadInOut + KeyInit, Peer: AeadInOut + KeyInit>(rate: usize, seed: u64, what: &str) {
    let mut rng = StdRng::seed_from_u64(seed);
    for ad_len in 0..=3 * rate + 1 {
        for len in 0..=3 * rate + 1 {
            agree::<Ours, Peer>(&mut rng, ad_len, len, what);
        }
    }
    // Long messages: 1 MiB exactly, and two random lengths below it.
    for len in [
        1 << 20,
        rng.random_range(4096..1 << 20),
        rng.random_range(100..4096),
    ] {
        let ad_len = rng.random_range(0..100);
        agree::<Ours, Peer>(&mut rng, ad_len, len, what);
    }
}

#[test]
fn isap_a_128a_vs_isap_aead() {
    run::<IsapA128a, isap_aead::IsapAscon128A>(8, 1, "ISAP-A-128A");
}

#[test]
fn isap_a_128_vs_isap_aead() {
    run::<IsapA128, isap_aead::IsapAscon128>(8, 2, "ISAP-A-128");
}

#[test]
fn isap_k_128a_vs_isap_aead() {
    run::<IsapK128a, isap_aead::IsapKeccak128A>(18, 3, "ISAP-K-128A");
}

#[test]
fn isap_k_128_vs_isap_aead() {
    run::<IsapK128, isap_aead::IsapKeccak128>(18, 4, "ISAP-K-128");
}
