//! Tampering: flipping any single bit of the nonce, the associated data, the
//! ciphertext or the tag must make ISAP decryption fail and zero the buffer.
//! Exhaustive over every bit for message lengths 0..=2*rate+1 (the AD length runs
//! the other way, 2*rate+1 down to 0).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use cipherlab_lwc::aead::{AeadInOut, KeyInit};
use cipherlab_lwc::{IsapA128, IsapA128a, IsapK128, IsapK128a};
use rand::{RngCore, SeedableRng, rngs::StdRng};

fn rejects<A: AeadInOut + KeyInit>(c: &A, nonce: &[u8], ad: &[u8], ct: &[u8], tag: &[u8]) -> bool {
    let mut buf = ct.to_vec();
    let r = c.decrypt_inout_detached(
        nonce.try_into().unwrap(),
        ad,
        buf.as_mut_slice().into(),
        tag.try_into().unwrap(),
    );
    r.is_err() && buf.iter().all(|&b| b == 0)
}

fn run<A: AeadInOut + KeyInit>(rate: usize, seed: u64, what: &str) {
    let mut rng = StdRng::seed_from_u64(seed);
    let max = 2 * rate + 1;
    for len in 0..=max {
        let mut key = [0u8; 16];
        let mut nonce = [0u8; 16];
        rng.fill_bytes(&mut key);
        rng.fill_bytes(&mut nonce);
        let mut ad = vec![0u8; max - len];
        let mut pt = vec![0u8; len];
        rng.fill_bytes(&mut ad);
        rng.fill_bytes(&mut pt);
        let c = A::new_from_slice(&key).unwrap();
        let mut ct = pt.clone();
        let tag = c
            .encrypt_inout_detached(
                nonce.as_slice().try_into().unwrap(),
                &ad,
                ct.as_mut_slice().into(),
            )
            .unwrap()
            .to_vec();
        // Untampered input decrypts.
        let mut buf = ct.clone();
        c.decrypt_inout_detached(
            nonce.as_slice().try_into().unwrap(),
            &ad,
            buf.as_mut_slice().into(),
            tag.as_slice().try_into().unwrap(),
        )
        .unwrap();
        assert_eq!(buf, pt, "{what}: PT {len}");
        for bit in 0..128 {
            let mut n = nonce;
            n[bit / 8] ^= 1 << (bit % 8);
            assert!(
                rejects(&c, &n, &ad, &ct, &tag),
                "{what}: PT {len}: nonce bit {bit} accepted"
            );
            let mut t = tag.clone();
            t[bit / 8] ^= 1 << (bit % 8);
            assert!(
                rejects(&c, &nonce, &ad, &ct, &t),
                "{what}: PT {len}: tag bit {bit} accepted"
            );
        }
        for bit in 0..8 * ad.len() {
            let mut a = ad.clone();
            a[bit / 8] ^= 1 << (bit % 8);
            assert!(
                rejects(&c, &nonce, &a, &ct, &tag),
                "{what}: PT {len}: AD bit {bit} accepted"
            );
        }
        for bit in 0..8 * ct.len() {
            let mut x = ct.clone();
            x[bit / 8] ^= 1 << (bit % 8);
            assert!(
                rejects(&c, &nonce, &ad, &x, &tag),
                "{what}: PT {len}: ciphertext bit {bit} accepted"
            );
        }
        // A wrong key fails too.
        key[0] ^= 0x80;
        let wrong = A::new_from_slice(&key).unwrap();
        assert!(
            rejects(&wrong, &nonce, &ad, &ct, &tag),
            "{what}: PT {len}: wrong key accepted"
        );
    }
}

#[test]
fn tamper_isap_a_128a() {
    run::<IsapA128a>(8, 11, "ISAP-A-128A");
}

#[test]
fn tamper_isap_a_128() {
    run::<IsapA128>(8, 12, "ISAP-A-128");
}

#[test]
fn tamper_isap_k_128a() {
    run::<IsapK128a>(18, 13, "ISAP-K-128A");
}

#[test]
fn tamper_isap_k_128() {
    run::<IsapK128>(18, 14, "ISAP-K-128");
}
