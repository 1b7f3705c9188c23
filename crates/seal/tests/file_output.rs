//! `encrypt_to` / `decrypt_to` into a file `Output`: the workers write their batches at
//! their own offsets, so the order of the output must come from the offsets alone. The
//! files must equal what the in-order pipeline writes (the same header, so byte for
//! byte after the header's random parts are shared: checked by decrypting both ways),
//! at every size around batch edges and for any number of threads; a damaged chunk
//! must fail with its index and leave no destination file.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::path::Path;

use cipherlab_seal::format::TAG_LEN;
use cipherlab_seal::{CipherSpec, Error, KeyFile, Output, SealOptions, Secret};

const LOG2: u8 = 10; // 1 KiB chunks: a batch (1 MiB) is 1024 chunks
const CHUNK: usize = 1 << LOG2;
const BATCH: usize = 1 << 20;

fn data(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u32).wrapping_mul(2_654_435_761).to_be_bytes()[1] ^ seed)
        .collect()
}

fn opts(threads: usize) -> SealOptions {
    SealOptions {
        chunk_log2: LOG2,
        threads,
        ..SealOptions::default()
    }
}

fn seal_file(pt: &[u8], k: &KeyFile, threads: usize, dest: &Path) {
    let mut out = Output::file(dest, true).unwrap();
    let s = cipherlab_seal::encrypt_to(pt, &mut out, Secret::Key(k), &opts(threads), None).unwrap();
    out.commit().unwrap();
    assert_eq!(s.bytes_in, pt.len() as u64);
    assert_eq!(s.bytes_out, fs::metadata(dest).unwrap().len());
}

fn open_file(c: &[u8], k: &KeyFile, threads: usize, dest: &Path) -> Result<Vec<u8>, Error> {
    let mut out = Output::file(dest, true)?;
    cipherlab_seal::decrypt_to(c, &mut out, Secret::Key(k), &opts(threads), None)?;
    out.commit()?;
    Ok(fs::read(dest).unwrap())
}

#[test]
fn files_round_trip_at_batch_edges_with_any_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let (sealed, opened) = (dir.path().join("c"), dir.path().join("p"));
    let k = KeyFile::generate(CipherSpec::parse("aes-256-gcm").unwrap());
    let sizes = [
        0,
        1,
        BATCH - 1,
        BATCH,
        BATCH + 1,
        2 * BATCH,
        2 * BATCH + CHUNK,
        3 * BATCH - CHUNK + 7,
        5 * BATCH + 3,
    ];
    for (i, &len) in sizes.iter().enumerate() {
        let pt = data(len, i as u8);
        for threads in [1, 2, 3, 8] {
            seal_file(&pt, &k, threads, &sealed);
            let c = fs::read(&sealed).unwrap();
            // The in-order pipeline reads what the workers wrote...
            let mut back = Vec::new();
            cipherlab_seal::decrypt(&c[..], &mut back, Secret::Key(&k), &opts(1), None).unwrap();
            assert!(back == pt, "{len} bytes, {threads} threads: sealed file");
            // ...and the workers' own decryption into a file agrees.
            let p = open_file(&c, &k, threads, &opened).unwrap();
            assert!(p == pt, "{len} bytes, {threads} threads: opened file");
        }
    }
}

#[test]
fn a_damaged_chunk_fails_with_its_index_and_leaves_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let k = KeyFile::generate(CipherSpec::parse("ascon-aead128").unwrap());
    let pt = data(4 * BATCH + 100, 9);
    let sealed = dir.path().join("c");
    seal_file(&pt, &k, 2, &sealed);
    let c = fs::read(&sealed).unwrap();
    let chunks = pt.len().div_ceil(CHUNK);
    let header = c.len() - pt.len() - chunks * TAG_LEN;
    for target in [0, 1023, 1024, 2047, 3000, chunks - 1] {
        let mut t = c.clone();
        t[header + target * (CHUNK + TAG_LEN) + 3] ^= 1;
        let dest = dir.path().join(format!("p{target}"));
        let r = open_file(&t, &k, 2, &dest);
        assert!(
            matches!(r, Err(Error::CorruptChunk { index, .. }) if index == target as u64),
            "chunk {target}: {r:?}"
        );
        assert!(
            !dest.exists(),
            "chunk {target}: a destination file was left"
        );
    }
    // Cut short at a batch edge: the final chunk is missing.
    let cut = header + 2 * 1024 * (CHUNK + TAG_LEN);
    let dest = dir.path().join("cut");
    let r = open_file(&c[..cut], &k, 2, &dest);
    assert!(matches!(r, Err(Error::Truncated(_))), "{r:?}");
    assert!(!dest.exists());
    // No temporary files left behind either.
    let left: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["c"], "{left:?}");
}
