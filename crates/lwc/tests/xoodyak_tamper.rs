//! Tampering: flipping any single bit of the nonce, the associated data, the
//! ciphertext or the tag makes Xoodyak decryption fail and leaves the buffer zeroed.
//! Exhaustive over every bit, for every message length 0..=2*24+1 and AD lengths
//! around the 44-byte absorb rate.

// A test fails by panicking; unwrap on known-good inputs is the point.
#![allow(clippy::unwrap_used)]

use cipherlab_lwc::Xoodyak;
use cipherlab_lwc::aead::{AeadInOut, KeyInit};

fn pattern(n: usize, seed: u8) -> Vec<u8> {
    (0..n)
        .map(|i| (i as u8).wrapping_mul(37).wrapping_add(seed))
        .collect()
}

/// Decrypts `ct` with the given inputs; `Ok` only if accepted. On rejection also
/// checks the buffer was wiped.
fn open(
    c: &Xoodyak,
    nonce: &[u8; 16],
    ad: &[u8],
    ct: &[u8],
    tag: &[u8; 16],
) -> Result<Vec<u8>, ()> {
    let mut buf = ct.to_vec();
    match c.decrypt_inout_detached(nonce.into(), ad, buf.as_mut_slice().into(), tag.into()) {
        Ok(()) => Ok(buf),
        Err(_) => {
            assert!(
                buf.iter().all(|&b| b == 0),
                "rejected, but the buffer was not wiped"
            );
            Err(())
        }
    }
}

#[test]
fn every_single_bit_flip_is_rejected() {
    let key: [u8; 16] = pattern(16, 3).try_into().unwrap();
    let nonce: [u8; 16] = pattern(16, 101).try_into().unwrap();
    let c = Xoodyak::new(&key.into());
    let mut checked = 0usize;
    for mlen in 0..=2 * 24 + 1 {
        for alen in [0usize, 1, 43, 44, 45] {
            let pt = pattern(mlen, 7);
            let ad = pattern(alen, 55);
            let mut ct = pt.clone();
            let tag: [u8; 16] = c
                .encrypt_inout_detached((&nonce).into(), &ad, ct.as_mut_slice().into())
                .unwrap()
                .into();
            assert_eq!(open(&c, &nonce, &ad, &ct, &tag), Ok(pt.clone()));
            let what = format!("|M| = {mlen}, |AD| = {alen}");
            for bit in 0..128 {
                let mut n = nonce;
                n[bit / 8] ^= 1 << (bit % 8);
                assert!(
                    open(&c, &n, &ad, &ct, &tag).is_err(),
                    "{what}: nonce bit {bit}"
                );
                let mut t = tag;
                t[bit / 8] ^= 1 << (bit % 8);
                assert!(
                    open(&c, &nonce, &ad, &ct, &t).is_err(),
                    "{what}: tag bit {bit}"
                );
            }
            for bit in 0..8 * alen {
                let mut a = ad.clone();
                a[bit / 8] ^= 1 << (bit % 8);
                assert!(
                    open(&c, &nonce, &a, &ct, &tag).is_err(),
                    "{what}: AD bit {bit}"
                );
            }
            for bit in 0..8 * mlen {
                let mut x = ct.clone();
                x[bit / 8] ^= 1 << (bit % 8);
                assert!(
                    open(&c, &nonce, &ad, &x, &tag).is_err(),
                    "{what}: ciphertext bit {bit}"
                );
            }
            checked += 256 + 8 * alen + 8 * mlen;
        }
    }
    println!("{checked} single-bit flips rejected");
}

/// Truncating or extending the AD or the ciphertext by a zero byte is rejected too
/// (padding makes lengths part of the authenticated input).
#[test]
fn length_changes_are_rejected() {
    let c = Xoodyak::new(&[9u8; 16].into());
    let nonce = [4u8; 16];
    for (mlen, alen) in [(0usize, 0usize), (23, 43), (24, 44), (25, 45), (48, 88)] {
        let pt = pattern(mlen, 1);
        let ad = pattern(alen, 2);
        let mut ct = pt.clone();
        let tag: [u8; 16] = c
            .encrypt_inout_detached((&nonce).into(), &ad, ct.as_mut_slice().into())
            .unwrap()
            .into();
        let mut longer_ad = ad.clone();
        longer_ad.push(0);
        assert!(open(&c, &nonce, &longer_ad, &ct, &tag).is_err());
        let mut longer_ct = ct.clone();
        longer_ct.push(0);
        assert!(open(&c, &nonce, &ad, &longer_ct, &tag).is_err());
        if alen > 0 {
            assert!(open(&c, &nonce, &ad[..alen - 1], &ct, &tag).is_err());
        }
        if mlen > 0 {
            assert!(open(&c, &nonce, &ad, &ct[..mlen - 1], &tag).is_err());
        }
    }
}
