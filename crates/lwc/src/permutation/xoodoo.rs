//! Xoodoo: the 384-bit permutation under Xoodyak.
//!
//! The state is three planes `A0, A1, A2` of four 32-bit lanes each; lane `x` of
//! plane `y` is word `x + 4y` of [`XoodooState`], and the 48 state bytes are those
//! twelve words in little-endian order (the byte convention of the Xoodyak
//! specification and of the NIST LWC submission).
//!
//! One round (Xoodoo specification, "the round function"), with `P <<< (t, v)`
//! the plane `P` shifted by `t` positions along `x` (lane `x` takes lane `x - t`)
//! and each lane rotated left by `v` bits:
//!
//! * θ: `P = A0 + A1 + A2`, `E = P <<< (1, 5) + P <<< (1, 14)`, `Ay += E`;
//! * ρ-west: `A1 <<< (1, 0)`, `A2 <<< (0, 11)`;
//! * ι: `A0[0] += C_i`;
//! * χ: `Ay += ¬A(y+1) · A(y+2)` (all three computed from the same input);
//! * ρ-east: `A1 <<< (0, 1)`, `A2 <<< (2, 8)`.
//!
//! Constant time: a round is AND/NOT/XOR on whole words, fixed rotations and fixed
//! lane permutations. There are no table look-ups and no branches on data; the
//! round count is public.
//!
//! Four implementations, chosen once per call (all give identical results and
//! are tested against each other):
//!
//! * portable scalar code on twelve `u32` words (every target);
//! * SSE2 on x86_64 (baseline there): each plane is one 128-bit register, lane
//!   shifts are `pshufd`, rotations are two shifts and a XOR;
//! * SSSE3 on x86_64, used when CPUID reports it: ρ-east on `A2` (shift by two
//!   lanes plus rotation by 8) becomes one `pshufb`, and θ is rearranged for a
//!   shorter dependency chain;
//! * the same SSSE3 source compiled for AVX-512 F+VL+BW (`#[target_feature]`), used
//!   when CPUID and XCR0 report them: the compiler lowers the rotations to `vprold`
//!   and the χ and θ logic to `vpternlogd`. One source for both levels, so the tests
//!   that run the SSSE3 path elsewhere check the code the AVX-512 CPUs run.

/// The twelve round constants `C_{-11} .. C_0` (Xoodoo specification, Table 2).
/// `n` rounds use the last `n` of them.
pub const ROUND_CONSTANTS: [u32; 12] = [
    0x058, 0x038, 0x3c0, 0x0d0, 0x120, 0x014, 0x060, 0x02c, 0x380, 0x0f0, 0x1a0, 0x012,
];

/// Largest round count the constants define (Xoodoo\[12\]).
pub const MAX_ROUNDS: usize = ROUND_CONSTANTS.len();

/// The Xoodoo state: twelve 32-bit lanes, lane `x` of plane `y` at index `x + 4y`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct XoodooState(pub [u32; 12]);

impl XoodooState {
    /// The state whose 48 bytes (little-endian lanes) are `bytes`.
    #[inline]
    pub fn from_bytes(bytes: &[u8; 48]) -> Self {
        let mut s = [0u32; 12];
        for (w, c) in s.iter_mut().zip(bytes.chunks_exact(4)) {
            *w = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        }
        XoodooState(s)
    }

    /// The 48 state bytes (little-endian lanes).
    #[inline]
    pub fn to_bytes(&self) -> [u8; 48] {
        let mut out = [0u8; 48];
        for (c, w) in out.chunks_exact_mut(4).zip(self.0.iter()) {
            c.copy_from_slice(&w.to_le_bytes());
        }
        out
    }

    /// XORs `bytes` into the state bytes starting at byte 0.
    ///
    /// # Panics
    /// If `bytes` is longer than 48.
    #[inline]
    pub fn xor_bytes(&mut self, bytes: &[u8]) {
        assert!(bytes.len() <= 48, "Xoodoo state is 48 bytes");
        let mut b = self.to_bytes();
        for (s, x) in b.iter_mut().zip(bytes) {
            *s ^= *x;
        }
        *self = Self::from_bytes(&b);
    }

    /// Xoodoo\[12\], the permutation of Xoodyak, with the fastest implementation
    /// available on this CPU.
    #[inline]
    pub fn permute_12(&mut self) {
        self.permute(MAX_ROUNDS);
    }

    /// Applies the last `rounds` rounds of Xoodoo (1 to 12), with the fastest
    /// implementation available on this CPU: the one [`Kernel::detect`] picks, as
    /// for Xoodyak.
    ///
    /// # Panics
    /// If `rounds` is 0 or above [`MAX_ROUNDS`].
    pub fn permute(&mut self, rounds: usize) {
        assert!(
            (1..=MAX_ROUNDS).contains(&rounds),
            "Xoodoo takes 1 to 12 rounds"
        );
        let rc = &ROUND_CONSTANTS[MAX_ROUNDS - rounds..];
        match Kernel::detect() {
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512(t) => x86::permute_avx512(t, self, rc),
            #[cfg(target_arch = "x86_64")]
            Kernel::Ssse3(t) => x86::permute_ssse3(t, self, rc),
            #[cfg(target_arch = "x86_64")]
            Kernel::Sse2 => {
                use x86::Engine as _;
                let mut e = x86::Sse2::from_state(self);
                for &c in rc {
                    e.round(c);
                }
                *self = e.to_state();
            }
            #[cfg(not(target_arch = "x86_64"))]
            Kernel::Portable => self.permute_portable(rounds),
        }
    }

    /// The portable scalar implementation of [`permute`](Self::permute), on every
    /// target (for tests and comparisons).
    ///
    /// # Panics
    /// If `rounds` is 0 or above [`MAX_ROUNDS`].
    pub fn permute_portable(&mut self, rounds: usize) {
        assert!(
            (1..=MAX_ROUNDS).contains(&rounds),
            "Xoodoo takes 1 to 12 rounds"
        );
        for &c in &ROUND_CONSTANTS[MAX_ROUNDS - rounds..] {
            self.round(c);
        }
    }

    /// The SSE2 implementation of [`permute`](Self::permute), forced (x86_64 only;
    /// for tests and comparisons).
    ///
    /// # Panics
    /// If `rounds` is 0 or above [`MAX_ROUNDS`].
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    pub fn permute_sse2(&mut self, rounds: usize) {
        use x86::Engine as _;
        assert!(
            (1..=MAX_ROUNDS).contains(&rounds),
            "Xoodoo takes 1 to 12 rounds"
        );
        let mut e = x86::Sse2::from_state(self);
        for &c in &ROUND_CONSTANTS[MAX_ROUNDS - rounds..] {
            e.round(c);
        }
        *self = e.to_state();
    }

    /// The SSSE3 implementation compiled for AVX-512 F+VL+BW (see
    /// [`permute`](Self::permute)), forced, for tests and comparisons. Returns `false`
    /// and leaves the state alone when this CPU (or OS) lacks AVX-512 F, VL or BW.
    ///
    /// # Panics
    /// If `rounds` is 0 or above [`MAX_ROUNDS`].
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    pub fn permute_avx512(&mut self, rounds: usize) -> bool {
        assert!(
            (1..=MAX_ROUNDS).contains(&rounds),
            "Xoodoo takes 1 to 12 rounds"
        );
        let Some(t) = crate::cpu::Avx512Token::detect() else {
            return false;
        };
        x86::permute_avx512(t, self, &ROUND_CONSTANTS[MAX_ROUNDS - rounds..]);
        true
    }

    /// One scalar round with round constant `rc`.
    #[inline(always)]
    fn round(&mut self, rc: u32) {
        let a = &mut self.0;
        // θ
        let p = [
            a[0] ^ a[4] ^ a[8],
            a[1] ^ a[5] ^ a[9],
            a[2] ^ a[6] ^ a[10],
            a[3] ^ a[7] ^ a[11],
        ];
        let mut e = [0u32; 4];
        for x in 0..4 {
            let px = p[(x + 3) & 3];
            e[x] = px.rotate_left(5) ^ px.rotate_left(14);
        }
        // θ, ρ-west and ι, into plane-local copies b0, b1, b2.
        let mut b0 = [0u32; 4];
        let mut b1 = [0u32; 4];
        let mut b2 = [0u32; 4];
        for x in 0..4 {
            b0[x] = a[x] ^ e[x];
            // A1 <<< (1, 0): lane x takes lane x - 1.
            let xm = (x + 3) & 3;
            b1[x] = a[4 + xm] ^ e[xm];
            b2[x] = (a[8 + x] ^ e[x]).rotate_left(11);
        }
        b0[0] ^= rc;
        // χ and ρ-east.
        for x in 0..4 {
            a[x] = b0[x] ^ (!b1[x] & b2[x]);
            a[4 + x] = (b1[x] ^ (!b2[x] & b0[x])).rotate_left(1);
            // A2 <<< (2, 8): lane x takes lane x - 2.
            let xm = (x + 2) & 3;
            a[8 + x] = (b2[xm] ^ (!b0[xm] & b1[xm])).rotate_left(8);
        }
    }
}

/// The Xoodoo implementation this CPU runs, for [`XoodooState::permute`] and for
/// Xoodyak's dispatch alike. The choice is made here only, so that [`Kernel::name`]
/// (what `crate::kernels` and `crate::permutation_kernels` report) is the code that
/// really runs. The SIMD variants carry the token that proves their instructions
/// usable.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Kernel {
    /// The SSSE3 source compiled for AVX-512 F+VL+BW.
    #[cfg(target_arch = "x86_64")]
    Avx512(crate::cpu::Avx512Token),
    /// The SSSE3 source.
    #[cfg(target_arch = "x86_64")]
    Ssse3(x86::Ssse3Token),
    /// The SSE2 source (every x86_64 CPU).
    #[cfg(target_arch = "x86_64")]
    Sse2,
    /// The portable scalar code (other targets).
    #[cfg(not(target_arch = "x86_64"))]
    Portable,
}

impl Kernel {
    /// AVX-512 F+VL+BW when the CPU and OS support them, else SSSE3 when the CPU has
    /// it, otherwise SSE2 (x86_64) or the portable code (other targets).
    #[inline]
    pub(crate) fn detect() -> Kernel {
        #[cfg(target_arch = "x86_64")]
        {
            if let Some(t) = crate::cpu::Avx512Token::detect() {
                Kernel::Avx512(t)
            } else if let Some(t) = x86::Ssse3::detect() {
                Kernel::Ssse3(t)
            } else {
                Kernel::Sse2
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            Kernel::Portable
        }
    }

    /// Its name in reports.
    pub(crate) fn name(self) -> &'static str {
        match self {
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512(_) => "avx512",
            #[cfg(target_arch = "x86_64")]
            Kernel::Ssse3(_) => "ssse3",
            #[cfg(target_arch = "x86_64")]
            Kernel::Sse2 => "sse2",
            #[cfg(not(target_arch = "x86_64"))]
            Kernel::Portable => "portable",
        }
    }
}

/// The operations a Xoodoo implementation offers to the modes of operation. Each
/// implementation holds the state in its own form (registers for the SIMD ones),
/// so a mode written generically over `Engine` keeps it there across a whole
/// bulk loop.
pub(crate) trait Engine: Copy {
    /// Loads a state.
    fn from_state(s: &XoodooState) -> Self;
    /// Stores the state.
    fn to_state(&self) -> XoodooState;
    /// One round with constant `rc`.
    fn round(&mut self, rc: u32);

    /// Xoodoo\[12\].
    #[inline(always)]
    fn permute_12(&mut self) {
        for &c in &ROUND_CONSTANTS {
            self.round(c);
        }
    }

    /// XORs 48 bytes into the state.
    #[inline(always)]
    fn xor_state_bytes(&mut self, b: &[u8; 48]) {
        let mut s = self.to_state();
        let x = XoodooState::from_bytes(b);
        for (w, v) in s.0.iter_mut().zip(x.0.iter()) {
            *w ^= *v;
        }
        *self = Self::from_state(&s);
    }

    /// The 48 state bytes.
    #[inline(always)]
    fn state_bytes(&self) -> [u8; 48] {
        self.to_state().to_bytes()
    }

    /// Cyclist keyed `Crypt` on whole 24-byte blocks: for each block
    /// `Up(Cu)` (with `cu` on the first block only, 0 after), then output
    /// `state[..24] ^ block` and `Down(plaintext block, 0)`. `buf.len()` is a
    /// multiple of 24; the blocks are transformed in place.
    #[inline(always)]
    fn crypt_blocks<const DECRYPT: bool>(&mut self, buf: &mut [u8], cu: u8) {
        let mut cu = cu;
        for block in buf.chunks_exact_mut(24) {
            let mut add = [0u8; 48];
            add[47] = cu;
            cu = 0;
            self.xor_state_bytes(&add);
            self.permute_12();
            let ks = self.state_bytes();
            let mut add = [0u8; 48];
            for i in 0..24 {
                let c = block[i] ^ ks[i];
                // The plaintext goes into the state: P for encryption, C ^ ks for
                // decryption.
                add[i] = if DECRYPT { c } else { block[i] };
                block[i] = c;
            }
            add[24] = 0x01;
            self.xor_state_bytes(&add);
        }
    }

    /// Cyclist hash-mode absorption of whole 16-byte blocks, none of them the
    /// first of the message: for each, `Up` then `Down(block, 0)`.
    #[inline(always)]
    fn hash_blocks(&mut self, data: &[u8]) {
        for block in data.chunks_exact(16) {
            self.permute_12();
            let mut add = [0u8; 48];
            add[..16].copy_from_slice(block);
            add[16] = 0x01;
            self.xor_state_bytes(&add);
        }
    }
}

impl Engine for XoodooState {
    #[inline(always)]
    fn from_state(s: &XoodooState) -> Self {
        *s
    }
    #[inline(always)]
    fn to_state(&self) -> XoodooState {
        *self
    }
    #[inline(always)]
    fn round(&mut self, rc: u32) {
        XoodooState::round(self, rc);
    }
}

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
pub(crate) mod x86 {
    //! The SSE2 and SSSE3 implementations: one 128-bit register per plane.

    pub(crate) use super::Engine;
    use super::{ROUND_CONSTANTS, XoodooState};
    use crate::cpu::Avx512Token;
    use core::arch::x86_64::{__cpuid, __m128i};
    use core::sync::atomic::{AtomicU8, Ordering};
    use ops::*;

    /// Safe wrappers of the SSE2 intrinsics used here. The intrinsics are
    /// `#[target_feature(enable = "sse2")]` functions; this module is compiled only
    /// when SSE2 is enabled for the whole build (always on x86_64 except soft-float
    /// targets), so calling them is sound everywhere.
    #[allow(unsafe_code)]
    mod ops {
        use core::arch::x86_64::*;

        /// `a ^ b`.
        #[inline(always)]
        pub(super) fn xor(a: __m128i, b: __m128i) -> __m128i {
            // SAFETY: SSE2 is enabled at compile time (module cfg).
            unsafe { _mm_xor_si128(a, b) }
        }
        /// `!a & b`.
        #[inline(always)]
        pub(super) fn andnot(a: __m128i, b: __m128i) -> __m128i {
            // SAFETY: SSE2 is enabled at compile time (module cfg).
            unsafe { _mm_andnot_si128(a, b) }
        }
        /// Each 32-bit lane shifted left by `N`.
        #[inline(always)]
        pub(super) fn shl<const N: i32>(a: __m128i) -> __m128i {
            // SAFETY: SSE2 is enabled at compile time (module cfg).
            unsafe { _mm_slli_epi32::<N>(a) }
        }
        /// Each 32-bit lane shifted right by `N`.
        #[inline(always)]
        pub(super) fn shr<const N: i32>(a: __m128i) -> __m128i {
            // SAFETY: SSE2 is enabled at compile time (module cfg).
            unsafe { _mm_srli_epi32::<N>(a) }
        }
        /// `pshufd` with immediate `N`.
        #[inline(always)]
        pub(super) fn shuffle<const N: i32>(a: __m128i) -> __m128i {
            // SAFETY: SSE2 is enabled at compile time (module cfg).
            unsafe { _mm_shuffle_epi32::<N>(a) }
        }
        /// The register with 32-bit lanes `[l0, l1, l2, l3]` (lane 0 lowest).
        #[inline(always)]
        pub(super) fn lanes(l0: u32, l1: u32, l2: u32, l3: u32) -> __m128i {
            // SAFETY: SSE2 is enabled at compile time (module cfg).
            unsafe { _mm_set_epi32(l3 as i32, l2 as i32, l1 as i32, l0 as i32) }
        }
        /// The low 64 bits of `a`, upper 64 bits zero.
        #[inline(always)]
        pub(super) fn low64(a: __m128i) -> __m128i {
            // SAFETY: SSE2 is enabled at compile time (module cfg).
            unsafe { _mm_move_epi64(a) }
        }
        /// 16 bytes into a register.
        #[inline(always)]
        pub(super) fn load16(b: &[u8; 16]) -> __m128i {
            // SAFETY: `b` is 16 readable bytes; `loadu` has no alignment
            // requirement; SSE2 is enabled at compile time.
            unsafe { _mm_loadu_si128(b.as_ptr().cast()) }
        }
        /// A register into 16 bytes.
        #[inline(always)]
        pub(super) fn store16(b: &mut [u8; 16], v: __m128i) {
            // SAFETY: `b` is 16 writable bytes; `storeu` has no alignment
            // requirement; SSE2 is enabled at compile time.
            unsafe { _mm_storeu_si128(b.as_mut_ptr().cast(), v) }
        }
        /// The first 16 bytes and the last 8 bytes (zero-extended) of a block.
        #[inline(always)]
        pub(super) fn load24(b: &[u8; 24]) -> (__m128i, __m128i) {
            // SAFETY: bytes 0..16 and 16..24 lie inside the 24-byte array; the
            // unaligned loads read exactly 16 and 8 bytes; SSE2 is enabled.
            unsafe {
                (
                    _mm_loadu_si128(b.as_ptr().cast()),
                    _mm_loadl_epi64(b.as_ptr().add(16).cast()),
                )
            }
        }
        /// Stores `lo` into bytes 0..16 and the low 8 bytes of `hi` into 16..24.
        #[inline(always)]
        pub(super) fn store24(b: &mut [u8; 24], lo: __m128i, hi: __m128i) {
            // SAFETY: bytes 0..16 and 16..24 lie inside the 24-byte array; the
            // unaligned stores write exactly 16 and 8 bytes; SSE2 is enabled.
            unsafe {
                _mm_storeu_si128(b.as_mut_ptr().cast(), lo);
                _mm_storel_epi64(b.as_mut_ptr().add(16).cast(), hi);
            }
        }
        /// `pshufb` (SSSE3).
        ///
        /// # Safety
        /// The CPU must support SSSE3.
        #[inline(always)]
        pub(super) unsafe fn pshufb(a: __m128i, c: __m128i) -> __m128i {
            // SAFETY: the caller guarantees SSSE3.
            unsafe { _mm_shuffle_epi8(a, c) }
        }
    }

    /// Rotates each 32-bit lane left by `L` (`R` = 32 - `L`).
    #[inline(always)]
    fn rotl<const L: i32, const R: i32>(x: __m128i) -> __m128i {
        xor(shl::<L>(x), shr::<R>(x))
    }

    /// `pshufd` immediate: lane `x` takes lane `x - 1` (shift by one along x).
    const SHIFT1: i32 = 0x93;
    /// `pshufd` immediate: lane `x` takes lane `x - 2`.
    const SHIFT2: i32 = 0x4e;

    /// A `pshufb` control: lane `x` takes lane `x - shift`, rotated left by `rot`
    /// bytes.
    const fn byte_perm(shift: usize, rot: usize) -> [u8; 16] {
        let mut c = [0u8; 16];
        let mut x = 0;
        while x < 4 {
            let src = (x + 4 - shift) % 4;
            let mut j = 0;
            while j < 4 {
                c[4 * x + j] = (4 * src + (j + 4 - rot) % 4) as u8;
                j += 1;
            }
            x += 1;
        }
        c
    }
    /// ρ-east on A2: shift by two lanes and rotate by 8 bits.
    const RHO_EAST2: [u8; 16] = byte_perm(2, 1);
    /// Shift by one lane and rotate by 16 bits (θ rearranged, see `Ssse3::round`).
    const SHIFT1_ROT16: [u8; 16] = byte_perm(1, 2);

    /// Whether the CPU has SSSE3: 0 = not yet asked, 1 = no, 2 = yes.
    static SSSE3: AtomicU8 = AtomicU8::new(0);

    /// The SSE2 implementation (SSE2 is part of x86_64).
    #[derive(Clone, Copy)]
    pub(crate) struct Sse2 {
        a0: __m128i,
        a1: __m128i,
        a2: __m128i,
    }

    /// The SSSE3 implementation. A value exists only once CPUID has reported
    /// SSSE3 (see [`Ssse3::detect`]), which is what makes its `pshufb` sound.
    #[derive(Clone, Copy)]
    pub(crate) struct Ssse3 {
        a0: __m128i,
        a1: __m128i,
        a2: __m128i,
    }

    /// Proof that SSSE3 is available.
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Ssse3Token(());

    impl Ssse3 {
        /// `Some` when the CPU supports SSSE3 (asked once, then cached).
        #[inline]
        pub(crate) fn detect() -> Option<Ssse3Token> {
            #[cfg(target_feature = "ssse3")]
            {
                Some(Ssse3Token(()))
            }
            #[cfg(not(target_feature = "ssse3"))]
            {
                let mut v = SSSE3.load(Ordering::Relaxed);
                if v == 0 {
                    // CPUID leaf 1, ECX bit 9 = SSSE3. CPUID is always present on
                    // x86_64.
                    let ecx = __cpuid(1).ecx;
                    v = if ecx & (1 << 9) != 0 { 2 } else { 1 };
                    SSSE3.store(v, Ordering::Relaxed);
                }
                if v == 2 { Some(Ssse3Token(())) } else { None }
            }
        }
    }

    /// Runs `rc.len()` rounds with the SSSE3 implementation.
    #[inline]
    #[allow(unsafe_code)]
    pub(crate) fn permute_ssse3(t: Ssse3Token, s: &mut XoodooState, rc: &[u32]) {
        #[target_feature(enable = "ssse3")]
        fn inner(s: &mut XoodooState, rc: &[u32]) {
            let mut e = Ssse3::from_state(s);
            for &c in rc {
                e.round(c);
            }
            *s = e.to_state();
        }
        let _ = t;
        // SAFETY: the token proves the CPU supports SSSE3.
        unsafe { inner(s, rc) }
    }

    /// Runs `rc.len()` rounds with the SSSE3 implementation compiled for AVX-512
    /// F+VL+BW: the same source, and the compiler selects the instructions. With
    /// AVX-512VL it turns each shift-shift-XOR rotation into one `vprold` and each
    /// χ line (`a ^ (!b & c)`) and three-way XOR into one `vpternlogd`, which is
    /// where the AVX-512 speed-up comes from (the 128-bit registers stay).
    #[inline]
    #[allow(unsafe_code)]
    pub(crate) fn permute_avx512(t: Avx512Token, s: &mut XoodooState, rc: &[u32]) {
        #[target_feature(enable = "ssse3,avx2,avx512f,avx512vl,avx512bw")]
        fn inner(s: &mut XoodooState, rc: &[u32]) {
            let mut e = Ssse3::from_state(s);
            for &c in rc {
                e.round(c);
            }
            *s = e.to_state();
        }
        let _ = t;
        // SAFETY: the token proves the CPU supports AVX-512 F, VL and BW (and the
        // OS saves their state), which imply SSSE3 and AVX2.
        unsafe { inner(s, rc) }
    }

    /// The round constants, each in lane 0 of a 128-bit value.
    static RC_LANES: [[u8; 16]; 12] = {
        let mut t = [[0u8; 16]; 12];
        let mut i = 0;
        while i < 12 {
            let b = ROUND_CONSTANTS[i].to_le_bytes();
            t[i][0] = b[0];
            t[i][1] = b[1];
            i += 1;
        }
        t
    };

    macro_rules! planes_permute {
        () => {
            /// Xoodoo\[12\] with the round constants read from `rcs`. The table
            /// comes through `black_box` so that LLVM treats the constants as
            /// values available early and XORs them into A0 before E arrives
            /// (as constants it would put them last, on the critical path).
            #[inline(always)]
            fn permute_v(&mut self, rcs: &[[u8; 16]; 12]) {
                // Written out: straight-line code (LLVM does not unroll a loop
                // this large).
                self.round_v(load16(&rcs[0]));
                self.round_v(load16(&rcs[1]));
                self.round_v(load16(&rcs[2]));
                self.round_v(load16(&rcs[3]));
                self.round_v(load16(&rcs[4]));
                self.round_v(load16(&rcs[5]));
                self.round_v(load16(&rcs[6]));
                self.round_v(load16(&rcs[7]));
                self.round_v(load16(&rcs[8]));
                self.round_v(load16(&rcs[9]));
                self.round_v(load16(&rcs[10]));
                self.round_v(load16(&rcs[11]));
            }
        };
    }

    macro_rules! planes_common {
        () => {
            #[inline(always)]
            fn from_state(s: &XoodooState) -> Self {
                let b = s.to_bytes();
                let mut p = [[0u8; 16]; 3];
                for (y, q) in p.iter_mut().enumerate() {
                    q.copy_from_slice(&b[16 * y..16 * y + 16]);
                }
                Self {
                    a0: load16(&p[0]),
                    a1: load16(&p[1]),
                    a2: load16(&p[2]),
                }
            }

            #[inline(always)]
            fn to_state(&self) -> XoodooState {
                XoodooState::from_bytes(&self.state_bytes())
            }

            #[inline(always)]
            fn state_bytes(&self) -> [u8; 48] {
                let mut p = [[0u8; 16]; 3];
                store16(&mut p[0], self.a0);
                store16(&mut p[1], self.a1);
                store16(&mut p[2], self.a2);
                let mut b = [0u8; 48];
                for (y, q) in p.iter().enumerate() {
                    b[16 * y..16 * y + 16].copy_from_slice(q);
                }
                b
            }

            #[inline(always)]
            fn xor_state_bytes(&mut self, b: &[u8; 48]) {
                let mut p = [[0u8; 16]; 3];
                for (y, q) in p.iter_mut().enumerate() {
                    q.copy_from_slice(&b[16 * y..16 * y + 16]);
                }
                self.a0 = xor(self.a0, load16(&p[0]));
                self.a1 = xor(self.a1, load16(&p[1]));
                self.a2 = xor(self.a2, load16(&p[2]));
            }

            #[inline(always)]
            fn round(&mut self, rc: u32) {
                self.round_v(lanes(rc, 0, 0, 0));
            }

            #[inline(always)]
            fn permute_12(&mut self) {
                self.permute_v(core::hint::black_box(&RC_LANES));
            }

            #[inline(always)]
            fn crypt_blocks<const DECRYPT: bool>(&mut self, buf: &mut [u8], cu: u8) {
                // Padding byte after a 24-byte block: state byte 24 = A1 lane 2.
                let pad = lanes(0, 0, 1, 0);
                // Cu goes into state byte 47, the top byte of A2 lane 3.
                self.a2 = xor(self.a2, lanes(0, 0, 0, u32::from(cu) << 24));
                let rcs = core::hint::black_box(&RC_LANES);
                let mut s = *self;
                for block in buf.chunks_exact_mut(24) {
                    let Ok(block): Result<&mut [u8; 24], _> = block.try_into() else {
                        unreachable!()
                    };
                    s.permute_v(rcs);
                    let (m0, m1) = load24(block);
                    if DECRYPT {
                        let p0 = xor(s.a0, m0);
                        let p1 = low64(xor(s.a1, m1));
                        store24(block, p0, p1);
                        s.a0 = m0;
                        s.a1 = xor(s.a1, xor(p1, pad));
                    } else {
                        s.a0 = xor(s.a0, m0);
                        s.a1 = xor(s.a1, m1);
                        store24(block, s.a0, s.a1);
                        s.a1 = xor(s.a1, pad);
                    }
                }
                *self = s;
            }

            #[inline(always)]
            fn hash_blocks(&mut self, data: &[u8]) {
                // Padding after a 16-byte block: state byte 16 = A1 lane 0.
                let pad = lanes(1, 0, 0, 0);
                let rcs = core::hint::black_box(&RC_LANES);
                let mut s = *self;
                for block in data.chunks_exact(16) {
                    let Ok(block): Result<&[u8; 16], _> = block.try_into() else {
                        unreachable!()
                    };
                    s.permute_v(rcs);
                    s.a0 = xor(s.a0, load16(block));
                    s.a1 = xor(s.a1, pad);
                }
                *self = s;
            }
        };
    }

    impl Engine for Sse2 {
        planes_common!();
    }

    impl Engine for Ssse3 {
        planes_common!();
    }

    impl Sse2 {
        planes_permute!();

        /// The round as the specification writes it; `rc` holds the round
        /// constant in lane 0.
        #[inline(always)]
        fn round_v(&mut self, rc: __m128i) {
            let Self { a0, a1, a2 } = *self;
            // θ
            let p = shuffle::<SHIFT1>(xor(xor(a0, a1), a2));
            let e = xor(
                xor(shl::<5>(p), shr::<27>(p)),
                xor(shl::<14>(p), shr::<18>(p)),
            );
            // θ, ι, ρ-west
            let a0 = xor(xor(a0, rc), e);
            let a1 = shuffle::<SHIFT1>(xor(a1, e));
            let a2 = rotl::<11, 21>(xor(a2, e));
            // χ
            let b0 = xor(a0, andnot(a1, a2));
            let b1 = xor(a1, andnot(a2, a0));
            let b2 = xor(a2, andnot(a0, a1));
            // ρ-east
            self.a0 = b0;
            self.a1 = rotl::<1, 31>(b1);
            self.a2 = shuffle::<SHIFT2>(rotl::<8, 24>(b2));
        }
    }

    impl Ssse3 {
        planes_permute!();

        /// The round with `pshufb` for ρ-east and θ rearranged for a shorter
        /// dependency chain. With `Q = P <<< (0,5) + P <<< (0,14)` and
        /// `E = Q <<< (1,0)`:
        ///
        /// * new A1 = `(A1 + E) <<< (1,0) = A1 <<< (1,0) + Q <<< (2,0)`;
        /// * new A2 = `(A2 + E) <<< (0,11) = A2 <<< (0,11) + P <<< (1,16) +
        ///   P <<< (1,25)`;
        ///
        /// so neither waits for E itself.
        #[inline(always)]
        #[allow(unsafe_code)]
        fn round_v(&mut self, rc: __m128i) {
            let Self { a0, a1, a2 } = *self;
            let rho_east2 = load16(&RHO_EAST2);
            let shift1_rot16 = load16(&SHIFT1_ROT16);
            let p = xor(xor(a0, a1), a2);
            let q = xor(
                xor(shl::<5>(p), shr::<27>(p)),
                xor(shl::<14>(p), shr::<18>(p)),
            );
            let e = shuffle::<SHIFT1>(q);
            let a0 = xor(xor(a0, rc), e);
            let a1 = xor(shuffle::<SHIFT1>(a1), shuffle::<SHIFT2>(q));
            let s = shuffle::<SHIFT1>(p);
            // SAFETY: an `Ssse3` value exists only after `Ssse3::detect` succeeded.
            let r16 = unsafe { pshufb(p, shift1_rot16) };
            let a2 = xor(xor(rotl::<11, 21>(a2), r16), xor(shl::<25>(s), shr::<7>(s)));
            // χ
            let b0 = xor(a0, andnot(a1, a2));
            let b1 = xor(a1, andnot(a2, a0));
            let b2 = xor(a2, andnot(a0, a1));
            // ρ-east
            self.a0 = b0;
            self.a1 = rotl::<1, 31>(b1);
            // SAFETY: as above.
            self.a2 = unsafe { pshufb(b2, rho_east2) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn implementations_agree() {
        let mut s = XoodooState::default();
        for (i, w) in s.0.iter_mut().enumerate() {
            *w = (i as u32).wrapping_mul(0x9e37_79b9) ^ 0x1234_5678;
        }
        for rounds in 1..=MAX_ROUNDS {
            let mut a = s;
            let mut b = s;
            a.permute_portable(rounds);
            b.permute(rounds);
            assert_eq!(a, b, "{rounds} rounds");
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            {
                let mut c = s;
                c.permute_sse2(rounds);
                assert_eq!(a, c, "{rounds} rounds, SSE2");
            }
            s = a;
        }
    }

    #[test]
    fn bytes_roundtrip() {
        let b: [u8; 48] = core::array::from_fn(|i| i as u8);
        let s = XoodooState::from_bytes(&b);
        assert_eq!(s.0[0], 0x0302_0100);
        assert_eq!(s.to_bytes(), b);
    }
}
