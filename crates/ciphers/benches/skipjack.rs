//! Skipjack throughput in TSC cycles per byte: ours (through the `cipher` traits and
//! the RustCrypto mode crates) against the `skipjack` 0.2 crate, side by side in one
//! run over a 1 MiB buffer. Each measurement is repeated and the median reported;
//! the contenders alternate run by run so background load hits both alike.
//!
//! `cargo bench -p cipherlab-ciphers --bench skipjack` (`SKIPJACK_BENCH_RUNS=N` to
//! change the number of runs, default 41).
//!
//! Sampling is the shared harness's interleaved method (`cipherlab_harness::interleave`);
//! the cycle counter is the TSC, which on current x86 ticks at the nominal (invariant
//! TSC) rate, not the boosted clock.

use std::hint::black_box;

use cipher::{
    Block, BlockCipherDecrypt, BlockCipherEncrypt, BlockModeEncrypt, KeyInit, KeyIvInit,
    StreamCipher,
};
use cipherlab_ciphers::skipjack::Skipjack;
use cipherlab_harness::interleave::{self, Calls, Plan, Warmup};

const LEN: usize = 1 << 20;
const KEY: [u8; 10] = [0x00, 0x99, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11];
const IV: [u8; 8] = [0x24; 8];

/// The buffers the contenders work on, in place.
struct Buffers {
    blocks: Vec<Block<Skipjack>>,
    bytes: Vec<u8>,
    words: Vec<u64>,
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
    let mut bufs = Buffers {
        blocks: (0..LEN / 8)
            .map(|i| {
                Block::<Skipjack>::from(
                    (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15).to_be_bytes(),
                )
            })
            .collect(),
        bytes: vec![0x5au8; LEN],
        words: (0..LEN as u64 / 8).collect(),
    };

    let names = [
        "ours    ECB encrypt (encrypt_blocks)",
        "skipjack 0.2 ECB encrypt (encrypt_block per u64)",
        "ours    ECB decrypt (decrypt_blocks)",
        "skipjack 0.2 ECB decrypt (decrypt_block per u64)",
        "ours    ECB encrypt via ecb::Encryptor",
        "ours    CTR (ctr::Ctr64BE)",
        "ours    CBC encrypt (cbc::Encryptor, one block at a time)",
    ];
    let contenders = |i: usize, b: &mut Buffers| match i {
        0 => ours.encrypt_blocks(&mut b.blocks),
        1 => {
            for w in b.words.iter_mut() {
                *w = skipjack::skipjack::encrypt_block(*w, KEY);
            }
        }
        2 => ours.decrypt_blocks(&mut b.blocks),
        3 => {
            for w in b.words.iter_mut() {
                *w = skipjack::skipjack::decrypt_block(*w, KEY);
            }
        }
        4 => ecb::Encryptor::<Skipjack>::new(&KEY.into()).encrypt_blocks(&mut b.blocks),
        5 => ctr::Ctr64BE::<Skipjack>::new(&KEY.into(), &IV.into()).apply_keystream(&mut b.bytes),
        _ => cbc::Encryptor::<Skipjack>::new(&KEY.into(), &IV.into()).encrypt_blocks(&mut b.blocks),
    };
    // One call per sample (a whole 1 MiB pass); one discarded pass of each as warm-up.
    let plan = Plan {
        calls: Calls::Fixed(1),
        warmup: Warmup::Samples(1),
        samples: runs,
    };
    let run = interleave::run(&plan, &mut bufs, names.len(), contenders);
    black_box(&bufs.blocks);

    println!("Skipjack, 1 MiB buffer, median of {runs} runs, TSC cycles/byte:");
    let med: Vec<f64> = (0..names.len())
        .map(|i| run.figure(i).median_ticks / LEN as f64)
        .collect();
    for (name, m) in names.iter().zip(&med) {
        println!("  {name:<58} {m:8.2}");
    }
    println!(
        "  ratio skipjack-0.2 / ours: encrypt {:.2}x, decrypt {:.2}x",
        med[1] / med[0],
        med[3] / med[2]
    );
}
