//! Every lightweight AEAD two ways in one process: through the catalogue (`providers::init`,
//! then `Cipher::encrypt` / `Cipher::decrypt` on a `Box<dyn Cipher>`, what the bench
//! studies and the command line run) and through `cipherlab-lwc` directly
//! (`AeadInOut::encrypt_inout_detached`, as `cargo bench -p cipherlab-lwc --bench lwc`
//! calls it). The catalogue should cost the library's figure plus a few length checks per
//! message; a ratio well above 1 at 64 KiB means the two paths do not run the same code.
//!
//! ```text
//! cargo bench -p cipherlab-ciphers --bench lwc_paths               # 64 B, 1 KiB, 64 KiB
//! cargo bench -p cipherlab-ciphers --bench lwc_paths -- xoodyak    # names containing "xoodyak"
//! cargo bench -p cipherlab-ciphers --bench lwc_paths -- --smoke    # seconds; proves it runs
//! ```
//!
//! Method: the harness's interleaved sampling (`cipherlab_harness::interleave`): the two
//! paths alternate sample by sample, so frequency drift and other processes' load hit both
//! alike. Per row, the median thread CPU time per call converted to TSC ticks, per byte of
//! message; 32 bytes of associated data per message (the `lwc` study's shape), not
//! counted. Decryption copies the ciphertext into the work buffer before every call, on
//! both paths. Nothing here asserts a speed; figures go to docs/BENCHMARKS.md.

#![allow(clippy::expect_used, clippy::unwrap_used)] // a benchmark: failing loudly is right

use std::hint::black_box;
use std::time::Duration;

use aead::array::typenum::Unsigned;
use aead::{AeadInOut, KeyInit};
use cipherlab_ciphers::{Cipher, CipherSpec, providers};
use cipherlab_harness::interleave::{self, Calls, Plan, Warmup};
use cipherlab_harness::machine::MachineInfo;

const AD: [u8; 32] = [0xad; 32];
const KEY: [u8; 20] = [0x42; 20];
const NONCE: [u8; 16] = [0x24; 16];

#[derive(Clone, Copy, PartialEq)]
enum Dir {
    Encrypt,
    Decrypt,
}

/// One way of running an operation: `run(ciphertext, work)` does it once.
type Op = Box<dyn FnMut(&[u8], &mut [u8])>;

/// The catalogue's cipher `name`, through its default provider.
fn catalogue(name: &str, dir: Dir) -> Op {
    let spec = CipherSpec::parse(name).expect("catalogue name");
    let mut c: Box<dyn Cipher> =
        providers::init(&spec, &KEY[..spec.key_len()], None).expect("init");
    let iv = NONCE[..spec.iv_len()].to_vec();
    match dir {
        Dir::Encrypt => Box::new(move |_ct, work| {
            let len = work.len() - c.spec().tag_len();
            black_box(c.encrypt(&iv, black_box(&AD), work, len).expect("encrypt"));
        }),
        Dir::Decrypt => Box::new(move |ct, work| {
            work.copy_from_slice(ct);
            black_box(c.decrypt(&iv, black_box(&AD), work).expect("valid tag"));
        }),
    }
}

/// `A` from `cipherlab-lwc`, called directly.
fn library<A: KeyInit + AeadInOut + 'static>(dir: Dir) -> Op {
    let a = A::new_from_slice(&KEY[..A::key_size()]).expect("key length");
    let nonce = aead::Nonce::<A>::try_from(&NONCE[..A::NonceSize::USIZE]).expect("nonce");
    let tag_len = A::TagSize::USIZE;
    match dir {
        Dir::Encrypt => Box::new(move |_ct, work| {
            let len = work.len() - tag_len;
            let (msg, tag) = work.split_at_mut(len);
            let t = a
                .encrypt_inout_detached(&nonce, black_box(&AD), msg.into())
                .expect("encrypt");
            tag.copy_from_slice(&t);
        }),
        Dir::Decrypt => Box::new(move |ct, work| {
            work.copy_from_slice(ct);
            let (msg, tag) = work.split_at_mut(ct.len() - tag_len);
            let tag = aead::Tag::<A>::try_from(&*tag).expect("tag length");
            a.decrypt_inout_detached(&nonce, black_box(&AD), msg.into(), &tag)
                .expect("valid tag");
        }),
    }
}

/// Makes the library's operation of one algorithm.
type LibraryOp = fn(Dir) -> Op;

/// (catalogue name, the library's constructor of the same algorithm).
fn algorithms() -> Vec<(&'static str, LibraryOp)> {
    use cipherlab_lwc as l;
    vec![
        ("ascon-aead128", library::<l::AsconAead128>),
        ("ascon-128", library::<l::Ascon128>),
        ("ascon-128a", library::<l::Ascon128a>),
        ("ascon-80pq", library::<l::Ascon80pq>),
        ("xoodyak", library::<l::Xoodyak>),
        ("isap-a-128a", library::<l::IsapA128a>),
        ("isap-a-128", library::<l::IsapA128>),
        ("isap-k-128a", library::<l::IsapK128a>),
        ("isap-k-128", library::<l::IsapK128>),
    ]
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // `cargo bench` passes `--bench`; `cargo test --benches` does not: then run once, small.
    let smoke = args.iter().any(|a| a == "--smoke") || !args.iter().any(|a| a == "--bench");
    let filter: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let sizes: &[usize] = if smoke { &[64] } else { &[64, 1024, 64 * 1024] };
    let plan = Plan {
        calls: Calls::Calibrate {
            min_ticks: if smoke { 10_000 } else { 2_000_000 },
            max: 1 << 20,
        },
        warmup: if smoke {
            Warmup::Samples(1)
        } else {
            Warmup::Time(Duration::from_millis(30))
        },
        samples: if smoke { 3 } else { 41 },
    };
    let machine = MachineInfo::detect();
    println!(
        "# Lightweight AEADs: catalogue against library\n\nCPU: {}, {} cores; {} samples per path, interleaved; 32 B AD\n",
        machine.cpu_model, machine.logical_cores, plan.samples
    );
    println!(
        "| algorithm | direction | bytes | catalogue ticks/B | library ticks/B | catalogue / library |"
    );
    println!("|---|---|---|---|---|---|");
    for (name, lib) in algorithms() {
        if !filter.is_empty() && !filter.iter().any(|f| name.contains(f.as_str())) {
            continue;
        }
        for &size in sizes {
            for dir in [Dir::Encrypt, Dir::Decrypt] {
                let spec = CipherSpec::parse(name).expect("catalogue name");
                let len = spec.output_len(size);
                // The ciphertext both paths decrypt (the catalogue's, checked against
                // the library's below).
                let mut ct = vec![0x3c; len];
                (catalogue(name, Dir::Encrypt))(&[], &mut ct);
                let mut lib_ct = vec![0x3c; len];
                (lib(Dir::Encrypt))(&[], &mut lib_ct);
                assert_eq!(ct, lib_ct, "{name}: the two paths disagree");
                let mut ops = [catalogue(name, dir), lib(dir)];
                let mut work = vec![0x3c; len];
                let run = interleave::run(&plan, &mut work, 2, |i, work| {
                    // Encryption rewrites the same buffer: it times ciphertext after the
                    // first call, which these data-independent AEADs do not notice.
                    (ops[i])(black_box(&ct), work)
                });
                let (c, l) = (run.figure(0), run.figure(1));
                println!(
                    "| {name} | {} | {size} | {:.2} | {:.2} | {:.3} |",
                    if dir == Dir::Encrypt { "enc" } else { "dec" },
                    c.median_cpu_ticks / size as f64,
                    l.median_cpu_ticks / size as f64,
                    c.median_cpu_ticks / l.median_cpu_ticks,
                );
            }
        }
    }
}
