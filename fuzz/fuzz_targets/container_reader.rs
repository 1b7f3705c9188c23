//! The container reader on hostile input: it must never panic, and whatever it accepts
//! must be exactly what was sealed.
//!
//! The first byte picks a mode:
//! - 0: the rest is a whole container, read with a fixed key (the header parser);
//! - 1: a valid header (fixed key, salt and nonce prefix) followed by arbitrary chunks
//!   (piece splitting, short and empty pieces);
//! - 2: arbitrary plaintext sealed under that header, then damaged (bit flip,
//!   truncation, chunk duplication, swap or deletion, appended bytes): decryption must
//!   fail, or give back the plaintext unchanged.
#![no_main]

use std::io::Read;

use cipherlab_seal::format::{self, Header, Kdf};
use cipherlab_seal::{KeyFile, SealOptions, SealReader, SealWriter, Secret};
use libfuzzer_sys::fuzz_target;

fn key_for(id: u8) -> Option<KeyFile> {
    let spec = format::spec_of(id).ok()?;
    KeyFile::from_key(spec, &vec![7u8; spec.key_len()]).ok()
}

fn opts() -> SealOptions {
    SealOptions {
        threads: 1,
        ..SealOptions::default()
    }
}

/// Decrypts with both readers; they must agree. Returns the plaintext if accepted.
fn open(container: &[u8], key: &KeyFile) -> Option<Vec<u8>> {
    let mut a = Vec::new();
    let ra = cipherlab_seal::decrypt(container, &mut a, Secret::Key(key), &opts(), None);
    let mut b = Vec::new();
    let rb = SealReader::new(container, Secret::Key(key)).and_then(|mut r| {
        r.read_to_end(&mut b).map_err(|e| cipherlab_seal::Error::io("reading", e))
    });
    assert_eq!(ra.is_ok(), rb.is_ok(), "the two readers disagree");
    if let (Err(ea), Err(eb)) = (&ra, &rb) {
        assert_eq!(ea.kind(), eb.kind(), "{ea} / {eb}");
        return None;
    }
    assert_eq!(a, b);
    Some(a)
}

fn fixed_header(id: u8, log2: u8) -> Option<Header> {
    let cipher = format::spec_of(id).ok()?;
    Some(Header {
        cipher,
        chunk_log2: log2,
        kdf: Kdf::KeyFile,
        salt: [1; 16],
        nonce_prefix: vec![2; format::prefix_len(&cipher)],
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    match mode % 3 {
        0 => {
            let id = rest.get(9).copied().unwrap_or(1);
            let key = key_for(id).or_else(|| key_for(1));
            if let Some(key) = key {
                let _ = open(rest, &key);
            }
        }
        _ => {
            let [id, log2, op, at_hi, at_lo, body @ ..] = rest else {
                return;
            };
            let id = 1 + id % 13;
            let log2 = 10 + log2 % 2; // 1 or 2 KiB chunks: many chunks from little input
            let (Some(header), Some(key)) = (fixed_header(id, log2), key_for(id)) else {
                return;
            };
            let mut w = match SealWriter::with_fixed_header(Vec::new(), header, Secret::Key(&key)) {
                Ok(w) => w,
                Err(e) => panic!("fixed header refused: {e}"),
            };
            if mode % 3 == 1 {
                let mut c = w.finish().unwrap_or_default();
                let header_len = c.len() - 16; // the empty final chunk is only its tag
                c.truncate(header_len);
                c.extend_from_slice(body);
                let _ = open(&c, &key);
                return;
            }
            std::io::Write::write_all(&mut w, body).unwrap_or(());
            let sealed = w.finish().unwrap_or_default();
            let header_len = sealed.len() - (body.len() + body.len().div_ceil(1 << log2).max(1) * 16);
            let at = usize::from(*at_hi) << 8 | usize::from(*at_lo);
            let stride = (1usize << log2) + 16;
            let chunks = (sealed.len() - header_len).div_ceil(stride);
            let mut c = sealed.clone();
            let changed = match op % 7 {
                0 => false,
                1 => {
                    let i = at % c.len();
                    c[i] ^= 1 << (at % 8);
                    true
                }
                2 => {
                    c.truncate(at % c.len());
                    true
                }
                3 | 4 | 5 if chunks >= 2 => {
                    let i = header_len + (at % (chunks - 1)) * stride;
                    let first = sealed[i..i + stride].to_vec();
                    let second_end = (i + 2 * stride).min(sealed.len());
                    let second = sealed[i + stride..second_end].to_vec();
                    let (range, replacement) = match op % 7 {
                        3 => (i..i, first.clone()), // duplicate
                        4 => {
                            let mut swapped = second.clone();
                            swapped.extend_from_slice(&first);
                            (i..second_end, swapped) // swap
                        }
                        _ => (i..i + stride, Vec::new()), // delete
                    };
                    c.splice(range, replacement);
                    true
                }
                6 => {
                    c.push(*at_lo);
                    true
                }
                _ => false,
            };
            match open(&c, &key) {
                Some(pt) => assert!(
                    !changed && pt == body,
                    "a damaged container was accepted (op {})",
                    op % 7
                ),
                None => assert!(changed, "an intact container was refused"),
            }
        }
    }
});
