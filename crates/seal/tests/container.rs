//! The container end to end: round trips for every AEAD of the catalogue at the sizes
//! around chunk boundaries, through both readers and writers; and every attack STREAM
//! must catch (truncation anywhere, reordering, duplication, deletion, splicing from
//! another file, header bit flips, appended data, wrong keys), each with the right
//! error and no plaintext of a failed chunk released.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{Read, Write};

use cipherlab_seal::format::{self, Argon2Params, Header, Kdf, TAG_LEN};
use cipherlab_seal::{
    CipherSpec, Error, KeyFile, SealOptions, SealReader, SealWriter, Secret, Unlock,
};

const LOG2: u8 = 10; // 1 KiB chunks: many chunks from little data
const CHUNK: usize = 1 << LOG2;

fn data(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u32).wrapping_mul(2_654_435_761).to_be_bytes()[0] ^ seed)
        .collect()
}

fn opts(threads: usize) -> SealOptions {
    SealOptions {
        chunk_log2: LOG2,
        threads,
        // Cheap for tests: below the floor, so allowed explicitly.
        argon2: Argon2Params {
            memory_kib: 256,
            passes: 1,
            lanes: 1,
        },
        allow_weak_argon2: true,
        ..SealOptions::default()
    }
}

fn key(name: &str) -> KeyFile {
    KeyFile::generate(CipherSpec::parse(name).unwrap())
}

fn seal(pt: &[u8], secret: Secret<'_>, o: &SealOptions) -> Vec<u8> {
    let mut out = Vec::new();
    cipherlab_seal::encrypt(pt, &mut out, secret, o, None).unwrap();
    out
}

/// Decrypts with the parallel pipeline; returns the result and what was written.
fn open_with(c: &[u8], secret: Secret<'_>, threads: usize) -> (Result<Vec<u8>, Error>, Vec<u8>) {
    let mut out = Vec::new();
    let r = cipherlab_seal::decrypt(c, &mut out, secret, &opts(threads), None);
    let written = out.clone();
    (r.map(|_| out), written)
}

fn open(c: &[u8], k: &KeyFile) -> Result<Vec<u8>, Error> {
    let (a, _) = open_with(c, Secret::Key(k), 1);
    // The Read adapter must agree with the pipeline, error kind included.
    let b = SealReader::new(c, Secret::Key(k)).and_then(|mut r| {
        let mut v = Vec::new();
        r.read_to_end(&mut v).map_err(|e| Error::io("reading", e))?;
        Ok(v)
    });
    match (&a, &b) {
        (Ok(x), Ok(y)) => assert_eq!(x, y),
        (Err(x), Err(y)) => assert_eq!(x.to_string(), y.to_string()),
        _ => panic!("pipeline {a:?} but reader {b:?}"),
    }
    a
}

fn chunks_of(len: usize) -> usize {
    len.div_ceil(CHUNK).max(1)
}

#[test]
fn round_trips_every_aead_every_size() {
    let sizes = [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 2 * CHUNK, 5 * CHUNK + 17];
    let mut n = 0;
    let ciphers = format::container_ciphers();
    for (_, spec) in &ciphers {
        let name = spec.to_string();
        let k = KeyFile::generate(*spec);
        for &len in &sizes {
            let pt = data(len, len as u8);
            for threads in [1, 2] {
                let c = seal(&pt, Secret::Key(&k), &opts(threads));
                let header = c.len() - len - chunks_of(len) * TAG_LEN;
                assert_eq!(
                    header,
                    format::prefix_len(k.spec()) + 12 + 16 + 32,
                    "{name}"
                );
                assert_eq!(open(&c, &k).unwrap(), pt, "{name} {len}");
                // The Write adapter makes the same layout; written a few bytes at a time.
                let mut w = SealWriter::new(Vec::new(), Secret::Key(&k), &opts(1)).unwrap();
                for piece in pt.chunks(7) {
                    w.write_all(piece).unwrap();
                }
                let c2 = w.finish().unwrap();
                assert_eq!(c2.len(), c.len());
                assert_eq!(open(&c2, &k).unwrap(), pt);
                n += 1;
            }
        }
    }
    println!(
        "{n} round trips ({} AEADs x {} sizes x 1 and 2 threads)",
        ciphers.len(),
        sizes.len()
    );
}

#[test]
fn default_chunk_and_many_threads_on_a_larger_input() {
    let k = key("aes-128-gcm");
    let pt = data(5 * (1 << 20) + 3, 9); // several batches of 64 KiB chunks
    for threads in [1, 2, 3, 8] {
        let o = SealOptions {
            threads,
            ..SealOptions::default()
        };
        let c = seal(&pt, Secret::Key(&k), &o);
        let (r, _) = open_with(&c, Secret::Key(&k), 3);
        assert_eq!(r.unwrap(), pt, "{threads} threads");
    }
}

#[test]
fn passphrases_and_wrong_secrets() {
    let pt = data(3000, 1);
    let o = opts(1);
    let c = seal(&pt, Secret::Passphrase(b"correct horse"), &o);
    assert_eq!(
        open_with(&c, Secret::Passphrase(b"correct horse"), 1)
            .0
            .unwrap(),
        pt
    );
    let (r, written) = open_with(&c, Secret::Passphrase(b"correct horsf"), 1);
    assert!(
        matches!(r, Err(Error::WrongKey(Unlock::Passphrase))),
        "{r:?}"
    );
    assert!(written.is_empty());
    let k = key(&format::default_cipher().to_string());
    assert!(matches!(
        open_with(&c, Secret::Key(&k), 1).0,
        Err(Error::WrongUnlock {
            needed: Unlock::Passphrase,
            ..
        })
    ));

    let k1 = key("chacha20-poly1305");
    let k2 = key("chacha20-poly1305");
    let c = seal(&pt, Secret::Key(&k1), &o);
    let (r, written) = open_with(&c, Secret::Key(&k2), 2);
    assert!(matches!(r, Err(Error::WrongKey(Unlock::KeyFile))), "{r:?}");
    assert!(written.is_empty());
    assert!(matches!(
        open(&c, &key("xoodyak")),
        Err(Error::KeyFileCipher { .. })
    ));
    assert!(matches!(
        open_with(&c, Secret::Passphrase(b"x"), 1).0,
        Err(Error::WrongUnlock {
            needed: Unlock::KeyFile,
            ..
        })
    ));
    // A key file's cipher wins; a different --cipher is refused.
    let mut bad = opts(1);
    bad.cipher = Some(CipherSpec::parse("aes-128-gcm").unwrap());
    let e = cipherlab_seal::encrypt(&pt[..], Vec::new(), Secret::Key(&k1), &bad, None).unwrap_err();
    assert!(e.to_string().contains("does not match the key file"), "{e}");
    // Non-AEADs cannot make a container.
    let cbc = key("aes-128-cbc");
    let e = cipherlab_seal::encrypt(&pt[..], Vec::new(), Secret::Key(&cbc), &o, None).unwrap_err();
    assert!(e.to_string().contains("--raw"), "{e}");
}

/// A container of 5 full chunks and a short one, and its header length.
fn sample(k: &KeyFile) -> (Vec<u8>, Vec<u8>, usize) {
    let pt = data(5 * CHUNK + 100, 3);
    let c = seal(&pt, Secret::Key(k), &opts(1));
    let header = c.len() - pt.len() - 6 * TAG_LEN;
    (pt, c, header)
}

#[test]
fn truncation_anywhere_is_detected_with_the_right_error() {
    let k = key("ascon-aead128");
    let (pt, c, header) = sample(&k);
    let stride = CHUNK + TAG_LEN;
    let (mut boundary, mut mid, mut inside_header) = (0, 0, 0);
    for cut in 0..c.len() {
        let r = open(&c[..cut], &k);
        let body = cut.saturating_sub(header);
        match r {
            Err(Error::NotSealed { .. }) if cut == 0 => {}
            Err(Error::Truncated(_)) if cut < header => inside_header += 1,
            Err(Error::Truncated(_)) if body % stride == 0 => boundary += 1,
            Err(Error::CorruptChunk {
                index,
                final_piece: true,
                ..
            }) if cut > header && index == (body / stride) as u64 => mid += 1,
            other => panic!("cut at {cut} (header {header}): {other:?}"),
        }
        // Only whole verified chunks before the cut were released.
        let (_, written) = open_with(&c[..cut], Secret::Key(&k), 2);
        assert_eq!(written, pt[..written.len()]);
        assert_eq!(written.len() % CHUNK, 0);
    }
    println!(
        "truncations: {inside_header} inside the header, {boundary} at chunk boundaries, {mid} mid-chunk: all detected"
    );
    assert_eq!(boundary, 6);
}

fn chunk_range(header: usize, i: usize, len: usize) -> std::ops::Range<usize> {
    let stride = CHUNK + TAG_LEN;
    header + i * stride..(header + (i + 1) * stride).min(len)
}

#[test]
fn reordering_duplication_deletion_and_appending_are_detected() {
    let k = key("aes-256-gcm");
    let (pt, c, h) = sample(&k);
    let mut cases = 0;
    for i in 0..5 {
        // Swap chunks i and i+1.
        let (a, b) = (chunk_range(h, i, c.len()), chunk_range(h, i + 1, c.len()));
        let mut s = c[..a.start].to_vec();
        s.extend_from_slice(&c[b.clone()]);
        s.extend_from_slice(&c[a.clone()]);
        s.extend_from_slice(&c[b.end..]);
        expect_corrupt(&s, &k, i as u64, &pt);
        // Duplicate chunk i.
        let mut d = c[..a.end].to_vec();
        d.extend_from_slice(&c[a.clone()]);
        d.extend_from_slice(&c[a.end..]);
        expect_corrupt(&d, &k, i as u64 + 1, &pt);
        // Delete chunk i.
        let mut e = c[..a.start].to_vec();
        e.extend_from_slice(&c[a.end..]);
        expect_corrupt(&e, &k, i as u64, &pt);
        cases += 3;
    }
    // Bytes after the final chunk: that chunk is no longer the last piece.
    for extra in [&b"x"[..], &[0u8; TAG_LEN], &c[h..h + CHUNK + TAG_LEN]] {
        let mut t = c.clone();
        t.extend_from_slice(extra);
        expect_corrupt(&t, &k, 5, &pt);
        cases += 1;
    }
    println!("{cases} reorder/duplicate/delete/append cases detected");
}

fn expect_corrupt(c: &[u8], k: &KeyFile, chunk: u64, pt: &[u8]) {
    match open(c, k) {
        Err(Error::CorruptChunk { index, .. }) => assert_eq!(index, chunk),
        other => panic!("expected chunk {chunk} to fail: {other:?}"),
    }
    let (_, written) = open_with(c, Secret::Key(k), 2);
    assert_eq!(
        written,
        pt[..chunk as usize * CHUNK],
        "only chunks before {chunk} released"
    );
}

#[test]
fn splicing_from_another_file_is_detected() {
    let k = key("isap-a-128a");
    let (pt, a, h) = sample(&k);
    let (_, b, _) = sample(&k); // same key, same plaintext, same length
    for i in 0..6 {
        let r = chunk_range(h, i, a.len());
        let mut s = a.clone();
        s[r.clone()].copy_from_slice(&b[r]);
        expect_corrupt(&s, &k, i as u64, &pt);
    }
    // A's header with B's chunks.
    let mut s = a[..h].to_vec();
    s.extend_from_slice(&b[h..]);
    expect_corrupt(&s, &k, 0, &pt);
    println!("7 splices detected");
}

#[test]
fn every_header_bit_flip_is_refused() {
    for (name, secret_is_key) in [("chacha20-poly1305", true), ("ascon-128a", false)] {
        let k = key(name);
        let o = SealOptions {
            cipher: Some(*k.spec()),
            ..opts(1)
        };
        let pass = b"passphrase".as_slice();
        let secret = if secret_is_key {
            Secret::Key(&k)
        } else {
            Secret::Passphrase(pass)
        };
        let c = seal(&data(100, 0), secret, &o);
        let header = c.len() - 100 - TAG_LEN;
        let mut kinds = std::collections::BTreeMap::new();
        for bit in 0..header * 8 {
            let mut t = c.clone();
            t[bit / 8] ^= 1 << (bit % 8);
            let (r, written) = open_with(&t, secret, 1);
            let kind = match r {
                Ok(_) => panic!("{name}: header bit {bit} flipped and accepted"),
                Err(Error::NotSealed { .. }) => "not sealed",
                Err(Error::UnsupportedVersion { .. }) => "version",
                Err(Error::UnknownAlgorithm(_)) => "algorithm",
                Err(Error::KeyFileCipher { .. }) => "key file cipher",
                Err(Error::WrongUnlock { .. }) => "kdf",
                Err(Error::BadHeader(_)) => "bad header",
                Err(Error::WrongKey(_)) => "mac",
                Err(Error::CostLimit(_)) => "argon2 cost limit",
                Err(e) => panic!("{name}: bit {bit}: unexpected {e}"),
            };
            assert!(written.is_empty());
            *kinds.entry(kind).or_insert(0) += 1;
        }
        println!("{name}: {} header bit flips refused: {kinds:?}", header * 8);
        assert_eq!(kinds["not sealed"], 64);
        assert_eq!(kinds["version"], 8);
    }
}

#[test]
fn every_payload_bit_flip_is_caught_in_its_chunk() {
    let k = key("xoodyak");
    let pt = data(2 * CHUNK + 10, 5);
    let c = seal(&pt, Secret::Key(&k), &opts(1));
    let h = c.len() - pt.len() - 3 * TAG_LEN;
    let stride = CHUNK + TAG_LEN;
    for bit in (h * 8..c.len() * 8).step_by(3) {
        let mut t = c.clone();
        t[bit / 8] ^= 1 << (bit % 8);
        expect_corrupt(&t, &k, ((bit / 8 - h) / stride) as u64, &pt);
    }
}

#[test]
fn a_damaged_chunk_in_a_large_parallel_run_stops_exactly_there() {
    let k = key("aes-128-gcm");
    let pt = data(3 << 20, 7);
    let o = SealOptions {
        threads: 2,
        ..SealOptions::default()
    };
    let c = seal(&pt, Secret::Key(&k), &o);
    let h = c.len() - pt.len() - 48 * TAG_LEN;
    let chunk = 1 << 16;
    for target in [0usize, 15, 16, 17, 40, 47] {
        let mut t = c.clone();
        t[h + target * (chunk + TAG_LEN) + 5] ^= 0x80;
        let mut out = Vec::new();
        let r = cipherlab_seal::decrypt(&t[..], &mut out, Secret::Key(&k), &o, None);
        assert!(
            matches!(r, Err(Error::CorruptChunk { index, .. }) if index == target as u64),
            "{r:?}"
        );
        assert_eq!(out, pt[..target * chunk]);
    }
}

/// An independent reader written from docs/format.md alone (HKDF, HMAC and the AEAD
/// called directly), so the documentation and the code cannot drift apart.
#[test]
fn the_format_is_what_docs_format_md_says() {
    use hmac::{KeyInit, Mac};
    for name in ["aes-256-gcm", "ascon-aead128"] {
        let k = key(name);
        let pt = data(2 * CHUNK + 1, 2);
        let c = seal(&pt, Secret::Key(&k), &opts(1));
        assert_eq!(&c[..8], b"\x89CLS\r\n\x1a\n");
        assert_eq!(c[8], 1);
        let spec = format::spec_of(c[9]).unwrap();
        assert_eq!(spec.to_string(), name);
        assert_eq!((c[10], c[11]), (LOG2, 0));
        let salt = &c[12..28];
        let nonce_len = spec.iv_len();
        let body_len = 28 + nonce_len - 5;
        let (body, mac) = (&c[..body_len], &c[body_len..body_len + 32]);
        let hk = hkdf::Hkdf::<sha2::Sha256>::new(Some(salt), k.key());
        let mut mac_key = [0u8; 32];
        hk.expand(b"cipherlab-seal v1 header mac", &mut mac_key)
            .unwrap();
        let mut m = <hmac::Hmac<sha2::Sha256> as KeyInit>::new_from_slice(&mac_key).unwrap();
        m.update(body);
        m.verify_slice(mac).unwrap();
        let mut payload_key = vec![0u8; spec.key_len()];
        let info = [&b"cipherlab-seal v1 payload"[..], body].concat();
        hk.expand(&info, &mut payload_key).unwrap();
        let mut aead = cipherlab_ciphers::providers::init(&spec, &payload_key, None).unwrap();
        let mut out = Vec::new();
        let pieces: Vec<&[u8]> = c[body_len + 32..].chunks(CHUNK + TAG_LEN).collect();
        for (i, piece) in pieces.iter().enumerate() {
            let mut nonce = c[28..body_len].to_vec();
            nonce.extend_from_slice(&(i as u32).to_be_bytes());
            nonce.push(u8::from(i + 1 == pieces.len()));
            let mut buf = piece.to_vec();
            let n = aead.decrypt(&nonce, &[], &mut buf).unwrap();
            out.extend_from_slice(&buf[..n]);
        }
        assert_eq!(out, pt);
    }
}

/// A fixed header (salt and prefix chosen, never do this outside tests) gives a fixed
/// container: the format cannot change by accident.
#[test]
fn fixed_header_known_answer() {
    let spec = CipherSpec::parse("chacha20-poly1305").unwrap();
    let k = KeyFile::from_key(spec, &[0x42; 32]).unwrap();
    let header = Header {
        cipher: spec,
        chunk_log2: LOG2,
        kdf: Kdf::KeyFile,
        salt: [1; 16],
        nonce_prefix: vec![2; 7],
    };
    let mut w = SealWriter::with_fixed_header(Vec::new(), header, Secret::Key(&k)).unwrap();
    w.write_all(b"cipherlab").unwrap();
    let c = w.finish().unwrap();
    assert_eq!(
        hex::encode(&c),
        "89434c530d0a1a0a01040a0001010101010101010101010101010101020202020202028e96b7e55b2056bf94b52de8c621eb66ad5ae527fcd148589ebc9d94b071c54b7630c9cd116d5ff6599cf90e5d06918b5ce35786c66dc81331"
    );
    assert_eq!(open(&c, &k).unwrap(), b"cipherlab");
}
