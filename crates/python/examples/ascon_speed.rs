//! The Rust library's own Ascon-AEAD128 speed, measured the way `bench/speed.py` measures
//! the Python package (the thread's CPU clock around batches of calls, the median of the
//! samples), so the two figures compare like for like. The CPU clock counts only the time
//! the thread ran, so other processes on a busy machine do not inflate a sample. `bench/speed.py` runs this binary in the same
//! sitting, alternating with its own rounds:
//!
//! ```text
//! cargo build --release -p cipherlab-python --example ascon_speed
//! target/release/examples/ascon_speed 1048576 64      # one JSON line: median ns per call
//! ```
//!
//! Each call encrypts the whole message with a 16-byte nonce and no associated data through
//! the library's one-pass `encrypt_inout_detached`, with no allocation, two ways: in place
//! (`inplace`, the library's best: one 1 MiB buffer) and from an input buffer into a
//! separate output buffer (`separate`, what the Python `encrypt` does: 2 MiB touched).

#![allow(clippy::expect_used)] // a benchmark binary: failing loudly is right
#![allow(unsafe_code)] // one FFI call to read the thread CPU clock (std has none)

use std::hint::black_box;

use cipherlab_lwc::AsconAead128;
use cipherlab_lwc::aead::inout::InOutBuf;
use cipherlab_lwc::aead::{AeadInOut, KeyInit};

/// The calling thread's CPU time in nanoseconds.
fn thread_ns() -> u128 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through a valid pointer to a local.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
    ts.tv_sec as u128 * 1_000_000_000 + ts.tv_nsec as u128
}

/// CPU time of one sample, in nanoseconds: long enough that the clock's cost vanishes.
const SAMPLE_NS: u128 = 2_000_000;

/// Samples per size; the median is reported.
const SAMPLES: usize = 41;

/// The median nanoseconds per call of encrypting `len` bytes, in place or not.
fn median_ns(aead: &AsconAead128, len: usize, in_place: bool) -> f64 {
    let nonce = [7u8; 16].into();
    let mut buf = vec![0x5au8; len];
    let input = vec![0xa5u8; len];
    let call = |buf: &mut [u8]| {
        let inout = if in_place {
            black_box(buf).into()
        } else {
            InOutBuf::new(black_box(&input[..]), buf).expect("equal lengths")
        };
        let tag = aead
            .encrypt_inout_detached(&nonce, &[], inout)
            .expect("encrypt");
        black_box(tag);
    };
    // Calls per sample: enough for SAMPLE_NS (found while warming up).
    let mut k = 1usize;
    loop {
        let t = thread_ns();
        for _ in 0..k {
            call(&mut buf);
        }
        if thread_ns() - t >= SAMPLE_NS {
            break;
        }
        k *= 2;
    }
    let mut per_call: Vec<f64> = (0..SAMPLES)
        .map(|_| {
            let t = thread_ns();
            for _ in 0..k {
                call(&mut buf);
            }
            (thread_ns() - t) as f64 / k as f64
        })
        .collect();
    per_call.sort_by(f64::total_cmp);
    per_call[SAMPLES / 2]
}

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("sizes in bytes"))
        .collect();
    let aead = AsconAead128::new(&[0x42; 16].into());
    let figures = |in_place: bool| {
        let fields: Vec<String> = sizes
            .iter()
            .map(|&n| format!("\"{n}\":{:.1}", median_ns(&aead, n, in_place)))
            .collect();
        fields.join(",")
    };
    let (inplace, separate) = (figures(true), figures(false));
    println!("{{\"inplace\":{{{inplace}}},\"separate\":{{{separate}}}}}");
}
