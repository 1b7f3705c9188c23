//! Tampering tests for the Ascon AEADs: flipping any single bit of the nonce, the
//! associated data, the ciphertext or the tag makes decryption fail and leaves the
//! output buffer zeroed. Exhaustive over every bit for every message length in
//! `0..=2 * rate + 1` (with AD lengths cycling over the same range).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use cipherlab_lwc::aead::{AeadInOut, KeyInit, Nonce, Tag};
use cipherlab_lwc::{Ascon80pq, Ascon128, Ascon128a, AsconAead128};

fn bytes(seed: u8, n: usize) -> Vec<u8> {
    (0..n)
        .map(|i| (i as u8).wrapping_mul(151).wrapping_add(seed))
        .collect()
}

fn must_fail<A: AeadInOut>(
    c: &A,
    nonce: &[u8],
    ad: &[u8],
    ct: &[u8],
    tag: &[u8],
    what: &dyn Fn() -> String,
) {
    let n = Nonce::<A>::try_from(nonce).unwrap();
    let t = Tag::<A>::try_from(tag).unwrap();
    let mut buf = ct.to_vec();
    assert!(
        c.decrypt_inout_detached(&n, ad, buf.as_mut_slice().into(), &t)
            .is_err(),
        "{}: tampered input accepted",
        what()
    );
    assert!(buf.iter().all(|&b| b == 0), "{}: output not wiped", what());
}

fn flip(v: &[u8], bit: usize) -> Vec<u8> {
    let mut v = v.to_vec();
    v[bit / 8] ^= 1 << (bit % 8);
    v
}

fn tamper<A: AeadInOut + KeyInit>(key_len: usize, rate: usize, name: &str) {
    let c = A::new_from_slice(&bytes(1, key_len)).unwrap();
    let nonce = bytes(2, 16);
    let max = 2 * rate + 1;
    for msg_len in 0..=max {
        let ad_len = (msg_len * 5 + 3) % (max + 1);
        let ad = bytes(3, ad_len);
        let pt = bytes(4, msg_len);
        let n = Nonce::<A>::try_from(&nonce[..]).unwrap();
        let mut ct = pt.clone();
        let tag = c
            .encrypt_inout_detached(&n, &ad, ct.as_mut_slice().into())
            .unwrap();
        // The untampered message decrypts.
        let mut buf = ct.clone();
        c.decrypt_inout_detached(&n, &ad, buf.as_mut_slice().into(), &tag)
            .unwrap();
        assert_eq!(buf, pt);

        let ctx =
            |part: &str, bit: usize| format!("{name} msg {msg_len} ad {ad_len}: {part} bit {bit}");
        for bit in 0..128 {
            must_fail(&c, &flip(&nonce, bit), &ad, &ct, &tag, &|| {
                ctx("nonce", bit)
            });
            must_fail(&c, &nonce, &ad, &ct, &flip(&tag, bit), &|| ctx("tag", bit));
        }
        for bit in 0..8 * ad_len {
            must_fail(&c, &nonce, &flip(&ad, bit), &ct, &tag, &|| ctx("AD", bit));
        }
        for bit in 0..8 * msg_len {
            must_fail(&c, &nonce, &ad, &flip(&ct, bit), &tag, &|| {
                ctx("ciphertext", bit)
            });
        }
        // Truncating or extending the AD or ciphertext by one byte fails as well.
        if ad_len > 0 {
            must_fail(&c, &nonce, &ad[..ad_len - 1], &ct, &tag, &|| {
                ctx("AD truncated", 0)
            });
        }
        let mut longer = ad.clone();
        longer.push(0);
        must_fail(&c, &nonce, &longer, &ct, &tag, &|| ctx("AD extended", 0));
        if msg_len > 0 {
            must_fail(&c, &nonce, &ad, &ct[..msg_len - 1], &tag, &|| {
                ctx("CT truncated", 0)
            });
        }
        let mut longer = ct.clone();
        longer.push(0);
        must_fail(&c, &nonce, &ad, &longer, &tag, &|| ctx("CT extended", 0));
    }
}

#[test]
fn aead128_tamper() {
    tamper::<AsconAead128>(16, 16, "Ascon-AEAD128");
}

#[test]
fn ascon128_tamper() {
    tamper::<Ascon128>(16, 8, "Ascon-128");
}

#[test]
fn ascon128a_tamper() {
    tamper::<Ascon128a>(16, 16, "Ascon-128a");
}

#[test]
fn ascon80pq_tamper() {
    tamper::<Ascon80pq>(20, 8, "Ascon-80pq");
}
