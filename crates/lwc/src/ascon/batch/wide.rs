//! Eight Ascon states as lane arrays: state word `x_i` of the eight states is one
//! `[u64; 8]` (state `j` in element `j`), and every operation of the bitsliced round
//! is written once, element-wise, in plain Rust, with no intrinsics: the compiler
//! lowers the same source for the feature level it is compiled for. Under AVX-512
//! F+VL+BW ([`run_avx512`]) each word is one 512-bit register, the rotations become
//! `vprolq` and the S-box's XOR/AND-NOT chains `vpternlogq`; without any
//! `target_feature` (the unit tests) it is the same arithmetic on scalar or SSE2
//! code, so the source that runs on AVX-512 CPUs is also tested where AVX-512 is
//! absent. The one exception is the move of the eight message blocks into and out
//! of the rate words in the fused message loop ([`avx512_moves`], AVX-512 builds
//! only): element-wise, the compiler made it scalar code through the stack, which
//! cost more than the permutation's rounds saved (see [`Wide::step_full`]). Being
//! hand-written, they run only after a first-use self-test against the element-wise
//! moves ([`moves_usable`]); on a mismatch the element-wise moves run instead.
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

/// Eight Ascon states, word-sliced. `AVX512`: the message blocks move between memory
/// and the state words with AVX-512 shuffles ([`avx512_moves`]) instead of
/// element-wise code; only [`run_avx512`] makes such a value, after the CPU check.
///
/// Aligned to 64 bytes: the message loop stores the state words to the lane set's
/// place on the stack and reloads them each step, one 512-bit access per word. Without
/// the alignment the stack frame is only 16-byte aligned, and where a process's
/// randomised stack put the words across cache lines every one of those accesses was
/// split: the same binary ran 8 x 4 KiB at 0.87-0.93 ticks/B in some processes and
/// 1.06-1.12 in others, encryption or decryption alike.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
pub(super) struct Wide<const AVX512: bool> {
    x: [Word; 5],
}

#[cfg(any(test, target_arch = "x86_64"))]
impl Wide<false> {
    /// All-zero states, blocks moved element-wise (the tests' baseline build, and the
    /// AVX-512 build where the shuffles failed their self-test).
    #[inline(always)]
    pub(super) fn new() -> Self {
        Wide { x: [[0; W]; 5] }
    }
}

#[cfg(target_arch = "x86_64")]
impl Wide<true> {
    /// All-zero states, blocks moved with AVX-512 shuffles, which the token proves
    /// available.
    #[inline(always)]
    fn with_token(_token: crate::cpu::Avx512Token) -> Self {
        Wide { x: [[0; W]; 5] }
    }
}

impl<const AVX512: bool> Wide<AVX512> {
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

    /// The rate words `c0`, `c1` of the eight blocks into the state: XORed in when
    /// encrypting, put in place of the rate when decrypting. Returns the words to write
    /// back (ciphertext or plaintext).
    #[inline(always)]
    fn absorb<const DECRYPT: bool>(&mut self, c0: Word, c1: Word) -> (Word, Word) {
        if DECRYPT {
            let out = (xor(self.x[0], c0), xor(self.x[1], c1));
            self.x[0] = c0;
            self.x[1] = c1;
            out
        } else {
            self.x[0] = xor(self.x[0], c0);
            self.x[1] = xor(self.x[1], c1);
            (self.x[0], self.x[1])
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
        let (o0, o1) = self.absorb::<DECRYPT>(c0, c1);
        for (j, b) in blocks.into_iter().enumerate() {
            if let Some(b) = b {
                *b = store2::<BE>(o0[j], o1[j]);
            }
        }
        // An idle lane holds no job (the scheduler gives every busy lane at least
        // `n` blocks), so what decryption leaves in its rate does not matter.
        self.rounds(8);
    }

    /// One message step with every lane busy: [`step`](Self::step) with eight
    /// blocks.
    ///
    /// Element-wise, the compiler moves the blocks with scalar loads and stores, each
    /// rate word through the stack lane by lane (eight 8-byte stores, then one
    /// 64-byte load that cannot be forwarded from them), and decryption, which
    /// keeps both the ciphertext words (the new rate) and the old rate live to form
    /// the plaintext, spills on top of that: measured 8 x 4 KiB Ascon-AEAD128, avx512,
    /// 1.05 ticks/B encrypting against 1.12-1.16 decrypting. With the AVX-512 moves
    /// both directions are a few shuffles and the same XORs on whole registers:
    /// 0.88 ticks/B either way.
    #[inline(always)]
    fn step_full<const BE: bool, const DECRYPT: bool>(&mut self, blocks: [&mut [u8; RATE]; W]) {
        #[cfg(target_arch = "x86_64")]
        if AVX512 {
            // SAFETY: `AVX512` is true only for values made by `Wide::with_token`,
            // from the proof that AVX-512 F and BW are usable.
            #[allow(unsafe_code)]
            let (c0, c1) = unsafe { avx512_moves::gather::<BE>(blocks.each_ref().map(|b| &**b)) };
            let (o0, o1) = self.absorb::<DECRYPT>(c0, c1);
            // SAFETY: as for `gather`.
            #[allow(unsafe_code)]
            let output = unsafe { avx512_moves::scatter::<BE>(o0, o1) };
            for (b, o) in blocks.into_iter().zip(output) {
                *b = o;
            }
            self.rounds(8);
            return;
        }
        self.step::<BE, DECRYPT>(blocks.map(Some));
    }
}

/// The message blocks of the eight lanes to and from the rate words, with AVX-512
/// shuffles: block `j` is the 128-bit lane `j % 4` of one of two 512-bit registers
/// (blocks 0-3, blocks 4-7), and one two-source permutation per word picks every
/// first (`x0`) or every second (`x1`) 64-bit half. Blocks and words move by value
/// (bit casts of plain data); no intrinsic here touches memory through a pointer.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod avx512_moves {
    use super::{RATE, W, Word};
    use core::arch::x86_64::*;
    use core::mem::transmute;

    /// `vpshufb` control reversing the bytes of each 64-bit element (big-endian).
    const BSWAP64: [u8; 64] = {
        let mut c = [0u8; 64];
        let mut i = 0;
        while i < 64 {
            c[i] = ((i & !7) + 7 - (i & 7)) as u8 & 15;
            i += 1;
        }
        c
    };

    /// Bytes of each 64-bit element reversed when `BE`.
    #[target_feature(enable = "avx512f,avx512bw")]
    #[inline]
    fn order<const BE: bool>(v: __m512i) -> __m512i {
        if BE {
            // SAFETY: a bit cast between two 64-byte plain-data types.
            _mm512_shuffle_epi8(v, unsafe { transmute::<[u8; 64], __m512i>(BSWAP64) })
        } else {
            v
        }
    }

    /// Four blocks as the four 128-bit lanes of one register.
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn four(b: &[&[u8; RATE]]) -> __m512i {
        // SAFETY: bit casts between 16-byte plain-data types.
        let q = |i: usize| unsafe { transmute::<[u8; RATE], __m128i>(*b[i]) };
        let v = _mm512_castsi128_si512(q(0));
        let v = _mm512_inserti32x4::<1>(v, q(1));
        let v = _mm512_inserti32x4::<2>(v, q(2));
        _mm512_inserti32x4::<3>(v, q(3))
    }

    /// The rate words (`x0`, `x1`) of the eight blocks, in the byte order `BE`.
    #[target_feature(enable = "avx512f,avx512bw")]
    #[inline]
    pub(super) fn gather<const BE: bool>(b: [&[u8; RATE]; W]) -> (Word, Word) {
        let lo = order::<BE>(four(&b[..4]));
        let hi = order::<BE>(four(&b[4..]));
        let first = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0);
        let second = _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1);
        let x0 = _mm512_permutex2var_epi64(lo, first, hi);
        let x1 = _mm512_permutex2var_epi64(lo, second, hi);
        // SAFETY: bit casts between two 64-byte plain-data types.
        unsafe {
            (
                transmute::<__m512i, Word>(x0),
                transmute::<__m512i, Word>(x1),
            )
        }
    }

    /// The inverse of [`gather`]: the eight blocks of the rate words `x0`, `x1`.
    #[target_feature(enable = "avx512f,avx512bw")]
    #[inline]
    pub(super) fn scatter<const BE: bool>(x0: Word, x1: Word) -> [[u8; RATE]; W] {
        // SAFETY: bit casts between two 64-byte plain-data types.
        let (x0, x1) = unsafe {
            (
                transmute::<Word, __m512i>(x0),
                transmute::<Word, __m512i>(x1),
            )
        };
        let lo = _mm512_permutex2var_epi64(x0, _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0), x1);
        let hi = _mm512_permutex2var_epi64(x0, _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4), x1);
        let (lo, hi) = (order::<BE>(lo), order::<BE>(hi));
        // SAFETY: bit casts between two 64-byte plain-data types (four blocks each).
        let [b0, b1, b2, b3] = unsafe { transmute::<__m512i, [[u8; RATE]; 4]>(lo) };
        // SAFETY: as above.
        let [b4, b5, b6, b7] = unsafe { transmute::<__m512i, [[u8; RATE]; 4]>(hi) };
        [b0, b1, b2, b3, b4, b5, b6, b7]
    }
}

impl<const AVX512: bool> Lanes for Wide<AVX512> {
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
                self.step_full::<BE, DECRYPT>([
                    &mut b0[i], &mut b1[i], &mut b2[i], &mut b3[i], &mut b4[i], &mut b5[i],
                    &mut b6[i], &mut b7[i],
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
    token: crate::cpu::Avx512Token,
    jobs: &mut [J],
    cipher_of: impl Fn(&J) -> &'c C,
) where
    C: Variant + 'c,
    J: Job<'a>,
{
    if moves_usable(token) {
        let mut lanes = Wide::with_token(token);
        engine::run::<Wide<true>, C, J, BE, DECRYPT>(&mut lanes, jobs, cipher_of, MIN_LIVE);
    } else {
        let mut lanes = Wide::new();
        engine::run::<Wide<false>, C, J, BE, DECRYPT>(&mut lanes, jobs, cipher_of, MIN_LIVE);
    }
}

/// The first-use self-test of the hand-written block moves ([`avx512_moves`]): 0 not
/// run yet, 1 passed, 2 failed.
#[cfg(target_arch = "x86_64")]
static MOVES_SELF_TEST: core::sync::atomic::AtomicU8 = core::sync::atomic::AtomicU8::new(0);

/// Whether the AVX-512 block moves may be used: on first use they are compared with
/// the element-wise moves ([`load2`], [`store2`]) on fixed blocks in both byte orders;
/// on any mismatch they are disabled for the rest of the process, with a one-time
/// note (`crate::simd_self_test_failures`), and the lanes move blocks element-wise
/// (the same lane-array source, still compiled for AVX-512). The inputs are fixed, so
/// the decision depends on the CPU only, never on data.
#[cfg(target_arch = "x86_64")]
fn moves_usable(token: crate::cpu::Avx512Token) -> bool {
    use core::sync::atomic::Ordering;
    match MOVES_SELF_TEST.load(Ordering::Relaxed) {
        1 => true,
        2 => false,
        _ => {
            let ok = moves_agree::<false>(token) && moves_agree::<true>(token);
            MOVES_SELF_TEST.store(if ok { 1 } else { 2 }, Ordering::Relaxed);
            if !ok {
                crate::cpu::note_self_test_failure(crate::cpu::SELF_TEST_ASCON_BATCH_AVX512);
            }
            ok
        }
    }
}

/// [`avx512_moves`] against [`load2`] and [`store2`] on eight blocks of distinct bytes,
/// in the byte order `BE`: the words gathered, and the blocks scattered back.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
fn moves_agree<const BE: bool>(_token: crate::cpu::Avx512Token) -> bool {
    let blocks: [[u8; RATE]; W] =
        core::array::from_fn(|j| core::array::from_fn(|i| (j * RATE + i) as u8 ^ 0x5a));
    // SAFETY: the token proves the CPU supports AVX-512 F and BW with the OS saving
    // their state.
    let (x0, x1) = unsafe { avx512_moves::gather::<BE>(blocks.each_ref()) };
    let gathered = (0..W).all(|j| load2::<BE>(&blocks[j]) == (x0[j], x1[j]));
    // SAFETY: as above.
    let scattered = unsafe { avx512_moves::scatter::<BE>(x0, x1) };
    let words_back = (0..W).all(|j| store2::<BE>(x0[j], x1[j]) == scattered[j]);
    gathered && words_back && scattered == blocks
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
    // SAFETY: the token proves the CPU supports AVX-512 F, VL and BW with the OS
    // saving their state, and AVX2, BMI1 and BMI2 (CPUID and XGETBV, `crate::cpu`).
    unsafe {
        if C::BE {
            run_avx512_inner::<C, J, true, DECRYPT>(token, jobs, cipher_of);
        } else {
            run_avx512_inner::<C, J, false, DECRYPT>(token, jobs, cipher_of);
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
        engine::run::<Wide<false>, C, J, true, DECRYPT>(&mut lanes, jobs, cipher_of, MIN_LIVE);
    } else {
        engine::run::<Wide<false>, C, J, false, DECRYPT>(&mut lanes, jobs, cipher_of, MIN_LIVE);
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

    /// The hand-written block moves pass their first-use self-test here, so the
    /// AVX-512 backend uses them. Prints `SKIP` where the CPU lacks AVX-512 F, VL or BW.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx512_moves_pass_their_self_test() {
        let Some(token) = crate::cpu::Avx512Token::detect() else {
            std::println!("SKIP: this CPU (or OS) lacks AVX-512 F, VL or BW");
            return;
        };
        assert!(moves_agree::<false>(token) && moves_agree::<true>(token));
        assert!(moves_usable(token));
        assert_eq!(crate::simd_self_test_failures().count(), 0);
    }

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
