//! The batch API against the one-message API, on every backend this CPU can run (the
//! output names them): random batches of mixed message lengths (0 .. 5 KiB) and AD
//! lengths, under one key and under a key per job, must give byte-identical
//! ciphertexts and tags and decrypt back; a tampered job must fail alone, with its
//! buffer wiped, while the rest of its batch verifies.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use cipherlab_lwc::aead::{AeadInOut, KeyInit, Nonce, Tag};
use cipherlab_lwc::batch::{Backend, BatchAead, OpenJob, SealJob};
use cipherlab_lwc::{Ascon128a, AsconAead128};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// One message of a test batch.
#[derive(Clone, Debug)]
struct Msg {
    key: [u8; 16],
    nonce: [u8; 16],
    ad: Vec<u8>,
    pt: Vec<u8>,
}

/// A length that hits rate boundaries often and long messages sometimes.
fn length(rng: &mut StdRng, long: usize) -> usize {
    match rng.random_range(0..4) {
        0 => rng.random_range(0..=49),
        1 => 16 * rng.random_range(0..=8),
        2 => rng.random_range(0..=long),
        _ => 16 * rng.random_range(0..=long / 16) + rng.random_range(0..16).min(long),
    }
}

fn random_batch(rng: &mut StdRng, n: usize, same_key: bool) -> Vec<Msg> {
    let key: [u8; 16] = rng.random();
    (0..n)
        .map(|_| {
            let ad_len = if rng.random_bool(0.3) {
                0
            } else {
                length(rng, 200)
            };
            let pt_len = length(rng, 5 * 1024);
            Msg {
                key: if same_key { key } else { rng.random() },
                nonce: rng.random(),
                ad: (0..ad_len).map(|_| rng.random()).collect(),
                pt: (0..pt_len).map(|_| rng.random()).collect(),
            }
        })
        .collect()
}

/// Ciphertext and tag of `m` through the one-message API.
fn reference<A: AeadInOut + KeyInit>(m: &Msg) -> (Vec<u8>, [u8; 16]) {
    let c = A::new_from_slice(&m.key).unwrap();
    let mut ct = m.pt.clone();
    let tag = c
        .encrypt_inout_detached(
            &Nonce::<A>::try_from(&m.nonce[..]).unwrap(),
            &m.ad,
            ct.as_mut_slice().into(),
        )
        .unwrap();
    (ct, tag.as_slice().try_into().unwrap())
}

/// Encrypts `msgs` as one batch on `backend` (one key when `same_key`), checks every
/// job against the one-message API, then decrypts the batch and checks the plaintexts.
fn check_batch<A>(backend: Backend, msgs: &[Msg], same_key: bool, what: &str)
where
    A: BatchAead + AeadInOut + KeyInit,
{
    let mut ciphers: Vec<A> = msgs
        .iter()
        .map(|m| A::new_from_slice(&m.key).unwrap())
        .collect();
    if ciphers.is_empty() {
        ciphers.push(A::new_from_slice(&[0; 16]).unwrap());
    }
    let mut bufs: Vec<Vec<u8>> = msgs.iter().map(|m| m.pt.clone()).collect();
    let tags: Vec<[u8; 16]> = {
        let jobs = bufs
            .iter_mut()
            .zip(msgs)
            .map(|(b, m)| SealJob::new(m.nonce, &m.ad, b));
        if same_key {
            let mut jobs: Vec<SealJob> = jobs.collect();
            backend.encrypt(&ciphers[0], &mut jobs);
            jobs.iter().map(|j| *j.tag()).collect()
        } else {
            let mut jobs: Vec<(&A, SealJob)> = ciphers.iter().zip(jobs).collect();
            backend.encrypt_keyed(&mut jobs);
            jobs.iter().map(|j| *j.1.tag()).collect()
        }
    };
    for (i, m) in msgs.iter().enumerate() {
        let (ct, tag) = reference::<A>(m);
        assert!(
            bufs[i] == ct && tags[i] == tag,
            "{what}: job {i} of {} (ad {}, msg {}) differs from the one-message API",
            msgs.len(),
            m.ad.len(),
            m.pt.len()
        );
    }
    let verified: Vec<bool> = {
        let jobs = bufs
            .iter_mut()
            .zip(msgs)
            .zip(&tags)
            .map(|((b, m), t)| OpenJob::new(m.nonce, &m.ad, b, *t));
        if same_key {
            let mut jobs: Vec<OpenJob> = jobs.collect();
            assert!(backend.decrypt(&ciphers[0], &mut jobs).is_ok(), "{what}");
            jobs.iter().map(OpenJob::is_verified).collect()
        } else {
            let mut jobs: Vec<(&A, OpenJob)> = ciphers.iter().zip(jobs).collect();
            assert!(backend.decrypt_keyed(&mut jobs).is_ok(), "{what}");
            jobs.iter().map(|j| j.1.is_verified()).collect()
        }
    };
    assert!(
        verified.iter().all(|&v| v),
        "{what}: a job failed to verify"
    );
    for (i, m) in msgs.iter().enumerate() {
        assert_eq!(bufs[i], m.pt, "{what}: job {i} did not decrypt back");
    }
}

fn differential<A: BatchAead + AeadInOut + KeyInit>(name: &str, seed: u64) {
    let mut rng = StdRng::seed_from_u64(seed);
    for backend in Backend::all() {
        println!("{name}: batch path: {backend}");
        let mut jobs = 0;
        for round in 0..60 {
            let n = rng.random_range(0..=13);
            let same_key = round % 3 != 0;
            let msgs = random_batch(&mut rng, n, same_key);
            jobs += n;
            check_batch::<A>(
                backend,
                &msgs,
                same_key,
                &format!("{name} {backend} round {round}"),
            );
        }
        println!("{name}: {backend}: {jobs} random jobs byte-identical to the one-message API");
    }
}

#[test]
fn aead128_batches_match_one_message_api() {
    differential::<AsconAead128>("ascon-aead128", 1);
}

#[test]
fn ascon128a_batches_match_one_message_api() {
    differential::<Ascon128a>("ascon-128a", 2);
}

/// Batches whose jobs all have the same shape (the fused message loop from start to
/// end, every lane finishing together), and every small shape around the rate.
#[test]
fn uniform_batches_match_one_message_api() {
    let mut rng = StdRng::seed_from_u64(3);
    for backend in Backend::all() {
        println!("uniform: batch path: {backend}");
        for (n, ad_len, pt_len) in [(8, 32, 4096), (4, 0, 4096), (5, 16, 65536), (9, 15, 17)] {
            let mut msgs = random_batch(&mut rng, n, true);
            for m in &mut msgs {
                m.ad.resize(ad_len, 0xa5);
                m.pt.resize(pt_len, 0x5a);
            }
            check_batch::<AsconAead128>(backend, &msgs, true, &format!("{backend} {n} x {pt_len}"));
            check_batch::<Ascon128a>(backend, &msgs, true, &format!("{backend} {n} x {pt_len}"));
        }
        for ad_len in 0..=33 {
            for pt_len in 0..=33 {
                let mut msgs = random_batch(&mut rng, 4, true);
                for m in &mut msgs {
                    m.ad.resize(ad_len, 1);
                    m.pt.resize(pt_len, 2);
                }
                check_batch::<AsconAead128>(backend, &msgs, true, "small");
            }
        }
    }
}

#[test]
fn empty_batch_is_a_no_op() {
    let c = AsconAead128::new(&[0u8; 16].into());
    for backend in Backend::all() {
        backend.encrypt(&c, &mut []);
        assert!(backend.decrypt(&c, &mut []).is_ok());
    }
}

/// Each of the ways to tamper with job `victim`.
#[derive(Clone, Copy, Debug)]
enum Tamper {
    Ciphertext,
    Tag,
    Ad,
    Nonce,
}

fn tamper<A: BatchAead + AeadInOut + KeyInit>(name: &str, seed: u64) {
    let mut rng = StdRng::seed_from_u64(seed);
    for backend in Backend::all() {
        println!("{name} tamper: batch path: {backend}");
        let mut cases = 0;
        for round in 0..40 {
            let n = rng.random_range(1..=10);
            let mut msgs = random_batch(&mut rng, n, true);
            let victim = rng.random_range(0..n);
            let how = [Tamper::Ciphertext, Tamper::Tag, Tamper::Ad, Tamper::Nonce][round % 4];
            if matches!(how, Tamper::Ciphertext) && msgs[victim].pt.is_empty() {
                msgs[victim].pt.push(7);
            }
            if matches!(how, Tamper::Ad) && msgs[victim].ad.is_empty() {
                msgs[victim].ad.push(9);
            }
            let cipher = A::new_from_slice(&msgs[0].key).unwrap();
            let mut bufs: Vec<Vec<u8>> = Vec::new();
            let mut tags: Vec<[u8; 16]> = Vec::new();
            for m in &msgs {
                let (ct, tag) = reference::<A>(m);
                bufs.push(ct);
                tags.push(tag);
            }
            let mut nonces: Vec<[u8; 16]> = msgs.iter().map(|m| m.nonce).collect();
            let mut ads: Vec<Vec<u8>> = msgs.iter().map(|m| m.ad.clone()).collect();
            match how {
                Tamper::Ciphertext => {
                    let i = rng.random_range(0..bufs[victim].len());
                    bufs[victim][i] ^= 1 << rng.random_range(0..8);
                }
                Tamper::Tag => tags[victim][rng.random_range(0..16)] ^= 0x80,
                Tamper::Ad => {
                    let i = rng.random_range(0..ads[victim].len());
                    ads[victim][i] ^= 1;
                }
                Tamper::Nonce => nonces[victim][rng.random_range(0..16)] ^= 2,
            }
            let mut jobs: Vec<OpenJob> = bufs
                .iter_mut()
                .enumerate()
                .map(|(i, b)| OpenJob::new(nonces[i], &ads[i], b, tags[i]))
                .collect();
            let what = format!("{name} {backend} round {round}: {how:?} in job {victim} of {n}");
            assert!(
                backend.decrypt(&cipher, &mut jobs).is_err(),
                "{what}: accepted"
            );
            for (i, job) in jobs.iter().enumerate() {
                if i == victim {
                    assert!(!job.is_verified(), "{what}: victim verified");
                    assert!(
                        job.buf().iter().all(|&b| b == 0),
                        "{what}: victim not wiped"
                    );
                } else {
                    assert!(job.is_verified(), "{what}: job {i} failed with the victim");
                    assert_eq!(job.buf(), &msgs[i].pt[..], "{what}: job {i} wrong");
                }
            }
            cases += 1;
        }
        println!(
            "{name}: {backend}: {cases} tampered batches: only the victim failed and was wiped"
        );
    }
}

#[test]
fn aead128_tampered_job_fails_alone() {
    tamper::<AsconAead128>("ascon-aead128", 4);
}

#[test]
fn ascon128a_tampered_job_fails_alone() {
    tamper::<Ascon128a>("ascon-128a", 5);
}

/// Tags of the batch and of the one-message API agree on an official vector too
/// (SP 800-232 new-input KAT, Count 545: 16-byte PT and AD), in every lane.
#[test]
fn kat_vector_in_every_lane() {
    let key: [u8; 16] = core::array::from_fn(|i| i as u8);
    let nonce: [u8; 16] = core::array::from_fn(|i| 0x10 + i as u8);
    let ad: [u8; 16] = core::array::from_fn(|i| 0x30 + i as u8);
    let pt: [u8; 16] = core::array::from_fn(|i| 0x20 + i as u8);
    let expect = *b"\x63\x73\xEB\xB2\x8B\xE9\x7C\x9B\xAC\x09\x0C\xF3\x99\xC1\x3E\xF1\
        \x3A\xBF\xC0\xD2\x09\xE8\xF4\x84\x4C\x90\x81\x4D\x13\xF3\x2C\x59";
    let c = AsconAead128::new(&key.into());
    for backend in Backend::all() {
        let mut bufs = [pt; 6];
        let mut jobs: Vec<SealJob> = bufs
            .iter_mut()
            .map(|b| SealJob::new(nonce, &ad, b))
            .collect();
        backend.encrypt(&c, &mut jobs);
        for job in &jobs {
            assert_eq!(job.buf(), &expect[..16], "{backend}");
            assert_eq!(job.tag(), &expect[16..], "{backend}");
        }
    }
    let _ = Tag::<AsconAead128>::default();
}
