//! The catalogue's providers side by side: every algorithm of issue 3's speed table
//! through every provider that implements it, in one run, through the catalogue's own
//! `Cipher` API (what a user of cipherlab gets: key schedule at `init`, then one call per
//! message, in place).
//!
//! ```text
//! cargo bench -p cipherlab-ciphers --bench catalogue                # full table
//! cargo bench -p cipherlab-ciphers --bench catalogue -- aes-128     # rows containing "aes-128"
//! cargo bench -p cipherlab-ciphers --bench catalogue -- --smoke     # seconds; proves it runs
//! CATALOGUE_BENCH_RUNS=61 cargo bench -p cipherlab-ciphers --bench catalogue
//! ```
//!
//! Method: for each row (algorithm, direction, message size) one cipher per provider is
//! initialised with the same key; then, run after run, each provider in turn processes
//! 1 MiB (one 1 MiB message, or 256 of 4 KiB...) or a batch of 2,000 messages (rows under
//! 4 KiB, timed per call). The providers
//! alternate within every run (the shared harness's interleaved method,
//! `cipherlab_harness::interleave`), so frequency changes and other processes' load hit
//! all of them alike. Each sample is timed twice: by the time-stamp counter (wall time,
//! which includes any time the thread was
//! preempted) and by the thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`, converted to TSC
//! ticks with the measured TSC rate: the time the thread actually ran, as `openssl speed`
//! counts user CPU time). On a quiet machine the two agree; on a loaded two-core machine a
//! 40 ms 3DES sample is nearly always preempted and only the CPU-time figure means
//! anything. The table gives the median over runs of both, the TSC minimum, and the ratio
//! of the CPU-time medians to the row's fastest (ratios and targets use the CPU-time
//! median). ECB and CBC rows run unpadded so the same buffer can be processed again and
//! again in place (one padding block in 1 MiB would be noise). The TSC ticks at the
//! nominal rate, measured here against the wall clock and printed; MB/s come from it.
//!
//! The AES-128-GCM 64 B rows also time `ring`'s `LessSafeKey` called directly, without
//! the catalogue's `Cipher` API, to show what the API itself costs per call.
//!
//! Unless `--smoke` or `CATALOGUE_BENCH_NO_OPENSSL_SPEED` is given, each row's algorithm is
//! also run through `openssl speed -evp` (1 MiB blocks, or 64 B, one second, user CPU time),
//! converted to TSC ticks per byte with the measured rate: OpenSSL's own figure, for the
//! `openssl` provider's overhead to be seen.
//!
//! Nothing here asserts a speed; the table is recorded in docs/BENCHMARKS.md, and
//! `providers::preference` is set from it.

#![allow(clippy::expect_used, clippy::unwrap_used)] // a benchmark: failing loudly is right

use std::hint::black_box;
use std::process::Command;
use std::time::Duration;

use cipherlab_ciphers::providers::{self, default_for, supporting};
use cipherlab_ciphers::{Cipher, CipherSpec, Error, Padding};
use cipherlab_harness::interleave::{self, Calls, Plan, Warmup};
use cipherlab_harness::machine::MachineInfo;
use cipherlab_harness::timer::tsc_ticks_per_ns;

const MIB: usize = 1 << 20;
/// Messages per sample in the 64-byte rows.
const BATCH: usize = 2000;

#[derive(Clone, Copy, PartialEq)]
enum Dir {
    Encrypt,
    Decrypt,
}

struct Row {
    /// Catalogue name.
    name: &'static str,
    dir: Dir,
    /// Message size in bytes.
    size: usize,
    /// `openssl speed -evp` name (None: OpenSSL has no such cipher).
    speed_name: Option<&'static str>,
    /// Issue 3's target for the default provider, TSC ticks per byte (per call at 64 B).
    target: Option<f64>,
    /// What the target row of the issue says.
    label: &'static str,
}

const fn row(
    name: &'static str,
    dir: Dir,
    size: usize,
    speed_name: Option<&'static str>,
    target: Option<f64>,
    label: &'static str,
) -> Row {
    Row {
        name,
        dir,
        size,
        speed_name,
        target,
        label,
    }
}

use Dir::{Decrypt as D, Encrypt as E};

/// Issue 3's speed table, row by row (the 8-byte-block ciphers in CBC as `openssl speed`
/// measures them, and in ECB for comparison).
#[rustfmt::skip]
const ROWS: &[Row] = &[
    row("aes-128-gcm", E, MIB, Some("aes-128-gcm"), Some(0.65), "AES-128-GCM"),
    row("aes-128-gcm", E, 64, Some("aes-128-gcm"), Some(200.0), "AES-128-GCM 64 B (per call)"),
    row("aes-128-gcm", D, 64, None, None, "AES-128-GCM 64 B decrypt (per call)"),
    // Where the per-byte and the per-call winners cross (the split of a composite default).
    row("aes-128-gcm", E, 512, None, None, "AES-128-GCM 512 B (per call)"),
    row("aes-128-gcm", E, 1024, None, None, "AES-128-GCM 1 KiB (per call)"),
    row("aes-128-gcm", E, 2048, None, None, "AES-128-GCM 2 KiB (per call)"),
    row("aes-128-gcm", E, 4096, None, None, "AES-128-GCM 4 KiB"),
    row("aes-128-gcm", E, 16384, None, None, "AES-128-GCM 16 KiB"),
    row("aes-192-gcm", E, MIB, Some("aes-192-gcm"), None, "AES-192-GCM"),
    row("aes-256-gcm", E, MIB, Some("aes-256-gcm"), None, "AES-256-GCM"),
    row("chacha20-poly1305", E, MIB, Some("chacha20-poly1305"), Some(0.9), "ChaCha20-Poly1305"),
    row("chacha20-poly1305", E, 64, None, None, "ChaCha20-Poly1305 64 B (per call)"),
    row("chacha20-poly1305", E, 512, None, None, "ChaCha20-Poly1305 512 B (per call)"),
    row("chacha20-poly1305", E, 1024, None, None, "ChaCha20-Poly1305 1 KiB (per call)"),
    row("chacha20-poly1305", E, 2048, None, None, "ChaCha20-Poly1305 2 KiB (per call)"),
    row("chacha20-poly1305", E, 4096, None, None, "ChaCha20-Poly1305 4 KiB"),
    row("chacha20-poly1305", E, 16384, None, None, "ChaCha20-Poly1305 16 KiB"),
    row("aes-128-ctr", E, MIB, Some("aes-128-ctr"), Some(0.4), "AES-128-CTR"),
    row("aes-128-ctr", E, 64, None, None, "AES-128-CTR 64 B (per call)"),
    row("aes-128-ecb", E, MIB, Some("aes-128-ecb"), Some(0.4), "AES-128-ECB"),
    row("aes-128-cbc", E, MIB, Some("aes-128-cbc"), Some(1.8), "AES-128-CBC encrypt"),
    row("aes-128-cbc", D, MIB, None, Some(0.4), "AES-128-CBC decrypt"),
    row("aes-128-cbc", E, 64, None, None, "AES-128-CBC encrypt 64 B (per call)"),
    row("aes-128-cbc", D, 64, None, None, "AES-128-CBC decrypt 64 B (per call)"),
    row("aes-128-cfb", E, MIB, Some("aes-128-cfb"), None, "AES-128-CFB encrypt"),
    row("aes-128-cfb", D, MIB, None, None, "AES-128-CFB decrypt"),
    row("aes-128-cfb8", E, MIB, Some("aes-128-cfb8"), None, "AES-128-CFB8"),
    row("aes-128-cfb1", E, 64 * 1024, Some("aes-128-cfb1"), None, "AES-128-CFB1"),
    row("aes-128-ofb", E, MIB, Some("aes-128-ofb"), None, "AES-128-OFB"),
    row("des-cbc", E, MIB, Some("des-cbc"), Some(45.0), "DES (CBC)"),
    row("des-ecb", E, MIB, Some("des-ecb"), None, "DES (ECB)"),
    row("3des-168-cbc", E, MIB, Some("des-ede3-cbc"), Some(120.0), "3DES (CBC)"),
    row("3des-168-ecb", E, MIB, Some("des-ede3"), None, "3DES (ECB)"),
    row("blowfish-128-cbc", E, MIB, Some("bf-cbc"), Some(24.0), "Blowfish (CBC)"),
    row("blowfish-128-ecb", E, MIB, Some("bf-ecb"), None, "Blowfish (ECB)"),
    row("blowfish-128-cfb", E, MIB, Some("bf-cfb"), None, "Blowfish (CFB)"),
    row("blowfish-128-ofb", E, MIB, Some("bf-ofb"), None, "Blowfish (OFB)"),
    row("rc2-128-cbc", E, MIB, Some("rc2-cbc"), Some(45.0), "RC2 (CBC)"),
    row("rc2-128-ecb", E, MIB, Some("rc2-ecb"), None, "RC2 (ECB)"),
    row("rc4-128", E, MIB, Some("rc4"), Some(5.0), "RC4"),
    row("skipjack-ecb", E, MIB, None, Some(40.0), "Skipjack (ECB)"),
    row("skipjack-cbc", E, MIB, None, None, "Skipjack (CBC)"),
];

/// One provider's cipher for a row, with its buffer.
struct Contender {
    provider: &'static str,
    cipher: Box<dyn Cipher>,
    iv: Vec<u8>,
    buf: Vec<u8>,
    /// For 64 B decryption: the ciphertext to copy in before each call.
    ct: Vec<u8>,
}

/// What one sample is divided by: bytes (rows of 4 KiB and more, at least 1 MiB per
/// sample so the thread CPU clock's granularity is noise) or calls (smaller rows).
fn per_sample(size: usize) -> f64 {
    if size >= 4096 {
        (size * (MIB / size).max(1)) as f64
    } else {
        BATCH as f64
    }
}

impl Contender {
    /// One sample's work: at least 1 MiB (rows of 4 KiB and more) or [`BATCH`] calls.
    fn run(&mut self, dir: Dir, size: usize) {
        let (iv, buf, ct) = (&self.iv, &mut self.buf, &self.ct);
        let c = &mut self.cipher;
        if size >= 4096 {
            for _ in 0..(MIB / size).max(1) {
                match dir {
                    Dir::Encrypt => {
                        black_box(c.encrypt(iv, &[], black_box(&mut buf[..]), size).unwrap());
                    }
                    Dir::Decrypt => {
                        black_box(c.decrypt(iv, &[], black_box(&mut buf[..size])).unwrap());
                    }
                }
            }
        } else {
            for _ in 0..BATCH {
                match dir {
                    Dir::Encrypt => {
                        black_box(c.encrypt(iv, &[], black_box(&mut buf[..]), size).unwrap());
                    }
                    Dir::Decrypt => {
                        buf[..ct.len()].copy_from_slice(ct);
                        black_box(c.decrypt(iv, &[], black_box(&mut buf[..ct.len()])).unwrap());
                    }
                }
            }
        }
    }
}

/// `ring`'s `LessSafeKey` called directly (no length checks, no catalogue API), for
/// the per-call cost of the API to be seen beside the `ring` provider.
struct RingDirect {
    spec: CipherSpec,
    key: ring::aead::LessSafeKey,
}

impl Cipher for RingDirect {
    fn spec(&self) -> &CipherSpec {
        &self.spec
    }

    fn provider(&self) -> &'static str {
        "ring, called directly"
    }

    fn encrypt(&mut self, iv: &[u8], ad: &[u8], buf: &mut [u8], n: usize) -> Result<usize, Error> {
        let nonce = ring::aead::Nonce::try_assume_unique_for_key(iv).expect("12-byte nonce");
        let (msg, rest) = buf.split_at_mut(n);
        let tag = self
            .key
            .seal_in_place_separate_tag(nonce, ring::aead::Aad::from(ad), msg)
            .expect("seal");
        rest[..16].copy_from_slice(tag.as_ref());
        Ok(n + 16)
    }

    fn decrypt(&mut self, iv: &[u8], ad: &[u8], buf: &mut [u8]) -> Result<usize, Error> {
        let nonce = ring::aead::Nonce::try_assume_unique_for_key(iv).expect("12-byte nonce");
        self.key
            .open_in_place(nonce, ring::aead::Aad::from(ad), buf)
            .map(|p| p.len())
            .map_err(|_| Error::Authentication)
    }
}

fn spec_of(name: &str) -> CipherSpec {
    let s = CipherSpec::parse(name).expect("catalogue name");
    if s.mode.is_some_and(|m| m.pads()) {
        s.with_padding(Padding::None)
    } else {
        s
    }
}

/// `openssl speed -evp` for one cipher: TSC ticks per byte (per call for small sizes).
fn openssl_speed(name: &str, size: usize, hz: f64) -> Option<f64> {
    let out = Command::new("openssl")
        .args(["speed", "-mr", "-seconds", "1", "-bytes"])
        .arg(size.to_string())
        .args(["-provider", "default", "-provider", "legacy", "-evp", name])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    // "+F:<n>:<ALG>:<bytes per second>"
    let bps: f64 = text
        .lines()
        .find(|l| l.starts_with("+F:"))?
        .rsplit(':')
        .next()?
        .trim()
        .parse()
        .ok()?;
    let per_byte = hz / bps;
    Some(if size < 4096 {
        per_byte * size as f64
    } else {
        per_byte
    })
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // `cargo bench` passes `--bench`; `cargo test --benches` does not: then run once, small.
    let smoke = args.iter().any(|a| a == "--smoke") || !args.iter().any(|a| a == "--bench");
    let filter: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let runs: usize = std::env::var("CATALOGUE_BENCH_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(if smoke { 1 } else { 31 });
    let with_speed = !smoke && std::env::var_os("CATALOGUE_BENCH_NO_OPENSSL_SPEED").is_none();

    // Counter ticks per second (nanoseconds where the CPU has no TSC).
    let hz =
        1e9 * tsc_ticks_per_ns(Duration::from_millis(if smoke { 20 } else { 300 })).unwrap_or(1.0);
    let machine = MachineInfo::detect();
    println!(
        "# Catalogue providers side by side\n\nCPU: {}, {} cores; TSC {:.3} GHz; median of {runs} runs; ECB/CBC unpadded\n",
        machine.cpu_model,
        machine.logical_cores,
        hz / 1e9
    );
    println!(
        "| algorithm | size | provider | ticks (CPU time) median | ticks (TSC) median | TSC min | × fastest | MB/s | default | target |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");

    let mut misses: Vec<String> = Vec::new();
    for r in ROWS {
        let row_name = format!("{} {}", r.name, if r.dir == E { "enc" } else { "dec" });
        if !filter.is_empty() && !filter.iter().any(|f| row_name.contains(f.as_str())) {
            continue;
        }
        let size = if smoke { r.size.min(64 * 1024) } else { r.size };
        let spec = spec_of(r.name);
        let key: Vec<u8> = (0..spec.key_len())
            .map(|i| (i as u8).wrapping_mul(37) ^ 0x5c)
            .collect();
        let iv: Vec<u8> = (0..spec.iv_len()).map(|i| i as u8 ^ 0xa5).collect();
        // Every provider, and the default when it is a composite split by message length.
        let mut names = supporting(&spec);
        let default = default_for(&spec).map(|p| p.name()).unwrap_or("?");
        if !names.contains(&default) {
            names.push(default);
        }
        let mut cs: Vec<Contender> = names
            .into_iter()
            .map(|p| {
                let cipher = providers::init(&spec, &key, Some(p)).expect("init");
                let mut buf = vec![0x3cu8; spec.output_len(size)];
                let mut ct = Vec::new();
                if r.dir == D && size < 4096 {
                    // A valid ciphertext to open again and again.
                    let mut c = providers::init(&spec, &key, Some(p)).expect("init");
                    let n = c.encrypt(&iv, &[], &mut buf, size).expect("encrypt");
                    ct = buf[..n].to_vec();
                }
                Contender {
                    provider: p,
                    cipher,
                    iv: iv.clone(),
                    buf,
                    ct,
                }
            })
            .collect();
        if r.name == "aes-128-gcm" && size < 4096 {
            let unbound = ring::aead::UnboundKey::new(&ring::aead::AES_128_GCM, &key).expect("key");
            let direct = RingDirect {
                spec,
                key: ring::aead::LessSafeKey::new(unbound),
            };
            let mut buf = vec![0x3cu8; spec.output_len(size)];
            let ct = if r.dir == D {
                let n = cs[0]
                    .cipher
                    .encrypt(&iv, &[], &mut buf, size)
                    .expect("encrypt");
                buf[..n].to_vec()
            } else {
                Vec::new()
            };
            cs.push(Contender {
                provider: "ring, called directly",
                cipher: Box::new(direct),
                iv: iv.clone(),
                buf,
                ct,
            });
        }
        // One sample per call of `run`; one discarded sample of each as warm-up (caches,
        // lazy CPU-feature detection, page faults).
        let plan = Plan {
            calls: Calls::Fixed(1),
            warmup: Warmup::Samples(1),
            samples: runs,
        };
        let (dir, n) = (r.dir, cs.len());
        let run = interleave::run(&plan, &mut cs, n, |i, cs| cs[i].run(dir, size));
        // (provider, CPU-time median, TSC median, TSC min), in TSC ticks per byte or call.
        let per = per_sample(size);
        let stats: Vec<(&str, f64, f64, f64)> = cs
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let f = run.figure_at(i, hz / 1e9);
                (
                    c.provider,
                    f.median_cpu_ticks / per,
                    f.median_ticks / per,
                    f.min_ticks / per,
                )
            })
            .collect();
        let fastest = stats.iter().map(|s| s.1).fold(f64::INFINITY, f64::min);
        let per_call = size < 4096;
        let unit = if per_call { "call" } else { "B" };
        let size_s = if size >= MIB {
            format!("{} MiB", size / MIB)
        } else if size >= 1024 {
            format!("{} KiB", size / 1024)
        } else {
            format!("{size} B")
        };
        let mut rows = stats.clone();
        rows.sort_by(|a, b| a.1.total_cmp(&b.1));
        for (p, med, tsc_med, min) in &rows {
            let per_byte = if per_call { med / size as f64 } else { *med };
            let mbs = hz / per_byte / 1e6;
            let is_default = *p == default;
            let target = match (is_default, r.target) {
                (true, Some(t)) => {
                    let ok = *med <= t;
                    if !ok {
                        misses.push(format!(
                            "{} {}: default {p} {med:.2} ticks/{unit} vs target {t} ({:+.0}%)",
                            r.label,
                            size_s,
                            (med / t - 1.0) * 100.0
                        ));
                    }
                    format!("≤ {t} {}", if ok { "met" } else { "MISSED" })
                }
                (false, Some(t)) => format!("≤ {t}"),
                _ => String::new(),
            };
            println!(
                "| {} | {size_s} | {p} | {med:.2} /{unit} | {tsc_med:.2} | {min:.2} | {:.2} | {mbs:.0} | {} | {target} |",
                r.label,
                med / fastest,
                if is_default { "yes" } else { "" },
            );
        }
        if with_speed && let Some(name) = r.speed_name {
            match openssl_speed(name, size, hz) {
                Some(v) => println!(
                    "| {} | {size_s} | `openssl speed -evp {name}` | {v:.2} /{unit} | | | {:.2} | {:.0} | | |",
                    r.label,
                    v / fastest,
                    if per_call {
                        hz / (v / size as f64) / 1e6
                    } else {
                        hz / v / 1e6
                    }
                ),
                None => println!(
                    "| {} | {size_s} | `openssl speed -evp {name}` | (did not run) | | | | | | |",
                    r.label
                ),
            }
        }
    }
    println!();
    if misses.is_empty() {
        println!("Every default provider meets its target.");
    } else {
        println!("Targets missed by the default provider:");
        for m in &misses {
            println!("- {m}");
        }
    }
}
