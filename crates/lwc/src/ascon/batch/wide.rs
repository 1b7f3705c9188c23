//! Eight Ascon states as lane arrays: state word `x_i` of the eight states is one
//! `[u64; 8]` (state `j` in element `j`), and every operation of the bitsliced round
//! is written once, element-wise, in plain Rust. There are no intrinsics here: the
//! compiler lowers the same source for the feature level it is compiled for. Under
//! AVX-512 F+VL+BW ([`run_avx512`]) each word is one 512-bit register, the rotations
//! become `vprolq` and the S-box's XOR/AND-NOT chains `vpternlogq`; without any
//! `target_feature` (the unit tests) it is the same arithmetic on scalar or SSE2
//! code, so the source that runs on AVX-512 CPUs is also tested where AVX-512 is
//! absent.
//!
//! Constant time: the round is XOR, AND-NOT and rotations by constant amounts on every
//! element; blocks are moved by fixed loads and stores whose positions depend only on
//! public lengths and lane numbers. No table look-up, no branch on data.

use super::super::common::{load2, store2};
use super::engine::{self, Job, Lanes, MAX_LANES, RATE, Variant};
use crate::permutation::ascon::AsconState;

/// States per lane set.
const W: usize = 8;

/// One state word of the eight states.
type Word = [u64; W];

/// Round constants (SP 800-232, Table 5): p^12 uses all twelve, p^8 the last eight.
const CONSTANTS: [u64; 12] = [
    0xf0, 0xe1, 0xd2, 0xc3, 0xb4, 0xa5, 0x96, 0x87, 0x78, 0x69, 0x5a, 0x4b,
];

#[inline(always)]
fn xor(a: Word, b: Word) -> Word {
    core::array::from_fn(|j| a[j] ^ b[j])
}

/// `!a & b`.
#[inline(always)]
fn andnot(a: Word, b: Word) -> Word {
    core::array::from_fn(|j| !a[j] & b[j])
}

/// `a ^ rotr(a, r1) ^ rotr(a, r2)`, the linear layer of one word.
#[inline(always)]
fn sigma<const R1: u32, const R2: u32>(a: Word) -> Word {
    core::array::from_fn(|j| a[j] ^ a[j].rotate_right(R1) ^ a[j].rotate_right(R2))
}

/// Eight Ascon states, word-sliced.
#[derive(Clone, Copy)]
pub(super) struct Wide {
    x: [Word; 5],
}

impl Wide {
    /// All-zero states.
    #[inline(always)]
    pub(super) fn new() -> Self {
        Wide { x: [[0; W]; 5] }
    }

    /// One round with constant `c` on every state: the round of
    /// [`crate::permutation::ascon`], element-wise.
    #[inline(always)]
    fn round(&mut self, c: u64) {
        let [mut x0, mut x1, mut x2, mut x3, mut x4] = self.x;
        x2 = xor(x2, [c; W]);
        // S-box layer.
        x0 = xor(x0, x4);
        x4 = xor(x4, x3);
        x2 = xor(x2, x1);
        let t0 = andnot(x0, x1);
        let t1 = andnot(x1, x2);
        let t2 = andnot(x2, x3);
        let t3 = andnot(x3, x4);
        let t4 = andnot(x4, x0);
        x0 = xor(x0, t1);
        x1 = xor(x1, t2);
        x2 = xor(x2, t3);
        x3 = xor(x3, t4);
        x4 = xor(x4, t0);
        x1 = xor(x1, x0);
        x0 = xor(x0, x4);
        x3 = xor(x3, x2);
        x2 = xor(x2, [u64::MAX; W]);
        // Linear diffusion layer.
        self.x = [
            sigma::<19, 28>(x0),
            sigma::<61, 39>(x1),
            sigma::<1, 6>(x2),
            sigma::<10, 17>(x3),
            sigma::<7, 41>(x4),
        ];
    }

    /// The last `rounds` rounds of p^12 on every state. The loop stays rolled: with
    /// the eight or twelve rounds written out, the compiler no longer vectorized the
    /// lane arrays and the batch ran 3.5x slower (8 x 4 KiB Ascon-AEAD128 encryption
    /// measured at 3.58 against 1.03 ticks/B on the Intel Xeon of
    /// docs/BENCHMARKS.md).
    #[inline(always)]
    fn rounds(&mut self, rounds: usize) {
        for &c in &CONSTANTS[12 - rounds..] {
            self.round(c);
        }
    }

    /// One message step: lane `j` encrypts (or decrypts) `blocks[j]` in place, an idle
    /// lane (`None`) absorbs a zero block and writes nothing; then p^8 on every lane.
    #[inline(always)]
    fn step<const BE: bool, const DECRYPT: bool>(&mut self, blocks: [Option<&mut [u8; RATE]>; W]) {
        let mut c0 = [0u64; W];
        let mut c1 = [0u64; W];
        for (j, b) in blocks.iter().enumerate() {
            if let Some(b) = b {
                (c0[j], c1[j]) = load2::<BE>(b);
            }
        }
        let (o0, o1) = if DECRYPT {
            let out = (xor(self.x[0], c0), xor(self.x[1], c1));
            self.x[0] = c0;
            self.x[1] = c1;
            out
        } else {
            self.x[0] = xor(self.x[0], c0);
            self.x[1] = xor(self.x[1], c1);
            (self.x[0], self.x[1])
        };
        for (j, b) in blocks.into_iter().enumerate() {
            if let Some(b) = b {
                *b = store2::<BE>(o0[j], o1[j]);
            }
        }
        // An idle lane holds no job (the scheduler gives every busy lane at least
        // `n` blocks), so what decryption leaves in its rate does not matter.
        self.rounds(8);
    }
}

impl Lanes for Wide {
    const N: usize = W;

    #[inline(always)]
    fn get(&self, j: usize) -> AsconState {
        AsconState(self.x.map(|w| w[j]))
    }

    #[inline(always)]
    fn set(&mut self, j: usize, s: AsconState) {
        for (w, v) in self.x.iter_mut().zip(s.0) {
            w[j] = v;
        }
    }

    #[inline(always)]
    fn permute8(&mut self) {
        self.rounds(8);
    }

    #[inline(always)]
    fn permute12(&mut self) {
        self.rounds(12);
    }

    #[inline(always)]
    fn absorb<const BE: bool>(&mut self, blocks: &[[u8; RATE]; MAX_LANES]) {
        for (j, b) in blocks.iter().enumerate().take(W) {
            let (c0, c1) = load2::<BE>(b);
            self.x[0][j] ^= c0;
            self.x[1][j] ^= c1;
        }
    }

    #[inline(always)]
    fn message_steps<const BE: bool, const DECRYPT: bool>(
        &mut self,
        blocks: &mut [&mut [[u8; RATE]]; MAX_LANES],
        n: usize,
    ) {
        if blocks.iter().all(|b| b.len() >= n) {
            // Every lane busy (the common case): walk the eight lanes' blocks together,
            // with no per-lane length check in the loop.
            let [b0, b1, b2, b3, b4, b5, b6, b7] = blocks;
            for i in 0..n {
                self.step::<BE, DECRYPT>([
                    Some(&mut b0[i]),
                    Some(&mut b1[i]),
                    Some(&mut b2[i]),
                    Some(&mut b3[i]),
                    Some(&mut b4[i]),
                    Some(&mut b5[i]),
                    Some(&mut b6[i]),
                    Some(&mut b7[i]),
                ]);
            }
            return;
        }
        for i in 0..n {
            let mut it = blocks.iter_mut().map(|lane| lane.get_mut(i));
            let lanes = core::array::from_fn(|_| it.next().flatten());
            self.step::<BE, DECRYPT>(lanes);
        }
    }
}

/// Fewest busy lanes worth an eight-lane step once no job is left to start: below it
/// the remaining jobs finish on the one-message code. On the Intel Xeon measured an
/// eight-lane step costs what 1.75 one-message steps cost (8 x 4 KiB: 1.03 against
/// 4.72 ticks per byte, docs/BENCHMARKS.md), so two busy lanes already gain.
const MIN_LIVE: usize = 2;

/// [`engine::run`] on eight lanes, the whole of it compiled for AVX-512 F+VL+BW (and
/// AVX2, BMI1, BMI2).
#[target_feature(enable = "avx2,bmi1,bmi2,avx512f,avx512vl,avx512bw")]
fn run_avx512_inner<'a, 'c, C, J, const BE: bool, const DECRYPT: bool>(
    jobs: &mut [J],
    cipher_of: impl Fn(&J) -> &'c C,
) where
    C: Variant + 'c,
    J: Job<'a>,
{
    let mut lanes = Wide::new();
    engine::run::<Wide, C, J, BE, DECRYPT>(&mut lanes, jobs, cipher_of, MIN_LIVE);
}

/// Runs every job of `jobs` (the key of each given by `cipher_of`) on eight lanes
/// compiled for AVX-512.
#[inline]
#[allow(unsafe_code)]
pub(super) fn run_avx512<'a, 'c, C, J, const DECRYPT: bool>(
    token: crate::cpu::Avx512Token,
    jobs: &mut [J],
    cipher_of: impl Fn(&J) -> &'c C,
) where
    C: Variant + 'c,
    J: Job<'a>,
{
    let _ = token;
    // SAFETY: the token proves the CPU supports AVX-512 F, VL and BW with the OS
    // saving their state, and AVX2, BMI1 and BMI2 (CPUID and XGETBV, `crate::cpu`).
    unsafe {
        if C::BE {
            run_avx512_inner::<C, J, true, DECRYPT>(jobs, cipher_of);
        } else {
            run_avx512_inner::<C, J, false, DECRYPT>(jobs, cipher_of);
        }
    }
}

/// Runs every job on eight lanes with no `target_feature`: the same source as
/// [`run_avx512`] at the build's baseline, so that tests check it on every CPU.
#[cfg(test)]
pub(super) fn run_baseline<'a, 'c, C, J, const DECRYPT: bool>(
    jobs: &mut [J],
    cipher_of: impl Fn(&J) -> &'c C,
) where
    C: Variant + 'c,
    J: Job<'a>,
{
    let mut lanes = Wide::new();
    if C::BE {
        engine::run::<Wide, C, J, true, DECRYPT>(&mut lanes, jobs, cipher_of, MIN_LIVE);
    } else {
        engine::run::<Wide, C, J, false, DECRYPT>(&mut lanes, jobs, cipher_of, MIN_LIVE);
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::ascon::batch::{OpenJob, SealJob};
    use crate::{Ascon128a, AsconAead128};
    use aead::KeyInit;
    use rand::{Rng, RngCore, SeedableRng};
    use std::vec::Vec;

    /// The lane-array source at the build's baseline (no AVX-512), on every CPU:
    /// random batches of mixed lengths against the one-message code, both ways.
    fn baseline_agrees<C: Variant + KeyInit>(seed: u64) {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        for round in 0..40 {
            let Ok(cipher) = C::new_from_slice(&rng.random::<[u8; 16]>()) else {
                unreachable!("16-byte keys")
            };
            let n = rng.random_range(0..20);
            // Uniform lengths half of the time (the fused all-lanes path), mixed else.
            let uniform = round % 2 == 0;
            let len0 = rng.random_range(0..300);
            let lens: Vec<usize> = (0..n)
                .map(|_| {
                    if uniform {
                        len0
                    } else {
                        rng.random_range(0..300)
                    }
                })
                .collect();
            let ads: Vec<Vec<u8>> = (0..n)
                .map(|_| {
                    let mut a = std::vec![0u8; rng.random_range(0..40)];
                    rng.fill_bytes(&mut a);
                    a
                })
                .collect();
            let nonces: Vec<[u8; 16]> = (0..n).map(|_| rng.random()).collect();
            let plain: Vec<Vec<u8>> = lens
                .iter()
                .map(|&l| {
                    let mut m = std::vec![0u8; l];
                    rng.fill_bytes(&mut m);
                    m
                })
                .collect();
            let mut want = plain.clone();
            let want_tags: Vec<[u8; 16]> = (0..n)
                .map(|i| cipher.seal_one(&nonces[i], &ads[i], &mut want[i]))
                .collect();
            let mut bufs = plain.clone();
            let mut jobs: Vec<SealJob> = bufs
                .iter_mut()
                .enumerate()
                .map(|(i, b)| SealJob::new(nonces[i], &ads[i], b))
                .collect();
            run_baseline::<C, SealJob, false>(&mut jobs, |_| &cipher);
            let tags: Vec<[u8; 16]> = jobs.iter().map(|j| *j.tag()).collect();
            drop(jobs);
            assert_eq!((&bufs, &tags), (&want, &want_tags), "seal, round {round}");
            let mut jobs: Vec<OpenJob> = bufs
                .iter_mut()
                .enumerate()
                .map(|(i, b)| OpenJob::new(nonces[i], &ads[i], b, tags[i]))
                .collect();
            run_baseline::<C, OpenJob, true>(&mut jobs, |_| &cipher);
            assert!(jobs.iter().all(OpenJob::is_verified), "open, round {round}");
            drop(jobs);
            assert_eq!(bufs, plain, "open, round {round}");
        }
    }

    #[test]
    fn baseline_matches_one_message_code() {
        baseline_agrees::<AsconAead128>(1);
        baseline_agrees::<Ascon128a>(2);
    }
}
