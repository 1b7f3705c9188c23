//! Speed of cipherlab-lwc beside the independent crates, in one run.
//!
//! ```text
//! cargo bench -p cipherlab-lwc --bench lwc                 # full table (about 2 minutes)
//! cargo bench -p cipherlab-lwc --bench lwc -- --quick      # 3 sizes, fewer samples
//! cargo bench -p cipherlab-lwc --bench lwc -- isap-a       # only names containing "isap-a"
//! cargo bench -p cipherlab-lwc --bench lwc -- --smoke      # seconds; proves it runs (CI)
//! cargo bench -p cipherlab-lwc --bench lwc -- batch        # only the batch API table
//! ```
//!
//! Method (as ascon-c's `getcycles.c`): for every algorithm, operation and message size,
//! samples of `k` back-to-back calls are timed with the time-stamp counter (`rdtsc`) and
//! the thread's CPU clock; ours and the peer are sampled alternately, so frequency drift and
//! noise from other processes hit both alike. The table gives, per byte of message
//! (associated data is 32 bytes and not counted, as in the ISAP library's table), the
//! median of the thread-CPU time converted to TSC ticks (time the thread actually ran: a
//! preempted sample does not count the other process's time), the minimum in raw TSC
//! ticks, bytes/s at the median, and the ratio ours/peer of the medians (< 1: we are
//! faster). Decryption copies the ciphertext into the work buffer before every call (for
//! both sides alike), because in-place decryption consumes its input.
//!
//! This is a benchmark, not a test: nothing here asserts a speed. Results are recorded in
//! docs/BENCHMARKS.md with the command and the machine.

#![allow(clippy::expect_used, clippy::type_complexity)] // a benchmark: failing loudly is right

use std::hint::black_box;
use std::rc::Rc;
use std::time::Duration;

use aead::{AeadInOut, KeyInit};
use cipherlab_harness::interleave::{self, Calls, Plan, Warmup};
use cipherlab_harness::machine::MachineInfo;
use cipherlab_lwc::batch::{Backend, BatchAead, OpenJob, SealJob};

/// Warm-up per operation before its samples.
const WARMUP: Duration = Duration::from_millis(20);

/// Associated data length used in every AEAD case (the ISAP library's table shape).
const AD_LEN: usize = 32;

/// Message sizes: the ISAP library's table (64 .. 4096 B), then 16 KiB and 1 MiB.
const FULL_SIZES: &[usize] = &[64, 128, 256, 512, 1024, 2048, 4096, 16 * 1024, 1 << 20];
const QUICK_SIZES: &[usize] = &[64, 1024, 16 * 1024];
const SMOKE_SIZES: &[usize] = &[64];

/// One operation to time: `run(input, work)` must do the whole operation once.
type Op = Box<dyn FnMut(&[u8], &mut [u8])>;

/// An implementation of one algorithm: encrypt and decrypt closures.
struct Imp {
    name: &'static str,
    encrypt: Op,
    decrypt: Op,
    /// Produces ciphertext || tag for `pt` (used to prepare decryption inputs).
    seal: Box<dyn FnMut(&[u8]) -> Vec<u8>>,
}

const KEY: [u8; 20] = [0x42; 20];
const NONCE: [u8; 16] = [0x24; 16];
const AD: [u8; AD_LEN] = [0x5a; AD_LEN];

/// Adapter for any aead 0.6 `AeadInOut` type with a 16-byte tag (ours, ascon-aead 0.6,
/// isap-aead 0.3).
fn aead06<A>(name: &'static str) -> Imp
where
    A: KeyInit + AeadInOut + 'static,
{
    let key_len = <A as aead::KeySizeUser>::key_size();
    let cipher = Rc::new(A::new_from_slice(&KEY[..key_len]).expect("key length"));
    let nonce = aead::Nonce::<A>::try_from(&NONCE[..]).expect("nonce length");
    let (c1, c2, c3) = (cipher.clone(), cipher.clone(), cipher);
    let (n1, n2, n3) = (nonce.clone(), nonce.clone(), nonce);
    Imp {
        name,
        encrypt: Box::new(move |_input, work| {
            let tag = c1
                .encrypt_inout_detached(&n1, black_box(&AD), work.into())
                .expect("encrypt");
            black_box(tag);
        }),
        decrypt: Box::new(move |input, work| {
            let (ct, tag) = input.split_at(input.len() - 16);
            let tag = aead::Tag::<A>::try_from(tag).expect("tag length");
            work.copy_from_slice(ct);
            c2.decrypt_inout_detached(&n2, black_box(&AD), work.into(), &tag)
                .expect("valid tag");
        }),
        seal: Box::new(move |pt| {
            let mut buf = pt.to_vec();
            let tag = c3
                .encrypt_inout_detached(&n3, &AD, (&mut buf[..]).into())
                .expect("encrypt");
            buf.extend_from_slice(&tag);
            buf
        }),
    }
}

/// Adapter for ascon-aead 0.4 (aead 0.5 `AeadInPlace`).
fn aead05<A>(name: &'static str) -> Imp
where
    A: ascon_aead04::aead::KeyInit + ascon_aead04::aead::AeadInPlace + 'static,
{
    use ascon_aead04::aead::KeySizeUser;
    let key_len = <A as KeySizeUser>::key_size();
    let cipher = Rc::new(A::new_from_slice(&KEY[..key_len]).expect("key length"));
    let nonce = ascon_aead04::aead::Nonce::<A>::clone_from_slice(&NONCE);
    let (c1, c2, c3) = (cipher.clone(), cipher.clone(), cipher);
    let (n1, n2, n3) = (nonce.clone(), nonce.clone(), nonce);
    Imp {
        name,
        encrypt: Box::new(move |_input, work| {
            let tag = c1
                .encrypt_in_place_detached(&n1, black_box(&AD), work)
                .expect("encrypt");
            black_box(tag);
        }),
        decrypt: Box::new(move |input, work| {
            let (ct, tag) = input.split_at(input.len() - 16);
            work.copy_from_slice(ct);
            c2.decrypt_in_place_detached(&n2, black_box(&AD), work, tag.into())
                .expect("valid tag");
        }),
        seal: Box::new(move |pt| {
            let mut buf = pt.to_vec();
            let tag = c3
                .encrypt_in_place_detached(&n3, &AD, &mut buf)
                .expect("encrypt");
            buf.extend_from_slice(&tag);
            buf
        }),
    }
}

/// Adapter for the `xoodyak` crate's Cyclist API, called as the NIST LWC AEAD:
/// AbsorbKey(K), Absorb(N), Absorb(AD), Crypt(M), Squeeze(16). (Its own
/// `new(K, Some(N), ..)` is a different construction; see tests/xoodyak_differential.rs.)
fn xoodyak_peer() -> Imp {
    use xoodyak::{XoodyakCommon, XoodyakKeyed};
    fn keyed() -> XoodyakKeyed {
        let mut x = XoodyakKeyed::new(&KEY[..16], None, None, None).expect("xoodyak key");
        x.absorb(&NONCE);
        x
    }
    Imp {
        name: "xoodyak 0.8",
        encrypt: Box::new(|_input, work| {
            let mut x = keyed();
            x.absorb(black_box(&AD));
            x.encrypt_in_place(work);
            let mut tag = [0u8; 16];
            x.squeeze(&mut tag);
            black_box(tag);
        }),
        decrypt: Box::new(|input, work| {
            let (ct, tag) = input.split_at(input.len() - 16);
            work.copy_from_slice(ct);
            let mut x = keyed();
            x.absorb(black_box(&AD));
            x.decrypt_in_place(work);
            let mut computed = [0u8; 16];
            x.squeeze(&mut computed);
            assert_eq!(&computed[..], tag, "valid tag");
        }),
        seal: Box::new(|pt| {
            let mut buf = pt.to_vec();
            let mut x = keyed();
            x.absorb(&AD);
            x.encrypt_in_place(&mut buf);
            let mut tag = [0u8; 16];
            x.squeeze(&mut tag);
            buf.extend_from_slice(&tag);
            buf
        }),
    }
}

/// An algorithm with our implementation and its peers.
struct Subject {
    alg: &'static str,
    imps: Vec<Imp>,
}

fn subjects() -> Vec<Subject> {
    use cipherlab_lwc as ours;
    vec![
        Subject {
            alg: "ascon-aead128",
            imps: vec![
                aead06::<ours::AsconAead128>("cipherlab"),
                aead06::<ascon_aead06::AsconAead128>("ascon-aead 0.6"),
            ],
        },
        Subject {
            alg: "ascon-128a",
            imps: vec![
                aead06::<ours::Ascon128a>("cipherlab"),
                aead05::<ascon_aead04::Ascon128a>("ascon-aead 0.4"),
            ],
        },
        Subject {
            alg: "ascon-128",
            imps: vec![
                aead06::<ours::Ascon128>("cipherlab"),
                aead05::<ascon_aead04::Ascon128>("ascon-aead 0.4"),
            ],
        },
        Subject {
            alg: "ascon-80pq",
            imps: vec![
                aead06::<ours::Ascon80pq>("cipherlab"),
                aead05::<ascon_aead04::Ascon80pq>("ascon-aead 0.4"),
            ],
        },
        Subject {
            alg: "xoodyak",
            imps: vec![aead06::<ours::Xoodyak>("cipherlab"), xoodyak_peer()],
        },
        Subject {
            alg: "isap-a-128a",
            imps: vec![
                aead06::<ours::IsapA128a>("cipherlab"),
                aead06::<isap_aead::IsapAscon128A>("isap-aead 0.3"),
            ],
        },
        Subject {
            alg: "isap-a-128",
            imps: vec![
                aead06::<ours::IsapA128>("cipherlab"),
                aead06::<isap_aead::IsapAscon128>("isap-aead 0.3"),
            ],
        },
        Subject {
            alg: "isap-k-128a",
            imps: vec![
                aead06::<ours::IsapK128a>("cipherlab"),
                aead06::<isap_aead::IsapKeccak128A>("isap-aead 0.3"),
            ],
        },
        Subject {
            alg: "isap-k-128",
            imps: vec![
                aead06::<ours::IsapK128>("cipherlab"),
                aead06::<isap_aead::IsapKeccak128>("isap-aead 0.3"),
            ],
        },
    ]
}

/// Which half of an AEAD to time.
#[derive(Clone, Copy)]
enum Direction {
    Encrypt,
    Decrypt,
}

impl Direction {
    fn name(self) -> &'static str {
        match self {
            Direction::Encrypt => "encrypt",
            Direction::Decrypt => "decrypt",
        }
    }
}

impl Imp {
    fn op(&mut self, d: Direction) -> &mut Op {
        match d {
            Direction::Encrypt => &mut self.encrypt,
            Direction::Decrypt => &mut self.decrypt,
        }
    }
}

/// Settings of one run.
struct Settings {
    sizes: &'static [usize],
    samples: usize,
    /// Minimum TSC ticks per sample; the calls per sample double until one is this long.
    min_sample_ticks: u64,
    filter: Option<String>,
    /// Batch shapes: (messages, bytes each).
    batches: &'static [(usize, usize)],
}

/// Median and minimum of per-call ticks, and bytes/s at the median, for one implementation.
struct Figure {
    median_ticks: f64,
    min_ticks: f64,
    bytes_per_sec: f64,
}

/// Times `ops[i]` on `inputs[i]`, alternating between the ops sample by sample (the
/// harness's interleaved method), so that drift and background noise affect every op
/// alike. `len` is the work-buffer size.
fn measure(ops: &mut [&mut Op], inputs: &[Vec<u8>], len: usize, s: &Settings) -> Vec<Figure> {
    let plan = Plan {
        calls: Calls::Calibrate {
            min_ticks: s.min_sample_ticks,
            max: 1 << 20,
        },
        warmup: Warmup::Time(WARMUP),
        samples: s.samples,
    };
    let mut work = vec![0u8; len];
    let n = ops.len();
    let run = interleave::run(&plan, &mut work, n, |i, work| {
        (ops[i])(black_box(&inputs[i]), work)
    });
    // The counter's rate over the whole run converts CPU time into ticks, so the median
    // is "ticks while this thread ran", and bytes/s describes the same median.
    (0..n)
        .map(|i| {
            let f = run.figure(i);
            Figure {
                median_ticks: f.median_cpu_ticks,
                min_ticks: f.min_ticks,
                bytes_per_sec: len as f64 * 1e9 / f.median_cpu_ns,
            }
        })
        .collect()
}

fn fmt_rate(bps: f64) -> String {
    if bps >= 1e9 {
        format!("{:.2} GB/s", bps / 1e9)
    } else {
        format!("{:.0} MB/s", bps / 1e6)
    }
}

fn bench_aeads(s: &Settings) {
    println!("## AEADs: TSC ticks per message byte, median (min); {AD_LEN} B associated data\n");
    println!(
        "| algorithm | op | bytes | cipherlab c/B | peer | peer c/B | ours/peer | cipherlab speed |"
    );
    println!("|---|---|---:|---:|---|---:|---:|---:|");
    for mut subj in subjects() {
        if s.filter.as_deref().is_some_and(|f| !subj.alg.contains(f)) {
            continue;
        }
        for &len in s.sizes {
            let pt: Vec<u8> = (0..len).map(|i| (i * 7 + 3) as u8).collect();
            for dir in [Direction::Encrypt, Direction::Decrypt] {
                // Each implementation decrypts its own sealed message, so the benchmark
                // does not depend on the peer agreeing with us (the tests check that).
                let inputs: Vec<Vec<u8>> = match dir {
                    Direction::Encrypt => vec![pt.clone(); subj.imps.len()],
                    Direction::Decrypt => subj.imps.iter_mut().map(|imp| (imp.seal)(&pt)).collect(),
                };
                let peer_name = subj.imps[1].name;
                let mut ops: Vec<&mut Op> = subj.imps.iter_mut().map(|imp| imp.op(dir)).collect();
                let f = measure(&mut ops, &inputs, len, s);
                println!(
                    "| {} | {} | {} | {:.2} ({:.2}) | {} | {:.2} ({:.2}) | {:.2} | {} |",
                    subj.alg,
                    dir.name(),
                    len,
                    f[0].median_ticks / len as f64,
                    f[0].min_ticks / len as f64,
                    peer_name,
                    f[1].median_ticks / len as f64,
                    f[1].min_ticks / len as f64,
                    f[0].median_ticks / f[1].median_ticks,
                    fmt_rate(f[0].bytes_per_sec),
                );
            }
        }
    }
    println!();
}

/// Times one permutation call with the given round count.
fn bench_permutations(s: &Settings) {
    use cipherlab_lwc::permutation::{
        ascon::AsconState, keccak_p400::KeccakP400State, xoodoo::XoodooState,
    };
    println!("## Permutations: TSC ticks per call, median (min)\n");
    println!("| permutation | rounds | state bytes | ticks/call | ticks/round |");
    println!("|---|---:|---:|---:|---:|");
    let row = |name: &str, rounds: usize, state: usize, op: Op| {
        if s.filter.as_deref().is_some_and(|f| !name.contains(f)) {
            return;
        }
        let mut op = op;
        let f = measure(&mut [&mut op], &[Vec::new()], 0, s);
        println!(
            "| {name} | {rounds} | {state} | {:.1} ({:.1}) | {:.1} |",
            f[0].median_ticks,
            f[0].min_ticks,
            f[0].median_ticks / rounds as f64
        );
    };
    for rounds in [1, 6, 8, 12] {
        let mut st = AsconState([1, 2, 3, 4, 5]);
        row(
            "ascon-p",
            rounds,
            40,
            Box::new(move |_, _| {
                st.permute(black_box(rounds));
                black_box(&st);
            }),
        );
    }
    for rounds in [1, 8, 12, 16, 20] {
        let mut st = KeccakP400State::default();
        row(
            "keccak-p400",
            rounds,
            50,
            Box::new(move |_, _| {
                st.permute(black_box(rounds));
                black_box(&st);
            }),
        );
    }
    let mut st = XoodooState::default();
    row(
        "xoodoo",
        12,
        48,
        Box::new(move |_, _| {
            st.permute(black_box(12));
            black_box(&st);
        }),
    );
    println!();
}

/// Batch shapes (messages, bytes each) per run mode: the issue's 8 x 4 KiB and 4 x 4 KiB,
/// then small to medium objects (PDF) and 64 KiB chunks (seal) in the full run.
const FULL_BATCHES: &[(usize, usize)] = &[
    (8, 4096),
    (4, 4096),
    (8, 64),
    (8, 256),
    (8, 1024),
    (8, 64 * 1024),
];
const QUICK_BATCHES: &[(usize, usize)] = &[(8, 4096), (4, 4096)];
const SMOKE_BATCHES: &[(usize, usize)] = &[(4, 64)];

/// Nonce of message `i` of a batch.
fn batch_nonce(i: usize) -> [u8; 16] {
    let mut n = NONCE;
    n[15] = i as u8;
    n
}

/// `N` messages of `len` bytes under one key: the batch API on `backend` against a loop
/// of one-message calls, both in the same `measure` run. `C` is one of the batch AEADs.
fn batch_ops<C, const N: usize>(backend: Backend, len: usize) -> (Vec<Op>, Vec<Op>, Vec<Vec<u8>>)
where
    C: BatchAead + AeadInOut + KeyInit + 'static,
{
    let cipher = Rc::new(C::new_from_slice(&KEY[..16]).expect("key length"));
    // Decryption input: the N ciphertexts, then the N tags.
    let sealed = {
        let mut buf: Vec<u8> = (0..N * len).map(|i| (i * 7 + 3) as u8).collect();
        let mut tags = Vec::new();
        for (i, chunk) in buf.chunks_mut(len).enumerate() {
            let nonce = aead::Nonce::<C>::try_from(&batch_nonce(i)[..]).expect("nonce length");
            let tag = cipher
                .encrypt_inout_detached(&nonce, &AD, chunk.into())
                .expect("encrypt");
            tags.extend_from_slice(&tag);
        }
        buf.extend_from_slice(&tags);
        buf
    };
    let (c1, c2, c3, c4) = (cipher.clone(), cipher.clone(), cipher.clone(), cipher);
    let batch_encrypt: Op = Box::new(move |_input, work| {
        let mut chunks = work.chunks_mut(len);
        let mut jobs: [SealJob; N] = core::array::from_fn(|i| {
            SealJob::new(
                batch_nonce(i),
                black_box(&AD),
                chunks.next().expect("N chunks"),
            )
        });
        backend.encrypt(&*c1, &mut jobs);
        black_box(jobs.map(|j| *j.tag()));
    });
    let batch_decrypt: Op = Box::new(move |input, work| {
        let (ct, tags) = input.split_at(N * len);
        work.copy_from_slice(ct);
        let mut chunks = work.chunks_mut(len);
        let mut jobs: [OpenJob; N] = core::array::from_fn(|i| {
            let tag = tags[16 * i..16 * i + 16].try_into().expect("16 bytes");
            OpenJob::new(
                batch_nonce(i),
                black_box(&AD),
                chunks.next().expect("N chunks"),
                tag,
            )
        });
        backend.decrypt(&*c2, &mut jobs).expect("valid tags");
    });
    let loop_encrypt: Op = Box::new(move |_input, work| {
        for (i, chunk) in work.chunks_mut(len).enumerate() {
            let nonce = aead::Nonce::<C>::try_from(&batch_nonce(i)[..]).expect("nonce length");
            let tag = c3
                .encrypt_inout_detached(&nonce, black_box(&AD), chunk.into())
                .expect("encrypt");
            black_box(tag);
        }
    });
    let loop_decrypt: Op = Box::new(move |input, work| {
        let (ct, tags) = input.split_at(N * len);
        work.copy_from_slice(ct);
        for (i, chunk) in work.chunks_mut(len).enumerate() {
            let nonce = aead::Nonce::<C>::try_from(&batch_nonce(i)[..]).expect("nonce length");
            let tag = aead::Tag::<C>::try_from(&tags[16 * i..16 * i + 16]).expect("tag length");
            c4.decrypt_inout_detached(&nonce, black_box(&AD), chunk.into(), &tag)
                .expect("valid tag");
        }
    });
    (
        vec![batch_encrypt, batch_decrypt],
        vec![loop_encrypt, loop_decrypt],
        vec![Vec::new(), sealed],
    )
}

/// The batch API (`cipherlab_lwc::batch`) against a loop of one-message calls, under one
/// key, on every multi-lane backend this CPU runs; batch and loop samples alternate.
fn bench_batch(s: &Settings) {
    println!(
        "## Batch API: N messages under one key, {AD_LEN} B AD each; TSC ticks per message \
         byte, median (min); default backend {}\n",
        Backend::detect()
    );
    println!(
        "| algorithm | op | messages | backend | batch c/B | loop c/B | loop/batch | batch speed |"
    );
    println!("|---|---|---|---|---:|---:|---:|---:|");
    type Make = fn(Backend, usize) -> (Vec<Op>, Vec<Op>, Vec<Vec<u8>>);
    let algs: [(&str, Make, Make); 2] = [
        (
            "ascon-aead128",
            batch_ops::<cipherlab_lwc::AsconAead128, 8>,
            batch_ops::<cipherlab_lwc::AsconAead128, 4>,
        ),
        (
            "ascon-128a",
            batch_ops::<cipherlab_lwc::Ascon128a, 8>,
            batch_ops::<cipherlab_lwc::Ascon128a, 4>,
        ),
    ];
    for (alg, make8, make4) in algs {
        let name = format!("batch {alg}");
        if s.filter.as_deref().is_some_and(|f| !name.contains(f)) {
            continue;
        }
        for (backend, &(n, len)) in Backend::all()
            .filter(|b| b.lanes() > 1)
            .flat_map(|b| s.batches.iter().map(move |shape| (b, shape)))
        {
            let make = match n {
                8 => make8,
                4 => make4,
                _ => unreachable!("batch shapes use 4 or 8 messages"),
            };
            let (mut batch, mut serial, inputs) = make(backend, len);
            for (d, dir) in [Direction::Encrypt, Direction::Decrypt]
                .into_iter()
                .enumerate()
            {
                let mut ops: Vec<&mut Op> = vec![&mut batch[d], &mut serial[d]];
                let input = [inputs[d].clone(), inputs[d].clone()];
                let f = measure(&mut ops, &input, n * len, s);
                let bytes = (n * len) as f64;
                println!(
                    "| {alg} | {} | {n} x {len} B | {backend} | {:.2} ({:.2}) | {:.2} ({:.2}) | {:.2} | {} |",
                    dir.name(),
                    f[0].median_ticks / bytes,
                    f[0].min_ticks / bytes,
                    f[1].median_ticks / bytes,
                    f[1].min_ticks / bytes,
                    f[1].median_ticks / f[0].median_ticks,
                    fmt_rate(f[0].bytes_per_sec),
                );
            }
        }
    }
    println!();
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let has = |flag: &str| args.iter().any(|a| a == flag);
    let filter = args.iter().find(|a| !a.starts_with("--")).cloned();
    // `cargo test --benches` runs this binary without `--bench`: do a smoke run then.
    let (label, s) = if has("--smoke") || !has("--bench") {
        (
            " (--smoke: checks the harness, figures meaningless)",
            Settings {
                sizes: SMOKE_SIZES,
                batches: SMOKE_BATCHES,
                samples: 3,
                min_sample_ticks: 10_000,
                filter,
            },
        )
    } else if has("--quick") {
        (
            " (--quick)",
            Settings {
                sizes: QUICK_SIZES,
                batches: QUICK_BATCHES,
                samples: 9,
                min_sample_ticks: 300_000,
                filter,
            },
        )
    } else {
        (
            "",
            Settings {
                sizes: FULL_SIZES,
                batches: FULL_BATCHES,
                samples: 31,
                min_sample_ticks: 1_000_000,
                filter,
            },
        )
    };
    println!("# cipherlab-lwc benchmark{label}\n");
    println!("machine: {}\n", MachineInfo::detect().summary());
    let pairs = |v: &[(&str, &str)]| {
        v.iter()
            .map(|(f, k)| format!("{f} {k}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    println!(
        "kernels: {}; permutations: {}\n",
        pairs(&cipherlab_lwc::kernels()),
        pairs(&cipherlab_lwc::permutation_kernels())
    );
    bench_permutations(&s);
    bench_aeads(&s);
    bench_batch(&s);
}
