//! Skipjack: the specification's known-answer vector (and all 32 round states),
//! round trips, agreement with the `skipjack` 0.2 crate, and the RustCrypto mode
//! crates driving `Skipjack`.

use cipher::{
    Block, BlockCipherDecrypt, BlockCipherEncrypt, BlockModeDecrypt, BlockModeEncrypt, KeyInit,
    KeyIvInit, StreamCipher,
};
use cipherlab_ciphers::skipjack::{PAR_BLOCKS, Skipjack};
use cipherlab_testkit::kat::excerpts_dir;
use cipherlab_testkit::{Record, parse, run_kat, same};
use rand::rngs::StdRng;
use rand::{Rng, RngCore, SeedableRng};

/// The KAT file: the specification's vector, then the state after each of the 32 rounds.
const KAT_FILE: &str = "skipjack/skipjack_nist_kat.txt";

// ---------------------------------------------------------------------------
// helpers

/// Hex field `name` of `rec` as an `N`-byte array.
fn field<const N: usize>(rec: &Record, name: &str) -> Result<[u8; N], String> {
    let v = rec.hex(name)?;
    <[u8; N]>::try_from(v.as_slice())
        .map_err(|_| format!("{}: {name} is {} bytes, expected {N}", rec.id(), v.len()))
}

/// The specification's vector (key, plaintext, ciphertext), from the built-in excerpt of
/// the KAT file, so it runs without the KAT folder.
fn spec_vector() -> ([u8; 10], [u8; 8], [u8; 8]) {
    let path = excerpts_dir().join(KAT_FILE);
    let recs = parse(&path, KAT_FILE).unwrap_or_else(|e| panic!("{e}"));
    let read = |r: &Record| -> Result<_, String> {
        Ok((
            field(r, "KEY")?,
            field(r, "PLAINTEXT")?,
            field(r, "CIPHERTEXT")?,
        ))
    };
    read(&recs[0]).unwrap_or_else(|e| panic!("{e}"))
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
    let (key, pt, ct) = spec_vector();
    let ok = ref_enc(&key, pt) == ct && ref_dec(&key, ct) == pt;
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
// tests

#[test]
fn builtin_spec_vector() {
    let (key, pt, ct) = spec_vector();
    let c = Skipjack::new(&key.into());
    assert_eq!(enc(&c, pt), ct);
    assert_eq!(dec(&c, ct), pt);
    assert_eq!(c.encrypt_rounds_trace(&pt)[31], ct);

    // The same vector through the multi-block path (full chunks and a tail).
    let n = 2 * PAR_BLOCKS + 3;
    let mut blocks = vec![Block::<Skipjack>::from(pt); n];
    c.encrypt_blocks(&mut blocks);
    assert!(blocks.iter().all(|b| b.as_slice() == ct));
    c.decrypt_blocks(&mut blocks);
    assert!(blocks.iter().all(|b| b.as_slice() == pt));
}

/// The KAT file (its excerpt, and the whole file): each `[ENCRYPT]` vector encrypts and
/// decrypts, and the `[INTERMEDIATE]` states are the rounds of the vector before them.
#[test]
fn kat_file_vector_and_round_states() {
    let mut trace: Option<[[u8; 8]; 32]> = None;
    let mut seen = [false; 32];
    let whole = run_kat(KAT_FILE, Some(33), |rec, ctx| {
        let id = rec.id();
        if rec.section() == Some("INTERMEDIATE") {
            let round = rec.num("ROUND")?;
            let state: [u8; 8] = field(rec, "STATE")?;
            let t = trace.ok_or(format!("{id}: a round state before any vector"))?;
            let want = t
                .get(round.wrapping_sub(1))
                .ok_or(format!("{id}: ROUND {round} is not 1..=32"))?;
            same(&id, &format!("state after round {round}"), want, &state)?;
            seen[round - 1] = true;
            ctx.ran("encrypt_rounds_trace");
            return Ok(());
        }
        rec.decrypting()?;
        let key: [u8; 10] = field(rec, "KEY")?;
        let pt: [u8; 8] = field(rec, "PLAINTEXT")?;
        let ct: [u8; 8] = field(rec, "CIPHERTEXT")?;
        let c = Skipjack::new(&key.into());
        same(&id, "encrypt", &enc(&c, pt), &ct)?;
        same(&id, "decrypt", &dec(&c, ct), &pt)?;
        let t = c.encrypt_rounds_trace(&pt);
        same(&id, "round 32", &t[31], &ct)?;
        trace = Some(t);
        ctx.ran("Skipjack");
        Ok(())
    });
    if whole.is_some() {
        assert!(
            seen.iter().all(|&s| s),
            "rounds missing from [INTERMEDIATE]: {seen:?}"
        );
    }
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
