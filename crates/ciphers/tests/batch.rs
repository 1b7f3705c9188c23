//! `Cipher::encrypt_batch` / `decrypt_batch` against the one-message calls, for every AEAD
//! through every provider that has it: the same bytes on random batches of mixed lengths
//! (Ascon's SIMD lanes included), and a tampered message reported at its own position,
//! wiped, with the messages before it verified.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use cipherlab_ciphers::catalogue::{self, AES, CHACHA20_POLY1305};
use cipherlab_ciphers::providers::{init, supporting};
use cipherlab_ciphers::{CipherSpec, Error, Message, Mode, generate_key};
use rand::{Rng, SeedableRng, rngs::StdRng};

fn aeads() -> Vec<CipherSpec> {
    let mut v = vec![
        CipherSpec::of(&AES, 256, Some(Mode::Gcm)),
        CipherSpec::aead(&CHACHA20_POLY1305),
    ];
    v.extend(catalogue::lightweight().map(CipherSpec::aead));
    v
}

/// Lengths around Ascon's 16-byte rate and the lanes' batch sizes.
const LENS: [usize; 12] = [0, 1, 15, 16, 17, 31, 64, 100, 1000, 4096, 4097, 65536];

struct Case {
    nonces: Vec<Vec<u8>>,
    ads: Vec<Vec<u8>>,
    plains: Vec<Vec<u8>>,
}

fn case(spec: &CipherSpec, rng: &mut StdRng, count: usize) -> Case {
    let mut c = Case {
        nonces: Vec::new(),
        ads: Vec::new(),
        plains: Vec::new(),
    };
    for _ in 0..count {
        let len = LENS[rng.random_range(0..LENS.len())];
        let mut p = vec![0u8; len];
        rng.fill(&mut p[..]);
        let mut n = vec![0u8; spec.iv_len()];
        rng.fill(&mut n[..]);
        let mut ad = vec![0u8; rng.random_range(0..40)];
        rng.fill(&mut ad[..]);
        c.plains.push(p);
        c.nonces.push(n);
        c.ads.push(ad);
    }
    c
}

/// Each plaintext in a buffer with room for its tag.
fn buffers(spec: &CipherSpec, c: &Case) -> Vec<Vec<u8>> {
    c.plains
        .iter()
        .map(|p| {
            let mut b = p.clone();
            b.resize(spec.output_len(p.len()), 0);
            b
        })
        .collect()
}

fn messages<'a>(c: &'a Case, bufs: &'a mut [Vec<u8>], lens: &[usize]) -> Vec<Message<'a>> {
    bufs.iter_mut()
        .enumerate()
        .map(|(i, b)| Message {
            iv: &c.nonces[i],
            ad: &c.ads[i],
            buf: b,
            len: lens[i],
        })
        .collect()
}

#[test]
fn batches_give_the_one_message_bytes_and_name_the_failure() {
    let mut rng = StdRng::seed_from_u64(0xba7c4);
    let mut ran = Vec::new();
    for spec in aeads() {
        for provider in supporting(&spec) {
            let key = generate_key(&spec);
            let Ok(mut cipher) = init(&spec, &key, Some(provider)) else {
                continue; // not available on this machine (e.g. OpenSSL's legacy module)
            };
            for count in [1, 3, 4, 9, 16] {
                let c = case(&spec, &mut rng, count);
                // One message at a time.
                let mut expected = buffers(&spec, &c);
                for (i, b) in expected.iter_mut().enumerate() {
                    let n = cipher
                        .encrypt(&c.nonces[i], &c.ads[i], b, c.plains[i].len())
                        .unwrap();
                    assert_eq!(n, b.len());
                }
                // The batch.
                let mut bufs = buffers(&spec, &c);
                let lens: Vec<usize> = c.plains.iter().map(Vec::len).collect();
                let mut batch = messages(&c, &mut bufs, &lens);
                cipher.encrypt_batch(&mut batch).unwrap();
                let out_lens: Vec<usize> = batch.iter().map(|m| m.len).collect();
                drop(batch);
                assert_eq!(bufs, expected, "{spec} via {provider}, {count} messages");
                assert_eq!(out_lens, expected.iter().map(Vec::len).collect::<Vec<_>>());

                // Decrypting the batch gives the plaintexts back.
                let mut back = expected.clone();
                let mut batch = messages(&c, &mut back, &out_lens);
                cipher.decrypt_batch(&mut batch).unwrap();
                let plain_lens: Vec<usize> = batch.iter().map(|m| m.len).collect();
                drop(batch);
                for (i, b) in back.iter().enumerate() {
                    assert_eq!(
                        &b[..plain_lens[i]],
                        &c.plains[i][..],
                        "{spec} via {provider}"
                    );
                }

                // One bit flipped in message `bad`: it is the one named, and wiped.
                let bad = rng.random_range(0..count);
                let mut forged = expected.clone();
                let bit = rng.random_range(0..forged[bad].len() * 8);
                forged[bad][bit / 8] ^= 1 << (bit % 8);
                let mut batch = messages(&c, &mut forged, &out_lens);
                let failure = cipher.decrypt_batch(&mut batch).unwrap_err();
                let plain_lens: Vec<usize> = batch.iter().map(|m| m.len).collect();
                drop(batch);
                assert_eq!(failure.index, bad, "{spec} via {provider}");
                assert!(matches!(failure.error, Error::Authentication));
                assert!(
                    forged[bad].iter().all(|&b| b == 0),
                    "the forged message is wiped"
                );
                for i in 0..bad {
                    assert_eq!(&forged[i][..plain_lens[i]], &c.plains[i][..]);
                }
            }
            ran.push(format!("{spec}/{provider}"));
        }
    }
    println!("batch = one message for: {}", ran.join(", "));
    assert!(ran.iter().any(|r| r == "ascon-aead128/cipherlab"));
    assert!(ran.iter().any(|r| r == "ascon-128a/cipherlab"));
}
