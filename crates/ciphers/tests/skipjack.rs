//! Skipjack: the specification's known-answer vector (and all 32 round states),
//! round trips, agreement with the `skipjack` 0.2 crate, and the RustCrypto mode
//! crates driving `Skipjack`.

use std::path::PathBuf;

use cipher::{
    Block, BlockCipherDecrypt, BlockCipherEncrypt, BlockModeDecrypt, BlockModeEncrypt, KeyInit,
    KeyIvInit, StreamCipher,
};
use cipherlab_ciphers::skipjack::{PAR_BLOCKS, Skipjack};
use rand::rngs::StdRng;
use rand::{Rng, RngCore, SeedableRng};

/// The vector printed in the specification (Annex III.A), written into the source so
/// it runs even without the KAT folder.
const SPEC_KEY: [u8; 10] = [0x00, 0x99, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11];
const SPEC_PT: [u8; 8] = [0x33, 0x22, 0x11, 0x00, 0xdd, 0xcc, 0xbb, 0xaa];
const SPEC_CT: [u8; 8] = [0x25, 0x87, 0xca, 0xe2, 0x7a, 0x12, 0xd3, 0x00];

// ---------------------------------------------------------------------------
// helpers

fn hex_bytes<const N: usize>(s: &str) -> [u8; N] {
    let v = match hex::decode(s.trim()) {
        Ok(v) => v,
        Err(e) => panic!("bad hex {s:?}: {e}"),
    };
    match <[u8; N]>::try_from(v.as_slice()) {
        Ok(a) => a,
        Err(_) => panic!("{s:?} is {} bytes, expected {N}", v.len()),
    }
}

fn rng() -> StdRng {
    let seed = match std::env::var("CIPHERLAB_TEST_SEED") {
        Ok(s) => s.parse().unwrap_or(0),
        Err(_) => rand::rng().next_u64(),
    };
    println!("seed {seed} (set CIPHERLAB_TEST_SEED to replay)");
    StdRng::seed_from_u64(seed)
}

fn enc(c: &Skipjack, b: [u8; 8]) -> [u8; 8] {
    let mut blk = Block::<Skipjack>::from(b);
    c.encrypt_block(&mut blk);
    blk.into()
}

fn dec(c: &Skipjack, b: [u8; 8]) -> [u8; 8] {
    let mut blk = Block::<Skipjack>::from(b);
    c.decrypt_block(&mut blk);
    blk.into()
}

/// Encryption by the independent `skipjack` 0.2 crate (big-endian block as u64).
fn ref_enc(key: &[u8; 10], b: [u8; 8]) -> [u8; 8] {
    skipjack::skipjack::encrypt_block(u64::from_be_bytes(b), *key).to_be_bytes()
}

fn ref_dec(key: &[u8; 10], b: [u8; 8]) -> [u8; 8] {
    skipjack::skipjack::decrypt_block(u64::from_be_bytes(b), *key).to_be_bytes()
}

/// Whether the `skipjack` crate reproduces the specification's vector; the
/// comparisons against it are skipped (with a message) if not.
fn reference_ok() -> bool {
    let ok = ref_enc(&SPEC_KEY, SPEC_PT) == SPEC_CT && ref_dec(&SPEC_KEY, SPEC_CT) == SPEC_PT;
    if !ok {
        println!("SKIP: the skipjack 0.2 crate does not reproduce the NIST vector");
    }
    ok
}

fn random_blocks(rng: &mut StdRng, n: usize) -> Vec<Block<Skipjack>> {
    (0..n)
        .map(|_| Block::<Skipjack>::from(rng.random::<[u8; 8]>()))
        .collect()
}

// ---------------------------------------------------------------------------
// KAT file

/// `CIPHERLAB_KAT_DIR`, or `../shared/kat` beside the workspace; `None` (with a
/// SKIP line) when absent.
fn kat_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("CIPHERLAB_KAT_DIR") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/kat"),
    };
    if dir.is_dir() {
        Some(dir)
    } else {
        println!(
            "SKIP: KAT folder {} not found (set CIPHERLAB_KAT_DIR); only the built-in vector ran",
            dir.display()
        );
        None
    }
}

/// One `KEY = VALUE` record of the file, with the section it is in.
struct Record {
    section: String,
    fields: Vec<(String, String)>,
}

impl Record {
    fn get(&self, name: &str) -> &str {
        match self.fields.iter().find(|(k, _)| k == name) {
            Some((_, v)) => v,
            None => panic!("[{}] record lacks {name}: {:?}", self.section, self.fields),
        }
    }
}

/// Parses the Skipjack KAT file: `[SECTION]` headers, `#` comments, records of
/// `NAME = HEX` lines separated by blank lines.
fn kat_records() -> Option<Vec<Record>> {
    let path = kat_dir()?.join("skipjack/skipjack_nist_kat.txt");
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => panic!("KAT folder present but {} unreadable: {e}", path.display()),
    };
    let mut out = Vec::new();
    let mut section = String::new();
    let mut cur: Vec<(String, String)> = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('[') {
            if !cur.is_empty() {
                out.push(Record {
                    section: section.clone(),
                    fields: std::mem::take(&mut cur),
                });
            }
            if let Some(s) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                section = s.to_string();
            }
        } else if !line.starts_with('#') {
            let Some((k, v)) = line.split_once('=') else {
                panic!("unparsable KAT line {line:?}");
            };
            cur.push((k.trim().to_string(), v.trim().to_string()));
        }
    }
    if !cur.is_empty() {
        out.push(Record {
            section,
            fields: cur,
        });
    }
    Some(out)
}

// ---------------------------------------------------------------------------
// tests

#[test]
fn builtin_spec_vector() {
    let c = Skipjack::new(&SPEC_KEY.into());
    assert_eq!(enc(&c, SPEC_PT), SPEC_CT);
    assert_eq!(dec(&c, SPEC_CT), SPEC_PT);
    assert_eq!(c.encrypt_rounds_trace(&SPEC_PT)[31], SPEC_CT);

    // The same vector through the multi-block path (full chunks and a tail).
    let n = 2 * PAR_BLOCKS + 3;
    let mut blocks = vec![Block::<Skipjack>::from(SPEC_PT); n];
    c.encrypt_blocks(&mut blocks);
    assert!(blocks.iter().all(|b| b.as_slice() == SPEC_CT));
    c.decrypt_blocks(&mut blocks);
    assert!(blocks.iter().all(|b| b.as_slice() == SPEC_PT));
}

#[test]
fn kat_file_encrypt_decrypt() {
    let Some(records) = kat_records() else { return };
    let mut n = 0;
    for r in records.iter().filter(|r| r.section == "ENCRYPT") {
        let key: [u8; 10] = hex_bytes(r.get("KEY"));
        let pt: [u8; 8] = hex_bytes(r.get("PLAINTEXT"));
        let ct: [u8; 8] = hex_bytes(r.get("CIPHERTEXT"));
        let c = Skipjack::new(&key.into());
        assert_eq!(enc(&c, pt), ct, "COUNT {} encrypt", r.get("COUNT"));
        assert_eq!(dec(&c, ct), pt, "COUNT {} decrypt", r.get("COUNT"));
        n += 1;
    }
    assert!(n >= 1, "no [ENCRYPT] record in the KAT file");
}

#[test]
fn kat_file_intermediate_rounds() {
    let Some(records) = kat_records() else { return };
    let first = match records.iter().find(|r| r.section == "ENCRYPT") {
        Some(r) => r,
        None => panic!("no [ENCRYPT] record in the KAT file"),
    };
    let c = Skipjack::new(&hex_bytes::<10>(first.get("KEY")).into());
    let trace = c.encrypt_rounds_trace(&hex_bytes(first.get("PLAINTEXT")));
    let mut seen = [false; 32];
    for r in records.iter().filter(|r| r.section == "INTERMEDIATE") {
        let round: usize = match r.get("ROUND").parse() {
            Ok(x) if (1..=32).contains(&x) => x,
            _ => panic!("bad ROUND {:?}", r.get("ROUND")),
        };
        let state: [u8; 8] = hex_bytes(r.get("STATE"));
        assert_eq!(
            hex::encode(trace[round - 1]),
            hex::encode(state),
            "state after round {round}"
        );
        seen[round - 1] = true;
    }
    assert!(
        seen.iter().all(|&s| s),
        "rounds missing from [INTERMEDIATE]: {seen:?}"
    );
    assert_eq!(trace[31], hex_bytes::<8>(first.get("CIPHERTEXT")));
}

#[test]
fn trace_matches_block_encryption() {
    let mut rng = rng();
    for _ in 0..200 {
        let c = Skipjack::new(&rng.random::<[u8; 10]>().into());
        let pt: [u8; 8] = rng.random();
        assert_eq!(c.encrypt_rounds_trace(&pt)[31], enc(&c, pt));
    }
}

#[test]
fn roundtrip_random() {
    let mut rng = rng();
    for i in 0..500 {
        let c = Skipjack::new(&rng.random::<[u8; 10]>().into());
        let pt: [u8; 8] = rng.random();
        let ct = enc(&c, pt);
        assert_ne!(ct, pt);
        assert_eq!(dec(&c, ct), pt);

        // multi-block path, lengths around the chunk size
        let blocks = random_blocks(&mut rng, i % (3 * PAR_BLOCKS + 1));
        let mut buf = blocks.clone();
        c.encrypt_blocks(&mut buf);
        for (p, e) in blocks.iter().zip(&buf) {
            assert_eq!(enc(&c, (*p).into()), <[u8; 8]>::from(*e));
        }
        c.decrypt_blocks(&mut buf);
        assert_eq!(buf, blocks);
    }
}

#[test]
fn agrees_with_skipjack_crate() {
    if !reference_ok() {
        return;
    }
    let mut rng = rng();
    for _ in 0..300 {
        let key: [u8; 10] = rng.random();
        let c = Skipjack::new(&key.into());
        let blocks = random_blocks(&mut rng, 2 * PAR_BLOCKS + 5);
        let mut ours = blocks.clone();
        c.encrypt_blocks(&mut ours);
        for (p, e) in blocks.iter().zip(&ours) {
            let p: [u8; 8] = (*p).into();
            let e: [u8; 8] = (*e).into();
            assert_eq!(e, ref_enc(&key, p), "key {}", hex::encode(key));
            assert_eq!(dec(&c, p), ref_dec(&key, p), "key {}", hex::encode(key));
        }
        let mut back = ours.clone();
        c.decrypt_blocks(&mut back);
        assert_eq!(back, blocks);
    }
}

/// Reference CBC encryption by hand with the `skipjack` crate.
fn ref_cbc(key: &[u8; 10], iv: [u8; 8], data: &[u8]) -> Vec<u8> {
    let mut prev = iv;
    let mut out = Vec::with_capacity(data.len());
    for chunk in data.chunks_exact(8) {
        let mut x = prev;
        x.iter_mut().zip(chunk).for_each(|(a, b)| *a ^= b);
        prev = ref_enc(key, x);
        out.extend_from_slice(&prev);
    }
    out
}

/// Reference CTR (64-bit big-endian counter = whole block) with the `skipjack` crate.
fn ref_ctr(key: &[u8; 10], iv: [u8; 8], data: &[u8]) -> Vec<u8> {
    let mut ctr = u64::from_be_bytes(iv);
    let mut out = Vec::with_capacity(data.len());
    for chunk in data.chunks(8) {
        let ks = ref_enc(key, ctr.to_be_bytes());
        ctr = ctr.wrapping_add(1);
        out.extend(chunk.iter().zip(ks).map(|(a, b)| a ^ b));
    }
    out
}

#[test]
fn cbc_mode_roundtrip() {
    type Enc = cbc::Encryptor<Skipjack>;
    type Dec = cbc::Decryptor<Skipjack>;
    let check_ref = reference_ok();
    let mut rng = rng();
    for len_blocks in [0usize, 1, 7, 8, 9, 64, 1000] {
        let key: [u8; 10] = rng.random();
        let iv: [u8; 8] = rng.random();
        let pt = random_blocks(&mut rng, len_blocks);
        let mut buf = pt.clone();
        Enc::new(&key.into(), &iv.into()).encrypt_blocks(&mut buf);
        if check_ref {
            let flat_pt: Vec<u8> = pt.iter().flat_map(|b| b.iter().copied()).collect();
            let flat_ct: Vec<u8> = buf.iter().flat_map(|b| b.iter().copied()).collect();
            assert_eq!(flat_ct, ref_cbc(&key, iv, &flat_pt));
        }
        Dec::new(&key.into(), &iv.into()).decrypt_blocks(&mut buf);
        assert_eq!(buf, pt);
    }
}

#[test]
fn ctr_mode_roundtrip() {
    type Ctr = ctr::Ctr64BE<Skipjack>;
    let check_ref = reference_ok();
    let mut rng = rng();
    for len in [0usize, 1, 7, 8, 9, 63, 64, 65, 1000, 8191] {
        let key: [u8; 10] = rng.random();
        let mut iv: [u8; 8] = rng.random();
        if len == 1000 {
            iv = [0xff; 8]; // counter wraps
        }
        let mut pt = vec![0u8; len];
        rng.fill_bytes(&mut pt);
        let mut buf = pt.clone();
        Ctr::new(&key.into(), &iv.into()).apply_keystream(&mut buf);
        if check_ref {
            assert_eq!(buf, ref_ctr(&key, iv, &pt), "len {len}");
        }
        // decrypt in odd-sized pieces (streaming)
        let mut c = Ctr::new(&key.into(), &iv.into());
        for piece in buf.chunks_mut(13) {
            c.apply_keystream(piece);
        }
        assert_eq!(buf, pt);
    }
}

#[test]
fn other_modes_roundtrip() {
    let mut rng = rng();
    let key: [u8; 10] = rng.random();
    let iv: [u8; 8] = rng.random();
    let mut pt = vec![0u8; 1001];
    rng.fill_bytes(&mut pt);

    // ECB on whole blocks equals per-block encryption
    let c = Skipjack::new(&key.into());
    let blocks = random_blocks(&mut rng, 77);
    let mut buf = blocks.clone();
    ecb::Encryptor::<Skipjack>::new(&key.into()).encrypt_blocks(&mut buf);
    for (p, e) in blocks.iter().zip(&buf) {
        assert_eq!(enc(&c, (*p).into()), <[u8; 8]>::from(*e));
    }
    ecb::Decryptor::<Skipjack>::new(&key.into()).decrypt_blocks(&mut buf);
    assert_eq!(buf, blocks);

    // CFB (full block)
    let mut buf = pt.clone();
    cfb_mode::Encryptor::<Skipjack>::new(&key.into(), &iv.into()).encrypt(&mut buf);
    assert_ne!(buf, pt);
    assert_eq!(&buf[..8], &xor8(&enc(&c, iv), &pt[..8]));
    cfb_mode::Decryptor::<Skipjack>::new(&key.into(), &iv.into()).decrypt(&mut buf);
    assert_eq!(buf, pt);

    // CFB-8
    let mut buf = pt.clone();
    cfb8::Encryptor::<Skipjack>::new(&key.into(), &iv.into()).encrypt(&mut buf);
    assert_ne!(buf, pt);
    assert_eq!(buf[0], enc(&c, iv)[0] ^ pt[0]);
    cfb8::Decryptor::<Skipjack>::new(&key.into(), &iv.into()).decrypt(&mut buf);
    assert_eq!(buf, pt);

    // OFB
    let mut buf = pt.clone();
    ofb::Ofb::<Skipjack>::new(&key.into(), &iv.into()).apply_keystream(&mut buf);
    let ks1 = enc(&c, iv);
    let ks2 = enc(&c, ks1);
    assert_eq!(&buf[..8], &xor8(&ks1, &pt[..8]));
    assert_eq!(&buf[8..16], &xor8(&ks2, &pt[8..16]));
    ofb::Ofb::<Skipjack>::new(&key.into(), &iv.into()).apply_keystream(&mut buf);
    assert_eq!(buf, pt);
}

fn xor8(a: &[u8; 8], b: &[u8]) -> [u8; 8] {
    let mut out = *a;
    out.iter_mut().zip(b).for_each(|(x, y)| *x ^= y);
    out
}
