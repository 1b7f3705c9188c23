//! ISAP-K with Keccak-p\[400\] in AVX2 registers, the keystream and the MAC side by
//! side (x86-64 with AVX2; other CPUs use the portable mode). Where AVX-512 F, VL
//! and BW are usable, the same source is compiled with them enabled as well
//! ([`whole_avx512`]); where VBMI2 is usable too, ρ becomes one hand-written
//! `vpshldvw` per plane ([`whole_vbmi2`]), behind a first-use self-test
//! ([`vbmi2_usable`]).
//!
//! Layout: one 128-bit register per plane `y`, lane `(x, y)` in 16-bit word `x`
//! (words 5..7 are don't-care: no operation moves them into words 0..4). A round
//! is then
//!
//! * θ: five XORs for the column parity, two byte shuffles for `C[x-1]` and
//!   `C[x+1]`, a rotation by one (add + shift + OR);
//! * ρ: a per-word rotation as `mullo(a, 2^r) | mulhi(a, 2^r)` (the low and high
//!   halves of `a * 2^r` are `a << r` and `a >> (16 - r)`);
//! * π: output plane `Y` takes word `x` from plane `(x + 2Y) mod 5` (four word
//!   blends), then one byte shuffle puts the words in order;
//! * χ: two more shuffles give the row rotated by one and two words, then
//!   AND-NOT and XOR; ι: one XOR.
//!
//! A 256-bit register holds two such states, one per 128-bit half, and every
//! instruction above works on both halves at once. Per rate block the MAC needs
//! `s_H` rounds and the keystream `s_E <= s_H`: the MAC's first `s_H - s_E` rounds
//! run alone on 128-bit registers, then its last `s_E` rounds and the keystream's
//! `s_E` rounds (the same round constants) run together on 256-bit registers.
//!
//! Constant time: only XOR/AND-NOT/OR, fixed shuffles and blends (the shuffle
//! indices and multipliers are constants, never data), multiplications by constant
//! powers of two and fixed shifts. No table look-up by data, no data-dependent
//! branch.

use super::Variant;
use super::portable;
use super::sponge::Sponge;
use crate::cpu::{Avx2Token, Avx512Token, Avx512Vbmi2Token};
use crate::permutation::keccak_p400::{KeccakP400State, RHO, ROUND_CONSTANTS};
use core::sync::atomic::{AtomicU8, Ordering};

/// Byte-shuffle control that puts word `src[x]` into word `x` (x < 5) and zeroes
/// words 5..7.
const fn words(src: [usize; 5]) -> [u8; 16] {
    let mut out = [0x80u8; 16];
    let mut x = 0;
    while x < 5 {
        out[2 * x] = (2 * src[x]) as u8;
        out[2 * x + 1] = (2 * src[x] + 1) as u8;
        x += 1;
    }
    out
}

/// Word `x` takes word `(x + shift) mod 5`.
const fn rotate_words(shift: usize) -> [u8; 16] {
    words([
        shift % 5,
        (1 + shift) % 5,
        (2 + shift) % 5,
        (3 + shift) % 5,
        (4 + shift) % 5,
    ])
}

/// θ: `C[x-1]` and `C[x+1]`.
const THETA_M1: [u8; 16] = rotate_words(4);
const THETA_P1: [u8; 16] = rotate_words(1);

/// π then χ for output plane `Y`: word `X` of the blended plane `Q_Y` is lane
/// `(X + 3Y) mod 5`; χ also needs the row rotated by one and two words.
const PI_CHI: [[[u8; 16]; 3]; 5] = {
    let mut out = [[[0u8; 16]; 3]; 5];
    let mut y = 0;
    while y < 5 {
        let mut k = 0;
        while k < 3 {
            out[y][k] = rotate_words(3 * y + k);
            k += 1;
        }
        y += 1;
    }
    out
};

/// ρ rotation counts for `vpshldvw`: word `x` of plane `y` is `RHO[x + 5y]`;
/// words 5..7 are 0.
const RHO_COUNT: [[u16; 8]; 5] = {
    let mut out = [[0u16; 8]; 5];
    let mut y = 0;
    while y < 5 {
        let mut x = 0;
        while x < 5 {
            out[y][x] = RHO[x + 5 * y] as u16;
            x += 1;
        }
        y += 1;
    }
    out
};

/// ρ multipliers: word `x` of plane `y` is `2^RHO[x + 5y]`; words 5..7 are 1.
const RHO_MUL: [[u16; 8]; 5] = {
    let mut out = [[1u16; 8]; 5];
    let mut y = 0;
    while y < 5 {
        let mut x = 0;
        while x < 5 {
            out[y][x] = 1 << RHO[x + 5 * y];
            x += 1;
        }
        y += 1;
    }
    out
};

#[allow(unsafe_code)]
mod imp {
    //! The AVX2 intrinsics, behind two register types. `X` (one state) and `Y` (two
    //! states) can only be made from an [`Avx2Token`], so holding one proves AVX2
    //! is available; that is the safety argument of every `unsafe` block here. No
    //! function here touches memory through a raw pointer: constants are
    //! transmuted from arrays of the same size.
    use super::Avx2Token;
    use core::arch::x86_64::*;
    use core::mem::transmute;

    /// The operations a Keccak-p\[400\] round needs, on one or two states.
    pub(super) trait Lanes: Copy {
        fn xor(self, o: Self) -> Self;
        /// `!self & o`.
        fn andnot(self, o: Self) -> Self;
        /// Byte shuffle with control `idx` (in each 128-bit half).
        fn shuffle(self, idx: Self) -> Self;
        /// Words whose bit is set in `M` come from `o` (in each 128-bit half).
        fn blend<const M: i32>(self, o: Self) -> Self;
        /// Each word rotated left by `log2(mul)` (multipliers are powers of two).
        fn rotate(self, mul: Self) -> Self;
        /// Each word rotated left by the count in the same word of `counts`, with
        /// one AVX-512 VBMI2 `vpshldvw` (a funnel shift of the word with itself).
        ///
        /// # Safety
        /// The CPU must support AVX-512 VBMI2 and VL.
        unsafe fn rotate_shldv(self, counts: Self) -> Self;
        /// A shuffle control (the same in each 128-bit half).
        fn bytes(t: Avx2Token, b: &[u8; 16]) -> Self;
        /// Sixteen-bit words (the same in each 128-bit half).
        fn words(t: Avx2Token, w: &[u16; 8]) -> Self;
        /// Each word rotated left by one.
        fn rotate1(self) -> Self;
        /// The ι constant `c` in word 0 (of each half).
        fn constant(self, c: u16) -> Self;
    }

    /// One state: five planes of one 128-bit register each.
    #[derive(Clone, Copy)]
    pub(super) struct X(__m128i);

    /// Two states, one per 128-bit half.
    #[derive(Clone, Copy)]
    pub(super) struct Y(__m256i);

    impl X {
        /// Plane `y` of `lanes` (lanes `5y .. 5y+5`).
        #[inline(always)]
        pub(super) fn plane(_t: Avx2Token, lanes: &[u16; 25], y: usize) -> X {
            let mut w = [0u16; 8];
            w[..5].copy_from_slice(&lanes[5 * y..5 * y + 5]);
            // SAFETY: a plain bit cast between two 16-byte types.
            X(unsafe { transmute::<[u16; 8], __m128i>(w) })
        }

        /// Words 0..5 into `lanes[5y .. 5y+5]`.
        #[inline(always)]
        pub(super) fn store_plane(self, lanes: &mut [u16; 25], y: usize) {
            // SAFETY: a plain bit cast between two 16-byte types.
            let w = unsafe { transmute::<__m128i, [u16; 8]>(self.0) };
            lanes[5 * y..5 * y + 5].copy_from_slice(&w[..5]);
        }

        /// Words 0..3 as a little-endian u64 (bytes 0..8 of the plane).
        #[inline(always)]
        pub(super) fn low64(self) -> u64 {
            // SAFETY: AVX2 (hence SSE2) is available; register only.
            unsafe { _mm_cvtsi128_si64(self.0) as u64 }
        }

        /// Word 4.
        #[inline(always)]
        pub(super) fn word4(self) -> u16 {
            // SAFETY: as above.
            unsafe { _mm_extract_epi16::<4>(self.0) as u16 }
        }

        /// XORs `lo` into words 0..3 and `w4` into word 4.
        #[inline(always)]
        pub(super) fn xor_words(self, lo: u64, w4: u16) -> X {
            // SAFETY: as above.
            X(unsafe { _mm_xor_si128(self.0, _mm_set_epi64x(i64::from(w4), lo as i64)) })
        }

        /// Two states: `self` in the low half, `hi` in the high half.
        #[inline(always)]
        pub(super) fn join(self, hi: X) -> Y {
            // SAFETY: as above.
            Y(unsafe { _mm256_set_m128i(hi.0, self.0) })
        }
    }

    impl Y {
        /// The low and high halves.
        #[inline(always)]
        pub(super) fn split(self) -> (X, X) {
            // SAFETY: as above.
            unsafe {
                (
                    X(_mm256_castsi256_si128(self.0)),
                    X(_mm256_extracti128_si256::<1>(self.0)),
                )
            }
        }
    }

    impl Lanes for X {
        #[inline(always)]
        fn xor(self, o: Self) -> Self {
            // SAFETY: see the module comment (the register types prove AVX2).
            X(unsafe { _mm_xor_si128(self.0, o.0) })
        }
        #[inline(always)]
        fn andnot(self, o: Self) -> Self {
            // SAFETY: as above.
            X(unsafe { _mm_andnot_si128(self.0, o.0) })
        }
        #[inline(always)]
        fn shuffle(self, idx: Self) -> Self {
            // SAFETY: as above.
            X(unsafe { _mm_shuffle_epi8(self.0, idx.0) })
        }
        #[inline(always)]
        fn blend<const M: i32>(self, o: Self) -> Self {
            // SAFETY: as above.
            X(unsafe { _mm_blend_epi16::<M>(self.0, o.0) })
        }
        #[inline(always)]
        fn rotate(self, mul: Self) -> Self {
            // SAFETY: as above.
            X(unsafe {
                _mm_or_si128(
                    _mm_mullo_epi16(self.0, mul.0),
                    _mm_mulhi_epu16(self.0, mul.0),
                )
            })
        }
        #[inline(always)]
        unsafe fn rotate_shldv(self, counts: Self) -> Self {
            // SAFETY: the caller guarantees AVX-512 VBMI2 and VL.
            X(unsafe { _mm_shldv_epi16(self.0, self.0, counts.0) })
        }
        #[inline(always)]
        fn bytes(_t: Avx2Token, b: &[u8; 16]) -> Self {
            // SAFETY: a bit cast of 16 bytes.
            X(unsafe { transmute::<[u8; 16], __m128i>(*b) })
        }
        #[inline(always)]
        fn words(_t: Avx2Token, w: &[u16; 8]) -> Self {
            // SAFETY: a bit cast of 16 bytes.
            X(unsafe { transmute::<[u16; 8], __m128i>(*w) })
        }
        #[inline(always)]
        fn rotate1(self) -> Self {
            // SAFETY: as above.
            X(
                unsafe {
                    _mm_or_si128(_mm_add_epi16(self.0, self.0), _mm_srli_epi16::<15>(self.0))
                },
            )
        }
        #[inline(always)]
        fn constant(self, c: u16) -> Self {
            // SAFETY: as above.
            X(unsafe { _mm_xor_si128(self.0, _mm_cvtsi32_si128(i32::from(c))) })
        }
    }

    impl Lanes for Y {
        #[inline(always)]
        fn xor(self, o: Self) -> Self {
            // SAFETY: as above.
            Y(unsafe { _mm256_xor_si256(self.0, o.0) })
        }
        #[inline(always)]
        fn andnot(self, o: Self) -> Self {
            // SAFETY: as above.
            Y(unsafe { _mm256_andnot_si256(self.0, o.0) })
        }
        #[inline(always)]
        fn shuffle(self, idx: Self) -> Self {
            // SAFETY: as above.
            Y(unsafe { _mm256_shuffle_epi8(self.0, idx.0) })
        }
        #[inline(always)]
        fn blend<const M: i32>(self, o: Self) -> Self {
            // SAFETY: as above.
            Y(unsafe { _mm256_blend_epi16::<M>(self.0, o.0) })
        }
        #[inline(always)]
        fn rotate(self, mul: Self) -> Self {
            // SAFETY: as above.
            Y(unsafe {
                _mm256_or_si256(
                    _mm256_mullo_epi16(self.0, mul.0),
                    _mm256_mulhi_epu16(self.0, mul.0),
                )
            })
        }
        #[inline(always)]
        unsafe fn rotate_shldv(self, counts: Self) -> Self {
            // SAFETY: the caller guarantees AVX-512 VBMI2 and VL.
            Y(unsafe { _mm256_shldv_epi16(self.0, self.0, counts.0) })
        }
        #[inline(always)]
        fn bytes(_t: Avx2Token, b: &[u8; 16]) -> Self {
            // SAFETY: a bit cast of 32 bytes.
            Y(unsafe { transmute::<[[u8; 16]; 2], __m256i>([*b, *b]) })
        }
        #[inline(always)]
        fn words(_t: Avx2Token, w: &[u16; 8]) -> Self {
            // SAFETY: a bit cast of 32 bytes.
            Y(unsafe { transmute::<[[u16; 8]; 2], __m256i>([*w, *w]) })
        }
        #[inline(always)]
        fn rotate1(self) -> Self {
            // SAFETY: as above.
            Y(unsafe {
                _mm256_or_si256(
                    _mm256_add_epi16(self.0, self.0),
                    _mm256_srli_epi16::<15>(self.0),
                )
            })
        }
        #[inline(always)]
        fn constant(self, c: u16) -> Self {
            // SAFETY: as above; the transmute is a bit cast of 32 bytes.
            Y(unsafe {
                let mut w = [0u16; 16];
                w[0] = c;
                w[8] = c;
                _mm256_xor_si256(self.0, transmute::<[u16; 16], __m256i>(w))
            })
        }
    }
}

use imp::{Lanes, X, Y};

/// The shuffle controls and ρ operands in registers. They pass through
/// [`core::hint::black_box`] once per call, so the compiler keeps the instructions
/// as written (otherwise it turns `mulhi` by a power of two into a widening
/// shift sequence that costs five instructions).
///
/// `SHLDV = false`: ρ multiplies by the powers of two in `rho` (AVX2, and the same
/// source compiled for AVX-512). `SHLDV = true`: `rho` holds the rotation counts
/// and ρ is one `vpshldvw` per plane (AVX-512 VBMI2, written by hand: see
/// [`vbmi2_usable`]); such a value can only be made from an
/// [`Avx512Vbmi2Token`], which is what makes `rotate_shldv` sound in [`round`].
#[derive(Clone, Copy)]
struct Consts<L, const SHLDV: bool> {
    theta_m1: L,
    theta_p1: L,
    pi_chi: [[L; 3]; 5],
    rho: [L; 5],
}

impl<L: Lanes> Consts<L, false> {
    #[inline(always)]
    fn new(t: Avx2Token) -> Self {
        core::hint::black_box(Consts {
            theta_m1: L::bytes(t, &THETA_M1),
            theta_p1: L::bytes(t, &THETA_P1),
            pi_chi: core::array::from_fn(|y| core::array::from_fn(|k| L::bytes(t, &PI_CHI[y][k]))),
            rho: core::array::from_fn(|y| L::words(t, &RHO_MUL[y])),
        })
    }
}

impl<L: Lanes> Consts<L, true> {
    #[inline(always)]
    fn new_vbmi2(v: Avx512Vbmi2Token) -> Self {
        let t = v.avx2();
        core::hint::black_box(Consts {
            theta_m1: L::bytes(t, &THETA_M1),
            theta_p1: L::bytes(t, &THETA_P1),
            pi_chi: core::array::from_fn(|y| core::array::from_fn(|k| L::bytes(t, &PI_CHI[y][k]))),
            rho: core::array::from_fn(|y| L::words(t, &RHO_COUNT[y])),
        })
    }
}

/// One Keccak-p\[400\] round on the planes `a` (one or two states).
#[inline(always)]
#[allow(unsafe_code)]
fn round<L: Lanes, const SHLDV: bool>(a: &mut [L; 5], k: &Consts<L, SHLDV>, rc: u16) {
    // The constants are re-read from memory every round, as operands of the
    // instructions that use them; this also keeps the compiler from hoisting a
    // widened copy of the ρ multipliers out of the loop (which would make it
    // emulate `mulhi` with widening shifts).
    let k = core::hint::black_box(k);
    // θ
    let c = a[0].xor(a[1]).xor(a[2]).xor(a[3]).xor(a[4]);
    let d = c.shuffle(k.theta_m1).xor(c.shuffle(k.theta_p1).rotate1());
    // ρ
    let p: [L; 5] = core::array::from_fn(|y| {
        let v = a[y].xor(d);
        if SHLDV {
            // SAFETY: a `Consts<_, true>` is only made by `Consts::new_vbmi2`, from
            // a token proving AVX-512 VBMI2 and VL.
            unsafe { v.rotate_shldv(k.rho[y]) }
        } else {
            v.rotate(k.rho[y])
        }
    });
    // π and χ, plane by plane.
    for (yy, out) in a.iter_mut().enumerate() {
        let s = |x: usize| p[(x + 2 * yy) % 5];
        let q01 = s(0).blend::<0b10>(s(1));
        let q23 = s(2).blend::<0b1000>(s(3));
        let q = q01.blend::<0b1100>(q23).blend::<0b1_0000>(s(4));
        let b0 = q.shuffle(k.pi_chi[yy][0]);
        let b1 = q.shuffle(k.pi_chi[yy][1]);
        let b2 = q.shuffle(k.pi_chi[yy][2]);
        *out = b0.xor(b1.andnot(b2));
    }
    // ι
    a[0] = a[0].constant(rc);
}

/// Rounds `from .. 20` (Keccak-p\[400, 20 - from\]).
#[inline(always)]
fn rounds<L: Lanes, const S: bool>(a: &mut [L; 5], k: &Consts<L, S>, from: usize) {
    for &c in &ROUND_CONSTANTS[from..] {
        round(a, k, c);
    }
}

/// Rounds `from .. to`.
#[inline(always)]
fn rounds_range<L: Lanes, const S: bool>(a: &mut [L; 5], k: &Consts<L, S>, from: usize, to: usize) {
    for &c in &ROUND_CONSTANTS[from..to] {
        round(a, k, c);
    }
}

#[inline(always)]
fn planes(t: Avx2Token, s: &KeccakP400State) -> [X; 5] {
    core::array::from_fn(|y| X::plane(t, &s.0, y))
}

#[inline(always)]
fn to_state(p: &[X; 5]) -> KeccakP400State {
    let mut lanes = [0u16; 25];
    for (y, x) in p.iter().enumerate() {
        x.store_plane(&mut lanes, y);
    }
    KeccakP400State(lanes)
}

#[inline(always)]
fn le64(b: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[..8]);
    u64::from_le_bytes(w)
}

/// The 18 rate bytes of `k` as (bytes 0..8, bytes 8..10, bytes 10..18).
#[inline(always)]
fn rate(k: &[X; 5]) -> (u64, u16, u64) {
    (k[0].low64(), k[0].word4(), k[1].low64())
}

/// Encrypts (`DECRYPT = false`) or decrypts `buf` in place with the keystream of
/// `k` (IsapEnc's planes), absorbing the ciphertext (10*-padded) into `m` (the
/// MAC's planes). `SH` MAC rounds and `SE` keystream rounds per 18-byte block,
/// `SE <= SH`.
#[inline(always)]
fn stream<const SH: usize, const SE: usize, const DECRYPT: bool, const S: bool>(
    cx: &Consts<X, S>,
    cy: &Consts<Y, S>,
    mut k: [X; 5],
    m: &mut [X; 5],
    buf: &mut [u8],
) {
    const { assert!(SE <= SH && SH <= 20) };
    // Keystream for block 0.
    rounds(&mut k, cx, 20 - SE);
    let mut blocks = buf.chunks_exact_mut(18);
    for block in blocks.by_ref() {
        let (k0, k1, k2) = rate(&k);
        let i0 = le64(&block[..8]);
        let i1 = u16::from_le_bytes([block[8], block[9]]);
        let i2 = le64(&block[10..]);
        let (o0, o1, o2) = (i0 ^ k0, i1 ^ k1, i2 ^ k2);
        block[..8].copy_from_slice(&o0.to_le_bytes());
        block[8..10].copy_from_slice(&o1.to_le_bytes());
        block[10..].copy_from_slice(&o2.to_le_bytes());
        let (c0, c1, c2) = if DECRYPT { (i0, i1, i2) } else { (o0, o1, o2) };
        m[0] = m[0].xor_words(c0, c1);
        m[1] = m[1].xor_words(c2, 0);
        // The MAC's first SH - SE rounds alone, then both states together.
        rounds_range(m, cx, 20 - SH, 20 - SE);
        let mut y: [Y; 5] = core::array::from_fn(|i| m[i].join(k[i]));
        rounds(&mut y, cy, 20 - SE);
        for i in 0..5 {
            (m[i], k[i]) = y[i].split();
        }
    }
    // Last, partial block (possibly empty), with the padding.
    let rest = blocks.into_remainder();
    let (k0, k1, k2) = rate(&k);
    let mut key = [0u8; 18];
    key[..8].copy_from_slice(&k0.to_le_bytes());
    key[8..10].copy_from_slice(&k1.to_le_bytes());
    key[10..].copy_from_slice(&k2.to_le_bytes());
    let mut pad = [0u8; 18];
    for ((p, b), kb) in pad.iter_mut().zip(rest.iter_mut()).zip(key) {
        let c = if DECRYPT { *b } else { *b ^ kb };
        *b ^= kb;
        *p = c;
    }
    pad[rest.len()] = 0x80;
    m[0] = m[0].xor_words(le64(&pad[..8]), u16::from_le_bytes([pad[8], pad[9]]));
    m[1] = m[1].xor_words(le64(&pad[10..]), 0);
    rounds(m, cx, 20 - SH);
}

/// IsapRk as a sequence of single rounds, so it can be interleaved with other
/// work: `SK` rounds, then 127 times (one bit of `y`, `SB` rounds), then the last
/// bit and `SK` rounds. The step counter is public; the bits only feed XORs.
struct Rekey {
    a: [X; 5],
    y: u128,
    step: usize,
}

impl Rekey {
    #[inline(always)]
    fn new(t: Avx2Token, key: &[u8; 16], iv: &[u8; 8], y: &[u8; 16]) -> Self {
        Rekey {
            a: planes(t, &KeccakP400State::init(key, iv)),
            y: u128::from_be_bytes(*y),
            step: 0,
        }
    }

    #[inline(always)]
    fn done<const SB: usize, const SK: usize>(&self) -> bool {
        self.step == 2 * SK + 127 * SB
    }

    /// Bit `i` of y (most significant first) at the top of state byte 0.
    #[inline(always)]
    fn inject(&mut self, i: usize) {
        self.a[0] = self.a[0].constant((((self.y >> (127 - i)) & 1) as u16) << 7);
    }

    #[inline(always)]
    fn round<const SB: usize, const SK: usize, const S: bool>(&mut self, cx: &Consts<X, S>) {
        let s = self.step;
        let r = if s < SK {
            20 - SK + s
        } else if s < SK + 127 * SB {
            let j = s - SK;
            if j.is_multiple_of(SB) {
                self.inject(j / SB);
            }
            20 - SB + j % SB
        } else {
            let j = s - SK - 127 * SB;
            if j == 0 {
                self.inject(127);
            }
            20 - SK + j
        };
        round(&mut self.a, cx, ROUND_CONSTANTS[r]);
        self.step += 1;
    }

    #[inline(always)]
    fn finish<const SB: usize, const SK: usize, const S: bool>(
        mut self,
        cx: &Consts<X, S>,
    ) -> KeccakP400State {
        while !self.done::<SB, SK>() {
            self.round::<SB, SK, S>(cx);
        }
        to_state(&self.a)
    }
}

/// IsapMac's start as single rounds: `N || IV_A`, p^{SH}; each AD block and the
/// padded last one, each followed by p^{SH}; then the domain separation.
struct MacAd<'a> {
    a: [X; 5],
    blocks: core::slice::ChunksExact<'a, u8>,
    rest: &'a [u8],
    /// Round within the current permutation.
    r: usize,
    /// 0: initial permutation; then one per absorbed block; the padded block last.
    perm: usize,
    perms: usize,
}

impl<'a> MacAd<'a> {
    #[inline(always)]
    fn new<V: Variant<S = KeccakP400State>>(t: Avx2Token, nonce: &[u8; 16], ad: &'a [u8]) -> Self {
        let blocks = ad.chunks_exact(18);
        let rest = blocks.remainder();
        MacAd {
            a: planes(t, &KeccakP400State::init(nonce, &V::IV_A)),
            perms: blocks.len() + 2,
            blocks,
            rest,
            r: 0,
            perm: 0,
        }
    }

    #[inline(always)]
    fn done(&self) -> bool {
        self.perm == self.perms
    }

    #[inline(always)]
    fn xor_block(&mut self, b: &[u8]) {
        self.a[0] = self.a[0].xor_words(le64(&b[..8]), u16::from_le_bytes([b[8], b[9]]));
        self.a[1] = self.a[1].xor_words(le64(&b[10..18]), 0);
    }

    #[inline(always)]
    fn round<const SH: usize, const S: bool>(&mut self, cx: &Consts<X, S>) {
        if self.r == 0 && self.perm > 0 {
            if let Some(b) = self.blocks.next() {
                self.xor_block(b);
            } else {
                let mut pad = [0u8; 18];
                pad[..self.rest.len()].copy_from_slice(self.rest);
                pad[self.rest.len()] = 0x80;
                self.xor_block(&pad);
            }
        }
        round(&mut self.a, cx, ROUND_CONSTANTS[20 - SH + self.r]);
        self.r += 1;
        if self.r == SH {
            self.r = 0;
            self.perm += 1;
            if self.done() {
                // Domain separation: the last state bit (high byte of lane 24).
                self.a[4] = self.a[4].xor_words(0, 0x0100);
            }
        }
    }
}

/// The whole of encryption or decryption in place, in vector registers; returns
/// the tag over the ciphertext. IsapRk for K*_E runs interleaved with IsapMac's
/// absorption of the AD (two independent chains), then the keystream and the MAC
/// run paired ([`stream`]), then IsapRk for K*_A and the tag.
///
/// The one source of both feature levels: [`whole_avx2`] and [`whole_avx512`]
/// instantiate it, and the compiler selects the instructions for each.
#[inline(always)]
fn whole<
    V: Variant<S = KeccakP400State>,
    const SH: usize,
    const SB: usize,
    const SE: usize,
    const SK: usize,
    const DECRYPT: bool,
    const S: bool,
>(
    t: Avx2Token,
    cx: Consts<X, S>,
    cy: Consts<Y, S>,
    key: &[u8; 16],
    nonce: &[u8; 16],
    ad: &[u8],
    buf: &mut [u8],
) -> [u8; 16] {
    let mut ke = Rekey::new(t, key, &V::IV_KE, nonce);
    let mut mac = MacAd::new::<V>(t, nonce, ad);
    while !mac.done() && !ke.done::<SB, SK>() {
        ke.round::<SB, SK, S>(&cx);
        mac.round::<SH, S>(&cx);
    }
    while !mac.done() {
        mac.round::<SH, S>(&cx);
    }
    let mut ks = ke.finish::<SB, SK, S>(&cx);
    ks.set_last16(nonce);
    let mut m = mac.a;
    stream::<SH, SE, DECRYPT, S>(&cx, &cy, planes(t, &ks), &mut m, buf);
    // IsapMac's end: K*_A from the first 16 bytes, then the tag.
    let mut s = to_state(&m);
    let ka = Rekey::new(t, key, &V::IV_KA, &s.first16()).finish::<SB, SK, S>(&cx);
    s.set_first16(&ka.first16());
    let mut m = planes(t, &s);
    rounds(&mut m, &cx, 20 - SH);
    to_state(&m).first16()
}

/// [`whole`] compiled for AVX2, BMI1 and BMI2.
#[target_feature(enable = "avx2,bmi1,bmi2")]
fn whole_avx2<
    V: Variant<S = KeccakP400State>,
    const SH: usize,
    const SB: usize,
    const SE: usize,
    const SK: usize,
    const DECRYPT: bool,
>(
    t: Avx2Token,
    key: &[u8; 16],
    nonce: &[u8; 16],
    ad: &[u8],
    buf: &mut [u8],
) -> [u8; 16] {
    whole::<V, SH, SB, SE, SK, DECRYPT, false>(
        t,
        Consts::new(t),
        Consts::new(t),
        key,
        nonce,
        ad,
        buf,
    )
}

/// [`whole`] compiled with AVX-512 F, VL and BW enabled as well: the same source,
/// for which the compiler turns the θ parity and χ (`a ^ (!b & c)`) into
/// `vpternlog` and can use the 32 vector registers. (AVX-512 has no 16-bit rotate
/// without VBMI2, so ρ stays multiplications.)
#[target_feature(enable = "avx2,bmi1,bmi2,avx512f,avx512vl,avx512bw")]
fn whole_avx512<
    V: Variant<S = KeccakP400State>,
    const SH: usize,
    const SB: usize,
    const SE: usize,
    const SK: usize,
    const DECRYPT: bool,
>(
    t: Avx512Token,
    key: &[u8; 16],
    nonce: &[u8; 16],
    ad: &[u8],
    buf: &mut [u8],
) -> [u8; 16] {
    let t = t.avx2();
    whole::<V, SH, SB, SE, SK, DECRYPT, false>(
        t,
        Consts::new(t),
        Consts::new(t),
        key,
        nonce,
        ad,
        buf,
    )
}

/// [`whole`] with ρ as one hand-written `vpshldvw` per plane (AVX-512 VBMI2), the
/// rest the same source compiled for AVX-512 F, VL, BW and VBMI2. The compiler
/// does not find this rotation itself (written as plain per-word rotations it
/// leaves most words to scalar code), and it is worth 1.2x on ISAP-K-128A
/// (docs/BENCHMARKS.md); so it runs only after [`vbmi2_usable`]'s self-test.
#[target_feature(enable = "avx2,bmi1,bmi2,avx512f,avx512vl,avx512bw,avx512vbmi2")]
fn whole_vbmi2<
    V: Variant<S = KeccakP400State>,
    const SH: usize,
    const SB: usize,
    const SE: usize,
    const SK: usize,
    const DECRYPT: bool,
>(
    v: Avx512Vbmi2Token,
    key: &[u8; 16],
    nonce: &[u8; 16],
    ad: &[u8],
    buf: &mut [u8],
) -> [u8; 16] {
    whole::<V, SH, SB, SE, SK, DECRYPT, true>(
        v.avx2(),
        Consts::new_vbmi2(v),
        Consts::new_vbmi2(v),
        key,
        nonce,
        ad,
        buf,
    )
}

/// [`whole_vbmi2`] as a safe call.
#[inline(always)]
#[allow(unsafe_code)]
fn call_vbmi2<
    V: Variant<S = KeccakP400State>,
    const SH: usize,
    const SB: usize,
    const SE: usize,
    const SK: usize,
    const DECRYPT: bool,
>(
    v: Avx512Vbmi2Token,
    key: &[u8; 16],
    nonce: &[u8; 16],
    ad: &[u8],
    buf: &mut [u8],
) -> [u8; 16] {
    // SAFETY: the token proves AVX-512 F, VL, BW and VBMI2 (with the OS saving
    // their state), AVX2, BMI1 and BMI2.
    unsafe { whole_vbmi2::<V, SH, SB, SE, SK, DECRYPT>(v, key, nonce, ad, buf) }
}

/// The first-use self-test of [`whole_vbmi2`]: 0 = not run yet, 1 = passed,
/// 2 = failed (the hand-written path is then never used in this process).
static VBMI2_SELF_TEST: AtomicU8 = AtomicU8::new(0);

/// Whether the hand-written VBMI2 path may run: on first use, it encrypts and
/// decrypts fixed inputs with both ISAP-K variants and compares every byte and tag
/// with the portable mode. On any mismatch it is disabled for the rest of the
/// process, with a one-time note (`crate::simd_self_test_failures`), and the
/// compiler-generated AVX-512 path runs instead. The inputs are fixed constants,
/// so this decision depends on the CPU only, never on data.
#[inline]
fn vbmi2_usable(v: Avx512Vbmi2Token) -> bool {
    match VBMI2_SELF_TEST.load(Ordering::Relaxed) {
        1 => true,
        2 => false,
        _ => {
            let ok = self_test(
                |variant, decrypt, key, nonce, ad, buf| match (variant, decrypt) {
                    (0, false) => {
                        call_vbmi2::<crate::IsapK128a, 16, 1, 8, 8, false>(v, key, nonce, ad, buf)
                    }
                    (0, true) => {
                        call_vbmi2::<crate::IsapK128a, 16, 1, 8, 8, true>(v, key, nonce, ad, buf)
                    }
                    (_, false) => {
                        call_vbmi2::<crate::IsapK128, 20, 12, 12, 12, false>(v, key, nonce, ad, buf)
                    }
                    (_, true) => {
                        call_vbmi2::<crate::IsapK128, 20, 12, 12, 12, true>(v, key, nonce, ad, buf)
                    }
                },
            );
            VBMI2_SELF_TEST.store(if ok { 1 } else { 2 }, Ordering::Relaxed);
            if !ok {
                crate::cpu::note_self_test_failure(crate::cpu::SELF_TEST_ISAP_K_VBMI2);
            }
            ok
        }
    }
}

/// A run of one whole encryption (`decrypt = false`) or decryption of ISAP-K-128A
/// (`variant = 0`) or ISAP-K-128 (`1`) in place; returns the tag.
type WholeFn<'f> = &'f dyn Fn(u8, bool, &[u8; 16], &[u8; 16], &[u8], &mut [u8]) -> [u8; 16];

/// Compares `run` with the portable mode on fixed inputs (a 61-byte message, so
/// three full blocks and a partial one, and 23 bytes of AD), both variants, both
/// directions. `true` if every byte and tag agree.
fn self_test(run: impl Fn(u8, bool, &[u8; 16], &[u8; 16], &[u8], &mut [u8]) -> [u8; 16]) -> bool {
    let run: WholeFn<'_> = &run;
    let key: [u8; 16] = core::array::from_fn(|i| (i as u8).wrapping_mul(29) ^ 0x5c);
    let nonce: [u8; 16] = core::array::from_fn(|i| (i as u8).wrapping_mul(71) ^ 0xa3);
    let ad: [u8; 23] = core::array::from_fn(|i| (i as u8).wrapping_mul(13) ^ 0x3e);
    let msg: [u8; 61] = core::array::from_fn(|i| (i as u8).wrapping_mul(101) ^ 0x17);
    let mut ok = true;
    for variant in 0..2u8 {
        let mut want = msg;
        let want_tag = if variant == 0 {
            portable::encrypt::<crate::IsapK128a>(&key, &nonce, &ad, &mut want)
        } else {
            portable::encrypt::<crate::IsapK128>(&key, &nonce, &ad, &mut want)
        };
        let mut got = msg;
        let tag = run(variant, false, &key, &nonce, &ad, &mut got);
        // Every comparison runs (no early exit): public, fixed data anyway.
        ok &= got == want && tag == want_tag;
        let tag = run(variant, true, &key, &nonce, &ad, &mut got);
        ok &= got == msg && tag == want_tag;
    }
    ok
}

/// The fastest instance of [`whole`] this CPU runs, or `None` without AVX2.
#[inline(always)]
#[allow(unsafe_code)]
fn whole_best<
    V: Variant<S = KeccakP400State>,
    const SH: usize,
    const SB: usize,
    const SE: usize,
    const SK: usize,
    const DECRYPT: bool,
>(
    key: &[u8; 16],
    nonce: &[u8; 16],
    ad: &[u8],
    buf: &mut [u8],
) -> Option<[u8; 16]> {
    match Kernel::detect() {
        Kernel::Vbmi2(v) => Some(call_vbmi2::<V, SH, SB, SE, SK, DECRYPT>(
            v, key, nonce, ad, buf,
        )),
        // SAFETY: the token proves the CPU supports AVX-512 F, VL and BW (with the OS
        // saving their state), AVX2, BMI1 and BMI2.
        Kernel::Avx512(t) => {
            Some(unsafe { whole_avx512::<V, SH, SB, SE, SK, DECRYPT>(t, key, nonce, ad, buf) })
        }
        // SAFETY: the token proves the CPU supports AVX2, BMI1 and BMI2.
        Kernel::Avx2(t) => {
            Some(unsafe { whole_avx2::<V, SH, SB, SE, SK, DECRYPT>(t, key, nonce, ad, buf) })
        }
        Kernel::Portable => None,
    }
}

/// The ISAP-K code [`encrypt`] and [`decrypt`] run on this CPU, chosen here only, so
/// that [`Kernel::name`] (what `crate::kernels` reports) is the code that really runs.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Kernel {
    /// The hand-written AVX-512 VBMI2 path, once its self-test passed.
    Vbmi2(Avx512Vbmi2Token),
    /// The AVX2 source compiled for AVX-512 F+VL+BW.
    Avx512(Avx512Token),
    /// The AVX2 source.
    Avx2(Avx2Token),
    /// The portable mode.
    Portable,
}

impl Kernel {
    /// The fastest this CPU runs: VBMI2 (when its first-use self-test agrees with the
    /// portable code), AVX-512 F+VL+BW, AVX2, else portable.
    #[inline(always)]
    pub(crate) fn detect() -> Kernel {
        if let Some(v) = Avx512Vbmi2Token::detect()
            && vbmi2_usable(v)
        {
            Kernel::Vbmi2(v)
        } else if let Some(t) = Avx512Token::detect() {
            Kernel::Avx512(t)
        } else if let Some(t) = Avx2Token::detect() {
            Kernel::Avx2(t)
        } else {
            Kernel::Portable
        }
    }

    /// Its name in reports.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kernel::Vbmi2(_) => "avx512-vbmi2",
            Kernel::Avx512(_) => "avx512",
            Kernel::Avx2(_) => "avx2",
            Kernel::Portable => "portable",
        }
    }
}

/// Encryption with the AVX2 path when the CPU has it, else the portable mode.
#[inline(always)]
#[allow(unsafe_code)]
pub(crate) fn encrypt<
    V: Variant<S = KeccakP400State>,
    const SH: usize,
    const SB: usize,
    const SE: usize,
    const SK: usize,
>(
    key: &[u8; 16],
    nonce: &[u8; 16],
    ad: &[u8],
    buf: &mut [u8],
) -> [u8; 16] {
    match whole_best::<V, SH, SB, SE, SK, false>(key, nonce, ad, buf) {
        Some(tag) => tag,
        None => portable::encrypt::<V>(key, nonce, ad, buf),
    }
}

/// Decryption: with AVX2 the MAC over the ciphertext and the keystream run side by
/// side into `buf`, then the tag is checked and `buf` wiped if it is wrong; without
/// AVX2, the portable mode (MAC first, then decryption).
#[inline(always)]
#[allow(unsafe_code)]
pub(crate) fn decrypt<
    V: Variant<S = KeccakP400State>,
    const SH: usize,
    const SB: usize,
    const SE: usize,
    const SK: usize,
>(
    key: &[u8; 16],
    nonce: &[u8; 16],
    ad: &[u8],
    buf: &mut [u8],
    tag: &[u8; 16],
) -> aead::Result<()> {
    let Some(computed) = whole_best::<V, SH, SB, SE, SK, true>(key, nonce, ad, buf) else {
        return portable::decrypt::<V>(key, nonce, ad, buf, tag);
    };
    crate::tag::verify_or_wipe(&computed, tag, buf)
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;

    #[target_feature(enable = "avx2,bmi1,bmi2")]
    fn vector_rounds(
        t: Avx2Token,
        s: &KeccakP400State,
        from: usize,
    ) -> (KeccakP400State, KeccakP400State) {
        let mut other = *s;
        other.0[7] ^= 0x1234;
        let mut x = planes(t, s);
        let xo = planes(t, &other);
        let mut y: [Y; 5] = core::array::from_fn(|i| x[i].join(xo[i]));
        rounds(&mut x, &Consts::<X, false>::new(t), from);
        rounds(&mut y, &Consts::<Y, false>::new(t), from);
        let mut lo = x;
        let mut hi = x;
        for i in 0..5 {
            (lo[i], hi[i]) = y[i].split();
        }
        assert!(to_state(&lo) == to_state(&x));
        (to_state(&x), to_state(&hi))
    }

    /// An instance of [`whole`] (`run(decrypt, key, nonce, ad, buf)`) against the
    /// portable mode, both directions: random keys, nonces and data, every message
    /// length 0..=300 (all block tails, up to 17 blocks) with AD lengths around the
    /// 18-byte rate.
    fn agrees_with_portable<V: Variant<S = KeccakP400State>>(
        seed: u64,
        run: impl Fn(bool, &[u8; 16], &[u8; 16], &[u8], &mut [u8]) -> [u8; 16],
    ) {
        use rand::{Rng, RngCore, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let mut data = [0u8; 400];
        for len in 0..=300 {
            for ad_len in [0, rng.random_range(1..18), 18, rng.random_range(19..100)] {
                let key: [u8; 16] = rng.random();
                let nonce: [u8; 16] = rng.random();
                rng.fill_bytes(&mut data);
                let (msg, ad) = data.split_at_mut(300);
                let (msg, ad) = (&mut msg[..len], &ad[..ad_len]);
                let mut want = msg.to_vec();
                let want_tag = portable::encrypt::<V>(&key, &nonce, ad, &mut want);
                let plain = msg.to_vec();
                let tag = run(false, &key, &nonce, ad, msg);
                assert_eq!(
                    (&msg[..], tag),
                    (&want[..], want_tag),
                    "encrypt {len} {ad_len}"
                );
                let tag = run(true, &key, &nonce, ad, msg);
                assert_eq!(
                    (&msg[..], tag),
                    (&plain[..], want_tag),
                    "decrypt {len} {ad_len}"
                );
            }
        }
    }

    /// The same source compiled for AVX-512 F+VL+BW, against the portable mode.
    /// Prints `SKIP` where the CPU lacks AVX-512 F, VL or BW.
    #[test]
    #[allow(unsafe_code)]
    fn avx512_matches_portable() {
        let Some(t) = Avx512Token::detect() else {
            std::println!("SKIP: this CPU (or OS) lacks AVX-512 F, VL or BW");
            return;
        };
        // SAFETY (every call below): the token proves AVX-512 F, VL, BW, AVX2,
        // BMI1 and BMI2.
        agrees_with_portable::<crate::IsapK128a>(1, |d, k, n, a, b| unsafe {
            if d {
                whole_avx512::<crate::IsapK128a, 16, 1, 8, 8, true>(t, k, n, a, b)
            } else {
                whole_avx512::<crate::IsapK128a, 16, 1, 8, 8, false>(t, k, n, a, b)
            }
        });
        agrees_with_portable::<crate::IsapK128>(2, |d, k, n, a, b| unsafe {
            if d {
                whole_avx512::<crate::IsapK128, 20, 12, 12, 12, true>(t, k, n, a, b)
            } else {
                whole_avx512::<crate::IsapK128, 20, 12, 12, 12, false>(t, k, n, a, b)
            }
        });
    }

    /// The hand-written VBMI2 path against the portable mode (without its
    /// self-test, which is checked separately). Prints `SKIP` where the CPU lacks
    /// AVX-512 VBMI2.
    #[test]
    fn vbmi2_matches_portable() {
        let Some(v) = Avx512Vbmi2Token::detect() else {
            std::println!("SKIP: this CPU (or OS) lacks AVX-512 VBMI2 (or F, VL, BW)");
            return;
        };
        agrees_with_portable::<crate::IsapK128a>(3, |d, k, n, a, b| {
            if d {
                call_vbmi2::<crate::IsapK128a, 16, 1, 8, 8, true>(v, k, n, a, b)
            } else {
                call_vbmi2::<crate::IsapK128a, 16, 1, 8, 8, false>(v, k, n, a, b)
            }
        });
        agrees_with_portable::<crate::IsapK128>(4, |d, k, n, a, b| {
            if d {
                call_vbmi2::<crate::IsapK128, 20, 12, 12, 12, true>(v, k, n, a, b)
            } else {
                call_vbmi2::<crate::IsapK128, 20, 12, 12, 12, false>(v, k, n, a, b)
            }
        });
        // Its self-test passes here, so the dispatcher uses it.
        assert!(vbmi2_usable(v));
        assert_eq!(crate::simd_self_test_failures().count(), 0);
    }

    /// The self-test accepts the portable mode itself and rejects a path that
    /// differs in one bit of the ciphertext, of the tag, or only when decrypting.
    #[test]
    fn self_test_catches_a_wrong_path() {
        fn encrypt(variant: u8, k: &[u8; 16], n: &[u8; 16], a: &[u8], b: &mut [u8]) -> [u8; 16] {
            if variant == 0 {
                portable::encrypt::<crate::IsapK128a>(k, n, a, b)
            } else {
                portable::encrypt::<crate::IsapK128>(k, n, a, b)
            }
        }
        // Decryption from the portable encryption: the keystream is the encryption
        // of zeros, and the tag is over the ciphertext, i.e. that of re-encrypting
        // the plaintext.
        let good = |variant: u8, d: bool, k: &[u8; 16], n: &[u8; 16], a: &[u8], b: &mut [u8]| {
            if !d {
                return encrypt(variant, k, n, a, b);
            }
            let mut ks = std::vec![0u8; b.len()];
            encrypt(variant, k, n, a, &mut ks);
            for (x, y) in b.iter_mut().zip(&ks) {
                *x ^= y;
            }
            let mut c = b.to_vec();
            encrypt(variant, k, n, a, &mut c)
        };
        assert!(self_test(good));
        assert!(!self_test(|v, d, k, n, a, b| {
            let t = good(v, d, k, n, a, b);
            if !d {
                b[7] ^= 1;
            }
            t
        }));
        assert!(!self_test(|v, d, k, n, a, b| {
            let mut t = good(v, d, k, n, a, b);
            t[15] ^= 0x80;
            t
        }));
        assert!(!self_test(|v, d, k, n, a, b| {
            let t = good(v, d, k, n, a, b);
            if d && v == 1 {
                b[60] ^= 4;
            }
            t
        }));
    }

    #[test]
    #[allow(unsafe_code)]
    fn rounds_match_keccak_p400() {
        let Some(t) = Avx2Token::detect() else { return };
        let mut s = KeccakP400State::default();
        for (i, l) in s.0.iter_mut().enumerate() {
            *l = (i as u16).wrapping_mul(0x9e37) ^ 0xa5c3;
        }
        for from in [0usize, 4, 12, 19] {
            // SAFETY: the token proves AVX2, BMI1 and BMI2.
            let (x, hi) = unsafe { vector_rounds(t, &s, from) };
            let mut want = s;
            want.permute(20 - from);
            assert_eq!(x, want, "one state, {} rounds", 20 - from);
            let mut other = s;
            other.0[7] ^= 0x1234;
            other.permute(20 - from);
            assert_eq!(hi, other, "high half, {} rounds", 20 - from);
        }
    }
}
