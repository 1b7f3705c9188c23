//! Skipjack throughput in TSC cycles per byte: ours (through the `cipher` traits and
//! the RustCrypto mode crates) against the `skipjack` 0.2 crate, side by side in one
//! run over a 1 MiB buffer. Each measurement is repeated and the median reported;
//! the contenders alternate run by run so background load hits both alike.
//!
//! `cargo bench -p cipherlab-ciphers --bench skipjack` (`SKIPJACK_BENCH_RUNS=N` to
//! change the number of runs, default 41).
//!
//! The cycle counter is `rdtsc` (with fences) as read by `criterion-cycles-per-byte`;
//! on current x86 it ticks at the nominal (invariant TSC) rate, not the boosted clock.

use std::hint::black_box;

use cipher::{
    Block, BlockCipherDecrypt, BlockCipherEncrypt, BlockModeEncrypt, KeyInit, KeyIvInit,
    StreamCipher,
};
use cipherlab_ciphers::skipjack::Skipjack;
use criterion::measurement::Measurement;
use criterion_cycles_per_byte::CyclesPerByte;

const LEN: usize = 1 << 20;
const KEY: [u8; 10] = [0x00, 0x99, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11];
const IV: [u8; 8] = [0x24; 8];

/// Cycles per byte of one call of `f` over the `LEN`-byte buffer.
fn cpb(f: &mut dyn FnMut()) -> f64 {
    let start = CyclesPerByte.start();
    f();
    let cycles = CyclesPerByte.end(start);
    cycles as f64 / LEN as f64
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` does not: run once, quickly.
    let quick = !std::env::args().any(|a| a == "--bench");
    let runs: usize = match std::env::var("SKIPJACK_BENCH_RUNS") {
        Ok(s) => s.parse().unwrap_or(41),
        Err(_) if quick => 1,
        Err(_) => 41,
    };

    let ours = Skipjack::new(&KEY.into());
    let mut blocks: Vec<Block<Skipjack>> = (0..LEN / 8)
        .map(|i| {
            Block::<Skipjack>::from((i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15).to_be_bytes())
        })
        .collect();
    let mut bytes = vec![0x5au8; LEN];
    let mut words: Vec<u64> = (0..LEN as u64 / 8).collect();

    let names = [
        "ours    ECB encrypt (encrypt_blocks)",
        "skipjack 0.2 ECB encrypt (encrypt_block per u64)",
        "ours    ECB decrypt (decrypt_blocks)",
        "skipjack 0.2 ECB decrypt (decrypt_block per u64)",
        "ours    ECB encrypt via ecb::Encryptor",
        "ours    CTR (ctr::Ctr64BE)",
        "ours    CBC encrypt (cbc::Encryptor, one block at a time)",
    ];
    let mut results: Vec<Vec<f64>> = vec![Vec::with_capacity(runs); names.len()];

    // warm-up
    ours.encrypt_blocks(&mut blocks);
    for _ in 0..runs {
        results[0].push(cpb(&mut || ours.encrypt_blocks(black_box(&mut blocks))));
        results[1].push(cpb(&mut || {
            for w in black_box(&mut words).iter_mut() {
                *w = skipjack::skipjack::encrypt_block(*w, KEY);
            }
        }));
        results[2].push(cpb(&mut || ours.decrypt_blocks(black_box(&mut blocks))));
        results[3].push(cpb(&mut || {
            for w in black_box(&mut words).iter_mut() {
                *w = skipjack::skipjack::decrypt_block(*w, KEY);
            }
        }));
        results[4].push(cpb(&mut || {
            ecb::Encryptor::<Skipjack>::new(&KEY.into()).encrypt_blocks(black_box(&mut blocks));
        }));
        results[5].push(cpb(&mut || {
            ctr::Ctr64BE::<Skipjack>::new(&KEY.into(), &IV.into())
                .apply_keystream(black_box(&mut bytes));
        }));
        results[6].push(cpb(&mut || {
            cbc::Encryptor::<Skipjack>::new(&KEY.into(), &IV.into())
                .encrypt_blocks(black_box(&mut blocks));
        }));
    }
    black_box((&blocks, &bytes, &words));

    println!("Skipjack, 1 MiB buffer, median of {runs} runs, TSC cycles/byte:");
    let med: Vec<f64> = results.iter_mut().map(|r| median(r)).collect();
    for (name, m) in names.iter().zip(&med) {
        println!("  {name:<58} {m:8.2}");
    }
    println!(
        "  ratio skipjack-0.2 / ours: encrypt {:.2}x, decrypt {:.2}x",
        med[1] / med[0],
        med[3] / med[2]
    );
}
