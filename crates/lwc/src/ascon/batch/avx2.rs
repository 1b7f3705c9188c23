//! Ascon states in vector registers: state word `x_i` of several states is one
//! register (state `j` in 64-bit element `j`), so every instruction of the bitsliced
//! round works on those states at once. Rotations are two shifts and an OR (AVX2 has
//! no 64-bit rotate; that is AVX-512's `vprolq`).
//!
//! A lane set ([`Hybrid`]) is a vector part (two states per 128-bit register, or four
//! per 256-bit register) and `S` more states in general-purpose registers, permuted
//! round by round together. On CPUs whose vector shifts have one execution port (AMD
//! Zen 1: shifts issue at a quarter of the rate of vector logic, and a 256-bit shift
//! takes two slots, so four vector states need about 4 ns per state and round against
//! 5.4 ns for the scalar round), the integer ALUs are idle while the vector round runs;
//! scalar states fill them for nearly nothing (docs/BENCHMARKS.md).
//!
//! The AVX-512 backend is not here but in `wide.rs`: eight states as lane arrays in
//! plain Rust, compiled with AVX-512 enabled.
//!
//! Constant time: the round is XOR, AND-NOT, OR and shifts by constant amounts on whole
//! registers; blocks are moved by fixed loads, stores and byte shuffles whose positions
//! depend only on public lengths. No table look-up, no branch on data.
//!
//! All `unsafe` of the batch path is in this module. A lane set can only be made from
//! an [`Avx2Token`], which proves that the CPU and OS support AVX2, BMI1 and BMI2;
//! that is the safety argument of every intrinsic call below (none of them touches
//! memory through a pointer: blocks and states are moved by value, bit casts between
//! equally sized plain-data types).
#![allow(unsafe_code)]

use super::super::common::load2;
use super::engine::{self, Job, Lanes, MAX_LANES, Variant};
use crate::cpu::Avx2Token;
use crate::permutation::ascon::AsconState;
use core::arch::x86_64::*;
use core::mem::transmute;

/// Runs every job of `jobs` (the key of each given by `cipher_of`) on the lane set
/// `L`.
#[inline]
pub(super) fn run<'a, 'c, L, C, J, const DECRYPT: bool>(
    token: Avx2Token,
    jobs: &mut [J],
    cipher_of: impl Fn(&J) -> &'c C,
) where
    L: Lanes + Avx2Lanes,
    C: Variant + 'c,
    J: Job<'a>,
{
    // SAFETY: `run_avx2` needs AVX2, BMI1 and BMI2, which the token proves (CPUID
    // and XGETBV, `crate::cpu`).
    unsafe {
        if C::BE {
            run_avx2::<L, C, J, true, DECRYPT>(token, jobs, cipher_of);
        } else {
            run_avx2::<L, C, J, false, DECRYPT>(token, jobs, cipher_of);
        }
    }
}

/// [`engine::run`] on `L` lanes, the whole of it (scalar parts included) compiled
/// for AVX2, BMI1 and BMI2.
#[target_feature(enable = "avx2,bmi1,bmi2")]
fn run_avx2<'a, 'c, L, C, J, const BE: bool, const DECRYPT: bool>(
    token: Avx2Token,
    jobs: &mut [J],
    cipher_of: impl Fn(&J) -> &'c C,
) where
    L: Lanes + Avx2Lanes,
    C: Variant + 'c,
    J: Job<'a>,
{
    let mut lanes = L::new(token);
    engine::run::<L, C, J, BE, DECRYPT>(&mut lanes, jobs, cipher_of, L::MIN_LIVE);
}

/// Lane sets made from the proof that AVX2 is available.
pub(super) trait Avx2Lanes {
    /// Fewest busy lanes worth a step of this lane set once no job is left to
    /// start; below it the remaining jobs finish on the one-message code.
    const MIN_LIVE: usize;
    /// All-zero states.
    fn new(token: Avx2Token) -> Self;
}

/// Round constants (SP 800-232, Table 5): p^12 runs 0xf0, 0xe1, ..., 0x4b, each 0x0f
/// below the one before; p^8 is its last eight rounds, from 0xb4.
const P12_FIRST_CONSTANT: u64 = 0xf0;
const P8_FIRST_CONSTANT: u64 = 0xb4;
const LAST_CONSTANT: u64 = 0x4b;

/// The twelve round constants of p^12, each complemented (the NOT of `x2` that the
/// round before left out, [`Hybrid::vector_rounds`]) and repeated in the four 64-bit
/// elements of a register. Aligned so that a 256-bit XOR can take one as a memory
/// operand.
#[repr(C, align(32))]
struct VectorConstants([[u64; 4]; 12]);

static VECTOR_CONSTANTS: VectorConstants = VectorConstants({
    let mut t = [[0u64; 4]; 12];
    let mut i = 0;
    while i < 12 {
        t[i] = [!(P12_FIRST_CONSTANT - 0x0f * i as u64); 4];
        i += 1;
    }
    t
});

/// `pshufb` control reversing the bytes of each 64-bit element (big-endian loads).
const BSWAP64: [u8; 32] = {
    let mut c = [0u8; 32];
    let mut i = 0;
    while i < 32 {
        c[i] = ((i & !7) + 7 - (i & 7)) as u8 & 15;
        i += 1;
    }
    c
};

/// A vector register holding one state word of `LANES` states (64-bit element `j`
/// belongs to state `j`), with the operations the round and the block moves need.
/// Values exist only inside a lane set, which exists only once an [`Avx2Token`] proved
/// AVX2: the safety argument of every intrinsic call in the two implementations.
pub(super) trait Reg: Copy {
    /// States per register.
    const LANES: usize;
    /// `c` in every element.
    fn splat(c: u64) -> Self;
    /// `self ^ o`.
    fn xor(self, o: Self) -> Self;
    /// `!self & o`.
    fn andnot(self, o: Self) -> Self;
    /// Each element rotated right by `R` (`L` = 64 - `R`).
    fn rotr<const R: i32, const L: i32>(self) -> Self;
    /// The elements as words (the first `LANES` of the array).
    fn to_words(self) -> [u64; 4];
    /// The register whose elements are the first `LANES` words.
    fn from_words(w: [u64; 4]) -> Self;
    /// The rate words (`x0`, `x1`) of the first `LANES` blocks, loaded in the byte
    /// order `BE`.
    fn gather<const BE: bool>(b: &[[u8; 16]; 4]) -> (Self, Self);
    /// The inverse of [`gather`](Reg::gather) (blocks past `LANES` are zero).
    fn scatter<const BE: bool>(w0: Self, w1: Self) -> [[u8; 16]; 4];
}

/// Two states per 128-bit register.
#[derive(Clone, Copy)]
pub(super) struct Xmm(__m128i);

/// Four states per 256-bit register.
#[derive(Clone, Copy)]
pub(super) struct Ymm(__m256i);

impl Reg for Xmm {
    const LANES: usize = 2;

    #[inline(always)]
    fn splat(c: u64) -> Self {
        // SAFETY: AVX2 (so SSE2) is available (trait comment); register only.
        Xmm(unsafe { _mm_set1_epi64x(c as i64) })
    }
    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        // SAFETY: as for `splat`.
        Xmm(unsafe { _mm_xor_si128(self.0, o.0) })
    }
    #[inline(always)]
    fn andnot(self, o: Self) -> Self {
        // SAFETY: as for `splat`.
        Xmm(unsafe { _mm_andnot_si128(self.0, o.0) })
    }
    #[inline(always)]
    fn rotr<const R: i32, const L: i32>(self) -> Self {
        // SAFETY: as for `splat`.
        Xmm(unsafe { _mm_or_si128(_mm_srli_epi64::<R>(self.0), _mm_slli_epi64::<L>(self.0)) })
    }
    #[inline(always)]
    fn to_words(self) -> [u64; 4] {
        // SAFETY: a bit cast between two 16-byte plain-data types.
        let [a, b] = unsafe { transmute::<__m128i, [u64; 2]>(self.0) };
        [a, b, 0, 0]
    }
    #[inline(always)]
    fn from_words(w: [u64; 4]) -> Self {
        // SAFETY: a bit cast between two 16-byte plain-data types.
        Xmm(unsafe { transmute::<[u64; 2], __m128i>([w[0], w[1]]) })
    }
    #[inline(always)]
    fn gather<const BE: bool>(b: &[[u8; 16]; 4]) -> (Self, Self) {
        // SAFETY: bit casts between 16-byte plain-data types; SSSE3 and SSE2 are
        // available (trait comment); registers only.
        unsafe {
            let mut b0 = transmute::<[u8; 16], __m128i>(b[0]);
            let mut b1 = transmute::<[u8; 16], __m128i>(b[1]);
            if BE {
                let swap = transmute::<[u8; 16], __m128i>(BSWAP64_HALF);
                b0 = _mm_shuffle_epi8(b0, swap);
                b1 = _mm_shuffle_epi8(b1, swap);
            }
            (
                Xmm(_mm_unpacklo_epi64(b0, b1)),
                Xmm(_mm_unpackhi_epi64(b0, b1)),
            )
        }
    }
    #[inline(always)]
    fn scatter<const BE: bool>(w0: Self, w1: Self) -> [[u8; 16]; 4] {
        // SAFETY: as for `gather`.
        unsafe {
            let mut b0 = _mm_unpacklo_epi64(w0.0, w1.0);
            let mut b1 = _mm_unpackhi_epi64(w0.0, w1.0);
            if BE {
                let swap = transmute::<[u8; 16], __m128i>(BSWAP64_HALF);
                b0 = _mm_shuffle_epi8(b0, swap);
                b1 = _mm_shuffle_epi8(b1, swap);
            }
            [
                transmute::<__m128i, [u8; 16]>(b0),
                transmute::<__m128i, [u8; 16]>(b1),
                [0; 16],
                [0; 16],
            ]
        }
    }
}

/// The first half of [`BSWAP64`] (one 128-bit register).
const BSWAP64_HALF: [u8; 16] = {
    let mut c = [0u8; 16];
    let mut i = 0;
    while i < 16 {
        c[i] = BSWAP64[i];
        i += 1;
    }
    c
};

impl Ymm {
    /// The bytes of each element reversed when `BE`.
    #[inline(always)]
    fn order<const BE: bool>(self) -> Self {
        if BE {
            // SAFETY: AVX2 is available (trait comment); the control is a bit cast of
            // a 32-byte constant; registers only.
            Ymm(unsafe { _mm256_shuffle_epi8(self.0, transmute::<[u8; 32], __m256i>(BSWAP64)) })
        } else {
            self
        }
    }
}

impl Reg for Ymm {
    const LANES: usize = 4;

    #[inline(always)]
    fn splat(c: u64) -> Self {
        // SAFETY: AVX2 is available (trait comment); register only.
        Ymm(unsafe { _mm256_set1_epi64x(c as i64) })
    }
    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        // SAFETY: as for `splat`.
        Ymm(unsafe { _mm256_xor_si256(self.0, o.0) })
    }
    #[inline(always)]
    fn andnot(self, o: Self) -> Self {
        // SAFETY: as for `splat`.
        Ymm(unsafe { _mm256_andnot_si256(self.0, o.0) })
    }
    #[inline(always)]
    fn rotr<const R: i32, const L: i32>(self) -> Self {
        // SAFETY: as for `splat`.
        Ymm(unsafe {
            _mm256_or_si256(
                _mm256_srli_epi64::<R>(self.0),
                _mm256_slli_epi64::<L>(self.0),
            )
        })
    }
    #[inline(always)]
    fn to_words(self) -> [u64; 4] {
        // SAFETY: a bit cast between two 32-byte plain-data types.
        unsafe { transmute::<__m256i, [u64; 4]>(self.0) }
    }
    #[inline(always)]
    fn from_words(w: [u64; 4]) -> Self {
        // SAFETY: a bit cast between two 32-byte plain-data types.
        Ymm(unsafe { transmute::<[u64; 4], __m256i>(w) })
    }
    #[inline(always)]
    fn gather<const BE: bool>(b: &[[u8; 16]; 4]) -> (Self, Self) {
        // SAFETY: bit casts between 32-byte plain-data types (blocks 0 and 2 in one
        // register, 1 and 3 in the other); AVX2 is available; registers only.
        unsafe {
            let a02 = Ymm(transmute::<[[u8; 16]; 2], __m256i>([b[0], b[2]])).order::<BE>();
            let a13 = Ymm(transmute::<[[u8; 16]; 2], __m256i>([b[1], b[3]])).order::<BE>();
            (
                Ymm(_mm256_unpacklo_epi64(a02.0, a13.0)),
                Ymm(_mm256_unpackhi_epi64(a02.0, a13.0)),
            )
        }
    }
    #[inline(always)]
    fn scatter<const BE: bool>(w0: Self, w1: Self) -> [[u8; 16]; 4] {
        // SAFETY: as for `gather`.
        unsafe {
            let a02 = Ymm(_mm256_unpacklo_epi64(w0.0, w1.0)).order::<BE>();
            let a13 = Ymm(_mm256_unpackhi_epi64(w0.0, w1.0)).order::<BE>();
            let [b0, b2] = transmute::<__m256i, [[u8; 16]; 2]>(a02.0);
            let [b1, b3] = transmute::<__m256i, [[u8; 16]; 2]>(a13.0);
            [b0, b1, b2, b3]
        }
    }
}

/// `R::LANES` states word-sliced into five vector registers and `S` states in
/// general-purpose registers, permuted round by round together: lanes
/// `0..R::LANES` are the vector states, the next `S` the scalar ones.
#[derive(Clone, Copy)]
pub(super) struct Hybrid<R: Reg, const S: usize> {
    x: [R; 5],
    s: [AsconState; S],
}

impl<R: Reg, const S: usize> Avx2Lanes for Hybrid<R, S> {
    /// A step costs what the vector part costs (the scalar states ride along on the
    /// integer units). Measured on Zen 1: four AVX2 states 1.06-1.08x one scalar
    /// state's throughput, so worth a step only with all four busy; two xmm states
    /// plus two scalar ones 1.4x, so worth it with three busy.
    const MIN_LIVE: usize = if S == 0 { R::LANES } else { R::LANES + S - 1 };

    #[inline(always)]
    fn new(_token: Avx2Token) -> Self {
        Hybrid {
            x: [R::splat(0); 5],
            s: [AsconState::default(); S],
        }
    }
}

impl<R: Reg, const S: usize> Hybrid<R, S> {
    /// The rounds with constants `first`, `first - 0x0f`, ..., 0x4b on every state
    /// (p^12 from 0xf0, p^8 from 0xb4). With scalar states (`S > 0`) the constant
    /// itself is counted down: that keeps one general-purpose register fewer busy than
    /// indexing a table, which the scalar states need (measured 1.62x against 1.42x the
    /// one-message throughput of the permutation for four states on Zen 1). Without
    /// them, see [`vector_rounds`](Self::vector_rounds). The loops stay rolled:
    /// unrolled, the code no longer fits the micro-op cache (measured 1.17x).
    #[inline(always)]
    fn rounds_from(&mut self, first: u64) {
        if S == 0 {
            self.vector_rounds(((P12_FIRST_CONSTANT - first) / 0x0f) as usize);
            return;
        }
        let mut c = first;
        while c >= LAST_CONSTANT {
            self.round(c);
            c -= 0x0f;
        }
    }

    /// Rounds `start..12` of p^12 on the vector states alone, with three vector
    /// operations a round fewer than [`round`](Self::round): four states in 256-bit
    /// registers are throughput-bound (about 60 vector operations a round, no
    /// dependency chain limits them), so every operation saved is time saved
    /// (8 x 4 KiB Ascon-AEAD128 on the Intel Xeon of docs/BENCHMARKS.md: 2.40 to 2.32
    /// ticks/B encrypting, 2.44 to 2.34 decrypting).
    ///
    /// * The round constant comes ready-made from [`VECTOR_CONSTANTS`] as a memory
    ///   operand of the XOR, instead of moving it from a general-purpose register and
    ///   broadcasting it (two operations on the shuffle port each round).
    /// * The S-box's final NOT of `x2` is left out: the linear layer of `x2` commutes
    ///   with NOT (an odd number of rotated copies of `!x` XORed is `!` of the
    ///   same for `x`), so `x2` is kept complemented from one round to the next and
    ///   the complement is folded into the next round's constant. One NOT before the
    ///   first round and one after the last make the state exact again (between two
    ///   message steps the compiler cancels them: absorbing a block leaves `x2` alone).
    /// * The loop runs two rounds an iteration (p^12 and p^8 have an even number):
    ///   the loop counter's add and compare-and-branch take issue slots the vector
    ///   operations share, half as often (8 x 4 KiB: 2.31 to 2.25 ticks/B). Still
    ///   rolled, so the micro-op cache holds it.
    #[inline(always)]
    fn vector_rounds(&mut self, start: usize) {
        let ones = R::splat(u64::MAX);
        self.x[2] = self.x[2].xor(ones);
        for k in VECTOR_CONSTANTS.0[start..].as_chunks::<2>().0 {
            self.x = Self::sbox_and_diffusion(self.x, R::from_words(k[0]));
            self.x = Self::sbox_and_diffusion(self.x, R::from_words(k[1]));
        }
        self.x[2] = self.x[2].xor(ones);
    }

    /// One round with constant `c` on every state: the round of
    /// [`crate::permutation::ascon`] on the vector states, interleaved with the
    /// scalar rounds so that vector and integer units work at the same time.
    #[inline(always)]
    fn round(&mut self, c: u64) {
        let mut x = Self::sbox_and_diffusion(self.x, R::splat(c));
        x[2] = x[2].xor(R::splat(u64::MAX));
        self.x = x;
        for s in &mut self.s {
            s.round(c);
        }
    }

    /// The round of [`crate::permutation::ascon`] on the vector words with `k` XORed
    /// into `x2` first, except the NOT of `x2` at the end of the S-box (the callers
    /// apply it, or fold it into the next `k`; the linear layer commutes with it).
    #[inline(always)]
    fn sbox_and_diffusion(x: [R; 5], k: R) -> [R; 5] {
        let [mut x0, mut x1, mut x2, mut x3, mut x4] = x;
        x2 = x2.xor(k);
        // S-box layer.
        x0 = x0.xor(x4);
        x4 = x4.xor(x3);
        x2 = x2.xor(x1);
        let t0 = x0.andnot(x1);
        let t1 = x1.andnot(x2);
        let t2 = x2.andnot(x3);
        let t3 = x3.andnot(x4);
        let t4 = x4.andnot(x0);
        x0 = x0.xor(t1);
        x1 = x1.xor(t2);
        x2 = x2.xor(t3);
        x3 = x3.xor(t4);
        x4 = x4.xor(t0);
        x1 = x1.xor(x0);
        x0 = x0.xor(x4);
        x3 = x3.xor(x2);
        // Linear diffusion layer.
        x0 = x0.xor(x0.rotr::<19, 45>().xor(x0.rotr::<28, 36>()));
        x1 = x1.xor(x1.rotr::<61, 3>().xor(x1.rotr::<39, 25>()));
        x2 = x2.xor(x2.rotr::<1, 63>().xor(x2.rotr::<6, 58>()));
        x3 = x3.xor(x3.rotr::<10, 54>().xor(x3.rotr::<17, 47>()));
        x4 = x4.xor(x4.rotr::<7, 57>().xor(x4.rotr::<41, 23>()));
        [x0, x1, x2, x3, x4]
    }
}

impl<R: Reg, const S: usize> Lanes for Hybrid<R, S> {
    const N: usize = R::LANES + S;

    #[inline(always)]
    fn get(&self, j: usize) -> AsconState {
        match j.checked_sub(R::LANES) {
            None => AsconState(self.x.map(|w| w.to_words()[j])),
            Some(k) => self.s[k],
        }
    }

    #[inline(always)]
    fn set(&mut self, j: usize, s: AsconState) {
        match j.checked_sub(R::LANES) {
            None => {
                for (w, v) in self.x.iter_mut().zip(s.0) {
                    let mut words = w.to_words();
                    words[j] = v;
                    *w = R::from_words(words);
                }
            }
            Some(k) => self.s[k] = s,
        }
    }

    #[inline(always)]
    fn permute8(&mut self) {
        self.rounds_from(P8_FIRST_CONSTANT);
    }

    #[inline(always)]
    fn permute12(&mut self) {
        self.rounds_from(P12_FIRST_CONSTANT);
    }

    #[inline(always)]
    fn absorb<const BE: bool>(&mut self, blocks: &[[u8; 16]; MAX_LANES]) {
        let mut vector = [[0u8; 16]; 4];
        vector[..R::LANES].copy_from_slice(&blocks[..R::LANES]);
        let (c0, c1) = R::gather::<BE>(&vector);
        self.x[0] = self.x[0].xor(c0);
        self.x[1] = self.x[1].xor(c1);
        for (s, b) in self.s.iter_mut().zip(&blocks[R::LANES..]) {
            let (c0, c1) = load2::<BE>(b);
            s.0[0] ^= c0;
            s.0[1] ^= c1;
        }
    }

    #[inline(always)]
    fn message_steps<const BE: bool, const DECRYPT: bool>(
        &mut self,
        blocks: &mut [&mut [[u8; 16]]; MAX_LANES],
        n: usize,
    ) {
        const { assert!(R::LANES + S == 4, "a step handles four lanes") };
        if let [b0, b1, b2, b3, ..] = blocks
            && [b0.len(), b1.len(), b2.len(), b3.len()]
                .iter()
                .all(|&l| l >= n)
        {
            // Every lane busy (the common case): walk the four lanes' blocks together,
            // with no per-lane length check or idle-lane branch in the loop.
            let lanes = b0[..n]
                .iter_mut()
                .zip(&mut b1[..n])
                .zip(&mut b2[..n])
                .zip(&mut b3[..n]);
            for (((x0, x1), x2), x3) in lanes {
                self.step::<BE, DECRYPT>([Some(x0), Some(x1), Some(x2), Some(x3)]);
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

impl<R: Reg, const S: usize> Hybrid<R, S> {
    /// One message step: lane `j` encrypts (or decrypts) `blocks[j]` in place, an idle
    /// lane (`None`) absorbs a zero block; then p^8 on every lane.
    #[inline(always)]
    fn step<const BE: bool, const DECRYPT: bool>(
        &mut self,
        mut blocks: [Option<&mut [u8; 16]>; 4],
    ) {
        // The vector states, as `engine::message_block` on each.
        let input: [[u8; 16]; 4] = core::array::from_fn(|j| match &blocks[j] {
            Some(b) if j < R::LANES => **b,
            _ => [0; 16],
        });
        let (c0, c1) = R::gather::<BE>(&input);
        let output = if DECRYPT {
            let out = R::scatter::<BE>(self.x[0].xor(c0), self.x[1].xor(c1));
            self.x[0] = c0;
            self.x[1] = c1;
            out
        } else {
            self.x[0] = self.x[0].xor(c0);
            self.x[1] = self.x[1].xor(c1);
            R::scatter::<BE>(self.x[0], self.x[1])
        };
        for (lane, out) in blocks.iter_mut().zip(output).take(R::LANES) {
            if let Some(b) = lane {
                **b = out;
            }
        }
        // The scalar states.
        for (lane, s) in blocks[R::LANES..].iter_mut().zip(&mut self.s) {
            if let Some(b) = lane {
                engine::message_block::<BE, DECRYPT>(s, b);
            }
        }
        self.permute8();
    }
}
