//! Differential tests of the Ascon AEADs against independent implementations:
//! `ascon-aead` 0.6 (RustCrypto, SP 800-232 Ascon-AEAD128) and `ascon-aead` 0.4
//! (RustCrypto, v1.2 Ascon-128, -128a, -80pq).
//!
//! Random key and nonce for every pair (AD length, message length) with both lengths
//! in `0..=3 * rate + 1` (so every rate boundary of both phases), plus a few random
//! long messages up to 1 MiB. Ciphertext, tag and decryption must agree.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use cipherlab_lwc::aead::{AeadInOut, KeyInit, Nonce, Tag};
use cipherlab_lwc::{Ascon80pq, Ascon128, Ascon128a, AsconAead128};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// A peer encryption: (key, nonce, ad, buffer in place) -> tag; and a peer decryption
/// returning whether the tag was accepted.
struct Peer {
    encrypt: PeerEncrypt,
    decrypt: PeerDecrypt,
}

/// (key, nonce, ad, buffer encrypted in place) -> tag.
type PeerEncrypt = fn(&[u8], &[u8], &[u8], &mut [u8]) -> Vec<u8>;
/// (key, nonce, ad, buffer decrypted in place, tag) -> accepted.
type PeerDecrypt = fn(&[u8], &[u8], &[u8], &mut [u8], &[u8]) -> bool;

macro_rules! peer04 {
    ($ty:path) => {
        Peer {
            encrypt: |k, n, ad, buf| {
                use ascon_aead04::aead::{AeadInPlace, KeyInit};
                let c = <$ty>::new_from_slice(k).unwrap();
                let n = ascon_aead04::Nonce::<$ty>::from_slice(n);
                c.encrypt_in_place_detached(n, ad, buf).unwrap().to_vec()
            },
            decrypt: |k, n, ad, buf, tag| {
                use ascon_aead04::aead::{AeadInPlace, KeyInit};
                let c = <$ty>::new_from_slice(k).unwrap();
                let n = ascon_aead04::Nonce::<$ty>::from_slice(n);
                let t = ascon_aead04::Tag::<$ty>::from_slice(tag);
                c.decrypt_in_place_detached(n, ad, buf, t).is_ok()
            },
        }
    };
}

fn peer06() -> Peer {
    Peer {
        encrypt: |k, n, ad, buf| {
            use ascon_aead06::aead::{AeadInOut, KeyInit};
            let c = ascon_aead06::AsconAead128::new_from_slice(k).unwrap();
            let n = ascon_aead06::AsconAead128Nonce::try_from(n).unwrap();
            c.encrypt_inout_detached(&n, ad, buf.into())
                .unwrap()
                .to_vec()
        },
        decrypt: |k, n, ad, buf, tag| {
            use ascon_aead06::aead::{AeadInOut, KeyInit};
            let c = ascon_aead06::AsconAead128::new_from_slice(k).unwrap();
            let n = ascon_aead06::AsconAead128Nonce::try_from(n).unwrap();
            let t = ascon_aead06::AsconAead128Tag::try_from(tag).unwrap();
            c.decrypt_inout_detached(&n, ad, buf.into(), &t).is_ok()
        },
    }
}

fn rng() -> StdRng {
    let seed = std::env::var("ASCON_TEST_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(rand::random::<u64>);
    println!("seed {seed} (set ASCON_TEST_SEED to repeat)");
    StdRng::seed_from_u64(seed)
}

fn random_bytes(rng: &mut StdRng, n: usize) -> Vec<u8> {
    let mut v = vec![0u8; n];
    rng.fill(&mut v[..]);
    v
}

/// One comparison: ours and the peer's ciphertext and tag, and both decryptions.
fn compare<A: AeadInOut + KeyInit>(
    peer: &Peer,
    rng: &mut StdRng,
    key_len: usize,
    ad_len: usize,
    msg_len: usize,
    name: &str,
) {
    let key = random_bytes(rng, key_len);
    let nonce = random_bytes(rng, 16);
    let ad = random_bytes(rng, ad_len);
    let pt = random_bytes(rng, msg_len);
    let what = format!("{name} ad {ad_len} msg {msg_len}");

    let ours = A::new_from_slice(&key).unwrap();
    let n = Nonce::<A>::try_from(&nonce[..]).unwrap();
    let mut ct = pt.clone();
    let tag = ours
        .encrypt_inout_detached(&n, &ad, ct.as_mut_slice().into())
        .unwrap();

    let mut peer_ct = pt.clone();
    let peer_tag = (peer.encrypt)(&key, &nonce, &ad, &mut peer_ct);
    assert!(ct == peer_ct, "{what}: ciphertext differs");
    assert_eq!(tag.as_slice(), &peer_tag[..], "{what}: tag differs");

    // Our decryption of the peer's output, and the peer's of ours.
    let mut buf = peer_ct.clone();
    let t = Tag::<A>::try_from(&peer_tag[..]).unwrap();
    ours.decrypt_inout_detached(&n, &ad, buf.as_mut_slice().into(), &t)
        .unwrap_or_else(|_| panic!("{what}: we reject the peer's ciphertext"));
    assert!(buf == pt, "{what}: our decryption differs");
    let mut buf = ct.clone();
    assert!(
        (peer.decrypt)(&key, &nonce, &ad, &mut buf, &tag),
        "{what}: the peer rejects our ciphertext"
    );
    assert!(buf == pt, "{what}: the peer's decryption differs");
}

fn differential<A: AeadInOut + KeyInit>(peer: &Peer, key_len: usize, rate: usize, name: &str) {
    let mut rng = rng();
    let max = 3 * rate + 1;
    for ad_len in 0..=max {
        for msg_len in 0..=max {
            compare::<A>(peer, &mut rng, key_len, ad_len, msg_len, name);
        }
    }
    // Long messages: exactly 1 MiB, and a few random lengths up to 1 MiB.
    compare::<A>(peer, &mut rng, key_len, 32, 1 << 20, name);
    for _ in 0..3 {
        let msg_len = rng.random_range(max..=1 << 20);
        let ad_len = rng.random_range(0..=4096);
        compare::<A>(peer, &mut rng, key_len, ad_len, msg_len, name);
    }
}

#[test]
fn aead128_vs_ascon_aead_0_6() {
    differential::<AsconAead128>(&peer06(), 16, 16, "Ascon-AEAD128");
}

#[test]
fn ascon128_vs_ascon_aead_0_4() {
    differential::<Ascon128>(&peer04!(ascon_aead04::Ascon128), 16, 8, "Ascon-128");
}

#[test]
fn ascon128a_vs_ascon_aead_0_4() {
    differential::<Ascon128a>(&peer04!(ascon_aead04::Ascon128a), 16, 16, "Ascon-128a");
}

#[test]
fn ascon80pq_vs_ascon_aead_0_4() {
    differential::<Ascon80pq>(&peer04!(ascon_aead04::Ascon80pq), 20, 8, "Ascon-80pq");
}
