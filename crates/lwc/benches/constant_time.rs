//! Constant time, shown rather than assumed: a dudect-style leakage test (Reparaz,
//! Balasch, Verbauwhede, "Dude, is my code constant time?", DATE 2017) of every AEAD's
//! decryption with a bad tag, of the tag comparison, and of the batch API's SIMD paths.
//!
//! ```text
//! cargo bench -p cipherlab-lwc --bench constant_time               # full run (~1-2 minutes)
//! cargo bench -p cipherlab-lwc --bench constant_time -- --smoke    # seconds; proves it runs (CI)
//! cargo bench -p cipherlab-lwc --bench constant_time -- isap       # only targets containing "isap"
//! ```
//!
//! Method. Each target has two input classes: **fixed** (the same input every time,
//! chosen as the worst case for a leaky implementation: the received tag equals the
//! correct tag in all but its last byte, so an early-exit comparison runs longest) and
//! **random** (fresh random ciphertext and tag every time). Calls come in pairs, one of
//! each class in random order; inputs are prepared 256 at a time outside the timed
//! region, and each call is timed with the time-stamp counter between `lfence`s (the shared
//! harness's `Counter`; its `Moments` and `welch_t` give the statistic). Welch's t-statistic between the classes is
//! computed on all samples, on the samples below each of 100 percentile thresholds (the
//! cropping of dudect, which discards the long tail of interrupts and preemption), and
//! on the centred squares (dudect's second-order test). The largest |t| is reported:
//! above 4.5 (dudect's threshold) the timing depends on the class, i.e. on secret or
//! attacker-chosen data; below it, no leak was detected at this number of samples. A
//! run above the threshold is repeated on fresh samples, and only a leak that shows
//! again is called one. On a shared machine a burst of noise can push one run over (on
//! the loaded 2-core VMs this was written on, about one run in ten of the longest
//! targets, each time on a different target), while a real leak grows with every
//! sample (the control reaches |t| > 1000 at a million samples). The
//! last column says how small a difference of the classes' mean times over the faster
//! half of the calls (the p50 crop) the test would have flagged.
//!
//! A control target, an early-exit byte comparison, must show a leak: it proves the
//! harness can see one at the sample counts used. Every decryption here fails, as it
//! must; a call that succeeded would abort the run.
//!
//! This is a measurement, not a test: nothing here asserts a verdict. Results are
//! recorded in docs/BENCHMARKS.md with the command and the machine.

#![allow(clippy::expect_used, clippy::unwrap_used)] // a benchmark: failing loudly is right

use std::hint::black_box;
use std::time::{Duration, Instant};

use cipherlab_harness::machine::MachineInfo;
use cipherlab_harness::stats::{Moments, welch_t};
use cipherlab_harness::timer::{Counter, Timer};

use aead::{AeadInOut, KeyInit};
use cipherlab_lwc::batch::{Backend, BatchAead, OpenJob};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

/// dudect's threshold: |t| above it means the two classes' timings differ.
const THRESHOLD: f64 = 4.5;

/// Associated data of every decryption (as in the speed benchmark).
const AD: [u8; 32] = [0x5a; 32];

/// Samples whose inputs are prepared together before any of them is timed.
const BATCH: usize = 256;

/// Message length of the bad-tag decryptions.
const MSG_LEN: usize = 64;

/// The two input classes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Fixed,
    Random,
}

/// One timed call: copies the input bytes into the target's buffers (the same code for
/// both classes, so the buffers are written alike), then returns the ticks of one call.
type Run = Box<dyn FnMut(&[u8]) -> u64>;

/// A target: its name, what the two classes are, the fixed class's input (the random
/// class's inputs are random bytes of the same length), and the timed call.
struct Target {
    name: String,
    classes: &'static str,
    fixed: Vec<u8>,
    run: Run,
}

/// Decryption of a [`MSG_LEN`]-byte message with 32 B AD and a bad tag through the
/// one-message API. Fixed: one ciphertext, its tag with the last byte flipped. Random:
/// random ciphertext and tag.
fn bad_tag<A: AeadInOut + KeyInit + 'static>(name: &str, rng: &mut StdRng) -> Target {
    aead_target::<A>(
        format!("{name} decrypt, bad tag"),
        "fixed ct + tag wrong in last byte / random ct + random tag",
        MSG_LEN,
        &AD,
        rng,
    )
}

/// The tag comparison: decryption of an empty message with empty AD (only
/// initialisation, finalisation and the comparison run). Fixed: the correct tag with
/// the last byte flipped. Random: a random tag.
fn tag_compare<A: AeadInOut + KeyInit + 'static>(name: &str, rng: &mut StdRng) -> Target {
    aead_target::<A>(
        format!("{name} tag comparison (empty message)"),
        "tag wrong in last byte / random tag",
        0,
        &[],
        rng,
    )
}

fn aead_target<A: AeadInOut + KeyInit + 'static>(
    name: String,
    classes: &'static str,
    len: usize,
    ad: &'static [u8],
    rng: &mut StdRng,
) -> Target {
    let key_len = <A as aead::KeySizeUser>::key_size();
    let key: Vec<u8> = (0..key_len).map(|_| rng.random()).collect();
    let cipher = A::new_from_slice(&key).expect("key length");
    let mut nonce = aead::Nonce::<A>::default();
    rng.fill(&mut nonce[..]);
    let mut fixed: Vec<u8> = (0..len).map(|_| rng.random()).collect();
    let mut tag = cipher
        .encrypt_inout_detached(&nonce, ad, fixed.as_mut_slice().into())
        .expect("encrypt");
    let last = tag.len() - 1;
    tag[last] ^= 1;
    // Input: ciphertext || tag.
    fixed.extend_from_slice(&tag);
    let mut work = vec![0u8; len];
    // The harness's counter: the TSC between `lfence`s (the wall clock without one).
    let counter = Counter::detect();
    Target {
        name,
        classes,
        fixed,
        run: Box::new(move |input| {
            let (ct, t) = input.split_at(len);
            work.copy_from_slice(ct);
            tag.copy_from_slice(t);
            let t0 = counter.now();
            let r = cipher.decrypt_inout_detached(
                &nonce,
                black_box(ad),
                work.as_mut_slice().into(),
                &tag,
            );
            let t1 = counter.now();
            assert!(black_box(r).is_err(), "a bad tag was accepted");
            t1 - t0
        }),
    }
}

/// Four jobs with bad tags through the batch API on `backend`. Fixed: one ciphertext
/// per job, its tag with the last byte flipped. Random: random ciphertexts and tags.
fn batch_bad_tag<C: BatchAead + AeadInOut + KeyInit + 'static>(
    name: &str,
    backend: Backend,
    rng: &mut StdRng,
) -> Target {
    const JOBS: usize = 4;
    let key: [u8; 16] = rng.random();
    let cipher = C::new_from_slice(&key).expect("key length");
    let nonces: [[u8; 16]; JOBS] = rng.random();
    // Input: JOBS ciphertexts, then JOBS tags.
    let mut fixed = vec![0u8; JOBS * (MSG_LEN + 16)];
    let (cts, tags) = fixed.split_at_mut(JOBS * MSG_LEN);
    for (j, (ct, t)) in cts.chunks_mut(MSG_LEN).zip(tags.chunks_mut(16)).enumerate() {
        rng.fill(ct);
        let nonce = aead::Nonce::<C>::try_from(&nonces[j][..]).expect("nonce length");
        let tag = cipher
            .encrypt_inout_detached(&nonce, &AD, ct.into())
            .expect("encrypt");
        t.copy_from_slice(&tag);
        t[15] ^= 1;
    }
    let mut work = [[0u8; MSG_LEN]; JOBS];
    let mut tags = [[0u8; 16]; JOBS];
    // The harness's counter: the TSC between `lfence`s (the wall clock without one).
    let counter = Counter::detect();
    Target {
        name: format!("{name} batch decrypt on {backend}, 4 jobs, bad tags"),
        classes: "fixed cts + tags wrong in last byte / random cts + random tags",
        fixed,
        run: Box::new(move |input| {
            let (cts, ts) = input.split_at(JOBS * MSG_LEN);
            for (w, ct) in work.iter_mut().zip(cts.chunks(MSG_LEN)) {
                w.copy_from_slice(ct);
            }
            for (t, src) in tags.iter_mut().zip(ts.chunks(16)) {
                t.copy_from_slice(src);
            }
            let mut bufs = work.iter_mut();
            let mut jobs: [OpenJob; JOBS] = core::array::from_fn(|j| {
                OpenJob::new(nonces[j], &AD, bufs.next().expect("4 buffers"), tags[j])
            });
            let t0 = counter.now();
            let r = backend.decrypt(&cipher, black_box(&mut jobs));
            let t1 = counter.now();
            assert!(black_box(r).is_err(), "a bad tag was accepted");
            t1 - t0
        }),
    }
}

/// The control: a byte-by-byte comparison that returns at the first difference. Fixed:
/// equal in all but the last byte (16 iterations). Random: a random tag (almost
/// always one iteration). Must show a leak.
fn control() -> Target {
    #[inline(never)]
    fn early_exit_eq(a: &[u8; 16], b: &[u8; 16]) -> bool {
        for i in 0..16 {
            if black_box(a[i]) != black_box(b[i]) {
                return false;
            }
        }
        true
    }
    let secret = [0x3cu8; 16];
    let mut fixed = secret;
    fixed[15] ^= 1;
    let mut tag = [0u8; 16];
    // The harness's counter: the TSC between `lfence`s (the wall clock without one).
    let counter = Counter::detect();
    Target {
        name: "control: early-exit byte comparison (must leak)".into(),
        classes: "tag wrong in last byte / random tag",
        fixed: fixed.to_vec(),
        run: Box::new(move |input| {
            tag.copy_from_slice(input);
            let t0 = counter.now();
            let r = early_exit_eq(black_box(&secret), black_box(&tag));
            let t1 = counter.now();
            black_box(r);
            t1 - t0
        }),
    }
}

fn targets(rng: &mut StdRng) -> Vec<Target> {
    use cipherlab_lwc as l;
    let mut t = vec![control()];
    macro_rules! both {
        ($($ty:ty => $name:literal),* $(,)?) => {$(
            t.push(bad_tag::<$ty>($name, rng));
            t.push(tag_compare::<$ty>($name, rng));
        )*};
    }
    both!(
        l::AsconAead128 => "ascon-aead128",
        l::Ascon128 => "ascon-128",
        l::Ascon128a => "ascon-128a",
        l::Ascon80pq => "ascon-80pq",
        l::Xoodyak => "xoodyak",
        l::IsapA128a => "isap-a-128a",
        l::IsapA128 => "isap-a-128",
        l::IsapK128a => "isap-k-128a",
        l::IsapK128 => "isap-k-128",
    );
    for backend in Backend::all().filter(|b| b.lanes() > 1) {
        t.push(batch_bad_tag::<l::AsconAead128>(
            "ascon-aead128",
            backend,
            rng,
        ));
        t.push(batch_bad_tag::<l::Ascon128a>("ascon-128a", backend, rng));
    }
    t
}

/// What the leakage tests found on one target's samples.
struct Verdict {
    /// The largest |t| over the raw samples, the 100 percentile crops and the
    /// second-order test, and the name of the test that gave it.
    max_t: f64,
    from: String,
    /// The difference of the two classes' mean ticks, over the faster half of the
    /// calls (the p50 crop), that the test would have flagged (|t| = [`THRESHOLD`]):
    /// the resolution of "no leak detected".
    resolution: f64,
    /// Median ticks of all samples.
    median: u64,
}

fn analyse(samples: &[(Class, u64)]) -> Verdict {
    // Welch's t and its standard error over the samples `keep` retains, after `map`.
    let t_of = |keep: &dyn Fn(u64) -> bool, map: &dyn Fn(Class, u64) -> f64| {
        let (mut f, mut r) = (Moments::default(), Moments::default());
        for &(c, x) in samples {
            if keep(x) {
                match c {
                    Class::Fixed => f.push(map(c, x)),
                    Class::Random => r.push(map(c, x)),
                }
            }
        }
        (welch_t(&f, &r), f.difference_std_error(&r))
    };
    let (t, se) = t_of(&|_| true, &|_, x| x as f64);
    let mut v = Verdict {
        max_t: t.abs(),
        from: "all samples".into(),
        resolution: THRESHOLD * se,
        median: 0,
    };
    // dudect's crop thresholds: the percentiles 1 - 0.5^(10 (i + 1) / 100), i < 100.
    let mut sorted: Vec<u64> = samples.iter().map(|s| s.1).collect();
    sorted.sort_unstable();
    v.median = sorted[sorted.len() / 2];
    for i in 0..100 {
        let p = 1.0 - 0.5f64.powf(10.0 * (i + 1) as f64 / 100.0);
        let cut = sorted[((sorted.len() - 1) as f64 * p) as usize];
        let (t, se) = t_of(&|x| x <= cut, &|_, x| x as f64);
        if t.abs() > v.max_t {
            v.max_t = t.abs();
            v.from = format!("cropped at p{:.1}", 100.0 * p);
        }
        if i == 9 {
            // p = 1 - 0.5^1: the median.
            v.resolution = THRESHOLD * se;
        }
    }
    // Second order: the squared distance of each sample from its class mean.
    let (mut f, mut r) = (Moments::default(), Moments::default());
    for &(c, x) in samples {
        match c {
            Class::Fixed => f.push(x as f64),
            Class::Random => r.push(x as f64),
        }
    }
    let (t, _) = t_of(&|_| true, &|c, x| {
        let m = if c == Class::Fixed {
            f.mean()
        } else {
            r.mean()
        };
        (x as f64 - m).powi(2)
    });
    if t.abs() > v.max_t {
        v.max_t = t.abs();
        v.from = "second order".into();
    }
    v
}

/// Settings of one run.
struct Settings {
    /// Samples per target at most.
    max_samples: usize,
    /// Time per target at most.
    max_time: Duration,
    filter: Option<String>,
}

/// Times one target: a warm-up, then pairs of calls (one of each class, in random
/// order) until `s.max_samples` samples or `s.max_time`.
fn collect(target: &mut Target, s: &Settings, rng: &mut StdRng) -> Vec<(Class, u64)> {
    // Inputs are prepared a batch at a time, before any of the batch is timed, so
    // preparing them (copying the fixed input, drawing random bytes) disturbs no
    // measurement; the timed call then copies its input alike for both classes.
    let len = target.fixed.len();
    let mut batch = vec![0u8; BATCH * len];
    let mut classes = [Class::Fixed; BATCH];
    // Every two consecutive calls are one of each class, in random order: whatever
    // slows a run of consecutive calls (an interrupt, another process flushing the
    // caches on this shared machine) then weighs both classes alike instead of by their
    // chance counts in that run. Welch's test assumes independent samples; this keeps
    // time-correlated noise from posing as a leak.
    let fixed = &target.fixed;
    let prepare = |batch: &mut [u8], classes: &mut [Class; BATCH], rng: &mut StdRng| {
        for pair in classes.chunks_mut(2) {
            pair.copy_from_slice(&[Class::Fixed, Class::Random]);
            pair.shuffle(rng);
        }
        for (c, input) in classes.iter().zip(batch.chunks_mut(len)) {
            match c {
                Class::Fixed => input.copy_from_slice(fixed),
                Class::Random => rng.fill(input),
            }
        }
    };
    // Warm-up: caches, branch predictors and the clock in their steady state.
    for _ in 0..4 {
        prepare(&mut batch, &mut classes, rng);
        for input in batch.chunks(len) {
            black_box((target.run)(input));
        }
    }
    let mut samples = Vec::with_capacity(s.max_samples.min(1 << 20));
    let start = Instant::now();
    while samples.len() < s.max_samples && start.elapsed() < s.max_time {
        prepare(&mut batch, &mut classes, rng);
        for (&c, input) in classes.iter().zip(batch.chunks(len)) {
            samples.push((c, (target.run)(input)));
        }
    }
    samples
}

/// CPU model and the batch backends this CPU runs.
fn machine() -> String {
    let batch: Vec<String> = Backend::all().map(|b| b.to_string()).collect();
    format!(
        "{}; batch backends: {}",
        MachineInfo::detect().cpu_model,
        batch.join(", ")
    )
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let has = |flag: &str| args.iter().any(|a| a == flag);
    let filter = args.iter().find(|a| !a.starts_with("--")).cloned();
    // `cargo test --benches` runs this binary without `--bench`: do a smoke run then.
    let (label, s) = if has("--smoke") || !has("--bench") {
        (
            " (--smoke: checks the harness, verdicts meaningless)",
            Settings {
                max_samples: 2_000,
                max_time: Duration::from_millis(200),
                filter,
            },
        )
    } else {
        (
            "",
            Settings {
                max_samples: 1_000_000,
                max_time: Duration::from_secs(4),
                filter,
            },
        )
    };
    let seed: u64 = rand::rng().random();
    let mut rng = StdRng::seed_from_u64(seed);
    println!("# cipherlab-lwc constant-time test{label}\n");
    println!("machine: {}; seed {seed:#x}\n", machine());
    println!(
        "Welch's t between the classes, the largest |t| over all samples, 100 percentile \
         crops and the second-order test; |t| > {THRESHOLD} = leak.\n"
    );
    println!(
        "| target | classes (fixed / random) | samples | median ticks | max \\|t\\| | from | \
         repeat \\|t\\| | verdict | flagged Δ, faster half (ticks) |"
    );
    println!("|---|---|---:|---:|---:|---|---:|---|---:|");
    for mut target in targets(&mut rng) {
        if s.filter
            .as_deref()
            .is_some_and(|f| !target.name.contains(f))
        {
            continue;
        }
        let samples = collect(&mut target, &s, &mut rng);
        let v = analyse(&samples);
        // A leak must show again on fresh samples: one run over the threshold and a
        // repeat under it is noise of this shared machine, not a property of the code.
        let repeat = (v.max_t > THRESHOLD).then(|| analyse(&collect(&mut target, &s, &mut rng)));
        let verdict = match &repeat {
            None => "no leak detected",
            Some(r) if r.max_t > THRESHOLD => "**leak**",
            Some(_) => "no leak detected (not repeated)",
        };
        println!(
            "| {} | {} | {} | {} | {:.2} | {} | {} | {verdict} | {:.2} |",
            target.name,
            target.classes,
            samples.len(),
            v.median,
            v.max_t,
            v.from,
            repeat.map_or("-".to_string(), |r| format!("{:.2}", r.max_t)),
            v.resolution,
        );
    }
}
